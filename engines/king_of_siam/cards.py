"""The eight action cards: every legal execution of a card, and why another one is not.

An execution of a card (without the take) is reduced to a *key*, a tuple of
plain strings, so that the legal executions of a card form a list and a
move is checked by looking its key up there. ``()`` is the key of a card
that can do nothing; otherwise:

- maharacha: ``(tile_a, tile_b, king)``
- khon_thai: ``((faction, province), ...)``, one pair per faction still in
  the pool, in faction order
- one_vs_one: ``((province, faction), (province, faction))``
- two_vs_one: ``(province, factions, province, faction)``: ``factions`` is
  the pair the first province gives, or one faction when no province can
  give two (the card is then a 1-for-1 swap between adjacent provinces)
- rama, lao, malay: ``(province, ...)``, one per follower placed

Parts that can be written in either order (the two swapped tiles, the two
sides of a 1-for-1 swap, the two factions of a pair, the provinces of a
faction card) are put in one *canonical* order by :func:`canonical` (map
order of provinces, then faction order): the legal keys are canonical, and
a move in another order is read as its canonical key.

:func:`deltas` turns a key into follower changes ``(province, faction, +-1)``
on the board; the pool pays for (or receives) the net change of each faction.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product
from typing import Any

from engines.base import IllegalMove, Move, State
from engines.king_of_siam.board import FACTIONS, Board, get_board
from engines.king_of_siam.names import card_name, followers
from engines.phrases import N_, Phrase, counted, phrase

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
AS_FAR_AS_POSSIBLE = N_("A card must be executed as far as legally possible: %(what)s.")
ONLY_ONE = phrase(
    "a province holds two followers to swap with one of an adjacent province, so 2 vs 1 "
    "may not swap only one"
)
#: Why no follower may go into a province, by who controls it.
CONTROLLED = {
    "rama": N_("No follower may be put into %(province)s: the Rama already control it."),
    "lao": N_("No follower may be put into %(province)s: the Lao already control it."),
    "malay": N_("No follower may be put into %(province)s: the Malays already control it."),
    "british": N_("No follower may be put into %(province)s: the British already control it."),
}
#: Why a province next to a faction's home takes none of its followers, by the home's ruler.
HOME_RULED = {
    "rama": N_("%(province)s borders %(home)s, but the Rama control it"),
    "lao": N_("%(province)s borders %(home)s, but the Lao control it"),
    "malay": N_("%(province)s borders %(home)s, but the Malays control it"),
    "british": N_("%(province)s borders %(home)s, but the British control it"),
}
#: A Khon Thai's refusals by faction: the pool is empty; the pool still holds one.
KHON_THAI_POOL = {
    "rama": (
        N_("Khon Thai: the pool has no Rama follower to place."),
        N_("the pool still holds a Rama follower, so Khon Thai must place one"),
    ),
    "lao": (
        N_("Khon Thai: the pool has no Lao follower to place."),
        N_("the pool still holds a Lao follower, so Khon Thai must place one"),
    ),
    "malay": (
        N_("Khon Thai: the pool has no Malay follower to place."),
        N_("the pool still holds a Malay follower, so Khon Thai must place one"),
    ),
}

Key = tuple[Any, ...]
Delta = tuple[str, str, int]


class Table:
    """Read-only helpers over a state: the board, follower counts and control."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.board: Board = get_board(state["map"])
        self.provinces: dict[str, Any] = state["provinces"]

    def name(self, province: str) -> str:
        """The province as the map names it ("Nakhon Si Thammarat"), for messages."""
        return self.board.names[province]

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
        return [
            p
            for p in self.state["struggle_order"]
            if self.provinces[p]["control"] is None and not self.provinces[p]["king_marker"]
        ]

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


def is_legal(table: Table, card: str, key: Key) -> bool:
    """True if the canonical ``key`` is in :func:`legal_keys` (Khon Thai: without listing them)."""
    if card == "khon_thai":
        in_pool = [f for f in FACTIONS if table.pool(f)]
        placed = [faction for faction, _ in key]
        return placed == in_pool and all(table.control(p) is None for _, p in key)
    return key in legal_keys(table, card)


def _maharacha_keys(table: Table) -> list[Key]:
    rank = table.board.rank
    tiles = table.swappable_tiles()
    return [(a, b, king) for a in tiles for b in tiles if rank(a) < rank(b) for king in (a, b)]


