"""Games as the API, the web pages and the CLI use them.

The service loads a game's snapshot, applies one move through its engine and
appends it to the log in one transaction; it never replays the log on the hot
path. Replaying (``?at=N``, ``turnpost replay``) starts again from the seed or
the starting position and must reproduce the snapshot exactly.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError

from engines import (
    ENGINES,
    Engine,
    EngineError,
    IllegalMove,
    InvalidPosition,
    NotationError,
    OptionError,
)
from engines.phrases import N_, Phrase, as_phrase, counted, english, phrase
from engines.phrases import seat as seat_ref
from schemas.api import MAX_SEED
from schemas.moves import load_move
from server.errors import TurnpostError
from server.games.bot_seats import bot_name, bot_spec
from server.games.changes import Change, Listener
from server.games.clock import format_time, parse_time, utcnow
from server.games.conditional import follow
from server.games.game import Game, game_object, game_summary, log_entry, status_words
from server.games.seat_clocks import control_of, turn_clocks
from server.games.time_control import ClockError, TimeControl, clock_json, parse_clock
from server.games.vacation_days import seat_days_left
from server.store.base import Store, hash_secret, new_secret
from server.store.records import GameRow, GameStamp, GameUpdate, LoggedMove, NewSeat, Webhook

if TYPE_CHECKING:  # the notifier (server.mail) builds on this module
    from server.mail.outbox import Notifier


#: The result field naming the losing seats of a game ended by a ``resign`` or ``forfeit`` entry.
RESULT_KEYS = {"resign": "resigned", "forfeit": "forfeit"}
#: Webhooks one game may have at once.
MAX_WEBHOOKS = 5
#: Kinds of seat token someone other than the seat's player was shown: the creation
#: answer's (``created``) and a reissue's (``reissued``). A ``browser`` token was minted
#: when a seat link was opened and is known only to that browser.
HANDED = ("created", "reissued")
#: Browser tokens one seat keeps (its player's browsers); the oldest is forgotten past it.
MAX_BROWSERS = 8
#: Token reissues one game may have in a day.
REISSUES_PER_DAY = 5
#: Days a table with open seats waits for players before it is cancelled.
FORMING_DAYS = 14
#: Every kind of seat token: replacing a seat's link or removing its player stops them all.
ALL_TOKENS = (*HANDED, "browser")


def handed_tokens(key: bytes, seats: int) -> tuple[list[str], str]:
    """The seat tokens and the admin token of a new game, derived from ``key``.

    The lobby keeps ``key`` in the creator's browser only (see
    :mod:`server.http.pages`), so the server stores no token and the cookie
    holds none.

    >>> tokens, admin = handed_tokens(b"k" * 32, 2)
    >>> len(set([*tokens, admin])), handed_tokens(b"k" * 32, 2) == (tokens, admin)
    (3, True)
    """

    def derive(label: str) -> str:
        digest = hmac.new(key, f"turnpost.handed.{label}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:24]).decode()

    return [derive(f"seat.{seat}") for seat in range(seats)], derive("admin")


def time_control(clock: dict[str, Any] | None, turn_hours: float | None) -> TimeControl | None:
    """The time control a new game asks for: a ``clock`` (wire form) or ``turn_hours`` per
    move, not both; ``422`` for settings that contradict each other."""
    if clock is not None and turn_hours is not None:
        message = N_("Give either clock or turn_hours, not both.")
        raise TurnpostError("invalid_request", phrase(message), {"clock": [message]})
    if clock is None:
        return TimeControl("per_move", turn_hours) if turn_hours else None
    try:
        return parse_clock(clock)
    except ClockError as error:
        raise TurnpostError(
            "invalid_request", error.words, {"clock": {error.field: [str(error)]}}
        ) from None


def drawn_order(seed: int, seats: int) -> list[int]:
    """The seat of each place of a full table whose seat order is drawn from the game's seed.

    >>> drawn_order(7, 4) == drawn_order(7, 4), sorted(drawn_order(7, 4))
    (True, [0, 1, 2, 3])
    """
    return random.Random(f"turnpost.seating.{seed}").sample(range(seats), seats)


def new_seats(players: list[dict[str, Any]], now: str) -> list[NewSeat]:
    """The seats of a new game: a bot's is named after it and taken at once (``now``);
    an open one has no name yet."""
    specs = [bot_spec(player) for player in players]
    several = sum(spec is not None for spec in specs) > 1
    seats = []
    for player, spec in zip(players, specs, strict=True):
        if spec is None:
            name = player.get("name") or ""
            seats.append(
                NewSeat(name, player.get("email"), player.get("player_id"), player.get("language"))
            )
        else:
            number = sum(other is not None for other in specs[: len(seats) + 1])
            name = bot_name(spec, number if several else None)
            seats.append(NewSeat(name, bot=spec, joined_at=now))
    return seats


@dataclass(frozen=True)
class MoveRequest:
    """One move to play in ``game_id``: who plays it, the move, and what guards it.

    The mover is a seat ``token`` (API, pages), or a ``seat`` already
    authenticated (by its mail key, or the clock playing for it). The move is
    a JSON ``move`` or its ``notation``. ``expected_seq`` refuses a move made
    on a stale view; a repeated ``idempotency_key`` returns the first answer
    and appends nothing. ``mail_message_id`` marks a move that came by mail
    with the seat's key (the mover gets a confirmation); ``now`` is the moment of the move
    (default: the current time); ``by_clock`` marks a move the deadline plays
    for the seat; ``conditional`` a move the seat's conditional lines play
    (:mod:`server.games.conditional`).
    """

    game_id: str
    token: str | None = None
    seat: int | None = None
    move: dict[str, Any] | None = None
    notation: str | None = None
    expected_seq: int | None = None
    idempotency_key: str | None = None
    mail_message_id: str | None = None
    now: str | None = None
    by_clock: bool = False
    conditional: bool = False

    def fingerprint(self) -> dict[str, Any]:
        """What a repeat with the same ``idempotency_key`` must ask again: the move and seq."""
        return {"move": self.move, "notation": self.notation, "expected_seq": self.expected_seq}


@dataclass(frozen=True)
class Table:
    """How a game forms (see :meth:`GameService.create`): who created it, how it seats players.

    ``creator_id`` is the signed-in player who created it (its host on the
    web); ``seating`` is ``drawn`` (the seat order drawn from the seed when the
    table is full) or ``listed``; ``rematch_of`` names the game a rematch
    follows (a rematch forms until every player accepted).
    """

    creator_id: str | None = None
    seating: str = "drawn"
    rematch_of: str | None = None


@dataclass(frozen=True)
class Taken:
    """A seat taken by a browser through a seat link: the seat and the token minted for it."""

    seat: int
    token: str


class GameService:
    """Create, read and play games on one :class:`Store`.

    Every change is handed to the service's listeners inside its write
    (:mod:`server.games.changes`): with a :class:`~server.mail.outbox.Notifier`
    the mails it causes, then the ``listeners`` the app wires (webhooks, pushes).
    """

    def __init__(
        self, store: Store, notifier: Notifier | None = None, listeners: Sequence[Listener] = ()
    ) -> None:
        self.store = store
        self.notifier = notifier
        #: Who hears of every change: mail with a notifier, then ``listeners``.
        self.listeners: list[Listener] = [
            *([notifier] if notifier is not None else []),
            *listeners,
        ]

    # -- creation -------------------------------------------------------
    def create(
        self,
        engine_id: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        seed: int | None = None,
        position: dict[str, Any] | None = None,
        turn_hours: float | None = None,
        deadline_policy: str = "remind",
        clock: dict[str, Any] | None = None,
        client: str | None = None,
        handed_key: bytes | None = None,
        table: Table | None = None,
        hints: bool = True,
        takebacks: bool = True,
    ) -> dict[str, Any]:
        """Create a game; the answer carries each seat's token and the admin token (shown once).

        A player is ``{"name", "email", "invite"}`` (``invite``: mailed an
        invitation at once; a seat to move first is invited by its first turn
        mail, as every seat with an address is), a bot (``{"bot": "random"}``,
        ``{"bot": "mcts", "level": 1..5}``: named so, no token, played by the
        worker, see :mod:`server.games.bots`), or ``{"open": True}``:
        a game with an open seat, or a rematch, is a table that forms until
        every seat is taken (:meth:`start_if_full`; see :class:`Table`). A seat may
        be kept for a player (``player_id``). No token is handed for an open seat,
        nor for a seat ``kept`` for its own player (a rematch's: they take it from
        their invitation, or signed in).

        With ``handed_key`` the tokens are derived from it (:func:`handed_tokens`),
        so that whoever keeps the key can show them again (the lobby's page of a
        new game); without, they are random.

        ``turn_hours`` gives each turn a deadline, or ``clock`` a time control (its wire
        form, :mod:`server.games.time_control`); ``deadline_policy`` says what
        happens when a seat's time runs out (see :mod:`server.games.deadlines`). ``client`` is the
        address of the client creating it: the game's mails count against its
        limits (see :mod:`server.mail.gate`). A ``seed`` or a ``position``
        chosen by the creator is shown in the game object (``seeded``,
        ``from_position``): whoever chose it may know what the game hides.
        ``hints``: whether its seats may ask for a suggested move; ``takebacks``: whether a
        seat may offer to take back its last move (:mod:`server.games.takebacks`).
        """
        engine = self.engine(engine_id)
        if not engine.min_players <= len(players) <= engine.max_players:
            words = (
                phrase(
                    "%(game)s takes %(count)s players.", game=engine.name, count=engine.min_players
                )
                if engine.min_players == engine.max_players
                else phrase(
                    "%(game)s takes %(least)s to %(most)s players.",
                    game=engine.name,
                    least=engine.min_players,
                    most=engine.max_players,
                )
            )
            raise TurnpostError("invalid_request", words, {"players": [english(words)]})
        try:
            merged = engine.options(options)
        except OptionError as error:
            raise TurnpostError(
                "invalid_request", error.words, {"options": [error.message]}
            ) from None
        table = table or Table()
        control = time_control(clock, turn_hours)
        forming = table.rematch_of is not None or any(player.get("open") for player in players)
        if forming and position is not None:
            message = N_(
                "A table with open seats starts from the game's own setup, not a position."
            )
            raise TurnpostError("invalid_request", phrase(message), {"position": [message]})
        state_seed = secrets.randbits(63) if seed is None else seed
        game_id = secrets.token_hex(6)
        if handed_key is None:
            tokens, admin_token = [new_secret() for _ in players], new_secret()
        else:
            tokens, admin_token = handed_tokens(handed_key, len(players))
        now = utcnow()
        if forming:
            start = self._forming(now)
        else:
            state = self.initial_state(engine, len(players), merged, state_seed, position)
            start = self.snapshot(engine, state, now)
        game_row = GameRow(
            id=game_id,
            engine=engine.id,
            options=merged,
            seed=state_seed,
            seeded=seed is not None,
            position=position,
            seq=0,
            admin_token_hash=hash_secret(admin_token),
            created_at=now,
            turn_hours=control.hours if control and control.kind == "per_move" else None,
            deadline_policy=deadline_policy,
            clock=None if clock is None or control is None else clock_json(control),
            creator_client=client,
            creator_id=table.creator_id,
            seating=table.seating if forming else "listed",
            forming_until=format_time(parse_time(now) + timedelta(days=FORMING_DAYS))
            if forming
            else None,
            hidden_at=None,
            rematch_of=table.rematch_of,
            hints=hints,
            takebacks=takebacks,
            **start,
        )
        seat_rows = new_seats(players, now)
        with self.store.write():
            self.store.create_game(game_row, seat_rows)
            if not forming:
                self._start_clocks(game_row, now)
            handed = [
                seat
                for seat, row in enumerate(seat_rows)
                if row.bot is None and not (players[seat].get("open") or players[seat].get("kept"))
            ]
            for seat in handed:
                self.store.add_seat_token(game_id, seat, tokens[seat], "created", now)
            game = self.load(game_id)
            self._changed(Change(game))
            for seat, player in enumerate(players):  # a seat to move: its turn mail invites
                if player.get("invite") and seat not in game.to_move:
                    self.invite(game, seat)
        created = game_object(game, seat=None)
        for player in created["players"]:
            if player["seat"] in handed:
                player["token"] = tokens[player["seat"]]
        created["admin_token"] = admin_token
        return created

    def invite(self, game: Game, seat: int) -> str | None:
        """Mail ``seat`` its invitation now (inside the caller's write); why not, or ``None``.

        The invitation is the seat's one mail until its player acts, like the
        first turn mail (:mod:`server.mail.gate`).
        """
        if self.notifier is None:
            return "this server sends no mail"
        return self.notifier.invite(self.store, game, seat)

    @staticmethod
    def _forming(now: str) -> GameUpdate:
        """The columns of a game of a table forming since ``now``: nothing dealt yet."""
        return {
            "state": None,
            "to_move": [],
            "result": None,
            "status": "forming",
            "updated_at": now,
            "deadline": None,
            "reminders_sent": 0,
        }

    def start_if_full(self, game_id: str) -> None:
        """Deal a forming table once its every seat is taken (inside the caller's write).

        The seat order is drawn from the game's seed then, unless the creator
        listed it (``seating``): nobody picks a seat by joining at the right
        moment, and nothing hidden exists before the last player sits down.
        """
        game = self.load(game_id)
        if game.status != "forming" or any(seat.joined_at is None for seat in game.seats):
            return
        seats, row = len(game.seats), game.row
        if row.seating == "drawn":
            self.store.renumber_seats(game.id, drawn_order(row.seed, seats))
        state = self.initial_state(game.engine, seats, row.options, row.seed, None)
        now = utcnow()
        self.store.update_game(game.id, self.snapshot(game.engine, state, now))
        self._start_clocks(self.load(game.id).row, now)
        self._changed(Change(self.load(game.id)))

    def check_open(self, game: Game, now: str) -> None:
        """``409`` unless ``game`` is a table still forming at ``now``, in words."""
        if game.status == "forming" and game.row.forming_until > now:
            return
        if game.status == "forming":
            raise TurnpostError(
                "game_over",
                phrase(
                    "This table waited %(days)s days for players and expired.", days=FORMING_DAYS
                ),
            )
        if game.status == "active":
            raise TurnpostError(
                "table_full", phrase("Every seat of this table is taken: it started.")
            )
        if not game.started:
            raise TurnpostError("game_over", phrase("This table was cancelled before it started."))
        raise TurnpostError("game_over", status_words(game.status, "this"))

    @staticmethod
    def engine(engine_id: str) -> Engine:
        """The engine ``engine_id`` or a ``404 not_found``."""
        try:
            return ENGINES[engine_id]
        except KeyError:
            known = ", ".join(sorted(ENGINES))
            raise TurnpostError(
                "not_found",
                phrase(
                    "No engine %(engine)r; known engines: %(known)s.", engine=engine_id, known=known
                ),
            ) from None

    @staticmethod
    def initial_state(
        engine: Engine,
        players: int,
        options: dict[str, Any],
        seed: int,
        position: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """A game's first state: the engine's setup, or the creator's ``position``
        (``422 invalid_position`` if it is inconsistent)."""
        if position is None:
            return engine.setup(players, options, seed)
        try:
            return engine.from_position(players, options, seed, position)
        except InvalidPosition as error:
            raise TurnpostError("invalid_position", error.words, {"rule": error.rule}) from None

    def _start_clocks(self, row: GameRow, now: str) -> None:
        """Start the clocks of the seats to move of a game just dealt (inside its write)."""
        seats = self.store.seats(row.id)
        deadline = turn_clocks(self.store, row, seats, [], row.to_move, None, now)
        self.store.update_game(row.id, {"deadline": deadline})

    def restart_clocks(self, game_id: str, now: str) -> None:
        """Give every seat its first allowance again and start the clocks of the seats to
        move at ``now`` (the host changed the clock; inside the caller's write)."""
        for seat in self.store.seats(game_id):
            self.store.update_seat(game_id, seat.seat, {"clock": None})
        row = self.load(game_id).row
        if row.status == "active":
            self._start_clocks(row, now)

    @staticmethod
    def snapshot(engine: Engine, state: dict[str, Any], now: str) -> GameUpdate:
        """The columns of a game derived from a state reached at ``now`` (its deadline:
        none; the seats' clocks give it, :func:`~server.games.seat_clocks.turn_clocks`)."""
        result = engine.result(state)
        running = result is None
        to_move = engine.to_move(state)
        return {
            "state": state,
            "to_move": to_move,
            "result": None if running else result,
            "status": "active" if running else "finished",
            "updated_at": now,
            "deadline": None,
            "reminders_sent": 0,
        }

    # -- reading --------------------------------------------------------
    def load(self, game_id: str) -> Game:
        """The game ``game_id`` at its latest snapshot, or ``404 not_found``."""
        return self._read(game_id)[0]

    def _read(self, game_id: str, token: str | None = None) -> tuple[Game, int | None]:
        """The game ``game_id`` (``404 not_found``) and the seat of ``token`` in it, in one
        read of the store."""
        read = self.store.game_with_seats(game_id, token)
        if read is None:
            raise self._no_game(game_id)
        game = Game(
            read.row, read.seats, ENGINES[read.row.engine], read.lines_stored, read.hooks_stored
        )
        return game, read.token_seat

    @staticmethod
    def _no_game(game_id: str) -> TurnpostError:
        """``404 not_found`` for the game ``game_id``."""
        return TurnpostError("not_found", phrase("No game %(game)r.", game=game_id))

    def seq_of(self, game_id: str) -> int:
        """The number of moves in the log of ``game_id`` (``404``), in one small read."""
        seq = self.store.game_seq(game_id)
        if seq is None:
            raise self._no_game(game_id)
        return seq

    def load_as(self, game_id: str, token: str | None) -> tuple[Game, int | None]:
        """The game ``game_id`` (``404``) and the seat of a bearer token in it, in one read:
        ``None`` without a token, ``401`` for a wrong one."""
        game, seat = self._read(game_id, token)
        if token is not None and seat is None:
            raise TurnpostError("unauthorized", self.dead_token_words(game, token))
        return game, seat

    def stamp_as(self, game_id: str, token: str | None) -> tuple[GameStamp, int | None]:
        """What the answers about ``game_id`` change with (its version and seats, not its
        state) and the seat of a bearer token in it, in one read; ``404`` and ``401`` as
        :meth:`load_as` answers them."""
        read = self.store.game_stamp(game_id, token)
        if read is None or (token is not None and read[1] is None):
            game, seat = self.load_as(game_id, token)  # the refusal in words, or a game just made
            return game.stamp, seat
        return read

    def dead_token_words(self, game: Game, token: str) -> Phrase:
        """Why a seat token (a browser's, a client's) no longer plays its seat, and what to do,
        in words for whoever holds it."""
        known = self.store.seat_token(game.id, token)
        if known is None:
            return phrase(
                "This key does not open a seat of this game: the seat's link was replaced (the"
                " game's creator gave it a new one), or the key was mistyped. To play your seat,"
                " open its newest link (the newest mail about the game has one), or ask the"
                " game's creator for it."
            )
        name = game.seats[known.seat].name
        why = {
            "opened": N_("%(name)s's link was opened in another browser, which plays the seat now"),
            "removed": N_("%(name)s's seat at the table was given up"),
        }.get(known.revoked_why, N_("the game's creator gave %(name)s's seat a new link"))
        return phrase(
            "This browser's key to %(name)s's seat stopped working: %(why)s. To play it here,"
            " open the seat's newest link (%(name)s's newest mail about the game has one, or ask"
            " the game's creator).",
            name=name,
            why=phrase(why, name=name),
        )

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat a live seat token lets in, else ``None`` (a mail's pass is no token)."""
        return self.store.seat_by_token(game_id, token)

    # -- seat links -------------------------------------------------------
    def link_seat(self, game_id: str, credential: str) -> int:
        """The seat a seat link's ``credential`` opens, without opening it; ``401`` in words.

        A credential is a seat token (the links the creator was handed) or the
        signed pass of a mail's link (:func:`~server.mail.addresses.seat_pass`).
        A replaced, reissued, forged or expired one is refused with a message
        saying which, for the player who followed it.
        """
        seat, _ = self._link(game_id, credential)
        return seat

    def take_seat(self, game_id: str, credential: str, player_id: str | None = None) -> Taken:
        """Open a seat link in a browser: a new token, known only to that browser.

        The first browser link of a seat replaces the token handed out at
        creation (or by the last reissue), so whoever was handed it can no
        longer play the seat or see its hand (the seat is *private*). A mail's
        link also shows that the player reads that mailbox: the seat counts as
        acted (see :mod:`server.mail.gate`). A browser token opens as itself.
        A link followed by a signed-in player (``player_id``) makes the seat theirs.

        At a forming table, opening a link takes the seat (it accepts the
        invitation); the last seat taken deals the game, which may draw the
        seat order (the answer's ``seat`` is the seat after the draw).
        """
        with self.store.write():
            seat, by_mail = self._link(game_id, credential)
            if by_mail:
                self._mark_acted(game_id, seat)
            if player_id is not None:
                self.store.tie_seat(game_id, seat, player_id)
            known = self.store.seat_token(game_id, credential)
            if known is not None and known.kind == "browser":
                return Taken(seat, credential)
            return self._sit_browser(game_id, seat)

    def take_own_seat(
        self, game_id: str, seat: int, player_id: str, held: str | None = None
    ) -> Taken:
        """Give a browser of ``player_id`` a token of a seat tied to them, without a link.

        For a player who lost the seat's link (or plays on a new device): being
        signed in proves the seat is theirs. A browser already holding a live
        token of the seat (``held``) keeps it; any other gets its own: as with
        a link, the seat's handed token stops (the seat is private) and the
        seat keeps its :data:`MAX_BROWSERS` newest browsers; at a forming table
        the seat is taken, as with a link. ``404`` for no such game, ``403``
        for a seat that is not the player's.
        """
        with self.store.write():
            self.load(game_id)
            row = self.store.seat(game_id, seat)
            if row is None or row.player_id != player_id:
                raise TurnpostError(
                    "forbidden",
                    phrase(
                        "This seat is not yours: a seat becomes yours when you open its link"
                        " while signed in."
                    ),
                )
            if held is not None and self.store.seat_by_token(game_id, held) == seat:
                return Taken(seat, held)
            return self._sit_browser(game_id, seat)

    def _sit_browser(self, game_id: str, seat: int) -> Taken:
        """A browser's own token of ``seat`` (inside the caller's write).

        At a forming table the seat is taken by it; the last seat taken deals
        the game, which may draw the seat order (the answer's ``seat`` is the
        seat after the draw).
        """
        now = utcnow()
        game = self.load(game_id)
        if game.status == "forming":
            self.check_open(game, now)
            if game.seats[seat].joined_at is None:
                self.store.update_seat(game_id, seat, {"joined_at": now})
                self.store.update_game(game_id, {"updated_at": now})
        token = self.browser_token(game_id, seat, now)
        self.start_if_full(game_id)
        return Taken(self.store.seat_by_token(game_id, token), token)

    def browser_token(self, game_id: str, seat: int, now: str) -> str:
        """A new token of ``seat`` for one browser; the handed ones stop (inside a write).

        The seat is then *private*: only its player's browsers hold a token of it.
        """
        token = new_secret()
        self.store.add_seat_token(game_id, seat, token, "browser", now)
        self.store.drop_seat_tokens(game_id, seat, "browser", MAX_BROWSERS)
        self.store.revoke_seat_tokens(game_id, seat, HANDED, now, "opened")
        if self.store.seat(game_id, seat).private_at is None:
            self.store.make_seat_private(game_id, seat, now)
        return token

    def _link(self, game_id: str, credential: str) -> tuple[int, bool]:
        """``(seat, by_mail)`` of a seat link's credential, or ``401`` saying why not."""
        game = self.load(game_id)
        seat = self.store.seat_by_token(game.id, credential)
        if seat is not None:
            return seat, False
        if self.notifier is not None:
            seat = self.notifier.seat_of_pass(self.store, game.id, credential)
            if seat is not None:
                return seat, True
        raise TurnpostError("unauthorized", self._dead_link(game, credential))

    def _dead_link(self, game: Game, credential: str) -> Phrase:
        """Why a seat link does not open its seat, in words for whoever followed it."""
        known = self.store.seat_token(game.id, credential)
        if known is None:
            return phrase(
                "This link does not open a seat of this game: it may be mistyped, or a mail's"
                " link that expired (they work for 30 days) or was replaced. The newest mail"
                " about the game has a fresh one."
            )
        name = game.seats[known.seat].name
        if known.revoked_why == "opened":
            return phrase(
                "This link to %(name)s's seat was already opened in a browser, and now works"
                " only there: opening it made the seat private, so that whoever else had the"
                " link cannot play it. %(name)s's mails about the game carry a link that still"
                " works; or ask the game's creator for a new link.",
                name=name,
            )
        if known.revoked_why == "removed":
            return phrase(
                "This link's seat at the table was given up: join the table again instead."
            )
        return phrase(
            "This link to %(name)s's seat was replaced: the game's admin gave the seat a new"
            " link. Ask them for it.",
            name=name,
        )

    def game_object(self, game: Game, seat: int | None, at: int | None = None) -> dict[str, Any]:
        """The contract's game object for ``seat`` (``None``: public), now or after move ``at``
        (the seat's own view now also says its automatic vacation days left)."""
        if at is None or at == game.seq:
            days_left = self.vacation_days_left(game.stamp, seat)
            return game_object(game, seat, vacation_days_left=days_left)
        return game_object(game, seat, at, self._state_at(game, at))

    def vacation_days_left(self, stamp: GameStamp, seat: int | None) -> int | None:
        """The automatic vacation days ``seat`` may still spend in the game of ``stamp`` this
        year (:mod:`server.games.vacation_days`); ``None`` for the public view or a game
        without a clock."""
        control = control_of(stamp)
        if seat is None or control is None:
            return None
        return seat_days_left(self.store, control, stamp.seats[seat], parse_time(utcnow()))

    def _state_at(self, game: Game, at: int) -> dict[str, Any]:
        """The state after move ``at``, replayed from the start."""
        if not 0 <= at <= game.seq:
            raise TurnpostError(
                "invalid_request",
                phrase("at must be between 0 and %(seq)s.", seq=game.seq),
                {"at": [game.seq]},
            )
        return self.replay(game, upto=at)

    def replay(self, game: Game, upto: int | None = None) -> dict[str, Any]:
        """Rebuild the state from the seed (or position) and the log, up to entry ``upto``."""
        return self.states(game, upto)[-1]

    def states(self, game: Game, upto: int | None = None) -> list[dict[str, Any]]:
        """The state at the start and after each log entry (up to ``upto``), replayed.

        A logged move today's rules refuse (a game played before a rule was
        added, such as Siam's draws) stops the replay with ``422 invalid_request``.
        """
        row = game.row
        states = [
            self.initial_state(game.engine, len(game.seats), row.options, row.seed, row.position)
        ]
        for logged in self.store.moves(game.id, upto=upto):
            states.append(self._after_entry(game.engine, states, logged))
        return states

    @staticmethod
    def _after_entry(
        engine: Engine, states: list[dict[str, Any]], logged: LoggedMove
    ) -> dict[str, Any]:
        """The state after the log entry ``logged``, from the ``states`` before it."""
        if logged.kind == "takeback":  # back to the state before the move taken back
            return states[logged.move["seq"] - 1]
        if logged.kind != "move":  # a resignation or forfeit changes no state
            return states[-1]
        try:
            return engine.apply(states[-1], logged.seat, logged.move)
        except IllegalMove as error:
            message = phrase(
                "This game cannot be replayed past move %(seq)s: it was played under older"
                " rules (%(why)s)",
                seq=logged.seq - 1,
                why=error.words,
            )
            raise TurnpostError("invalid_request", message, {"rule": error.rule}) from None

    def move_log(
        self, game: Game, after: int = 0, limit: int | None = None, language: str = "en"
    ) -> list[dict[str, Any]]:
        """The public log entries after ``after`` (the first ``limit`` of them, if given),
        their sentences in ``language``."""
        names = [row.name for row in game.seats]
        logged = self.store.logged_moves(game.id, after, limit)
        return [log_entry(move, names, language) for move in logged]

    def legal_moves(self, game: Game, seat: int) -> dict[str, Any]:
        """Every legal move of ``seat`` now, each with its ``notation`` beside its fields."""
        engine = game.engine
        moves = [] if game.status != "active" else engine.legal_moves(game.state, seat)
        return {
            "seq": game.seq,
            "moves": [{**move, "notation": engine.format(move)} for move in moves],
        }

    # -- playing --------------------------------------------------------
    def _read_move(
        self, game: Game, move: dict[str, Any] | None, notation: str | None
    ) -> dict[str, Any]:
        """The move object from a JSON move or its notation; ``422 invalid_move`` if malformed."""
        try:
            if notation is not None:
                move = game.engine.parse(notation, game.state)
            return load_move(game.engine.id, move)
        except NotationError as error:
            raise TurnpostError(
                "invalid_move", error.words, {"notation": [error.message]}
            ) from None
        except ValidationError as error:
            raise TurnpostError(
                "invalid_move",
                phrase("The move does not match the move schema."),
                error.messages_dict,
            ) from None

    def submit(self, request: MoveRequest) -> dict[str, Any]:
        """Validate, apply and append one move; the answer is ``{"seq", "game"}``.

        The one gate for every move: the API, the pages, mail and the clock all
        come through here (see :class:`MoveRequest`).
        """
        key, fingerprint = request.idempotency_key, request.fingerprint()
        with self.store.write():
            game, seat = self._mover(request)
            if key is not None:
                replayed = self._idempotent(game.id, seat, key, fingerprint)
                if replayed is not None:
                    return replayed
            parsed = self._check_turn(game, seat, request)
            try:
                state = game.engine.apply(game.state, seat, parsed)
            except IllegalMove as error:
                raise TurnpostError(
                    "illegal_move", error.words, {"rule": error.rule, "move": parsed}
                ) from None
            seq, latest = self._append(game, seat, parsed, state, request)
            if key is not None:  # the answer is kept with the move
                answer = {"seq": seq, "game": self.game_object(latest, seat)}
                self.store.record_response(game.id, seat, key, fingerprint, answer)
                return answer
        # built once the write lock is given back: no other move waits for it
        return {"seq": seq, "game": self.game_object(latest, seat)}

    def _mover(self, request: MoveRequest) -> tuple[Game, int]:
        """The game (``404``) and the seat that moves: given, or the seat of the request's
        token (``401``), read at once inside the caller's write."""
        token = None if request.seat is not None else request.token
        game, token_seat = self._read(request.game_id, token)
        seat = request.seat if request.seat is not None else token_seat
        if seat is None:
            raise TurnpostError(
                "unauthorized", phrase("A seat token of this game is needed to move.")
            )
        return game, seat

    def _idempotent(
        self, game_id: str, seat: int, key: str, request: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The first answer for a repeated ``Idempotency-Key``; ``422`` if the body differs."""
        recorded = self.store.idempotent_response(game_id, seat, key)
        if recorded is None:
            return None
        if recorded.request != request:
            raise TurnpostError(
                "invalid_request",
                phrase("This Idempotency-Key was already used with a different request."),
                {"Idempotency-Key": [key]},
            )
        return recorded.response

    def _check_turn(self, game: Game, seat: int, request: MoveRequest) -> dict[str, Any]:
        """Refuse a game not running, a stale seq or the wrong seat; return the parsed move."""
        self.check_running(game)
        self.check_seq(game, request.expected_seq)
        parsed = self._read_move(game, request.move, request.notation)
        to_move = game.to_move
        if seat not in to_move:
            waiting = [game.seats[s].name for s in to_move]
            raise TurnpostError(
                "not_your_turn",
                counted(
                    "It is not your turn: %(seats)s moves now.",
                    "It is not your turn: %(seats)s move now.",
                    len(waiting),
                    seats=waiting,
                ),
                {"to_move": to_move},
            )
        return parsed

    @staticmethod
    def check_seq(game: Game, expected_seq: int | None) -> None:
        """``409 stale_seq`` if ``expected_seq`` is given and the game moved on from it."""
        if expected_seq is not None and expected_seq != game.seq:
            raise TurnpostError(
                "stale_seq",
                phrase(
                    "The game is at seq %(seq)s, not %(expected)s; reload and try again.",
                    seq=game.seq,
                    expected=expected_seq,
                ),
                {"seq": game.seq},
            )

    @staticmethod
    def check_running(game: Game) -> None:
        """``409 not_started`` at a table still forming, ``409 game_over`` once over."""
        if game.status == "forming":
            raise TurnpostError(
                "not_started",
                phrase("This table waits for its players: no moves before it starts."),
            )
        if game.status == "finished":
            raise TurnpostError("game_over", phrase("The game is finished; no more moves."))
        if game.status != "active":
            raise TurnpostError("game_over", phrase("The game is aborted; no more moves."))

    def _append(
        self,
        game: Game,
        seat: int,
        move: dict[str, Any],
        state: dict[str, Any],
        request: MoveRequest,
    ) -> tuple[int, Game]:
        """Append the move, the new snapshot and its mails inside the caller's transaction;
        the move's seq and the game after it (and after a conditional answer it set off)."""
        now = request.now or utcnow()
        seq = game.seq + 1
        snapshot: GameUpdate = {"seq": seq, **self.snapshot(game.engine, state, now)}
        after = snapshot["to_move"] if snapshot["status"] == "active" else []
        snapshot["deadline"] = turn_clocks(
            self.store, game.row, game.seats, game.to_move, after, seat, now
        )
        names = [row.name for row in game.seats]
        logged = LoggedMove(
            game_id=game.id,
            seq=seq,
            seat=seat,
            kind="move",
            move=move,
            public_move=game.engine.public_move(game.state, state, seat, move),
            notation=game.engine.format(move),
            description=as_phrase(game.engine.describe(game.state, state, seat, move, names)),
            to_move=snapshot["to_move"],
            status=snapshot["status"],
            at=now,
            result=snapshot["result"],
            conditional=request.conditional,
        )
        self.store.append_move(logged)
        self.store.update_game(game.id, snapshot)
        updated = replace(game, row=replace(game.row, **snapshot))
        self._changed(Change(updated, logged, seat, request.mail_message_id, tuple(game.to_move)))
        return seq, self._answer_conditionally(updated, logged, request.now)

    def _answer_conditionally(self, game: Game, logged: LoggedMove, now: str | None) -> Game:
        """Follow the other seats' conditional lines past ``logged`` and play the first answer
        they give (inside the caller's write, through :meth:`_append`); the game after it (see
        :mod:`server.games.conditional`)."""
        if not game.lines_stored:
            return game
        moment, answers = now or utcnow(), []
        for seat, lines in self.store.conditional_lines(game.id).items():
            if seat == logged.seat:
                continue
            followed = follow(lines, logged.notation)
            playable = followed.answer is not None and seat in game.to_move
            self.store.set_conditional_lines(
                game.id, seat, followed.lines if playable else [], moment
            )
            if playable:
                answers.append((seat, followed.answer))
        for seat, answer in answers:
            try:
                move = load_move(game.engine.id, game.engine.parse(answer, game.state))
                state = game.engine.apply(game.state, seat, move)
            except (EngineError, ValidationError):  # no longer legal: the seat's lines end
                self.store.set_conditional_lines(game.id, seat, [], moment)
                continue
            self._append(
                game, seat, move, state, MoveRequest(game.id, seat=seat, now=now, conditional=True)
            )
            return self.load(game.id)
        return game

    # -- webhooks -------------------------------------------------------
    def add_webhook(self, game_id: str, admin_token: str | None, url: str) -> Webhook:
        """Give ``game_id`` a webhook (admin token only); at most :data:`MAX_WEBHOOKS`."""
        game = self.load(game_id)
        self._check_admin(game, admin_token)
        if len(self.store.webhooks(game.id)) >= MAX_WEBHOOKS:
            raise TurnpostError(
                "invalid_request",
                phrase(
                    "A game has at most %(most)s webhooks; remove one first.", most=MAX_WEBHOOKS
                ),
                {"url": [f"At most {MAX_WEBHOOKS} webhooks."]},
            )
        now = utcnow()
        return Webhook(self.store.add_webhook(game.id, url, now), url, now)

    def webhooks(self, game_id: str, admin_token: str | None) -> list[Webhook]:
        """The webhooks of ``game_id`` (admin token only), without their secrets."""
        game = self.load(game_id)
        self._check_admin(game, admin_token)
        return self.store.webhooks(game.id)

    def remove_webhook(self, game_id: str, admin_token: str | None, webhook_id: int) -> None:
        """Stop a webhook of ``game_id`` (admin token only); ``404`` if it has none such."""
        game = self.load(game_id)
        self._check_admin(game, admin_token)
        if not self.store.remove_webhook(game.id, webhook_id, utcnow()):
            raise TurnpostError(
                "not_found",
                phrase(
                    "Game %(game)r has no webhook %(webhook)s.", game=game_id, webhook=webhook_id
                ),
            )

    def _changed(self, change: Change) -> None:
        """Hand ``change`` to every listener (call inside the change's write)."""
        for listener in self.listeners:
            listener.changed(self.store, change)

    def player_acted(self, game_id: str, seat: int) -> None:
        """Remember that ``seat``'s player acted in ``game_id``, so its mails flow.

        Only what proves the player reads the seat's mailbox counts: a reply
        carrying the seat's key (:mod:`server.mail.inbound`), or a mail's seat
        link opened (:meth:`take_seat`). A move with a token does not: the
        creator was handed every seat's token (see :mod:`server.mail.gate`).
        """
        with self.store.write():
            self._mark_acted(game_id, seat)

    def _mark_acted(self, game_id: str, seat: int) -> None:
        """:meth:`player_acted` inside the caller's write."""
        row = self.store.seat(game_id, seat)
        if row is not None and row.acted_at is None:
            self.store.mark_acted(game_id, seat, utcnow())

    def forfeit(self, game_id: str, seat: int, expected_seq: int) -> bool:
        """End the game because ``seat`` ran out of time: it (with its partners) loses.

        Logged like :meth:`resign`, as a ``forfeit`` entry. Does nothing
        (``False``) if the game moved on since ``expected_seq``.
        """
        with self.store.write():
            game = self.load(game_id)
            if game.status != "active" or game.seq != expected_seq:
                return False
            self._concede(game, seat, "forfeit", utcnow())
        return True

    def resign(
        self, game_id: str, seat: int, expected_seq: int | None = None, now: str | None = None
    ) -> dict[str, Any]:
        """``seat`` resigns: it (with its partners) loses, every other seat wins.

        A resignation is not an engine move: it is logged as a ``resign``
        entry (``{"action": "resign"}``, notation ``resign``) so that the move
        list, the event stream and replays show it, and replaying skips it.
        Any seat may resign, on its turn or not. ``409 game_over`` once the
        game is over, ``409 stale_seq`` if ``expected_seq`` is given and the
        game moved on. The answer is ``{"seq", "game"}`` as for a move.
        """
        with self.store.write():
            game = self.load(game_id)
            self.check_running(game)
            self.check_seq(game, expected_seq)
            return self._concede(game, seat, "resign", now or utcnow())

    def _concede(self, game: Game, seat: int, kind: str, now: str) -> dict[str, Any]:
        """End ``game`` with ``seat``'s team losing by ``kind`` (``resign`` or ``forfeit``).

        Appends the log entry and the finished snapshot inside the caller's
        write, like a move; the result names the losers under ``kind``
        (``"resigned": [seats]`` or ``"forfeit": [seats]``).
        """
        losers = game.engine.partners(game.state, seat)
        names = [row.name for row in game.seats]
        team = " and ".join(names[s] for s in losers)
        single = len(losers) == 1
        words = {
            "resign": (f"{team} resigned", phrase("%(seat)s resigns.", seat=seat_ref(seat))),
            "forfeit": (
                f"{team} ran out of time and forfeit{'s' if single else ''}",
                phrase("%(seat)s ran out of time and forfeits.", seat=seat_ref(seat)),
            ),
        }
        reason, description = words[kind]
        result = {
            "winners": [row.seat for row in game.seats if row.seat not in losers],
            "scores": {},
            "reason": reason,
            RESULT_KEYS[kind]: losers,
        }
        seq = game.seq + 1
        ended: GameUpdate = {
            "seq": seq,
            "status": "finished",
            "result": result,
            "to_move": [],
            "deadline": None,
            "updated_at": now,
        }
        logged = LoggedMove(
            game_id=game.id,
            seq=seq,
            seat=seat,
            kind=kind,
            move={"action": kind},
            public_move={"action": kind},
            notation=kind,
            description=description,
            to_move=[],
            status="finished",
            at=now,
            result=result,
        )
        updated = self.append_entry(game, logged, ended)
        return {"seq": seq, "game": self.game_object(updated, seat)}

    def append_entry(self, game: Game, logged: LoggedMove, snapshot: GameUpdate) -> Game:
        """Append ``logged`` (an entry that is no engine move: a resignation, a takeback) and
        the game's new ``snapshot``, and hand the change to the listeners (inside the caller's
        write); the game after it. A game that goes on moves its seats' clocks on."""
        if snapshot.get("status", game.status) == "active":
            after = snapshot.get("to_move", game.to_move)
            deadline = turn_clocks(
                self.store, game.row, game.seats, game.to_move, after, logged.seat, logged.at
            )
            snapshot = {**snapshot, "deadline": deadline}
        self.store.append_move(logged)
        self.store.update_game(game.id, snapshot)
        self.store.drop_conditional_lines(game.id)  # lines follow moves only
        updated = replace(game, row=replace(game.row, **snapshot))
        self._changed(Change(updated, logged, logged.seat, None, tuple(game.to_move)))
        return updated

    def check_admin(self, game_id: str, admin_token: str | None) -> None:
        """``404`` for no game ``game_id``, ``401`` unless ``admin_token`` is its admin token."""
        self._check_admin(self.load(game_id), admin_token)

    def _check_admin(self, game: Game, admin_token: str | None) -> None:
        """``401`` unless ``admin_token`` is the admin token of ``game``."""
        expected = game.row.admin_token_hash
        if admin_token is None or not secrets.compare_digest(hash_secret(admin_token), expected):
            raise TurnpostError("unauthorized", phrase("The admin token of this game is needed."))

    def abort(self, game_id: str, admin_token: str | None) -> dict[str, Any]:
        """End a running game, or cancel a forming table, as ``aborted`` (admin token only)."""
        self.check_admin(game_id, admin_token)
        return self.stop(game_id)

    def stop(self, game_id: str, forming_only: bool = False) -> dict[str, Any]:
        """End a running game or a forming table (``forming_only``: only a table) as ``aborted``.

        The caller checked who asks (the admin token, the host, the clock);
        ``409 game_over`` if it is already over.
        """
        with self.store.write():
            game = self.load(game_id)
            if game.status not in ("forming", "active") or (
                forming_only and game.status != "forming"
            ):
                raise TurnpostError("game_over", status_words(game.status, "already"))
            aborted: GameUpdate = {"status": "aborted", "to_move": [], "updated_at": utcnow()}
            self.store.update_game(game.id, aborted)
            self._changed(Change(Game(replace(game.row, **aborted), game.seats, game.engine)))
        return game_object(self.load(game_id), seat=None)

    def reissue_token(self, game_id: str, admin_token: str | None, seat: int) -> dict[str, Any]:
        """A new token for ``seat`` (admin token only); every other way into the seat stops.

        For a player who lost their link. The seat's tokens (handed and its
        player's browsers) and its mails' links stop working at once; the game
        object tells everyone the seat was reissued (``reissued_at``), and the
        seat is no longer private nor any player's (whoever follows the new link
        while signed in takes it), nor taken at a forming table. At most
        :data:`REISSUES_PER_DAY` a day per game (``429``). The answer
        ``{"seat", "name", "token"}`` is the only place the new token is shown.
        """
        game = self.load(game_id)
        self._check_admin(game, admin_token)
        return self.reissue(game, seat)

    def reissue(self, game: Game, seat: int) -> dict[str, Any]:
        """:meth:`reissue_token` for a caller who checked who asks (the admin, the host)."""
        if not 0 <= seat < len(game.seats):
            raise TurnpostError(
                "not_found", phrase("No seat %(seat)s in game %(game)r.", seat=seat, game=game.id)
            )
        return self._new_token(game, seat, limited=True)

    def renew_seat_tokens(self, game_id: str) -> list[dict[str, Any]]:
        """New tokens for every seat of a game, for the operator (no admin token, no limit).

        ``turnpost serve --demo`` reuses its demo game this way: the old seat
        links stop working and the new ones are shown once.
        """
        game = self.load(game_id)
        return [self._new_token(game, row.seat, limited=False) for row in game.seats]

    def _new_token(self, game: Game, seat: int, limited: bool) -> dict[str, Any]:
        """Reissue ``seat``: ``{"seat", "name", "token"}`` (``limited``: per day, else ``429``)."""
        token = new_secret()
        now = utcnow()
        with self.store.write():
            day_ago = format_time(parse_time(now) - timedelta(days=1))
            if limited and self.store.seat_tokens_since(game.id, "reissued", day_ago) >= (
                REISSUES_PER_DAY
            ):
                raise TurnpostError(
                    "rate_limited",
                    phrase(
                        "A game's seats may be given new tokens %(times)s times a day;"
                        " try again tomorrow.",
                        times=REISSUES_PER_DAY,
                    ),
                    headers={"Retry-After": str(24 * 3600)},
                )
            self.store.revoke_seat_tokens(game.id, seat, HANDED, now, "reissued")
            self.store.drop_seat_tokens(game.id, seat, "browser", keep=0)
            self.store.add_seat_token(game.id, seat, token, "reissued", now)
            self.store.seat_reissued(game.id, seat, now)
        return {"seat": seat, "name": game.seats[seat].name, "token": token}

    def list_games(
        self, filters: dict[str, Any], token: str | None, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """A page of games, newest first: ``{"games": [summaries], "next_cursor"}``.

        Without a seat ``token`` only the tables that form are listed (the
        lobby's tables to join, not hidden by their host): a running or
        finished game is nobody else's business, and asking for one (``status``
        not ``forming``) is ``401``. With a seat ``token`` only the token's own
        game is listed (hidden or not), if it matches ``filters``: ``engine``,
        ``status`` and ``waiting`` (it waits (or, for ``False``, does not wait)
        for that seat). ``cursor`` is the previous page's ``next_cursor``;
        ``422`` if it is not one (nor a number SQLite can hold).
        """
        before = None
        if cursor is not None:
            if not (cursor.isascii() and cursor.isdigit() and int(cursor) <= MAX_SEED):
                raise TurnpostError(
                    "invalid_request",
                    phrase("This is not a cursor of this list."),
                    {"cursor": [cursor]},
                )
            before = int(cursor)
        mine = None if token is None else self.store.seat_of_token(token)
        if token is not None and mine is None:
            raise TurnpostError(
                "unauthorized", phrase("This token is not a seat token of any game.")
            )
        status, waiting = filters.get("status"), filters.get("waiting")
        if mine is None and waiting is not None:
            raise TurnpostError(
                "unauthorized", phrase("A seat token is needed to filter by waiting.")
            )
        if mine is None and status not in (None, "forming"):
            raise TurnpostError(
                "unauthorized",
                phrase(
                    "Without a seat token only the tables that form are listed (status forming):"
                    " a game that runs or is over is listed to its own seats only."
                ),
            )
        rows = self.store.games_page(
            engine=filters.get("engine"),
            status="forming" if mine is None else status,
            seat=None if mine is None else (mine.game_id, mine.seat, waiting),
            before=before,
            limit=limit + 1,
        )
        you = {} if mine is None else {mine.game_id: mine.seat}
        games = [game_summary(row, you.get(row.id)) for row in rows[:limit]]
        more = len(rows) > limit
        return {"games": games, "next_cursor": str(rows[limit - 1].cursor) if more else None}
