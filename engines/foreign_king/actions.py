"""The main actions of the action table: checks, effects and the list of legal ones.

Every action of the table has an ``options`` function (the legal moves for a
budget of francs) and every form of a main action a ``check`` (raise
:class:`IllegalMove` naming the broken rule) and a ``perform`` (change the
state; only called after ``check`` passed). Moving citizens has two forms, the
whole move and its first ``step`` (:mod:`engines.foreign_king.moving`), and
lists only first steps.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.base import IllegalMove, Move, State
from engines.foreign_king import checks, moving, scoring
from engines.foreign_king.board import (
    ACTION_NAMES,
    BUILD,
    COINS,
    COINS_INCOME,
    FACTORY_COST,
    KINDS,
    KING,
    LOAN_AMOUNT,
    MOVE,
    NAMES,
    NEIGHBOURS,
    PARLIAMENT,
    PLACE,
    PROVINCES,
    QUEEN,
    QUEEN_COST,
    SUPPLY,
    TURN_ORDER,
    TURN_ORDER_INCOME,
    routes,
    table_actions,
)
from engines.foreign_king.state import (
    add_count,
    citizens,
    controller,
    face_up_orders,
    figure_at,
    own_citizens,
    owner_key,
    player,
    player_count,
)
from engines.phrases import N_, phrase

#: The refusal of a factory of each kind when none is left in the stock.
NO_FACTORY_LEFT = {
    "textile": N_("Factory stock: no textile factory is left to build."),
    "metal": N_("Factory stock: no metal factory is left to build."),
}


# -- build a factory ------------------------------------------------------
def build_options(state: State, seat: int, coins: int) -> list[Move]:
    """Every factory ``seat`` can build with ``coins`` francs."""
    if coins < FACTORY_COST:
        return []
    return [
        {"action": BUILD, "kind": kind, "province": province}
        for kind in KINDS
        if state["stock"][kind] > 0
        for province in PROVINCES
    ]


def build_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse a factory that is out of stock or unaffordable."""
    kind = checks.kind(checks.field(move, "kind"))
    checks.province(checks.field(move, "province"))
    if state["stock"][kind] == 0:
        raise IllegalMove(phrase(NO_FACTORY_LEFT[kind]), "factory_stock")
    if coins < FACTORY_COST:
        raise IllegalMove(
            phrase("Build a factory: a factory costs %(count)s francs.", count=FACTORY_COST),
            "coins",
        )


def build_perform(state: State, seat: int, move: Move) -> None:
    """Pay, build, and take a royal order for the first factory of a province."""
    kind, province = move["kind"], move["province"]
    entry = player(state, seat)
    entry["coins"] -= FACTORY_COST
    state["stock"][kind] -= 1
    factories = state["provinces"][province]["factories"]
    if not factories and state["stock"]["orders"] > 0:
        state["stock"]["orders"] -= 1
        entry["orders"] += 1
    factories.append({"kind": kind, "active": True})


# -- place citizens -------------------------------------------------------
def place_options(state: State, seat: int, coins: int) -> list[Move]:
    """Every placement: any province, 1 citizen free and 1 franc per further citizen."""
    most = min(player(state, seat)["supply"], coins + 1)
    return [
        {"action": PLACE, "province": province, "count": count}
        for province in PROVINCES
        for count in range(1, most + 1)
    ]


def place_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse placing more citizens than the supply holds or the purse pays for."""
    checks.province(checks.field(move, "province"))
    count = checks.integer(checks.field(move, "count"), "count")
    if count < 1:
        raise IllegalMove(phrase("Place citizens: place at least one citizen."), "count")
    if count > player(state, seat)["supply"]:
        raise IllegalMove(
            phrase(
                "Place citizens: citizens come from your personal supply, which holds only "
                "%(count)s.",
                count=player(state, seat)["supply"],
            ),
            "supply",
        )
    if count - 1 > coins:
        raise IllegalMove(
            phrase(
                "Place citizens: the first citizen is free, each further one costs 1 franc "
                "(%(cost)s for %(count)s).",
                cost=count - 1,
                count=count,
            ),
            "coins",
        )


def place_perform(state: State, seat: int, move: Move) -> None:
    """Put the citizens into the province and pay for all but the first."""
    entry = player(state, seat)
    entry["supply"] -= move["count"]
    entry["coins"] -= move["count"] - 1
    add_count(citizens(state, move["province"]), owner_key(seat), move["count"])


# -- parliament -----------------------------------------------------------
def parliament_options(state: State, seat: int, coins: int) -> list[Move]:
    """A parliamentarian from the supply or from any province holding an own citizen."""
    sources = [SUPPLY] if player(state, seat)["supply"] > 0 else []
    sources += [province for province in PROVINCES if own_citizens(state, seat, province)]
    return [{"action": PARLIAMENT, "from": source} for source in sources]


def parliament_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse a parliamentarian from an empty supply or a province without own citizens."""
    source = checks.place(checks.field(move, "from"))
    if source == SUPPLY and player(state, seat)["supply"] == 0:
        raise IllegalMove(phrase("Parliament: your personal supply is empty."), "supply")
    if source != SUPPLY and own_citizens(state, seat, source) == 0:
        raise IllegalMove(
            phrase("Parliament: you have no citizen in %(province)s.", province=NAMES[source]),
            "citizens",
        )