def _khon_thai_keys(table: Table) -> list[Key]:
    factions = [f for f in FACTIONS if table.pool(f)]
    targets = table.open_provinces()
    return [
        tuple(zip(factions, combo, strict=True)) for combo in product(targets, repeat=len(factions))
    ]


def _one_vs_one_keys(table: Table) -> list[Key]:
    forbidden = _undo_of(table, "one_vs_one")
    rank = table.board.rank
    ends = table.ends()
    return [
        (a, b) for a in ends for b in ends if rank(a[0]) < rank(b[0]) and (a, b) not in forbidden
    ]


def _two_vs_one_keys(table: Table) -> list[Key]:
    """The 2-for-1 swaps; where none is legal, the 1-for-1 swaps between adjacent provinces."""
    forbidden = _undo_of(table, "two_vs_one")
    full = [key for key in _two_for_one_keys(table) if key not in forbidden]
    return full or [key for key in _one_for_one_keys(table) if key not in forbidden]


def two_for_one_exists(table: Table) -> bool:
    """True if 2 vs 1 can swap two followers now (so a 1-for-1 swap is not enough)."""
    keys = _two_vs_one_keys(table)
    return bool(keys) and len(keys[0][1]) == 2


def _two_for_one_keys(table: Table) -> list[Key]:
    keys = []
    for first in table.open_provinces():
        pairs = [
            (f, g)
            for i, f in enumerate(FACTIONS)
            for g in FACTIONS[i:]
            if table.count(first, f) >= 1 + (f == g) and table.count(first, g)
        ]
        ones = _neighbour_followers(table, first)
        keys += [(first, pair, second, h) for pair in pairs for second, h in ones]
    return keys


def _one_for_one_keys(table: Table) -> list[Key]:
    rank = table.board.rank
    keys = []
    for first in table.open_provinces():
        ones = _neighbour_followers(table, first, after=rank(first))
        keys += [
            (first, (f,), second, h)
            for f in FACTIONS
            if table.count(first, f)
            for second, h in ones
        ]
    return keys


def _neighbour_followers(table: Table, province: str, after: int = -1) -> list[tuple[str, str]]:
    """``(neighbour, faction)`` of every follower in a neighbour of ``province``, in map
    order, skipping neighbours whose map rank is not above ``after``."""
    rank = table.board.rank
    neighbours = sorted(table.board.adjacent[province], key=rank)
    return [
        (second, h)
        for second in neighbours
        if rank(second) > after
        for h in FACTIONS
        if table.count(second, h)
    ]


def _faction_keys(table: Table, faction: str) -> list[Key]:
    targets = table.faction_targets(faction)
    count = min(2, table.pool(faction)) if targets else 0
    return list(combinations_with_replacement(targets, count)) if count else []


_KEY_MAKERS = {
    "maharacha": _maharacha_keys,
    "khon_thai": _khon_thai_keys,
    "one_vs_one": _one_vs_one_keys,
    "two_vs_one": _two_vs_one_keys,
}


def _undo_of(table: Table, card: str) -> set[Key]:
    """The canonical key that would undo the previous card of the game if it was ``card``.

    The undo swaps the same factions back between the same provinces: what
    went from one province to the other goes back.
    """
    last = table.state.get("last_card")
    if not last or last.get("card") != card:
        return set()
    if card == "one_vs_one" and last["give"]:
        give, get = last["give"], last["get"]
        back = ((get["province"], give["faction"]), (give["province"], get["faction"]))
        return {canonical(table.board, card, back)}
    if card == "two_vs_one" and last["two"]:
        two, one = last["two"], last["one"]
        back = (one["province"], tuple(two["factions"]), two["province"], one["faction"])
        return {canonical(table.board, card, back)}
    return set()


def canonical(board: Board, card: str, key: Key) -> Key:
    """``key`` with its symmetric parts in canonical order (see the module docstring)."""
    if not key or card == "khon_thai":
        return key
    if card == "maharacha":
        a, b, king = key
        return (*sorted((a, b), key=board.rank), king)
    if card == "one_vs_one":
        return tuple(sorted(key, key=lambda end: board.rank(end[0])))
    if card == "two_vs_one":
        first, factions, *one = key
        factions = tuple(sorted(factions, key=FACTIONS.index))
        if one and len(factions) == 1 and board.rank(one[0]) < board.rank(first):
            return (one[0], (one[1],), first, factions[0])
        return (first, factions, *one)
    return tuple(sorted(key, key=board.rank))


