"""The :class:`KingOfSiamEngine`: setup, turns, cards, automatic passes and views."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

from engines.base import PERFECT, SAMPLED, Engine, IllegalMove, Move, OptionError, State
from engines.king_of_siam import notation, position, rules, words
from engines.king_of_siam.board import FACTIONS, MAPS, Board, get_board, map_data
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
from engines.king_of_siam.names import card_name
from engines.king_of_siam.steps import (
    STEPS,
    check_steps,
    first_steps,
    fitting,
    head,
    is_complete,
    join_turn,
    joined,
    next_steps,
    rest,
)
from engines.phrases import N_, Phrase, phrase
from engines.rng import Rng
from engines.words import Question

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
        provinces[province] = {
            "followers": {f: drawn[f] for f in FACTIONS},
            "control": None,
            "king_marker": False,
        }
    return provinces


class KingOfSiamEngine(Engine):
    """King of Siam (Peer Sylvester): three factions, eight power struggles, 2-4 players."""

    id = "king-of-siam"
    name = "King of Siam"
    min_players = 2
    max_players = 4
    move_schemas = "schemas.king_of_siam:MOVE_SCHEMAS"
    default_options = {"map": "siam-1874"}
    option_words = {"map": (N_("Map"), N_("The map of Siam the game is played on."))}
    option_choices = {"map": MAPS}
    hidden_information = N_("every player's action cards")
    move_words = frozenset({"pass", *CARDS, *notation.ANSWERS})
    notation_words = notation.LANGUAGE_WORDS
    #: Every card is shown as it is played (the public log), so a seat that remembers the
    #: log knows every hand: the eight cards minus those played. Chance: the setup only.
    information = PERFECT
    chance = SAMPLED

    # -- creation -------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Deal aid cards, seed the provinces and the struggle order; the lowest aid card starts."""
        options = self.options(options)
        board = board_of(options["map"])
        rng = Rng(seed)
        aid_cards = rng.shuffled([1, 2, 3, 4] if players == 4 else [1, 2, 3])[:players]
        held = [aid_followers(aid_cards, seat) for seat in range(players)]
        stock = {f: followers_per_faction(players) - 2 - sum(h[f] for h in held) for f in FACTIONS}
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
            "players": [
                {
                    "seat": seat,
                    "aid_card": aid_cards[seat],
                    "team": seat % 2 if players == 4 else None,
                    "followers": held[seat],
                    "cards_left": len(HAND),
                    "top_card": None,
                    "hand": list(HAND),
                }
                for seat in range(players)
            ],
            "passes_in_a_row": 0,
            "pending": None,
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
        except OptionError as error:
            raise position.invalid(error.words) from error
        state = position.build(players, merged, board_of(merged["map"]), position_)
        state["rng"] = Rng(seed).state
        state["auto_passed"] = []
        _auto_pass(state)
        return state

    # -- play -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """The seat to play (or to take after its card), or ``[]`` once the game is over."""
        return [] if rules.is_over(state) else [state["current_seat"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The moves of ``seat`` now, one per outcome (see "Moves" in the package docstring).

        At a turn: ``pass`` and each card play, in canonical order, without its take
        (Khon Thai, 1 vs 1 and 2 vs 1 by their first step); at a pending decision:
        its answers.
        """
        if type(seat) is not int or seat not in self.to_move(state):
            return []
        pending = state["pending"]
        if pending is None:
            return _turn_moves(state, seat)
        if pending["kind"] == "take":
            return _take_moves(state, seat)
        return _step_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move`` and any automatic passes that follow."""
        if rules.is_over(state):
            raise IllegalMove(phrase("The game is over."), "game_over")
        if type(seat) is not int or seat not in self.to_move(state):
            raise IllegalMove(phrase("It is not your turn: another player plays now."), "turn")
        action = move.get("action") if isinstance(move, dict) else None
        if action not in ("pass", "play", *ANSWERS):
            raise IllegalMove(
                phrase(
                    'A move is {"action": "pass"}, {"action": "play", "card": ...} or, after a'
                    ' card, {"action": "take"}, {"action": "swap"} or {"action": "place"} with'
                    " its follower."
                ),
                "move_shape",
            )
        waiting = state["pending"]["kind"] if state["pending"] else None
        if waiting != (action if action in ANSWERS else None):
            raise _out_of_order(state, action)
        return _carry_out(self.copy_state(state), seat, move)

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The listed ``move`` carried out on ``state`` itself (see :meth:`Engine.apply_fast`)."""
        return _carry_out(state, seat, move)

    def result(self, state: State) -> dict[str, Any] | None:
        """None while running, else winners, scores, reason, ruling faction and rankings."""
        result = rules.outcome(state)
        if result is not None:
            result["reason"] = words.reason(result)
        return result

    # -- views ----------------------------------------------------------
    def partners(self, state: State, seat: int) -> list[int]:
        """``seat`` and, in a 4-player game, its partner (seats 0+2, 1+3)."""
        team = state["players"][seat]["team"]
        if team is None:
            return [seat]
        return [p["seat"] for p in state["players"] if p["team"] == team]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything public, plus ``hand`` for ``seat``; never the rng or another hand."""
        public = self.copy_state(
            {key: value for key, value in state.items() if key not in ("rng", "current_seat")}
        )
        for player in public["players"]:
            del player["hand"]
        if type(seat) is int and 0 <= seat < len(state["players"]):
            public["hand"] = list(state["players"][seat]["hand"])
        return public

    # -- words ----------------------------------------------------------
    def describe(
        self, before: State, after: State, seat: int, move: Move, names: Sequence[str]
    ) -> Phrase:
        """The move as a sentence: "Bob takes a Lao follower from Kedah." (see :mod:`.words`)."""
        return words.describe(before, after, seat, move)

    def describe_result(self, result: dict[str, Any], names: Sequence[str]) -> Phrase:
        """The result with names: "Ann wins: the Lao rule Siam with 4 provinces, ..."."""
        return words.describe_result(result)

    def prompt(self, state: State, seat: int) -> Phrase:
        """What ``seat`` decides now: "play a card or pass", "take a follower", ..."""
        return words.prompt(state, seat)

    def questions(self, state: State, seat: int) -> list[Question]:
        """The card, then its targets; a step; or the take's province, then its follower."""
        return words.questions(state, seat)

    def join_turn(self, state: State, seat: int, steps: Sequence[Move]) -> Move:
        """The card with every step and its take: ``rama korat sukhothai; take lao kedah``."""
        return join_turn(steps)

    def board_data(self, options: dict[str, Any]) -> dict[str, Any]:
        """The map (provinces, names, homes, borders), the factions, the cards, the followers."""
        data = map_data(self.options(options)["map"])
        copies = Counter(HAND)
        data["cards"] = [
            {"key": card, "name": CARD_TITLES[card], "copies": copies[card]} for card in CARDS
        ]
        data["followers"] = {
            str(players): followers_per_faction(players)
            for players in range(self.min_players, self.max_players + 1)
        }
        data["aid_cards"] = {str(card): list(shown) for card, shown in AID_FOLLOWERS.items()}
        return data

    # -- notation -------------------------------------------------------
    def format(self, move: Move) -> str:
        """The one-line notation, e.g. ``rama korat sukhothai; take lao kedah``."""
        return notation.format_move(move)

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``; with a state, province names are checked too."""
        return notation.parse_move(text, state)

    def canonical_names(self, text: str) -> str:
        """Cards, factions and provinces as printed ("1 vs 1", "Chiang Mai") read as ids."""
        return notation.spellings(None).canonical(text)


#: How a province falls if its struggle is decided now, and after taking one follower of
#: each faction it holds: ``(fall, ((faction, fall after taking one), ...))``.
Profile = tuple[str, tuple[tuple[str, str], ...]]


@cache
def _profile(counts: tuple[int, ...]) -> Profile:
    followers = dict(zip(FACTIONS, counts, strict=True))
    takes = tuple(
        (f, rules.majority({**followers, f: followers[f] - 1})) for f in FACTIONS if followers[f]
    )
    return rules.majority(followers), takes


class _LastCard:
    """Whether the very last action card of the game wins for ``seat`` (rule "last card").

    Once it is played and its follower taken nobody can act, so the remaining
    struggles are decided as the board stands: the result depends only on how
    the open provinces fall, in struggle order, and on the faction the player
    takes. A play is judged by the :data:`Profile` of each open province in
    struggle order (what it falls to, now and after each possible take); each
    distinct sequence of profiles, and each distinct sequence of falls with a
    taken faction, is judged once, and the plays and takes that agree on it
    share the verdict.
    """

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        provinces = state["provinces"]
        self.open = [p for p in state["struggle_order"] if provinces[p]["control"] is None]
        self.counts = {p: tuple(provinces[p]["followers"][f] for f in FACTIONS) for p in self.open}
        self.plays: dict[tuple[Profile, ...], bool] = {}
        self.cases: dict[tuple[tuple[str, ...], str | None], bool] = {}

    @classmethod
    def of(cls, state: State, seat: int) -> _LastCard | None:
        """The judge when the rule applies: the last card is in hand, or was just played."""
        taking = state["pending"] is not None and state["pending"]["kind"] == "take"
        return cls(state, seat) if _cards_in_hands(state) == (0 if taking else 1) else None

    def can_win(self, card: str, key: Key) -> bool:
        """True if playing ``card`` as ``key`` followed by some take wins."""
        counts = dict(self.counts)
        for province, faction, delta in deltas(card, key):
            changed = list(counts[province])
            changed[FACTIONS.index(faction)] += delta
            counts[province] = tuple(changed)
        order = self.open
        if card == "maharacha" and key:
            swapped = {key[0]: key[1], key[1]: key[0]}
            order = [swapped.get(p, p) for p in order]
        profiles = tuple(_profile(counts[p]) for p in order)
        if profiles not in self.plays:
            self.plays[profiles] = self._some_take_wins(profiles)
        return self.plays[profiles]

    def wins_take(self, take: tuple[str, str]) -> bool:
        """True if taking ``take`` right after the last card wins."""
        province, faction = take
        falls = [_profile(self.counts[p])[0] for p in self.open]
        falls[self.open.index(province)] = dict(_profile(self.counts[province])[1])[faction]
        return self._verdict(tuple(falls), faction)

    def _some_take_wins(self, profiles: tuple[Profile, ...]) -> bool:
        falls = tuple(fall for fall, _ in profiles)
        if not any(takes for _, takes in profiles):
            return self._verdict(falls, None)
        return any(
            self._verdict((*falls[:i], after, *falls[i + 1 :]), faction)
            for i, (_, takes) in enumerate(profiles)
            for faction, after in takes
        )

    def _verdict(self, falls: tuple[str, ...], taken: str | None) -> bool:
        """True if ``seat`` wins when the open provinces fall as ``falls`` (in order)."""
        case = (falls, taken)
        if case not in self.cases:
            decided = tuple(zip(self.open, falls, strict=True))
            self.cases[case] = self.seat in _final_winners(self.state, self.seat, decided, taken)
        return self.cases[case]


def _final_winners(
    state: State, seat: int, falls: tuple[tuple[str, str], ...], taken: str | None
) -> list[int]:
    """The winners once ``seat`` took a ``taken`` follower and the open provinces fell as
    ``falls`` (``(province, control)`` in struggle order, until the British hold Siam)."""
    colony_at = get_board(state["map"]).colony_at
    history = list(state["control_history"])
    british = [entry["control"] for entry in history].count(rules.BRITISH)
    for province, control in falls:
        if british >= colony_at:
            break
        history.append({"province": province, "control": control})
        british += control == rules.BRITISH
    control = {entry["province"]: entry["control"] for entry in history}
    players = [{**player, "followers": dict(player["followers"])} for player in state["players"]]
    if taken:
        players[seat]["followers"][taken] += 1
    trial = {
        "map": state["map"],
        "control_history": history,
        "players": players,
        "provinces": {p: {"control": control.get(p)} for p in state["provinces"]},
        "contested": next((p for p, _ in falls if p not in control), None),
        "card_recency": [s for s in state["card_recency"] if s != seat] + [seat],
    }
    return rules.outcome(trial)["winners"]


def _turn_moves(state: State, seat: int) -> list[Move]:
    """``pass`` and the first step of each legal execution of each card in hand."""
    judge = _LastCard.of(state, seat)
    table = Table(state)
    moves: list[Move] = [{"action": "pass"}]
    for card in dict.fromkeys(state["players"][seat]["hand"]):
        if judge:
            winning = [key for key in legal_keys(table, card) if judge.can_win(card, key)]
            firsts = list(dict.fromkeys(head(card, key) for key in winning))
        else:
            firsts = first_steps(table, card)
        moves += [move_of(card, first) for first in firsts]
    return moves


def _take_moves(state: State, seat: int) -> list[Move]:
    """Every follower on the board (after the last card: those whose take wins)."""
    judge = _LastCard.of(state, seat)
    return [
        {"action": "take", "province": province, "faction": faction}
        for province, faction in Table(state).ends()
        if not judge or judge.wins_take((province, faction))
    ]


def _step_moves(state: State, seat: int) -> list[Move]:
    """The next steps of the card played in steps (see :mod:`.steps`)."""
    pending = state["pending"]
    card = pending["card"]
    table = Table(state)
    partial = _pending_key(table, pending)
    judge = _LastCard.of(state, seat)
    if judge:
        winning = [key for key in fitting(table, card, partial) if judge.can_win(card, key)]
        steps = list(dict.fromkeys(rest(card, partial, key) for key in winning))
    else:
        steps = next_steps(table, card, partial)
    if card == "khon_thai":
        return [
            {"action": "place", "faction": faction, "province": province}
            for faction, province in steps
        ]
    return [
        {"action": "swap", "province": province, "faction": faction} for province, faction in steps
    ]


def _pending_key(table: Table, pending: dict[str, Any]) -> Key:
    """The key of the steps made so far of the card in ``pending``."""
    fields = {name: value for name, value in pending.items() if name not in ("seat", "kind")}
    return key_of(table, pending["card"], {"action": "play", **fields})


#: What the game waits for, by pending kind (for refusals); ``%(card)s``: the card's name.
WAITING = {
    "take": N_(
        "After your card you must take one follower from a province before anything else,"
        " e.g. 'take lao kedah'."
    ),
    "swap": N_(
        "Your %(card)s goes on: name the follower on the other side of the swap first, e.g."
        " 'swap lao kedah'."
    ),
    "place": N_(
        "Your Khon Thai goes on: place the follower of the next faction first, e.g."
        " 'place lao kedah'."
    ),
}
#: A take naming a faction the province does not hold after the card, by faction.
NOTHING_TO_TAKE = {
    "rama": N_("Take: after the card %(province)s holds no Rama follower to take."),
    "lao": N_("Take: after the card %(province)s holds no Lao follower to take."),
    "malay": N_("Take: after the card %(province)s holds no Malay follower to take."),
}


def _out_of_order(state: State, action: str) -> IllegalMove:
    """The refusal of an answer with nothing pending, or of anything else while waiting."""
    pending = state["pending"]
    if pending is not None:
        card = pending.get("card")
        named = {"card": card_name(card)} if pending["kind"] == "swap" else {}
        return IllegalMove(phrase(WAITING[pending["kind"]], **named), "pending")
    if action == "take":
        return IllegalMove(
            phrase(
                "There is no follower to take now: a take follows your card (play a card,"
                " alone or with its take, or pass)."
            ),
            "pending",
        )
    return IllegalMove(
        phrase(
            "There is nothing to %(action)s now: '%(action)s' goes on with a Khon Thai, 1 vs 1"
            " or 2 vs 1 card played in steps.",
            action=action,
        ),
        "pending",
    )


def _play(state: State, seat: int, move: Move) -> None:
    """Validate a card play: carry it out (and its take, if given) or make its first step."""
    card = move.get("card")
    if card not in CARDS:
        raise IllegalMove(
            phrase("'card' must be one of %(cards)s.", cards=", ".join(CARDS)), "move_shape"
        )
    if card not in state["players"][seat]["hand"]:
        raise IllegalMove(
            phrase(
                "You have no %(card)s card left: played cards never return to the hand.",
                card=card_name(card),
            ),
            "hand",
        )
    table = Table(state)
    key = key_of(table, card, move)
    if is_complete(table, card, key):
        _card(state, seat, table, card, key, move)
    elif "take" not in move:
        _first_step(state, seat, table, card, key)
    elif card == "khon_thai":
        check(table, card, key)  # names the faction the pool still holds
    else:
        raise IllegalMove(
            phrase(
                "The take follows the whole card: give every part of the %(card)s with the"
                " take, or leave out 'take' and go on step by step.",
                card=card_name(card),
            ),
            "take",
        )


def _first_step(state: State, seat: int, table: Table, card: str, partial: Key) -> None:
    """Record the steps ``partial`` of ``card`` as pending; IllegalMove if none can go on."""
    check_steps(table, card, partial)
    judge = _LastCard.of(state, seat)
    if judge and not any(judge.can_win(card, key) for key in fitting(table, card, partial)):
        raise _last_card_refusal()
    state["pending"] = {"seat": seat, "kind": STEPS[card], "card": card, **fields_of(card, partial)}


def _answer_step(state: State, seat: int, move: Move) -> None:
    """The next step of a card played in steps: ``{"action": "swap" | "place", ...}``."""
    action = move["action"]
    if set(move) != {"action", "province", "faction"}:
        raise IllegalMove(
            phrase(
                'A %(action)s step is {"action": "%(action)s", "province": p, "faction": f}.',
                action=action,
            ),
            "move_shape",
        )
    pending = state["pending"]
    card = pending["card"]
    table = Table(state)
    province, faction = follower_ref(
        table, {"province": move["province"], "faction": move["faction"]}, f"The {action}"
    )
    step = (faction, province) if card == "khon_thai" else (province, faction)
    key = joined(table, card, _pending_key(table, pending), step)
    if is_complete(table, card, key):
        _card(state, seat, table, card, key, {})
    else:
        _first_step(state, seat, table, card, key)


def _card(state: State, seat: int, table: Table, card: str, key: Key, move: Move) -> None:
    """Carry out the complete execution ``key``, then the take of ``move`` if it has one."""
    check(table, card, key)
    take = move.get("take")
    if take is not None:
        take = follower_ref(table, take, "'take'")
    judge = _LastCard.of(state, seat)
    if judge and not judge.can_win(card, key):
        raise _last_card_refusal()
    _execute(state, seat, card, key)
    if table.ends():
        state["pending"] = {"seat": seat, "kind": "take"}
        if "take" in move:
            _take(state, seat, take)
    elif take is not None:
        raise IllegalMove(
            phrase(
                "Take: after the card no province holds a follower, so there is nothing to take"
                " ('take' is null, or 'take none')."
            ),
            "take",
        )
    else:
        _end_turn(state, seat)


def _last_card_refusal() -> IllegalMove:
    return IllegalMove(
        phrase(
            "Last card: the very last action card of the game may be played only if it wins the"
            " game for you or your partner, and this play does not, whatever follower you take."
        ),
        "last_card",
    )


def _answer_take(state: State, seat: int, move: Move) -> None:
    """The pending take: ``{"action": "take", "province": p, "faction": f}``."""
    if set(move) != {"action", "province", "faction"}:
        raise IllegalMove(
            phrase('A take is {"action": "take", "province": p, "faction": f}.'), "move_shape"
        )
    follower = {"province": move["province"], "faction": move["faction"]}
    _take(state, seat, follower_ref(Table(state), follower, "The take"))


ANSWERS = {"take": _answer_take, "swap": _answer_step, "place": _answer_step}


def _take(state: State, seat: int, take: Take) -> None:
    """Move the taken follower to ``seat`` and end its turn; IllegalMove if it may not."""
    if take is None:
        raise IllegalMove(
            phrase(
                "After the card you must take one follower from a province: 'take' may be null"
                " only when no province holds a follower."
            ),
            "take",
        )
    province, faction = take
    followers = state["provinces"][province]["followers"]
    if not followers[faction]:
        raise IllegalMove(
            phrase(NOTHING_TO_TAKE[faction], province=get_board(state["map"]).names[province]),
            "take",
        )
    judge = _LastCard.of(state, seat)
    if judge and not judge.wins_take(take):
        raise IllegalMove(
            phrase(
                "Last card: after the very last action card of the game the take must win the"
                " game for you or your partner, and this one does not."
            ),
            "last_card",
        )
    followers[faction] -= 1
    state["players"][seat]["followers"][faction] += 1
    _end_turn(state, seat)


def _end_turn(state: State, seat: int) -> None:
    state["pending"] = None
    state["current_seat"] = (seat + 1) % len(state["players"])


def _can_play(state: State, seat: int) -> bool:
    """True if ``seat`` has a legal move other than pass."""
    hand = state["players"][seat]["hand"]
    if not hand:
        return False
    if _cards_in_hands(state) > 1:
        return True
    judge = _LastCard(state, seat)
    return any(judge.can_win(hand[0], key) for key in legal_keys(Table(state), hand[0]))


def _auto_pass(state: State) -> None:
    """Pass for every seat in turn whose only legal move is pass (recorded in the state)."""
    while not rules.is_over(state) and state["pending"] is None:
        seat = state["current_seat"]
        if _can_play(state, seat):
            return
        state["auto_passed"].append(seat)
        rules.pass_turn(state, seat)


def _carry_out(state: State, seat: int, move: Move) -> State:
    """Carry out ``move`` of ``seat``, whose action fits the decision awaited, on ``state``
    itself, then the automatic passes; IllegalMove if the move breaks a rule."""
    state["auto_passed"] = []
    action = move["action"]
    if action in ANSWERS:
        ANSWERS[action](state, seat, move)
    elif action == "play":
        _play(state, seat, move)
    elif set(move) == {"action"}:
        rules.pass_turn(state, seat)
    else:
        raise IllegalMove(phrase('A pass has no other field than "action".'), "move_shape")
    _auto_pass(state)
    return state


def _cards_in_hands(state: State) -> int:
    return sum(len(player["hand"]) for player in state["players"])


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
