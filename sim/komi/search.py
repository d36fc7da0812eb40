"""``komi_search``: a run that looks for the fair komi of one ruleset in rounds, until its 95%
interval is as narrow as asked (README, "Komi studies").

A round is ``round_games`` games (whole shards), but for a first round without a ``start``,
which is one shard. Its komis depend only on the results of the rounds before it
(``next_round``), so the rows stay a function of (seed, game id) whatever the number of
workers, and a killed run resumes to the same rows:

- the first round plays a spread of komis around the first guess (``start``, else the run's
  komi under the ruleset): half and whole points from 2 below to 2 above (``started``);
- without a ``start``, when the first round does not bracket the fair komi (Black's fitted
  score is above 1/2 at its highest komi, or below at its lowest), the second round goes where
  the first round's games place it (``placed``): each game's lead (Black's margin under the
  ruleset plus its komi: the komi that would have drawn it) has a median, which is the fair
  komi of players who ignore the komi, and the second round plays the half points within half
  a point of that median's 95% interval (for players who play for the komi, a rough place
  that the rounds after it correct);
- while the komis played do not bracket the fair komi, the next round goes past that end, 1,
  2, 4 and 8 points further;
- once they do, the fair komi is fitted (``sim.komi.fitting``: the fit ``jpdsim komi`` prints,
  its bootstrap of 1,000 redraws with seed 0) and the next round plays two thirds of its
  games at the two half points that enclose the estimate, where the crossing is read, and the
  rest at one komi on either side, as far out as the interval reaches (half a point to
  ``MAX_REACH``): where Black's score changes slowly with komi, two komis close together
  give a noisy slope, and the outer two steady it and catch an estimate that moves;
- the search ends when the interval's half-width is at most ``precision`` and each of the two
  komis that enclose the estimate has at least ``MIN_ENCLOSING`` games (a bootstrap of a few
  games a komi gives intervals narrow and wrong; a komi past the board needs none: no game
  there can be won by the side it would need), or when another round would pass
  ``max_games``.

Every komi lies in the board's range, ``-points..points`` (``points``: the board's N², the most
a score difference can be): past it every game ends the same.

The rounds decided so far are the search's state (``KomiSearch.rounds``), stored with the
run's config in its manifest: a run's games are those of its rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sim.komi import fitting
from sim.options import OptionError, choice, integer, number
from sim.schema.tables import RULESETS

#: The first round's komis, from its centre.
SPREAD = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)
#: How far past an end that does not bracket the next round goes.
REACH = (1.0, 2.0, 4.0, 8.0)
#: How far (points) a bracketed round's outer komis go at most from the two that enclose the
#: estimate: as far as the interval reaches, at least half a point.
MAX_REACH = 4.0
#: The games each of the two komis enclosing the estimate needs before the search may stop.
MIN_ENCLOSING = 20
N_BOOT, BOOT_SEED, LEVEL = 1000, 0, 0.95
_KEYS = ("ruleset", "precision", "max_games", "round_games", "start")


#: Why a search ended, as a round with no komis says (``Round.stop``); KataGo's refusal of a
#: komi (``sim.run.search``) is said in its own words.
MET, BUDGET, NO_RESULT = "met", "max_games reached", "no game with a result"


@dataclass(frozen=True)
class Round:
    """A round decided: its ``komis`` (the round's j-th game plays ``komis[j % len(komis)]``;
    none: the search ended, and ``stop`` says why) and ``games``, the fit of the rounds before
    it (``fair``, ``lo``, ``hi``: NaN before any game, ±inf unbracketed)."""

    komis: tuple[float, ...]
    games: int = 0
    fair: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    stop: str = ""

    @property
    def met(self) -> bool:
        """Whether the search ended here with its precision met."""
        return self.stop == MET

    def to_dict(self) -> dict:
        """For the manifest: the komis, the fit before the round (None where not finite)."""

        def point(x):
            return round(float(x), 4) if math.isfinite(x) else None

        fit = {k: point(getattr(self, k)) for k in ("fair", "lo", "hi")}
        return {"komis": list(self.komis), "games": self.games, **fit, "stop": self.stop}

    @classmethod
    def from_dict(cls, d: dict) -> Round:
        """A round as ``to_dict`` stored it (an infinite fit reads back as NaN)."""
        missing = [k for k in ("komis", "games", "stop") if k not in d]
        if missing:
            raise OptionError(
                "komi_search.rounds",
                f"a round without '{missing[0]}': written by an earlier jpdsim, which this one "
                "cannot resume or read",
            )
        fit = {k: math.nan if d.get(k) is None else float(d[k]) for k in ("fair", "lo", "hi")}
        komis = tuple(float(k) for k in d["komis"])
        return cls(komis, int(d["games"]), **fit, stop=str(d["stop"]))


@dataclass(frozen=True)
class KomiSearch:
    """A run config's ``komi_search``: the ``ruleset`` whose fair komi is sought, the
    ``precision`` (the 95% interval's half-width, points) it stops at, at most ``max_games``,
    ``round_games`` a round, the first guess ``start`` (None: the run's komi); ``rounds``, the
    rounds decided so far."""

    ruleset: str
    precision: float = 0.25
    max_games: int = 4000
    round_games: int = 400
    start: float | None = None
    rounds: tuple[Round, ...] = ()

    def __post_init__(self):
        choice("komi_search.ruleset", self.ruleset, RULESETS)
        number("komi_search.precision", self.precision, 0.01, 100)
        integer("komi_search.round_games", self.round_games, 2 * len(SPREAD), 10**8)
        integer("komi_search.max_games", self.max_games, self.round_games, 10**9)
        if self.start is not None:
            number("komi_search.start", self.start, -1000, 1000)
        object.__setattr__(self, "rounds", tuple(self.rounds))

    @classmethod
    def from_table(cls, table, stored: bool = False) -> KomiSearch:
        """The search of a config's ``komi_search`` table (``stored``: a manifest's, with the
        rounds decided)."""
        if not isinstance(table, dict):
            raise OptionError(
                "komi_search",
                f'must be a table such as {{ ruleset = "chinese", precision = 0.25 }}, got '
                f"{str(table)[:80]}",
            )
        keys = (*_KEYS, "rounds") if stored else _KEYS
        unknown = [k for k in table if k not in keys]
        if unknown:
            raise OptionError(f"komi_search.{unknown[0]}", f"unknown ({', '.join(_KEYS)})")
        if "ruleset" not in table:
            raise OptionError("komi_search.ruleset", "missing (required)")
        rounds = tuple(Round.from_dict(r) for r in table.get("rounds", ()))
        return cls(**{**table, "rounds": rounds})

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in _KEYS if getattr(self, k) is not None}
        return {**out, "rounds": [r.to_dict() for r in self.rounds]}

    @property
    def ended(self) -> bool:
        return bool(self.rounds) and not self.rounds[-1].komis

    @property
    def games(self) -> int:
        """The games of the rounds decided (a round without komis plays none)."""
        return sum(r.games for r in self.rounds if r.komis)

    def started(self, guess: float, points: float, shard_size: int) -> KomiSearch:
        """The search with its first round decided: ``SPREAD`` around ``start``, else around
        ``guess`` (the run's komi), in the board's range (``points``: its N²); without a start,
        one shard of ``shard_size`` games, to place the next round (``next_round``)."""
        if self.rounds:
            return self
        centre = _half(self.start if self.start is not None else guess)
        komis = tuple(dict.fromkeys(_clip(centre + d, points) for d in SPREAD))
        games = self.round_games if self.start is not None else min(shard_size, self.round_games)
        return replace(self, rounds=(Round(komis, games),))

    def komi_of(self, game_ids, setups: int = 1) -> np.ndarray:
        """The komi each of ``game_ids`` (of the rounds decided) is played at: the round's
        game j at its komi (j div ``setups``) mod its komis (every komi from each setup)."""
        ids = np.asarray(game_ids, np.int64)
        out = np.empty(len(ids), np.float64)
        first = 0
        for r in (x for x in self.rounds if x.komis):
            here = (ids >= first) & (ids < first + r.games)
            out[here] = np.asarray(r.komis)[(ids[here] - first) // setups % len(r.komis)]
            first += r.games
        return out

    def games_per_komi(self, setups: int = 1) -> dict[float, int]:
        """How many of the rounds' games each komi gets (``komi_of``, counted per round)."""
        out: dict[float, int] = {}
        for r in (x for x in self.rounds if x.komis):
            cycle = setups * len(r.komis)
            full, rest = divmod(r.games, cycle)
            for q, k in enumerate(r.komis):
                n = full * setups + min(max(rest - q * setups, 0), setups)
                out[k] = out.get(k, 0) + n
        return dict(sorted(out.items()))


def _half(x: float) -> float:
    """The half point at or below ``x``."""
    return math.floor(x * 2) / 2


def placed(leads, points: float) -> tuple[float, ...]:
    """The komis where games' ``leads`` (Black's margin plus the komi, one a game) place the
    fair komi: the half points within half a point of the 95% interval of their median (the
    order statistics n/2 ± 0.98√n, distribution-free), at most ``SPREAD``'s reach from the
    median, in the board's range."""
    x = np.sort(np.asarray(leads, np.float64))
    n = len(x)
    median = float(np.median(x))
    half = 0.98 * math.sqrt(n)
    lo = x[max(math.floor(n / 2 - half), 0)]
    hi = x[min(math.ceil(n / 2 + half), n - 1)]
    reach = max(SPREAD)
    lo, hi = max(lo, median - reach) - 0.5, min(hi, median + reach) + 0.5
    komis = np.arange(math.ceil(lo * 2), math.floor(hi * 2) + 1) / 2
    return tuple(dict.fromkeys(_clip(k, points) for k in komis))


def _clip(komi: float, points: float) -> float:
    return float(min(max(komi, -points), points))


def next_round(search: KomiSearch, komis, counts, leads, points: float) -> Round:
    """The next round of a started search, from the ``counts`` (Black's wins, draws, losses
    under ``search.ruleset``) at each of the sorted ``komis`` of the games of its rounds and
    those games' ``leads`` (Black's margin under the ruleset plus the komi; read by a second
    round only); ``points``: the board's range (its N²)."""
    komis = np.asarray(komis, np.float64)
    counts = np.asarray(counts, np.int64).reshape(len(komis), 3)
    if len(komis) == 0:  # no game with a result under the ruleset: nothing to steer by
        return Round((), stop=NO_RESULT)
    boot = fitting.bootstrap_counts(counts, N_BOOT, BOOT_SEED)
    fit = fitting.fit(komis, counts, boot, LEVEL)
    half_width = (fit.hi - fit.lo) / 2  # NaN or inf where the bootstrap does not bracket
    low = _half(fit.fair) if math.isfinite(fit.fair) else math.nan
    pair = [k for k in (low, low + 0.5) if abs(k) <= points]  # past the board: no game needed
    enclosing = counts[np.isin(komis, pair)].sum(axis=1)  # the games at each
    fitted = (fit.fair, fit.lo, fit.hi)
    if (
        half_width <= search.precision
        and 0 < len(enclosing) == len(pair)
        and min(enclosing) >= MIN_ENCLOSING
    ):
        return Round((), 0, *fitted, MET)
    games = search.round_games
    if search.games + games > search.max_games:
        return Round((), 0, *fitted, BUDGET)
    if math.isinf(fit.fair):
        if search.start is None and len(search.rounds) == 1 and len(leads):
            return Round(placed(leads, points), games, *fitted)
        end = komis[-1] if fit.fair > 0 else komis[0]
        sign = 1.0 if fit.fair > 0 else -1.0
        return Round(
            tuple(dict.fromkeys(_clip(end + sign * d, points) for d in REACH)), games, *fitted
        )
    reach = max(_half(min(half_width, MAX_REACH)), 0.5) if half_width == half_width else MAX_REACH
    around = tuple(_clip(low + d, points) for d in (-reach, 0.0, 0.0, 0.5, 0.5, 0.5 + reach))
    return Round(around, games, *fitted)
