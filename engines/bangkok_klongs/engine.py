"""The :class:`BangkokKlongsEngine`: turn order, views and the result."""

from __future__ import annotations

import marshal
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engines.bangkok_klongs import words
from engines.bangkok_klongs.board import BIG, BOARDS, Layout, board_data
from engines.bangkok_klongs.market import (
    market_moves,
    play_decline,
    play_score,
    settle_market,
    start_market,
)
from engines.bangkok_klongs.notation import (
    LANGUAGE_WORDS,
    canonical_names,
    format_move,
    parse_move,
)
from engines.bangkok_klongs.position import build_state
from engines.bangkok_klongs.rules import (
    FINISH,
    can_place,
    finish_moves,
    join_turn,
    pile_of,
    play_finish,
    play_turn,
    reached_market,
    turn_moves,
)
from engines.base import (
    IMPERFECT,
    SAMPLED,
    Engine,
    IllegalMove,
    InvalidPosition,
    Move,
    OptionError,
    State,
    canonical_json,
)
from engines.phrases import N_, Words, phrase
from engines.rng import Rng
from engines.words import Question, result_sentence

PUBLIC_PLAYER_KEYS = ("seat", "score", "merchants", "move_cards", "inventory")


def layout_of(state: State) -> Layout:
    """The board layout a state is played on."""
    return BOARDS[state["options"]["board"]]


def settle(layout: Layout, state: State) -> State:
    """Pass over seats that cannot act, closing market days and the game as they run dry.

    Whoever has no legal placement is skipped; when nobody can place, the big
    market day is held at once. The rest of a turn a market day interrupted
    ends by itself when it leaves no choice. Returns the settled state (may
    be ``state`` changed).
    """
    while not state["finished"]:
        if state["market"] is not None:
            if settle_market(layout, state):
                return state
            state = _finish_without_choice(layout, state)
            continue
        if state["pending"] is not None:
            return state
        count = len(state["players"])
        for k in range(count):
            seat = (state["current"] + k) % count
            if can_place(layout, state, seat):
                state["current"] = seat
                return state
        start_market(state, BIG, state["current"])
    return state


def _finish_without_choice(layout: Layout, state: State) -> State:
    """End the pending rest of a turn at once if ``finish`` is its only legal decision."""
    pending = state["pending"]
    if pending is None or pending["kind"] != FINISH:
        return state
    ends = finish_moves(layout, state, pending["seat"])
    return play_finish(layout, state, pending["seat"], ends[0]) if len(ends) == 1 else state


