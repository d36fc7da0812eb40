"""A pause's dead stones under ``dead_stones = "agree"`` (docs/rules.md §4): the agreement, which
removes the stones both players named, or the resumption 实战解决, which converts the two
passes into virtual moves and plays on. Neither is an action.
"""

from numba import njit

from sim.engine.board import clear, is_stone, put_stone
from sim.engine.history import virtual_move
from sim.engine.repetition import relog
from sim.engine.state import (
    AGREE_MODE,
    AGREED,
    CAND,
    COLOR,
    CONVERTED,
    DEAD,
    EMPTY,
    ENDING,
    GAME_OVER,
    INTERIOR,
    LOST,
    NO_PAUSE,
    NO_STONE,
    OK,
    PAUSE,
    PENDING_PASS,
    PLAIN,
    RESUMPTIONS,
    ST,
    TO_MOVE,
    N,
    opponent,
    slot,
)
from sim.schema.coords import AGREE, RESUME
from sim.schema.tables import MAX_RESUMPTIONS


@njit(cache=True, _nrt=False)
def open_pause(g):
    """Whether the game stands at a pause whose dead stones are still to settle: agree mode,
    fewer than MAX_RESUMPTIONS resumptions so far, no agreement yet."""
    st = g.tab[ST]
    return (
        st[ENDING] == PAUSE
        and st[AGREE_MODE] == 1
        and st[RESUMPTIONS] < MAX_RESUMPTIONS
        and st[AGREED] == 0
    )


@njit(cache=True, _nrt=False)
def resume(g):
    """The players' lists differ (实战解决): the pause's two passes become virtual moves in the
    order they were made, and the first passer is to move. The game ends at once if a
    conversion completes four virtual moves (docs/rules.md §4); the move has then passed on as
    after any virtual move (``virtual_move`` hands it on)."""
    st = g.tab[ST]
    second = st[TO_MOVE]  # the pausing pass did not hand the move over
    first = opponent(second)
    st[ENDING] = 0
    st[PENDING_PASS] = 0
    st[RESUMPTIONS] += 1
    for c in (first, second):
        st[CONVERTED] += 1
        virtual_move(g, c)
        if st[ENDING] != 0:
            return


@njit(cache=True, _nrt=False)
def remove_dead(g, p):
    """Remove the stone at ``p`` as agreed dead: lost by its owner (docs/rules.md §7). The board's
    chains are rebuilt; the logged key of the final position follows the board."""
    st = g.tab[ST]
    n = st[N]
    c = g.pt[COLOR, p]
    board = g.pt[CAND]
    for i in range(n * n):
        board[i] = g.pt[COLOR, g.pt[INTERIOR, i]]
    clear(g)
    for i in range(n * n):
        q = g.pt[INTERIOR, i]
        if board[i] != EMPTY and q != p:
            put_stone(g, q, board[i])
    st[slot(LOST, c)] += 1
    st[slot(DEAD, c)] += 1
    relog(g)


@njit(cache=True, _nrt=False)
def settle(g, action):
    """Take AGREE, RESUME or (after AGREE) a dead stone's point at an open pause;
    OK or the reason code."""
    st = g.tab[ST]
    if st[ENDING] == 0:
        return NO_PAUSE
    if st[AGREED]:
        if action < 0:
            return GAME_OVER
        if not is_stone(g.pt[COLOR, action]):
            return NO_STONE
        remove_dead(g, action)
        return OK
    if not open_pause(g) or action >= 0:
        return GAME_OVER
    if action == AGREE:
        st[AGREED] = 1
    else:
        resume(g)
    return OK


@njit(cache=True, _nrt=False)
def settle_pause(g, dead, k0, k1, moves, pos):
    """Settle an open pause (dead_stones = "agree"; docs/rules.md §4) from the players' lists
    ``dead[0, :k0]`` and ``dead[1, :k1]`` (bordered points, in point order): equal lists are
    agreed (AGREE, then each stone removed), different ones resume play (RESUME). The actions
    go into ``moves`` (if not empty) from ``pos`` on; returns the position after them. Every
    point of an agreed list must hold a stone."""
    agreed = k0 == k1
    for i in range(k0 if agreed else 0):
        agreed = agreed and dead[0, i] == dead[1, i]
    settled = AGREE if agreed else RESUME
    settle(g, settled)
    record = moves.size > 0
    if record:
        moves[pos] = settled
        pos += 1
    for i in range(k0 if agreed else 0):
        settle(g, dead[0, i])
        if record:
            moves[pos] = g.pt[PLAIN, dead[0, i]]
            pos += 1
    return pos
