"""Write ``tests/data/replay_cases.jsonl``: golden cases of `jpdsim replay` that the project
owns, computed from the specs below by the pure-Python reference (``tests/reference.py``),
never by the numba engine, so that the data is regenerated and not typed by hand.

    python -m tests.data.make_replay_cases            # rewrite the file beside this script
    python tests/data/make_replay_cases.py --out FILE # write it elsewhere (the tests do)

One case a line, in the format of ``shared/examples/replay.jsonl``:
  ``title``  what the case shows;
  ``rule``   the sections it shows (docs/rules.md §n; the seeds: A§n A版, T§n 唐宋版);
  ``args``   ``size``, ``moves`` (tokens), ``setup`` (diagram rows, top row first, or null),
             ``repetition``, ``suicide``, and ``max_actions`` / ``dead_stones`` / ``komi``
             (ruleset -> number)
             where the case gives them — the options of `jpdsim replay`;
  then either ``output`` (the JSON object `jpdsim replay --legal` prints: every outcome field,
  ``final_board``, ``legal_moves``) or ``error`` (the line it prints on stderr, exit status 2).

To add a case, add a ``case(...)`` below and run the command above; the tests check that the
file is exactly what this script writes.
"""

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sim.schema.coords import MoveError, format_action, format_diagram, parse_action, parse_diagram  # noqa: E402
from sim.schema.tables import RULESETS  # noqa: E402
from tests.positions import (
    ATARI_SEKI,
    BLACK_NO_ROOM,
    BOTH_WITHOUT,
    CYCLE,
    EDGE,
    KO,
    MULTI_SUICIDE,
    SEKI,
    SINGLE,
    SINGLE_SUICIDE,
    SPLIT,
    SUICIDE_RETURN,
    WHITE_NO_ROOM,
)
from tests.reference import RefGame  # noqa: E402

OUT = Path(__file__).with_name("replay_cases.jsonl")
ZERO_KOMI = {r: 0 for r in RULESETS}

# ---------------------------------------------------------------------------------------------
# Positions (top row first: X Black, O White, . empty; Black to move)


DAME = """
..X.O
..X.O
..X.O
..X.O
..X.O
"""

SETUP3 = """
XX.
X.O
.OO
"""

LONE_STONES = """
X....
.....
.....
.....
....O
"""

# ---------------------------------------------------------------------------------------------
# The cases

CASES = []


def case(
    title,
    rule,
    size,
    moves="",
    setup=None,
    repetition="global_superko",
    suicide="multi",
    max_actions=None,
    dead_stones=None,
    komi=None,
):
    """Add one case: ``moves`` a string of tokens, ``setup`` a diagram string or None."""
    args = {
        "size": size,
        "moves": moves.split(),
        "setup": None if setup is None else format_diagram(parse_diagram(setup, size), size),
        "repetition": repetition,
        "suicide": suicide,
    }
    if max_actions is not None:
        args["max_actions"] = max_actions
    if dead_stones is not None:
        args["dead_stones"] = dead_stones
    if komi is not None:
        args["komi"] = dict(komi)
    CASES.append({"title": title, "rule": rule, "args": args})


# §1 actions and tokens; §4 passes, pauses
case(
    "Empty 2x2 board, no moves: an unfinished game scored as it stands; the empty component "
    "touches no stone, so every point is public",
    "docs/rules.md §7.1, §9 results",
    2,
)
case(
    "Tokens in any case: b2, PASS, Virtual (White's pass becomes a virtual move)",
    "docs/rules.md §1, §4",
    3,
    "b2 PASS Virtual",
)
case(
    "On 9x9 the columns skip I: J9 is the top right corner; two passes pause the game",
    "docs/rules.md §1, §4",
    9,
    "E5 J9 pass pass",
)
case(
    "Black passes, White plays: Black's pass becomes a Black virtual move before White's stone",
    "docs/rules.md §4 pass conversion, A§2.3 (2)",
    4,
    "pass B2",
)
case(
    "White resigns after Black's pass: the game ends at once, the pass is not converted; "
    "Black wins under every ruleset and no margin is computed",
    "docs/rules.md §4 resignation, A§6.5",
    5,
    "C3 D4 pass resign",
)
case(
    "After a resignation every action is refused: game over",
    "docs/rules.md §4 resignation, §9 after the end",
    3,
    "resign B2",
)
case(
    "Two passes at the start: the game pauses; Black was first to pass",
    "docs/rules.md §4 pause, §6",
    3,
    "pass pass",
)
case(
    "Pass, then virtual: the pass is converted, no pause",
    "docs/rules.md §4, A§5.1 (1)",
    3,
    "pass virtual",
)
case(
    "Virtual, pass, virtual: never a pause; the declined pass counts as a virtual move",
    "docs/rules.md §4, A§5.1 (1)",
    5,
    "C3 virtual pass virtual",
)
case(
    "A declined pass, then one pair of passes: the game pauses, the first pass stays converted",
    "docs/rules.md §4, §6",
    4,
    "pass B2 pass pass",
)
case("Any action after a pause is an error", "docs/rules.md §9 after the end", 3, "pass pass B2")
case("Occupied point", "docs/rules.md §3.1, §9 reasons", 3, "B2 B2")

