"""The eight action cards: every legal execution of a card, and why another one is not.

An execution of a card (without the take) is reduced to a *key*, a tuple of
plain strings, so that the legal executions of a card form a list and a
move is checked by looking its key up there. ``()`` is the key of a card
that can do nothing; otherwise:

- maharacha: ``(tile_a, tile_b, king)``
- khon_thai: ``((faction, province), ...)``, one pair per faction still in
  the pool, in faction order
- one_vs_one: ``((province, faction), (province, faction))``
- two_vs_one: ``(province, faction, faction, province, faction)``
- rama, lao, malay: ``(province, ...)``, one per follower placed

:func:`deltas` turns a key into follower changes ``(province, faction, +-1)``
on the board; the pool pays for (or receives) the net change of each faction.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from engines.base import IllegalMove, Move, State
from engines.king_of_siam.maps import FACTIONS, Board, get_board

HAND = ("maharacha", "khon_thai", "khon_thai", "one_vs_one", "two_vs_one", "rama", "lao", "malay")
CARDS = tuple(dict.fromkeys(HAND))
CARD_FIELDS = {
    "maharacha": ("swap", "king"),
    "khon_thai": ("place",),
    "one_vs_one": ("give", "get"),
    "two_vs_one": ("two", "one"),
    "rama": ("place",),
    "lao": ("place",),
    "malay": ("place",),
}
CARD_TITLES = {
    "maharacha": "Maharacha",
    "khon_thai": "Khon Thai",
    "one_vs_one": "1 vs 1",
    "two_vs_one": "2 vs 1",
    "rama": "Rama",
    "lao": "Lao",
    "malay": "Malay",
}
AS_FAR_AS_POSSIBLE = "A card must be executed as far as legally possible"

Key = tuple[Any, ...]
Delta = tuple[str, str, int]


class Table:
    """Read-only helpers over a state: the board, follower counts and control."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.board: Board = get_board(state["map"])
        self.provinces: dict[str, Any] = state["provinces"]

    def count(self, province: str, faction: str) -> int:
        """Followers of ``faction`` in ``province``."""
        return self.provinces[province]["followers"][faction]

    def control(self, province: str) -> str | None:
        """The faction or ``british`` controlling ``province``, or None."""
        return self.provinces[province]["control"]

    def open_provinces(self) -> list[str]:
        """Provinces not yet controlled, in map order: the only ones that take followers."""
        return [p for p in self.board.provinces if self.provinces[p]["control"] is None]

    def pool(self, faction: str) -> int:
        """Followers of ``faction`` in the common pool."""
        return self.state["pool"][faction]

    def swappable_tiles(self) -> list[str]:
        """Face-up tiles without a King marker, in struggle order."""
        return [p for p in self.state["struggle_order"]
                if self.provinces[p]["control"] is None and not self.provinces[p]["king_marker"]]

    def faction_targets(self, faction: str) -> list[str]:
        """Open provinces adjacent to a ``faction`` province or to its unspoilt home."""
        home = self.board.homes[faction]
        bases = [p for p in self.board.provinces if self.control(p) == faction]
        if self.control(home) in (None, faction):
            bases.append(home)
        near = {neighbour for base in bases for neighbour in self.board.adjacent[base]}
        return [p for p in self.open_provinces() if p in near]

    def ends(self) -> list[tuple[str, str]]:
        """Every ``(province, faction)`` with at least one follower on the board."""
        return [(p, f) for p in self.board.provinces for f in FACTIONS if self.count(p, f)]


# -- legal executions -------------------------------------------------------
def legal_keys(table: Table, card: str) -> list[Key]:
    """Every maximal execution of ``card`` now (``[()]`` when nothing is possible)."""
    keys = _faction_keys(table, card) if card in FACTIONS else _KEY_MAKERS[card](table)
    return keys or [()]


def _maharacha_keys(table: Table) -> list[Key]:
    tiles = table.swappable_tiles()
    return [(a, b, king) for a in tiles for b in tiles if a != b for king in (a, b)]


def _khon_thai_keys(table: Table) -> list[Key]:
    factions = [f for f in FACTIONS if table.pool(f)]
    targets = table.open_provinces()
    return [tuple(zip(factions, combo, strict=True))
            for combo in product(targets, repeat=len(factions))]


