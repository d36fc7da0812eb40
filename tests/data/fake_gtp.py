"""A GTP engine that misbehaves on purpose, for the referee's fault tests.

    python fake_gtp.py MODE [N]

It answers the setup commands as GTP says, keeps no board, and on its N-th ``genmove``
(default 1) and after does what MODE says: ``pass`` answers pass; ``crash`` exits; ``hang``
sleeps; ``garbage`` answers a line that is not GTP; ``occupied`` answers A1 (legal once, then
a stone is there); ``refuse`` refuses every ``play``; ``resign`` resigns. Before the N-th it
passes.
"""

import sys
import time

mode = sys.argv[1]
nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
genmoves = 0
COMMANDS = (
    "protocol_version name version list_commands boardsize clear_board komi play genmove quit"
).split()


def answer(text, ok=True):
    sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    command = words[0]
    if command == "quit":
        answer("")
        break
    if command == "protocol_version":
        answer("2")
    elif command == "list_commands":
        answer("\n".join(COMMANDS))
    elif command == "play" and mode == "refuse":
        answer("illegal move", ok=False)
    elif command == "genmove":
        genmoves += 1
        if genmoves < nth or mode == "pass":
            answer("pass")
        elif mode == "crash":
            sys.exit(3)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "garbage":
            sys.stdout.write("banana\n\n")
            sys.stdout.flush()
        elif mode == "occupied":
            answer("A1")
        elif mode == "resign":
            answer("resign")
        else:
            answer("pass")
    else:
        answer("")
