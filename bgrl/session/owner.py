"""Who owns a game: player tokens.

A game belongs to a *player token*: 128 random bits as 32 hex digits
(:func:`new_token`), enough that nobody can guess another player's. The web board and the API
carry it as the cookie ``bgrl_player`` or the header ``X-Player-Token``
(:mod:`bgrl.service.web`); the terminal's games (``bgrl play``, ``bgrl games``) use one token
kept in the user's bgrl folder (:func:`local_player_token`).
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

__all__ = ["COOKIE", "HEADER", "TOKEN_BITS", "bgrl_home", "is_token", "local_player_token", "new_token"]

#: The cookie and the header that carry a player token.
COOKIE = "bgrl_player"
HEADER = "X-Player-Token"
#: Random bits of a new token (32 hex digits).
TOKEN_BITS = 128
_TOKEN = re.compile(r"[0-9a-f]{32,128}")


def bgrl_home() -> Path:
    """The user's bgrl folder: ``$BGRL_HOME``, else ``~/.bgrl``."""
    home = os.environ.get("BGRL_HOME")
    return Path(home).expanduser() if home else Path.home() / ".bgrl"


def new_token() -> str:
    """A fresh player token: :data:`TOKEN_BITS` random bits from :mod:`secrets`, in hex."""
    return secrets.token_hex(TOKEN_BITS // 8)


def is_token(text) -> bool:
    """Whether ``text`` has a player token's form (32 to 128 lower-case hex digits)."""
    return isinstance(text, str) and _TOKEN.fullmatch(text) is not None


def local_player_token() -> str:
    """This machine's player token for the terminal's games: read from ``player_token`` in the
    user's bgrl folder, made (readable by the user only, written atomically) on first use.

    Raises ValueError when the file holds something else (naming the file), OSError when the
    folder cannot be written."""
    from bgrl._fileio import write_text_atomic

    path = bgrl_home() / "player_token"
    if path.is_file():
        text = path.read_text(encoding="ascii", errors="replace").strip()
        if not is_token(text):
            raise ValueError(f"{path} does not hold a player token (32+ hex digits); remove it to make a new one")
        return text
    token = new_token()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, token + "\n")
    try:
        os.chmod(path, 0o600)
    except OSError:  # pragma: no cover - a file system without modes
        pass
    return token
