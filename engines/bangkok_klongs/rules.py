"""The placement turn: its decisions, validating and playing them, and listing the legal ones.

A turn runs in this order: move-card relocation ``before``, placement of the
boat, its merchant, the thief's or overseer's effect, the Luk Phat step (a
market day it reaches is held at once), the relocation ``after``, the draw.

A turn is one ``place`` move or a few decisions of the same seat, each one
logged move; ``state["pending"]`` says what the seat decides next:

- ``relocate FROM TO`` as the first decision (a move card played before
  placing) leaves ``{"seat": s, "kind": "place"}``: now the seat places a boat,
  without relocation.
- ``place ... relocate after`` (the boat to move chosen once the new boat
  lies) and a placement whose Luk Phat step reaches a market day leave
  ``{"seat": s, "kind": "finish", "relocate": bool, "draw": bool}``: once the
  boat is placed (and the market day is over) the seat plays its move card
  (``relocate FROM TO``, only if ``relocate``) or ends the turn (``finish``);
  both refill the hand if ``draw`` (no boat was taken into the hand).

``turn_moves`` lists these decisions, which reach every outcome of a turn
without listing every combination of its parts; ``play_turn`` also takes the
whole turn as one ``place`` move with ``"relocate": {"from", "to", "when"}``
as long as no market day interrupts it. The ``play_*`` functions change the
state they are given (the engine hands them a copy, or a search its own state)
and raise :class:`IllegalMove` at the first broken rule.

Boats every seat saw go into a hand (a thief's loot kept in hand, the thief an
overseer keeps) are recorded in ``state["revealed"]`` (tile id -> seat) until
they are placed again: a search must not redraw them (see ``determinize``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.bangkok_klongs.board import (
    OVERSEER,
    THIEF,
    Board,
    Layout,
    can_relocate,
    merchant_choices,
    own_fields,
    placement_problem,
    relocated,
    relocation_destinations,
    relocations,
    steal_targets,
    thieves_in_column,
)
from engines.base import IllegalMove, Move, State
from engines.phrases import Phrase, phrase

PLACE_KEYS = frozenset(
    {"action", "tile", "at", "merchant", "relocate", "steal", "keep", "remove_thieves", "draw"}
)
RELOCATE_KEYS = frozenset({"from", "to", "when"})
STEP_KEYS = frozenset({"action", "from", "to", "draw"})
FINISH_KEYS = frozenset({"action", "draw"})
WHENS = ("before", "after")
#: The ``relocate`` value of a placement whose relocation is chosen as the next decision.
LATER = {"when": "after"}
#: ``pending`` kinds: a placement after a move card, the end of a placed turn.
PLACE, FINISH = "place", "finish"
#: What the seat may do at each point of its turn, and what to say otherwise.
TURN_ACTIONS: dict[str | None, tuple[tuple[str, ...], Phrase]] = {
    None: (
        ("place", "relocate"),
        phrase("A turn places a boat (place ...), or first plays a move card (relocate FROM TO)."),
    ),
    PLACE: (
        ("place",),
        phrase("You relocated a boat with a move card: now place a boat (place ...)."),
    ),
    FINISH: (
        ("relocate", "finish"),
        phrase(
            "Your boat is placed: relocate one with a move card (relocate FROM TO) or end the "
            "turn (finish)."
        ),
    ),
}
THIEF_KEEPS = ("hand", "inventory")
MERCHANT_PILE, PLAIN_PILE = "merchant", "plain"


# -- helpers shared with the rest of the engine -------------------------------


def text(move: Move, key: str) -> str:
    """``move[key]`` as a string, or IllegalMove naming the missing or wrong field."""
    value = move.get(key)
    if not isinstance(value, str):
        raise IllegalMove(
            phrase("The move needs a text field %(field)s.", field=repr(key)), "move_shape"
        )
    return value


def check_keys(move: Move, allowed: frozenset[str]) -> None:
    """Refuse fields the move does not know."""
    unknown = sorted(set(move) - allowed)
    if unknown:
        raise IllegalMove(
            phrase("This move has no field(s) %(fields)s.", fields=", ".join(unknown)),
            "move_shape",
        )


def start_fields(layout: Layout, state: State, seat: int) -> frozenset[str] | None:
    """The start fields while ``seat`` is in its first round, else None."""
    if seat in state["first_round"]:
        return layout.start_fields[len(state["players"])]
    return None


def pile_of(tile: dict[str, Any]) -> str:
    """The tactical pile a tile belongs to: neutral and special boats, or plain ones."""
    return MERCHANT_PILE if tile["neutral"] or tile["special"] else PLAIN_PILE


def draw_choices(layout: Layout, state: State, hand_left: int, kept: bool) -> list[str | None]:
    """The allowed ``draw`` values once the hand holds ``hand_left`` boats.

    ``None`` (no ``draw`` field) unless the tactical variant draws a boat;
    then the names of the non-empty piles.
    """
    needed = 0 if kept else layout.hand_size - hand_left
    pile = state["draw_pile"]
    if not state["options"]["tactical"] or needed <= 0 or not pile:
        return [None]
    return sorted({pile_of(layout.tiles[t]) for t in pile})


# -- validation and play ---------------------------------------------------------


def play_turn(layout: Layout, state: State, seat: int, move: Move) -> tuple[State, str | None]:
    """The state after the turn decision ``move`` of ``seat``, and the market day it reaches
    (changes ``state``)."""
    pending = state["pending"]
    allowed, message = TURN_ACTIONS[pending and pending["kind"]]
    action = move.get("action")
    if action not in allowed:
        raise IllegalMove(message, "turn")
    if action == "place":
        return play_place(layout, state, seat, move)
    if action == "relocate":
        return play_relocate(layout, state, seat, move), None
    return play_finish(layout, state, seat, move), None


def play_place(layout: Layout, s: State, seat: int, move: Move) -> tuple[State, str | None]:
    """The state after ``seat`` places a boat, and the market day it reaches (or None).

    Without a market day the move is the whole turn, unless it says
    ``relocate after``; with one, the turn stops at the Luk Phat step and its
    rest waits in ``pending``. Changes ``s``.
    """
    check_keys(move, PLACE_KEYS)
    relocation = _relocation(move)
    first_decision = s["pending"] is None
    if relocation is not None and not first_decision:
        raise IllegalMove(ONCE_PER_TURN, "move_card")
    if relocation is not None and relocation["when"] == "before":
        _relocate(layout, s, seat, relocation["from"], relocation["to"])
    kept, market = _place_boat(layout, s, seat, move)
    may_relocate = first_decision and relocation is None
    rest = {"seat": seat, "kind": FINISH, "relocate": may_relocate, "draw": not kept}
    if market is not None:
        if (relocation is not None and relocation["when"] == "after") or "draw" in move:
            raise IllegalMove(MARKET_FIRST, "market_day")
        s["pending"] = rest
    elif relocation == LATER:
        _check_later(layout, s, seat, move)
        s["pending"] = {**rest, "relocate": True}
    elif relocation is not None and relocation["when"] == "after":
        _relocate(layout, s, seat, relocation["from"], relocation["to"])
        _finish(layout, s, seat, move.get("draw"), kept)
    elif "draw" not in move and _choice_left(layout, s, seat, kept, may_relocate):
        s["pending"] = rest
    else:
        _finish(layout, s, seat, move.get("draw"), kept)
    return s, market


def _place_boat(layout: Layout, s: State, seat: int, move: Move) -> tuple[bool, str | None]:
    """Lay the boat with its merchant and effect, step the Luk Phat marker (changes ``s``).

    Returns whether a boat went into the hand, and the market day reached (or None).
    """
    tile_id, at = _place_tile(layout, s, seat, move)
    _assign_merchant(layout, s, seat, at, move)
    kept = _special_effect(layout, s, seat, at, move)
    if seat in s["first_round"]:
        s["first_round"].remove(seat)
    return kept, _luk_phat(layout, s, seat, layout.tiles[tile_id])


def _choice_left(layout: Layout, s: State, seat: int, kept: bool, may_relocate: bool) -> bool:
    """True when the turn draws from a pile the seat names (tactical variant) and there is a
    choice to make: two piles, or a move card to play after placing."""
    piles = draw_choices(layout, s, len(s["players"][seat]["hand"]), kept)
    if piles == [None]:
        return False
    movable = may_relocate and s["players"][seat]["move_cards"] > 0
    return len(piles) > 1 or (movable and can_relocate(layout, s["board"], seat))


ONCE_PER_TURN = phrase(
    "Placement rule 5: a move card may be played only once per turn, and you relocated a "
    "boat already."
)
MARKET_FIRST = phrase(
    "Market days: as soon as the Luk Phat marker reaches a market day it is held, before "
    "the rest of your turn; relocate a boat and draw once it is over, as your next decision."
)


def _relocation(move: Move) -> dict[str, str] | None:
    """The ``relocate`` field checked for shape (:data:`LATER` or a full relocation), or None."""
    if "relocate" not in move:
        return None
    value = move["relocate"]
    if value == LATER:
        return LATER
    if not isinstance(value, dict) or set(value) != RELOCATE_KEYS:
        raise IllegalMove(
            phrase(
                'A relocation is {"from": field, "to": field, "when": "before" or "after"}, or '
                '{"when": "after"} to choose the boat once the new one lies.'
            ),
            "move_shape",
        )
    if value["when"] not in WHENS:
        raise IllegalMove(
            phrase('A relocation happens "before" or "after" the placement.'), "move_shape"
        )
    return {"from": text(value, "from"), "to": text(value, "to"), "when": value["when"]}


def _check_later(layout: Layout, s: State, seat: int, move: Move) -> None:
    """``relocate after`` needs a move card, a boat that can move, and no ``draw`` yet."""
    if "draw" in move:
        raise IllegalMove(
            phrase("With 'relocate after' you draw when the turn ends, not with the placement."),
            "draw",
        )
    _check_move_card(s, seat)
    if not can_relocate(layout, s["board"], seat):
        raise IllegalMove(
            phrase(
                "Placement rule 5: after this placement none of your boats has a free "
                "neighbouring field to move to."
            ),
            "move_card",
        )


def play_relocate(layout: Layout, state: State, seat: int, move: Move) -> State:
    """A move card played as a decision of its own: before placing, or after it (changes
    ``state``)."""
    pending = state["pending"]
    if pending is None:
        check_keys(move, STEP_KEYS - {"draw"})
        _relocate(layout, state, seat, text(move, "from"), text(move, "to"))
        if not has_target(layout, state, seat, state["board"]):
            raise IllegalMove(
                phrase(
                    "Placement rule 5: after this relocation no boat of your hand could be placed."
                ),
                "move_card",
            )
        state["pending"] = {"seat": seat, "kind": PLACE}
        return state
    if pending["kind"] != FINISH or not pending["relocate"]:
        raise IllegalMove(ONCE_PER_TURN, "move_card")
    check_keys(move, STEP_KEYS)
    kept = not pending["draw"]
    _relocate(layout, state, seat, text(move, "from"), text(move, "to"))
    _finish(layout, state, seat, move.get("draw"), kept)
    return state


def play_finish(layout: Layout, state: State, seat: int, move: Move) -> State:
    """End a placed turn without (more) relocation: refill the hand, pass on (changes
    ``state``)."""
    check_keys(move, FINISH_KEYS)
    _finish(layout, state, seat, move.get("draw"), kept=not state["pending"]["draw"])
    return state


def _finish(layout: Layout, s: State, seat: int, draw: Any, kept: bool) -> None:
    """Refill the hand (unless a boat was ``kept`` in it) and end the turn (changes ``s``)."""
    _draw(layout, s, seat, draw, kept)
    _end_turn(s, seat)


def _end_turn(s: State, seat: int) -> None:
    """Nothing is pending any more; the next seat is to place (changes ``s``)."""
    s["pending"] = None
    s["current"] = (seat + 1) % len(s["players"])


def _check_move_card(s: State, seat: int) -> None:
    """The seat must still hold a move card."""
    if s["players"][seat]["move_cards"] <= 0:
        raise IllegalMove(
            phrase(
                "Placement rule 5: each player may relocate a boat only twice per game, and both "
                "move cards are used."
            ),
            "move_card",
        )


def _relocate(layout: Layout, s: State, seat: int, origin: str, target: str) -> None:
    """Play a move card: one own boat to a free neighbouring field."""
    _check_move_card(s, seat)
    board = s["board"]
    if origin not in own_fields(board, seat):
        raise IllegalMove(
            phrase(
                "Placement rule 5: a move card relocates one of your own boats; %(field)s holds "
                "none.",
                field=origin,
            ),
            "move_card",
        )
    if target not in relocation_destinations(layout, board, origin):
        raise IllegalMove(
            phrase(
                "Placement rule 5: a relocated boat goes to a free neighbouring field (diagonals "
                "too) whose sub-market has room; %(field)s is not one for %(origin)s.",
                field=target,
                origin=origin,
            ),
            "move_card",
        )
    s["players"][seat]["move_cards"] -= 1
    s["board"] = relocated(board, origin, target)


def _place_tile(layout: Layout, s: State, seat: int, move: Move) -> tuple[str, str]:
    """Put the boat from the hand on its field; return (tile id, field)."""
    tile_id, at = text(move, "tile"), text(move, "at")
    hand = s["players"][seat]["hand"]
    if tile_id not in hand:
        raise IllegalMove(
            phrase(
                "You can only place a boat from your hand; %(boat)s is not in it.", boat=tile_id
            ),
            "tile_in_hand",
        )
    problem = placement_problem(
        layout, s["board"], layout.tiles[tile_id], at, start_fields(layout, s, seat)
    )
    if problem:
        raise IllegalMove(problem[1], problem[0])
    hand.remove(tile_id)
    s["revealed"].pop(tile_id, None)
    s["board"][at] = {"tile": tile_id, "merchant": None}
    return tile_id, at


def _assign_merchant(layout: Layout, s: State, seat: int, at: str, move: Move) -> None:
    """Put a new, a taken-back or no merchant on the placed boat."""
    choice = text(move, "merchant")
    player = s["players"][seat]
    tile = layout.tiles[s["board"][at]["tile"]]
    if choice not in merchant_choices(s["board"], seat, player["merchants"], tile):
        raise IllegalMove(_merchant_message(tile, player["merchants"], choice), "merchant")
    if choice == "new":
        player["merchants"] -= 1
    elif choice != "none":
        s["board"][choice] = {**s["board"][choice], "merchant": None}
    if choice != "none":
        s["board"][at]["merchant"] = seat


def _merchant_message(tile: dict[str, Any], supply: int, choice: str) -> Phrase:
    """Why ``choice`` is not an allowed merchant for the boat."""
    if tile["special"] or tile["neutral"]:
        return phrase("Neutral and special boats have no merchant spot: use merchant none.")
    if choice == "new":
        return phrase(
            "All your merchants are on the board: take one back from an own boat, or none."
        )
    if supply > 0:
        return phrase("A merchant may only be taken back from another boat once all are in use.")
    return phrase("Merchant %(field)s is not one of your merchants on the board.", field=choice)


def _special_effect(layout: Layout, s: State, seat: int, at: str, move: Move) -> bool:
    """Run the thief's or overseer's action; True when a boat went into the hand."""
    special = layout.tiles[s["board"][at]["tile"]]["special"]
    if special == THIEF:
        return _steal(layout, s, seat, at, move)
    if special == OVERSEER:
        return _remove_thieves(layout, s, seat, at, move)
    for key in ("steal", "remove_thieves", "keep"):
        if key in move:
            raise IllegalMove(
                phrase(
                    "Only a thief steals and only an overseer removes thieves: no %(field)s here.",
                    field=repr(key),
                ),
                "special",
            )
    return False


def _steal(layout: Layout, s: State, seat: int, at: str, move: Move) -> bool:
    """The thief may take one boat of its row; it goes to the inventory or the hand."""
    if "remove_thieves" in move:
        raise IllegalMove(phrase("Only an overseer removes thieves."), "special")
    if "steal" not in move:
        if "keep" in move:
            raise IllegalMove(phrase("Thief: 'keep' only goes with a 'steal'."), "thief")
        return False
    target = text(move, "steal")
    if target not in steal_targets(layout, s["board"], at):
        raise IllegalMove(
            phrase(
                "Thief: a thief takes a boat of its own row, never an overseer nor a boat in an "
                "overseer's column; %(field)s cannot be taken.",
                field=target,
            ),
            "thief",
        )
    keep = move.get("keep")
    if keep not in THIEF_KEEPS:
        raise IllegalMove(
            phrase(
                "Thief: the stolen boat goes to your inventory (keep inventory, then draw) or "
                "your hand (keep hand, no draw)."
            ),
            "thief",
        )
    if keep == "hand":
        _take_into_hand(s, target, seat)
    else:
        _take_from_board(s, target, s["players"][seat]["inventory"])
    return keep == "hand"


def _remove_thieves(layout: Layout, s: State, seat: int, at: str, move: Move) -> bool:
    """The overseer may remove every thief of its column: one to the hand or all to the box."""
    if "steal" in move:
        raise IllegalMove(phrase("Only a thief steals boats."), "special")
    if "remove_thieves" not in move:
        if "keep" in move:
            raise IllegalMove(
                phrase("Overseer: 'keep' only goes with 'remove_thieves'."), "overseer"
            )
        return False
    thieves = thieves_in_column(layout, s["board"], at)
    if move["remove_thieves"] is not True or not thieves:
        raise IllegalMove(
            phrase(
                "Overseer: remove_thieves (true) is only possible with a thief in the overseer's "
                "column."
            ),
            "overseer",
        )
    keep = move.get("keep")
    if keep is not None and keep not in thieves:
        raise IllegalMove(
            phrase(
                "Overseer: you may keep one of the removed thieves (%(fields)s) in hand.",
                fields=", ".join(thieves),
            ),
            "overseer",
        )
    for field in thieves:
        if field == keep:
            _take_into_hand(s, field, seat)
        else:
            _take_from_board(s, field, s["box"])
    return keep is not None


def _take_into_hand(s: State, field: str, seat: int) -> None:
    """Lift the boat off ``field`` into ``seat``'s hand, in everybody's sight."""
    s["revealed"][s["board"][field]["tile"]] = seat
    _take_from_board(s, field, s["players"][seat]["hand"])


def _take_from_board(s: State, field: str, destination: list[str]) -> None:
    """Lift the boat off ``field`` into ``destination``; its merchant goes home."""
    cell = s["board"].pop(field)
    destination.append(cell["tile"])
    if cell["merchant"] is not None:
        s["players"][cell["merchant"]]["merchants"] += 1


def _luk_phat(layout: Layout, s: State, seat: int, tile: dict[str, Any]) -> str | None:
    """Advance the Luk Phat marker for a Luk Phat boat; the market day reached, if any."""
    if not tile["luk_phat"]:
        return None
    s["luk_phat"] += 1
    s["players"][seat]["score"] += layout.track[s["luk_phat"] - 1]
    return layout.market_days.get(s["luk_phat"])


def _draw(layout: Layout, s: State, seat: int, choice: Any, kept: bool) -> None:
    """Refill the hand (rule 6), from the chosen pile in the tactical variant."""
    hand = s["players"][seat]["hand"]
    choices = draw_choices(layout, s, len(hand), kept)
    if choice not in choices:
        raise IllegalMove(_draw_message(s, choices), "draw")
    if kept:
        return
    pile = s["draw_pile"]
    while len(hand) < layout.hand_size and pile:
        hand.append(_take_from_pile(layout, pile, choice))


def _take_from_pile(layout: Layout, pile: list[str], choice: str | None) -> str:
    """The top boat of the chosen tactical pile (of the other one once it is empty)."""
    for index, tile_id in enumerate(pile):
        if choice is None or pile_of(layout.tiles[tile_id]) == choice:
            return pile.pop(index)
    return pile.pop(0)


def _draw_message(s: State, choices: list[str | None]) -> Phrase:
    """Why the ``draw`` field is wrong."""
    if not s["options"]["tactical"]:
        return phrase("Only the tactical variant has two piles to draw from: leave out 'draw'.")
    if choices == [None]:
        return phrase("Tactical variant: no boat is drawn this turn, so leave out 'draw'.")
    return phrase(
        "Tactical variant: name the pile to draw from: %(piles)s.",
        piles={"or": [choice for choice in choices if choice]},
    )


# -- generation ----------------------------------------------------------------


def turn_moves(layout: Layout, state: State, seat: int) -> list[Move]:
    """Every legal decision of ``seat`` at this point of its turn (see the module docstring)."""
    pending = state["pending"]
    if pending is None:
        moves = list(_placements(layout, state, seat, later=True))
        return moves + _first_relocations(layout, state, seat)
    if pending["kind"] == PLACE:
        return list(_placements(layout, state, seat, later=False))
    return finish_moves(layout, state, seat)


def finish_moves(layout: Layout, state: State, seat: int) -> list[Move]:
    """``finish`` and, with a move card left to play, every ``relocate`` that ends the turn."""
    pending, player = state["pending"], state["players"][seat]
    draws = draw_choices(layout, state, len(player["hand"]), kept=not pending["draw"])
    moves = [_with_draw({"action": "finish"}, draw) for draw in draws]
    if pending["relocate"] and player["move_cards"] > 0:
        moves += [
            _with_draw({"action": "relocate", "from": origin, "to": target}, draw)
            for origin, target in relocations(layout, state["board"], seat)
            for draw in draws
        ]
    return moves


def can_place(layout: Layout, state: State, seat: int) -> bool:
    """True when ``seat`` has at least one legal placement (with a relocation before, maybe)."""
    if not state["players"][seat]["hand"]:
        return False
    if has_target(layout, state, seat, state["board"]):
        return True
    if state["players"][seat]["move_cards"] <= 0:
        return False
    return any(
        has_target(layout, state, seat, relocated(state["board"], origin, target))
        for origin, target in relocations(layout, state["board"], seat)
    )


def has_target(layout: Layout, state: State, seat: int, board: Board) -> bool:
    """True when some boat of ``seat``'s hand may be placed somewhere on ``board``."""
    starts = start_fields(layout, state, seat)
    return any(
        placement_problem(layout, board, layout.tiles[tile_id], at, starts) is None
        for tile_id in state["players"][seat]["hand"]
        for at in layout.coords
    )


