"""What a katago player plays for: the KataGo rules and komi of its queries, the closest KataGo
has to the run's rules of play (repetition, suicide) and to the ruleset it plays for
(``play_for``: scoring, komi, A版's point). docs/rules.md §14 says what differs; the referee
judges every move by the run's rules whatever KataGo believes.
"""

from __future__ import annotations

from sim.config.rules import Rules

#: KataGo's ko rule for each repetition mode: POSITIONAL bans every board position seen before,
#: which covers what global superko and 唐宋版's no-result rule ban (KataGo never plays into
#: either; it does not retake a ko after a pass, which they allow); SIMPLE, like basic_ko, only
#: the immediate recapture, a pass lifting it.
KO_RULE = {
    "global_superko": "POSITIONAL",
    "no_result": "POSITIONAL",
    "board_superko": "POSITIONAL",
    "situational_superko": "SITUATIONAL",
    "basic_ko": "SIMPLE",
}

#: For each ruleset: KataGo's scoring rule, its seki tax, whether the first pass earns KataGo's
#: button (half a point), and what is added to the ruleset's komi. A版's point (White +1 when
#: White was first to pass or play a virtual move) is the button at half a point more komi:
#: margin = diff - komi - [W first] = diff - (komi + 0.5) - (+-0.5 to the first passer).
RULESET_RULES = {
    "jpd_a": ("AREA", "NONE", True, 0.5),
    "jpd_b": ("AREA", "NONE", False, 0.0),
    "jpd_tangsong": ("AREA", "NONE", False, 0.0),
    "chinese": ("AREA", "NONE", False, 0.0),
    "japanese": ("TERRITORY", "SEKI", False, 0.0),
}

MAX_KOMI = 150.0  # KataGo takes komis in -150..150, whole or half


def query_rules(rules: Rules, play_for: str) -> tuple[dict, float]:
    """The ``rules`` object and the ``komi`` of a query for a player that plays for
    ``play_for`` under ``rules``; ValueError if KataGo cannot take that komi."""
    scoring, tax, button, shift = RULESET_RULES[play_for]
    komi = rules.komi[play_for] + shift
    if not (abs(komi) <= MAX_KOMI and (2 * komi).is_integer()):
        raise ValueError(
            f"KataGo takes a whole or half komi in -{MAX_KOMI:g}..{MAX_KOMI:g}; playing for "
            f"{play_for} (komi {rules.komi[play_for]:g}) it would be told {komi:g}"
        )
    katago = {
        "ko": KO_RULE[rules.repetition],
        "scoring": scoring,
        "tax": tax,
        "suicide": rules.suicide == "multi",
        "hasButton": button,
        "whiteHandicapBonus": "0",
        "friendlyPassOk": False,  # every stone on the board counts at the end, as all_alive's
    }
    return katago, komi
