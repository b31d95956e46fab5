"""Bangkok Klongs in words: what a move did, the result, what to decide now and how to ask it.

Fields are named as the board labels them for players: columns ``A`` to ``J``
from the left, rows ``1`` to ``8`` from the top, so the notation's ``r3c4``
(row 3, column 4, counted from 0) is ``E4``; a landing place is named by the
four fields around it, from the top left one to the bottom right one (the
notation's ``L4-5`` is "the landing place E4-F5"). Boats are named by what is
drawn on them, never by their tile id:

    >>> from engines.phrases import english
    >>> field_name("r3c4"), english(landing_name("L4-5")), english(landing_name("L1-2"))
    ('E4', 'the landing place E4-F5', 'the landing place B1-C2')

    >>> from engines.bangkok_klongs.board import BOARDS
    >>> tiles = BOARDS["standard"].tiles
    >>> [english(boat) for boat in (boat_name(tiles["t50"]), boat_name(tiles["t52"], "a"),
    ...     boat_name(tiles["t63"]))]
    ['the fish boat with 2 baskets', 'a neutral fish boat with 3 baskets', 'a thief boat']
    >>> english(boat_label(tiles["t43"]))
    'the neutral aubergine boat with 3 baskets and a Luk Phat sign'

Every sentence is a phrase (:mod:`engines.phrases`) read in the reader's language with the
Dutch rulebook's words (boot, handelaar, mand, aanlegplaats, marktdag, verplaatsingskaart,
dief, opzichter, gaarkeuken), and built from what the public log shows: the move, the
board, the Luk Phat marker, the scores and whose turn it is. Hands and the
draw pile are never read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.bangkok_klongs.board import (
    BIG,
    BOARDS,
    COOK,
    OVERSEER,
    SMALL,
    THIEF,
    Layout,
    can_relocate,
    landing_points,
)
from engines.bangkok_klongs.rules import FINISH, LATER, PLACE
from engines.base import Move, State
from engines.phrases import N_, Phrase, Words, counted, phrase, seat, sentences
from engines.words import Question, plural

#: The answer of the first question of a turn that plays a move card before placing.
MOVE_CARD = "move-card"
#: The answer that ends a placed turn instead of moving a boat.
END = "end"
#: The market-day answer that scores nothing.
DECLINE = "decline"
#: A thief's answer when it takes no boat; an overseer's when it leaves the thieves.
NOTHING, LEAVE, BOX = "nothing", "leave", "box"
PILE_WORDS = {
    "merchant": phrase("the pile of neutral and special boats"),
    "plain": phrase("the pile of boats without a merchant"),
}
#: The goods drawn on the boats, as the first part of a boat's name ("fish" boat).
GOODS = {
    "shrimp": phrase("shrimp"),
    "flower": phrase("flower"),
    "avocado": phrase("avocado"),
    "pineapple": phrase("pineapple"),
    "aubergine": phrase("aubergine"),
    "fish": phrase("fish"),
    "banana": phrase("banana"),
}
#: The special boats, always named with "a" or "an" (three of a kind, never owned).
SPECIAL_BOATS = {
    "thief": phrase("a thief boat"),
    "overseer": phrase("an overseer boat"),
    "cook": phrase("a cook boat"),
}
#: A goods boat's name by its article and whether it is neutral.
BOAT_NAMES = {
    ("the", False): N_("the %(good)s boat %(baskets)s"),
    ("the", True): N_("the neutral %(good)s boat %(baskets)s"),
    ("a", False): N_("a %(good)s boat %(baskets)s"),
    ("an", False): N_("an %(good)s boat %(baskets)s"),
    ("a", True): N_("a neutral %(good)s boat %(baskets)s"),
}
#: Alike boats of a hand told apart by their order.
ALIKE = (
    N_("%(boat)s (first of %(count)s)"),
    N_("%(boat)s (second of %(count)s)"),
    N_("%(boat)s (third of %(count)s)"),
    N_("%(boat)s (fourth of %(count)s)"),
)
#: A market day beginning, by its kind.
MARKET_BEGINS = {
    SMALL: phrase("The small market day begins"),
    BIG: phrase("The big market day begins"),
}


# -- names of things ---------------------------------------------------------------
#: The column letters the board prints, left to right.
COLUMNS = "ABCDEFGHIJ"


def field_name(field: str) -> str:
    """A field as the board labels it: ``r3c4`` is ``E4`` (column letter, row from 1)."""
    row, column = field[1:].split("c")
    return f"{COLUMNS[int(column)]}{int(row) + 1}"


def landing_name(key: str) -> Phrase:
    """A landing place by the fields around it: ``L4-5`` is "the landing place E4-F5"."""
    row, column = (int(part) for part in key[1:].split("-"))
    first, last = field_name(f"r{row - 1}c{column - 1}"), field_name(f"r{row}c{column}")
    return phrase("the landing place %(fields)s", fields=f"{first}-{last}")


def with_baskets(count: int) -> Phrase:
    """A boat's baskets after "with": "with no baskets", "with 1 basket", "with 2 baskets"."""
    if not count:
        return phrase("with no baskets")
    return counted("with %(count)s basket", "with %(count)s baskets", count)


