"""Stable-Baselines3 / sb3-contrib ``MaskablePPO`` on ``bgrl/Backgammon-v0`` (against the random opponent).

    pip install "bgrl[examples]"
    python scripts/examples/sb3_maskable_ppo.py --total-steps 4096 --eval-games 400   (about 30 s on one core)

PPO (Schulman et al. 2017, "Proximal Policy Optimization Algorithms", arXiv:1707.06347) with
invalid-action masking (Huang & Ontañón 2022, "A Closer Look at Invalid Action Masking in
Policy Gradient Algorithms", FLAIRS-35), as sb3-contrib's ``MaskablePPO`` implements it: the
environment's ``action_masks()`` (the legal plays of the roll) is read at every step, and
the masked logits are set to a large negative number before the softmax, in collection and
in the PPO update alike.

An action of ``bgrl/Backgammon-v0`` is an index into the roll's list of legal plays (up to
2,226), whose meaning changes with the position, so a policy whose logit ``i`` is a fixed
output unit learns nothing it can reuse (``MlpPolicy`` on the plain observation stays at a
random policy's win rate). Here the logit of play ``i`` is a score of the board that play
leaves (an *after-state* policy: ``logit_i = f(after_state_i)``, one small network shared
by all plays):

- :class:`AfterStateObservation` (a Gymnasium wrapper) makes the observation an int8
  ``(MAX_PLAYS + 1, 26)`` array: row 0 the board before the play, rows ``1 .. k`` the
  ``k`` legal after-states in the order of the actions, the other rows zero. The action
  space and ``action_masks()`` are the environment's.
- :class:`AfterStatePolicy` (a ``MaskableActorCriticPolicy``) turns each board into
  Tesauro's point units (:data:`bgrl.evaluation.encoding.POINT_UNITS`) in torch, scores
  every after-state with a shared MLP (the actor) and the board before the play with
  another (the critic).

Training runs on :class:`bgrl.env.sb3.BackgammonSB3VecEnv` (an SB3 ``VecEnv`` over the native
vector env, ``--envs`` games stepped as arrays) with ``observation="after_states"``, which gives
:class:`AfterStateObservation`'s observations for all games at once; ``make_env()`` is the
single-env form of the same thing.

The score layer starts at zero, so the untrained policy *is* the uniform random policy over
the legal plays: whatever the trained (sampling) policy wins beyond a random policy, PPO
taught it. At the end three players each play ``--eval-games`` games against random on the
same dice (``bgrl/BackgammonVector-v0``, batched ``model.predict(obs, action_masks=...)``):
a uniformly random policy, the trained policy sampling its actions, and the trained policy
greedy (``deterministic=True``). The greedy one is the strongest, but even an untrained
*non-zero* scoring network is a consistent player that beats random, so the sampling policy
is the one that shows learning.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from bgrl.env.backgammon import MAX_PLAYS
from bgrl.env.sb3 import after_state_observations
from bgrl.evaluation.encoding import POINT_UNITS

ROWS = MAX_PLAYS + 1  # row 0: the board before the play; rows 1..k: the legal after-states


class AfterStateObservation(gym.Wrapper):
    """Observation: int8 ``(MAX_PLAYS + 1, 26)``, row 0 the agent's board (``info["board"]``),
    row ``1 + i`` the after-state of action ``i`` (``env.unwrapped.after_states()``), zero rows
    after the last legal play. Boards are bgrl's (:mod:`bgrl.rules.board`): the mover's
    checkers positive, the opponent's negative, from the agent's side."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = spaces.Box(low=-15, high=15, shape=(ROWS, 26), dtype=np.int8)

    def _observe(self, info) -> np.ndarray:
        obs = np.zeros((ROWS, 26), dtype=np.int8)
        obs[0] = info["board"]
        after = self.env.unwrapped.after_states()
        obs[1 : 1 + after.shape[0]] = after
        return obs

    def reset(self, **kwargs):
        _, info = self.env.reset(**kwargs)
        return self._observe(info), info

    def step(self, action):
        _, reward, terminated, truncated, info = self.env.step(action)
        return self._observe(info), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """bool ``(MAX_PLAYS,)``: the legal plays of the roll (sb3-contrib reads this each step)."""
        return self.env.unwrapped.action_masks()


