"""The :class:`SiamEngine`: the Siam rules behind the engine interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import DETERMINISTIC, PERFECT, Engine, IllegalMove, Move, State
from engines.phrases import N_, Phrase, english, phrase
from engines.siam import notation, rules, words
from engines.siam.board import KINDS, board_data
from engines.siam.position import build_position, check_fields, new_game
from engines.words import Question

#: What every seat sees: the whole state but the outcome (which the result reports).
VIEW_KEYS = ("board", "reserve", "ply", "options", "exits", "last_push", "positions")


class SiamEngine(Engine):
    """The rules of Siam on the 5x5 board (contract section 4.1)."""

    id = "siam"
    name = "Siam"
    min_players = 2
    max_players = 2
    move_schemas = "schemas.siam:MOVE_SCHEMAS"
    default_options = {"cross_rule": True, "exit_once": False}
    option_words = {
        "cross_rule": (
            N_("Cross rule"),
            N_(
                "During each player's first two turns, no animal may enter or move onto the "
                "crossed squares c1 and c5."
            ),
        ),
        "exit_once": (
            N_("One exit each"),
            N_(
                "Each player may take an animal off the board by choice only once per game "
                "(variant B); animals pushed off do not count."
            ),
        ),
    }
    move_words = frozenset(notation.EXAMPLES)
    notation_words = notation.LANGUAGE_WORDS
    information = PERFECT
    chance = DETERMINISTIC

    # -- creation -------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """The starting state: rocks on b3, c3, d3, all animals in reserve, elephants to move."""
        return new_game(self.options(options))

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """A running state built from ``position``; raise InvalidPosition if it is inconsistent."""
        check_fields(position)
        return build_position(self.options(options), position)

    # -- play -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """``[ply % 2]`` while the game runs, ``[]`` once a rock has left the board or the
        game is drawn."""
        return [] if state["outcome"] else [state["ply"] % 2]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """One legal move of ``seat`` per outcome, in a fixed order (enter, then per animal).

        An ``enter`` that only pushes animals like the entering one (same kind,
        facing the push) onto a free outer square gives the board of entering
        on that square: only the latter is listed; ``apply`` takes both.
        """
        if type(seat) is not int or seat not in self.to_move(state):
            return []
        return rules.legal_moves(state, KINDS[seat])

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move``; raise IllegalMove naming the broken rule."""
        if state["outcome"]:
            ended = (
                phrase("The game is over: it is drawn.")
                if "draw" in state["outcome"]
                else phrase("The game is over: a rock has left the board.")
            )
            raise IllegalMove(ended, "game_over")
        if type(seat) is not int or seat not in self.to_move(state):
            raise IllegalMove(words.says(KINDS[state["ply"] % 2], "turn"), "turn")
        problem = rules.shape_problem(move)
        if problem:
            raise IllegalMove(problem, "malformed")
        return rules.play(state, KINDS[seat], move)

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The listed ``move`` carried out on ``state`` itself (see :meth:`Engine.apply_fast`)."""
        return rules.carry_out(state, KINDS[seat], move)

    def result(self, state: State) -> dict[str, Any] | None:
        """None while running, else the winner, scores, a reason and the final push; a draw
        has no winner, no points and says why (``draw``: ``repetition`` or ``ply_limit``)."""
        outcome = state["outcome"]
        if not outcome:
            return None
        if "draw" in outcome:
            return {
                "winners": [],
                "scores": {"0": 0, "1": 0},
                "reason": english(words.reason(outcome)),
                "draw": outcome["draw"],
            }
        winner = outcome["winner"]
        return {
            "winners": [winner],
            "scores": {str(seat): int(seat == winner) for seat in (0, 1)},
            "reason": english(words.reason(outcome)),
            "rock": outcome["rock"],
            "direction": outcome["direction"],
            "winning_animal": outcome["animal"],
            "pushed_by": outcome["mover"],
        }

    # -- views ----------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The public view (the same for every seat): board, reserve, ply, options, exits,
        the last move's push and the positions seen since the last entry, exit or push."""
        return self.copy_state({key: state[key] for key in VIEW_KEYS})

    # -- words ----------------------------------------------------------
    def describe(
        self, before: State, after: State, seat: int, move: Move, names: Sequence[str]
    ) -> Phrase:
        """One sentence in the rulebook's words: "Ann enters an elephant on a1, facing north."."""
        return words.describe(before, after, seat, move)

    def describe_result(self, result: dict[str, Any], names: Sequence[str]) -> Phrase:
        """ "Ann wins: the rock on c5 was pushed off the board to the north, and ..."."""
        return words.describe_result(result)

    def prompt(self, state: State, seat: int) -> Phrase:
        """ "enter, move, turn or take off an elephant" (what the seat's legal moves allow)."""
        return words.prompt(state, self.legal_moves(state, seat), seat)

    def questions(self, state: State, seat: int) -> list[Question]:
        """Which animal (the reserve or one on the board), where to, facing which way."""
        return words.questions(seat)

    def board_data(self, options: dict[str, Any]) -> dict[str, Any]:
        """The squares, outer squares, directions, start rocks and piece counts."""
        return board_data(self.options(options))

    # -- notation -------------------------------------------------------
    def format(self, move: Move) -> str:
        """``enter a1 N``, ``move b2 b3 E``, ``rotate b2 S`` or ``exit a1``."""
        return notation.format_move(move)

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text`` (case-insensitive); raise NotationError otherwise."""
        return notation.parse_move(text)
