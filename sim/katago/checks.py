"""What a run checks and records of its katago players before any game: ``check_player``, the
start-up check (KataGo starts, answers and takes the rules), which also notes KataGo's version;
``programs``, what the manifest records beyond the config (KataGo's version, each network's
size and sha256, which ``--resume`` compares)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import sys

from sim.errors import UserError
from sim.katago.engine import FileFault, KatagoEngine, best_move, move_query
from sim.play.program import EngineError

_VERSIONS: dict = {}  # player -> the KataGo version its start-up check found in this process


@functools.lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime_ns: int, inode: int) -> str:
    """The sha256 of the file at ``path``, once per version of it (its stat)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def network(colour: str, player) -> dict:
    """What identifies the network of ``player`` (of ``colour``): the file as named, its size
    and its sha256."""
    path = os.path.abspath(player.model)
    try:
        st = os.stat(path)
        sha256 = _sha256(path, st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError as e:
        raise UserError(f"players.{colour}.model: {player.model}: {e.strerror}") from None
    return {"model": player.model, "bytes": st.st_size, "sha256": sha256}


def programs(cfg) -> dict:
    """What the manifest of the run ``cfg`` records of its KataGo beyond the config: each
    katago player's network (``network``: ``--resume`` refuses another), the version its
    start-up check found in this process (``check_player``), and, when a player has a config
    of its own, why the rows may then differ with the number of workers (``not_reproducible``:
    its evaluations may be batched with other games' or randomised, docs/katago.md)."""
    katago = {c: getattr(cfg, c) for c in ("black", "white") if getattr(cfg, c).kind == "katago"}
    entries = {
        "networks": {c: network(c, p) for c, p in katago.items()},
        "katago_version": {c: _VERSIONS.get(p) for c, p in katago.items()},
    }
    own = [c for c, p in katago.items() if p.config is not None]
    if own:
        entries["not_reproducible"] = (
            f"players.{own[0]}.config is a KataGo config of the user's, which may batch the "
            f"evaluations of the games in flight together (or randomise them): a game's moves "
            f"may then depend on the other games its worker plays, so the rows may differ with "
            f"the number of workers or shards"
        )
    return entries


def check_player(cfg, colour: str, player) -> None:
    """The start-up check of the katago ``player`` of ``colour`` in the run ``cfg``: started
    once, asked a first query under the rules and komi of each komi group, and quit (its
    version noted for ``programs``). A KataGo
    that is missing, does not speak its protocol or refuses the set-up (a network or config
    file that is not there, a komi it cannot take) is one UserError naming its key, the program
    and its answer; a shard too small to keep ``in_flight`` games going is a line on stderr."""
    first = dataclasses.replace(player, visits=2)  # the fewest that give a move
    try:
        queries = [move_query(first, c.rules, []) for c in cfg.komi_configs]
    except ValueError as e:
        raise UserError(f"players.{colour}.play_for: {e}") from None
    try:
        engine = KatagoEngine(player, cfg.rules.board_size)
    except FileFault as e:
        raise UserError(f"players.{colour}.{e.key}: {e}") from None
    except EngineError as e:
        raise UserError(f"players.{colour}.command: {e}") from None
    try:
        for k, query in enumerate(queries):
            qid = f"check:{k}"
            best_move(qid, engine.ask_alone(qid, query, player.startup_timeout))
    except EngineError as e:
        raise UserError(f"players.{colour}.command: {engine.name}: {e}") from None
    finally:
        engine.close()
    _VERSIONS[player] = engine.version
    together = -(-cfg.shard_size // len(queries))  # a shard's games of one komi, played together
    if together < player.in_flight:
        sys.stderr.write(
            f"jpdsim: players.{colour}.in_flight {player.in_flight}: at most {together} games "
            f"are in flight (shard_size {cfg.shard_size}, {len(queries)} komi); a shard_size of "
            f"{len(queries) * player.in_flight} or more keeps KataGo's batch full\n"
        )
