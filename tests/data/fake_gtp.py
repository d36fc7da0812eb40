"""A GTP engine that misbehaves on purpose, for the referee's fault tests.

    python fake_gtp.py MODE [N] [--pids FILE] [--stubborn] [--refuse COMMAND] [--fail TEXT]

It answers the setup commands as GTP says, keeps no board, and on its N-th ``genmove``
(default 1) and after does what MODE says: ``pass`` answers pass; ``crash`` exits; ``hang``
sleeps; ``garbage`` answers a line that is not GTP; ``huge`` answers a move of a million
letters; ``occupied`` answers A1 (legal once, then
a stone is there); ``refuse`` refuses every ``play``; ``resign`` resigns; ``silent`` answers
nothing at all, from the first command. Before the N-th it passes.

``--pids FILE`` appends ``PID start`` to FILE when it starts, ``PID genmove`` at each
``genmove`` and ``PID komi K`` at each ``komi`` (the tests look for processes left running,
and at the komi told); ``--stubborn`` ignores SIGTERM, SIGHUP and the end of its input
(it sleeps on, as a careless engine would); ``--refuse COMMAND`` refuses that command
(``boardsize``, ``komi``...); ``--fail TEXT`` writes TEXT to stderr and exits at once.
"""

import argparse
import os
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("mode")
parser.add_argument("nth", nargs="?", type=int, default=1)
parser.add_argument("--pids")
parser.add_argument("--stubborn", action="store_true")
parser.add_argument("--refuse", default="")
parser.add_argument("--fail")
opts = parser.parse_args()
genmoves = 0
COMMANDS = (
    "protocol_version name version list_commands boardsize clear_board komi play genmove quit"
).split()


def note(what):
    if opts.pids:
        with open(opts.pids, "a") as f:
            f.write(f"{os.getpid()} {what}\n")


def answer(text, ok=True):
    sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
    sys.stdout.flush()


note("start")
if opts.fail:
    sys.stderr.write(opts.fail + "\n")
    sys.exit(1)
if opts.stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
for line in sys.stdin:
    words = line.split()
    if not words or opts.mode == "silent":
        continue
    command = words[0]
    if command == "quit":
        answer("")
        break
    if command == opts.refuse:
        answer("unacceptable", ok=False)
    elif command == "protocol_version":
        answer("2")
    elif command == "list_commands":
        answer("\n".join(COMMANDS))
    elif command == "play" and opts.mode == "refuse":
        answer("illegal move", ok=False)
    elif command == "komi":
        note(line.strip())
        answer("")
    elif command == "genmove":
        note("genmove")
        genmoves += 1
        if genmoves < opts.nth or opts.mode == "pass":
            answer("pass")
        elif opts.mode == "crash":
            sys.exit(3)
        elif opts.mode == "hang":
            time.sleep(3600)
        elif opts.mode == "garbage":
            sys.stdout.write("banana\n\n")
            sys.stdout.flush()
        elif opts.mode == "huge":
            answer("x" * 1_000_000)
        elif opts.mode == "occupied":
            answer("A1")
        elif opts.mode == "resign":
            answer("resign")
        else:
            answer("pass")
    else:
        answer("")
else:
    if opts.stubborn:  # the end of its input: it lingers
        time.sleep(3600)
