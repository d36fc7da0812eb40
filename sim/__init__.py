"""jpdsim: a batched numba Go engine for the 计枰点 (Ji-Ping-Dian) rules family (see docs/rules.md).

Importing the package names its version and does nothing else: numba's cache folder is chosen
where the kernels are compiled or loaded (``sim.kernel_cache``)."""

__version__ = "0.1.0"
