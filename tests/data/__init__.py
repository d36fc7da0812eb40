"""Data the tests own: golden `jpdsim replay` cases (``replay_cases.jsonl``) and their
generator (``make_replay_cases.py``)."""
