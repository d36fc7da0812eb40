"""ASCII positions (top row first; X Black, O White, . empty) shared by the golden rule tests
(``tests/test_rules_golden.py``) and the golden replay cases (``tests/data``)."""

KO = """
.....
.XO..
XO.O.
.XO..
.....
"""  # Black C3 takes B3; White's retake at B3 would recreate the start

CYCLE = """
..X..
...XX
.....
OO...
..O..
"""  # A1 E5 B1 D5: two two-stone suicides bring the start back after four moves

SUICIDE_RETURN = """
.....
.....
.....
OO...
..O..
"""  # Black A1, then B1 suicides A1 B1: the start board returns, White to move

SINGLE = """
.....
..X..
.XOX.
.....
.....
"""

EDGE = """
XOO..
XOOX.
.XX..
.....
.....
"""

BOTH_WITHOUT = """
.....
.....
OO...
XXO..
.OX..
"""

SINGLE_SUICIDE = """
.....
.....
.....
X....
.X...
"""

MULTI_SUICIDE = """
.....
.....
.....
XX...
O.X..
"""

SPLIT = """
.XO..
.XO..
.XO..
.XO..
.XO..
"""

BLACK_NO_ROOM = """
XXXO.
X.XO.
X.XO.
XXXO.
XXXO.
"""

WHITE_NO_ROOM = """
..XOO
..XO.
..XO.
..XOO
..XOO
"""

SEKI = """
OOXXOO.
OX..XO.
OX..XO.
OXOOXO.
OXXXXO.
OOOOOO.
.......
"""  # the seki diagram of A§6.1: C6 D6 are Black's eyes a, b; C5 D5 the shared liberties

ATARI_SEKI = """
.XO.
XXO.
OOO.
....
"""