# §4 dead stones at a pause (dead_stones = "agree")
case(
    "Agreed dead stones: after two passes both lists name White's D4 and Black's B2; each is "
    "removed, lost by its owner (a prisoner of the other), and the position is scored",
    "docs/rules.md §4 pause, agreement, §7, A§5.1 (2)",
    5,
    "C3 D4 B2 pass pass agree D4 B2",
    dead_stones="agree",
)
case(
    "Different lists: play resumes 实战解决; the two passes become virtual moves of Black, then "
    "White, and Black (the first passer) moves",
    "docs/rules.md §4 dispute, A§2.3 (3), A§5.2",
    5,
    "C3 C4 pass pass resume B4",
    dead_stones="agree",
)
case(
    "After three resumptions the next pause ends the game with every stone alive",
    "docs/rules.md §4 Choice (3 resumptions)",
    5,
    "C3 C4 pass pass resume D3 pass pass resume B3 pass pass resume D4 pass pass",
    dead_stones="agree",
)
case(
    "Resuming twice at one board: the second resumption's first conversion is the fourth "
    "virtual move there, and the game ends four_virtual",
    "docs/rules.md §4 dispute, four-virtual ending",
    4,
    "B2 pass pass resume pass pass resume",
    dead_stones="agree",
)
case(
    "Only a stone can be named dead",
    "docs/rules.md §4 agreement",
    5,
    "C3 pass pass agree D4",
    dead_stones="agree",
)
case(
    "agree before any pause",
    "docs/rules.md §4 agreement",
    5,
    "C3 agree",
    dead_stones="agree",
)
case(
    "With dead_stones = all_alive a pause ends the game: agree is refused",
    "docs/rules.md §4 pause",
    5,
    "C3 pass pass agree",
)

# §4 four virtual moves
case(
    "Four virtual moves at the empty board end the game (四虚终局)",
    "docs/rules.md §4 four-virtual, A§5.3",
    2,
    "virtual virtual virtual virtual",
)
case(
    "Four-virtual counts add up over separate visits to one board: two at the ko position, "
    "two after the take, the retake, two more",
    "docs/rules.md §4, §9 four-virtual counts, A§5.3",
    5,
    "virtual virtual C3 virtual virtual B3 virtual virtual",
    setup=KO,
)
case(
    "A converted pass completes four virtual moves: the game ends, the declining B2 counts as "
    "an action but is not played",
    "docs/rules.md §4, §9 the declining action",
    3,
    "virtual virtual virtual pass B2",
)
case(
    "The declining action is judged after the conversion: an occupied point is still an error",
    "docs/rules.md §9 the declining action",
    3,
    "B2 virtual virtual virtual pass B2",
)
case(
    "Any action after a four-virtual ending is an error",
    "docs/rules.md §4, §9 after the end",
    2,
    "virtual virtual virtual virtual A1",
)

# §3 captures
case(
    "Black C2 captures a setup stone: a lost stone and a prisoner; C3 is then single-stone "
    "suicide for White",
    "docs/rules.md §3.2, §9 setup, A§3.3",
    5,
    "C2",
    setup=SINGLE,
)
case(
    "Black D5 captures a four-stone group at the edge",
    "docs/rules.md §3.2, A§3.3",
    5,
    "D5",
    setup=EDGE,
)
case(
    "Both sides without liberties: the opponent's stone goes, the mover's stay",
    "docs/rules.md §3.3, A§3.4",
    5,
    "A1",
    setup=BOTH_WITHOUT,
)
case(
    "A capture from the empty board, then two passes: Japanese counting adds the prisoner",
    "docs/rules.md §3.2, §7.2 item 4",
    3,
    "A2 A1 B1 pass pass",
)

