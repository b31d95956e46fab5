"""Information-set Monte Carlo tree search over an engine's listed moves.

One tree is grown from the deciding seat's information set (single-observer
ISMCTS, Cowling, Powley and Whitehouse 2012). Each iteration starts from a
fresh *sample*: a state drawn by the engine's ``determinize`` for that seat,
so the search never looks at anything the seat cannot know. It walks down
the tree by UCB1 among the moves legal in that sample, adds one node, plays
the rest of the game (or :attr:`Policy.depth` moves of it) by the game's
playout policy, and adds the outcome to every node on the way, each node
counting the return of the seat that made its move (max-n: every seat plays
for itself). With perfect information every sample is the same state, the
legal moves of a node are listed once and UCB1 counts parent visits; with
hidden parts a move is judged against the iterations in which it was legal
(its *availability*).

Budgets are counted in moves applied (in the tree and in playouts), not in
time, so a search with the same seed chooses the same moves on any machine.
A deadline in CPU seconds may cut a search short where moves cost far more
than usual (King of Siam's last card, judged whenever a player might pass);
a search it cuts is no longer repeatable.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engines.base import PERFECT, Engine, Move, State
from engines.search.policies import Policy

#: A sampler: a state of the deciding seat's information set, drawn from ``rng``.
Sampler = Callable[[random.Random], State]
#: The exploration constant of UCB1 for returns between -1 and 1.
EXPLORATION = 1.0


class Node:
    """A move in the tree: who made it, how often it was tried and what it brought them."""

    __slots__ = ("move", "mover", "visits", "total", "available", "children", "untried")

    def __init__(self, move: Move | None, mover: int) -> None:
        self.move = move
        self.mover = mover
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.children: dict[str, Node] = {}
        self.untried: list[Move] | None = None

    def ucb(self, parent_visits: int) -> float:
        """UCB1 of this move for its mover, given how often its parent was visited."""
        return self.total / self.visits + EXPLORATION * math.sqrt(
            math.log(parent_visits) / self.visits
        )

    def best(self) -> Node:
        """The most visited child (ties: the first added)."""
        return max(self.children.values(), key=lambda child: child.visits)


@dataclass
class Search:
    """One search of ``engine`` for ``seat`` from the states ``sample`` draws."""

    engine: Engine
    sample: Sampler
    seat: int
    policy: Policy
    rng: random.Random

    def __post_init__(self) -> None:
        self.root = Node(None, self.seat)
        self.perfect = self.engine.information == PERFECT
        self.applied = 0

    def run(self, budget: int, deadline: float | None = None) -> Node:
        """Iterate until ``budget`` moves were applied, or past ``deadline`` (the thread's
        CPU time, :func:`time.thread_time`) after one iteration at least; the root."""
        self.iterate()
        while self.applied < budget and (deadline is None or time.thread_time() < deadline):
            self.iterate()
        return self.root

    def iterate(self) -> None:
        """One sample, one walk down the tree, one new node, one playout, one update."""
        state = self.sample(self.rng)
        path = [self.root]
        state = self._descend(state, path)
        outcome = self._playout(state)
        self.root.visits += 1
        for node in path[1:]:
            node.visits += 1
            node.total += outcome[node.mover]

    def _descend(self, state: State, path: list[Node]) -> State:
        """Walk down by UCB1 until a new node is added (or the game ends); the state there."""
        engine, node = self.engine, self.root
        while to_move := engine.to_move(state):
            mover = to_move[0]
            child, added = self._next(node, state, mover)
            state = engine.apply_fast(state, mover, child.move)
            self.applied += 1
            path.append(child)
            node = child
            if added:
                break
        return state

    def _next(self, node: Node, state: State, mover: int) -> tuple[Node, bool]:
        """The child to follow from ``node`` and whether it was just added."""
        if self.perfect:
            if node.untried is None:
                node.untried = self.policy.order(self.engine, state, mover, self.rng)
            if node.untried and len(node.children) < self.policy.width(node.visits):
                move = node.untried.pop()
                child = node.children[str(len(node.children))] = Node(move, mover)
                return child, True
            visits = node.visits
            return max(node.children.values(), key=lambda c: c.ucb(visits)), False
        moves = {repr(move): move for move in self.engine.legal_moves(state, mover)}
        available = []
        for key, child in node.children.items():
            if key in moves:
                child.available += 1
                available.append(child)
        untried = [key for key in moves if key not in node.children]
        if untried and (not available or len(available) < self.policy.width(node.visits)):
            first = self.policy.first(state, mover, [moves[key] for key in untried], self.rng)
            key = untried[first]
            child = node.children[key] = Node(moves[key], mover)
            child.available = 1
            return child, True
        return max(available, key=lambda c: c.ucb(c.available)), False

    def _playout(self, state: State) -> list[float]:
        """Play on by the policy; the outcome per seat (returns, or the policy's estimate)."""
        engine, policy = self.engine, self.policy
        for _ in range(policy.depth):
            to_move = engine.to_move(state)
            if not to_move:
                return policy.final(engine, state)
            mover = to_move[0]
            move = policy.pick(engine, state, mover, self.rng)
            state = engine.apply_fast(state, mover, move)
            self.applied += 1
        if not engine.to_move(state):
            return policy.final(engine, state)
        return policy.estimate(engine, state)


def principal_turn(root: Node, seat: int) -> list[Move]:
    """The most visited moves from ``root`` while ``seat`` makes them (its whole turn)."""
    moves, node = [], root
    while node.children:
        node = node.best()
        if node.mover != seat or node.visits == 0:
            break
        moves.append(node.move)
    return moves