# -- keys <-> move fields ---------------------------------------------------
def move_of(card: str, key: Key) -> Move:
    """The play of ``card`` executed as ``key``, without the take (fresh objects every call)."""
    return {"action": "play", "card": card, **fields_of(card, key)}


def fields_of(card: str, key: Key) -> dict[str, Any]:
    """The card fields of ``card`` executed as ``key`` (the play without action, card, take)."""
    if card == "khon_thai":
        return {"place": {f: p for f, p in key}}
    if card == "one_vs_one":
        if not key:
            return {"give": None, "get": None}
        ends = [{"province": p, "faction": f} for p, f in key]
        return dict(zip(("give", "get"), ends, strict=False))
    if card == "two_vs_one":
        if not key:
            return {"two": None, "one": None}
        first, factions, *one = key
        two = {"two": {"province": first, "factions": list(factions)}}
        return {**two, "one": {"province": one[0], "faction": one[1]}} if one else two
    if card == "maharacha":
        return {"swap": [key[0], key[1]], "king": key[2]} if key else {"swap": [], "king": None}
    return {"place": list(key)}


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
        first, factions, second, h = key
        return [change for f in factions for change in ((first, f, -1), (second, f, 1))] + [
            (second, h, -1),
            (first, h, 1),
        ]
    return [(province, card, 1) for province in key]


def _shape(message: str) -> IllegalMove:
    return IllegalMove(message, "move_shape")


