"""jpdsim: a batched numba Go engine for the 计枰点 rules family (see docs/rules.md)."""

__version__ = "0.1.0"