def baskets(count: int) -> Phrase:
    """Baskets counted: "no baskets", "1 basket", "2 baskets"."""
    if not count:
        return phrase("no baskets")
    return counted("%(count)s basket", "%(count)s baskets", count)


def points(count: int) -> Phrase:
    """Points: "1 point", "6 points"."""
    return counted("%(count)s point", "%(count)s points", count)


def boat_name(tile: dict[str, Any], article: str = "the") -> Phrase:
    """A boat as a player names it: "the fish boat with 2 baskets", "an overseer boat".

    ``article`` is "the" or "a"; special boats, three of a kind and never owned,
    always take "a" or "an".
    """
    if tile["special"]:
        return SPECIAL_BOATS[tile["special"]]
    if article == "a" and not tile["neutral"] and tile["good"][:1] in "aeiou":
        article = "an"
    key = BOAT_NAMES[article, tile["neutral"]]
    return phrase(key, good=GOODS[tile["good"]], baskets=with_baskets(tile["baskets"]))


def boat_label(tile: dict[str, Any]) -> Phrase:
    """A boat of the hand, everything printed on it included (the Luk Phat sign)."""
    name = boat_name(tile)
    return phrase("%(boat)s and a Luk Phat sign", boat=name) if tile["luk_phat"] else name


def owned_boat(tile: dict[str, Any], merchant: int | None, seat_: int) -> Phrase:
    """A boat on the board with its owner, as ``seat_`` acting on it says it: "Bob's fish
    boat with 2 baskets", "Ann's own fish boat with 2 baskets"."""
    if merchant is None or tile["special"]:
        return boat_name(tile)
    key = (
        N_("%(seat)s's own %(good)s boat %(baskets)s")
        if merchant == seat_
        else N_("%(seat)s's %(good)s boat %(baskets)s")
    )
    return phrase(
        key, seat=seat(merchant), good=GOODS[tile["good"]], baskets=with_baskets(tile["baskets"])
    )


def pile_name(pile: str) -> Phrase:
    """The tactical variant's piles in words."""
    return PILE_WORDS[pile]


def layout_of(state: State) -> Layout:
    """The layout a state or a view is played on."""
    return BOARDS[state["options"]["board"]]


# -- describe: one sentence per move -------------------------------------------------


def describe(before: State, after: State, seat_: int, move: Move) -> Phrase:
    """What ``seat_`` did with ``move``, as a few sentences in the game's words.

    Reads only what every player sees: the move, the boards, the Luk Phat
    marker, scores, market days and whose turn it is.
    """
    layout = layout_of(before)
    who = seat(seat_)
    action = move["action"]
    if action == "score":
        said = _scoring(layout, before, seat_, move)
    elif action == "decline":
        said = phrase("%(seat)s declines to score.", seat=who)
    else:
        said = phrase("%(seat)s %(action)s.", seat=who, action=_clause(layout, before, seat_, move))
    return sentences(said, *_aftermath(layout, before, after, seat_))


def _clause(layout: Layout, before: State, seat_: int, move: Move) -> Phrase:
    """What a move of a turn did, after the player's name: a relocation, the end of the turn
    or a placement (with the pile drawn from in the tactical variant)."""
    if move["action"] == "relocate":
        return _drawn(_relocation(layout, before, move), move)
    if move["action"] == "finish":
        ends = phrase("ends the turn")
        return _drawn(ends, move)
    return _placement(layout, before, seat_, move)


