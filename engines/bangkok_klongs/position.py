"""Building a state from a position (CONTRACT section 2, "Create a game").

A position has the public state shape plus ``to_move``; each seat's ``hand``
sits in its entry of ``players`` and ``draw_pile`` is the ordered list of tile
ids (top first). Left-out keys take their natural value: an empty board, no
market day, marker on the start space, empty hands and inventories, score 0,
both move cards, merchants = supply minus those on the board, an empty box,
``first_round`` = every seat on an empty board and nobody otherwise, no
``pending`` decision, and a ``draw_pile`` of every tile not placed elsewhere,
shuffled from the seed. Anything malformed (a wrong type anywhere) or
inconsistent raises :class:`InvalidPosition`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NoReturn

from engines.bangkok_klongs.board import BIG, SMALL, Layout, has_merchant_spot
from engines.bangkok_klongs.rules import FINISH, PLACE, has_target
from engines.base import InvalidPosition, State
from engines.rng import Rng

#: ``options``, ``draw_piles`` and ``track`` may be posted back from a view; the last two
#: are derived, hence ignored.
POSITION_KEYS = frozenset(
    {
        "board", "tiles", "luk_phat", "market", "pending", "players", "draw_pile", "box",
        "first_round", "to_move", "options", "draw_piles", "track",
    }
)  # fmt: skip
PLAYER_KEYS = frozenset(
    {"seat", "score", "merchants", "move_cards", "inventory", "hand", "hand_size"}
)


def _fail(message: str) -> NoReturn:
    """Refuse the position."""
    raise InvalidPosition(message, "position")


def _is_int(value: Any) -> bool:
    """True for a real integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A short rendering of a wrong value for a message."""
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _same_int(value: Any, expected: int) -> bool:
    """True when ``value`` is the integer ``expected`` (not a bool nor a float)."""
    return _is_int(value) and value == expected


def _int(value: Any, name: str, low: int, high: int) -> int:
    """``value`` as an integer in ``low..high``."""
    if not _is_int(value) or not low <= value <= high:
        _fail(f"{name} must be a whole number from {low} to {high}.")
    return value


def _tile(value: Any, name: str, layout: Layout) -> str:
    """``value`` as a known tile id."""
    if not isinstance(value, str) or value not in layout.tiles:
        _fail(
            f"{name} must be a tile id of this board (t0 to t{len(layout.tiles) - 1}), "
            f"not {_shown(value)}."
        )
    return value


def _tile_list(value: Any, name: str, layout: Layout) -> list[str]:
    """``value`` as a list of known tile ids."""
    if not isinstance(value, list) or len(value) > len(layout.tiles):
        _fail(f"{name} must be a list of at most {len(layout.tiles)} tile ids.")
    return [_tile(t, f"Every entry of {name}", layout) for t in value]


def _seat(value: Any, name: str, count: int) -> int:
    """``value`` as a seat number."""
    return _int(value, name, 0, count - 1)


def _seat_list(value: Any, name: str, count: int) -> list[int]:
    """``value`` as a list of distinct seats."""
    if not isinstance(value, list) or not all(_is_int(s) and 0 <= s < count for s in value):
        _fail(f"{name} must be a list of seats 0 to {count - 1}.")
    if len(set(value)) != len(value):
        _fail(f"{name} names a seat twice.")
    return list(value)


def build_state(
    layout: Layout, count: int, options: dict[str, Any], seed: int, position: Any
) -> State:
    """The (unsettled) state described by ``position``; InvalidPosition if it is inconsistent."""
    if not isinstance(position, dict):
        _fail("A position is a JSON object.")
    if "hand" in position:
        _fail("Put each seat's hand in its entry of players, not at the top level.")
    unknown = sorted(set(position) - POSITION_KEYS)
    if unknown:
        _fail(f"Unknown position key(s): {', '.join(unknown)}.")
    if position.get("options", options) != options:
        _fail("The position's options differ from the game's options.")
    _check_tiles(layout, position.get("tiles", {}))
    board = _board(layout, position.get("board", {}), count)
    players = [
        _player(layout, count, seat, entry, board)
        for seat, entry in enumerate(_player_entries(position.get("players"), count))
    ]
    box = _tile_list(position.get("box", []), "box", layout)
    rng = Rng(seed)
    pile = _draw_pile(layout, position, board, players, box, rng)
    luk_phat = _int(position.get("luk_phat", 0), "luk_phat", 0, len(layout.track))
    to_move = _to_move(position.get("to_move", 0), count)
    market = _market(layout, position.get("market"), luk_phat, to_move, count)
    default_first = list(range(count)) if not board else []
    state = {
        "options": dict(options),
        "rng": rng.state,
        "board": board,
        "tiles": {t: dict(d) for t, d in layout.tiles.items()},
        "luk_phat": luk_phat,
        "market": market,
        "pending": _pending(position.get("pending"), to_move, market, count),
        "players": players,
        "draw_pile": pile,
        "box": box,
        "current": to_move,
        "first_round": _seat_list(position.get("first_round", default_first), "first_round", count),
        "finished": False,
        "inventory_points": None,
        "revealed": {},
    }
    pending = state["pending"]
    if pending and pending["kind"] == PLACE and not has_target(layout, state, to_move, board):
        _fail("The pending placement is impossible: no boat of the hand fits anywhere.")
    return state


def _check_tiles(layout: Layout, tiles: Any) -> None:
    """A given ``tiles`` map must agree with the board's tile mix."""
    if not isinstance(tiles, dict):
        _fail("tiles must map tile ids to their descriptions.")
    for tile_id, description in tiles.items():
        if layout.tiles.get(tile_id) != description:
            _fail(f"Tile {tile_id} is not part of this board's tile mix as described.")


