"""``bgrl games list | show | export | delete``: your games in the store, from the terminal.

The games are those of one player token (:func:`bgrl.session.owner.local_player_token`, kept in
the user's bgrl folder, the token of ``bgrl play``'s games), or of ``--token`` (e.g. the web
board's ``bgrl_player`` cookie). The store is ``--store URL``, else ``$BGRL_STORE``, else the
SQLite file in the user's bgrl folder (docs/store.md).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

from bgrl.cli._common import CLIError, HelpFormatter
from bgrl.session.owner import local_player_token

__all__ = ["add_parser", "cmd_games"]


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M")


def _row(g) -> dict:
    """A game's row of the list; a damaged one (its row in the store cannot be read) with ``damaged``:
    the reason, and no summary. A summary field of an unexpected type is shown as missing."""
    s = g.summary
    row = {"id": g.id, "finished": g.finished, "updated": _when(g.updated_at), "created": _when(g.created_at),
           "level": s.get("level"), "colour": s.get("colour"), "cube": s.get("cube", False) is True,
           "match_length": _number(s.get("match_length"), 0), "turns": _number(s.get("turns"), 0),
           "result": _number(s.get("result"), None), "score": _score(s.get("score")), "version": g.version}
    if getattr(g, "damaged", None) is not None:
        row["damaged"] = g.damaged
    return row


def _number(value, default):
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _score(value):
    if isinstance(value, dict) and all(isinstance(value.get(k), int) for k in ("you", "computer")):
        return value
    return None


def _status(r: dict) -> str:
    if "damaged" in r:
        return f"damaged: {r['damaged'][:100]} (bgrl games delete {r['id']})"
    status = "in progress" if not r["finished"] else (
        "finished" if r["result"] is None else f"finished, {r['result']:+d} for you")
    if r["score"] is not None:
        status += f" (score {r['score']['you']}-{r['score']['computer']})"
    return status


def _open(args):
    from bgrl.session.store import GameStore

    store = GameStore.open(args.store)
    return store, args.token or local_player_token()


def _game(store, token, gid):
    from bgrl.session.store import DamagedGameError, masked

    try:
        g = store.get(gid, token)
    except DamagedGameError as exc:
        raise CLIError(f"game {gid[:40]} is damaged in the store ({exc.reason[:200]}): it cannot be shown or "
                       f"exported; delete it with bgrl games delete {gid[:40]}") from None
    if g is None:
        raise CLIError(f"no game {gid[:40]!r} of this player in {masked(store.url)} (see bgrl games list)")
    return g


def _session(g):
    """The GameSession of a stored game; a state of an unexpected format is one line."""
    from bgrl.session.game import GameSession, SessionError

    try:
        return GameSession.from_state(g.state)
    except SessionError as exc:
        raise CLIError(f"game {g.id} is damaged in the store ({exc.message}): it cannot be shown or exported; "
                       f"delete it with bgrl games delete {g.id}") from None


def cmd_games(args) -> int:
    if args.token is not None and (len(args.token) < 32 or not all(c in "0123456789abcdef" for c in args.token)):
        raise CLIError("--token must be a player token: 32 or more hex digits (the web board's bgrl_player cookie)")
    from bgrl.session.store import masked

    store, token = _open(args)
    try:
        if args.action == "list":
            finished = {"all": None, "finished": True, "in-progress": False}[args.which]
            rows = [_row(g) for g in store.list(token, finished=finished, with_damaged=True)]
            if args.json:
                print(json.dumps({"store": masked(store.url), "games": rows}))
                return 0
            if not rows:
                print(f"No games in {masked(store.url)}.")
                return 0
            print(f"{'id':<16}  {'updated':<16}  {'level':<12}  {'kind':<16}  {'turns':>5}  status")
            for r in rows:
                kind = "cubeless money" if not r["cube"] else (f"{r['match_length']}-point match" if r["match_length"] else "money, cube")
                level = str(r["level"])
                if "damaged" in r:
                    level = kind = "?"
                print(f"{r['id']:<16}  {r['updated']:<16}  {level:<12}  {kind:<16}  {r['turns']:>5}  {_status(r)}")
            return 0
        if args.action == "delete":  # a damaged game too: deleted without reading it
            if not store.delete(args.id, token):
                raise CLIError(f"no game {args.id[:40]!r} of this player in {masked(store.url)} (see bgrl games list)")
            print(f"deleted game {args.id}")
            return 0
        g = _game(store, token, args.id)
        if args.action == "show":
            st = _session(g).state()
            if args.json:
                print(json.dumps({"game": _row(g), "state": st}))
                return 0
            r = _row(g)
            print(f"Game {g.id}: against {r['level']}, you play {r['colour']}; {r['turns']} turns; "
                  f"{'finished' if r['finished'] else 'in progress'} (updated {r['updated']} UTC)")
            for ev in st["events"]:
                if ev.get("note"):
                    print("  " + ev["note"])
            if st["over"] is not None:
                print(st["over"]["text"])
            return 0
        if args.action == "export":
            from bgrl._fileio import write_text_atomic

            s = _session(g)
            records = s.all_records()
            if args.format == "mat":
                from bgrl.records.matfile import mat_text

                if s.set_up:
                    raise CLIError("a game from a set-up position cannot be written as .mat (the format starts from "
                                   "the opening position); export --format bgrl")
                text = mat_text(records, 0 if s.match is None else s.match.rules.match_length)
            else:
                text = "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for rec in records for line in rec.lines())
            if args.out is None:
                sys.stdout.write(text)
            else:
                write_text_atomic(args.out, text)
                print(f"wrote {args.out}")
            return 0
    finally:
        store.close()
    raise CLIError(f"unknown action {args.action!r}")  # pragma: no cover - argparse's choices


def add_parser(sub) -> None:
    p = sub.add_parser("games", help="your games in the store: list, show, export, delete", formatter_class=HelpFormatter,
                       description="Your games (bgrl play's and, with --token, the web board's) kept in the store: "
                       "games in progress until they finish or you delete them (docs/store.md).")
    p.add_argument("action", choices=["list", "show", "export", "delete"], help="what to do")
    p.add_argument("id", nargs="?", help="the game's id (show, export, delete)")
    p.add_argument("--store", metavar="URL", default=None, help="sqlite:///PATH or postgresql://user:password@host:port/db "
                   "(default: $BGRL_STORE, else ~/.bgrl/bgrl.db)")
    p.add_argument("--token", metavar="HEX", default=None, help="the player token whose games to use (default: this "
                   "machine's, in the user's bgrl folder; the web board's is its bgrl_player cookie)")
    p.add_argument("--which", choices=["all", "finished", "in-progress"], default="all", help="list: which games "
                   "(default: %(default)s)")
    p.add_argument("--format", choices=["bgrl", "mat"], default="bgrl", help="export: bgrl-game-1 JSON lines or a "
                   "Jellyfish .mat file (default: %(default)s)")
    p.add_argument("--out", metavar="FILE", default=None, help="export: write to FILE (atomically) instead of stdout")
    p.add_argument("--json", action="store_true", help="list, show: one JSON object")

    def run(args) -> int:
        if args.action != "list" and args.id is None:
            raise CLIError(f"bgrl games {args.action} needs the game's id (see bgrl games list)")
        return cmd_games(args)

    p.set_defaults(func=run)
