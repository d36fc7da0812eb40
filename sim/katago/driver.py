"""Games in which KataGo plays, many at once (docs/katago.md): ``play_katago`` is
``sim.play.referee.play_refereed`` for katago players (``KatagoReferee``, a
``sim.play.referee.Referee``).

A worker keeps up to ``in_flight`` games going; each waits for at most one answer (its next
move, or its dead stones at a pause), so KataGo always has that many positions to batch. Each
game is a ``sim.play.referee.RefereedGame``, judged as a GTP program's is, with a ``NativePlayers``
of its own while it is played (its random stream and trees are its own), and its queries
carry the whole game. A player with ``sample_moves`` draws its moves among the game's first
actions from the visits KataGo gives each root move, with a random stream of the game's own
(from the run's seed and the game's id): a game depends on its id, the run's seed and
KataGo's answers alone, never on the order the answers come in or on how many games are in
flight. Games start in the order of their ids and the rows come back in that order.

A fault ends one game ``engine_error``: the game whose query it names (an error answer, an
answer without a move, visits or ownership that are not numbers), else the game whose query
waited longest (a crash, a query unanswered ``move_timeout`` after it was asked, garbage, an id
nobody asked: the query KataGo was on when it failed, for an engine that answers in order).
The process is restarted (``sim.play.referee.charge``, which stops the run after GIVE_UP_AFTER such
games in a row) and the other games' waiting queries are sent again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from sim.config.player import Player
from sim.gtp.engine import engine_seed
from sim.katago.engine import (
    KatagoEngine,
    QueryFault,
    best_move,
    dead_stones,
    move_query,
    readable,
    shared_katago,
)
from sim.play.program import EngineError
from sim.play.referee import Fault, Referee, RefereedGame

log = logging.getLogger("jpdsim.katago")


@dataclass
class _Game:
    """A game in flight: its position in the call, its judge, and the random stream of
    KataGo's sampled moves (from the run's seed and the game's id)."""

    j: int
    judge: RefereedGame
    draws: np.random.Generator


@dataclass
class _Query:
    """A query waiting: its game, the colour it asks for, whether it asks for dead stones, and
    the engine it went to."""

    game: _Game
    colour: int
    dead: bool
    engine: KatagoEngine


class KatagoReferee(Referee):
    """The games of one call, up to ``in_flight`` of them going at once."""

    kind, dead_from, log = "katago", "dead stones", log

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.in_flight = max(p.in_flight for p in self.players.values() if p.kind == self.kind)
        self.asked: dict[str, _Query] = {}  # qid -> what it waits for, in the order asked
        self.playing = 0

    def program(self, colour: int, player: Player) -> KatagoEngine:
        engine = shared_katago(player, self.rules.board_size)
        if engine.waiting:  # queries of a call that failed: their answers would be stray
            engine.restart()
        return engine

    def play_all(self, ids: list[int]) -> None:
        started = 0
        while started < len(ids) or self.asked:
            while self.playing < self.in_flight and started < len(ids):
                self._start(started, ids[started])
                started += 1
            if self.asked:
                self._wait()
        for engine in dict.fromkeys(self.engines.values()):
            if engine.kept is not None:
                log.info(
                    "%s: %d of the %d queries so far answered without a search of their own",
                    engine.name, engine.kept.reused, engine.kept.asked,
                )  # fmt: skip

    def _start(self, j: int, game_id: int) -> None:
        draws = np.random.default_rng(engine_seed(self.seed, game_id))
        self.playing += 1
        self._advance(_Game(j, self.judge(game_id), draws))

    def _advance(self, game: _Game) -> None:
        """Play the game on until it waits for KataGo or ends."""
        turn = game.judge.next_turn(self.engines, self.dead_from)
        if turn is None:
            self._end(game)
        else:
            self._ask(game, *turn)

    def _ask(self, game: _Game, c: int, dead: bool) -> None:
        judge = game.judge
        qid = f"{judge.game_id}:{len(judge.actions)}:{'bw'[c - 1]}{'-dead' * dead}"
        engine = self.engines[c]
        self.asked[qid] = _Query(game, c, dead, engine)
        try:
            engine.ask(qid, move_query(self.players[c], self.rules, judge.told, dead))
        except EngineError as e:
            self._fault(engine, e)

    def _end(self, game: _Game, error: Fault | None = None) -> None:
        self.playing -= 1
        self.end(game.j, game.judge, error)

    def _wait(self) -> None:
        """Take the answers that have come, else wait for more (or a timeout)."""
        engines = list(dict.fromkeys(self.engines.values()))
        for engine in engines:
            generation, took = engine.generation, False
            try:
                for qid, answer in engine.answers():
                    self._answer(qid, answer)
                    took = True
                    if engine.generation != generation:  # restarted meanwhile: the rest is gone
                        break
            except EngineError as e:
                return self._fault(engine, e)
            if took:
                return
        ready, late = readable(engines)
        if not ready:
            return self._fault(late, EngineError(f"no answer within {late.move_timeout:g} s"))
        for engine, fds in ready.items():
            try:
                engine.pump(fds, "its queries")
            except EngineError as e:
                return self._fault(engine, e)

    def _answer(self, qid: str, answer: dict) -> None:
        """Play KataGo's answer to ``qid`` into its game (QueryFault if it is no answer)."""
        query = self.asked[qid]
        judge = query.game.judge
        try:
            if query.dead:
                judge.lists.append(dead_stones(qid, answer, judge.game.board()))
            else:
                sampled = len(judge.actions) < self.players[query.colour].sample_moves
                judge.engine_move(
                    best_move(qid, answer, query.game.draws.random() if sampled else None)
                )
        except QueryFault:
            raise
        except EngineError as e:
            raise QueryFault(qid, str(e)) from None
        del self.asked[qid]
        self._advance(query.game)

    def _fault(self, engine, error: EngineError) -> None:
        """End the game at fault (``error``'s query, else, once the answers the process wrote
        before its fault are taken, an error answer among them or the oldest query waiting)
        ``engine_error``, restart ``engine``, ask its other waiting queries again and play
        those answers into their games."""
        good = []
        if not isinstance(error, QueryFault):
            good, named = engine.answers_left()
            error = named or error
        qid = error.qid if isinstance(error, QueryFault) else next(iter(engine.waiting), None)
        if qid is None:  # nothing waits: no game to blame
            log.warning("%s: %s; the engine is restarted", engine.name, error)
            engine.restart()
        else:
            game = self.asked.pop(qid).game
            kept = {k for k, _ in good}
            again = [q for k, q in self.asked.items() if q.engine is engine and k not in kept]
            self.asked = {
                k: q for k, q in self.asked.items() if q.engine is not engine or k in kept
            }
            self._end(game, Fault(engine, f"{engine.name}: {error}"))
            for q in again:
                self._ask(q.game, q.colour, q.dead)
        for k, answer in good:
            if k not in engine.waiting:  # else a fault meanwhile asked it again
                try:
                    self._answer(k, answer)
                except EngineError as e:
                    self._fault(engine, e)


play_katago = KatagoReferee.play
