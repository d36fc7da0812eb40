"""`python -m sim` is the `jpdsim` command."""

from sim.cli import main

raise SystemExit(main())
