"""TD(lambda) self-play training for bgrl (installed as bgrl.training)."""
