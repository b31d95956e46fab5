"""Playout policies: how a search plays a game on from a new node, and how it judges it.

Random playouts are weak where most moves change little (Siam's turns and
steps, a Foreign King player who never moves the King). A :class:`Policy`
says, per game, which moves playouts prefer (``weight``), which moves the tree
tries first (``prior``, else ``weight``) and how many of them (``widening``:
where a node has more moves than its search has iterations), how many moves a
playout lasts before its result is estimated from the running scores
(``depth``, ``points``), how much the score margin adds to a finished game's
return (``margin_scale``), and how many moves a second the game applies on
the reference machine (``rate``), which turns the levels' seconds into
budgets of moves. Policies read only the state a search hands them: a
determinized one, never the true state of a game with hidden parts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from engines.bangkok_klongs.board import BOARDS as KLONGS_BOARDS
from engines.bangkok_klongs.board import Layout as KlongsLayout
from engines.bangkok_klongs.board import (
    inventory_points,
    landing_points,
    landing_value,
)
from engines.base import Engine, Move, State
from engines.siam.board import KINDS as SIAM_KINDS
from engines.siam.rules import winner_if_played

#: How a playout weighs a listed move of a seat in a state (higher: more often).
Weight = Callable[[State, int, Move], float]
#: The running points of every seat in a state (for estimating a cut playout).
Points = Callable[[State], list[float]]
#: The share of a finished game's value that the score margin decides.
MARGIN_SHARE = 0.1


@dataclass(frozen=True)
class Policy:
    """How playouts of one game are played and judged (see the module docstring)."""

    rate: float
    depth: int = 1000
    weight: Weight | None = None
    points: Points | None = None
    margin_scale: float | None = None
    prior: Weight | None = None
    widening: float | None = None

    def order(self, engine: Engine, state: State, seat: int, rng: random.Random) -> list[Move]:
        """The moves of a new tree node, the one to try first last (shuffled, then by
        ``prior``, else by weight)."""
        moves = engine.legal_moves(state, seat)
        rng.shuffle(moves)
        promise = self.prior or self.weight
        if promise is not None:
            moves.sort(key=lambda move: promise(state, seat, move))
        return moves

    def first(self, state: State, seat: int, moves: list[Move], rng: random.Random) -> int:
        """Which of ``moves`` (not yet tried at a node) to try first: the most promising
        (``prior``, else the heaviest)."""
        promise = self.prior or self.weight
        if promise is None:
            return rng.randrange(len(moves))
        weights = [promise(state, seat, move) for move in moves]
        best = max(weights)
        heaviest = [index for index, weight in enumerate(weights) if weight == best]
        return heaviest[rng.randrange(len(heaviest))]

    def width(self, visits: int) -> float:
        """How many moves a tree node visited ``visits`` times may have tried: all of them
        without ``widening``, else ``widening`` times the square root of its visits (at least
        one), so that a node with more moves than its visits weighs its most promising ones
        (progressive widening)."""
        if self.widening is None:
            return math.inf
        return max(1.0, self.widening * math.sqrt(visits))

    def pick(self, engine: Engine, state: State, seat: int, rng: random.Random) -> Move:
        """A playout's move: at random, as the weights prefer."""
        moves = engine.legal_moves(state, seat)
        if self.weight is None:
            return moves[rng.randrange(len(moves))]
        weights = [self.weight(state, seat, move) for move in moves]
        return rng.choices(moves, weights)[0]

    def final(self, engine: Engine, state: State) -> list[float]:
        """The value of a finished game per seat: its returns, and a little for the margin."""
        returns = engine.returns(state)
        if self.margin_scale is None:
            return returns
        margins = engine.margins(state)
        return [
            (1 - MARGIN_SHARE) * value + MARGIN_SHARE * math.tanh(margin / self.margin_scale)
            for value, margin in zip(returns, margins, strict=True)
        ]

    def estimate(self, engine: Engine, state: State) -> list[float]:
        """The value of a cut playout per seat: from the lead in running points (0 without)."""
        if self.points is None or self.margin_scale is None:
            return [0.0] * engine.seats(state)
        points = self.points(state)
        return [
            math.tanh((own - max(points[:seat] + points[seat + 1 :])) / self.margin_scale)
            for seat, own in enumerate(points)
        ]


# -- Siam: pushes decide the game -----------------------------------------------------------
def siam_weight(state: State, seat: int, move: Move) -> float:
    """Push a rock off for yourself above all, never for the other side; pushes before other
    moves, exits least."""
    winner = winner_if_played(state, SIAM_KINDS[seat], move)
    if winner is not None:
        return 1000.0 if winner == seat else 0.01
    if move.get("to") in state["board"]:
        return 8.0
    return 0.2 if move["action"] == "exit" else 1.0


