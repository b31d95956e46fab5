"""Seats the computer plays: their specs and names, their moves, and hints for players.

A seat created as ``{"bot": "random"}`` or ``{"bot": "mcts", "level": 1..5}``
(:mod:`server.games.bot_seats`) is played by :func:`engines.search.make_bot`'s
bot and named so ("Computer (level 3)") on every page, mail and API answer.

:class:`BotMover` plays the bots' turns, never in a web request (a search takes
up to 4.5 s of CPU at level 5), in a thread of its own (:func:`run_bots`) of
the processes ``TURNPOST_BOTS`` names (:func:`bots_setting`): ``turnpost
worker`` (``worker``, the default), also each process of the web server
(``server``: :mod:`server.serving`, where the search runs in one of gevent's
real threads so that the worker's requests go on meanwhile), or none
(``off``). It finds the bot seats that running games wait
for (:meth:`~server.store.base.GameStore.bot_turns`), claims the game's turn
for itself (:meth:`~server.store.base.GameStore.claim_bot_turn`: of several
workers, one plays it), asks the bot for its turn outside any transaction,
then submits each move through :meth:`GameService.submit` like any player's
(logged, mailed, streamed), with ``expected_seq`` and an ``Idempotency-Key``
derived from the game and the move's number: even a worker whose claim ran
out while another planned the same turn never appends a move twice (it is
answered the first one's answers, or ``stale_seq``). A turn is seeded from
the game and its move number (:func:`turn_seed`), so it can be replayed.
After each round it waits for the next change of the database
(:meth:`~server.store.base.Connection.wait_for_change`), so a player's move
wakes the bot at once.

:func:`hint` suggests a move to a player: a level-1 search of their seat,
which reads the state only through the engine's ``determinize`` for that
seat, so it never depends on what the seat cannot see.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from engines.base import Move, State
from engines.phrases import phrase
from engines.search import Mcts, make_bot
from server.cooperative import offload
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.game import Game
from server.games.service import GameService, MoveRequest
from server.store.base import Store, canonical_json
from server.store.records import BotTurn

logger = logging.getLogger(__name__)

#: The level of the search behind a hint (the cheapest: at most 0.15 s of CPU).
HINT_LEVEL = 1
#: Bot turns one round looks at.
ROUND_TURNS = 20
#: Seconds a worker's claim of a bot turn lasts: far more than a search and its moves take
#: (a level-5 search stops at 4.5 s of CPU); a worker that died is replaced after it.
CLAIM_SECONDS = 60
#: The longest the bots wait between two looks for their turns (a change of the database
#: wakes them at once).
WAIT_SECONDS = 1.0
#: The longest a wait for the database's next change goes on once the worker is stopped.
STOP_SECONDS = 0.5
#: Where the bots' turns are played (``TURNPOST_BOTS``), the default first: ``turnpost
#: worker``; the web server's processes too; nowhere.
BOT_PLACES = ("worker", "server", "off")


def bots_setting() -> str:
    """Where the bots' turns are played, from ``TURNPOST_BOTS`` (:data:`BOT_PLACES`);
    ``ValueError`` in words for another value."""
    place = os.environ.get("TURNPOST_BOTS", BOT_PLACES[0])
    if place not in BOT_PLACES:
        raise ValueError(f"TURNPOST_BOTS must be one of {', '.join(BOT_PLACES)}, not {place!r}")
    return place


def turn_seed(game: Game, seat: int, purpose: str, seq: int | None = None) -> int:
    """The seed of a bot's turn (``purpose`` ``turn``), a hint (``hint``) or an analysis
    (``analysis``) after move ``seq`` (default :attr:`Game.seq`): the same for the same
    game, move and seat, so it can be replayed.

    The game's own seed is hashed in, so that nobody outside the server can
    work out a bot's random choices in advance.
    """
    after = game.seq if seq is None else seq
    text = f"turnpost.bot.{purpose}.{game.id}.{game.row.seed}.{after}.{seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def hint(game: Game, seat: int) -> list[Move]:
    """A suggested turn for ``seat``: what a level-:data:`HINT_LEVEL` bot would play.

    ``403`` in a game created without hints, ``409`` when the game does not
    run or does not wait for ``seat``.
    """
    if not game.row.hints:
        raise TurnpostError("forbidden", phrase("This game was created without hints."))
    GameService.check_running(game)
    if seat not in game.to_move:
        raise TurnpostError(
            "not_your_turn", phrase("A hint is for the seat to move: it is not your turn.")
        )
    state = canonical_state(game.state)
    return Mcts(HINT_LEVEL).turn(game.engine, state, seat, turn_seed(game, seat, "hint"))


def canonical_state(state: State) -> State:
    """``state`` with its keys in canonical order: a bot lists moves in the order the state
    holds them, which a backend may change (PostgreSQL's ``jsonb`` does), so a turn
    depends on the state's value only."""
    return json.loads(canonical_json(state))


def claim_game(games: GameService, game_id: str, holder: str, seconds: float) -> bool:
    """Whether ``holder`` may do the computer's work on ``game_id`` now (a bot's turn, an
    analysis): no other holder's claim runs. Then ``holder`` holds it for ``seconds``."""
    now = utcnow()
    until = format_time(parse_time(now) + timedelta(seconds=seconds))
    with games.store.write():
        return games.store.claim_bot_turn(game_id, holder, now, until)


@dataclass(frozen=True)
class Plan:
    """A bot's turn worked out after move ``seq`` of ``game_id``: the moves to submit."""

    game_id: str
    seat: int
    seq: int
    moves: list[Move]


class BotMover:
    """Plays the turns of the bot seats of one store's games (see the module's docstring)."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        #: Who claims bot turns for this mover (:meth:`claim`).
        self.holder = secrets.token_hex(8)
        #: Turns that could not be played (a bot's move the engine refused): skipped, not
        #: tried again and again.
        self.stuck: set[tuple[str, int]] = set()

    def play_due(self, stop: threading.Event | None = None) -> int:
        """Plan and play the bot turns due now (until ``stop``); how many moves were accepted."""
        played = 0
        for turn in self.games.store.bot_turns(ROUND_TURNS + len(self.stuck)):
            if stop is not None and stop.is_set():
                break
            if (turn.game_id, turn.seq) in self.stuck or not self.claim(turn.game_id):
                continue
            try:
                plan = self.plan(turn, stop)
                if plan is not None:
                    played += self.play(plan)
            finally:
                with self.games.store.write():
                    self.games.store.release_bot_turn(turn.game_id, self.holder)
        return played

    def claim(self, game_id: str) -> bool:
        """Whether this mover may play the bot turn of ``game_id`` now (no other's claim
        runs): then it holds it for :data:`CLAIM_SECONDS` at most."""
        return claim_game(self.games, game_id, self.holder, CLAIM_SECONDS)

    def plan(self, turn: BotTurn, stop: threading.Event | None = None) -> Plan | None:
        """The bot's turn at ``turn`` (outside any transaction: it may take seconds), or
        ``None`` if the game moved on meanwhile.

        Under gevent the search runs in a real thread (:func:`offload`), and ``stop``
        abandons it (:class:`~server.cooperative.Abandoned`).
        """
        game = self.games.load(turn.game_id)
        spec = game.seats[turn.seat].bot
        if game.seq != turn.seq or game.status != "active" or spec is None:
            return None
        seed = turn_seed(game, turn.seat, "turn")
        state = canonical_state(game.state)
        search = make_bot(spec).turn
        moves = offload(search, game.engine, state, turn.seat, seed, stop=stop)
        return Plan(game.id, turn.seat, game.seq, moves)

    def play(self, plan: Plan) -> int:
        """Submit the moves of ``plan`` one after the other; how many were accepted.

        Each move is guarded by its seq and keyed by it: a plan another worker
        played first is answered its moves again (nothing is appended twice),
        and one that meets a game that moved on otherwise stops there.
        """
        if not plan.moves:
            logger.error("the bot of %s seat %d found no move", plan.game_id, plan.seat)
            self.stuck.add((plan.game_id, plan.seq))
        for offset, move in enumerate(plan.moves):
            seq = plan.seq + offset
            request = MoveRequest(
                plan.game_id,
                seat=plan.seat,
                move=move,
                expected_seq=seq,
                idempotency_key=f"turnpost.bot.{seq}",
            )
            try:
                self.games.submit(request)
            except TurnpostError as error:
                if error.code in ("illegal_move", "invalid_move"):
                    logger.error("the bot of %s seat %d: %s", plan.game_id, plan.seat, error)
                    self.stuck.add((plan.game_id, seq))
                return offset
        return len(plan.moves)


def run_bots(mover: Callable[[], BotMover], stop: threading.Event, wait: float) -> None:
    """Play the bots' turns until ``stop``: round after round while some are due, else
    as soon as the database changes (at the latest every ``wait`` seconds)."""
    bots = mover()
    store = bots.games.store
    seen = store.wait_for_change(None, 0)
    while not stop.is_set():
        if bots.play_due(stop):
            continue
        seen = wait_unless_stopped(store, seen, wait, stop)


def wait_unless_stopped(store: Store, seen: int, wait: float, stop: threading.Event) -> int:
    """:meth:`~server.store.base.Store.wait_for_change` after mark ``seen`` for at most
    ``wait`` seconds, given up within :data:`STOP_SECONDS` of ``stop``; the current mark.

    A background thread's long wait (the analyses' 10 s) would otherwise hold up the
    worker's exit on ``SIGTERM`` for as long.
    """
    deadline = time.monotonic() + wait
    while not stop.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        current = store.wait_for_change(seen, min(left, STOP_SECONDS))
        if current != seen:
            return current
    return seen
