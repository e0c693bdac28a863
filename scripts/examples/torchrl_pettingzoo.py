"""TorchRL on bgrl's PettingZoo environment: self-play TD(0) of one after-state value network.

    pip install "bgrl[examples]"
    python scripts/examples/torchrl_pettingzoo.py --total-steps 3000 --eval-games 400

TorchRL (Bou et al. 2024, "TorchRL: A data-driven decision-making library for PyTorch",
ICLR) runs the environment and holds the data: ``PettingZooWrapper`` turns the AEC env
(:class:`bgrl.env.pettingzoo.BackgammonAECEnv` with ``infos="arrays"``, whose infos have a
fixed shape, as TorchRL's specs need) into a TorchRL environment of two groups, ``white``
and ``black``, each with its ``action_mask`` and a ``mask`` telling which agent acts; the
transitions go into a TorchRL ``ReplayBuffer`` of TensorDicts (``LazyTensorStorage``); the
value network is a ``tensordict.nn.TensorDictModule``.

Both agents share the network (self-play). An agent on roll reads its board and dice from
its ``info``, lists its legal plays with the engine's generator (:func:`bgrl.rules.movegen.generate`,
the env's action order), and picks the play whose after-state the network values most
(uniformly random with probability epsilon). Each agent's transitions link its own
successive plays: (after-state chosen, reward, done, its next after-state); the target is
``r + v(next)`` (TD(0), Sutton 1988, "Learning to predict by the methods of temporal
differences", Machine Learning 3), the reward the agent's points at the end (+-1/2/3).

At the end the trained network (greedy) plays ``--eval-games`` paired-dice games
(:func:`bgrl.arena.duel.play_match`) against random and against its own initial weights;
the initial network also plays random. Greedy play of an untrained network already beats
random (any fixed valuation is a consistent player), so the match against the initial
weights is the one that shows learning.
"""

from __future__ import annotations

import argparse
import copy
import time
import warnings

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.data import LazyTensorStorage, ReplayBuffer
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import step_mdp

from bgrl.agents.base import Agent, RandomAgent, group_argmax
from bgrl.arena.duel import play_match
from bgrl.env.pettingzoo import BackgammonAECEnv
from bgrl.evaluation.encoding import encode, num_features
from bgrl.rules.board import flip
from bgrl.rules.movegen import generate

AGENTS = ("white", "black")


def make_env(seed: int) -> PettingZooWrapper:
    """The AEC env under TorchRL: one group per agent, masks on, categorical actions."""
    with warnings.catch_warnings():  # TorchRL notes the PettingZoo version it was tested with
        warnings.simplefilter("ignore", UserWarning)
        return PettingZooWrapper(
            env=BackgammonAECEnv(infos="arrays"), use_mask=True, categorical_actions=True, seed=seed, done_on_any=True
        )


