"""The optional bridge to GNU Backgammon (PyPI ``gnubg-nn``): a referee and a benchmark opponent,
never a teacher or a data source.

Modules
-------
adapter  board and Position ID conversions to gnubg's conventions, and its evaluations
"""
