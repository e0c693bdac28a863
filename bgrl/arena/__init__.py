"""Measuring strength: sessions of paired-dice money games (``duel``) and the error-rate benchmark.

A session of N money games is a *duel* here (wildbg's word); "match" is kept for matches to N points.

Modules
-------
duel       paired-dice sessions of money games between two agents (``play_match``)
benchmark  the shipped error-rate benchmark (millipoints lost per decision, gnubg 2-ply judged)
checks     what an agent's batched ``select`` returns, checked wherever the arena calls it
"""
