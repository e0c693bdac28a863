"""The fast hint path (batched notation and Position IDs, one-pass legal plays, 0-ply
ranking) gives exactly what a straightforward reference gives: same plays in the same
order, same notation, Position IDs, checker moves and after-states, same equities,
losses, probabilities and plies.

The reference is plain Python: every path of the dice is walked checker move by checker
move (``bgrl.rules.notation._step``, the rule checker of the play parser, not the batched
generator), sources lowest first, the higher die first; the first path found to each
board names it (the notation's documented choice); Position IDs come from
``bgrl.rules.board.position_id``; the plays' order is :func:`bgrl.rules.movegen.generate`'s canonical
order and the ranking is :func:`bgrl.agents.search.search_plays` sorted by (ply, equity).
"""

import numpy as np
import pytest
from positions import synthetic_positions

from bgrl import legal_plays
from bgrl.arena.benchmark import shipped_benchmark_path
from bgrl.rules.board import Position, flip, position_id
from bgrl.agents.hints import rank_plays
from bgrl.rules.movegen import generate
from bgrl.rules.notation import _format_path, _step, format_moves, notations
from bgrl.agents.search import search_plays


def reference_first_paths(board, dice, n_moves):
    """{final board bytes: checker moves (src, dst, hit)} for every play of ``n_moves``
    checker moves, the first path found kept (higher die first; sources ascending; doubles from the highest
    source down, as the generator and the notation do)."""
    d1, d2 = max(dice), min(dice)
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    found = {}

    def walk(b, order, k, path, max_src):
        if k == n_moves:
            found.setdefault(np.array(b, dtype=np.int8).tobytes(), tuple(path))
            return
        for src in range(1, 26):
            if max_src is not None and src > max_src:
                break
            nb, dst, hit, why = _step(b, src, order[k])
            if why is None:  # a bear-off is recorded as the generator does: dst = src - die <= 0
                move = (src, dst if dst > 0 else src - order[k], hit)
                walk(nb, order, k + 1, path + [move], src if d1 == d2 else None)

    for order in orders:
        walk([int(x) for x in board], order, 0, [], 25 if d1 == d2 else None)
    return found


def reference_plays(board, dice):
    """(notation, position_id, moves, after-state bytes) of every legal play, canonical order."""
    aft = generate(board[None], np.array([dice], dtype=np.int8))
    n = int(aft.dice_used[0])
    if n == 0:
        return []
    paths = reference_first_paths(board, dice, n)
    out = []
    for a in aft.group(0):
        moves = paths[a.tobytes()]
        out.append((format_moves(moves), position_id(flip(a)), moves, a.tobytes()))
    return out


def _cases(n_bench=500, n_synth=100):
    z = np.load(shipped_benchmark_path())
    idx = np.random.default_rng(7).choice(len(z["board"]), size=min(n_bench, len(z["board"])), replace=False)
    boards, dice = list(z["board"][idx]), [tuple(int(v) for v in d) for d in z["dice"][idx]]
    sb, sd = synthetic_positions(np.random.default_rng(8), n_synth)
    ok = (np.maximum(sb[:, 1:26], 0).sum(1) > 0) & (np.maximum(-sb[:, 0:25], 0).sum(1) > 0)  # games not over
    boards += list(sb[ok])
    dice += [tuple(int(v) for v in d) for d in sd[ok]]
    return [(np.asarray(b, dtype=np.int8), d) for b, d in zip(boards, dice)]


CASES = _cases()


def test_cases_cover_doubles_passes_and_single_die_plays():
    kinds = set()
    for b, d in CASES:
        aft = generate(b[None], np.array([d], dtype=np.int8))
        kinds.add(("double" if d[0] == d[1] else "non-double", int(aft.dice_used[0])))
    assert {("non-double", 2), ("double", 4), ("non-double", 1)} <= kinds
    assert any(u == 0 for _, u in kinds)


def test_legal_plays_match_the_reference():
    for b, d in CASES:
        got = [(p.notation, p.position_id, p.moves, p.after_state.tobytes()) for p in legal_plays(Position(b), d)]
        assert got == reference_plays(b, d), (position_id(b), d)


def test_notations_match_the_reference():
    for b, d in CASES[:200]:
        aft = generate(b[None], np.array([d], dtype=np.int8))
        n = int(aft.dice_used[0])
        want = [r[0] for r in reference_plays(b, d)] or [""]
        assert notations(b, d, aft.group(0), n) == want


def test_table_formatter_writes_what_format_moves_writes():
    seen = 0
    for b, d in CASES:
        for p in legal_plays(Position(b), d):
            assert _format_path(p.moves) == format_moves(p.moves) == p.notation
            seen += 1
    assert seen > 5000


def test_play_objects_are_read_only():
    b, d = CASES[0]
    plays = legal_plays(Position(b), d)
    with pytest.raises(ValueError):
        plays[0].after_state[1] = 3


class _Evaluator:
    """The shipped network's evaluator (loaded once)."""

    ev = None

    def __call__(self, boards):
        if _Evaluator.ev is None:
            import bgrl

            _Evaluator.ev = bgrl.load_agent("advanced").evaluator
        return _Evaluator.ev(boards)


def reference_ranking(board, dice, evaluator, ply):
    plays = reference_plays(board, dice)
    if not plays:
        return []
    after = np.stack([np.frombuffer(p[3], dtype=np.int8) for p in plays])
    res = search_plays(evaluator, after, np.array([0, len(plays)]), ply, search_forced=True)
    order = np.lexsort((-res.equity, -res.ply.astype(np.int64)))
    best = res.equity[order[0]]
    eq, d = res.equity.tolist(), res.ply.tolist()

    def rank(i):  # ties share a rank: 1 + the plays strictly above (deeper, or better by > 1e-9)
        return 1 + sum(1 for j in range(len(eq)) if d[j] > d[i] or (d[j] == d[i] and eq[j] > eq[i] + 1e-9))

    return [
        (rank(i), plays[i][0], plays[i][1], float(res.equity[i]), float(best - res.equity[i]),
         tuple(float(x) for x in res.probs[i]), int(res.ply[i]))
        for i in order
    ]


def _ranked(rows):
    return [
        (r.rank, r.play.notation, r.play.position_id, r.equity, r.equity_loss,
         (r.probabilities.win, r.probabilities.win_gammon, r.probabilities.win_backgammon,
          r.probabilities.lose_gammon, r.probabilities.lose_backgammon), r.ply)
        for r in rows
    ]


@pytest.mark.parametrize("ply, n", [(0, len(CASES)), (1, 12)])
def test_rank_plays_matches_the_reference(ply, n):
    ev = _Evaluator()
    for b, d in CASES[:n]:
        assert _ranked(rank_plays(Position(b), d, ev, ply=ply)) == reference_ranking(b, d, ev, ply), (position_id(b), d)