def _targets(layout: Layout, state: State, seat: int) -> list[tuple[str, str]]:
    """Every (tile, field) placement allowed now.

    Only thieves have a rule of their own, so the fields are worked out once
    for thieves and once for every other boat.
    """
    board, starts = state["board"], start_fields(layout, state, seat)
    fields_for: dict[bool, list[str]] = {}
    targets = []
    for tile_id in state["players"][seat]["hand"]:
        tile = layout.tiles[tile_id]
        is_thief = tile["special"] == THIEF
        if is_thief not in fields_for:
            fields_for[is_thief] = [
                at
                for at in layout.coords
                if placement_problem(layout, board, tile, at, starts) is None
            ]
        targets += [(tile_id, at) for at in fields_for[is_thief]]
    return targets


def _first_relocations(layout: Layout, state: State, seat: int) -> list[Move]:
    """The move cards the seat may play before placing (a placement must remain possible)."""
    board = state["board"]
    if state["players"][seat]["move_cards"] <= 0:
        return []
    return [
        {"action": "relocate", "from": origin, "to": target}
        for origin, target in relocations(layout, board, seat)
        if has_target(layout, state, seat, relocated(board, origin, target))
    ]


def _placements(layout: Layout, state: State, seat: int, later: bool) -> Iterator[Move]:
    """The place moves now: whole turns, and with ``later`` those that relocate afterwards.

    Where the tactical variant draws from a pile of the seat's choice, the
    listed placement names no pile: the pile (and a relocation) is the next
    decision, so ``relocate after`` would add nothing; only when there is
    one pile and nothing to relocate does it name the pile and end the turn.
    A placement whose Luk Phat step reaches a market day stops there anyway.
    """
    board, player = state["board"], state["players"][seat]
    later = later and player["move_cards"] > 0
    hand_left = len(player["hand"]) - 1
    draws = {kept: draw_choices(layout, state, hand_left, kept) for kept in (False, True)}
    market_next = state["luk_phat"] + 1 in layout.market_days
    #: Whether a boat can move after a placement depends on the field, the merchant and the
    #: fields emptied, not on which boat was placed.
    movable: dict[tuple[str, str, tuple[str, ...]], bool] = {}
    for tile_id, at in _targets(layout, state, seat):
        tile = layout.tiles[tile_id]
        effects = _effects(layout, board, at, tile)
        for merchant in merchant_choices(board, seat, player["merchants"], tile):
            base = {"action": "place", "tile": tile_id, "at": at, "merchant": merchant}
            for extra, emptied, kept in effects:
                move = {**base, **extra}
                if tile["luk_phat"] and market_next:
                    yield move
                    continue
                key = (at, merchant, emptied)
                if later and key not in movable:
                    movable[key] = can_relocate(
                        layout, _board_after(board, seat, base, emptied), seat
                    )
                can_move = later and movable[key]
                piles = draws[kept]
                if piles == [None]:
                    yield move
                    if can_move:
                        yield {**move, "relocate": dict(LATER)}
                else:
                    yield {**move, "draw": piles[0]} if len(piles) == 1 and not can_move else move