# -- games with scores ---------------------------------------------------------------------
def foreign_king_points(state: State) -> list[float]:
    """Victory points so far (the virtual player's are not a seat's)."""
    return [float(player["vp"]) for player in state["players"]]


def bangkok_klongs_points(state: State) -> list[float]:
    """Points so far, the inventories' points, and each landing place's points for its
    merchants weighed by how full it is (a full one scores at the next market day)."""
    layout = KLONGS_BOARDS[state["options"]["board"]]
    board = state["board"]
    points = [
        float(player["score"] + inventory_points(layout, player["inventory"]))
        for player in state["players"]
    ]
    for fields in layout.landing_places.values():
        value, owners = _prospect(layout, [board.get(field) for field in fields])
        for owner in owners:
            points[owner] += value
    return points


def _prospect(layout: KlongsLayout, cells: list[dict | None]) -> tuple[float, list[int]]:
    """What a landing place with ``cells`` (None: an empty field) promises each of its
    merchants, its points weighed by the square of how full it is, and their owners."""
    present = [cell for cell in cells if cell is not None]
    owners = [cell["merchant"] for cell in present if cell["merchant"] is not None]
    value = landing_value([layout.tiles[cell["tile"]] for cell in present])
    return value * (len(present) / len(cells)) ** 2, owners


def bangkok_klongs_gain(state: State, seat: int, move: Move) -> float:
    """How much a decision seems to bring ``seat`` over the others' average at once: the
    Luk Phat points of a placement and the change of the landing places it touches (a
    merchant taken back leaves its boat's ones), a scoring's points and inventory."""
    layout = KLONGS_BOARDS[state["options"]["board"]]
    board, action = state["board"], move["action"]
    if action == "score":
        return _scoring_gain(layout, state, seat, move)
    if action != "place":
        return 0.0
    tile = layout.tiles[move["tile"]]
    gain = float(layout.track[state["luk_phat"]]) if tile["luk_phat"] else 0.0
    merchant = None if move["merchant"] == "none" else seat
    changed = {move["at"]: {"tile": move["tile"], "merchant": merchant}}
    landings = layout.field_landings[move["at"]]
    if move["merchant"] in board:
        changed[move["merchant"]] = {**board[move["merchant"]], "merchant": None}
        landings = {*landings, *layout.field_landings[move["merchant"]]}
    others = max(1, len(state["players"]) - 1)
    for landing in landings:
        fields = layout.landing_places[landing]
        for cells, sign in (
            ([changed.get(field, board.get(field)) for field in fields], 1),
            ([board.get(field) for field in fields], -1),
        ):
            value, owners = _prospect(layout, cells)
            own = owners.count(seat)
            gain += sign * value * (own - (len(owners) - own) / others)
    return gain


def _scoring_gain(layout: KlongsLayout, state: State, seat: int, move: Move) -> float:
    """A scoring's points for ``seat`` less the others' average, and the removed boat's
    inventory points."""
    points = landing_points(layout, state["board"], move["landing"])
    others = max(1, len(state["players"]) - 1)
    gain = points.get(seat, 0) - sum(v for s, v in points.items() if s != seat) / others
    inventory = state["players"][seat]["inventory"]
    removed = state["board"][move["remove"]]["tile"]
    return (
        gain + inventory_points(layout, [*inventory, removed]) - inventory_points(layout, inventory)
    )


def bangkok_klongs_weight(state: State, seat: int, move: Move) -> float:
    """Score at a market day; place boats with a merchant, the more baskets the better, and
    Luk Phat boats; move cards seldom."""
    action = move["action"]
    if action == "score":
        return 20.0
    if action != "place":
        return 1.0 if action in ("decline", "finish") else 0.3
    tile = KLONGS_BOARDS[state["options"]["board"]].tiles[move["tile"]]
    weight = 1.0 + 2.0 * tile["luk_phat"]
    if move["merchant"] != "none":
        weight += 1.0 + tile["baskets"]
    return weight * (0.5 if "relocate" in move else 1.0)


#: Policies by engine id; other games (the test suite's Nim) get :data:`DEFAULT`.
POLICIES: dict[str, Policy] = {
    "siam": Policy(rate=18_000, depth=80, weight=siam_weight),
    "king-of-siam": Policy(rate=6_000, margin_scale=3.0),
    "foreign-king": Policy(rate=25_000, depth=60, points=foreign_king_points, margin_scale=10.0),
    "bangkok-klongs": Policy(
        rate=2_000,
        depth=12,
        weight=bangkok_klongs_weight,
        points=bangkok_klongs_points,
        margin_scale=15.0,
        prior=bangkok_klongs_gain,
        widening=1.5,
    ),
}
DEFAULT = Policy(rate=20_000)


def policy_of(engine: Engine) -> Policy:
    """The playout policy of ``engine``'s game."""
    return POLICIES.get(engine.id, DEFAULT)
