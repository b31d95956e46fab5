"""Bangkok Klongs in words: what a move did, the result, what to decide now and how to ask it.

Fields are named as the board labels them for players: columns ``A`` to ``J``
from the left, rows ``1`` to ``8`` from the top, so the notation's ``r3c4``
(row 3, column 4, counted from 0) is ``E4``; a landing place is named by the
four fields around it, from the top left one to the bottom right one (the
notation's ``L4-5`` is "the landing place E4-F5"). Boats are named by what is
drawn on them, never by their tile id:

    >>> field_name("r3c4"), landing_name("L4-5"), landing_name("L1-2")
    ('E4', 'the landing place E4-F5', 'the landing place B1-C2')

    >>> from engines.bangkok_klongs.board import BOARDS
    >>> tiles = BOARDS["standard"].tiles
    >>> boat_name(tiles["t50"]), boat_name(tiles["t52"], "a"), boat_name(tiles["t63"])
    ('the fish boat with 2 baskets', 'a neutral fish boat with 3 baskets', 'a thief boat')
    >>> boat_label(tiles["t43"])
    'the neutral aubergine boat with 3 baskets and a Luk Phat sign'

Every sentence is built from what the public log shows: the move, the
board, the Luk Phat marker, the scores and whose turn it is. Hands and the
draw pile are never read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from engines.phrases import N_, Phrase, phrase
from engines.words import Question, join, plural

#: The answer of the first question of a turn that plays a move card before placing.
MOVE_CARD = "move-card"
#: The answer that ends a placed turn instead of moving a boat.
END = "end"
#: The market-day answer that scores nothing.
DECLINE = "decline"
#: A thief's answer when it takes no boat; an overseer's when it leaves the thieves.
NOTHING, LEAVE, BOX = "nothing", "leave", "box"
PILE_WORDS = {
    "merchant": "the pile of neutral and special boats",
    "plain": "the pile of boats without a merchant",
}
MARKET_WORDS = {SMALL: "small market day", BIG: "big market day"}
ORDINALS = ("first", "second", "third", "fourth")


# -- names of things ---------------------------------------------------------------
#: The column letters the board prints, left to right.
COLUMNS = "ABCDEFGHIJ"


def field_name(field: str) -> str:
    """A field as the board labels it: ``r3c4`` is ``E4`` (column letter, row from 1)."""
    row, column = field[1:].split("c")
    return f"{COLUMNS[int(column)]}{int(row) + 1}"


def landing_name(key: str) -> str:
    """A landing place by the fields around it: ``L4-5`` is "the landing place E4-F5"."""
    row, column = (int(part) for part in key[1:].split("-"))
    first, last = field_name(f"r{row - 1}c{column - 1}"), field_name(f"r{row}c{column}")
    return f"the landing place {first}-{last}"


def _article(article: str, word: str) -> str:
    """``a`` or ``an`` before ``word`` when ``article`` is ``a``; any other article as is."""
    if article == "a" and word[:1] in "aeiou":
        return "an"
    return article


def boat_name(tile: dict[str, Any], article: str = "the") -> str:
    """A boat as a player names it: "the fish boat with 2 baskets", "an overseer boat".

    ``article`` may also be a possessive ("Bob's"); special boats, three of a kind
    and never owned, always take "a" or "an".
    """
    if tile["special"]:
        return f"{_article('a', tile['special'])} {tile['special']} boat"
    kind = f"neutral {tile['good']}" if tile["neutral"] else tile["good"]
    return f"{_article(article, kind)} {kind} boat with {_baskets(tile['baskets'])}"


def _baskets(count: int) -> str:
    """A boat's baskets: "no baskets", "1 basket", "2 baskets"."""
    return plural(count, "basket") if count else "no baskets"


def boat_label(tile: dict[str, Any]) -> str:
    """A boat of the hand, everything printed on it included (the Luk Phat sign)."""
    name = boat_name(tile)
    return f"{name} and a Luk Phat sign" if tile["luk_phat"] else name