def _with_draw(move: Move, draw: str | None) -> Move:
    """``move`` with its ``draw`` field, if the turn draws from a chosen pile."""
    return move if draw is None else {**move, "draw": draw}


def _effects(
    layout: Layout, board: Board, at: str, tile: dict[str, Any]
) -> list[tuple[dict[str, Any], tuple[str, ...], bool]]:
    """(extra move fields, fields emptied, boat kept in hand) per choice of a boat placed on ``at``.

    The thief's row and the overseer's column never include ``at``, so the
    choices are the same whatever merchant the boat gets.
    """
    effects: list[tuple[dict[str, Any], tuple[str, ...], bool]] = [({}, (), False)]
    if tile["special"] == THIEF:
        effects += [
            ({"steal": target, "keep": keep}, (target,), keep == "hand")
            for target in steal_targets(layout, board, at)
            for keep in THIEF_KEEPS
        ]
    elif tile["special"] == OVERSEER:
        thieves = tuple(thieves_in_column(layout, board, at))
        if thieves:
            effects.append(({"remove_thieves": True}, thieves, False))
            effects += [({"remove_thieves": True, "keep": keep}, thieves, True) for keep in thieves]
    return effects


def _board_after(board: Board, seat: int, base: Move, emptied: tuple[str, ...]) -> Board:
    """The board once the placement ``base`` and its effect (``emptied`` fields) are done."""
    after = {f: cell for f, cell in board.items() if f not in emptied}
    merchant = base["merchant"]
    if merchant in after:
        after[merchant] = {**after[merchant], "merchant": None}
    after[base["at"]] = {"tile": base["tile"], "merchant": None if merchant == "none" else seat}
    return after