# §3 suicide
case(
    "Single-stone suicide is illegal under suicide=multi",
    "docs/rules.md §3.4, A§4.2",
    5,
    "E5 A1",
    setup=SINGLE_SUICIDE,
)
case(
    "Single-stone suicide is illegal under suicide=none",
    "docs/rules.md §3.4",
    5,
    "E5 A1",
    setup=SINGLE_SUICIDE,
    suicide="none",
)
case(
    "Multi-stone suicide is among White's legal moves under suicide=multi (B1)",
    "docs/rules.md §3.4",
    5,
    "E5",
    setup=MULTI_SUICIDE,
)
case(
    "Multi-stone suicide is not among the legal moves under suicide=none (no B1)",
    "docs/rules.md §3.4",
    5,
    "E5",
    setup=MULTI_SUICIDE,
    suicide="none",
)
case(
    "Multi-stone suicide under suicide=multi: both White stones are lost, Black's prisoners",
    "docs/rules.md §3.3-3.4, §9 counters, A§4.2",
    5,
    "E5 B1",
    setup=MULTI_SUICIDE,
)
case(
    "Multi-stone suicide is illegal under suicide=none",
    "docs/rules.md §3.4",
    5,
    "E5 B1",
    setup=MULTI_SUICIDE,
    suicide="none",
)
case(
    "Multi-stone suicide that recreates an earlier global position is banned by global_superko",
    "docs/rules.md §3.4, §5 global_superko",
    5,
    "A1 E5 B1 D5",
    setup=CYCLE,
)

# §5 repetition: the immediate retake, then the retake after a virtual move each
IMMEDIATE = {
    "global_superko": "superko",
    "no_result": "ko",
    "board_superko": "superko",
    "situational_superko": "superko",
    "basic_ko": "ko",
}
for mode, reason in IMMEDIATE.items():
    case(
        f"Immediate ko retake under {mode}: refused as {reason}",
        f"docs/rules.md §5 {mode}, §9 reasons",
        5,
        "C3 B3",
        setup=KO,
        repetition=mode,
    )
AFTER_VIRTUALS = {
    "global_superko": "legal: the virtual stones make the global position new (隔虚提劫)",
    "no_result": "legal: not the position before Black's last move",
    "basic_ko": "legal: not the immediate recapture",
    "board_superko": "refused: virtual stones are not part of the board",
    "situational_superko": "refused: same board, same side to move",
}
for mode, why in AFTER_VIRTUALS.items():
    case(
        f"Ko retake after a virtual move each under {mode}: {why}",
        f"docs/rules.md §5 {mode}, A§4.2",
        5,
        "C3 virtual virtual B3",
        setup=KO,
        repetition=mode,
    )
AFTER_DECLINED_PASS = {
    "global_superko": "legal: the converted pass is a Black virtual stone, judged first",
    "no_result": "legal: not the position before Black's last move",
    "basic_ko": "legal: not the immediate recapture",
    "board_superko": "refused: the converted pass does not change the board",
    "situational_superko": "refused: same board, same side to move",
}
for mode, why in AFTER_DECLINED_PASS.items():
    case(
        f"Ko retake declining Black's pass under {mode}: {why}",
        f"docs/rules.md §4 pass conversion, §5 {mode}, A§4.2",
        5,
        "C3 virtual pass B3",
        setup=KO,
        repetition=mode,
    )
case(
    "A ko threat and its answer change the board: the retake is legal under board_superko",
    "docs/rules.md §5 board_superko",
    5,
    "C3 E5 E4 B3",
    setup=KO,
    repetition="board_superko",
)
case(
    "Pending pass: the legal moves count it as converted, so White's D5 (a suicide back to an "
    "earlier board) is listed",
    "docs/rules.md §4, §9 legal moves",
    5,
    "A1 E5 pass",
    setup=CYCLE,
)
case(
    "White declines Black's pass with D5: legal, the converted pass makes the position new",
    "docs/rules.md §4, §5 global_superko",
    5,
    "A1 E5 pass D5",
    setup=CYCLE,
)
case(
    "The same D5 under board_superko: the board was seen",
    "docs/rules.md §5 board_superko",
    5,
    "A1 E5 pass D5",
    setup=CYCLE,
    repetition="board_superko",
)
case(
    "Board returns with the other side to move: legal under situational_superko",
    "docs/rules.md §5 situational_superko, §9",
    5,
    "A1 virtual B1",
    setup=SUICIDE_RETURN,
    repetition="situational_superko",
)
case(
    "Board returns with the other side to move: refused under board_superko",
    "docs/rules.md §5 board_superko",
    5,
    "A1 virtual B1",
    setup=SUICIDE_RETURN,
    repetition="board_superko",
)
case(
    "no_result: a move that recreates an earlier (not the last-but-one) position is played "
    "and ends the game with no result (cycle)",
    "docs/rules.md §5 no_result, T§5, A§4.2",
    5,
    "A1 E5 B1 D5",
    setup=CYCLE,
    repetition="no_result",
)
case(
    "Any action after a cycle ending is an error",
    "docs/rules.md §5 no_result, §9 after the end",
    5,
    "A1 E5 B1 D5 A1",
    setup=CYCLE,
    repetition="no_result",
)
case(
    "basic_ko: the same cycle runs on",
    "docs/rules.md §5 basic_ko",
    5,
    "A1 E5 B1 D5 A1",
    setup=CYCLE,
    repetition="basic_ko",
)
case(
    "situational_superko: the cycle is refused",
    "docs/rules.md §5 situational_superko",
    5,
    "A1 E5 B1 D5",
    setup=CYCLE,
    repetition="situational_superko",
)

