"""The :class:`ForeignKingEngine`: the Foreign King rules behind the engine interface."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engines.base import PERFECT, SAMPLED, Engine, IllegalMove, Move, State
from engines.foreign_king import checks, moving, notation, rules, scoring, words
from engines.foreign_king.actions import MAIN_ACTIONS, check_main, main_options, perform_main
from engines.foreign_king.board import LOAN_AMOUNT, MOVE, REPAY_AMOUNT, board_data
from engines.foreign_king.position import from_position, new_game
from engines.foreign_king.state import current_seat, face_up_orders, player
from engines.phrases import Phrase, Words, phrase, sentences
from engines.words import Question

PUBLIC_KEYS = (
    "provinces",
    "king",
    "parliament",
    "actions",
    "players",
    "virtual",
    "stock",
    "turn_order",
    "round",
    "pending",
    "final",
)
#: Each pending decision as a refusal names it ("the game waits for ...").
DECISIONS = {
    "move_citizens": phrase("where to move further citizens, or to end the move"),
    "bring_parliament": phrase("whether to bring the parliamentarians to the scored province"),
    "deactivate": phrase("which factory to deactivate"),
    "virtual": phrase("where to place or move the virtual player's citizens"),
    "set_position": phrase("the new place on the turn-order track"),
    "finish": phrase("whether to repay loans before the game ends"),
}
Answer = Callable[[State, int, Move], None]
ANSWERS: dict[str, Answer] = {
    "bring_parliament": scoring.answer_bring,
    "deactivate": scoring.answer_deactivate,
    "virtual": scoring.answer_virtual,
    "set_position": rules.answer_position,
    "finish": lambda state, seat, move: rules.finalize(state),
    moving.STEP: moving.answer_step,
    moving.END_MOVE: moving.answer_end,
}
#: The pending decision each answer belongs to, where the two names differ.
ANSWERED_KIND = {moving.STEP: MOVE, moving.END_MOVE: MOVE}
KNOWN_ACTIONS = MAIN_ACTIONS | ANSWERS.keys() | {"loan", "repay", notation.TURN}
#: Answers after which the active player's turn goes on (and ends when nothing is pending).
TURN_ANSWERS = frozenset({"bring_parliament", "deactivate", "virtual", *ANSWERED_KIND})


def _bring_options(state: State) -> list[Move]:
    """Bring the parliamentarians, or not."""
    return [{"action": "bring_parliament", "accept": answer} for answer in (True, False)]


def _finish_options(state: State) -> list[Move]:
    """Repay a loan (if possible) or end the game."""
    repay = [{"action": "repay"}] if rules.can_repay(state, current_seat(state)) else []
    return repay + [{"action": "finish"}]


ANSWER_OPTIONS: dict[str, Callable[[State], list[Move]]] = {
    "bring_parliament": _bring_options,
    "deactivate": scoring.deactivate_options,
    "virtual": scoring.virtual_options,
    "set_position": rules.position_options,
    "finish": _finish_options,
    MOVE: moving.further_options,
}


class ForeignKingEngine(Engine):
    """The Foreign King (contract section 4.3); see :mod:`engines.foreign_king`."""

    id = "foreign-king"
    name = "The Foreign King"
    move_words = frozenset(notation.ACTIONS)
    notation_words = notation.LANGUAGE_WORDS
    min_players = 2
    max_players = 4
    move_schemas = "schemas.foreign_king:MOVE_SCHEMAS"
    default_options: dict[str, Any] = {}
    #: Nothing is hidden but the PRNG; chance (the 3-4 player turn order) is the setup's only.
    information = PERFECT
    chance = SAMPLED

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """The King on his portrait, everybody on 0 points, coins 5/6/7/8 by turn order."""
        return new_game(players, options, seed)

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """A state from ``position`` (contract state shape plus ``to_move``)."""
        return from_position(players, options, seed, position)

    def to_move(self, state: State) -> list[int]:
        """The deciding seat of a pending decision, else the active player."""
        if state["result"] is not None:
            return []
        if state["pending"] is not None:
            return [state["pending"]["seat"]]
        return [current_seat(state)]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Loans and main actions on a turn; the possible answers to a pending decision."""
        if seat not in self.to_move(state):
            return []
        if state["pending"] is not None:
            return ANSWER_OPTIONS[state["pending"]["kind"]](state)
        entry = player(state, seat)
        free = [{"action": "loan"}] if face_up_orders(state, seat) else []
        free += [{"action": "repay"}] if rules.can_repay(state, seat) else []
        return free + main_options(state, seat, entry["coins"])

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move``."""
        action = move.get("action") if isinstance(move, dict) else None
        if not isinstance(action, str) or action not in KNOWN_ACTIONS:
            raise IllegalMove(phrase("Unknown action %(action)s.", action=repr(action)), "action")
        if state["result"] is not None:
            raise IllegalMove(phrase("The game is over."), "game_over")
        if seat not in self.to_move(state):
            raise IllegalMove(
                phrase("It is not your turn: the game waits for another seat."), "turn"
            )
        checks.no_extra_fields(move)
        if action == notation.TURN:
            return self._whole_turn(state, seat, move)
        return _carry_out(self.copy_state(state), seat, move)

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The listed ``move`` carried out on ``state`` itself (see :meth:`Engine.apply_fast`)."""
        return _carry_out(state, seat, move)

    def _whole_turn(self, state: State, seat: int, move: Move) -> State:
        """The decisions of one turn in ``move["moves"]``, played in order by ``seat``."""
        for decision in _turn_decisions(move):
            state = self.apply(state, seat, decision)
        return state

    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while running; winners, scores, reason, ``virtual_wins`` and the final tally."""
        return state["result"]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The public state (the game hides nothing but the PRNG) plus the active seat.

        ``current`` is ``null`` after the game and between rounds (turn-order choices).
        """
        shown = self.copy_state({key: state[key] for key in PUBLIC_KEYS})
        between_turns = state["result"] is not None or state["turn_index"] == len(
            state["turn_order"]
        )
        shown["current"] = None if between_turns else current_seat(state)
        return shown

    def describe(
        self, before: State, after: State, seat: int, move: Move, names: Sequence[str]
    ) -> Words:
        """What ``seat`` did: "Cleo moves the King from Namur to Liège: Bob scores 3 points."."""
        if move["action"] != notation.TURN:
            return words.describe(before, after, seat, move)
        said = []
        for decision in move["moves"]:
            after = self.apply(before, seat, decision)
            said.append(words.describe(before, after, seat, decision))
            before = after
        return sentences(*said)

    def describe_result(self, result: dict[str, Any], names: Sequence[str]) -> Words:
        """ "Ann wins with 41 points (Bob 30): the King's marker reached ..."."""
        return words.describe_result(result)

    def prompt(self, state: State, seat: int) -> Phrase:
        """What ``seat`` must decide: "choose an action", "bring your parliamentarians ..."."""
        return words.prompt(state, seat)

    def questions(self, state: State, seat: int) -> list[Question]:
        """The action first (on the action table), then provinces on the map, then counts."""
        return words.questions(state, seat)

    def turn_goes_on(self, after: State, seat: int, step: Move) -> bool:
        """A loan or a repayment before the main action leaves the turn open too."""
        before_main = after["pending"] is None and step["action"] in ("loan", "repay")
        return (before_main and seat in self.to_move(after)) or super().turn_goes_on(
            after, seat, step
        )

    def join_turn(self, state: State, seat: int, steps: Sequence[Move]) -> Move:
        """One ``turn`` move of the decisions (the virtual steps joined), or the one decision."""
        joined: list[Move] = []
        for step in steps:
            if step["action"] == "virtual" and joined and joined[-1]["action"] == "virtual":
                joined[-1] = {"action": "virtual", "steps": joined[-1]["steps"] + step["steps"]}
            else:
                joined.append(step)
        return joined[0] if len(joined) == 1 else {"action": notation.TURN, "moves": joined}

    def board_data(self, options: dict[str, Any]) -> dict[str, Any]:
        """The map of Belgium, the factories, the action tables and the tracks."""
        return board_data()

    def format(self, move: Move) -> str:
        """The one-line notation of ``move``."""
        return notation.format_move(move)

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``."""
        return notation.parse_move(text)

    def canonical_names(self, text: str) -> str:
        """Provinces as printed ("Liège", "West-Vlaanderen") read as their ids."""
        return notation.SPELLINGS.canonical(text)


def _carry_out(state: State, seat: int, move: Move) -> State:
    """Carry out ``move`` of ``seat``, the seat to move, on ``state`` itself; IllegalMove
    if it breaks a rule."""
    action = move["action"]
    if action in ("loan", "repay"):
        _credit(state, seat, action)
    elif action in MAIN_ACTIONS and not _continues_move(state, action):
        _main(state, seat, move)
    else:
        _answer(state, seat, move)
    return state


def _waiting(state: State) -> IllegalMove:
    """The refusal of a move while the game waits for a decision."""
    pending = state["pending"]
    return IllegalMove(
        phrase(
            "The game first waits for the decision %(decision)s.",
            decision=DECISIONS[pending["kind"]],
        ),
        "pending",
    )


def _turn_decisions(move: Move) -> list[Move]:
    """The decisions of a ``turn`` move: two or more moves, none of them a turn."""
    decisions = checks.listing(checks.field(move, "moves"), "moves")
    if len(decisions) < 2 or not all(
        isinstance(decision, dict) and decision.get("action") != notation.TURN
        for decision in decisions
    ):
        raise IllegalMove(
            phrase("A turn lists two or more decisions, none of them a turn."), "shape"
        )
    return decisions


def _credit(state: State, seat: int, action: str) -> None:
    """Take a loan (turn a royal order face down for 3 francs) or repay one (4 francs)."""
    pending = state["pending"]
    final_repay = action == "repay" and pending is not None and pending["kind"] == "finish"
    if pending is not None and not final_repay:
        raise _waiting(state)
    entry = player(state, seat)
    if action == "loan":
        if not face_up_orders(state, seat):
            raise IllegalMove(
                phrase("Loan: you need a face-up royal order to turn face down."), "loan"
            )
        entry["coins"] += LOAN_AMOUNT
        entry["loans"] += 1
        return
    if not rules.can_repay(state, seat):
        raise IllegalMove(
            phrase(
                "Repay: you need a loan (a face-down royal order) and %(count)s francs "
                "(3 plus 1 interest).",
                count=REPAY_AMOUNT,
            ),
            "repay",
        )
    entry["coins"] -= REPAY_AMOUNT
    entry["loans"] -= 1


def _continues_move(state: State, action: str) -> bool:
    """Whether ``action`` is a further step of an open move of citizens (not a first one)."""
    pending = state["pending"]
    return action == moving.STEP and pending is not None and pending["kind"] == MOVE


def _main(state: State, seat: int, move: Move) -> None:
    """Choose and carry out a main action, then end the turn unless a decision is pending."""
    if state["pending"] is not None:
        raise _waiting(state)
    check_main(state, seat, move)
    perform_main(state, seat, move)
    if state["pending"] is None:
        rules.finish_turn(state)


def _answer(state: State, seat: int, move: Move) -> None:
    """Answer the pending decision, then go on with the turn."""
    pending = state["pending"]
    if pending is None or pending["kind"] != ANSWERED_KIND.get(move["action"], move["action"]):
        said = (
            phrase(
                "There is no such decision to make now: the game waits for %(decision)s.",
                decision=DECISIONS[pending["kind"]],
            )
            if pending
            else phrase("There is no such decision to make now.")
        )
        raise IllegalMove(said, "pending")
    ANSWERS[move["action"]](state, seat, move)
    if move["action"] in TURN_ANSWERS and state["pending"] is None:
        rules.finish_turn(state)