def parliament_perform(state: State, seat: int, move: Move) -> None:
    """Seat one citizen in the National Assembly."""
    key = owner_key(seat)
    if move["from"] == SUPPLY:
        player(state, seat)["supply"] -= 1
    else:
        add_count(citizens(state, move["from"]), key, -1)
    add_count(state["parliament"], key, 1)


# -- take coins -----------------------------------------------------------
def coins_income(state: State, seat: int) -> int:
    """3 francs plus 1 per textile factory (active or not) in a province ``seat`` controls."""
    key = owner_key(seat)
    textiles = sum(
        1
        for province in PROVINCES
        if controller(state, province) == key
        for factory in state["provinces"][province]["factories"]
        if factory["kind"] == "textile"
    )
    return COINS_INCOME + textiles


def coins_options(state: State, seat: int, coins: int) -> list[Move]:
    """Taking coins is always possible."""
    return [{"action": COINS}]


def coins_perform(state: State, seat: int, move: Move) -> None:
    """Take the income from the bank."""
    player(state, seat)["coins"] += coins_income(state, seat)


# -- the King -------------------------------------------------------------
def king_options(state: State, seat: int, coins: int) -> list[Move]:
    """From the portrait any province; else one affordable route per end province and length."""
    at = state["king"]["at"]
    if at is None:
        return [{"action": KING, "path": [province]} for province in PROVINCES]
    return [{"action": KING, "path": path} for path in routes(at, coins + 1)]


def king_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse a King's route that jumps, returns, or costs more than the purse holds."""
    path = [checks.province(step) for step in checks.listing(checks.field(move, "path"), "path")]
    at = state["king"]["at"]
    if at is None:
        if len(path) != 1:
            raise IllegalMove(
                phrase(
                    "The King: from his portrait the King is put into one province of your "
                    "choice and moves no further."
                ),
                "king_path",
            )
        return
    visited = [at]
    for step in path:
        if step not in NEIGHBOURS[visited[-1]]:
            raise IllegalMove(
                phrase(
                    "The King: %(province)s does not border %(origin)s; the King moves into a "
                    "neighbouring province.",
                    province=NAMES[step],
                    origin=NAMES[visited[-1]],
                ),
                "king_path",
            )
        if step in visited:
            raise IllegalMove(
                phrase(
                    "The King: he may not return to %(province)s in the same action.",
                    province=NAMES[step],
                ),
                "king_return",
            )
        visited.append(step)
    if len(path) - 1 > coins:
        raise IllegalMove(
            phrase(
                "The King: the first province is free, each further one costs 1 franc "
                "(%(cost)s for %(count)s).",
                cost=len(path) - 1,
                count=len(path),
            ),
            "coins",
        )


def king_perform(state: State, seat: int, move: Move) -> None:
    """Move the King, lower his marker, pay, and score where he stops."""
    king = state["king"]
    path = move["path"]
    fall = 1 if king["at"] is None else len(path) + 1
    player(state, seat)["coins"] -= 0 if king["at"] is None else len(path) - 1
    king["track"] = max(0, king["track"] - fall)
    king["at"] = path[-1]
    scoring.king_arrives(state, path[-1])


# -- change turn order ----------------------------------------------------
def turn_order_options(state: State, seat: int, coins: int) -> list[Move]:
    """Changing turn order is always possible where the action exists."""
    return [{"action": TURN_ORDER}]


def turn_order_perform(state: State, seat: int, move: Move) -> None:
    """Take 1 franc; the new place on the turn-order track is chosen at the end of the round."""
    player(state, seat)["coins"] += TURN_ORDER_INCOME
    state["order_changes"].append(seat)


def no_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Actions without fields or conditions."""


Options = Callable[[State, int, int], list[Move]]
Check = Callable[[State, int, Move, int], None]
Perform = Callable[[State, int, Move], None]
#: The legal moves of each action of the table (but the Queen).
OPTIONS: dict[str, Options] = {
    BUILD: build_options,
    PLACE: place_options,
    MOVE: moving.first_steps,
    PARLIAMENT: parliament_options,
    COINS: coins_options,
    KING: king_options,
    TURN_ORDER: turn_order_options,
}
#: Each form of a main action (but the Queen) by its ``action`` word.
FORMS: dict[str, tuple[Check, Perform]] = {
    BUILD: (build_check, build_perform),
    PLACE: (place_check, place_perform),
    MOVE: (moving.whole_check, moving.whole_perform),
    moving.STEP: (moving.first_step_check, moving.first_step_perform),
    PARLIAMENT: (parliament_check, parliament_perform),
    COINS: (no_check, coins_perform),
    KING: (king_check, king_perform),
    TURN_ORDER: (no_check, turn_order_perform),
}
MAIN_ACTIONS = frozenset(FORMS) | {QUEEN}


def table_action(action: str) -> str:
    """The action of the table a main action's form chooses (a first step: moving citizens)."""
    return MOVE if action == moving.STEP else action


