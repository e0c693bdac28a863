"""Game records (``bgrl-game-1``), gnubg/Jellyfish ``.mat`` files, and the review of a game.

Modules
-------
record         one game's record: read, write, check
matfile        Jellyfish ``.mat`` match files, read and written
match_records  the records of a session of games (``bgrl match --save-games``)
review         a played game judged play by play: error rates, marks, JSON and text
"""