def reached_market(layout: Layout, after: State, step: Move) -> str | None:
    """The market day the placement ``step`` reached (``after`` is the state it led to)."""
    tile = layout.tiles.get(step.get("tile"))
    if step.get("action") != "place" or tile is None or not tile["luk_phat"]:
        return None
    return layout.market_days.get(after["luk_phat"])


def join_turn(steps: list[Move]) -> Move:
    """The one ``place`` move doing what the decisions ``steps`` of one turn do.

    A move card played first becomes ``relocate ... before``, one played
    after placing ``relocate ... after``; ``relocate after`` followed by
    ``finish`` is a placement without relocation; the pile drawn from is named
    by the last decision. A single decision (a market day's) stays as it is.

    >>> join_turn([{"action": "relocate", "from": "r2c2", "to": "r2c3"},
    ...     {"action": "place", "tile": "t50", "at": "r3c4", "merchant": "new"}])["relocate"]
    {'from': 'r2c2', 'to': 'r2c3', 'when': 'before'}
    """
    if len(steps) == 1:
        return steps[0]
    before = steps[0] if steps[0].get("action") == "relocate" else None
    placements = [step for step in steps if step.get("action") == "place"]
    if len(placements) != 1 or steps[1 if before else 0] is not placements[0]:
        raise IllegalMove(phrase("A turn of several decisions places exactly one boat."), "turn")
    move = dict(placements[0])
    if before is not None:
        move["relocate"] = {"from": before["from"], "to": before["to"], "when": "before"}
    for step in steps[2 if before else 1 :]:
        if step.get("action") == "relocate":
            move["relocate"] = {"from": step["from"], "to": step["to"], "when": "after"}
        elif move.get("relocate") == LATER:
            del move["relocate"]
        if "draw" in step:
            move["draw"] = step["draw"]
    return move
