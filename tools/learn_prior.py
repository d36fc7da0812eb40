"""Learn the mcts player's move priors (``sim/players/prior.py``) from recorded games.

    python tools/learn_prior.py RUN_DIR... [--out sim/players/prior_weights.npz]
                                [--holdout 0.1] [--l2 1.0] [--steps 600] [--diamond MIN]

Every position of the runs' recorded games (``record_moves = "all"``) before a real move or a
pass is a choice among the candidates a search considers (``prior.is_candidate``, suicides
included as when the shipped weights were learned, and pass); the weights of
``prior.move_features`` (a weight per 3x3 class, equal over rotations and reflections, and one
per tactical feature; with ``--diamond MIN`` also one per diamond class, of the 12-point
diamonds seen at least MIN times among the candidates fitted on) are fitted by maximum
likelihood of the moves played under the softmax of the candidates' summed weights (Coulom's
generalised Bradley-Terry model, fitted here by Adam on the full batch rather than his MM),
with an L2 penalty ``--l2`` (a Gaussian prior on each log-gamma). A share ``--holdout`` of the
games (drawn with seed 0) is kept out of the fit and scored: the top-1 prediction rate and the
mean log-likelihood of the learned prior, of each shipped learned prior, of the hand-set prior
of the search before them (``sim.players.expand.hand_prior``) and of a uniform choice. The
weights, the feature names and this command are written to ``--out``.

The shipped weights were learned from KataGo's self-play through jpdsim (docs/search.md,
"Move priors: hand-set, learned, diamonds"); KataGo is needed only to make new ones.
"""

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the code of this tree, not an installed one

from sim.config.file import config_from_dict  # noqa: E402
from sim.dataset.check import check_run, read_part  # noqa: E402
from sim.dataset.layout import MANIFEST, MOVES, part_name  # noqa: E402
from sim.dataset.manifest import read_manifest  # noqa: E402
from sim.engine.game import Game  # noqa: E402
from sim.engine.state import (  # noqa: E402
    BLACK,
    EMPTIES,
    N_EMPTY,
    PENDING_PASS,
    PLAIN,
    ST,
    TO_MOVE,
    W,
    new_state,  # noqa: E402
)
from sim.players import prior  # noqa: E402
from sim.players.expand import HAND_PASS, hand_prior  # noqa: E402
from sim.players.ladder import new_line  # noqa: E402
from sim.players.shapes import colours_swapped  # noqa: E402
from sim.schema.coords import PASS, VIRTUAL  # noqa: E402

NO_CLASS = -1  # a pass's pattern class: none
PASS_FIRST, PASS_ANSWER = prior.F["pass_first"], prior.F["pass_answer"]


@njit(cache=True)
def _candidates(s, feats, hand, b, line):
    """The candidates of the position ``s``: their points (PLAIN index, -1 for pass),
    features and the code of their points ``prior.FAR`` (rows of ``feats``), and the hand-set
    prior (``hand``); returns their number."""
    c = s.tab[ST, TO_MOVE]
    pending = s.tab[ST, PENDING_PASS]
    k = 0
    for i in range(s.tab[ST, N_EMPTY]):
        p = s.pt[EMPTIES, i]
        if prior.is_candidate(s, p, c, pending, True):  # suicides too, as the weights were learned
            f = prior.move_features(s, p, c, b, line, True)
            feats[k, 0] = s.pt[PLAIN, p]
            for j in range(len(f)):
                feats[k, 1 + j] = f[j]
            feats[k, -1] = prior.far_code(s.pt, p, s.tab[ST, W])
            hand[k] = hand_prior(s, p, c)
            k += 1
    feats[k, :] = -1  # pass: no point, no pattern, one feature
    feats[k, 2] = PASS_ANSWER if pending else PASS_FIRST
    hand[k] = HAND_PASS
    return k + 1