def _relocation(layout: Layout, board_state: State, move: Move) -> Phrase:
    """A move card played: "moves the fish boat with 2 baskets from C3 to D3 with a ..."."""
    cell = board_state["board"][move["from"]]
    return phrase(
        "moves %(boat)s from %(origin)s to %(field)s with a move card",
        boat=boat_name(layout.tiles[cell["tile"]]),
        origin=field_name(move["from"]),
        field=field_name(move["to"]),
    )


def _drawn(clause: Phrase, move: Move) -> Phrase:
    """``clause`` with the tactical variant's pile drawn from, when the move names one."""
    if "draw" not in move:
        return clause
    return phrase(
        "%(clause)s, and draws from %(pile)s", clause=clause, pile=pile_name(move["draw"])
    )


def _placement(layout: Layout, before: State, seat_: int, move: Move) -> Phrase:
    """The placement's clauses: a move card first, the boat, its effect, a move card after."""
    board_state = before
    relocation = move.get("relocate")
    first = None
    if relocation and relocation["when"] == "before":
        first = _relocation(layout, before, relocation)
        board_state = {**before, "board": _moved(before["board"], relocation)}
    tile = layout.tiles[move["tile"]]
    placed = phrase(
        "places %(boat)s on %(field)s", boat=boat_name(tile), field=field_name(move["at"])
    )
    placed = _effect(layout, board_state, seat_, move, _merchant(tile, move, placed))
    if relocation == LATER:
        placed = phrase("%(clause)s, and will move a boat with a move card next", clause=placed)
    elif relocation and relocation["when"] == "after":
        later = {**board_state, "board": _placed(board_state["board"], move, seat_)}
        placed = _then(placed, _relocation(layout, later, relocation))
    return _drawn(_then(first, placed) if first else placed, move)


def _then(first: Phrase, then: Phrase) -> Phrase:
    """Two clauses one after the other: "moves ..., then places ..."."""
    return phrase("%(first)s, then %(then)s", first=first, then=then)


def _moved(board: dict[str, Any], relocation: dict[str, str]) -> dict[str, Any]:
    """``board`` with the boat of ``relocation["from"]`` on ``relocation["to"]``."""
    moved = dict(board)
    moved[relocation["to"]] = moved.pop(relocation["from"])
    return moved


def _placed(board: dict[str, Any], move: Move, seat_: int) -> dict[str, Any]:
    """``board`` with the boat of the placement ``move`` on its field."""
    merchant = None if move["merchant"] == "none" else seat_
    return {**board, move["at"]: {"tile": move["tile"], "merchant": merchant}}


def _merchant(tile: dict[str, Any], move: Move, clause: Phrase) -> Phrase:
    """The placement ``clause`` with the merchant of the boat: a new one, none, one taken back
    from a field, or nothing to say (neutral and special boats)."""
    choice = move["merchant"]
    if tile["neutral"] or tile["special"]:
        return clause
    if choice == "new":
        return phrase("%(clause)s with a new merchant", clause=clause)
    if choice == "none":
        return phrase("%(clause)s without a merchant", clause=clause)
    return phrase(
        "%(clause)s with the merchant taken back from %(field)s",
        clause=clause,
        field=field_name(choice),
    )


def _effect(layout: Layout, board_state: State, seat_: int, move: Move, clause: Phrase) -> Phrase:
    """The placement ``clause`` with what a thief or an overseer did when it was placed."""
    board, tile = board_state["board"], layout.tiles[move["tile"]]
    if tile["special"] == THIEF:
        if "steal" not in move:
            return phrase("%(clause)s and steals nothing", clause=clause)
        cell = board[move["steal"]]
        key = (
            N_("%(clause)s and steals %(boat)s from %(field)s and takes it into the hand")
            if move["keep"] == "hand"
            else N_("%(clause)s and steals %(boat)s from %(field)s and puts it into the inventory")
        )
        return phrase(
            key,
            clause=clause,
            boat=owned_boat(layout.tiles[cell["tile"]], cell["merchant"], seat_),
            field=field_name(move["steal"]),
        )
    if tile["special"] == OVERSEER and move.get("remove_thieves"):
        return phrase(
            "%(clause)s and %(parts)s", clause=clause, parts=_thieves_removed(layout, board, move)
        )
    return clause


