"""The komi study: the fair komi fitted across komis, and the search that steers a run by it.

``fitting`` (the fit of Black's score against komi and its bootstrap interval; pure numpy, so
that the analysis prints it and a run may steer by it) and ``search`` (``KomiSearch``: a
run's rounds of komis, each from the results of the rounds before it).
"""
