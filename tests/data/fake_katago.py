"""A fake ``katago analysis`` for the tests (tests/test_katago.py): it speaks the analysis
engine's protocol (docs/katago.md) with a simple policy and misbehaves on request.

``fake_katago.py MODE [options] analysis -model FILE -config FILE``, as jpdsim starts it. Like
KataGo it refuses a missing model or config (stderr, exit 1), reads the config's board size
(``maxBoardXSizeForNNBuffer``, with ``requireMaxBoardSize``: a query on another board is an
error answer), answers ``query_version``, and checks each query's fields, rules and komi and
plays its moves (an occupied point is an error answer, ``Illegal move N``).

Its root (``rootInfo``): the score lead and winrate of ``value``, whatever the moves.
Its moves (``moveInfos``, listed last first; ``order`` ranks them): the first three empty
points (top row first, left to right) that are not single-point eyes of its own and do not
leave its stone without a liberty, with maxVisits, half and a quarter of it as their visits
(at least 1); else ``pass``; as KataGo, none (empty ``moveInfos``) at ``maxVisits`` 1. Its
ownership: each stone's point to its owner, empty points to nobody; MODE ``blackowns`` gives
every point to Black (every White stone dead).

MODE (at ``--at GAME:TURN``: the queries whose id starts ``GAME:TURN:``, an empty GAME or
TURN matching any; without it, every query): ``play`` (none), ``crash`` (exit 3), ``hang``
(sleep), ``garbage`` (a line that is not JSON), ``wrongid`` (the answer under another id),
``error`` (an error answer for the query), ``nomove`` (an answer without moveInfos),
``occupied`` (a point that has a stone), ``chatty`` (an ``isDuringSearch`` line for the query
every 0.2 s for 5 s, then its answer).
``--reverse``: answer the queries that came together in reverse order (answers out of
order); ``--warn``: a warning line before each answer; ``--slow S``: S seconds for each query;
``--log FILE``: append each query's id, komi and rules; ``--pids FILE``: append ``PID start``;
``--stubborn``: ignore SIGTERM and SIGHUP, and linger at the end of the input; ``--fail TEXT``:
TEXT on stderr, exit 1 at once.
"""

import argparse
import json
import os
import re
import select
import signal
import sys
import time

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
RULE_KEYS = {"ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus", "friendlyPassOk"}

parser = argparse.ArgumentParser()
parser.add_argument("mode")
parser.add_argument("subcommand", choices=["analysis"])
parser.add_argument("--at")
parser.add_argument("--reverse", action="store_true")
parser.add_argument("--warn", action="store_true")
parser.add_argument("--slow", type=float, default=0.0)
parser.add_argument("--log")
parser.add_argument("--pids")
parser.add_argument("--stubborn", action="store_true")
parser.add_argument("--fail")
parser.add_argument("-model", required=True)
parser.add_argument("-config", required=True)
opts = parser.parse_args()

if opts.pids:
    with open(opts.pids, "a") as f:
        f.write(f"{os.getpid()} start\n")
if opts.fail:
    sys.stderr.write(opts.fail + "\n")
    sys.exit(1)
for name in (opts.model, opts.config):
    if not os.path.isfile(name):
        sys.stderr.write(f"Error: could not open {name}\n")
        sys.exit(1)
if opts.stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
config = open(opts.config).read()
size = re.search(r"maxBoardXSizeForNNBuffer\s*=\s*(\d+)", config)
required = size and re.search(r"requireMaxBoardSize\s*=\s*true", config)
sys.stderr.write("KataGo v1.17.2 (fake)\nStarted, ready to begin handling requests\n")
sys.stderr.flush()


def write(obj):
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


def point(vertex, n):
    x = COLUMNS.index(vertex[0].upper())
    y = n - int(vertex[1:])
    if not (0 <= x < n and 0 <= y < n):
        raise ValueError(vertex)
    return y * n + x


def neighbours(p, n):
    y, x = divmod(p, n)
    steps = ((p - n, y > 0), (p + n, y < n - 1), (p - 1, x > 0), (p + 1, x < n - 1))
    return [q for q, ok in steps if ok]


def group(board, p, n):
    """The chain of ``p`` and whether it has a liberty."""
    seen, todo, free = {p}, [p], False
    while todo:
        for q in neighbours(todo.pop(), n):
            if board[q] == 0:
                free = True
            elif board[q] == board[p] and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen, free


def play(board, p, colour, n):
    """Put a stone (captures, then a suicide removes the chain); False if occupied."""
    if board[p]:
        return False
    board[p] = colour
    for q in neighbours(p, n):
        if board[q] == 3 - colour:
            chain, free = group(board, q, n)
            if not free:
                for r in chain:
                    board[r] = 0
    chain, free = group(board, p, n)
    if not free:
        for r in chain:
            board[r] = 0
    return True