def _thieves_removed(layout: Layout, board: dict[str, Any], move: Move) -> list[Phrase]:
    """An overseer's removal: the thieves sent back to the box, one perhaps kept in hand."""
    column = layout.overseer_line[move["at"]]
    thieves = [f for f in column if f in board and _special(layout, board, f) == THIEF]
    kept = move.get("keep")
    boxed = [field_name(f) for f in thieves if f != kept]
    parts = (
        [phrase("takes the thief on %(field)s into the hand", field=field_name(kept))]
        if kept
        else []
    )
    if boxed:
        parts.append(
            counted(
                "sends the thief on %(fields)s back to the box",
                "sends the thieves on %(fields)s back to the box",
                len(boxed),
                fields=boxed,
            )
        )
    return parts


def _special(layout: Layout, board: dict[str, Any], field: str) -> str | None:
    """The special kind of the boat on ``field``."""
    return layout.tiles[board[field]["tile"]]["special"]


def _aftermath(layout: Layout, before: State, after: State, seat_: int) -> list[Phrase]:
    """What followed by itself: the Luk Phat step, market days opening and closing, seats
    passed over, the end of the game."""
    said = []
    if after["luk_phat"] > before["luk_phat"]:
        said.append(
            phrase(
                "The Luk Phat marker moves on: %(seat)s scores %(points)s.",
                seat=seat(seat_),
                points=points(layout.track[after["luk_phat"] - 1]),
            )
        )
    opened = _market_opened(layout, before, after)
    if opened:
        said.append(_market_start(before, after, opened))
    if _kind(before) == SMALL and after["market"] is None:
        said.append(phrase("The small market day is over."))
    if after["finished"]:
        said.append(phrase("The game ends with the inventory count."))
    else:
        said += _passed_over(before, after, seat_)
    return said


def _kind(state: State) -> str | None:
    """The kind of the market day running in ``state`` (None between market days)."""
    return None if state["market"] is None else state["market"]["kind"]


def _market_opened(layout: Layout, before: State, after: State) -> str | None:
    """The kind of market day the move opened, if any (it may be over at once)."""
    if after["luk_phat"] > before["luk_phat"] and after["luk_phat"] in layout.market_days:
        return layout.market_days[after["luk_phat"]]
    now_big = after["finished"] or _kind(after) == BIG
    return BIG if now_big and _kind(before) != BIG else None


def _market_start(before: State, after: State, kind: str) -> Phrase:
    """A market day opening, with the reason when no Luk Phat step caused it."""
    if after["luk_phat"] == before["luk_phat"] and kind == BIG:
        head = phrase("Nobody can place a boat any more, so the big market day begins")
    else:
        head = MARKET_BEGINS[kind]
    if _kind(after) != kind:
        return phrase("%(head)s, but nobody can score a landing place.", head=head)
    return phrase(
        "%(head)s: %(seat)s scores first or declines.",
        head=head,
        seat=seat(after["market"]["seat"]),
    )


def _passed_over(before: State, after: State, seat_: int) -> list[Phrase]:
    """The seats skipped because they cannot place a boat, once a turn has passed on."""
    if after["market"] is not None or after["pending"] is not None:
        return []
    count = len(after["players"])
    if _kind(before) == SMALL:
        nxt = (before["market"]["trigger"] + 1) % count
    elif _kind(before) is None:
        nxt = (seat_ + 1) % count
    else:
        return []
    skipped = []
    while nxt != after["current"] and len(skipped) < count:
        skipped.append(seat(nxt))
        nxt = (nxt + 1) % count
    if not skipped:
        return []
    return [
        counted(
            "%(seats)s cannot place a boat and is passed over.",
            "%(seats)s cannot place a boat and are passed over.",
            len(skipped),
            seats=skipped,
        )
    ]


def _scoring(layout: Layout, before: State, seat_: int, move: Move) -> Phrase:
    """A scoring: the landing place, its baskets, everyone's points, the boat taken home."""
    board, landing = before["board"], move["landing"]
    fields = layout.landing_places[landing]
    tiles = [layout.tiles[board[f]["tile"]] for f in fields]
    count = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    gained = landing_points(layout, board, landing)
    gains = [
        phrase("%(who)s %(score)s", who=seat(s), score=points(p))
        for s, p in sorted(gained.items(), key=_by_seat(seat_))
        if p > 0
    ]
    key = (
        N_("%(seat)s scores %(landing)s %(baskets)s doubled by the cook: %(gains)s.")
        if any(t["special"] == COOK for t in tiles)
        else N_("%(seat)s scores %(landing)s %(baskets)s: %(gains)s.")
    )
    scored = phrase(
        key,
        seat=seat(seat_),
        landing=landing_name(landing),
        baskets=with_baskets(count),
        gains=gains or phrase("nobody gains points"),
    )
    taken = phrase(
        "%(seat)s takes %(boat)s from %(field)s into the inventory.",
        seat=seat(seat_),
        boat=boat_name(layout.tiles[board[move["remove"]]["tile"]]),
        field=field_name(move["remove"]),
    )
    return sentences(scored, taken)