def _one_vs_one_keys(table: Table) -> list[Key]:
    forbidden = _undo_of(table.state.get("last_card"), "one_vs_one")
    ends = table.ends()
    return [(a, b) for a in ends for b in ends
            if a[0] != b[0] and (a, b) not in forbidden]


def _two_vs_one_keys(table: Table) -> list[Key]:
    forbidden = _undo_of(table.state.get("last_card"), "two_vs_one")
    keys = []
    for first in table.open_provinces():
        pairs = [(f, g) for f in FACTIONS for g in FACTIONS
                 if table.count(first, f) >= 1 + (f == g) and table.count(first, g)]
        ones = [(second, h) for second in sorted(table.board.adjacent[first])
                for h in FACTIONS if table.count(second, h)]
        keys += [(first, f, g, second, h) for f, g in pairs for second, h in ones
                 if (first, *sorted((f, g)), second, h) not in forbidden]
    return keys


def _faction_keys(table: Table, faction: str) -> list[Key]:
    targets = table.faction_targets(faction)
    count = min(2, table.pool(faction)) if targets else 0
    return list(product(targets, repeat=count)) if count else []


_KEY_MAKERS = {
    "maharacha": _maharacha_keys,
    "khon_thai": _khon_thai_keys,
    "one_vs_one": _one_vs_one_keys,
    "two_vs_one": _two_vs_one_keys,
}


def _undo_of(last: dict[str, Any] | None, card: str) -> set[Key]:
    """Keys (2 vs 1: with sorted factions) that would undo ``last`` if it was ``card``."""
    if not last or last.get("card") != card:
        return set()
    if card == "one_vs_one" and last["give"]:
        give, get = last["give"], last["get"]
        back_a = (get["province"], give["faction"])
        back_b = (give["province"], get["faction"])
        return {(back_a, back_b), (back_b, back_a)}
    if card == "two_vs_one" and last["two"]:
        two, one = last["two"], last["one"]
        return {(one["province"], *sorted(two["factions"]), two["province"], one["faction"])}
    return set()


# -- keys <-> move fields ---------------------------------------------------
def move_of(card: str, key: Key, take: dict[str, str] | None) -> Move:
    """The play of ``card`` executed as ``key`` with ``take`` (fresh objects every call)."""
    if card == "khon_thai":
        return {"action": "play", "card": card, "place": {f: p for f, p in key}, "take": take}
    if card == "one_vs_one":
        if not key:
            return {"action": "play", "card": card, "give": None, "get": None, "take": take}
        (p1, f1), (p2, f2) = key
        return {"action": "play", "card": card, "give": {"province": p1, "faction": f1},
                "get": {"province": p2, "faction": f2}, "take": take}
    if card == "two_vs_one":
        if not key:
            return {"action": "play", "card": card, "two": None, "one": None, "take": take}
        first, f, g, second, h = key
        return {"action": "play", "card": card, "two": {"province": first, "factions": [f, g]},
                "one": {"province": second, "faction": h}, "take": take}
    if card == "maharacha":
        if not key:
            return {"action": "play", "card": card, "swap": [], "king": None, "take": take}
        return {"action": "play", "card": card, "swap": [key[0], key[1]], "king": key[2],
                "take": take}
    return {"action": "play", "card": card, "place": list(key), "take": take}


def fields_of(card: str, key: Key) -> dict[str, Any]:
    """The card fields of ``card`` executed as ``key`` (the play without action, card, take)."""
    move = move_of(card, key, None)
    return {name: move[name] for name in CARD_FIELDS[card]}


def deltas(card: str, key: Key) -> list[Delta]:
    """The follower changes on the board made by ``card`` executed as ``key``."""
    if not key or card == "maharacha":
        return []
    if card == "khon_thai":
        return [(province, faction, 1) for faction, province in key]
    if card == "one_vs_one":
        (p1, f1), (p2, f2) = key
        return [(p1, f1, -1), (p2, f1, 1), (p2, f2, -1), (p1, f2, 1)]
    if card == "two_vs_one":
        first, f, g, second, h = key
        return [(first, f, -1), (first, g, -1), (second, f, 1), (second, g, 1),
                (second, h, -1), (first, h, 1)]
    return [(province, card, 1) for province in key]


def _shape(message: str) -> IllegalMove:
    return IllegalMove(message, "move_shape")


