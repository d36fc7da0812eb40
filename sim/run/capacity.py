"""Whether this machine holds the local workers of a run (or of a set of runs): the memory each
takes, its search trees included, and the cores."""

from __future__ import annotations

import os
import sys

from sim.config.run import RunConfig
from sim.errors import UserError

#: What a worker takes before its search trees (Python, numpy, numba, pyarrow, the kernels).
WORKER_BYTES = 200 * 2**20


def check_workers(configs: list[RunConfig], workers: int) -> None:
    """Before a run (or a set of runs) starts ``workers`` local workers: UserError when they
    need more memory than the machine has (``WORKER_BYTES`` each, plus the search trees,
    ``sim.config.player.Player.tree_bytes``, once per game in flight against KataGo), a line on
    stderr when there are more of them than cores."""
    need = max(
        WORKER_BYTES + p.tree_bytes(cfg.rules.board_size) * _in_flight(cfg)
        for cfg in configs
        for p in (cfg.black, cfg.white)
    )
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if workers * need > memory:
        raise UserError(
            f"option --workers: {workers} workers need about {workers * need / 2**30:,.1f} GiB "
            f"({need / 2**20:,.0f} MiB each), more than this machine's "
            f"{memory / 2**30:,.1f} GiB: use at most {max(1, memory // need)}"
        )
    cores = os.cpu_count() or 1
    if workers > cores:
        sys.stderr.write(
            f"jpdsim: --workers {workers}: more workers than the {cores} cores; they share "
            f"them (no faster than {cores})\n"
        )


def _in_flight(cfg: RunConfig) -> int:
    """The games a worker plays at once: a katago player's ``in_flight``, else 1."""
    return max([p.in_flight for p in (cfg.black, cfg.white) if p.kind == "katago"] or [1])
