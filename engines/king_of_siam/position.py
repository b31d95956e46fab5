"""Building a state from a posted position, refusing anything inconsistent.

A position has the public state shape (any subset of its keys) plus
``to_move`` and each seat's ``hand`` inside its ``players`` entry. Left-out
keys take their natural value: empty provinces, no control, no King marker,
a full hand, no followers, the pool holding every follower not elsewhere,
no passes, no pending take and the holder of the lowest aid card to move.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engines.base import IllegalMove, InvalidPosition, State
from engines.king_of_siam.board import FACTIONS, Board
from engines.king_of_siam.cards import CARD_FIELDS, CARDS, HAND, Table, fields_of, key_of
from engines.king_of_siam.rules import BRITISH, contested_of, is_over
from engines.king_of_siam.steps import STEPS, fitting, is_complete
from engines.phrases import Words

KEYS = frozenset(
    {
        "map",
        "options",
        "provinces",
        "struggle_order",
        "contested",
        "pool",
        "control_history",
        "players",
        "passes_in_a_row",
        "to_move",
        "last_card",
        "card_recency",
        "auto_passed",
        "pending",
    }
)
PLAYER_KEYS = frozenset({"seat", "aid_card", "team", "followers", "cards_left", "top_card", "hand"})
PROVINCE_KEYS = frozenset({"followers", "control", "king_marker"})
CONTROLS = (*FACTIONS, BRITISH)


def invalid(message: Words) -> InvalidPosition:
    """The error for an inconsistent position."""
    return InvalidPosition(message, "invalid_position")


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _object(value: Any, allowed: frozenset[str], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid(f"{what} must be a JSON object.")
    unknown = sorted(str(key) for key in set(value) - allowed)
    if unknown:
        raise invalid(f"Unknown field(s) in {what}: {', '.join(unknown)}.")
    return value


def _followers(value: Any, what: str) -> dict[str, int]:
    if value is None:
        return {f: 0 for f in FACTIONS}
    value = _object(value, frozenset(FACTIONS), what)
    if not all(_is_count(count) for count in value.values()):
        raise invalid(f"{what} must map rama, lao and malay to counts of at least 0.")
    return {f: value.get(f, 0) for f in FACTIONS}


def build(players: int, options: dict[str, Any], board: Board, position: Any) -> State:
    """The state of ``position`` (without rng); InvalidPosition naming any inconsistency."""
    if isinstance(position, dict) and "hand" in position:
        raise invalid("Put each seat's 'hand' inside its entry of 'players', not at the top.")
    if type(players) is not int or not 2 <= players <= 4:
        raise invalid("King of Siam is played by 2 to 4 players.")
    position = _object(position, KEYS, "the position")
    if position.get("map", board.name) != board.name:
        raise invalid(f"The position's map differs from the game's map ({board.name}).")
    if position.get("options", options) != options:
        raise invalid("The position's options differ from the game's options.")
    state: State = {
        "map": board.name,
        "options": options,
        "provinces": _provinces(board, position.get("provinces")),
        "players": _players(players, position.get("players")),
    }
    _order_and_history(state, board, position)
    state["pool"] = _pool(state, players, position.get("pool"))
    _check_king_markers(state)
    state["passes_in_a_row"] = _passes(position.get("passes_in_a_row"), players)
    state["last_card"] = _last_card(state, position.get("last_card"))
    state["card_recency"] = _recency(state, position.get("card_recency"))
    state["auto_passed"] = _seats(position.get("auto_passed", []), players, "'auto_passed'")
    state["current_seat"] = _current_seat(state, position)
    state["pending"] = _pending(state, position.get("pending"))
    if "contested" in position and position["contested"] != state["contested"]:
        raise invalid(f"'contested' must be the lowest face-up tile, {state['contested']}.")
    return state


def _provinces(board: Board, given: Any) -> dict[str, Any]:
    given = _object(
        given if given is not None else {},
        frozenset(board.provinces),
        "'provinces' (keys must be provinces of the map)",
    )
    provinces = {}
    for province in board.provinces:
        what = f"province {province}"
        entry = _object(given.get(province, {}), PROVINCE_KEYS, what)
        followers = _followers(entry.get("followers"), f"the followers of {province}")
        control = entry.get("control")
        if control not in (None, *CONTROLS):
            raise invalid(f"The control of {province} must be null, a faction or british.")
        if control is not None and any(followers.values()):
            raise invalid(
                f"{province} is controlled ({control}), so its followers went to "
                "the pool: it must hold none."
            )
        marker = entry.get("king_marker", False)
        if type(marker) is not bool:
            raise invalid(f"The king_marker of {province} must be true or false.")
        provinces[province] = {"followers": followers, "control": control, "king_marker": marker}
    return provinces


def _players(players: int, given: Any) -> list[dict[str, Any]]:
    if given is None:
        given = [{} for _ in range(players)]
    if not isinstance(given, list) or len(given) != players:
        raise invalid(f"'players' must list {players} entries, one per seat.")
    entries = [_player(seat, players, entry) for seat, entry in enumerate(given)]
    cards = [entry["aid_card"] for entry in entries]
    if len(set(cards)) != len(cards):
        raise invalid("Each seat holds a different playing aid card.")
    return entries


def _player(seat: int, players: int, given: Any) -> dict[str, Any]:
    what = f"players[{seat}]"
    given = _object(given, PLAYER_KEYS, what)
    if given.get("seat", seat) != seat:
        raise invalid(f"{what} must be seat {seat}.")
    aid_card = given.get("aid_card", seat + 1)
    if type(aid_card) is not int or not 1 <= aid_card <= (4 if players == 4 else 3):
        raise invalid(f"{what}.aid_card must be 1 to 3 (4 only with 4 players).")
    team = seat % 2 if players == 4 else None
    if given.get("team", team) != team:
        raise invalid(f"{what}.team must be {team} (4 players: seats 0+2 against 1+3).")
    hand = _hand(given, what)
    top_card = given.get("top_card")
    if top_card is not None and (
        top_card not in CARDS or hand.count(top_card) >= HAND.count(top_card)
    ):
        raise invalid(f"{what}.top_card must be null or a card that seat has played.")
    return {
        "seat": seat,
        "aid_card": aid_card,
        "team": team,
        "followers": _followers(given.get("followers"), f"{what}.followers"),
        "cards_left": len(hand),
        "top_card": top_card,
        "hand": hand,
    }


def _hand(given: dict[str, Any], what: str) -> list[str]:
    hand = given.get("hand")
    if hand is None:
        if given.get("cards_left", len(HAND)) != len(HAND):
            raise invalid(f"{what} has played cards: give its 'hand'.")
        return list(HAND)
    if not isinstance(hand, list) or not all(card in CARDS for card in hand):
        raise invalid(f"{what}.hand must list card names ({', '.join(CARDS)}).")
    if Counter(hand) - Counter(HAND):
        raise invalid(f"{what}.hand holds more cards than a set has: {', '.join(HAND)}.")
    if given.get("cards_left", len(hand)) != len(hand):
        raise invalid(f"{what}.cards_left must be the size of its hand ({len(hand)}).")
    return sorted(hand, key=HAND.index)


def _order_and_history(state: State, board: Board, position: dict[str, Any]) -> None:
    provinces = state["provinces"]
    controlled = [p for p in board.provinces if provinces[p]["control"] is not None]
    history = position.get("control_history")
    order = position.get("struggle_order")
    if history is None:
        decided = [p for p in order if p in controlled] if isinstance(order, list) else controlled
        history = [{"province": p, "control": provinces[p]["control"]} for p in decided]
    _check_history(history, provinces, controlled)
    decided = [entry["province"] for entry in history]
    if order is None:
        order = decided + [p for p in board.provinces if p not in decided]
    if not isinstance(order, list) or sorted(order, key=str) != sorted(board.provinces):
        raise invalid("'struggle_order' must list every province of the map once.")
    if order[: len(decided)] != decided:
        raise invalid(
            "The decided struggles are the first tiles of 'struggle_order', in the "
            "order of 'control_history'."
        )
    state["struggle_order"] = list(order)
    state["control_history"] = [dict(entry) for entry in history]
    state["contested"] = contested_of(state)
    british = [entry["control"] for entry in history[:-1]].count(BRITISH)
    if british >= board.colony_at:
        raise invalid(
            f"The game ended when the British took {board.colony_at} provinces: "
            "no struggle follows."
        )


def _check_history(history: Any, provinces: dict[str, Any], controlled: list[str]) -> None:
    if not isinstance(history, list):
        raise invalid('\'control_history\' must be a list of {"province", "control"}.')
    for entry in history:
        entry = _object(entry, frozenset({"province", "control"}), "a control_history entry")
        province = entry.get("province")
        if (
            not isinstance(province, str)
            or province not in provinces
            or provinces[province]["control"] != entry.get("control")
        ):
            raise invalid(
                "Each control_history entry must name a controlled province and its control."
            )
    if sorted(entry["province"] for entry in history) != sorted(controlled):
        raise invalid("'control_history' must list every controlled province exactly once.")


def _pool(state: State, players: int, given: Any) -> dict[str, int]:
    total = 16 if players == 2 else 18
    placed = Counter()
    for holder in [entry["followers"] for entry in state["provinces"].values()] + [
        player["followers"] for player in state["players"]
    ]:
        placed.update(holder)
    remainder = {f: total - placed[f] for f in FACTIONS}
    pool = remainder if given is None else _followers(given, "'pool'")
    for faction in FACTIONS:
        if pool[faction] != remainder[faction] or remainder[faction] < 0:
            raise invalid(
                f"Followers are not conserved: the game has {total} {faction} "
                f"followers, but provinces, players and pool hold "
                f"{placed[faction] + pool[faction]}."
            )
    return pool


def _check_king_markers(state: State) -> None:
    markers = sum(entry["king_marker"] for entry in state["provinces"].values())
    played = sum("maharacha" not in player["hand"] for player in state["players"])
    if markers > played:
        raise invalid(
            f"{markers} King marker(s) on the tiles, but only {played} Maharacha card(s) played."
        )


def _passes(value: Any, players: int) -> int:
    value = 0 if value is None else value
    if not _is_count(value) or value >= players:
        raise invalid(
            f"'passes_in_a_row' must be 0 to {players - 1}: at {players} the struggle is decided."
        )
    return value


def _last_card(state: State, given: Any) -> dict[str, Any] | None:
    if given is None:
        return None
    if not isinstance(given, dict) or given.get("card") not in CARDS:
        raise invalid("'last_card' must be null or {\"card\": name, ...its fields}.")
    card = given["card"]
    if all(player["hand"].count(card) == HAND.count(card) for player in state["players"]):
        raise invalid(f"'last_card' is {card}, but no seat has played it.")
    if set(given) != {"card", *CARD_FIELDS[card]}:
        raise invalid(
            f"'last_card' has the card and all its fields: {', '.join(CARD_FIELDS[card])}."
        )
    try:
        key = key_of(Table(state), card, {**given, "action": "play", "take": None})
    except IllegalMove as error:
        raise invalid(f"'last_card': {error.message}") from error
    return {"card": card, **fields_of(card, key)}


def _seats(value: Any, players: int, what: str) -> list[int]:
    if not isinstance(value, list) or not all(type(s) is int and 0 <= s < players for s in value):
        raise invalid(f"{what} must be a list of seats 0 to {players - 1}.")
    return list(value)


def _recency(state: State, given: Any) -> list[int]:
    players = state["players"]
    played = [p["seat"] for p in players if len(p["hand"]) < len(HAND)]
    recency = played if given is None else _seats(given, len(players), "'card_recency'")
    if sorted(recency) != played:
        raise invalid(
            "'card_recency' must list each seat that has played a card exactly "
            "once, least recent first."
        )
    return recency


def _pending(state: State, given: Any) -> dict[str, Any] | None:
    """The pending decision of the seat to move: its take, or the next step of its card."""
    if given is None:
        return None
    seat = state["current_seat"]
    if not isinstance(given, dict) or given.get("seat") != seat or is_over(state):
        raise invalid(
            f"'pending' must be null or a decision of seat {seat}, the seat to move, "
            "in a running game."
        )
    if given.get("kind") == "take":
        return _pending_take(state, given)
    card = given.get("card")
    if card not in STEPS or given.get("kind") != STEPS[card]:
        raise invalid(
            '\'pending\' is {"seat", "kind": "take"}, or the next step of a card '
            'played in steps: kind "place" (khon_thai) or "swap" (one_vs_one, '
            "two_vs_one) with the card and its fields so far."
        )
    if card not in state["players"][seat]["hand"]:
        raise invalid(f"'pending': seat {seat} holds no {card} card to play in steps.")
    fields = {name: value for name, value in given.items() if name not in ("seat", "kind")}
    table = Table(state)
    try:
        key = key_of(table, card, {"action": "play", **fields})
        if is_complete(table, card, key):
            raise invalid(f"'pending': this {card} is complete, so no step is pending.")
        fitting(table, card, key)
    except IllegalMove as error:
        raise invalid(f"'pending': {error.message}") from error
    return {"seat": seat, "kind": STEPS[card], "card": card, **fields_of(card, key)}


def _pending_take(state: State, given: dict[str, Any]) -> dict[str, Any]:
    """A pending take: the seat to move just played a card and must take a follower."""
    seat = state["current_seat"]
    if set(given) != {"seat", "kind"}:
        raise invalid('A pending take is {"seat": <the seat to move>, "kind": "take"}.')
    if state["card_recency"][-1:] != [seat] or state["passes_in_a_row"]:
        raise invalid(
            "A pending take follows a card: the seat to move must be the last to have "
            "played one, with no pass since."
        )
    if not Table(state).ends():
        raise invalid("No province holds a follower, so no take can be pending.")
    return dict(given)


def _current_seat(state: State, position: dict[str, Any]) -> int:
    players = state["players"]
    to_move = position.get("to_move")
    if isinstance(to_move, list):
        if len(to_move) > 1:
            raise invalid("'to_move' names one seat: King of Siam has one player at a time.")
        to_move = to_move[0] if to_move else None
    if to_move is None:
        if "to_move" in position and not is_over(state):
            raise invalid("The game is not over, so 'to_move' must name the seat to play.")
        cards = [player["aid_card"] for player in players]
        return cards.index(min(cards))
    if type(to_move) is not int or not 0 <= to_move < len(players):
        raise invalid(f"'to_move' must be one seat 0 to {len(players) - 1}.")
    return to_move