def positions(run_dirs):
    """For each recorded position: (game key, the mover's colour, the candidates' rows of
    ``_candidates``'s features, their hand-set priors, the row of the move played)."""
    for run_dir in map(Path, run_dirs):
        state = check_run(run_dir)
        cfg = config_from_dict(
            read_manifest(run_dir)["config"], str(run_dir / MANIFEST), stored=True
        )
        if cfg.setup:
            sys.exit(f"{run_dir}: its games start from setups; only games from the empty board")
        n2 = cfg.rules.board_size**2
        feats = np.zeros((n2 + 1, 3 + prior.GROUPS), np.int64)
        hand = np.zeros(n2 + 1)
        board, line = new_state(cfg.rules, False), new_line()
        for shard in sorted(state.moves_shards):
            table = read_part(run_dir / MOVES / part_name(shard)).to_pylist()
            for row in table:
                game = Game(cfg.rules)
                for action in row["actions"]:
                    if action < 0 and action not in (PASS, VIRTUAL):
                        break  # a resignation or a pause's settling: no more choices
                    if action != VIRTUAL:
                        k = _candidates(game.state, feats, hand, board, line)
                        points = feats[:k, 0]
                        chosen = np.flatnonzero(points == (-1 if action == PASS else action))
                        if len(chosen):
                            key = (str(run_dir), int(row["game_id"]))
                            yield (
                                key,
                                game.to_move,
                                feats[:k, 1:].copy(),
                                hand[:k].copy(),
                                int(chosen[0]),
                            )
                    if game.play(action) is not None:
                        break


def design(samples):
    """Arrays of the samples: each candidate's diamond code in the mover's colours (-1 for a
    pass), its feature indices, its position, and each position's chosen row."""
    codes, feat, pos, chosen, start = [], [], [], [], 0
    for i, (_, colour, f, _, ch) in enumerate(samples):
        code = np.maximum(f[:, 0], 0) + prior.CODES * np.maximum(f[:, -1], 0)
        mover = code if colour == BLACK else colours_swapped(code, len(prior.DIAMOND))
        codes.append(np.where(f[:, 0] >= 0, mover, -1))
        feat.append(f[:, 1:-1])
        pos.append(np.full(len(f), i))
        chosen.append(start + ch)
        start += len(f)
    return np.concatenate(codes), np.concatenate(feat), np.concatenate(pos), np.array(chosen)


def neighbourhood(codes):
    """The 8-neighbourhood codes of diamond codes; -1 stays -1."""
    return np.where(codes >= 0, codes & (prior.CODES - 1), -1)


def classes(codes, points):
    """Each code's class (``prior.canonical``) among ``points``; -1 stays -1."""
    out = np.full(len(codes), -1, np.int64)
    real = codes >= 0
    out[real] = prior.canonical(codes[real], points)
    return out


def index(cls, known):
    """Each class's index in the sorted ``known`` classes, -1 where it is not among them."""
    if not len(known):
        return np.full(len(cls), -1)
    i = np.minimum(np.searchsorted(known, cls), len(known) - 1)
    return np.where((cls >= 0) & (known[i] == cls), i, -1)


def incidence(tables, feat):
    """(rows, columns): each candidate's row against each weight it has, the columns
    numbering the weights of ``tables`` (per table, each candidate's index into it, -1 none;
    and its size) and then of ``prior.FEATURES``."""
    rows, cols, offset = [], [], 0
    for idx, size in tables:
        rows.append(np.flatnonzero(idx >= 0))
        cols.append(idx[idx >= 0] + offset)
        offset += size
    for j in range(feat.shape[1]):
        rows.append(np.flatnonzero(feat[:, j] >= 0))
        cols.append(feat[feat[:, j] >= 0, j] + offset)
    return np.concatenate(rows), np.concatenate(cols)


def scores(weights, rows, cols, n):
    """Each of the ``n`` candidates' summed weight (``incidence``'s ``rows`` and ``cols``)."""
    return np.bincount(rows, weights[cols], n)


def softmax_by(s, starts, pos):
    """The softmax of ``s`` within each position (its candidates from ``starts``, each
    candidate's position ``pos``)."""
    e = np.exp(s - np.maximum.reduceat(s, starts)[pos])
    return e / np.add.reduceat(e, starts)[pos]


def fit(rows, cols, n_weights, pos, chosen, l2, steps):
    """The weights of maximum penalised likelihood (Adam) of the candidates ``incidence``
    describes."""
    n, n_pos = len(pos), len(chosen)
    starts = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1]])
    theta = np.zeros(n_weights)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    target = np.zeros(n)
    target[chosen] = 1.0
    for t in range(1, steps + 1):
        r = softmax_by(scores(theta, rows, cols, n), starts, pos) - target
        grad = np.bincount(cols, r[rows], n_weights) / n_pos + l2 * theta / n_pos
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        theta -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return theta


