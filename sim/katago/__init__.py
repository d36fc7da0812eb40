"""KataGo's analysis engine as a player (docs/katago.md): ``rules`` (the KataGo rules and komi
a player plays for), ``engine`` (the process and its JSON protocol), ``driver`` (games played
many at a time, judged by ``sim.play.referee``), ``root`` (KataGo's root evaluations of
positions: ``jpdsim root-komi``, a teacher's labels)."""
