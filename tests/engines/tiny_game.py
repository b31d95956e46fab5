"""Nim: a fifth game that exists only in the test suite, added as ``engines.base`` says.

Two players take turns taking one to three stones from a pile of ten; who
takes the last stone wins. Seat 0 starts. Being so small, the game keeps all
its roles in this one module; its move schemas are in
:mod:`tests.engines.tiny_game_schemas`. The tests register it with
:func:`engines.register` and unregister it afterwards.

State
    ``{"stones": 10, "ply": 0}``: the stones left and the moves made so far.
    Nothing is hidden and nothing is left to chance, so the search defaults of
    :class:`~engines.base.Engine` (returns, information key, determinize) fit.

Notation::

    take 1      {"action": "take", "count": 1}
    take 3      {"action": "take", "count": 3}
"""

from __future__ import annotations

import re
from typing import Any

from engines.base import (
    DETERMINISTIC,
    PERFECT,
    Engine,
    IllegalMove,
    InvalidPosition,
    Move,
    NotationError,
    State,
)

STONES = 10
MOST = 3
HINT = "Write 'take N' with N from 1 to 3, e.g. 'take 2'."
NOTATION = re.compile(r"take +([0-9]{1,2})")


class NimEngine(Engine):
    """Nim with one pile of ten stones; taking the last stone wins."""

    id = "nim"
    name = "Nim"
    min_players = 2
    max_players = 2
    move_schemas = "tests.engines.tiny_game_schemas:MOVE_SCHEMAS"
    move_words = frozenset({"take"})
    information = PERFECT
    chance = DETERMINISTIC

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Ten stones, seat 0 to move."""
        return {"stones": STONES, "ply": 0}

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """``{"stones": n, "to_move": seat}`` with 1 <= n <= 10; seat 0 moves if none is given."""
        if not isinstance(position, dict):
            raise InvalidPosition("A position is an object with 'stones' and 'to_move'.")
        stones, seat = position.get("stones"), position.get("to_move", 0)
        if type(stones) is not int or not 1 <= stones <= STONES:
            raise InvalidPosition(f"'stones' must be a whole number from 1 to {STONES}.")
        if seat not in (0, 1) or type(seat) is not int:
            raise InvalidPosition("'to_move' must be seat 0 or 1.")
        return {"stones": stones, "ply": seat}

    def to_move(self, state: State) -> list[int]:
        """The seat whose turn it is; nobody once the pile is empty."""
        return [state["ply"] % 2] if state["stones"] else []

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Taking 1, 2 or 3 stones, as many as are left."""
        if seat not in self.to_move(state):
            return []
        return [{"action": "take", "count": n} for n in range(1, min(MOST, state["stones"]) + 1)]

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The pile after ``seat`` takes ``move["count"]`` stones."""
        if not state["stones"]:
            raise IllegalMove("The game is over: the pile is empty.", "game_over")
        if seat not in self.to_move(state):
            raise IllegalMove("It is the other player's turn.", "turn")
        if (
            not isinstance(move, dict)
            or set(move) != {"action", "count"}
            or move["action"] != "take"
            or type(move["count"]) is not int
        ):
            raise IllegalMove("A move is {'action': 'take', 'count': n}.", "malformed")
        count = move["count"]
        if not 1 <= count <= MOST:
            raise IllegalMove("Take one, two or three stones.", "take_one_to_three")
        if count > state["stones"]:
            left = state["stones"]
            raise IllegalMove(f"Only {left} stone(s) are left.", "enough_stones")
        return {"stones": state["stones"] - count, "ply": state["ply"] + 1}

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The listed ``move`` made on ``state`` itself (the playout path)."""
        state["stones"] -= move["count"]
        state["ply"] += 1
        return state

    def result(self, state: State) -> dict[str, Any] | None:
        """Who took the last stone wins."""
        if state["stones"]:
            return None
        winner = (state["ply"] - 1) % 2
        return {
            "winners": [winner],
            "scores": {str(seat): int(seat == winner) for seat in (0, 1)},
            "reason": "The last stone was taken, and whoever takes it wins.",
        }

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything: nothing is hidden."""
        return self.copy_state(state)

    def format(self, move: Move) -> str:
        """``take N``."""
        return f"take {move['count']}"

    def parse(self, text: str, state: State | None = None) -> Move:
        """``take N`` (case-insensitive) as a move; NotationError otherwise."""
        match = NOTATION.fullmatch(text.strip().lower()) if isinstance(text, str) else None
        if match is None:
            raise NotationError(HINT)
        return {"action": "take", "count": int(match[1])}