def point_units(boards: torch.Tensor) -> torch.Tensor:
    """Tesauro's units of boards ``(..., 26)`` (any real dtype holding checker counts): float32
    ``(..., 196)``: 4 units per point for the mover's checkers, then for the opponent's (both
    in the mover's numbering), bar / 2 and borne-off / 15 for each side."""
    table = torch.tensor(POINT_UNITS, device=boards.device)
    b = boards.long()
    mine, theirs = b[..., 1:25].clamp(0, 15), (-b[..., 1:25]).clamp(0, 15)
    my_bar, their_bar = b[..., 25:26].clamp(min=0), (-b[..., 0:1]).clamp(min=0)
    my_off = 15 - mine.sum(-1, keepdim=True) - my_bar
    their_off = 15 - theirs.sum(-1, keepdim=True) - their_bar
    return torch.cat(
        [table[mine].flatten(-2), table[theirs].flatten(-2), my_bar / 2, their_bar / 2, my_off / 15, their_off / 15], -1
    ).float()


class _Boards(BaseFeaturesExtractor):
    """The observation as it is (float ``(B, MAX_PLAYS + 1, 26)``); :class:`_AfterStateHeads` reads it."""

    def __init__(self, observation_space: spaces.Box):
        super().__init__(observation_space, features_dim=26)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations


class _AfterStateHeads(nn.Module):
    """SB3's ``mlp_extractor`` slot: actor latent = one score per after-state (``(B, MAX_PLAYS)``,
    0 for the padding rows, which the mask removes), critic latent = ``(B, hidden)`` of the board
    before the play."""

    def __init__(self, hidden: int):
        super().__init__()
        self.latent_dim_pi, self.latent_dim_vf = MAX_PLAYS, hidden
        self.score = nn.Sequential(nn.Linear(196, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.critic = nn.Sequential(nn.Linear(196, hidden), nn.Tanh())
        # zero scores at the start: the untrained policy is exactly the uniform random policy
        # over the legal plays, so whatever the sampling policy wins beyond it, PPO taught it
        nn.init.zeros_(self.score[-1].weight)
        nn.init.zeros_(self.score[-1].bias)

    def forward_actor(self, boards: torch.Tensor) -> torch.Tensor:
        after = boards[:, 1:]
        live = after.abs().sum(-1) > 0  # every real board has the opponent's checkers on it
        scores = torch.zeros(after.shape[:2], dtype=torch.float32, device=boards.device)
        scores[live] = self.score(point_units(after[live]))[:, 0]  # only the legal rows are scored
        return scores

    def forward_critic(self, boards: torch.Tensor) -> torch.Tensor:
        return self.critic(point_units(boards[:, 0]))

    def forward(self, boards: torch.Tensor):
        return self.forward_actor(boards), self.forward_critic(boards)


class _ScoreBoards(nn.Module):
    """The actor's score of after-state boards ``(M, 26)`` (the greedy policy's logits)."""

    def __init__(self, score: nn.Module):
        super().__init__()
        self.score = score

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        return self.score(point_units(boards))[:, 0]


class AfterStatePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose logit ``i`` is a shared network's score of after-state
    ``i`` (``action_net`` is the identity on the scores); ``value_net`` reads the critic latent.
    ``hidden``: units of each head (default 64)."""

    def __init__(self, *args, hidden: int = 64, **kwargs):
        self._hidden = hidden
        kwargs.setdefault("features_extractor_class", _Boards)
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        self.mlp_extractor = _AfterStateHeads(self._hidden)
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self._hidden, 1)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def make_env() -> AfterStateObservation:
    """``bgrl/Backgammon-v0`` against ``random``, the agent alternating colours, no notation."""
    return AfterStateObservation(gym.make("bgrl/Backgammon-v0", opponent="random", notation=False).unwrapped)


def make_venv(envs: int = 1):
    """``envs`` games of ``bgrl/Backgammon-v0`` against ``random`` as one SB3 ``VecEnv``
    (:class:`bgrl.env.sb3.BackgammonSB3VecEnv` over the native vector env) whose observations are
    :class:`AfterStateObservation`'s, batched (``observation="after_states"``)."""
    from bgrl.env.sb3 import BackgammonSB3VecEnv

    return BackgammonSB3VecEnv(envs, opponent="random", observation="after_states")


def train(args) -> MaskablePPO:
    env = make_venv(args.envs)
    model = MaskablePPO(
        AfterStatePolicy,
        env,
        learning_rate=args.learning_rate,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=1.0,  # every game ends; the reward is the game's points at the end
        gae_lambda=args.gae_lambda,
        ent_coef=0.0,
        policy_kwargs={"hidden": args.hidden},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.total_steps)
    if args.verbose:
        print(f"  {model.num_timesteps} agent decisions, {time.perf_counter() - t0:.0f} s")
    return model


def observe_batch(info) -> tuple[np.ndarray, np.ndarray]:
    """The vector env's ``info`` as :class:`AfterStateObservation` observations, int8
    ``(N, MAX_PLAYS + 1, 26)``, and the bool ``(N, MAX_PLAYS)`` action masks (a game waiting
    for its autoreset, with no legal play, gets action 0 unmasked; the env ignores its action)."""
    obs = after_state_observations(info)  # the SB3 vector env's own observations
    counts = np.diff(np.asarray(info["after_states"].offsets))
    masks = np.asarray(info["action_mask"]).astype(bool)
    masks[counts == 0, 0] = True
    return obs, masks


def evaluate(choose, games: int, seed: int, num_envs: int = 50) -> np.ndarray:
    """Points per game of ``choose(obs, masks, rng) -> actions`` (batched, as :func:`observe_batch`
    gives them) against random, over the first ``games`` games to end on
    ``bgrl/BackgammonVector-v0`` reset with ``seed`` (game ``i`` rolls the dice of a single env
    seeded ``seed + i``, so every policy gets the same dice); colours alternate."""
    envs = gym.make_vec("bgrl/BackgammonVector-v0", num_envs=min(games, num_envs), opponent="random", notation=False)
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    results: list[float] = []
    while len(results) < games:
        obs, masks = observe_batch(info)
        _, reward, term, trunc, info = envs.step(choose(obs, masks, rng))
        results.extend(reward[term].tolist())
    envs.close()
    return np.array(results[:games])


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=20480, help="agent decisions to train on (default: %(default)s)")
    p.add_argument("--envs", type=int, default=1, help="games stepped together in the SB3 VecEnv (default: %(default)s)")
    p.add_argument("--n-steps", type=int, default=512, help="decisions per game per PPO rollout (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=128, help="PPO minibatch (default: %(default)s)")
    p.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per rollout (default: %(default)s)")
    p.add_argument("--learning-rate", type=float, default=3e-3, help="Adam step size (default: %(default)s)")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda (default: %(default)s)")
    p.add_argument("--hidden", type=int, default=64, help="units of the actor and critic heads (default: %(default)s)")
    p.add_argument("--eval-games", type=int, default=400, help="evaluation games against random (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    p.add_argument("--verbose", action="store_true", help="print training time")
    p.add_argument("--save", default=None, help="save the after-state score head (greedy policy) as a scorer "
                   "(bgrl.agents.afterstate)")
    args = p.parse_args(argv)
    if min(args.total_steps, args.envs, args.n_steps, args.batch_size, args.n_epochs, args.hidden) < 1 or args.eval_games < 2:
        p.error("--total-steps, --envs, --n-steps, --batch-size, --n-epochs and --hidden must be >= 1, --eval-games >= 2")
    return args


def main(argv=None) -> dict:
    args = parse(argv)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    model = train(args)
    if args.save:
        from bgrl.agents.afterstate import save_scorer

        save_scorer(_ScoreBoards(model.policy.mlp_extractor.score), args.save, "boards", torch.zeros(2, 26),
                    note="sb3_maskable_ppo.py")

    def policy(deterministic: bool):
        def choose(obs, masks, rng):
            return model.predict(obs, action_masks=masks, deterministic=deterministic)[0].astype(np.int64)

        return choose

    def uniform(obs, masks, rng):
        return (rng.random(masks.shape[0]) * masks.sum(1)).astype(np.int64)  # the legal plays are a prefix

    seed = args.seed + 10_000
    out = {}
    torch.manual_seed(args.seed)  # the sampling policy's draws
    players = (("random policy", uniform), ("MaskablePPO", policy(False)), ("MaskablePPO greedy", policy(True)))
    for name, choose in players:
        pts = evaluate(choose, args.eval_games, seed)
        half = 1.96 * pts.std(ddof=1) / math.sqrt(len(pts))
        out[name] = {"win_rate": float((pts > 0).mean()), "ppg": float(pts.mean()), "ci95": half, "games": len(pts)}
        print(f"{name:18s} vs random: win rate {(pts > 0).mean():6.1%}   points per game {pts.mean():+.3f} (95% CI +-{half:.3f})")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return out


if __name__ == "__main__":
    main()
