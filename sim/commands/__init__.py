"""The subcommands of ``jpdsim``, one module each (``run``, ``replay``, ``sgf``; ``report`` is
``analysis.report``): ``sim.cli`` parses the command line and calls the module's ``main(args)``.

The top layer: a command may use the run layer (``sim.run``), the dataset layer
(``sim.dataset``), the engine and the analysis (``analysis``); nothing below imports it.
"""
