"""A native batched Gymnasium vector environment: ``bgrl/BackgammonVector-v0``.

N games advance in lockstep as arrays: one step of the N games is one batched call of
:func:`bgrl.rules.movegen.generate`, one batched :func:`bgrl.evaluation.encoding.encode` and, against an
opponent, one batched ``opponent.select`` (plus small extra rounds for the games whose roll
cannot be played). There is no Python loop over games. Game ``i`` is exactly the game of a
single environment (:mod:`bgrl.env.backgammon`) seeded ``seed + i``: same dice (counter-based
streams, :mod:`bgrl.rules.dice`), same observations, masks, rewards and info keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.dice import roll_dice, seed_keys
from bgrl.evaluation.encoding import ENCODER, encode
from bgrl.env.backgammon import BLACK, MAX_PLAYS, WHITE, colour_arg, load_opponent, feature_bounds
from bgrl.env.checker import CHECKER_ACTIONS, DICE_FEATURES, CheckerTurns, check_action_mode
from bgrl.env.state import StateCopy, reset_positions
from bgrl.rules.movegen import AfterStates, generate
from bgrl.rules.outcome import game_results

__all__ = ["BackgammonVectorEnv", "BackgammonSelfPlayVectorEnv", "AfterStateGroups", "LegalPlayGroups", "take_positions"]

_MAX_ROUNDS = 1000  # guard: consecutive passes (both sides closed out) cannot arise from the start


def take_positions(after: AfterStates, keep: np.ndarray) -> AfterStates:
    """The sub-batch of ``after`` for the positions where ``keep`` (bool (B,)) is true, renumbered
    0..B'-1 in order. Rows keep their order; ``offsets``/``parent`` refer to the sub-batch."""
    rows = keep[after.parent]
    renum = np.cumsum(keep) - 1
    counts = after.counts[keep]
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return AfterStates(
        boards=after.boards[rows],
        parent=renum[after.parent[rows]],
        dice_used=after.dice_used[keep],
        offsets=offsets,
        positions=after.positions[keep],
        dice=None if after.dice is None else after.dice[keep],
    )


class AfterStateGroups(Sequence):
    """``info["after_states"]`` of the vector env: a read-only sequence of N int8 ``(k_i, 26)``
    arrays, item ``i`` = the legal after-states of game ``i`` (mover's view, action order;
    empty at the end of a game). Built lazily from one flat array, so no per-game work is done
    unless an item is read. ``boards`` (int8 (M, 26)) and ``offsets`` (int64 (N + 1,)) expose
    the flat form (``boards[offsets[i]:offsets[i + 1]]`` is item ``i``)."""

    def __init__(self, boards: np.ndarray, offsets: np.ndarray):
        self.boards = boards
        self.offsets = offsets

    def __len__(self) -> int:
        return self.offsets.size - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        j = int(i)
        if not -n <= j < n:
            raise IndexError(f"game index {i} out of range for {n} games")
        j %= n
        return self.boards[self.offsets[j] : self.offsets[j + 1]]

    def __repr__(self) -> str:
        return f"AfterStateGroups({len(self)} games, {self.boards.shape[0]} after-states)"


class LegalPlayGroups(Sequence):
    """``info["legal_plays"]`` of the vector env: a read-only sequence of N lists of play
    notations (mover's numbering, action order), computed lazily for the items read (the
    notation is the slow part of a single env's step). With ``notation=False`` every item is []."""

    def __init__(self, positions, dice, groups: AfterStateGroups, dice_used, enabled: bool):
        self._positions, self._dice, self._groups, self._used = positions, dice, groups, dice_used
        self._enabled = enabled

    def __len__(self) -> int:
        return len(self._groups)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        after = self._groups[i]
        j = int(i) % len(self)
        if not self._enabled or after.shape[0] == 0:
            return []
        from bgrl.rules.notation import notations

        d = (int(self._dice[j, 0]), int(self._dice[j, 1]))
        return notations(self._positions[j], d, after, int(self._used[j]))

    def __repr__(self) -> str:
        return f"LegalPlayGroups({len(self)} games)"


