"""The Go Text Protocol (GTP 2) both ways: ``engine`` runs a GTP program (GNU Go, Pachi,
KataGo...) as a player, ``sim.play.referee`` plays its games under these rules; ``server`` makes
the simulator's own players a GTP engine (``jpdsim gtp``). docs/gtp.md."""
