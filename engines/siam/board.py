"""The Siam board: squares a1..e5, the four facings, the pieces and the squares around each.

>>> NEXT["a1"]["N"], NEXT["a1"]["W"]
('a2', None)
>>> INWARD["a1"], OUTER[:6]
(('N', 'E'), ('a1', 'b1', 'c1', 'd1', 'e1', 'a2'))
>>> RAY["c3"]["E"]
('c3', 'd3', 'e3')
"""

from __future__ import annotations

from typing import Any

FILES = "abcde"
RANKS = "12345"
SQUARES = tuple(file + rank for rank in RANKS for file in FILES)
SQUARE_SET = frozenset(SQUARES)
DIRECTIONS = ("N", "E", "S", "W")
DIRECTION_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
KINDS = ("elephant", "rhino")
ANIMALS_PER_KIND = 5
ROCK_START = ("b3", "c3", "d3")
CROSS_SQUARES = frozenset({"c1", "c5"})
CROSS_PLIES = 4
#: A game still running after this many plies ends in a draw (the rulebook sets no limit).
PLY_LIMIT = 500
#: The same position (board and player to move) coming up this often ends the game in a draw.
REPETITIONS = 3


#: How each direction steps along the files and ranks.
STEPS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


def _neighbour(square: str, direction: str) -> str | None:
    """The square one step from ``square`` toward ``direction``, or None off the board."""
    file_step, rank_step = STEPS[direction]
    file, rank = FILES.index(square[0]) + file_step, RANKS.index(square[1]) + rank_step
    if 0 <= file < 5 and 0 <= rank < 5:
        return FILES[file] + RANKS[rank]
    return None


def _inward(square: str) -> tuple[str, ...]:
    """Directions perpendicular to the edges ``square`` lies on, pointing into the board."""
    edges = {
        "N": square[1] == "1",
        "E": square[0] == "a",
        "S": square[1] == "5",
        "W": square[0] == "e",
    }
    return tuple(direction for direction in DIRECTIONS if edges[direction])


NEXT = {sq: {d: _neighbour(sq, d) for d in DIRECTIONS} for sq in SQUARES}
STEP_DIRECTION = {(sq, to): d for sq in SQUARES for d, to in NEXT[sq].items() if to}
INWARD = {sq: _inward(sq) for sq in SQUARES}
OUTER = tuple(sq for sq in SQUARES if INWARD[sq])
OUTER_SET = frozenset(OUTER)


def _ray(square: str, direction: str) -> tuple[str, ...]:
    """``square`` and every square after it toward ``direction`` up to the edge."""
    squares = [square]
    while (following := NEXT[squares[-1]][direction]) is not None:
        squares.append(following)
    return tuple(squares)


RAY = {sq: {d: _ray(sq, d) for d in DIRECTIONS} for sq in SQUARES}


def owner(kind: str) -> int:
    """The seat playing ``kind``."""
    return KINDS.index(kind)


def position_key(board: dict[str, Any], seat: int) -> str:
    """The board and the seat to move in 26 characters, for counting repeated positions.

    One character per square, a1 to e5 rank by rank (``.`` empty, ``#`` a rock, ``NESW``
    an elephant facing that way, ``nesw`` a rhino), then the seat to move.

    >>> position_key({"b3": {"kind": "rock"}, "a1": {"kind": "rhino", "facing": "E"}}, 0)
    'e..........#.............0'
    """
    signs = [_sign(board.get(square)) for square in SQUARES]
    return "".join(signs) + str(seat)


def _sign(piece: dict[str, str] | None) -> str:
    """The character of ``piece`` (``None``: an empty square) in a position key."""
    if piece is None:
        return "."
    if piece["kind"] == "rock":
        return "#"
    return piece["facing"] if piece["kind"] == "elephant" else piece["facing"].lower()


def board_data(options: dict[str, Any]) -> dict[str, Any]:
    """The static board for clients drawing it, under merged ``options``.

    >>> data = board_data({"cross_rule": True, "exit_once": False})
    >>> data["outer_squares"][:3], data["start_rocks"], data["cross_squares"]
    (['a1', 'b1', 'c1'], ['b3', 'c3', 'd3'], ['c1', 'c5'])
    >>> data["directions"][0]
    {'id': 'N', 'name': 'north', 'file_step': 0, 'rank_step': 1}
    """
    return {
        "files": list(FILES),
        "ranks": list(RANKS),
        "squares": list(SQUARES),
        "outer_squares": list(OUTER),
        "cross_squares": sorted(CROSS_SQUARES) if options["cross_rule"] else [],
        "cross_plies": CROSS_PLIES if options["cross_rule"] else 0,
        "directions": [
            {
                "id": d,
                "name": DIRECTION_NAMES[d],
                "file_step": STEPS[d][0],
                "rank_step": STEPS[d][1],
            }
            for d in DIRECTIONS
        ],
        "start_rocks": list(ROCK_START),
        "rocks": len(ROCK_START),
        "kinds": list(KINDS),
        "animals_per_kind": ANIMALS_PER_KIND,
        "exits_per_side": 1 if options["exit_once"] else None,
        "ply_limit": PLY_LIMIT,
        "repetitions": REPETITIONS,
    }
