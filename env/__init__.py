"""Gymnasium environments for bgrl (installed as bgrl.env)."""