class BangkokKlongsEngine(Engine):
    """Bangkok Klongs (Martin Schlegel, dlp 2010), CONTRACT section 4.4."""

    id = "bangkok-klongs"
    name = "Bangkok Klongs"
    move_words = frozenset({"place", "relocate", "finish", "score", "decline"})
    notation_words = LANGUAGE_WORDS
    min_players = 2
    max_players = 4
    move_schemas = "schemas.bangkok_klongs:MOVE_SCHEMAS"
    default_options = {"tactical": False, "board": "standard"}
    option_words = {
        "tactical": (
            N_("Tactical variant"),
            N_(
                "The boats lie in two piles, neutral and special boats in one, boats with an "
                "empty merchant spot in the other: everyone starts with three of the second kind "
                "and one of the first, and chooses the pile each time they draw."
            ),
        ),
        "board": (N_("Board"), N_("The floating market the game is played on.")),
    }
    option_choices = {"board": BOARDS}
    hidden_information = N_("every player's tiles and the order of the draw pile")
    information = IMPERFECT
    chance = SAMPLED

    # -- creation -------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Shuffle the tiles from ``seed``, deal the hands; seat 0 (the youngest) starts."""
        if options.get("board") not in BOARDS:
            raise ValueError(f"unknown board {options.get('board')!r}")
        layout = BOARDS[options["board"]]
        rng = Rng(seed)
        pile = rng.shuffled(list(layout.tiles))
        hands = [_deal(layout, pile, options["tactical"]) for _ in range(players)]
        position = {
            "players": [{"hand": hand} for hand in hands],
            "draw_pile": pile,
            "to_move": 0,
        }
        state = build_state(layout, players, options, seed, position)
        state["rng"] = rng.state
        return settle(layout, state)

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """A state from ``position`` (see :mod:`engines.bangkok_klongs.position`)."""
        try:
            merged = self.options(options)
        except OptionError as error:
            raise InvalidPosition(error.words, "options") from error
        if merged["board"] not in BOARDS:
            raise InvalidPosition(f"There is no board {merged['board']!r}.", "options")
        if not self.min_players <= players <= self.max_players:
            raise InvalidPosition("Bangkok Klongs is for 2 to 4 players.", "players")
        layout = BOARDS[merged["board"]]
        return settle(layout, build_state(layout, players, merged, seed, position))

    # -- play -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """The seat whose market-day decision is awaited, else the seat whose turn it is."""
        if state["finished"]:
            return []
        if state["market"] is not None:
            return [state["market"]["seat"]]
        if state["pending"] is not None:
            return [state["pending"]["seat"]]
        return [state["current"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every legal move of ``seat`` (empty unless it is that seat's decision)."""
        if seat not in self.to_move(state):
            return []
        layout = layout_of(state)
        if state["market"] is not None:
            return market_moves(layout, state, seat)
        return turn_moves(layout, state, seat)

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move``; IllegalMove naming the rule otherwise."""
        if state["finished"]:
            raise IllegalMove(phrase("The game is over."), "game_over")
        if not isinstance(move, dict):
            raise IllegalMove(phrase("A move is an object with an 'action'."), "move_shape")
        if type(seat) is not int or seat not in self.to_move(state):
            raise IllegalMove(phrase("It is not your turn."), "turn")
        return _carry_out(self.copy_state(state), seat, move)

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The listed ``move`` carried out on ``state`` itself (see :meth:`Engine.apply_fast`)."""
        return _carry_out(state, seat, move)

    def result(self, state: State) -> dict[str, Any] | None:
        """Winners (highest score, ties share), scores and the inventory points."""
        if not state["finished"]:
            return None
        scores = {str(p["seat"]): p["score"] for p in state["players"]}
        best = max(scores.values())
        winners = [p["seat"] for p in state["players"] if p["score"] == best]
        return {
            "winners": winners,
            "scores": scores,
            "reason": words.result_reason(winners, best),
            "inventory_points": dict(state["inventory_points"]),
        }

    # -- views ----------------------------------------------------------
    def public_move(self, before: State, after: State, seat: int, move: Move) -> Move:
        """The move plus ``drew``: how many boats were drawn during it (never which).

        The decision that closes a small market day may also end the
        trigger's turn by itself; its ``drew`` then counts the trigger's boats.
        """
        return {**move, "drew": len(before["draw_pile"]) - len(after["draw_pile"])}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The public state plus ``seat``'s own hand; never another hand or the draw order."""
        layout = layout_of(state)
        players = [
            {**{k: _plain(p[k]) for k in PUBLIC_PLAYER_KEYS}, "hand_size": len(p["hand"])}
            for p in state["players"]
        ]
        view: dict[str, Any] = {
            "options": dict(state["options"]),
            "board": {f: dict(cell) for f, cell in state["board"].items()},
            "luk_phat": state["luk_phat"],
            "track": list(layout.track),
            "market": _plain(state["market"]),
            "pending": _plain(state["pending"]),
            "players": players,
            "draw_pile": len(state["draw_pile"]),
            "box": list(state["box"]),
            "first_round": list(state["first_round"]),
        }
        if state["options"]["tactical"]:
            view["draw_piles"] = _pile_counts(layout, state["draw_pile"])
        visible = [cell["tile"] for cell in state["board"].values()] + state["box"]
        for player in state["players"]:
            visible += player["inventory"]
        if type(seat) is int and 0 <= seat < len(state["players"]):
            view["hand"] = list(state["players"][seat]["hand"])
            visible += view["hand"]
        view["tiles"] = {t: dict(state["tiles"][t]) for t in sorted(visible, key=_tile_number)}
        return view

    # -- search ---------------------------------------------------------
    def information_key(self, state: State, seat: int) -> str:
        """The state as ``seat`` knows it, as canonical JSON: its own hand, and of the other
        hands the boats everybody saw go there plus how many unseen boats of each pile
        (tactical variant; one kind otherwise), and how many boats each pile holds."""
        return canonical_json(_as_known(state, seat))

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """The unseen boats (the other hands but their revealed boats, and the draw pile)
        dealt again from ``rng``, of the same pile where the seat knows it (tactical)."""
        layout = layout_of(state)
        known = _as_known(state, seat)
        new = self.clone(state)
        unseen = _unseen(state, seat)
        by_kind: dict[str, list[str]] = {}
        for tile_id in sorted(unseen, key=_tile_number):
            by_kind.setdefault(_kind(layout, state, tile_id), []).append(tile_id)
        for tiles in by_kind.values():
            rng.shuffle(tiles)
        for player, entry in zip(new["players"], known["players"], strict=True):
            if player["seat"] != seat:
                dealt = [
                    by_kind[kind].pop() for kind, n in entry["unseen"].items() for _ in range(n)
                ]
                player["hand"] = entry["hand"] + dealt
        pile = [tile_id for tiles in by_kind.values() for tile_id in tiles]
        rng.shuffle(pile)
        new["draw_pile"] = pile
        new["rng"] = rng.getrandbits(64)
        return new

    def clone(self, state: State) -> State:
        """A copy for :meth:`apply_fast` that shares only the constant ``tiles`` table."""
        copied = marshal.loads(marshal.dumps({k: v for k, v in state.items() if k != "tiles"}))
        return {key: state["tiles"] if key == "tiles" else copied[key] for key in state}

    # -- words ----------------------------------------------------------
    def describe(
        self, before: State, after: State, seat: int, move: Move, names: Sequence[str]
    ) -> Words:
        """What ``seat`` did, in the game's words (see :mod:`.words`)."""
        return words.describe(before, after, seat, move)

    def describe_result(self, result: dict[str, Any], names: Sequence[str]) -> Words:
        """The winners, the scores and what the inventories brought."""
        return words.describe_result(result) or result_sentence(result)

    def prompt(self, state: State, seat: int) -> Words:
        """What ``seat`` decides now: "place a boat", "score a landing place or decline"..."""
        if seat not in self.to_move(state):
            return phrase("wait for your turn")
        return words.prompt(state, seat)

    def questions(self, state: State, seat: int) -> list[Question]:
        """Which boat, where, which merchant...: the decision now, one question at a time."""
        return words.questions(state, seat)

    def turn_goes_on(self, after: State, seat: int, step: Move) -> bool:
        """A placement's decisions go on unless it reached a market day (held first); a market
        day's decision is a move of its own."""
        if step.get("action") in ("score", "decline"):
            return False
        reached = reached_market(layout_of(after), after, step)
        return reached is None and super().turn_goes_on(after, seat, step)

    def turn_pause(self, after: State, seat: int, step: Move) -> Words:
        """A market day reached by the placement is held before the rest of the turn."""
        return words.market_pause(reached_market(layout_of(after), after, step), after, seat)

    def join_turn(self, state: State, seat: int, steps: Sequence[Move]) -> Move:
        """One ``place`` move with its ``relocate`` and ``draw`` (see :func:`.rules.join_turn`)."""
        return join_turn(list(steps))

    def board_data(self, options: dict[str, Any]) -> dict[str, Any]:
        """Fields, sub-markets, landing places, start fields, the Luk Phat track, the tiles."""
        return board_data(BOARDS[self.options(options)["board"]])

    # -- notation -------------------------------------------------------
    def format(self, move: Move) -> str:
        """The one-line notation of ``move`` (see the package docstring)."""
        return format_move(move)

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``."""
        return parse_move(text)

    def canonical_names(self, text: str) -> str:
        """Fields and landing places as the board prints them (``E4``, ``E4-F5``) read as ids."""
        return canonical_names(text)


def _carry_out(state: State, seat: int, move: Move) -> State:
    """Carry out the move of ``seat``, the seat to move, on ``state`` itself, then pass over
    the seats that cannot act; IllegalMove if it breaks a rule."""
    layout = layout_of(state)
    state.setdefault("revealed", {})  # a state saved before boats were recorded as revealed
    if state["market"] is None:
        after, market = play_turn(layout, state, seat, move)
        if market is not None:
            start_market(after, market, seat)
        return settle(layout, after)
    action = move.get("action")
    if action == "score":
        return settle(layout, play_score(layout, state, seat, move))
    if action == "decline":
        return settle(layout, play_decline(state, seat, move))
    raise IllegalMove(
        phrase("During a market day you score a landing place or decline."), "market_day"
    )


def _kind(layout: Layout, state: State, tile_id: str) -> str:
    """What every seat knows of an unseen boat: its pile in the tactical variant."""
    return pile_of(layout.tiles[tile_id]) if state["options"]["tactical"] else "boat"


def _unseen(state: State, seat: int) -> list[str]:
    """The boats ``seat`` has not seen: other hands' unrevealed boats and the draw pile."""
    revealed = state.get("revealed", {})
    hidden = [
        tile_id
        for player in state["players"]
        if player["seat"] != seat
        for tile_id in player["hand"]
        if tile_id not in revealed
    ]
    return hidden + state["draw_pile"]


def _as_known(state: State, seat: int) -> dict[str, Any]:
    """The state without what ``seat`` cannot know (see ``information_key``)."""
    layout = layout_of(state)
    revealed = state.get("revealed", {})
    players = []
    for player in state["players"]:
        if player["seat"] == seat:
            players.append(player)
            continue
        seen = sorted((t for t in player["hand"] if t in revealed), key=_tile_number)
        unseen = Counter(_kind(layout, state, t) for t in player["hand"] if t not in revealed)
        players.append({**player, "hand": seen, "unseen": dict(sorted(unseen.items()))})
    pile = Counter(_kind(layout, state, t) for t in state["draw_pile"])
    known = {key: value for key, value in state.items() if key not in ("rng", "tiles")}
    return {**known, "players": players, "draw_pile": dict(sorted(pile.items())), "seat": seat}


def _deal(layout: Layout, pile: list[str], tactical: bool) -> list[str]:
    """One starting hand taken off ``pile``: the top 4, or 3 plain + 1 merchant (tactical)."""
    if not tactical:
        hand = pile[: layout.hand_size]
        del pile[: layout.hand_size]
        return hand
    wanted = {"plain": layout.hand_size - 1, "merchant": 1}
    hand = []
    for tile_id in list(pile):
        kind = pile_of(layout.tiles[tile_id])
        if wanted[kind] > 0:
            wanted[kind] -= 1
            hand.append(tile_id)
            pile.remove(tile_id)
    return hand


def _pile_counts(layout: Layout, pile: list[str]) -> dict[str, int]:
    """How many boats each tactical pile holds."""
    counts = {"merchant": 0, "plain": 0}
    for tile_id in pile:
        counts[pile_of(layout.tiles[tile_id])] += 1
    return counts


def _tile_number(tile_id: str) -> int:
    """The number of ``t12`` for sorting."""
    return int(tile_id[1:])


def _plain(value: Any) -> Any:
    """A copy of a JSON value that shares nothing with the state."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
