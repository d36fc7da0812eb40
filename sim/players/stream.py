"""A game's random numbers: SplitMix64.

A game's stream starts at ``mix(mix(seed) + game_id)`` (``mix`` is SplitMix64's finaliser;
``start_stream``), so a game depends on the run seed and its id alone, whichever worker or
shard plays it. The stream is two words: the SplitMix64 state and its next output, drawn one
step ahead (docs/rules.md §11).
"""

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment
_UNIT = 2.0**-53  # a 53-bit integer times this is a float in [0, 1)


@njit(cache=True, _nrt=False)
def mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False)
def start_stream(rng, seed, game_id):
    """Start a game's random stream in ``rng`` (two words: the SplitMix64 state, and the next
    output, drawn one step ahead so that mixing it is off the path of the move being chosen)."""
    rng[0] = mix(mix(np.uint64(seed)) + np.uint64(game_id)) + _GAMMA
    rng[1] = mix(rng[0])


@njit(cache=True, _nrt=False)
def _next(rng):
    out = rng[1]
    rng[0] += _GAMMA
    rng[1] = mix(rng[0])
    return out


@njit(cache=True, _nrt=False)
def below(rng, k):
    """A random integer in [0, k)."""
    return np.int64(((_next(rng) >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def uniform(rng):
    """A random float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * _UNIT