def make_value_net(seed: int, hidden: int) -> TensorDictModule:
    """``v(x)``: encoded after-state (float32 ``(..., 202)``, the opponent on roll) -> ``(..., 1)``."""
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(num_features(), hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
    return TensorDictModule(net, in_keys=["x"], out_keys=["v"])


def features(boards: np.ndarray) -> torch.Tensor:
    """After-states int8 ``(M, 26)`` (mover's view) as the network's input: encoded from the
    opponent's side, who is on roll next."""
    return torch.from_numpy(encode(flip(boards)))


def values(value_net: TensorDictModule, boards: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return value_net.module(features(boards))[:, 0].double().numpy()


class ValueAgent(Agent):
    """The network as a bgrl agent (``select``): the play of highest value, for the arena."""

    def __init__(self, value_net: TensorDictModule, name: str):
        self.value_net, self.name = value_net, name

    def select(self, after, rng):
        return group_argmax(values(self.value_net, after.boards), after.offsets)


def choose(value_net, td: TensorDict, agent: str, rng: np.random.Generator, epsilon: float):
    """The acting ``agent``'s play from its info (board, dice): (action index, after-state int8 (26,))."""
    board = td[agent, "info", "board"][0].numpy().astype(np.int8)
    dice = td[agent, "info", "dice"][0].numpy().astype(np.int8)
    after = generate(board[None], dice[None]).boards  # the env's action order
    n_legal = int(td[agent, "action_mask"][0].sum())
    if after.shape[0] != n_legal:
        raise RuntimeError(f"{after.shape[0]} generated plays but the mask allows {n_legal}")
    k = int(rng.integers(after.shape[0])) if rng.random() < epsilon else int(np.argmax(values(value_net, after)))
    return k, after[k]


def train(args):
    rng = np.random.default_rng(args.seed)
    env = make_env(args.seed)
    value_net = make_value_net(args.seed, args.hidden)
    initial = copy.deepcopy(value_net)
    opt = torch.optim.Adam(value_net.parameters(), lr=args.learning_rate)
    buffer = ReplayBuffer(storage=LazyTensorStorage(args.buffer_size), batch_size=args.batch_size)

    def store(x: list, r: list, done: list, x_next: list):
        buffer.extend(
            TensorDict(
                {
                    "x": features(np.stack(x)),
                    "reward": torch.tensor(r, dtype=torch.float32),
                    "done": torch.tensor(done, dtype=torch.float32),
                    "x_next": features(np.stack(x_next)),
                },
                batch_size=[len(x)],
            )
        )

    td = env.reset()
    prev: dict[str, np.ndarray | None] = {a: None for a in AGENTS}
    steps = games = 0
    t0 = time.perf_counter()
    while steps < args.total_steps:
        eps = max(args.end_e, args.start_e - (args.start_e - args.end_e) * steps / (args.exploration_fraction * args.total_steps))
        agent = next(a for a in AGENTS if bool(td[a, "mask"][0]))
        k, chosen = choose(value_net, td, agent, rng, eps)
        if prev[agent] is not None:
            store([prev[agent]], [0.0], [0.0], [chosen])
        prev[agent] = chosen
        for a in AGENTS:
            td[a, "action"] = torch.tensor([k if a == agent else 0])  # only the acting agent's is read
        td = env.step(td)
        steps += 1
        if bool(td["next", "done"].any()):
            for a in AGENTS:
                if prev[a] is not None:  # the game's last transition of each agent
                    store([prev[a]], [float(td["next", a, "reward"].item())], [1.0], [prev[a]])
            prev = {a: None for a in AGENTS}
            games += 1
            td = env.reset()
        else:
            td = step_mdp(td)
        if len(buffer) >= args.learning_starts:
            batch = buffer.sample()
            with torch.no_grad():
                target = batch["reward"] + (1.0 - batch["done"]) * value_net.module(batch["x_next"])[:, 0]
            value_net(batch)
            loss = torch.nn.functional.mse_loss(batch["v"][:, 0], target)
            opt.zero_grad()
            loss.backward()
            opt.step()
    if args.verbose:
        print(f"  {steps} plays, {games} games, {time.perf_counter() - t0:.0f} s")
    return value_net, initial


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=20000, help="plays (both agents) to train on (default: %(default)s)")
    p.add_argument("--hidden", type=int, default=40, help="hidden units (default: %(default)s)")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam step size (default: %(default)s)")
    p.add_argument("--buffer-size", type=int, default=20000, help="replay buffer size (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=64, help="replay batch (default: %(default)s)")
    p.add_argument("--learning-starts", type=int, default=256, help="transitions before learning (default: %(default)s)")
    p.add_argument("--start-e", type=float, default=0.3, help="initial epsilon (default: %(default)s)")
    p.add_argument("--end-e", type=float, default=0.02, help="final epsilon (default: %(default)s)")
    p.add_argument("--exploration-fraction", type=float, default=0.5, help="share of training to decay epsilon (default: %(default)s)")
    p.add_argument("--eval-games", type=int, default=400, help="evaluation games per match (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    p.add_argument("--verbose", action="store_true", help="print training time")
    p.add_argument("--save", default=None, help="save the value network as an after-state scorer (bgrl.agents.afterstate)")
    args = p.parse_args(argv)
    if min(args.total_steps, args.hidden, args.batch_size, args.buffer_size) < 1 or args.eval_games < 2:
        p.error("--total-steps, --hidden, --batch-size and --buffer-size must be >= 1, --eval-games >= 2")
    return args


def main(argv=None) -> dict:
    args = parse(argv)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    value_net, initial = train(args)
    if args.save:
        from bgrl.agents.afterstate import save_scorer

        save_scorer(value_net.module, args.save, "encoded-opponent-on-roll", torch.zeros(2, num_features()),
                    note="torchrl_pettingzoo.py")
    trained, untrained = ValueAgent(value_net, "trained"), ValueAgent(initial, "initial")
    out = {}
    seed = args.seed + 10_000
    for name, a, b in (
        ("initial vs random", untrained, RandomAgent()),
        ("trained vs random", trained, RandomAgent()),
        ("trained vs initial", trained, untrained),
    ):
        r = play_match(a, b, args.eval_games, seed=seed)
        out[name] = {"win_rate": r.win_rate, "ppg": r.ppg, "ci95": r.ci95, "games": r.games}
        print(f"{name:19s}: win rate {r.win_rate:6.1%}   points per game {r.ppg:+.3f} (95% CI +-{r.ci95:.3f})")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return out


if __name__ == "__main__":
    main()