def _board(layout: Layout, board: Any, count: int) -> dict[str, dict[str, Any]]:
    """The board checked field by field and sub-market by sub-market."""
    if not isinstance(board, dict):
        _fail("board must map fields to boats.")
    result = {}
    for field, cell in board.items():
        if field not in layout.coords:
            _fail(f"There is no water field {field} on this board.")
        if not isinstance(cell, dict) or set(cell) - {"tile", "merchant"} or "tile" not in cell:
            _fail(f'Field {field} must hold {{"tile": id, "merchant": seat or null}}.')
        tile_id = _tile(cell["tile"], f"The tile on {field}", layout)
        merchant = cell.get("merchant")
        if merchant is not None:
            _seat(merchant, f"The merchant on {field}", count)
            if not has_merchant_spot(layout.tiles[tile_id]):
                _fail(f"The boat on {field} is neutral or special: it has no merchant spot.")
        result[field] = {"tile": tile_id, "merchant": merchant}
    loads: dict[str, int] = {}
    for field in result:
        sub = layout.sub_market[field]
        loads[sub] = loads.get(sub, 0) + 1
        if loads[sub] > layout.sub_market_capacity:
            _fail(f"The sub-market of {field} holds more than {layout.sub_market_capacity} boats.")
    return result


def _player_entries(entries: Any, count: int) -> list[dict[str, Any]]:
    """The ``players`` list, one object per seat (defaults when left out)."""
    if entries is None:
        return [{} for _ in range(count)]
    if not isinstance(entries, list) or len(entries) != count:
        _fail(f"players must list all {count} seats.")
    if not all(isinstance(e, dict) for e in entries):
        _fail("Every entry of players must be an object.")
    return entries


def _player(
    layout: Layout, count: int, seat: int, entry: dict[str, Any], board: dict[str, Any]
) -> dict[str, Any]:
    """One seat's entry checked against the board."""
    unknown = sorted(set(entry) - PLAYER_KEYS)
    if unknown:
        _fail(f"Unknown player key(s): {', '.join(unknown)}.")
    if not _same_int(entry.get("seat", seat), seat):
        _fail(f"The players entry at index {seat} must have seat {seat}.")
    total = layout.merchants[count]
    on_board = sum(1 for cell in board.values() if cell["merchant"] == seat)
    if on_board > total:
        _fail(f"Seat {seat} has more than its {total} merchants on the board.")
    merchants = entry.get("merchants", total - on_board)
    if not _same_int(merchants, total - on_board):
        _fail(f"Seat {seat}: merchants off the board plus on the board must make {total}.")
    hand = _tile_list(entry.get("hand", []), f"Seat {seat}'s hand", layout)
    if len(hand) > layout.hand_size:
        _fail(f"Seat {seat}'s hand holds more than {layout.hand_size} boats.")
    if not _same_int(entry.get("hand_size", len(hand)), len(hand)):
        _fail(f"Seat {seat}'s hand_size differs from its hand.")
    return {
        "seat": seat,
        "score": _int(entry.get("score", 0), f"Seat {seat}'s score", 0, 10**6),
        "merchants": merchants,
        "move_cards": _int(
            entry.get("move_cards", layout.move_cards), "move_cards", 0, layout.move_cards
        ),
        "inventory": _tile_list(entry.get("inventory", []), f"Seat {seat}'s inventory", layout),
        "hand": hand,
    }


