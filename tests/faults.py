"""Fault injection for the tests (``tests/test_faults.py``): bits flipped in a shard file, every
reader of a run, a digest of a run's rows, a command in a subprocess, a small full disk.

``python -m tests.faults RUN_DIR REFERENCE_DIR FILE POSITIONS`` flips each (byte, bit) of the
JSON list POSITIONS in RUN_DIR's FILE in turn and reads the run with every reader: each must
give the rows of REFERENCE_DIR or a one-line UserError naming FILE; it prints what went wrong
(nothing when all held). A subprocess, because pyarrow aborts the process on some damaged
footers when they are read the wrong way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent


def flip(path: Path, pos: int, bit: int = 0) -> None:
    """Flip one bit of a file."""
    data = bytearray(path.read_bytes())
    data[pos] ^= 1 << bit
    path.write_bytes(bytes(data))


def footer_start(path: Path) -> int:
    """Where the Thrift footer of a Parquet file starts."""
    data = path.read_bytes()
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def silent_flip(path: Path, column: str) -> int:
    """A byte of ``column``'s pages whose flip a reader that skips the page checksums reads as
    other values, without an error (so a test of the checksums means something); flipped."""
    data = path.read_bytes()
    meta = pq.ParquetFile(path).metadata
    chunk = meta.row_group(0).column(meta.schema.to_arrow_schema().names.index(column))
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    want = pq.read_table(path, columns=[column])[column]
    for pos in range(start, start + chunk.total_compressed_size):
        damaged = bytearray(data)
        damaged[pos] ^= 1
        try:
            got = pq.read_table(pa.BufferReader(bytes(damaged)), columns=[column])[column]
        except Exception:  # noqa: BLE001 - this flip is found without the checksums
            continue
        if not got.equals(want):
            path.write_bytes(bytes(damaged))
            return pos
    raise AssertionError(f"no silent flip in {column}")


def digest(run_dir: Path) -> str:
    """A hash of every stored row of a run (games and moves, in shard order), verified."""
    from sim.dataset.check import check_run, read_part
    from sim.dataset.layout import GAMES, MOVES, part_name

    state = check_run(run_dir, verify=True)
    h = hashlib.sha256()
    for sub, shards in ((GAMES, state.games_shards), (MOVES, state.moves_shards)):
        for i in sorted(shards):
            rows = read_part(Path(run_dir) / sub / part_name(i)).to_pylist()
            h.update(json.dumps(rows, sort_keys=True).encode())
    return h.hexdigest()


def readers(run_dir: Path) -> dict:
    """Every way a run is read, each a function returning what it read."""
    from analysis import summary
    from analysis.load import load_runs, open_run, read_run
    from sim.dataset.check import check_run
    from sim.dataset.read import load_game, read_games

    return {
        "check": lambda: check_run(run_dir).done,
        "resume check": lambda: check_run(run_dir, verify=True).done,
        "read_games": lambda: read_games(run_dir),
        "read_games one column": lambda: read_games(run_dir, columns=["winner_jpd_a"]),
        "load_game (replay --run, sgf)": lambda: load_game(run_dir, 45)[1:],
        "load_runs (report, notebooks)": lambda: load_runs(run_dir),
        "load_runs one column": lambda: load_runs(run_dir, columns=["winner_jpd_a"]),
        "load_runs filtered": lambda: load_runs(
            run_dir, columns=["game_id"], filter={"winner_jpd_a": "B"}
        ),
        "read_run (run's summary)": lambda: read_run(open_run(run_dir), columns=summary.COLUMNS),
    }


def _same(a, b) -> bool:
    return a.equals(b) if hasattr(a, "equals") else a == b


def sweep(run_dir: Path, reference: Path, file: Path, positions) -> list[str]:
    """Flip each (byte, bit) of ``positions`` in ``file`` (of ``run_dir``, a copy of
    ``reference``) in turn and read with every reader; what went wrong."""
    from sim.errors import UserError

    original = file.read_bytes()
    want = {name: read() for name, read in readers(reference).items()}
    problems = []
    try:
        for pos, bit in positions:
            flip(file, pos, bit)
            print(f"{pos} {bit}", file=sys.stderr, flush=True)  # the last one, if it aborts
            for name, read in readers(run_dir).items():
                try:
                    if not _same(read(), want[name]):
                        problems.append(f"byte {pos} bit {bit}: {name} read other values")
                except UserError as err:
                    if str(file) not in str(err) or "\n" in str(err):
                        problems.append(f"byte {pos} bit {bit}: {name}: {err}")
                except Exception as err:  # noqa: BLE001 - what a reader must not do
                    problems.append(f"byte {pos} bit {bit}: {name}: {type(err).__name__} {err}")
            file.write_bytes(original)
    finally:
        file.write_bytes(original)
    return problems


def command(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    """``python -m sim ARGS`` in its own process group (as in a terminal)."""
    return subprocess.Popen(
        [sys.executable, "-m", "sim", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kw,
    )


def signal_at(
    proc: subprocess.Popen, seconds: float, signum=signal.SIGINT, group: bool = True
) -> tuple[int, str]:
    """Send ``signum`` to ``proc`` (and its process group) after ``seconds``; (status,
    stderr)."""
    time.sleep(seconds)
    with contextlib.suppress(ProcessLookupError):
        (os.killpg if group else os.kill)(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@contextlib.contextmanager
def small_disk(size: str = "1m"):
    """A tmpfs of ``size`` mounted on a temporary folder, or None where that is not allowed."""
    with tempfile.TemporaryDirectory() as where:
        ok = (
            sys.platform.startswith("linux")
            and os.geteuid() == 0
            and subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", where],
                capture_output=True,
            ).returncode
            == 0
        )
        try:
            yield Path(where) if ok else None
        finally:
            if ok:
                subprocess.run(["umount", where], capture_output=True)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` with a file of zeros; returns it."""
    path = folder / "filler"
    with open(path, "wb", buffering=0) as f:
        for block in (65536, 512, 1):
            with contextlib.suppress(OSError):
                while f.write(b"\0" * block):
                    pass
    return path


if __name__ == "__main__":
    run, ref, target, spots = sys.argv[1:5]
    for line in sweep(Path(run), Path(ref), Path(target), json.loads(spots)):
        print(line)
