"""CleanRL-style single-file DQN on ``bgrl/BackgammonVector-v0`` (against the built-in random opponent).

    python scripts/examples/dqn_vector.py --total-steps 4000 --num-envs 32 --eval-games 400

Written only against the Gymnasium vector API (``gym.make_vec``, ``info["after_states"]``,
``info["action_mask"]``), in the manner of CleanRL's single-file scripts (Huang et al. 2022,
"CleanRL: High-quality Single-file Implementations of Deep Reinforcement Learning
Algorithms", JMLR 23(274)): one file, the hyper-parameters as flags, a replay buffer, a target
network and epsilon-greedy exploration (Mnih et al. 2015, "Human-level control through deep
reinforcement learning", Nature 518).

Backgammon's actions are indices into each roll's list of legal plays (up to 2,226), whose
meaning changes with the position; so ``Q(s, a)`` is computed from the board that play ``a``
leaves (an *after-state* Q network: ``Q(s, a) = q(encode(after-state))``), which lets one small
network score every legal play. The agent picks the legal play of highest Q (random with
probability epsilon, decayed linearly). A transition is (after-state chosen, reward, done,
after-state chosen at the agent's next turn); the target is ``r + gamma * q_target(next)``
(the next play is chosen by the behaviour network when collected, so this is the SARSA-like
"expected" form of the DQN target for after-states). The reward is the agent's points at the
end of a game (+-1/2/3).

At the end the greedy agent plays ``--eval-games`` games against random, as does a uniformly
random policy on the same dice, and the script prints both win rates.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np
import torch

import bgrl.env  # noqa: F401  (registers the environments)
from bgrl.agents.base import group_argmax
from bgrl.evaluation.encoding import encode
from bgrl.rules.board import flip


def q_values(net, boards: np.ndarray) -> np.ndarray:
    """Q of every after-state (float64 (M,)): the net sees the board with the opponent on roll."""
    if boards.shape[0] == 0:
        return np.zeros(0)
    with torch.no_grad():
        return net(torch.from_numpy(encode(flip(boards))))[:, 0].double().numpy()


def act(net, info, rng, epsilon: float):
    """Action per game (index into its legal plays; 0 where the game is being reset) and the
    chosen after-state board (int8 (N, 26)); exploration picks uniformly among the legal plays."""
    groups = info["after_states"]
    offsets = np.asarray(groups.offsets)
    counts = np.diff(offsets)
    n = counts.size
    actions = np.zeros(n, dtype=np.int64)
    chosen = np.zeros((n, 26), dtype=np.int8)
    live = counts > 0
    if live.any():
        live_off = np.concatenate([[0], np.cumsum(counts[live])])
        best = group_argmax(q_values(net, groups.boards), live_off) - live_off[:-1]
        explore = rng.random(best.size) < epsilon
        best[explore] = (rng.random(int(explore.sum())) * counts[live][explore]).astype(np.int64)
        actions[live] = best
        chosen[live] = groups.boards[offsets[:-1][live] + best]
    return actions, chosen, live


def make_net(seed: int, hidden: int = 40) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(202, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))


def train(args) -> torch.nn.Module:
    rng = np.random.default_rng(args.seed)
    q = make_net(args.seed)
    q_target = make_net(args.seed)
    q_target.load_state_dict(q.state_dict())
    opt = torch.optim.Adam(q.parameters(), lr=args.learning_rate)
    envs = gym.make_vec("bgrl/BackgammonVector-v0", num_envs=args.num_envs, opponent="random", notation=False)
    cap = args.buffer_size
    buf_x = np.zeros((cap, 26), dtype=np.int8)
    buf_next = np.zeros((cap, 26), dtype=np.int8)
    buf_r = np.zeros(cap, dtype=np.float32)
    buf_done = np.zeros(cap, dtype=np.float32)
    size = pos = 0

    def store(x, r, done, nxt):
        nonlocal size, pos
        for i in range(x.shape[0]):
            buf_x[pos], buf_r[pos], buf_done[pos], buf_next[pos] = x[i], r[i], done[i], nxt[i]
            pos = (pos + 1) % cap
            size = min(size + 1, cap)

    _, info = envs.reset(seed=args.seed)
    prev = np.zeros((args.num_envs, 26), dtype=np.int8)
    has_prev = np.zeros(args.num_envs, dtype=bool)
    steps = games = 0
    t0 = time.perf_counter()
    while steps < args.total_steps:
        eps = max(args.end_e, args.start_e - (args.start_e - args.end_e) * steps / (args.exploration_fraction * args.total_steps))
        actions, chosen, live = act(q, info, rng, eps)
        # the transition that ends at this decision: (previous play, 0, not done, this play)
        link = live & has_prev
        if link.any():
            store(prev[link], np.zeros(int(link.sum())), np.zeros(int(link.sum())), chosen[link])
        prev[live] = chosen[live]
        has_prev[live] = True
        _, reward, term, trunc, info = envs.step(actions)
        ended = (term | trunc) & has_prev
        if ended.any():
            store(prev[ended], reward[ended], np.ones(int(ended.sum())), prev[ended])
            games += int(ended.sum())
        has_prev[term | trunc] = False
        steps += int(live.sum())
        if size >= args.batch_size and steps >= args.learning_starts:
            for _ in range(args.updates_per_step):
                idx = rng.integers(0, size, args.batch_size)
                with torch.no_grad():
                    q_next = q_target(torch.from_numpy(encode(flip(buf_next[idx]))))[:, 0]
                    y = torch.from_numpy(buf_r[idx]) + args.gamma * q_next * (1 - torch.from_numpy(buf_done[idx]))
                pred = q(torch.from_numpy(encode(flip(buf_x[idx]))))[:, 0]
                loss = torch.nn.functional.mse_loss(pred, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
        if steps // args.target_network_frequency != (steps - int(live.sum())) // args.target_network_frequency:
            q_target.load_state_dict(q.state_dict())
    if args.verbose:
        print(f"  {steps} agent decisions, {games} games, {time.perf_counter() - t0:.0f} s")
    return q


def evaluate(policy, games: int, seed: int, num_envs: int = 64) -> np.ndarray:
    """Points per game of ``policy(info, rng) -> actions`` against random over ``games`` games."""
    envs = gym.make_vec("bgrl/BackgammonVector-v0", num_envs=min(games, num_envs), opponent="random", notation=False)
    rng = np.random.default_rng(seed + 1)
    _, info = envs.reset(seed=seed)
    results: list[float] = []
    while len(results) < games:
        _, reward, term, trunc, info = envs.step(policy(info, rng))
        results.extend(reward[term].tolist())
    return np.array(results[:games])


def random_policy(info, rng) -> np.ndarray:
    counts = np.diff(np.asarray(info["after_states"].offsets))
    return (rng.random(counts.size) * np.maximum(counts, 1)).astype(np.int64)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=20000, help="agent decisions to train on (default: %(default)s)")
    p.add_argument("--num-envs", type=int, default=32, help="games in lockstep (default: %(default)s)")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam step size (default: %(default)s)")
    p.add_argument("--buffer-size", type=int, default=20000, help="replay buffer size (default: %(default)s)")
    p.add_argument("--gamma", type=float, default=1.0, help="discount (default: %(default)s; games always end)")
    p.add_argument("--batch-size", type=int, default=128, help="replay batch (default: %(default)s)")
    p.add_argument("--learning-starts", type=int, default=500, help="decisions before learning (default: %(default)s)")
    p.add_argument("--updates-per-step", type=int, default=1, help="gradient steps per vector step (default: %(default)s)")
    p.add_argument("--target-network-frequency", type=int, default=500, help="decisions between target copies (default: %(default)s)")
    p.add_argument("--start-e", type=float, default=0.5, help="initial epsilon (default: %(default)s)")
    p.add_argument("--end-e", type=float, default=0.02, help="final epsilon (default: %(default)s)")
    p.add_argument("--exploration-fraction", type=float, default=0.5, help="share of training to decay epsilon (default: %(default)s)")
    p.add_argument("--eval-games", type=int, default=400, help="evaluation games against random (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    p.add_argument("--verbose", action="store_true", help="print training progress")
    p.add_argument("--save", default=None, help="save the Q network as an after-state scorer (bgrl.agents.afterstate)")
    args = p.parse_args(argv)
    if args.total_steps < 1 or args.num_envs < 1 or args.eval_games < 2 or args.batch_size < 1:
        p.error("--total-steps, --num-envs and --batch-size must be >= 1, --eval-games >= 2")
    return args


def main(argv=None) -> dict:
    args = parse(argv)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    q = train(args)
    if args.save:
        from bgrl.agents.afterstate import save_scorer

        save_scorer(q, args.save, "encoded-opponent-on-roll", torch.zeros(2, 202), note="dqn_vector.py")
    trained = evaluate(lambda info, rng: act(q, info, rng, 0.0)[0], args.eval_games, args.seed + 10_000)
    rand = evaluate(random_policy, args.eval_games, args.seed + 10_000)
    out = {}
    for name, p in (("random policy", rand), ("DQN agent", trained)):
        half = 1.96 * p.std(ddof=1) / math.sqrt(len(p))
        out[name] = {"win_rate": float((p > 0).mean()), "ppg": float(p.mean()), "ci95": half}
        print(f"{name:14s} vs random: win rate {(p > 0).mean():6.1%}   points per game {p.mean():+.3f} (95% CI +-{half:.3f})")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return out


if __name__ == "__main__":
    main()