def _by_seat(first: int) -> Callable[[tuple[int, int]], tuple[bool, int]]:
    """Sort key putting ``first`` before the other seats."""
    return lambda item: (item[0] != first, item[0])


# -- the result ---------------------------------------------------------------------


def result_reason(winners: list[int], best: int) -> str:
    """The engine's ``reason``, without names or seats (in English, as the result keeps it).

    >>> result_reason([0], 87)
    'the big market day and the inventory count are over: the best score is 87 points'
    """
    shared = " (shared)" if len(winners) > 1 else ""
    return (
        "the big market day and the inventory count are over: "
        f"the best score is {plural(best, 'point')}{shared}"
    )


def describe_result(result: dict[str, Any]) -> Phrase | None:
    """The result with the seats, scores and what the inventories brought.

    >>> from engines.phrases import english
    >>> english(describe_result({"winners": [0], "scores": {"0": 87, "1": 80},
    ...                  "inventory_points": {"0": 12, "1": 9}}), ["Ann", "Bob"])
    'Ann wins with 87 points; Bob has 80 points. The inventories brought Ann 12 and Bob 9 points.'

    None when the result is not one the engine wrote (no scores).
    """
    scores, inventory = result.get("scores"), result.get("inventory_points")
    winners = result.get("winners") or []
    if not scores or not winners or inventory is None:
        return None
    best = scores[str(winners[0])]
    if len(winners) == 1:
        head = counted(
            "%(who)s wins with %(count)s point",
            "%(who)s wins with %(count)s points",
            best,
            who=seat(winners[0]),
        )
    else:
        head = counted(
            "%(who)s share the win with %(count)s point each",
            "%(who)s share the win with %(count)s points each",
            best,
            who=[seat(w) for w in winners],
        )
    others = [
        counted("%(who)s has %(count)s point", "%(who)s has %(count)s points", p, who=seat(int(s)))
        for s, p in sorted(scores.items(), key=lambda item: -item[1])
        if int(s) not in winners
    ]
    brought = [phrase("%(who)s %(score)s", who=seat(int(s)), score=p) for s, p in inventory.items()]
    if others:
        return phrase(
            "%(head)s; %(others)s. The inventories brought %(brought)s points.",
            head=head,
            others=others,
            brought=brought,
        )
    return phrase(
        "%(head)s. The inventories brought %(brought)s points.", head=head, brought=brought
    )


# -- prompt ----------------------------------------------------------------------------


#: The prompt of a market day, by its kind.
MARKET_PROMPTS = {
    SMALL: N_("score a landing place or decline (small market day)"),
    BIG: N_("score a landing place or decline (big market day)"),
}
#: The prompt of a placement: (on a start field, a move card may go first) -> words.
PLACE_PROMPTS = {
    (False, False): N_("place a boat"),
    (True, False): N_("place a boat on a start field"),
    (False, True): N_("place a boat (or first move one of yours with a move card)"),
    (True, True): N_("place a boat on a start field (or first move one of yours with a move card)"),
}


def prompt(state: State, seat: int) -> Phrase:
    """What ``seat`` decides now, as a short phrase without a name (the Dutch rulebook's
    aanlegplaats, marktdag, verplaatsingskaart, startveld)."""
    layout = layout_of(state)
    market, pending = state["market"], state["pending"]
    if market is not None:
        return phrase(MARKET_PROMPTS[market["kind"]])
    if pending is not None and pending["kind"] == PLACE:
        return phrase(PLACE_PROMPTS[False, False])
    player = state["players"][seat]
    movable = player["move_cards"] > 0 and can_relocate(layout, state["board"], seat)
    if pending is not None and pending["kind"] == FINISH:
        if pending["relocate"] and movable:
            return phrase("move one of your boats with a move card, or end the turn")
        if state["options"]["tactical"]:
            return phrase("choose the pile to draw from")
        return phrase("end the turn")
    return phrase(PLACE_PROMPTS[seat in state["first_round"], movable])


