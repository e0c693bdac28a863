"""One interactive game for every surface: the session, its events and commands, and the store of games."""
