"""Game records (``bgrl-game-1``), gnubg/Jellyfish ``.mat`` files, and the review of a game.

Modules
-------
record         one game's record: read, write, check
matfile        Jellyfish ``.mat`` match files, read and written
match_records  the records of a session of games (``bgrl match --save-games``)
review         a played game judged play by play: equity losses, marks, error rates, ratings
cube_review    the cube decisions of a game judged: missed and wrong doubles, wrong takes and passes
review_report  a review's reports: the text of ``bgrl review`` / ``bgrl play`` and the JSON
files          game files read by their content (a bgrl record or a ``.mat`` file)
"""
