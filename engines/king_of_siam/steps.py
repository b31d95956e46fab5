"""Cards played in steps: Khon Thai one faction at a time, 1 vs 1 and 2 vs 1 one side at a time.

Listing every execution of these cards at once would list hundreds of moves
(Khon Thai: one per province for each faction, multiplied). So a play may
stop after its *first step* (a key prefix, see :mod:`.cards`): Khon Thai
with fewer factions than the pool holds, 1 vs 1 with ``give`` alone, 2 vs 1
with ``two`` alone. The same seat then has a pending decision of
:data:`STEPS` kind: ``place`` (the next Khon Thai faction) or ``swap`` (the
follower on the other side of the swap). A step is legal when some legal
execution of the card goes on from it; the card is carried out once its key
is complete.

    >>> head("one_vs_one", (("korat", "rama"), ("kedah", "lao")))
    (('korat', 'rama'),)
    >>> rest("one_vs_one", (("kedah", "lao"),), (("korat", "rama"), ("kedah", "lao")))
    ('korat', 'rama')
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import IllegalMove, Move
from engines.king_of_siam.board import FACTIONS
from engines.king_of_siam.cards import (
    ONLY_ONE,
    Key,
    Table,
    canonical,
    check,
    legal_keys,
    not_enough,
    require_follower,
    two_for_one_exists,
)
from engines.king_of_siam.names import card_name
from engines.phrases import N_, phrase

#: The cards played in steps and the kind of the decision pending after a first step.
STEPS = {"khon_thai": "place", "one_vs_one": "swap", "two_vs_one": "swap"}
Step = tuple[str, str]


#: A Khon Thai step naming a faction already placed, by faction.
PLACED = {
    "rama": N_("Khon Thai: the Rama follower is already placed (%(province)s)."),
    "lao": N_("Khon Thai: the Lao follower is already placed (%(province)s)."),
    "malay": N_("Khon Thai: the Malay follower is already placed (%(province)s)."),
}


def head(card: str, key: Key) -> Key:
    """The first step of the canonical ``key`` (the whole key for a card played at once)."""
    if card not in STEPS or not key:
        return key
    return key[:2] if card == "two_vs_one" else key[:1]


def is_complete(table: Table, card: str, key: Key) -> bool:
    """True unless ``key`` is a first step that needs more (an empty key is complete)."""
    if card == "khon_thai":
        placed = {faction for faction, _ in key}
        return not key or placed >= {f for f in FACTIONS if table.pool(f)}
    if card == "one_vs_one":
        return len(key) != 1
    return card != "two_vs_one" or len(key) != 2


def fits(card: str, partial: Key, key: Key) -> bool:
    """True if the legal canonical ``key`` goes on from the steps ``partial`` (any order)."""
    if card == "khon_thai":
        return set(partial) <= set(key)
    if card == "one_vs_one":
        return bool(key) and partial[0] in key
    if not key:
        return False
    if len(key[1]) == 1:
        return partial in ((key[0], key[1]), (key[2], (key[3],)))
    return key[:2] == partial


def rest(card: str, partial: Key, key: Key) -> Step:
    """The next step from ``partial`` toward ``key``.

    Khon Thai: ``(faction, province)`` of the first faction not placed yet;
    a swap: ``(province, faction)`` of the follower on the other side.
    """
    if card == "khon_thai":
        return next(pair for pair in key if pair not in partial)
    if card == "one_vs_one":
        return key[1] if key[0] == partial[0] else key[0]
    return (key[2], key[3]) if key[:2] == partial else (key[0], key[1][0])


def joined(table: Table, card: str, partial: Key, step: Step) -> Key:
    """The canonical key of ``partial`` then ``step``; IllegalMove if it repeats a faction."""
    if card == "khon_thai":
        placed = dict(partial)
        faction, _ = step
        if faction in placed:
            raise IllegalMove(
                phrase(PLACED[faction], province=table.name(placed[faction])), "khon_thai"
            )
        return tuple(sorted((*partial, step), key=lambda pair: FACTIONS.index(pair[0])))
    if card == "one_vs_one":
        return canonical(table.board, card, (*partial, step))
    return canonical(table.board, card, (*partial, *step))


def first_steps(table: Table, card: str) -> list[Key]:
    """The first step of each legal execution of ``card``, once each (whole keys of others).

    Khon Thai places any faction in any open province, so its first steps are
    the first faction of the pool in each open province.
    """
    if card != "khon_thai":
        return list(dict.fromkeys(head(card, key) for key in legal_keys(table, card)))
    in_pool = [f for f in FACTIONS if table.pool(f)]
    return [((in_pool[0], p),) for p in table.open_provinces()] if in_pool else [()]


def next_steps(table: Table, card: str, partial: Key) -> list[Step]:
    """The steps that go on from the legal steps ``partial``, once each (see :func:`rest`)."""
    if card != "khon_thai":
        return list(
            dict.fromkeys(rest(card, partial, key) for key in fitting(table, card, partial))
        )
    placed = dict(partial)
    faction = next(f for f in FACTIONS if table.pool(f) and f not in placed)
    return [(faction, p) for p in table.open_provinces()]


def check_steps(table: Table, card: str, partial: Key) -> None:
    """Raise IllegalMove naming the rule unless a legal execution goes on from ``partial``."""
    if card != "khon_thai":
        fitting(table, card, partial)
    elif any(not table.pool(f) or table.control(p) is not None for f, p in partial):
        _explain(table, card, partial)


def fitting(table: Table, card: str, partial: Key) -> list[Key]:
    """The legal keys going on from ``partial``; IllegalMove naming the rule if there is none."""
    keys = [key for key in legal_keys(table, card) if fits(card, partial, key)]
    if not keys:
        _explain(table, card, partial)
    return keys


def _explain(table: Table, card: str, partial: Key) -> None:
    """Raise the reason why no legal execution of ``card`` starts with ``partial``."""
    title = card_name(card)
    if card == "khon_thai":
        check(table, card, partial)  # names the controlled province or the empty pool
    elif card == "one_vs_one":
        require_follower(table, *partial[0], card)
        if not any(p != partial[0][0] for p, _ in table.ends()):
            raise IllegalMove(
                phrase("1 vs 1: no other province holds a follower to swap with."), card
            )
    else:
        first, factions = partial
        for faction in factions:
            require_follower(table, first, faction, card, need=factions.count(faction))
        if len(factions) == 1 and two_for_one_exists(table):
            raise not_enough(ONLY_ONE)
        if not any(table.count(p, f) for p in table.board.adjacent[first] for f in FACTIONS):
            raise IllegalMove(
                phrase(
                    "2 vs 1: no province adjacent to %(province)s holds a follower to swap with.",
                    province=table.name(first),
                ),
                card,
            )
    raise IllegalMove(
        phrase(
            "%(card)s right after a %(card)s may not undo it: every swap from here would swap"
            " the same factions back between the same provinces.",
            card=title,
        ),
        "undo_swap",
    )


def join_turn(steps: Sequence[Move]) -> Move:
    """The one move of a turn played in decisions: the card with every step and its take.

    >>> join_turn([{"action": "play", "card": "one_vs_one", "give": {"province": "korat",
    ...     "faction": "rama"}}, {"action": "swap", "province": "kedah", "faction": "lao"},
    ...     {"action": "take", "province": "kedah", "faction": "rama"}])["get"]
    {'province': 'kedah', 'faction': 'lao'}
    """
    first, *later = steps
    if later and first.get("action") != "play":
        raise IllegalMove(phrase("A turn of several decisions starts with its card."), "turn")
    move = dict(first)
    for step in later:
        action, follower = (
            step["action"],
            {"province": step["province"], "faction": step["faction"]},
        )
        if action == "take":
            move["take"] = follower
        elif action == "place":
            move["place"] = {**move["place"], step["faction"]: step["province"]}
        else:
            move["get" if move["card"] == "one_vs_one" else "one"] = follower
    return move
