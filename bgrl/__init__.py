"""bgrl: a backgammon reinforcement-learning engine."""

__version__ = "0.1.0"