# §4 move cap
case(
    "The move cap: the third action reaches max_actions=3, no result",
    "docs/rules.md §4 move cap, §8",
    5,
    "C3 D3 C4",
    max_actions=3,
)
case(
    "A pass at the cap stays unconverted", "docs/rules.md §9 move cap", 5, "C3 pass", max_actions=2
)
case(
    "The cap does not replace a pause reached by the same action",
    "docs/rules.md §9 move cap",
    3,
    "B2 pass pass",
    max_actions=3,
)
case(
    "Any action after the cap is an error",
    "docs/rules.md §9 after the end",
    3,
    "B2 B3",
    max_actions=1,
)

# §6-§8 scoring points, equal stones, komi
case(
    "White passes first and Black finished last: both the A版 point and the 唐宋版 point "
    "(komi 0); A-negative move back to the bowl",
    "docs/rules.md §6, §7.2 item 2a, §8, A§6.4, T§6",
    5,
    "A3 pass pass",
    setup=SPLIT,
    komi=ZERO_KOMI,
)
case(
    "White is first to virtual and finished last: the A版 point only; A-negative move "
    "refilled (S_B = S_W)",
    "docs/rules.md §6, §7.2 item 2a, §8, A§6.4",
    5,
    "A3 virtual A4 D3 pass pass",
    setup=SPLIT,
    komi=ZERO_KOMI,
)
case(
    "Black is first to virtual and finished last: the 唐宋版 point only; B-negative move",
    "docs/rules.md §6, §7.2 item 2a, §8, T§6",
    5,
    "virtual D3 A3 pass pass",
    setup=SPLIT,
    komi=ZERO_KOMI,
)
case(
    "Black passed first (converted) and finished last: B-negative move from the empty board",
    "docs/rules.md §4, §7.2 item 2a",
    4,
    "pass B2 C3 pass pass",
)
case(
    "Equal stones: Black's four virtual stones overflow a two-point eye (moku_b < 0)",
    "docs/rules.md §7.2 item 2b-c, A§7.1 (3)",
    5,
    "virtual E3 virtual E4 virtual E5 virtual pass pass",
    setup=BLACK_NO_ROOM,
)
case(
    "Equal stones: White's three virtual stones overflow a two-point eye, with an A-negative "
    "move refilled",
    "docs/rules.md §7.2 item 2a-c, A§7.1 (3)",
    5,
    "A3 virtual A4 virtual A5 virtual pass pass",
    setup=WHITE_NO_ROOM,
    komi=ZERO_KOMI,
)
case(
    "Komi override: jpd_b komi -5 makes a draw",
    "docs/rules.md §8",
    5,
    "A3 pass pass",
    setup=SPLIT,
    komi={"jpd_b": -5},
)
case(
    "Setup stones are neither moves nor lost stones; komi overrides for two rulesets; three "
    "shared liberties are public",
    "docs/rules.md §7.1, §8, §9 setup",
    3,
    setup=SETUP3,
    komi={"jpd_b": 0.5, "chinese": -2},
)

# §7 ownership: public points, seki
case(
    "The seki diagram of A§6.1: eyes a, b Black's, the shared liberties public (JPD); the "
    "region neutral (Chinese); no territory in seki (Japanese)",
    "docs/rules.md §7.1, §7.2 item 4, A§6.1",
    7,
    setup=SEKI,
)
case(
    "Japanese seki test: a Black group in atari is a seed, so its eye is not territory",
    "docs/rules.md §7.2 item 4b",
    4,
    setup=ATARI_SEKI,
)
case(
    "Dame between two walls: public for JPD, and every stone touching it is in seki for the "
    "Japanese count",
    "docs/rules.md §7.1, §7.2 item 4",
    5,
    setup=DAME,
)
case(
    "Two lone stones: the one empty component touches both colours, all public / neutral",
    "docs/rules.md §7.1 2, §7.2 item 3",
    5,
    setup=LONE_STONES,
)