# -- the guided questions --------------------------------------------------------------


def questions(state: State, seat: int) -> list[Question]:
    """The questions that pick a move of ``seat`` now, in order (see :mod:`engines.words`)."""
    if state["market"] is not None:
        return [
            Question(
                "landing",
                phrase("Which landing place do you score?"),
                _landing_answer,
                _landing_label,
            ),
            Question(
                "remove",
                phrase("Which boat goes into your inventory?"),
                _get("remove"),
                _field_label,
            ),
        ]
    tiles = layout_of(state).tiles
    pending = state["pending"]
    if pending is not None and pending["kind"] == FINISH:
        return [
            Question(
                "from",
                phrase("Move one of your boats with a move card?"),
                _finish_answer,
                _from_label,
            ),
            Question("to", phrase("Move it to which field?"), _get("to"), _to_label),
            Question("draw", phrase("Draw from which pile?"), _get("draw"), _pile_label),
        ]
    return [
        Question("boat", phrase("Which boat do you place?"), _boat_answer, _boat_label),
        Question(
            "from", phrase("Which of your boats do you move?"), _relocation_from, _field_label
        ),
        Question("to", phrase("Move it to which field?"), _relocation_to, _to_label),
        Question("at", phrase("On which field?"), _get("at"), _to_label),
        Question("merchant", phrase("With a merchant?"), _get("merchant"), _merchant_label),
        Question(
            "steal", phrase("Which boat does the thief steal?"), _steal_answer(tiles), _steal_label
        ),
        Question(
            "keep", phrase("Where does the stolen boat go?"), _keep_answer(tiles), _keep_label
        ),
        Question("thieves", phrase("Remove the thieves?"), _thieves_answer(tiles), _thieves_label),
        Question("later", phrase("Play a move card after placing?"), _later_answer, _later_label),
        Question("draw", phrase("Draw from which pile?"), _get("draw"), _pile_label),
    ]


def _get(key: str) -> Callable[[Move], str | None]:
    """The answer is the move's field ``key`` (None when it has none)."""
    return lambda move: move.get(key)


def _landing_answer(move: Move) -> str:
    """The landing place scored, or ``decline``."""
    return move["landing"] if move["action"] == "score" else DECLINE


def _finish_answer(move: Move) -> str:
    """The boat moved with a move card, or ``end``."""
    return move["from"] if move["action"] == "relocate" else END


def _boat_answer(move: Move) -> str:
    """The boat placed, or ``move-card`` for a move card played first."""
    return move["tile"] if move["action"] == "place" else MOVE_CARD


def _relocation_from(move: Move) -> str | None:
    """The boat a move card moves before placing."""
    return move["from"] if move["action"] == "relocate" else None


def _relocation_to(move: Move) -> str | None:
    """The field a move card moves a boat to before placing."""
    return move["to"] if move["action"] == "relocate" else None


def _steal_answer(tiles: dict[str, dict[str, Any]]) -> Callable[[Move], str | None]:
    """A thief's answer: the field robbed, or ``nothing``."""

    def answer(move: Move) -> str | None:
        if move["action"] != "place" or tiles[move["tile"]]["special"] != THIEF:
            return None
        return move.get("steal", NOTHING)

    return answer


def _keep_answer(tiles: dict[str, dict[str, Any]]) -> Callable[[Move], str | None]:
    """Where a thief's booty goes: ``hand`` or ``inventory``."""

    def answer(move: Move) -> str | None:
        if move["action"] != "place" or tiles[move["tile"]]["special"] != THIEF:
            return None
        return move.get("keep")

    return answer


def _thieves_answer(tiles: dict[str, dict[str, Any]]) -> Callable[[Move], str | None]:
    """An overseer's answer: ``leave``, ``box`` or the field of the thief kept in hand."""

    def answer(move: Move) -> str | None:
        if move["action"] != "place" or tiles[move["tile"]]["special"] != OVERSEER:
            return None
        if not move.get("remove_thieves"):
            return LEAVE
        return move.get("keep", BOX)

    return answer


def _later_answer(move: Move) -> str | None:
    """``yes`` for a placement that plays a move card next, ``no`` for any other."""
    if move["action"] != "place":
        return None
    return "yes" if move.get("relocate") == LATER else "no"


# -- labels: an answer value in words, given the asking seat's view --------------------


