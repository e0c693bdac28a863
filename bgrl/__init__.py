"""bgrl: a backgammon reinforcement-learning engine."""