# whole games (found once with a seeded uniform random player on the reference; kept as tokens)
case(
    "A random game on 6x6: captures, suicides, virtual moves, converted passes, then a pause",
    "docs/rules.md §3-§8",
    6,
    "F5 F2 pass C2 E2 B2 E6 B6 A2 pass D6 C1 A1 C5 A6 B5 E3 D3 B3 A3 F4 F3 E4 pass E1 virtual "
    "B4 C3 F1 C4 B1 D4 virtual D2 D1 D5 F6 E5 pass A1 F2 pass A5 virtual A4 A5 C6 B4 F3 E4 E1 "
    "F4 D1 F6 C6 pass pass",
)
case(
    "A random game on 8x8 under no_result: captures, suicides, virtual moves, then a pause",
    "docs/rules.md §3-§8, §5 no_result",
    8,
    "A5 A7 virtual F1 F2 virtual B5 H3 E1 pass F3 E3 C3 H8 C2 A6 virtual B3 G2 E2 virtual C7 "
    "A1 G1 H7 D7 A2 C5 G3 G5 D2 G4 pass B8 D6 B1 B2 D8 pass H6 C4 D4 F8 B7 H4 D3 E6 C8 "
    "virtual F6 A3 F7 C6 E8 E4 B4 E5 A4 H2 D5 pass H1 E2 C1 H1 pass pass",
    repetition="no_result",
)
case(
    "A random game on 4x4 under no_result that ends in a cycle after many captures",
    "docs/rules.md §3-§8, §5 no_result",
    4,
    "D1 C3 B4 D2 A3 C2 B2 D3 A1 pass C1 C4 A4 pass A2 B3 pass B1 B2 pass B4 A2 virtual A4 D1 "
    "B4 C1 pass C1 D1 pass A3 pass D4 pass B2 pass A1 C1 B4 pass C2 pass C4 A1 C3 A3 D4 D3 D2 "
    "B2 B3 A2 D3 D1 B1 C1",
    repetition="no_result",
)

# malformed tokens
case("A column beyond the board is off board", "docs/rules.md §1", 5, "C3 F1")
case("A row beyond the board is off board", "docs/rules.md §1", 5, "C3 C6")
case("Row 0 is off board", "docs/rules.md §1", 5, "C3 A0")
case("The letter I is not a column: not a move", "docs/rules.md §1", 9, "E5 I5")
case("A word is not a move", "docs/rules.md §1", 5, "C3 foo")


# ---------------------------------------------------------------------------------------------
# Computing a case with the reference


def setup_cells(args):
    """The setup colour list of a case's args (None: the empty board)."""
    setup = args.get("setup")
    if setup is None:
        return None
    if isinstance(setup, list):
        setup = "\n".join(setup)
    return parse_diagram(setup, args["size"])


def reference_result(args):
    """``{"output": ...}`` or ``{"error": ...}``: what `jpdsim replay --legal` should print for
    ``args``, computed by ``tests.reference.RefGame``."""
    size = args["size"]
    game = RefGame(
        size,
        repetition=args["repetition"],
        suicide=args["suicide"],
        max_actions=args.get("max_actions"),
        setup=setup_cells(args),
        dead_stones=args.get("dead_stones", "all_alive"),
    )
    for k, token in enumerate(args["moves"], 1):
        try:
            reason = game.play(parse_action(token, size))
        except MoveError as err:
            reason = str(err)
        if reason is not None:
            return {"error": f"move {k} ({token}): {reason}"}
    output = game.outcome(args.get("komi"))
    output["final_board"] = format_diagram(game.board(), size)
    output["legal_moves"] = sorted(format_action(p, size) for p in game.legal_moves())
    return {"output": output}


def render(cases=None):
    """The text of the .jsonl file: one case a line, each spec with its result."""
    lines = []
    for spec in CASES if cases is None else cases:
        lines.append(json.dumps({**spec, **reference_result(spec["args"])}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tests.data.make_replay_cases", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"output file (default {OUT.name})")
    args = parser.parse_args(argv)
    titles = [c["title"] for c in CASES]
    duplicates = sorted({t for t in titles if titles.count(t) > 1})
    if duplicates:
        parser.error(f"duplicate titles: {duplicates}")
    args.out.write_text(render(), encoding="utf-8")
    print(f"{len(CASES)} cases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