def candidates(board, colour, n):
    """The first three empty points (top row first) that are not single-point eyes of its own
    and do not leave its stone without a liberty."""
    found = []
    for p in range(n * n):
        if board[p] or all(board[q] == colour for q in neighbours(p, n)):
            continue
        trial = list(board)
        play(trial, p, colour, n)
        if trial[p] == colour:
            found.append(p)
            if len(found) == 3:
                break
    return found


def vertex_of(p, n):
    return f"{COLUMNS[p % n]}{n - p // n}"


def at(qid):
    """Whether ``--at GAME:TURN`` picks the query ``qid`` (``GAME:TURN:...``; an empty GAME or
    TURN picks any)."""
    if opts.at is None:
        return True
    parts, (game, turn) = qid.split(":"), opts.at.split(":")
    return game in ("", parts[0]) and turn in ("", parts[1])


def value(n, scoring):
    """What it believes Black's first move is worth on an empty n x n board: n/2 points by
    area, one less by territory (its root's score lead is that less the komi, and its winrate
    0.5 plus a tenth of the lead, within 0..1)."""
    return n / 2 - (scoring == "TERRITORY")


def analyse(query):
    """The answer to a query (an error answer where KataGo would give one)."""
    qid = query.get("id")
    for key in ("moves", "rules", "komi", "boardXSize", "boardYSize"):
        if key not in query:
            return {"id": qid, "field": key, "error": "required field"}
    n = query["boardXSize"]
    if query["boardYSize"] != n or (required and n != int(size.group(1))):
        return {"id": qid, "field": "boardXSize", "error": "board size not the config's"}
    if set(query["rules"]) != RULE_KEYS:
        return {"id": qid, "field": "rules", "error": f"rules keys {sorted(query['rules'])}"}
    komi = query["komi"]
    if not (abs(komi) <= 150 and (2 * komi) == int(2 * komi)):
        return {"id": qid, "field": "komi", "error": "Must be a integer or half-integer"}
    board = [0] * (n * n)
    colour = 1
    for turn, (who, where) in enumerate(query["moves"]):
        colour = 1 if who == "B" else 2
        if where != "pass" and not play(board, point(where, n), colour, n):
            return {"id": qid, "field": "moves", "error": f"Illegal move {turn}: {where}"}
        colour = 3 - colour
    fault = opts.mode if at(qid) else "play"
    if fault == "crash":
        sys.exit(3)
    if fault == "hang":
        time.sleep(3600)
    if fault == "garbage":
        return "banana"
    for _ in range(25 if fault == "chatty" else 0):
        write({"id": qid, "isDuringSearch": True, "turnNumber": len(query["moves"])})
        time.sleep(0.2)
    if fault == "error":
        return {"id": qid, "field": "moves", "error": "fake error"}
    moves = [vertex_of(p, n) for p in candidates(board, colour, n)] or ["pass"]
    if fault == "occupied":
        taken = [q for q in range(n * n) if board[q]]
        moves = [vertex_of(taken[0], n)] if taken else moves
    visits = query.get("maxVisits", 1)
    infos = [
        {"move": m, "order": k, "visits": max(1, visits >> k), "winrate": 0.5}
        for k, m in enumerate(moves)
    ]
    answer = {"id": qid, "isDuringSearch": False, "turnNumber": len(query["moves"])}
    searched = fault != "nomove" and query.get("maxVisits", 2) >= 2  # KataGo: 1 visit, no move
    answer["moveInfos"] = infos[::-1] if searched else []  # in any order: ``order`` ranks them
    lead = value(n, query["rules"]["scoring"]) - komi
    answer["rootInfo"] = {
        "visits": query.get("maxVisits", 1),
        "winrate": min(max(0.5 + lead / 10, 0.0), 1.0),
        "scoreLead": lead,
    }
    if query.get("includeOwnership"):
        owner = [1.0] * (n * n) if opts.mode == "blackowns" else [(0, 1, -1)[c] for c in board]
        answer["ownership"] = owner
    if fault == "wrongid":
        answer["id"] = "nobody"
    return answer


def lines():
    """The input's lines, as many as have come together (with --reverse: all that come within
    50 ms of each other)."""
    pending = b""
    while chunk := os.read(0, 65536):
        pending += chunk
        while opts.reverse and select.select([0], [], [], 0.05)[0]:
            more = os.read(0, 65536)
            if not more:
                break
            pending += more
        *batch, pending = pending.split(b"\n")
        batch = [line for line in batch if line.strip()]
        yield batch[::-1] if opts.reverse else batch


for batch in lines():
    for line in batch:
        query = json.loads(line)
        if query.get("action") == "query_version":
            write({**query, "version": "1.17.2", "git_hash": "<omitted>"})
            continue
        if opts.log:
            with open(opts.log, "a") as f:
                f.write(f"{query.get('id')} {query.get('komi')} {json.dumps(query.get('rules'))}\n")
        time.sleep(opts.slow)
        answer = analyse(query)
        if opts.warn:
            write({"id": query.get("id"), "field": "x", "warning": "fake warning"})
        write(answer)
if opts.stubborn:  # the end of its input: it lingers
    time.sleep(3600)