def _province(table: Table, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _shape(f"{what} must be a province name.")
    if value not in table.provinces:
        names = ", ".join(table.board.provinces)
        raise IllegalMove(
            f"'{value}' is not a province of the {table.board.name} map ({names}).",
            "unknown_province",
        )
    return value


def _faction(value: Any, what: str) -> str:
    if value not in FACTIONS:
        raise _shape(f"{what} must be one of the factions rama, lao or malay.")
    return value


def follower_ref(table: Table, value: Any, what: str) -> tuple[str, str]:
    """``(province, faction)`` of a ``{"province", "faction"}`` object; IllegalMove otherwise."""
    if not isinstance(value, dict) or set(value) != {"province", "faction"}:
        raise _shape(f'{what} must be an object {{"province": p, "faction": f}}.')
    return (
        _province(table, value["province"], f"{what}.province"),
        _faction(value["faction"], f"{what}.faction"),
    )


def key_of(table: Table, card: str, move: Move) -> Key:
    """The canonical key of ``move``'s card fields; IllegalMove if they are malformed.

    The move may carry a ``take`` (a card with its take) or not (the card alone);
    a 1 vs 1 without ``get`` and a 2 vs 1 without ``one`` give the key of
    their first step (see :mod:`.steps`).
    """
    fields = set(move) - {"action", "card", "take"}
    if fields not in FIELD_SETS[card]:
        names = ", ".join(["action", "card", *CARD_FIELDS[card]])
        raise _shape(
            f"A {CARD_TITLES[card]} play has exactly the fields {names}, and "
            "'take' if the take comes with it."
        )
    if card in FACTIONS:
        key = _faction_card_key(table, card, move["place"])
    else:
        key = _KEY_READERS[card](table, move)
    return canonical(table.board, card, key)


def _maharacha_key(table: Table, move: Move) -> Key:
    swap, king = move["swap"], move["king"]
    if not isinstance(swap, list) or len(swap) not in (0, 2):
        raise _shape("Maharacha 'swap' must list two province tiles (or none).")
    if not swap:
        if king is not None:
            raise IllegalMove(
                phrase(
                    "Maharacha: the King marker goes on one of the two swapped tiles, so"
                    " without a swap there is no King marker."
                ),
                "maharacha",
            )
        return ()
    a, b = (_province(table, tile, "Maharacha 'swap'") for tile in swap)
    return (a, b, _province(table, king, "Maharacha 'king'"))


def _khon_thai_key(table: Table, move: Move) -> Key:
    place = move["place"]
    if not isinstance(place, dict) or not set(place) <= set(FACTIONS):
        raise _shape("Khon Thai 'place' must map factions (rama, lao, malay) to provinces.")
    return tuple(
        (f, _province(table, place[f], f"Khon Thai 'place.{f}'")) for f in FACTIONS if f in place
    )


def _one_vs_one_key(table: Table, move: Move) -> Key:
    give = move["give"]
    if "get" not in move:
        return (follower_ref(table, give, "1 vs 1 'give'"),)
    if give is None and move["get"] is None:
        return ()
    return (
        follower_ref(table, give, "1 vs 1 'give'"),
        follower_ref(table, move["get"], "1 vs 1 'get'"),
    )


def _two_vs_one_key(table: Table, move: Move) -> Key:
    two, one = move["two"], move.get("one")
    if two is None and one is None and "one" in move:
        return ()
    if (
        not isinstance(two, dict)
        or set(two) != {"province", "factions"}
        or not isinstance(two["factions"], list)
        or len(two["factions"]) not in (1, 2)
    ):
        raise _shape(
            '2 vs 1 \'two\' must be {"province": p, "factions": [f, g]} (or '
            "[f] for a 1-for-1 swap)."
        )
    first = _province(table, two["province"], "2 vs 1 'two.province'")
    factions = tuple(_faction(f, "2 vs 1 'two.factions'") for f in two["factions"])
    if "one" not in move:
        return (first, factions)
    return (first, factions, *follower_ref(table, one, "2 vs 1 'one'"))


def _faction_card_key(table: Table, card: str, place: Any) -> Key:
    if not isinstance(place, list) or len(place) > 2:
        raise _shape(f"{CARD_TITLES[card]} 'place' must list at most two provinces.")
    return tuple(_province(table, p, f"{CARD_TITLES[card]} 'place'") for p in place)


#: The card fields a play may carry: all of them, or (1 vs 1, 2 vs 1) the first step's.
FIELD_SETS = {
    card: [set(names), {names[0]}] if card in ("one_vs_one", "two_vs_one") else [set(names)]
    for card, names in CARD_FIELDS.items()
}
_KEY_READERS = {
    "maharacha": _maharacha_key,
    "khon_thai": _khon_thai_key,
    "one_vs_one": _one_vs_one_key,
    "two_vs_one": _two_vs_one_key,
}


# -- why an execution is not legal -----------------------------------------
def check(table: Table, card: str, key: Key) -> None:
    """Raise IllegalMove naming the rule if ``key`` is not a legal execution of ``card``."""
    if is_legal(table, card, key):
        return
    if card in FACTIONS:
        _explain_faction_card(table, card, key)
    else:
        _EXPLAINERS[card](table, key)
    raise not_enough(phrase("this is not a legal execution of %(card)s", card=card_name(card)))


def not_enough(what: Phrase) -> IllegalMove:
    """The refusal of an execution that does less than the card can."""
    return IllegalMove(phrase(AS_FAR_AS_POSSIBLE, what=what), "as_far_as_possible")


def _require_open(table: Table, province: str) -> None:
    control = table.control(province)
    if control is not None:
        raise IllegalMove(
            phrase(CONTROLLED[control], province=table.name(province)), "controlled_province"
        )


def _explain_maharacha(table: Table, key: Key) -> None:
    if not key:
        raise not_enough(phrase("two face-up province tiles without a King marker can be swapped"))
    a, b, king = key
    if a == b:
        raise IllegalMove(phrase("Maharacha swaps two different province tiles."), "maharacha")
    for tile in (a, b):
        if table.control(tile) is not None:
            raise IllegalMove(
                phrase(
                    "Maharacha swaps face-up tiles only: the struggle for %(province)s is over"
                    " and its tile is face down.",
                    province=table.name(tile),
                ),
                "maharacha",
            )
        if table.provinces[tile]["king_marker"]:
            raise IllegalMove(
                phrase(
                    "Maharacha: a tile already marked with a King cannot be swapped"
                    " (%(province)s).",
                    province=table.name(tile),
                ),
                "maharacha",
            )
    if king not in (a, b):
        raise IllegalMove(
            phrase("Maharacha: the King marker goes on one of the two swapped tiles."),
            "maharacha",
        )


def _explain_khon_thai(table: Table, key: Key) -> None:
    placed = dict(key)
    for faction, province in key:
        if not table.pool(faction):
            raise IllegalMove(phrase(KHON_THAI_POOL[faction][0]), "khon_thai")
        _require_open(table, province)
    for faction in FACTIONS:
        if faction not in placed and table.pool(faction):
            raise not_enough(phrase(KHON_THAI_POOL[faction][1]))


def require_follower(table: Table, province: str, faction: str, card: str, need: int = 1) -> None:
    """IllegalMove unless ``province`` holds ``need`` followers of ``faction`` for ``card``."""
    if table.count(province, faction) < need:
        raise IllegalMove(
            phrase(
                "%(card)s: %(province)s does not hold %(followers)s to swap.",
                card=card_name(card),
                province=table.name(province),
                followers=followers(faction, need),
            ),
            card,
        )


def _explain_swap_undo(card: str) -> IllegalMove:
    return IllegalMove(
        phrase(
            "%(card)s right after a %(card)s may not undo it: swapping the same factions back"
            " between the same provinces is forbidden.",
            card=card_name(card),
        ),
        "undo_swap",
    )


def _explain_one_vs_one(table: Table, key: Key) -> None:
    if not key:
        raise not_enough(phrase("two followers of different provinces can be swapped"))
    (p1, f1), (p2, f2) = key
    if p1 == p2:
        raise IllegalMove(
            phrase("1 vs 1 swaps followers of two different provinces."), "one_vs_one"
        )
    require_follower(table, p1, f1, "one_vs_one")
    require_follower(table, p2, f2, "one_vs_one")
    raise _explain_swap_undo("one_vs_one")


def _explain_two_vs_one(table: Table, key: Key) -> None:
    full = two_for_one_exists(table)
    if not key:
        raise not_enough(
            phrase("two followers of a province can be swapped with one of an adjacent province")
            if full
            else phrase(
                "no province holds two followers to swap, but a follower can be swapped with"
                " one of an adjacent province"
            )
        )
    first, factions, second, h = key
    if second not in table.board.adjacent[first]:
        raise IllegalMove(
            phrase(
                "2 vs 1: the two provinces must be adjacent, and %(first)s and %(second)s are not.",
                first=table.name(first),
                second=table.name(second),
            ),
            "two_vs_one",
        )
    for f in factions:
        require_follower(table, first, f, "two_vs_one", need=factions.count(f))
    require_follower(table, second, h, "two_vs_one")
    if len(factions) == 1 and full:
        raise not_enough(ONLY_ONE)
    raise _explain_swap_undo("two_vs_one")


def _explain_faction_card(table: Table, faction: str, key: Key) -> None:
    title = card_name(faction)
    targets = table.faction_targets(faction)
    for province in key:
        _require_open(table, province)
        if province not in targets:
            raise IllegalMove(
                phrase(
                    "%(card)s: followers go only into provinces adjacent to a province its"
                    " faction controls or to its home province (%(home)s), the home only while"
                    " neither another faction nor the British control it; %(why)s.",
                    card=title,
                    home=table.name(table.board.homes[faction]),
                    why=_why_no_target(table, faction, province),
                ),
                "faction_card",
            )
    possible = min(2, table.pool(faction)) if targets else 0
    if len(key) > possible:
        raise IllegalMove(
            counted(
                "%(card)s: the pool holds only %(count)s follower of its faction.",
                "%(card)s: the pool holds only %(count)s followers of its faction.",
                table.pool(faction),
                card=title,
            ),
            "faction_card",
        )
    raise not_enough(
        counted(
            "%(card)s can place %(count)s follower here",
            "%(card)s can place %(count)s followers here",
            possible,
            card=title,
        )
    )


def _why_no_target(table: Table, faction: str, province: str) -> Phrase:
    """Why ``province`` may not take followers of the ``faction`` card."""
    home = table.board.homes[faction]
    if province in table.board.adjacent[home] and table.control(home) not in (None, faction):
        ruled = HOME_RULED[table.control(home)]
        return phrase(ruled, province=table.name(province), home=table.name(home))
    return phrase("%(province)s is adjacent to neither", province=table.name(province))


_EXPLAINERS = {
    "maharacha": _explain_maharacha,
    "khon_thai": _explain_khon_thai,
    "one_vs_one": _explain_one_vs_one,
    "two_vs_one": _explain_two_vs_one,
}