def owned_boat(tile: dict[str, Any], merchant: int | None, names: Sequence[str], seat: int) -> str:
    """A boat on the board with its owner, as ``seat`` acting on it says it: "Bob's fish
    boat with 2 baskets", "Ann's own fish boat with 2 baskets"."""
    if merchant is None:
        return boat_name(tile)
    own = " own" if merchant == seat else ""
    return boat_name(tile, f"{names[merchant]}'s{own}")


def pile_name(pile: str) -> str:
    """The tactical variant's piles in words."""
    return PILE_WORDS[pile]


def layout_of(state: State) -> Layout:
    """The layout a state or a view is played on."""
    return BOARDS[state["options"]["board"]]


# -- describe: one sentence per move -------------------------------------------------


def describe(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    """What ``seat`` did with ``move``, as a few sentences in the game's words.

    Reads only what every player sees: the move, the boards, the Luk Phat
    marker, scores, market days and whose turn it is.
    """
    layout = layout_of(before)
    name = names[seat]
    action = move["action"]
    if action == "score":
        text = _scoring(layout, before, seat, move, names)
    elif action == "decline":
        text = f"{name} declines to score."
    elif action == "relocate":
        text = f"{name} {_relocation(layout, before, move)}{_draw(move)}."
    elif action == "finish":
        text = f"{name} ends the turn{_draw(move)}."
    else:
        text = f"{name} {_placement(layout, before, seat, move, names)}."
    return " ".join([text, *_aftermath(layout, before, after, seat, names)])


def _relocation(layout: Layout, board_state: State, move: Move) -> str:
    """A move card played: "moves the fish boat with 2 baskets from r2c2 to r2c3 with a ..."."""
    cell = board_state["board"][move["from"]]
    boat = boat_name(layout.tiles[cell["tile"]])
    return (
        f"moves {boat} from {field_name(move['from'])} to {field_name(move['to'])} with a move card"
    )


def _draw(move: Move) -> str:
    """The tactical variant's pile, as the end of a sentence."""
    return f", and draws from {pile_name(move['draw'])}" if "draw" in move else ""


def _placement(layout: Layout, before: State, seat: int, move: Move, names: Sequence[str]) -> str:
    """The placement's clauses: a move card first, the boat, its effect, a move card after."""
    board_state = before
    relocation = move.get("relocate")
    clauses = []
    if relocation and relocation["when"] == "before":
        clauses.append(_relocation(layout, before, relocation))
        board_state = {**before, "board": _moved(before["board"], relocation)}
    tile = layout.tiles[move["tile"]]
    clauses.append(
        f"places {boat_name(tile)} on {field_name(move['at'])}{_merchant(tile, move, board_state)}"
        f"{_effect(layout, board_state, seat, move, names)}"
    )
    if relocation == LATER:
        clauses[-1] += ", and will move a boat with a move card next"
    elif relocation and relocation["when"] == "after":
        placed = {**board_state, "board": _placed(board_state["board"], move, seat)}
        clauses.append(_relocation(layout, placed, relocation))
    return ", then ".join(clauses) + _draw(move)


def _moved(board: dict[str, Any], relocation: dict[str, str]) -> dict[str, Any]:
    """``board`` with the boat of ``relocation["from"]`` on ``relocation["to"]``."""
    moved = dict(board)
    moved[relocation["to"]] = moved.pop(relocation["from"])
    return moved


def _placed(board: dict[str, Any], move: Move, seat: int) -> dict[str, Any]:
    """``board`` with the boat of the placement ``move`` on its field."""
    merchant = None if move["merchant"] == "none" else seat
    return {**board, move["at"]: {"tile": move["tile"], "merchant": merchant}}


def _merchant(tile: dict[str, Any], move: Move, board_state: State) -> str:
    """The merchant of a placed boat: with a new one, without, taken back from a field, or
    nothing to say (neutral and special boats)."""
    choice = move["merchant"]
    if tile["neutral"] or tile["special"]:
        return ""
    if choice == "new":
        return " with a new merchant"
    if choice == "none":
        return " without a merchant"
    return f" with the merchant taken back from {field_name(choice)}"


def _effect(
    layout: Layout,
    board_state: State,
    seat: int,
    move: Move,
    names: Sequence[str],
) -> str:
    """What a thief or an overseer did when it was placed."""
    board, tile = board_state["board"], layout.tiles[move["tile"]]
    if tile["special"] == THIEF:
        if "steal" not in move:
            return " and steals nothing"
        cell = board[move["steal"]]
        boat = owned_boat(layout.tiles[cell["tile"]], cell["merchant"], names, seat)
        where = "takes it into the hand" if move["keep"] == "hand" else "puts it into the inventory"
        return f" and steals {boat} from {field_name(move['steal'])} and {where}"
    if tile["special"] == OVERSEER and move.get("remove_thieves"):
        return _thieves_removed(layout, board, move)
    return ""


def _thieves_removed(layout: Layout, board: dict[str, Any], move: Move) -> str:
    """An overseer's removal: the thieves sent back to the box, one perhaps kept in hand."""
    column = layout.overseer_line[move["at"]]
    thieves = [f for f in column if f in board and _special(layout, board, f) == THIEF]
    kept = move.get("keep")
    boxed = [f for f in thieves if f != kept]
    parts = [f"takes the thief on {field_name(kept)} into the hand"] if kept else []
    if boxed:
        noun = "thief" if len(boxed) == 1 else "thieves"
        parts.append(f"sends the {noun} on {join([field_name(f) for f in boxed])} back to the box")
    return " and " + join(parts)


def _special(layout: Layout, board: dict[str, Any], field: str) -> str | None:
    """The special kind of the boat on ``field``."""
    return layout.tiles[board[field]["tile"]]["special"]


def _aftermath(
    layout: Layout, before: State, after: State, seat: int, names: Sequence[str]
) -> list[str]:
    """What followed by itself: the Luk Phat step, market days opening and closing, seats
    passed over, the end of the game."""
    sentences = []
    if after["luk_phat"] > before["luk_phat"]:
        points = layout.track[after["luk_phat"] - 1]
        sentences.append(
            f"The Luk Phat marker moves on: {names[seat]} scores {plural(points, 'point')}."
        )
    opened = _market_opened(layout, before, after)
    if opened:
        sentences.append(_market_start(layout, before, after, opened, names))
    if _kind(before) == SMALL and after["market"] is None:
        sentences.append("The small market day is over.")
    if after["finished"]:
        sentences.append("The game ends with the inventory count.")
    else:
        sentences += _passed_over(before, after, seat, names)
    return sentences


def _kind(state: State) -> str | None:
    """The kind of the market day running in ``state`` (None between market days)."""
    return None if state["market"] is None else state["market"]["kind"]


def _market_opened(layout: Layout, before: State, after: State) -> str | None:
    """The kind of market day the move opened, if any (it may be over at once)."""
    if after["luk_phat"] > before["luk_phat"] and after["luk_phat"] in layout.market_days:
        return layout.market_days[after["luk_phat"]]
    now_big = after["finished"] or _kind(after) == BIG
    return BIG if now_big and _kind(before) != BIG else None


def _market_start(
    layout: Layout, before: State, after: State, kind: str, names: Sequence[str]
) -> str:
    """A market day opening, with the reason when no Luk Phat step caused it."""
    if after["luk_phat"] == before["luk_phat"] and kind == BIG:
        head = "Nobody can place a boat any more, so the big market day begins"
    else:
        head = f"The {MARKET_WORDS[kind]} begins"
    if _kind(after) != kind:
        return f"{head}, but nobody can score a landing place."
    return f"{head}: {names[after['market']['seat']]} scores first or declines."


def _passed_over(before: State, after: State, seat: int, names: Sequence[str]) -> list[str]:
    """The seats skipped because they cannot place a boat, once a turn has passed on."""
    if after["market"] is not None or after["pending"] is not None:
        return []
    count = len(after["players"])
    if _kind(before) == SMALL:
        nxt = (before["market"]["trigger"] + 1) % count
    elif _kind(before) is None:
        nxt = (seat + 1) % count
    else:
        return []
    skipped = []
    while nxt != after["current"] and len(skipped) < count:
        skipped.append(names[nxt])
        nxt = (nxt + 1) % count
    if not skipped:
        return []
    verb = "cannot place a boat and is" if len(skipped) == 1 else "cannot place a boat and are"
    return [f"{join(skipped)} {verb} passed over."]


def _scoring(layout: Layout, before: State, seat: int, move: Move, names: Sequence[str]) -> str:
    """A scoring: the landing place, its baskets, everyone's points, the boat taken home."""
    board, landing = before["board"], move["landing"]
    fields = layout.landing_places[landing]
    tiles = [layout.tiles[board[f]["tile"]] for f in fields]
    baskets = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    cook = " doubled by the cook" if any(t["special"] == COOK for t in tiles) else ""
    points = landing_points(layout, board, landing)
    gains = [
        f"{names[s]} {plural(p, 'point')}"
        for s, p in sorted(points.items(), key=_by_seat(seat))
        if p > 0
    ]
    boat = boat_name(layout.tiles[board[move["remove"]]["tile"]])
    return (
        f"{names[seat]} scores {landing_name(landing)} with {_baskets(baskets)}{cook}: "
        f"{join(gains) if gains else 'nobody gains points'}. {names[seat]} takes {boat} "
        f"from {field_name(move['remove'])} into the inventory."
    )


def _by_seat(first: int) -> Callable[[tuple[int, int]], tuple[bool, int]]:
    """Sort key putting ``first`` before the other seats."""
    return lambda item: (item[0] != first, item[0])


# -- the result ---------------------------------------------------------------------


def result_reason(winners: list[int], best: int) -> str:
    """The engine's ``reason``, without names or seats.

    >>> result_reason([0], 87)
    'the big market day and the inventory count are over: the best score is 87 points'
    """
    shared = " (shared)" if len(winners) > 1 else ""
    return (
        "the big market day and the inventory count are over: "
        f"the best score is {plural(best, 'point')}{shared}"
    )


def describe_result(result: dict[str, Any], names: Sequence[str]) -> str | None:
    """The result with names, scores and what the inventories brought.

    >>> describe_result({"winners": [0], "scores": {"0": 87, "1": 80},
    ...                  "inventory_points": {"0": 12, "1": 9}}, ["Ann", "Bob"])
    'Ann wins with 87 points; Bob has 80 points. The inventories brought Ann 12 and Bob 9 points.'

    None when the result is not one the engine wrote (no scores).
    """
    scores, inventory = result.get("scores"), result.get("inventory_points")
    winners = result.get("winners") or []
    if not scores or not winners or inventory is None:
        return None
    best = scores[str(winners[0])]
    head = join(names[w] for w in winners)
    if len(winners) == 1:
        head += f" wins with {plural(best, 'point')}"
    else:
        head += f" share the win with {plural(best, 'point')} each"
    others = [
        f"{names[int(s)]} has {plural(p, 'point')}"
        for s, p in sorted(scores.items(), key=lambda item: -item[1])
        if int(s) not in winners
    ]
    brought = join(f"{names[int(s)]} {p}" for s, p in inventory.items())
    tail = f"; {join(others)}" if others else ""
    return f"{head}{tail}. The inventories brought {brought} points."


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
                "landing", "Which landing place do you score?", _landing_answer, _landing_label
            ),
            Question(
                "remove", "Which boat goes into your inventory?", _get("remove"), _field_label
            ),
        ]
    tiles = layout_of(state).tiles
    pending = state["pending"]
    if pending is not None and pending["kind"] == FINISH:
        return [
            Question(
                "from", "Move one of your boats with a move card?", _finish_answer, _from_label
            ),
            Question("to", "Move it to which field?", _get("to"), _to_label),
            Question("draw", "Draw from which pile?", _get("draw"), _pile_label),
        ]
    return [
        Question("boat", "Which boat do you place?", _boat_answer, _boat_label),
        Question("from", "Which of your boats do you move?", _relocation_from, _field_label),
        Question("to", "Move it to which field?", _relocation_to, _to_label),
        Question("at", "On which field?", _get("at"), _to_label),
        Question("merchant", "With a merchant?", _get("merchant"), _merchant_label),
        Question("steal", "Which boat does the thief steal?", _steal_answer(tiles), _steal_label),
        Question("keep", "Where does the stolen boat go?", _keep_answer(tiles), _keep_label),
        Question("thieves", "Remove the thieves?", _thieves_answer(tiles), _thieves_label),
        Question("later", "Play a move card after placing?", _later_answer, _later_label),
        Question("draw", "Draw from which pile?", _get("draw"), _pile_label),
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


def _board_boat(field: str, view: dict[str, Any]) -> str:
    """A boat on the board by its field: "the fish boat with 2 baskets on r3c4"."""
    cell = view["board"][field]
    return f"{boat_name(view['tiles'][cell['tile']])} on {field_name(field)}"


def _field_label(value: str, view: dict[str, Any]) -> str:
    """A boat on the board, named by its field."""
    return _board_boat(value, view) if value in view["board"] else f"the field {field_name(value)}"


def _from_label(value: str, view: dict[str, Any]) -> str:
    """The boat to move, or ending the turn."""
    return "end the turn" if value == END else f"move {_field_label(value, view)}"


def _to_label(value: str, view: dict[str, Any]) -> str:
    """A free field."""
    return (
        f"the free field {field_name(value)}"
        if value not in view["board"]
        else _field_label(value, view)
    )


def _boat_label(value: str, view: dict[str, Any]) -> str:
    """A boat of the hand (alike boats told apart by their order), or a move card first."""
    if value == MOVE_CARD:
        return "first move one of your boats with a move card"
    tile = view["tiles"][value]
    alike = [t for t in view.get("hand", []) if view["tiles"][t] == tile]
    label = boat_label(tile)
    if len(alike) > 1 and value in alike:
        label += f" ({ORDINALS[alike.index(value)]} of {len(alike)})"
    return label


def _merchant_label(value: str, view: dict[str, Any]) -> str:
    """A new merchant, none, or one taken back from a boat."""
    if value == "new":
        return "with a new merchant"
    if value == "none":
        return "without a merchant"
    return f"with the merchant taken back from {_field_label(value, view)}"


def _steal_label(value: str, view: dict[str, Any]) -> str:
    """The boat a thief steals, or nothing."""
    return "steal nothing" if value == NOTHING else f"steal {_field_label(value, view)}"


def _keep_label(value: str, view: dict[str, Any]) -> str:
    """Where the stolen boat goes."""
    if value == "hand":
        return "into your hand (you draw no boat)"
    return "into your inventory (then you draw a boat)"


def _thieves_label(value: str, view: dict[str, Any]) -> str:
    """What the overseer does with the thieves of its column."""
    if value == LEAVE:
        return "leave the thieves where they are"
    if value == BOX:
        return "all thieves of the column back to the box (then you draw a boat)"
    return f"take the thief on {field_name(value)} into your hand (any other thief goes to the box)"


def _later_label(value: str, view: dict[str, Any]) -> str:
    """Whether a move card follows the placement."""
    return "yes, move one of your boats next" if value == "yes" else "no move card now"


def _pile_label(value: str, view: dict[str, Any]) -> str:
    """A tactical pile."""
    return f"draw from {pile_name(value)}"


def _landing_label(value: str, view: dict[str, Any]) -> str:
    """A landing place with its baskets, or declining."""
    if value == DECLINE:
        return "decline: score nothing now"
    layout = layout_of(view)
    fields = layout.landing_places[value]
    tiles = [view["tiles"][view["board"][f]["tile"]] for f in fields if f in view["board"]]
    baskets = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    cook = ", doubled by a cook" if any(t["special"] == COOK for t in tiles) else ""
    return f"{landing_name(value)} ({_baskets(baskets)}{cook})"


def market_pause(day: str | None, after: State, seat: int) -> str:
    """Why the turn of ``seat`` stops at ``after``: its boat reached the market ``day``."""
    if day is None or after["finished"]:
        return ""
    name = MARKET_WORDS[day]
    if day == BIG:
        return f"Your boat reached the {name}: it is held now, and it ends the game."
    if after["market"] is None:
        return (
            f"Your boat reached the {name}, where nobody could score: end your turn "
            "(with a move card or without) as a move of its own."
        )
    return (
        f"Your boat reached the {name}: it is held now, and your turn goes on once every "
        "player has scored or declined (move a boat with a move card, or end the turn)."
    )