def _board_boat(field: str, view: dict[str, Any]) -> Phrase:
    """A boat on the board by its field: "the fish boat with 2 baskets on E4"."""
    cell = view["board"][field]
    return phrase(
        "%(boat)s on %(field)s",
        boat=boat_name(view["tiles"][cell["tile"]]),
        field=field_name(field),
    )


def _field_label(value: str, view: dict[str, Any]) -> Phrase:
    """A boat on the board, named by its field."""
    if value in view["board"]:
        return _board_boat(value, view)
    return phrase("the field %(field)s", field=field_name(value))


def _from_label(value: str, view: dict[str, Any]) -> Phrase:
    """The boat to move, or ending the turn."""
    if value == END:
        return phrase("end the turn")
    return phrase("move %(boat)s", boat=_field_label(value, view))


def _to_label(value: str, view: dict[str, Any]) -> Phrase:
    """A free field."""
    if value in view["board"]:
        return _field_label(value, view)
    return phrase("the free field %(field)s", field=field_name(value))


def _boat_label(value: str, view: dict[str, Any]) -> Phrase:
    """A boat of the hand (alike boats told apart by their order), or a move card first."""
    if value == MOVE_CARD:
        return phrase("first move one of your boats with a move card")
    tile = view["tiles"][value]
    alike = [t for t in view.get("hand", []) if view["tiles"][t] == tile]
    label = boat_label(tile)
    if len(alike) > 1 and value in alike:
        return phrase(ALIKE[alike.index(value)], boat=label, count=len(alike))
    return label


def _merchant_label(value: str, view: dict[str, Any]) -> Phrase:
    """A new merchant, none, or one taken back from a boat."""
    if value == "new":
        return phrase("with a new merchant")
    if value == "none":
        return phrase("without a merchant")
    return phrase("with the merchant taken back from %(boat)s", boat=_field_label(value, view))


def _steal_label(value: str, view: dict[str, Any]) -> Phrase:
    """The boat a thief steals, or nothing."""
    if value == NOTHING:
        return phrase("steal nothing")
    return phrase("steal %(boat)s", boat=_field_label(value, view))


def _keep_label(value: str, view: dict[str, Any]) -> Phrase:
    """Where the stolen boat goes."""
    if value == "hand":
        return phrase("into your hand (you draw no boat)")
    return phrase("into your inventory (then you draw a boat)")


def _thieves_label(value: str, view: dict[str, Any]) -> Phrase:
    """What the overseer does with the thieves of its column."""
    if value == LEAVE:
        return phrase("leave the thieves where they are")
    if value == BOX:
        return phrase("all thieves of the column back to the box (then you draw a boat)")
    return phrase(
        "take the thief on %(field)s into your hand (any other thief goes to the box)",
        field=field_name(value),
    )


def _later_label(value: str, view: dict[str, Any]) -> Phrase:
    """Whether a move card follows the placement."""
    if value == "yes":
        return phrase("yes, move one of your boats next")
    return phrase("no move card now")


def _pile_label(value: str, view: dict[str, Any]) -> Phrase:
    """A tactical pile."""
    return phrase("draw from %(pile)s", pile=pile_name(value))


def _landing_label(value: str, view: dict[str, Any]) -> Phrase:
    """A landing place with its baskets, or declining."""
    if value == DECLINE:
        return phrase("decline: score nothing now")
    layout = layout_of(view)
    fields = layout.landing_places[value]
    tiles = [view["tiles"][view["board"][f]["tile"]] for f in fields if f in view["board"]]
    count = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    key = (
        N_("%(landing)s (%(baskets)s, doubled by a cook)")
        if any(t["special"] == COOK for t in tiles)
        else N_("%(landing)s (%(baskets)s)")
    )
    return phrase(key, landing=landing_name(value), baskets=baskets(count))


def market_pause(day: str | None, after: State, seat_: int) -> Words:
    """Why the turn of ``seat_`` stops at ``after``: its boat reached the market ``day``."""
    if day is None or after["finished"]:
        return ""
    if day == BIG:
        return phrase("Your boat reached the big market day: it is held now, and it ends the game.")
    if after["market"] is None:
        return phrase(
            "Your boat reached the small market day, where nobody could score: end your turn "
            "(with a move card or without) as a move of its own."
        )
    return phrase(
        "Your boat reached the small market day: it is held now, and your turn goes on once "
        "every player has scored or declined (move a boat with a move card, or end the turn)."
    )
