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
    s = g.summary
    return {"id": g.id, "finished": g.finished, "updated": _when(g.updated_at), "created": _when(g.created_at),
            "level": s.get("level"), "colour": s.get("colour"), "cube": s.get("cube", False),
            "match_length": s.get("match_length", 0), "turns": s.get("turns", 0), "result": s.get("result"),
            "score": s.get("score"), "version": g.version}


def _open(args):
    from bgrl.session.store import GameStore

    store = GameStore.open(args.store)
    return store, args.token or local_player_token()


def _game(store, token, gid):
    g = store.get(gid, token)
    if g is None:
        raise CLIError(f"no game {gid[:40]!r} of this player in {store.url} (see bgrl games list)")
    return g


def cmd_games(args) -> int:
    if args.token is not None and (len(args.token) < 32 or not all(c in "0123456789abcdef" for c in args.token)):
        raise CLIError("--token must be a player token: 32 or more hex digits (the web board's bgrl_player cookie)")
    store, token = _open(args)
    try:
        if args.action == "list":
            finished = {"all": None, "finished": True, "in-progress": False}[args.which]
            rows = [_row(g) for g in store.list(token, finished=finished)]
            if args.json:
                print(json.dumps({"store": str(store.url), "games": rows}))
                return 0
            if not rows:
                print(f"No games in {store.url}.")
                return 0
            print(f"{'id':<16}  {'updated':<16}  {'level':<12}  {'kind':<16}  {'turns':>5}  status")
            for r in rows:
                kind = "cubeless money" if not r["cube"] else (f"{r['match_length']}-point match" if r["match_length"] else "money, cube")
                status = "in progress" if not r["finished"] else (
                    "finished" if r["result"] is None else f"finished, {r['result']:+d} for you")
                if r["score"] is not None:
                    status += f" (score {r['score']['you']}-{r['score']['computer']})"
                print(f"{r['id']:<16}  {r['updated']:<16}  {str(r['level']):<12}  {kind:<16}  {r['turns']:>5}  {status}")
            return 0
        g = _game(store, token, args.id)
        if args.action == "show":
            from bgrl.session.game import GameSession

            st = GameSession.from_state(g.state).state()
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
            from bgrl.session.game import GameSession

            s = GameSession.from_state(g.state)
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
        if args.action == "delete":
            store.delete(g.id, token)
            print(f"deleted game {g.id}")
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
