"""The placement turn: validating and playing a ``place`` move, and listing every legal one.

A turn runs in this order: move-card relocation ``before``, placement of the
boat, its merchant, the thief's or overseer's effect, the Luk Phat step, the
relocation ``after``, the draw. ``play_place`` checks each step on a copy of
the state and raises :class:`IllegalMove` at the first broken rule;
``place_moves`` walks the same steps over every choice.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.bangkok_klongs.boards import Layout
from engines.bangkok_klongs.rules import (
    OVERSEER,
    THIEF,
    Board,
    merchant_choices,
    own_fields,
    placement_problem,
    relocated,
    relocation_destinations,
    relocations,
    steal_targets,
    thieves_in_column,
)
from engines.base import Engine, IllegalMove, Move, State

PLACE_KEYS = frozenset(
    {"action", "tile", "at", "merchant", "relocate", "steal", "keep", "remove_thieves", "draw"}
)
RELOCATE_KEYS = frozenset({"from", "to", "when"})
WHENS = ("before", "after")
THIEF_KEEPS = ("hand", "inventory")
MERCHANT_PILE, PLAIN_PILE = "merchant", "plain"


# -- helpers shared with the rest of the engine -------------------------------


def text(move: Move, key: str) -> str:
    """``move[key]`` as a string, or IllegalMove naming the missing or wrong field."""
    value = move.get(key)
    if not isinstance(value, str):
        raise IllegalMove(f"The move needs a text field {key!r}.", "move_shape")
    return value


def check_keys(move: Move, allowed: frozenset[str]) -> None:
    """Refuse fields the move does not know."""
    unknown = sorted(set(move) - allowed)
    if unknown:
        raise IllegalMove(f"This move has no field(s) {', '.join(unknown)}.", "move_shape")


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


def play_place(layout: Layout, state: State, seat: int, move: Move) -> tuple[State, str | None]:
    """The state after ``seat`` places a boat, and the market day it starts (or None)."""
    check_keys(move, PLACE_KEYS)
    s = Engine.copy_state(state)
    relocation = _relocation(move)
    if relocation and relocation["when"] == "before":
        _relocate(layout, s, seat, relocation)
    tile_id, at = _place_tile(layout, s, seat, move)
    _assign_merchant(layout, s, seat, at, move)
    kept = _special_effect(layout, s, seat, at, move)
    market = _luk_phat(layout, s, seat, layout.tiles[tile_id])
    if relocation and relocation["when"] == "after":
        _relocate(layout, s, seat, relocation)
    _draw(layout, s, seat, move.get("draw"), kept)
    if seat in s["first_round"]:
        s["first_round"].remove(seat)
    if market is None:
        s["current"] = (seat + 1) % len(s["players"])
    return s, market


def _relocation(move: Move) -> dict[str, str] | None:
    """The ``relocate`` field checked for shape, or None."""
    if "relocate" not in move:
        return None
    value = move["relocate"]
    if not isinstance(value, dict) or set(value) != RELOCATE_KEYS:
        raise IllegalMove(
            'A relocation is {"from": field, "to": field, "when": "before" or "after"}.',
            "move_shape",
        )
    if value["when"] not in WHENS:
        raise IllegalMove('A relocation happens "before" or "after" the placement.', "move_shape")
    return {"from": text(value, "from"), "to": text(value, "to"), "when": value["when"]}


def _relocate(layout: Layout, s: State, seat: int, relocation: dict[str, str]) -> None:
    """Play a move card: one own boat to a free neighbouring field."""
    player = s["players"][seat]
    if player["move_cards"] <= 0:
        raise IllegalMove(
            "Placement rule 5: each player may relocate a boat only twice per game, "
            "and both move cards are used.",
            "move_card",
        )
    board, origin, target = s["board"], relocation["from"], relocation["to"]
    if origin not in own_fields(board, seat):
        raise IllegalMove(
            f"Placement rule 5: a move card relocates one of your own boats; {origin} holds none.",
            "move_card",
        )
    if target not in relocation_destinations(layout, board, origin):
        raise IllegalMove(
            f"Placement rule 5: a relocated boat goes to a free neighbouring field (diagonals "
            f"too) whose sub-market has room; {target} is not one for {origin}.",
            "move_card",
        )
    player["move_cards"] -= 1
    s["board"] = relocated(board, relocation)


def _place_tile(layout: Layout, s: State, seat: int, move: Move) -> tuple[str, str]:
    """Put the boat from the hand on its field; return (tile id, field)."""
    tile_id, at = text(move, "tile"), text(move, "at")
    hand = s["players"][seat]["hand"]
    if tile_id not in hand:
        raise IllegalMove(
            f"You can only place a boat from your hand; {tile_id} is not in it.", "tile_in_hand"
        )
    problem = placement_problem(
        layout, s["board"], layout.tiles[tile_id], at, start_fields(layout, s, seat)
    )
    if problem:
        raise IllegalMove(problem[1], problem[0])
    hand.remove(tile_id)
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


def _merchant_message(tile: dict[str, Any], supply: int, choice: str) -> str:
    """Why ``choice`` is not an allowed merchant for the boat."""
    if tile["special"] or tile["neutral"]:
        return "Neutral and special boats have no merchant spot: use merchant none."
    if choice == "new":
        return "All your merchants are on the board: take one back from an own boat, or none."
    if supply > 0:
        return "A merchant may only be taken back from another boat once all are in use."
    return f"Merchant {choice} is not one of your merchants on the board."


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
                f"Only a thief steals and only an overseer removes thieves: no {key!r} here.",
                "special",
            )
    return False


def _steal(layout: Layout, s: State, seat: int, at: str, move: Move) -> bool:
    """The thief may take one boat of its row; it goes to the inventory or the hand."""
    if "remove_thieves" in move:
        raise IllegalMove("Only an overseer removes thieves.", "special")
    if "steal" not in move:
        if "keep" in move:
            raise IllegalMove("Thief: 'keep' only goes with a 'steal'.", "thief")
        return False
    target = text(move, "steal")
    if target not in steal_targets(layout, s["board"], at):
        raise IllegalMove(
            f"Thief: a thief takes a boat of its own row, never an overseer nor a boat in an "
            f"overseer's column; {target} cannot be taken.",
            "thief",
        )
    keep = move.get("keep")
    if keep not in THIEF_KEEPS:
        raise IllegalMove(
            "Thief: the stolen boat goes to your inventory (keep inventory, then draw) or "
            "your hand (keep hand, no draw).",
            "thief",
        )
    _take_from_board(s, target, s["players"][seat]["hand" if keep == "hand" else "inventory"])
    return keep == "hand"


def _remove_thieves(layout: Layout, s: State, seat: int, at: str, move: Move) -> bool:
    """The overseer may remove every thief of its column: one to the hand or all to the box."""
    if "steal" in move:
        raise IllegalMove("Only a thief steals boats.", "special")
    if "remove_thieves" not in move:
        if "keep" in move:
            raise IllegalMove("Overseer: 'keep' only goes with 'remove_thieves'.", "overseer")
        return False
    thieves = thieves_in_column(layout, s["board"], at)
    if move["remove_thieves"] is not True or not thieves:
        raise IllegalMove(
            "Overseer: remove_thieves (true) is only possible with a thief in the overseer's "
            "column.",
            "overseer",
        )
    keep = move.get("keep")
    if keep is not None and keep not in thieves:
        raise IllegalMove(
            f"Overseer: you may keep one of the removed thieves ({', '.join(thieves)}) in hand.",
            "overseer",
        )
    for field in thieves:
        _take_from_board(s, field, s["players"][seat]["hand"] if field == keep else s["box"])
    return keep is not None


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


def _draw_message(s: State, choices: list[str | None]) -> str:
    """Why the ``draw`` field is wrong."""
    if not s["options"]["tactical"]:
        return "Only the tactical variant has two piles to draw from: leave out 'draw'."
    if choices == [None]:
        return "Tactical variant: no boat is drawn this turn, so leave out 'draw'."
    return f"Tactical variant: name the pile to draw from: {' or '.join(choices)}."


# -- generation ----------------------------------------------------------------


def place_moves(layout: Layout, state: State, seat: int) -> list[Move]:
    """Every legal ``place`` move of ``seat`` (whose turn it is)."""
    moves = list(_placements(layout, state, seat, state["board"], None))
    if state["players"][seat]["move_cards"] > 0:
        for before in relocations(layout, state["board"], seat, "before"):
            board = relocated(state["board"], before)
            moves.extend(_placements(layout, state, seat, board, before))
    return moves


def can_place(layout: Layout, state: State, seat: int) -> bool:
    """True when ``seat`` has at least one legal placement (with a relocation before, maybe)."""
    if not state["players"][seat]["hand"]:
        return False
    if _has_target(layout, state, seat, state["board"]):
        return True
    if state["players"][seat]["move_cards"] <= 0:
        return False
    return any(
        _has_target(layout, state, seat, relocated(state["board"], before))
        for before in relocations(layout, state["board"], seat, "before")
    )


def _has_target(layout: Layout, state: State, seat: int, board: Board) -> bool:
    """True when some boat of the hand may be placed somewhere on ``board``."""
    starts = start_fields(layout, state, seat)
    return any(
        placement_problem(layout, board, layout.tiles[tile_id], at, starts) is None
        for tile_id in state["players"][seat]["hand"]
        for at in layout.coords
    )


def _targets(layout: Layout, state: State, seat: int, board: Board) -> list[tuple[str, str]]:
    """Every (tile, field) placement allowed on ``board``.

    Only thieves have a rule of their own, so the fields are worked out once
    for thieves and once for every other boat.
    """
    starts = start_fields(layout, state, seat)
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


def _placements(
    layout: Layout, state: State, seat: int, board: Board, before: dict[str, str] | None
) -> Iterator[Move]:
    """The place moves on ``board`` (after the relocation ``before``, if any)."""
    player = state["players"][seat]
    relocate_after = before is None and player["move_cards"] > 0
    hand_left = len(player["hand"]) - 1
    for tile_id, at in _targets(layout, state, seat, board):
        tile = layout.tiles[tile_id]
        for merchant in merchant_choices(board, seat, player["merchants"], tile):
            base = {"action": "place", "tile": tile_id, "at": at, "merchant": merchant}
            for extra, after_board, kept in _effects(layout, board, seat, base):
                afters: list[dict[str, str] | None] = [before]
                if relocate_after:
                    afters += relocations(layout, after_board, seat, "after")
                for relocation in afters:
                    for draw in draw_choices(layout, state, hand_left, kept):
                        yield _assemble(base, extra, relocation, draw)


def _effects(
    layout: Layout, board: Board, seat: int, base: Move
) -> Iterator[tuple[dict[str, Any], Board, bool]]:
    """(extra move fields, board afterwards, boat kept in hand) for each special choice."""
    placed = dict(board)
    merchant = base["merchant"]
    if merchant not in ("new", "none"):
        placed[merchant] = {**placed[merchant], "merchant": None}
    at = base["at"]
    placed[at] = {"tile": base["tile"], "merchant": None if merchant == "none" else seat}
    yield {}, placed, False
    special = layout.tiles[base["tile"]]["special"]
    if special == THIEF:
        for target in steal_targets(layout, placed, at):
            after = {f: c for f, c in placed.items() if f != target}
            for keep in THIEF_KEEPS:
                yield {"steal": target, "keep": keep}, after, keep == "hand"
    elif special == OVERSEER:
        thieves = thieves_in_column(layout, placed, at)
        if thieves:
            after = {f: c for f, c in placed.items() if f not in thieves}
            yield {"remove_thieves": True}, after, False
            for keep in thieves:
                yield {"remove_thieves": True, "keep": keep}, after, True


def _assemble(
    base: Move, extra: dict[str, Any], relocation: dict[str, str] | None, draw: str | None
) -> Move:
    """One complete place move."""
    move = {**base, **extra}
    if relocation is not None:
        move["relocate"] = dict(relocation)
    if draw is not None:
        move["draw"] = draw
    return move