# -- the Queen and the action table ---------------------------------------
def copyable(state: State, seat: int) -> list[str]:
    """The actions the Queen may copy: those occupied by another player's figure."""
    return [
        name
        for name, holder in state["actions"].items()
        if holder is not None and holder != seat and name != QUEEN
    ]


def queen_options(state: State, seat: int, coins: int) -> list[Move]:
    """Pay 2 francs and carry out any action another figure occupies."""
    if coins < QUEEN_COST:
        return []
    return [
        {"action": QUEEN, "copy": copied}
        for name in copyable(state, seat)
        for copied in OPTIONS[name](state, seat, coins - QUEEN_COST)
    ]


def queen_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse a Queen without 2 francs, or copying a free action or one she cannot copy."""
    copied = checks.field(move, "copy")
    action = copied.get("action") if isinstance(copied, dict) else None
    if not isinstance(action, str) or action not in FORMS:
        raise IllegalMove(
            phrase("The Queen: 'copy' must be one of the other main actions."), "queen"
        )
    checks.no_extra_fields(copied)
    if coins < QUEEN_COST:
        raise IllegalMove(phrase("The Queen costs %(count)s francs.", count=QUEEN_COST), "coins")
    if table_action(action) not in copyable(state, seat):
        raise IllegalMove(
            phrase("The Queen copies only an action occupied by another player's figure."),
            "queen",
        )
    check_action(state, seat, copied, coins - QUEEN_COST)


def queen_perform(state: State, seat: int, move: Move) -> None:
    """Pay the Queen and carry out the copied action."""
    player(state, seat)["coins"] -= QUEEN_COST
    FORMS[move["copy"]["action"]][1](state, seat, move["copy"])


def available(state: State) -> list[str]:
    """Actions of the table no figure stands on (so neither the mover's own last action)."""
    return [name for name, holder in state["actions"].items() if holder is None]


def main_options(state: State, seat: int, coins: int) -> list[Move]:
    """Every main action ``seat`` can carry out with ``coins`` francs."""
    moves: list[Move] = []
    for name in available(state):
        options = queen_options if name == QUEEN else OPTIONS[name]
        moves += options(state, seat, coins)
    return moves


def can_act(state: State, seat: int) -> bool:
    """Whether ``seat`` can carry out some main action, taking every loan it may."""
    coins = player(state, seat)["coins"] + LOAN_AMOUNT * face_up_orders(state, seat)
    return bool(main_options(state, seat, coins))


def check_action(state: State, seat: int, move: Move, coins: int) -> None:
    """Check the fields and conditions of one main action (not the action table)."""
    name = move["action"]
    if name == QUEEN:
        queen_check(state, seat, move, coins)
    else:
        FORMS[name][0](state, seat, move, coins)


def check_choice(state: State, seat: int, name: str) -> None:
    """Refuse an action missing from this game's table, occupied, or just used."""
    if name not in table_actions(player_count(state)):
        only = (
            N_("%(action)s: this action exists only in a game of 4 players.")
            if name == QUEEN
            else N_("%(action)s: this action exists only in a game of 3 or 4 players.")
        )
        raise IllegalMove(phrase(only, action=phrase(ACTION_NAMES[name])), "action_table")
    holder = state["actions"][name]
    if holder == seat:
        raise IllegalMove(
            phrase(
                "%(action)s: you may not choose the action your figure already stands on, and "
                "you may not pass.",
                action=phrase(ACTION_NAMES[name]),
            ),
            "repeat_action",
        )
    if holder is not None:
        raise IllegalMove(
            phrase(
                "%(action)s: the action is occupied by another figure (only the Queen can "
                "carry out an occupied action).",
                action=phrase(ACTION_NAMES[name]),
            ),
            "occupied",
        )


def check_main(state: State, seat: int, move: Move) -> None:
    """Refuse a main action that breaks the action table or the action's own rules."""
    check_choice(state, seat, table_action(move["action"]))
    check_action(state, seat, move, player(state, seat)["coins"])


def perform_main(state: State, seat: int, move: Move) -> None:
    """Put the figure on the chosen action and carry it out."""
    old = figure_at(state, seat)
    if old is not None:
        state["actions"][old] = None
    state["actions"][table_action(move["action"])] = seat
    if move["action"] == QUEEN:
        queen_perform(state, seat, move)
    else:
        FORMS[move["action"]][1](state, seat, move)
