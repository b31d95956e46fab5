"""The :class:`KingOfSiamEngine`: setup, turns, cards, automatic passes and views."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from engines.base import Engine, IllegalMove, Move, State
from engines.king_of_siam import notation, position, rules
from engines.king_of_siam.cards import (
    CARD_TITLES,
    CARDS,
    HAND,
    Key,
    Table,
    check,
    deltas,
    fields_of,
    follower_ref,
    key_of,
    legal_keys,
    move_of,
)
from engines.king_of_siam.maps import FACTIONS, MAPS, Board, get_board
from engines.rng import Rng

AID_FOLLOWERS = {1: ("rama", "lao"), 2: ("lao", "malay"), 3: ("malay", "rama")}
Take = tuple[str, str] | None


def followers_per_faction(players: int) -> int:
    """18 followers of each faction, 16 in a 2-player game."""
    return 16 if players == 2 else 18


def aid_followers(aid_cards: list[int], seat: int) -> dict[str, int]:
    """The followers shown on ``seat``'s playing aid (card 4 copies the left neighbour's)."""
    card = aid_cards[seat]
    if card == 4:
        card = aid_cards[(seat + 1) % len(aid_cards)]
    shown = Counter(AID_FOLLOWERS[card])
    return {faction: shown[faction] for faction in FACTIONS}


def board_of(name: Any) -> Board:
    """The board of map ``name``; ValueError for an unknown map."""
    if not isinstance(name, str) or name not in MAPS:
        raise ValueError(f"unknown map {name!r}: choose one of {', '.join(sorted(MAPS))}")
    return get_board(name)


def _seeded_provinces(board: Board, bag: list[str]) -> dict[str, Any]:
    """Each home gets 2 of its faction and 2 drawn followers, other provinces 4 drawn ones."""
    home_of = {province: faction for faction, province in board.homes.items()}
    provinces = {}
    for province in board.provinces:
        home = home_of.get(province)
        drawn = Counter(bag.pop() for _ in range(2 if home else 4))
        if home:
            drawn[home] += 2
        provinces[province] = {"followers": {f: drawn[f] for f in FACTIONS},
                               "control": None, "king_marker": False}
    return provinces


class KingOfSiamEngine(Engine):
    """King of Siam (Peer Sylvester): three factions, eight power struggles, 2-4 players."""

    id = "king-of-siam"
    name = "King of Siam"
    min_players = 2
    max_players = 4
    default_options = {"map": "siam-1874"}
    option_choices = {"map": MAPS}
    hidden_information = "every player's action cards"

    # -- creation -------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Deal aid cards, seed the provinces and the struggle order; the lowest aid card starts."""
        options = self.options(options)
        board = board_of(options["map"])
        rng = Rng(seed)
        aid_cards = rng.shuffled([1, 2, 3, 4] if players == 4 else [1, 2, 3])[:players]
        held = [aid_followers(aid_cards, seat) for seat in range(players)]
        stock = {f: followers_per_faction(players) - 2 - sum(h[f] for h in held)
                 for f in FACTIONS}
        bag = rng.shuffled([f for f in FACTIONS for _ in range(stock[f])])
        provinces = _seeded_provinces(board, bag)
        order = rng.shuffled(board.provinces)
        pool = Counter(bag)
        return {
            "map": board.name,
            "options": options,
            "provinces": provinces,
            "struggle_order": order,
            "contested": order[0],
            "pool": {f: pool[f] for f in FACTIONS},
            "control_history": [],
            "players": [{"seat": seat, "aid_card": aid_cards[seat],
                         "team": seat % 2 if players == 4 else None,
                         "followers": held[seat], "cards_left": len(HAND), "top_card": None,
                         "hand": list(HAND)} for seat in range(players)],
            "passes_in_a_row": 0,
            "current_seat": aid_cards.index(min(aid_cards)),
            "last_card": None,
            "card_recency": [],
            "auto_passed": [],
            "rng": rng.state,
        }

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position_: dict[str, Any]
    ) -> State:
        """A state built from ``position_`` (the state shape plus ``to_move`` and hands)."""
        if options is not None and not isinstance(options, dict):
            raise position.invalid("The options must be a JSON object.")
        try:
            merged = self.options(options)
            board = board_of(merged["map"])
        except ValueError as error:
            raise position.invalid(f"{error}.") from error
        state = position.build(players, merged, board, position_)
        state["rng"] = Rng(seed).state
        state["auto_passed"] = []
        _auto_pass(state)
        return state

    # -- play -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """The seat to play, or ``[]`` once the game is over."""
        return [] if rules.is_over(state) else [state["current_seat"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``pass`` and every maximal execution of each card in hand with every take."""
        if type(seat) is not int or seat not in self.to_move(state):
            return []
        moves: list[Move] = [{"action": "pass"}]
        judge = _LastCard(state, seat) if _cards_in_hands(state) == 1 else None
        table = Table(state)
        for card in dict.fromkeys(state["players"][seat]["hand"]):
            for key, takes in _plays(table, card):
                moves += [move_of(card, key, take and {"province": take[0], "faction": take[1]})
                          for take in takes if not judge or judge.wins(card, key, take)]
        return moves

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move`` and any automatic passes that follow."""
        if rules.is_over(state):
            raise IllegalMove("The game is over.", "game_over")
        if type(seat) is not int or seat not in self.to_move(state):
            raise IllegalMove(f"It is not seat {seat}'s turn: seat {state['current_seat']} "
                              "plays now.", "turn")
        if not isinstance(move, dict) or move.get("action") not in ("pass", "play"):
            raise IllegalMove("A move is {\"action\": \"pass\"} or {\"action\": \"play\", "
                              "\"card\": ...}.", "move_shape")
        new = self.copy_state(state)
        new["auto_passed"] = []
        if move["action"] == "play":
            self._play(new, seat, move)
        elif set(move) == {"action"}:
            rules.pass_turn(new, seat)
        else:
            raise IllegalMove("A pass has no other field than \"action\".", "move_shape")
        _auto_pass(new)
        return new

    def result(self, state: State) -> dict[str, Any] | None:
        """None while running, else winners, scores, reason, ruling faction and rankings."""
        return rules.outcome(state)

    # -- views ----------------------------------------------------------
    def partners(self, state: State, seat: int) -> list[int]:
        """``seat`` and, in a 4-player game, its partner (seats 0+2, 1+3)."""
        team = state["players"][seat]["team"]
        if team is None:
            return [seat]
        return [p["seat"] for p in state["players"] if p["team"] == team]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything public, plus ``hand`` for ``seat``; never the rng or another hand."""
        public = self.copy_state({key: value for key, value in state.items()
                                  if key not in ("rng", "current_seat")})
        for player in public["players"]:
            del player["hand"]
        if type(seat) is int and 0 <= seat < len(state["players"]):
            public["hand"] = list(state["players"][seat]["hand"])
        return public

    # -- notation -------------------------------------------------------
    def format(self, move: Move) -> str:
        """The one-line notation, e.g. ``rama korat sukhothai; take lao kedah``."""
        return notation.format_move(move)

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``; with a state, province names are checked too."""
        return notation.parse_move(text, state)

    # -- internals ------------------------------------------------------
    def _play(self, state: State, seat: int, move: Move) -> None:
        """Validate and execute a card play with its take (``state`` is a private copy)."""
        card = move.get("card")
        if card not in CARDS:
            raise IllegalMove(f"'card' must be one of {', '.join(CARDS)}.", "move_shape")
        if card not in state["players"][seat]["hand"]:
            raise IllegalMove(f"You have no {CARD_TITLES[card]} card left: played cards never "
                              "return to the hand.", "hand")
        table = Table(state)
        key = key_of(table, card, move)
        check(table, card, key)
        take = None if move["take"] is None else follower_ref(table, move["take"], "'take'")
        last_card = _cards_in_hands(state) == 1
        _execute(state, seat, card, key)
        _take(state, seat, take)
        if last_card and seat not in _final_winners(state):
            raise IllegalMove("Last card: the very last action card of the game may be played "
                              "only if it wins the game for you or your partner, and this "
                              "play does not.", "last_card")


class _LastCard:
    """Whether the very last card of the game wins for ``seat`` (rule "last card").

    Once it is played nobody can act, so the remaining struggles are decided
    as the board stands. The result depends only on how each open province
    falls, in struggle order, and on the faction ``seat`` takes; plays that
    agree on these share one full evaluation.
    """

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.known: dict[tuple[Any, ...], bool] = {}
        self.falls = {province: rules.majority(entry["followers"])
                      for province, entry in state["provinces"].items()
                      if entry["control"] is None}

    def wins(self, card: str, key: Key, take: Take) -> bool:
        """True if playing ``card`` as ``key`` with ``take`` makes ``seat`` (or partner) win."""
        signature = self._signature(card, key, take)
        if signature not in self.known:
            trial = Engine.copy_state(self.state)
            _execute(trial, self.seat, card, key)
            _take(trial, self.seat, take)
            self.known[signature] = self.seat in _final_winners(trial)
        return self.known[signature]

    def _signature(self, card: str, key: Key, take: Take) -> tuple[Any, ...]:
        provinces = self.state["provinces"]
        changes = deltas(card, key) + ([(take[0], take[1], -1)] if take else [])
        changed: dict[str, dict[str, int]] = {}
        for province, faction, delta in changes:
            counts = changed.setdefault(province, dict(provinces[province]["followers"]))
            counts[faction] += delta
        order = list(self.state["struggle_order"])
        if card == "maharacha" and key:
            i, j = order.index(key[0]), order.index(key[1])
            order[i], order[j] = order[j], order[i]
        falls = dict(self.falls)
        falls.update((province, rules.majority(counts)) for province, counts in changed.items())
        return tuple((p, falls[p]) for p in order if p in falls), take[1] if take else None


def _can_play(state: State, seat: int) -> bool:
    """True if ``seat`` has a legal move other than pass."""
    hand = state["players"][seat]["hand"]
    if not hand:
        return False
    if _cards_in_hands(state) > 1:
        return True
    judge = _LastCard(state, seat)
    return any(judge.wins(hand[0], key, take)
               for key, takes in _plays(Table(state), hand[0]) for take in takes)


def _auto_pass(state: State) -> None:
    """Pass for every seat in turn whose only legal move is pass (recorded in the state)."""
    while not rules.is_over(state):
        seat = state["current_seat"]
        if _can_play(state, seat):
            return
        state["auto_passed"].append(seat)
        rules.pass_turn(state, seat)


def _cards_in_hands(state: State) -> int:
    return sum(len(player["hand"]) for player in state["players"])


def _plays(table: Table, card: str) -> Iterator[tuple[Key, list[Take]]]:
    """Every legal execution of ``card`` with the takes possible after it."""
    for key in legal_keys(table, card):
        yield key, _takes_after(table, deltas(card, key))


def _takes_after(table: Table, changes: list[tuple[str, str, int]]) -> list[Take]:
    """Every ``(province, faction)`` holding a follower after ``changes`` (``[None]``: none)."""
    changed: dict[str, dict[str, int]] = {}
    for province, faction, delta in changes:
        counts = changed.setdefault(province, dict(table.provinces[province]["followers"]))
        counts[faction] += delta
    takes: list[Take] = []
    for province in table.board.provinces:
        counts = changed.get(province) or table.provinces[province]["followers"]
        takes += [(province, faction) for faction in FACTIONS if counts[faction]]
    return takes or [None]


def _execute(state: State, seat: int, card: str, key: Key) -> None:
    """Carry out a legal card execution and the bookkeeping of playing a card."""
    provinces = state["provinces"]
    for province, faction, delta in deltas(card, key):
        provinces[province]["followers"][faction] += delta
        state["pool"][faction] -= delta
    if card == "maharacha" and key:
        first, second, king = key
        order = state["struggle_order"]
        i, j = order.index(first), order.index(second)
        order[i], order[j] = second, first
        provinces[king]["king_marker"] = True
        state["contested"] = rules.contested_of(state)
    player = state["players"][seat]
    player["hand"].remove(card)
    player["cards_left"] = len(player["hand"])
    player["top_card"] = card
    state["card_recency"] = [s for s in state["card_recency"] if s != seat] + [seat]
    state["last_card"] = {"card": card, **fields_of(card, key)}
    state["passes_in_a_row"] = 0
    state["current_seat"] = (seat + 1) % len(state["players"])


def _take(state: State, seat: int, take: Take) -> None:
    """Move the taken follower to ``seat``; IllegalMove if the take is not possible."""
    provinces = state["provinces"]
    if take is None:
        if any(any(entry["followers"].values()) for entry in provinces.values()):
            raise IllegalMove("After the card you must take one follower from a province: "
                              "'take' may be null only when no province holds a follower.",
                              "take")
        return
    province, faction = take
    if not provinces[province]["followers"][faction]:
        raise IllegalMove(f"Take: after the card {province} holds no {faction} follower to "
                          "take.", "take")
    provinces[province]["followers"][faction] -= 1
    state["players"][seat]["followers"][faction] += 1


def _final_winners(state: State) -> list[int]:
    """The winners once the remaining struggles are decided as they stand."""
    trial = {**state, "provinces": {p: {**entry, "followers": dict(entry["followers"])}
                                    for p, entry in state["provinces"].items()},
             "pool": dict(state["pool"]), "control_history": list(state["control_history"])}
    rules.finish_by_passing(trial)
    return rules.outcome(trial)["winners"]