def _province(table: Table, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _shape(f"{what} must be a province name.")
    if value not in table.provinces:
        names = ", ".join(table.board.provinces)
        raise IllegalMove(f"'{value}' is not a province of the {table.board.name} map "
                          f"({names}).", "unknown_province")
    return value


def _faction(value: Any, what: str) -> str:
    if value not in FACTIONS:
        raise _shape(f"{what} must be one of the factions rama, lao or malay.")
    return value


def follower_ref(table: Table, value: Any, what: str) -> tuple[str, str]:
    """``(province, faction)`` of a ``{"province", "faction"}`` object; IllegalMove otherwise."""
    if not isinstance(value, dict) or set(value) != {"province", "faction"}:
        raise _shape(f"{what} must be an object {{\"province\": p, \"faction\": f}}.")
    return (_province(table, value["province"], f"{what}.province"),
            _faction(value["faction"], f"{what}.faction"))


def key_of(table: Table, card: str, move: Move) -> Key:
    """The key of ``move``'s card fields; IllegalMove if they are malformed."""
    expected = {"action", "card", "take", *CARD_FIELDS[card]}
    if set(move) != expected:
        names = ", ".join(["action", "card", *CARD_FIELDS[card], "take"])
        raise _shape(f"A {CARD_TITLES[card]} play has exactly the fields {names}.")
    if card in FACTIONS:
        return _faction_card_key(table, card, move["place"])
    return _KEY_READERS[card](table, move)


def _maharacha_key(table: Table, move: Move) -> Key:
    swap, king = move["swap"], move["king"]
    if not isinstance(swap, list) or len(swap) not in (0, 2):
        raise _shape("Maharacha 'swap' must list two province tiles (or none).")
    if not swap:
        if king is not None:
            raise IllegalMove("Maharacha: the King marker goes on one of the two swapped "
                              "tiles, so without a swap there is no King marker.", "maharacha")
        return ()
    a, b = (_province(table, tile, "Maharacha 'swap'") for tile in swap)
    return (a, b, _province(table, king, "Maharacha 'king'"))


def _khon_thai_key(table: Table, move: Move) -> Key:
    place = move["place"]
    if not isinstance(place, dict) or not set(place) <= set(FACTIONS):
        raise _shape("Khon Thai 'place' must map factions (rama, lao, malay) to provinces.")
    return tuple((f, _province(table, place[f], f"Khon Thai 'place.{f}'"))
                 for f in FACTIONS if f in place)


def _one_vs_one_key(table: Table, move: Move) -> Key:
    give, get = move["give"], move["get"]
    if give is None and get is None:
        return ()
    return (follower_ref(table, give, "1 vs 1 'give'"), follower_ref(table, get, "1 vs 1 'get'"))


def _two_vs_one_key(table: Table, move: Move) -> Key:
    two, one = move["two"], move["one"]
    if two is None and one is None:
        return ()
    if (not isinstance(two, dict) or set(two) != {"province", "factions"}
            or not isinstance(two["factions"], list) or len(two["factions"]) != 2):
        raise _shape("2 vs 1 'two' must be {\"province\": p, \"factions\": [f, g]}.")
    first = _province(table, two["province"], "2 vs 1 'two.province'")
    f, g = (_faction(faction, "2 vs 1 'two.factions'") for faction in two["factions"])
    second, h = follower_ref(table, one, "2 vs 1 'one'")
    return (first, f, g, second, h)


def _faction_card_key(table: Table, card: str, place: Any) -> Key:
    if not isinstance(place, list) or len(place) > 2:
        raise _shape(f"{CARD_TITLES[card]} 'place' must list at most two provinces.")
    return tuple(_province(table, p, f"{CARD_TITLES[card]} 'place'") for p in place)


_KEY_READERS = {
    "maharacha": _maharacha_key,
    "khon_thai": _khon_thai_key,
    "one_vs_one": _one_vs_one_key,
    "two_vs_one": _two_vs_one_key,
}


# -- why an execution is not legal -----------------------------------------
def check(table: Table, card: str, key: Key) -> None:
    """Raise IllegalMove naming the rule if ``key`` is not a legal execution of ``card``."""
    if key in legal_keys(table, card):
        return
    if card in FACTIONS:
        _explain_faction_card(table, card, key)
    else:
        _EXPLAINERS[card](table, key)
    raise IllegalMove(f"{AS_FAR_AS_POSSIBLE}: this is not a legal execution of "
                      f"{CARD_TITLES[card]}.", "as_far_as_possible")


def _not_enough(what: str) -> IllegalMove:
    return IllegalMove(f"{AS_FAR_AS_POSSIBLE}: {what}.", "as_far_as_possible")


def _require_open(table: Table, province: str) -> None:
    control = table.control(province)
    if control is not None:
        raise IllegalMove(f"No follower may be put into {province}: it is already controlled "
                          f"({control}).", "controlled_province")


def _explain_maharacha(table: Table, key: Key) -> None:
    if not key:
        raise _not_enough("two face-up province tiles without a King marker can be swapped")
    a, b, king = key
    if a == b:
        raise IllegalMove("Maharacha swaps two different province tiles.", "maharacha")
    for tile in (a, b):
        if table.control(tile) is not None:
            raise IllegalMove(f"Maharacha swaps face-up tiles only: the struggle for {tile} "
                              "is over and its tile is face down.", "maharacha")
        if table.provinces[tile]["king_marker"]:
            raise IllegalMove(f"Maharacha: a tile already marked with a King cannot be "
                              f"swapped ({tile}).", "maharacha")
    if king not in (a, b):
        raise IllegalMove("Maharacha: the King marker goes on one of the two swapped tiles.",
                          "maharacha")


def _explain_khon_thai(table: Table, key: Key) -> None:
    placed = dict(key)
    for faction in FACTIONS:
        if faction in placed and not table.pool(faction):
            raise IllegalMove(f"Khon Thai: the pool has no {faction} follower to place.",
                              "khon_thai")
        if faction not in placed and table.pool(faction):
            raise _not_enough(f"the pool still holds a {faction} follower, so Khon Thai "
                              "must place one")
    for province in placed.values():
        _require_open(table, province)


def _require_follower(table: Table, province: str, faction: str, card: str, need: int = 1) -> None:
    if table.count(province, faction) < need:
        what = f"two {faction} followers" if need == 2 else f"a {faction} follower"
        raise IllegalMove(f"{CARD_TITLES[card]}: {province} does not hold {what} to swap.", card)


def _explain_swap_undo(card: str) -> IllegalMove:
    return IllegalMove(f"{CARD_TITLES[card]} right after a {CARD_TITLES[card]} may not undo it: "
                       "swapping the same factions back between the same provinces is "
                       "forbidden.", "undo_swap")


def _explain_one_vs_one(table: Table, key: Key) -> None:
    if not key:
        raise _not_enough("two followers of different provinces can be swapped")
    (p1, f1), (p2, f2) = key
    if p1 == p2:
        raise IllegalMove("1 vs 1 swaps followers of two different provinces.", "one_vs_one")
    _require_follower(table, p1, f1, "one_vs_one")
    _require_follower(table, p2, f2, "one_vs_one")
    raise _explain_swap_undo("one_vs_one")


def _explain_two_vs_one(table: Table, key: Key) -> None:
    if not key:
        raise _not_enough("two followers of a province can be swapped with one of an "
                          "adjacent province")
    first, f, g, second, h = key
    if second not in table.board.adjacent[first]:
        raise IllegalMove(f"2 vs 1: the two provinces must be adjacent, and {first} and "
                          f"{second} are not.", "two_vs_one")
    if f == g:
        _require_follower(table, first, f, "two_vs_one", need=2)
    _require_follower(table, first, f, "two_vs_one")
    _require_follower(table, first, g, "two_vs_one")
    _require_follower(table, second, h, "two_vs_one")
    raise _explain_swap_undo("two_vs_one")


def _explain_faction_card(table: Table, faction: str, key: Key) -> None:
    title = CARD_TITLES[faction]
    targets = table.faction_targets(faction)
    for province in key:
        _require_open(table, province)
        if province not in targets:
            home = table.board.homes[faction]
            raise IllegalMove(f"{title}: followers go only into provinces adjacent to a "
                              f"{title} province, or to the {title} home province ({home}) "
                              f"while no other faction or the British control it; {province} "
                              "is neither.", "faction_card")
    possible = min(2, table.pool(faction)) if targets else 0
    if len(key) > possible:
        raise IllegalMove(f"{title}: the pool holds only {table.pool(faction)} {faction} "
                          f"follower(s).", "faction_card")
    raise _not_enough(f"{title} can place {possible} follower(s) here")


_EXPLAINERS = {
    "maharacha": _explain_maharacha,
    "khon_thai": _explain_khon_thai,
    "one_vs_one": _explain_one_vs_one,
    "two_vs_one": _explain_two_vs_one,
}