def _draw_pile(
    layout: Layout,
    position: dict[str, Any],
    board: dict[str, Any],
    players: list[dict[str, Any]],
    box: list[str],
    rng: Rng,
) -> list[str]:
    """The draw pile: given (then all 72 tiles must be accounted for) or the rest, shuffled."""
    placed = [cell["tile"] for cell in board.values()] + box
    for player in players:
        placed += player["hand"] + player["inventory"]
    placed_set = set(placed)
    if "draw_pile" in position:
        pile = _tile_list(position["draw_pile"], "draw_pile", layout)
    else:
        pile = rng.shuffled([t for t in layout.tiles if t not in placed_set])
    everywhere = placed + pile
    doubles = sorted(t for t, n in Counter(everywhere).items() if n > 1)
    if doubles:
        _fail(f"Tiles found in two places: {', '.join(doubles)}.")
    found = set(everywhere)
    missing = [t for t in layout.tiles if t not in found]
    if missing:
        _fail(f"Tiles not accounted for (board, hands, inventories, box, pile): {missing[0]}...")
    return pile


def _to_move(value: Any, count: int) -> int:
    """``to_move`` given as a seat or a one-seat list."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return _seat(value, "to_move", count)


def _market(
    layout: Layout, market: Any, luk_phat: int, to_move: int, count: int
) -> dict[str, Any] | None:
    """The running market day, if any, checked against the marker and ``to_move``."""
    if market is None:
        if luk_phat == len(layout.track):
            _fail("With the Luk Phat marker on the last space the big market day must be on.")
        return None
    if not isinstance(market, dict) or market.get("kind") not in (SMALL, BIG):
        _fail('market must be null or an object with kind "small" or "big".')
    trigger = _seat(market.get("trigger"), "market trigger", count)
    if not _same_int(market.get("seat", to_move), to_move):
        _fail("During a market day to_move must be the market's seat.")
    if market["kind"] == SMALL:
        return _small_market(layout, market, luk_phat, trigger, to_move, count)
    allowed = {"kind", "trigger", "seat", "declined"}
    if set(market) - allowed:
        _fail(f"A big market day has only the keys {', '.join(sorted(allowed))}.")
    declined = _seat_list(market.get("declined", []), "market declined", count)
    return {"kind": BIG, "trigger": trigger, "seat": to_move, "declined": declined}


def _small_market(
    layout: Layout, market: dict[str, Any], luk_phat: int, trigger: int, to_move: int, count: int
) -> dict[str, Any]:
    """A small market day: on a small-market space, ``step`` matching ``to_move``."""
    allowed = {"kind", "trigger", "seat", "step"}
    if set(market) - allowed:
        _fail(f"A small market day has only the keys {', '.join(sorted(allowed))}.")
    if layout.market_days.get(luk_phat) != SMALL:
        _fail("A small market day needs the Luk Phat marker on a small market space.")
    step = _int(market.get("step", (to_move - trigger) % count), "market step", 0, 2 * count - 1)
    if (trigger + step) % count != to_move:
        _fail("The small market day's step does not lead to the seat to move.")
    return {"kind": SMALL, "trigger": trigger, "seat": to_move, "step": step}


def _pending(
    value: Any, to_move: int, market: dict[str, Any] | None, count: int
) -> dict[str, Any] | None:
    """The rest of a turn awaited from a seat (see :mod:`.rules`), checked against the market."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("kind") not in (PLACE, FINISH):
        _fail('pending must be null or an object with kind "place" or "finish".')
    kind = value["kind"]
    allowed = {"seat", "kind", "relocate", "draw"} if kind == FINISH else {"seat", "kind"}
    if set(value) - allowed:
        _fail(f"A pending {kind} decision has only the keys {', '.join(sorted(allowed))}.")
    seat = _seat(value.get("seat", market["trigger"] if market else to_move), "pending seat", count)
    if market is None and seat != to_move:
        _fail("With a pending decision to_move must be its seat.")
    if market is not None and (
        market["kind"] != SMALL or kind != FINISH or seat != market["trigger"]
    ):
        _fail("During a market day only the rest of the small market day's trigger's turn waits.")
    if kind == PLACE:
        return {"seat": seat, "kind": PLACE}
    flags = {"relocate": value.get("relocate", False), "draw": value.get("draw", True)}
    if not all(isinstance(flag, bool) for flag in flags.values()):
        _fail("pending relocate and draw are true or false.")
    return {"seat": seat, "kind": FINISH, **flags}