def score_prior(weight, pos, chosen):
    """(top-1 rate, mean log-likelihood) of a prior given as each candidate's ``weight``
    (positive)."""
    n = len(chosen)
    p = weight / np.bincount(pos, weight, n)[pos]
    top = np.full(n, -np.inf)
    np.maximum.at(top, pos, p)
    ties = np.bincount(pos, p >= top[pos], n)
    hit = (p[chosen] >= top) / ties  # a tie for the top a fraction of a hit
    return hit.mean(), np.log(p[chosen]).mean()


def main(argv):
    a = argparse.ArgumentParser(prog="learn_prior.py", description=__doc__.splitlines()[0])
    a.add_argument("runs", nargs="+", metavar="RUN_DIR")
    a.add_argument("--out", type=Path, default=prior.WEIGHTS["learned"])
    a.add_argument("--holdout", type=float, default=0.1)
    a.add_argument("--l2", type=float, default=1.0)
    a.add_argument("--steps", type=int, default=600)
    a.add_argument("--diamond", type=int, default=0, metavar="MIN")
    args = a.parse_args(argv)
    t0 = time.time()
    samples = list(positions(args.runs))
    games = sorted({key for key, *_ in samples})
    held = set(np.random.default_rng(0).permutation(len(games))[: round(args.holdout * len(games))])
    held = {games[i] for i in held}
    train = [x for x in samples if x[0] not in held]
    test = [x for x in samples if x[0] in held]
    print(
        f"{len(samples)} positions of {len(games)} games read in {time.time() - t0:.0f} s; "
        f"{len(test)} positions of {len(held)} games held out",
        flush=True,
    )
    codes, feat, pos, chosen = design(train)
    known = [np.unique(classes(neighbourhood(codes), prior.AROUND)[codes >= 0])]
    if args.diamond:
        big, counts = np.unique(classes(codes, prior.DIAMOND)[codes >= 0], return_counts=True)
        known.append(big[counts >= args.diamond])
    points = (prior.AROUND, prior.DIAMOND)

    def tables(codes):
        both = (neighbourhood(codes), codes)
        found = [index(classes(c, pts), k) for c, pts, k in zip(both, points, known)]
        return [(f, len(k)) for f, k in zip(found, known)]

    n_weights = sum(len(k) for k in known) + len(prior.FEATURES)
    rows, cols = incidence(tables(codes), feat)
    theta = fit(rows, cols, n_weights, pos, chosen, args.l2, args.steps)
    ends = np.cumsum([0, *(len(k) for k in known)])
    theta_feat = theta[ends[-1] :]
    print(
        f"fitted {' and '.join(str(len(k)) for k in known)} pattern classes and "
        f"{len(theta_feat)} features in {time.time() - t0:.0f} s"
    )
    codes, feat, pos, chosen = design(test)
    weights = [("learned", np.exp(scores(theta, *incidence(tables(codes), feat), len(pos))))]
    for kind, path in prior.WEIGHTS.items():
        if path.exists():
            pattern, features, big, dw = prior.load(kind)
            shipped = [(neighbourhood(codes), prior.CODES)]
            if len(big):  # a prior without diamonds: no classes to read
                shipped.append((index(classes(codes, prior.DIAMOND), big), len(big)))
            w = np.concatenate([pattern[0], dw, features])
            weights.append(
                (f"shipped {kind}", np.exp(scores(w, *incidence(shipped, feat), len(pos))))
            )
    hand = np.concatenate([h for *_, h, _ in test])
    for name, weight in (*weights, ("hand-set", hand), ("uniform", np.ones(len(codes)))):
        top1, ll = score_prior(weight, pos, chosen)
        print(f"held out, {name:>16} prior: top-1 {top1:.1%}, mean log-likelihood {ll:.3f}")
    canon = prior.canonical(np.arange(prior.CODES))
    pattern = np.where((i := index(canon, known[0])) >= 0, theta[np.maximum(i, 0)], 0.0)
    command = shlex.join(["python", "tools/learn_prior.py", *argv])
    diamonds = (
        {"diamonds": known[1], "diamond_weights": theta[ends[1] : ends[2]]} if args.diamond else {}
    )
    np.savez_compressed(
        args.out,
        pattern=pattern.astype(np.float32),
        features=theta_feat,
        feature_names=np.array(prior.FEATURES),
        command=np.array(command),
        **diamonds,
    )
    for name, w in zip(prior.FEATURES, theta_feat):
        print(f"  {name:>14} {w:+.2f}")
    print(f"written {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