class BackgammonVectorEnv(StateCopy, VectorEnv):
    """## Description

    N money games of backgammon (cubeless, gammons and backgammons count; docs/rules.md) stepped in
    lockstep as arrays. ``self_play=False`` (default): the agent against a built-in opponent,
    game ``i`` behaving exactly like ``bgrl/Backgammon-v0``; ``self_play=True``: the agent plays
    both sides, like ``bgrl/BackgammonSelfPlay-v0``. Made by
    ``gym.make_vec("bgrl/Backgammon-v0", num_envs=N, vectorization_mode="vector_entry_point")``
    (or ``"bgrl/BackgammonSelfPlay-v0"``, or ``gym.make_vec("bgrl/BackgammonVector-v0", ...)``).

    ## Action Space

    ``MultiDiscrete([MAX_PLAYS] * N)`` (``single_action_space = Discrete(MAX_PLAYS)``,
    MAX_PLAYS = 2226, the proven maximum number of distinct plays): one index per game into the
    canonical list of legal after-states of its roll. ``info["action_mask"]`` (int8 ``(N,
    MAX_PLAYS)``) marks the legal ones, a prefix ``0 .. k_i - 1`` of each row. Actions must be
    an integer array of shape ``(N,)``; an index outside game ``i``'s mask raises ``ValueError``
    naming ``i``, and no game is changed. The action of a game being auto-reset is ignored.

    ## Observation Space

    ``Box(float32, (N, F))``: row ``i`` is :func:`bgrl.evaluation.encoding.encode` of game ``i`` from the
    agent's side (self-play: the side on roll; at the end, the winner's side), ``td198r`` by
    default (F = 202).

    ## Rewards

    float64 ``(N,)``: as the single envs: against an opponent, the agent's points at the end
    (+-1/2/3), 0 otherwise; self-play, the points won by the side that just moved.

    ## Starting State

    The starting position, White on roll; against an opponent playing White, its first play is
    made in ``reset``. Rolls with no legal play pass automatically.

    ## Episode End

    A game terminates when a side has borne off all 15 checkers; no truncation.

    ## Autoreset

    ``metadata["autoreset_mode"] = AutoresetMode.NEXT_STEP`` (Gymnasium 1.x): the step that ends
    game ``i`` returns its terminal observation, reward and ``terminated[i] = True``; the next
    ``step`` ignores action ``i``, starts a new game there (the next episode of the same dice
    stream, as a single env's unseeded ``reset()``) and returns its first observation with reward
    0 and ``terminated[i] = False``. ``reset(options={"reset_mask": mask})`` resets only the
    games marked in a bool ``(N,)`` array.

    ## Info

    The keys of the single envs, batched: ``action_mask`` int8 ``(N, MAX_PLAYS)``; ``dice`` int8
    ``(N, 2)`` (high die first; 0, 0 at the end of a game); ``board`` int8 ``(N, 26)``; ``after_states`` an
    :class:`AfterStateGroups` (item ``i``: int8 ``(k_i, 26)``; ``.boards``/``.offsets`` flat);
    ``legal_plays`` a :class:`LegalPlayGroups` (item ``i``: list of notations, computed when
    read); against an opponent ``agent_color`` (str ``(N,)``); self-play ``to_move`` (str
    ``(N,)``) and ``current_player`` (int64 ``(N,)``, 0 White, 1 Black); when any game has
    ended, ``winner`` (str ``(N,)``, "" where the game goes on) and ``points`` (int64 ``(N,)``)
    with Gymnasium's masks ``_winner``/``_points`` marking the games that ended.

    ## Arguments

    - ``num_envs``: N >= 1.
    - ``opponent``: as ``bgrl/Backgammon-v0`` (``"random"``, ``"pubeval"``, ``"default"``, a
      checkpoint path, or any object with ``select(after_states, rng)``); it is called once per
      round for all games where it is on roll, with the env's ``np_random``. Ignored in self-play.
    - ``agent_color``: ``"white"``, ``"black"`` or ``"alternate"`` (per game and episode, as the
      single env); ``reset(options={"agent_color": ...})`` overrides it for one episode.
    - ``self_play``: bool (default False).
    - ``encoder``: feature encoding name (default :data:`bgrl.evaluation.encoding.ENCODER`).
    - ``notation``: fill ``legal_plays`` (lazily; default True).
    - ``action_mode``: ``"play"`` (default, above) or ``"checker"``: one checker, one die per
      game and step (:mod:`bgrl.env.checker`): ``single_action_space = Discrete(156)``, masks
      ``(N, 156)``, the dice left per face as the observation's last 6 units, ``info["dice_left"]``;
      a game's opponent (or other side) moves once its roll is used up.

    ``reset(options={"position": ..., "dice": ...})`` starts games from a chosen position and
    roll: one value for all games or a list of N (None: as usual); the agent (self-play: White)
    is on roll there (:mod:`bgrl.env.state`). ``clone_state`` / ``restore_state`` copy the N games.

    ## Seeding

    ``reset(seed=s)`` gives game ``i`` the dice stream of a single env reset with seed ``s + i``
    (a list of N seeds gives each game its own). With a deterministic opponent (pubeval, a network
    without noise) or in self-play, game ``i`` is then the same game as that single env's, step
    for step; a random opponent draws from the vector env's ``np_random`` instead.

    ## Version History

    - v0: initial version.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 16,
        opponent="default",
        agent_color: str = "alternate",
        self_play: bool = False,
        encoder: str = ENCODER,
        notation: bool = True,
        render_mode: str | None = None,
        action_mode: str = "play",
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"the vector env has no render modes (render the single env instead), got {render_mode!r}")
        self.num_envs = n = int(num_envs)
        self.self_play = bool(self_play)
        self.encoder = encoder
        self.notation = bool(notation)
        self.agent_color = colour_arg(agent_color)
        self.opponent = None if self.self_play else load_opponent(opponent)
        self.action_mode = check_action_mode(action_mode)
        low, high = feature_bounds(encoder)
        self._checker = CheckerTurns(n) if self.action_mode == "checker" else None
        if self._checker is not None:  # one checker, one die per step; the dice left in the observation
            low = np.concatenate([low, np.zeros(DICE_FEATURES, np.float32)])
            high = np.concatenate([high, np.full(DICE_FEATURES, 4, np.float32)])
        self.single_observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(MAX_PLAYS if self._checker is None else CHECKER_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.render_mode = None
        # game state, one row per game; boards from the side on roll (the winner's at the end)
        self._boards = np.repeat(START_BOARD[None], n, axis=0)
        self._white = np.ones(n, dtype=bool)  # White on roll
        self._agent_white = np.ones(n, dtype=bool)
        self._over = np.zeros(n, dtype=bool)
        self._points = np.zeros(n, dtype=np.int64)
        self._episodes = np.zeros(n, dtype=np.int64)
        self._keys: np.ndarray | None = None  # uint64 dice-stream keys
        self._counts = np.zeros(n, dtype=np.uint64)  # rolls taken per stream
        self._dice = np.zeros((n, 2), dtype=np.int8)
        self._dice_used = np.zeros(n, dtype=np.int8)
        self._turn_boards = np.zeros((0, 26), dtype=np.int8)  # legal after-states, grouped by game
        self._turn_parent = np.zeros(0, dtype=np.int64)
        self._offsets = np.zeros(n + 1, dtype=np.int64)
        self._autoreset = np.zeros(n, dtype=bool)
        self._forced = np.zeros((n, 2), dtype=np.int8)  # a game's next roll set by reset(options={"dice": ...})
        self._started = False

    # ------------------------------------------------------------------ seeding and resets
    def _seed_streams(self, seed, games: np.ndarray) -> None:
        n = self.num_envs
        if seed is None:
            if self._keys is None:  # first, unseeded reset: streams from gymnasium's random seeding
                base = int(self.np_random.integers(2**63))
                self._keys = seed_keys(np.uint64(base) + np.arange(n, dtype=np.uint64))
            return
        if isinstance(seed, (list, tuple, np.ndarray)):
            seeds = list(seed)
            if len(seeds) != n or not all(isinstance(s, (int, np.integer)) and s >= 0 for s in seeds):
                raise ValueError(f"seed must be an int >= 0 or a list of {n} ints >= 0, got {seed!r}")
            keys = seed_keys(np.array([int(s) % 2**64 for s in seeds], dtype=np.uint64))
        else:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be an int >= 0 or a list of {n} ints >= 0, got {seed!r}")
            with np.errstate(over="ignore"):
                keys = seed_keys(np.uint64(int(seed) % 2**64) + np.arange(n, dtype=np.uint64))
        if self._keys is None:
            self._keys = keys
        else:
            self._keys[games] = keys[games]
        self._counts[games] = 0
        self._episodes[games] = 0  # a seeded reset restarts the colour alternation

    def _new_games(self, games: np.ndarray, colour: str) -> None:
        self._boards[games] = START_BOARD
        self._white[games] = True
        self._over[games] = False
        self._points[games] = 0
        if colour == "alternate":
            self._agent_white[games] = self._episodes[games] % 2 == 0
        else:
            self._agent_white[games] = colour == WHITE
        self._episodes[games] += 1

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Start new games (all, or those of ``options["reset_mask"]``) and return ``(obs, info)``.

        ``seed``: int ``s`` (game ``i`` gets the stream of seed ``s + i``) or a list of N ints.
        ``options``: ``"agent_color"`` (one episode's colour), ``"reset_mask"`` (bool ``(N,)``).
        Raises ValueError for a bad seed, colour or mask.
        """
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict or None, got {type(options).__name__} {options!r:.60}")
        opts = dict(options or {})
        mask = opts.pop("reset_mask", None)
        colour = colour_arg(opts.pop("agent_color", self.agent_color))
        n = self.num_envs
        boards, rolls = reset_positions(opts, n)
        opts.pop("position", None), opts.pop("dice", None)
        if opts:
            raise ValueError(f"unknown reset option(s) {sorted(opts)}; expected 'agent_color', 'reset_mask', 'position', 'dice'")
        if mask is None:
            games = np.arange(n)
        else:
            m = np.asarray(mask)
            if m.shape != (n,) or m.dtype != np.bool_ or not m.any():
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},) with a True, got {mask!r}")
            if not self._started and not m.all():
                raise ValueError("the first reset must reset every game (omit reset_mask)")
            games = np.flatnonzero(m)
        base_seed = seed[0] if isinstance(seed, (list, tuple, np.ndarray)) and len(seed) else seed
        super().reset(seed=None if base_seed is None else int(base_seed))
        self._seed_streams(seed, games)
        self._new_games(games, colour)
        for g in games:  # chosen positions (the agent, or White in self-play, on roll) and first rolls
            if boards[g] is not None:
                self._boards[g] = boards[g]
                self._white[g] = True if self.self_play else self._agent_white[g]
            if rolls[g] is not None:
                self._forced[g] = rolls[g]
        self._advance(games)  # cannot end a game from the start
        self._start_turns(games)
        self._autoreset[games] = False
        self._started = True
        return self._obs(), self._info()

    # ------------------------------------------------------------------ stepping
    def _check_actions(self, actions) -> np.ndarray:
        if not self._started:
            from bgrl.env.backgammon import ResetNeeded

            raise ResetNeeded("call reset() before the first step()")
        n = self.num_envs
        a = np.asarray(actions)
        if a.shape != (n,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array of shape ({n},), got shape {a.shape} dtype {a.dtype}")
        a = a.astype(np.int64)
        if self._checker is not None:
            bad = ((a < 0) | (a >= CHECKER_ACTIONS)) & ~self._autoreset
            bad |= ~self._checker.mask[np.arange(n), np.clip(a, 0, CHECKER_ACTIONS - 1)] & ~self._autoreset
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"game {i}: {self._checker.illegal(i, int(a[i]))}; {int(bad.sum())} game(s) had an "
                                 "illegal action, none was played")
            return a
        counts = np.diff(self._offsets)
        bad = ((a < 0) | (a >= counts)) & ~self._autoreset
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"illegal action {int(a[i])} for game {i}: its roll {tuple(int(x) for x in self._dice[i])} has "
                f"{int(counts[i])} legal plays, so the action must be 0..{int(counts[i]) - 1} "
                f"(info['action_mask'][{i}] marks them); {int(bad.sum())} game(s) had an illegal action, none was played"
            )
        return a

    def step(self, actions):
        """Play one action per game; returns ``(obs, rewards, terminated, truncated, info)``.

        actions : int array ``(N,)``. Raises ValueError (wrong shape/dtype, or an action outside a
        game's mask, naming the first such game; no game is changed) and RuntimeError before reset.
        """
        a = self._check_actions(actions)
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        play = ~self._autoreset
        gi = np.flatnonzero(play)
        if self._checker is not None:  # one checker each; the games whose roll is used up play on
            gi = gi[self._checker.apply(gi, a[gi])]
            chosen = self._checker.boards[gi].copy()
        else:
            chosen = self._turn_boards[self._offsets[gi] + a[gi]]
        res = game_results(chosen)
        end = res > 0
        if end.any():
            ge = gi[end]
            self._boards[ge] = chosen[end]  # the winner's view; the winner stays "on roll"
            self._over[ge] = True
            self._points[ge] = res[end]
            rewards[ge] = res[end]
            terminated[ge] = True
            gc, cont = gi[~end], chosen[~end]
        else:
            gc, cont = gi, chosen
        self._boards[gc] = flip(cont)
        self._white[gc] = ~self._white[gc]
        resets = np.flatnonzero(self._autoreset)
        if resets.size:
            self._new_games(resets, self.agent_color)
            adv = np.sort(np.concatenate([gc, resets]))
        else:
            adv = gc
        lost = self._advance(adv)
        self._start_turns(adv)
        if lost is not None:
            rewards -= lost
            terminated |= lost > 0
        self._autoreset = terminated.copy()
        return self._obs(), rewards, terminated, np.zeros(n, dtype=bool), self._info()

    def _advance(self, games: np.ndarray) -> np.ndarray | None:
        """Roll for ``games`` (sorted) until each has a playable roll for the agent or has ended.

        Stores the new turns; returns the points the opponent won per game (float64 (N,)), or
        None when no game ended on an opponent's play."""
        n = self.num_envs
        lost = None
        chunks: list[tuple[np.ndarray, np.ndarray]] = []
        pending = games
        for _ in range(_MAX_ROUNDS):
            if pending.size == 0:
                break
            dice = roll_dice(self._keys[pending], self._counts[pending])
            self._counts[pending] += np.uint64(1)
            forced = self._forced[pending, 0] > 0
            if forced.any():  # a roll set by reset(options={"dice": ...}): the stream waits
                gf = pending[forced]
                dice[forced] = self._forced[gf]
                self._counts[gf] -= np.uint64(1)
                self._forced[gf] = 0
            after = generate(self._boards[pending], dice, validate=False)
            playable = after.dice_used > 0
            if self.self_play:
                settle = playable
            else:
                settle = playable & (self._white[pending] == self._agent_white[pending])
            if settle.all():
                chunks.append((after.boards, pending[after.parent]))
            elif settle.any():
                rows = settle[after.parent]
                chunks.append((after.boards[rows], pending[after.parent[rows]]))
            gs = pending[settle]
            ds = dice[settle]
            self._dice[gs, 0] = ds.max(axis=1)  # shown high die first, as the single envs
            self._dice[gs, 1] = ds.min(axis=1)
            self._dice_used[gs] = after.dice_used[settle]
            nxt = []
            if not playable.all():  # passes: the other side rolls next
                gp = pending[~playable]
                self._boards[gp] = flip(self._boards[gp])
                self._white[gp] = ~self._white[gp]
                nxt.append(gp)
            opp = playable & ~settle
            if opp.any():
                sub = after if opp.all() else take_positions(after, opp)
                chosen = sub.boards[np.asarray(self.opponent.select(sub, self.np_random), dtype=np.int64)]
                og = pending[opp]
                res = game_results(chosen)
                end = res > 0
                if end.any():
                    ge = og[end]
                    self._boards[ge] = chosen[end]
                    self._over[ge] = True
                    self._points[ge] = res[end]
                    if lost is None:
                        lost = np.zeros(n, dtype=np.float64)
                    lost[ge] = res[end]
                    og, chosen = og[~end], chosen[~end]
                self._boards[og] = flip(chosen)
                self._white[og] = ~self._white[og]
                nxt.append(og)
            if not nxt:
                break
            pending = nxt[0] if len(nxt) == 1 else np.sort(np.concatenate(nxt))
        else:  # pragma: no cover - cannot happen from the starting position
            raise RuntimeError("no side could move for 1000 consecutive rolls")
        self._dice[self._over] = 0
        self._dice_used[self._over] = 0
        self._store(games, chunks)
        return lost

    def _store(self, games: np.ndarray, chunks: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Replace the legal after-states of ``games`` by ``chunks`` ((boards, game ids) pairs)."""
        n = self.num_envs
        if games.size < n:  # keep the other games' turns (not those that have just ended)
            redo = self._over.copy()
            redo[games] = True
            keep = ~redo[self._turn_parent]
            chunks = [(self._turn_boards[keep], self._turn_parent[keep])] + chunks
        else:
            chunks = list(chunks)
        # games that ended keep no after-states
        if len(chunks) == 1:
            boards, parent = chunks[0]
        elif chunks:
            boards = np.concatenate([c[0] for c in chunks])
            parent = np.concatenate([c[1] for c in chunks])
            order = np.argsort(parent, kind="stable")
            boards, parent = boards[order], parent[order]
        else:
            boards, parent = np.zeros((0, 26), dtype=np.int8), np.zeros(0, dtype=np.int64)
        boards.flags.writeable = False  # shared with info["after_states"] and after_states()
        self._turn_boards, self._turn_parent = boards, parent
        np.cumsum(np.bincount(parent, minlength=n), out=self._offsets[1:])

    def _start_turns(self, games: np.ndarray) -> None:
        """Checker mode: the turns of ``games`` whose game goes on begin (their first steps)."""
        if self._checker is None or games.size == 0:
            return
        over = self._over[games]
        self._checker.stop(games[over])
        g = games[~over]
        if g.size:
            self._checker.start(g, self._boards[g], self._dice[g], self._dice_used[g])

    # ------------------------------------------------------------------ observations and info
    def _obs_boards(self) -> np.ndarray:
        b = self._boards.copy()
        if self._checker is not None:  # mid-turn: the board after the checkers moved so far
            mid = ~self._over & self._checker.left.any(axis=1)
            b[mid] = self._checker.boards[mid]
        if self.self_play:
            return b
        # at the end the board is kept from the winner's side; show the agent's
        lost = self._over & (self._white != self._agent_white)
        if lost.any():
            b[lost] = flip(b[lost])
        return b

    def _obs(self) -> np.ndarray:
        self._last_boards = self._obs_boards()
        obs = encode(self._last_boards, self.encoder)
        return obs if self._checker is None else np.concatenate([obs, self._checker.features()], axis=1)

    def _mask(self) -> np.ndarray:
        if self._checker is not None:
            return self._checker.mask.astype(np.int8)
        n, m = self.num_envs, self._turn_parent.size
        mask = np.zeros((n, MAX_PLAYS), dtype=np.int8)
        within = np.arange(m, dtype=np.int64) - self._offsets[self._turn_parent]
        mask.reshape(-1)[self._turn_parent * MAX_PLAYS + within] = 1
        return mask

    def _info(self) -> dict[str, Any]:
        groups = AfterStateGroups(self._turn_boards, self._offsets.copy())
        dice = self._dice.copy()
        info: dict[str, Any] = {
            "dice": dice,
            "legal_plays": LegalPlayGroups(self._last_boards, dice, groups, self._dice_used.copy(), self.notation),
            "after_states": groups,
            "action_mask": self._mask(),
            "board": self._last_boards,
        }
        if self._checker is not None:
            info["dice_left"] = self._checker.left.astype(np.int64)
        if self.self_play:
            info["to_move"] = np.where(self._white, WHITE, BLACK)
            info["current_player"] = (~self._white).astype(np.int64)
        else:
            info["agent_color"] = np.where(self._agent_white, WHITE, BLACK)
        if self._over.any():
            over = self._over.copy()
            info["winner"] = np.where(over, np.where(self._white, WHITE, BLACK), "")
            info["_winner"] = over
            info["points"] = np.where(over, self._points, 0)
            info["_points"] = over.copy()
        return info

    # ------------------------------------------------------------------ helpers
    def after_states(self) -> AfterStates:
        """The legal after-states of every game's current roll as one batch
        (:class:`bgrl.rules.movegen.AfterStates`: ``boards`` int8 (M, 26), ``offsets`` (N + 1,), ...);
        a game that has ended has an empty group. Feed it to an agent's ``select``."""
        return AfterStates(
            boards=self._turn_boards,
            parent=self._turn_parent,
            dice_used=self._dice_used.copy(),
            offsets=self._offsets.copy(),
            positions=self._boards.copy(),
            dice=self._dice.copy(),
        )

    def action_masks(self) -> np.ndarray:
        """Boolean mask (N, MAX_PLAYS) of the legal actions (MaskablePPO convention)."""
        return self._mask().astype(bool)


class BackgammonSelfPlayVectorEnv(BackgammonVectorEnv):
    """:class:`BackgammonVectorEnv` with ``self_play=True``: the vector form of
    ``bgrl/BackgammonSelfPlay-v0`` (the agent plays both sides)."""

    def __init__(self, num_envs: int = 16, encoder: str = ENCODER, notation: bool = True, render_mode: str | None = None,
                 action_mode: str = "play"):
        super().__init__(num_envs=num_envs, self_play=True, encoder=encoder, notation=notation, render_mode=render_mode,
                         action_mode=action_mode)
