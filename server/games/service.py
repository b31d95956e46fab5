"""Games as the API, the web pages and the CLI use them.

The service loads a game's snapshot, applies one move through its engine and
appends it to the log in one transaction; it never replays the log on the hot
path. Replaying (``?at=N``, ``turnpost replay``) starts again from the seed or
the starting position and must reproduce the snapshot exactly.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError

from engines import ENGINES, Engine, IllegalMove, InvalidPosition, NotationError
from schemas.moves import load_move
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.game import Game, game_object, log_entry
from server.store.sqlite import Store, dumps, hash_secret, new_secret

if TYPE_CHECKING:  # the notifier (server.mail) builds on this module
    from server.mail.outbox import Notifier


def deadline_after(now: str, turn_hours: float) -> str:
    """The deadline of a turn starting at ``now``."""
    return format_time(parse_time(now) + timedelta(hours=turn_hours))


@dataclass(frozen=True)
class MoveRequest:
    """One move to play in ``game_id``: who plays it, the move, and what guards it.

    The mover is a seat ``token`` (API, pages), or a ``seat`` already
    authenticated (by its mail key, or the clock playing for it). The move is
    a JSON ``move`` or its ``notation``. ``expected_seq`` refuses a move made
    on a stale view; a repeated ``idempotency_key`` returns the first answer
    and appends nothing. ``mail_message_id`` marks a move that came by mail
    (the mover gets a confirmation); ``now`` is the moment of the move
    (default: the current time); ``by_clock`` marks a move the deadline plays
    for the seat (the player has not acted).
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

    def fingerprint(self) -> str:
        """What a repeat with the same ``idempotency_key`` must ask again: the move and seq."""
        return dumps(
            {"move": self.move, "notation": self.notation, "expected_seq": self.expected_seq}
        )


class GameService:
    """Create, read and play games on one :class:`Store`.

    With a :class:`~server.mail.outbox.Notifier`, every change also records the mails
    it causes in the outbox, in the same transaction (the service calls it
    inside its write block).
    """

    def __init__(self, store: Store, notifier: Notifier | None = None) -> None:
        self.store = store
        self.notifier = notifier

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
        client: str | None = None,
    ) -> dict[str, Any]:
        """Create a game; the answer carries each seat's token and the admin token (shown once).

        ``turn_hours`` gives each turn a deadline; ``deadline_policy`` says what
        happens when it passes (see :mod:`server.games.deadlines`). ``client`` is the
        address of the client creating it: the game's mails count against its
        limits (see :mod:`server.mail.gate`). A ``seed`` or a ``position``
        chosen by the creator is shown in the game object (``seeded``,
        ``from_position``): whoever chose it may know what the game hides.
        """
        engine = self._engine(engine_id)
        if not engine.min_players <= len(players) <= engine.max_players:
            count = f"{engine.min_players} to {engine.max_players}"
            if engine.min_players == engine.max_players:
                count = str(engine.min_players)
            message = f"{engine.name} takes {count} players."
            raise TurnpostError("invalid_request", message, {"players": [message]})
        try:
            merged = engine.options(options)
        except ValueError as error:
            raise TurnpostError("invalid_request", str(error), {"options": [str(error)]}) from None
        state_seed = secrets.randbits(63) if seed is None else seed
        state = self._initial_state(engine, len(players), merged, state_seed, position)
        game_id = secrets.token_hex(6)
        tokens = [new_secret() for _ in players]
        admin_token = new_secret()
        now = utcnow()
        game_row = {
            "id": game_id,
            "engine": engine.id,
            "options": dumps(merged),
            "seed": state_seed,
            "seeded": seed is not None,
            "position": None if position is None else dumps(position),
            "seq": 0,
            "admin_token_hash": hash_secret(admin_token),
            "created_at": now,
            "turn_hours": turn_hours,
            "deadline_policy": deadline_policy,
            "creator_client": client,
            **self._snapshot(engine, state, now, turn_hours),
        }
        seat_rows = [
            {
                "game_id": game_id,
                "seat": seat,
                "name": player["name"],
                "email": player.get("email"),
                "token_hash": hash_secret(token),
            }
            for seat, (player, token) in enumerate(zip(players, tokens, strict=True))
        ]
        with self.store.write():
            self.store.create_game(game_row, seat_rows)
            game = self.load(game_id)
            self._changed(game)
        created = game_object(game, seat=None)
        created["players"] = [
            {"seat": seat, "name": player["name"], "token": token}
            for seat, (player, token) in enumerate(zip(players, tokens, strict=True))
        ]
        created["admin_token"] = admin_token
        return created

    @staticmethod
    def _engine(engine_id: str) -> Engine:
        """The engine ``engine_id`` or a ``404 not_found``."""
        try:
            return ENGINES[engine_id]
        except KeyError:
            known = ", ".join(sorted(ENGINES))
            raise TurnpostError(
                "not_found", f"No engine {engine_id!r}; known engines: {known}."
            ) from None

    @staticmethod
    def _initial_state(
        engine: Engine,
        players: int,
        options: dict[str, Any],
        seed: int,
        position: dict[str, Any] | None,
    ) -> dict[str, Any]:
        if position is None:
            return engine.setup(players, options, seed)
        try:
            return engine.from_position(players, options, seed, position)
        except InvalidPosition as error:
            raise TurnpostError("invalid_position", error.message, {"rule": error.rule}) from None

    @staticmethod
    def _snapshot(
        engine: Engine,
        state: dict[str, Any],
        now: str,
        turn_hours: float | None,
        seats: list[dict[str, Any]] = (),
    ) -> dict[str, Any]:
        """The columns of ``games`` derived from a state reached at ``now``.

        A turn's clock starts now, or when the vacation of a seat to move ends.
        """
        result = engine.result(state)
        running = result is None
        to_move = engine.to_move(state)
        deadline = None
        if running and turn_hours:
            vacations = [s["vacation_until"] for s in seats if s["seat"] in to_move]
            start = max([now, *(v for v in vacations if v)])
            deadline = deadline_after(start, turn_hours)
        return {
            "state": dumps(state),
            "to_move": dumps(to_move),
            "result": None if running else dumps(result),
            "status": "active" if running else "finished",
            "updated_at": now,
            "deadline": deadline,
            "reminders_sent": 0,
        }

    # -- reading --------------------------------------------------------
    def load(self, game_id: str) -> Game:
        """The game ``game_id`` at its latest snapshot, or ``404 not_found``."""
        row = self.store.game(game_id)
        if row is None:
            raise TurnpostError("not_found", f"No game {game_id!r}.")
        engine = ENGINES[row["engine"]]
        return Game(row, self.store.seats(game_id), engine, json.loads(row["state"]))

    def authenticate(self, game: Game, token: str | None) -> int | None:
        """The seat of a bearer token (``None`` without a token); ``401`` for a wrong token."""
        if token is None:
            return None
        seat = self.store.seat_by_token(game.id, token)
        if seat is None:
            raise TurnpostError("unauthorized", "This token is not a seat token of this game.")
        return seat

    def game_object(self, game: Game, seat: int | None, at: int | None = None) -> dict[str, Any]:
        """The contract's game object for ``seat`` (``None``: public), now or after move ``at``."""
        if at is None or at == game.seq:
            return game_object(game, seat)
        return game_object(game, seat, at, self._state_at(game, at))

    def _state_at(self, game: Game, at: int) -> dict[str, Any]:
        """The state after move ``at``, replayed from the start."""
        if not 0 <= at <= game.seq:
            raise TurnpostError(
                "invalid_request", f"at must be between 0 and {game.seq}.", {"at": [game.seq]}
            )
        return self.replay(game, upto=at)

    def replay(self, game: Game, upto: int | None = None) -> dict[str, Any]:
        """Rebuild the state from the seed (or position) and the log, up to move ``upto``."""
        row = game.row
        position = None if row["position"] is None else json.loads(row["position"])
        state = self._initial_state(
            game.engine, len(game.seats), json.loads(row["options"]), row["seed"], position
        )
        for logged in self.store.moves(game.id, upto=upto):
            state = game.engine.apply(state, logged["seat"], json.loads(logged["move"]))
        return state

    def move_log(self, game: Game, after: int = 0) -> list[dict[str, Any]]:
        """The public log entries after ``after``."""
        return [log_entry(row) for row in self.store.moves(game.id, after=after)]

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
                "invalid_move", error.message, {"notation": [error.message]}
            ) from None
        except ValidationError as error:
            raise TurnpostError(
                "invalid_move", "The move does not match the move schema.", error.messages_dict
            ) from None

    def submit(self, request: MoveRequest) -> dict[str, Any]:
        """Validate, apply and append one move; the answer is ``{"seq", "game"}``.

        The one gate for every move: the API, the pages, mail and the clock all
        come through here (see :class:`MoveRequest`).
        """
        seat = self._mover(request)
        key, fingerprint = request.idempotency_key, request.fingerprint()
        if key is not None:
            replayed = self._idempotent(request.game_id, seat, key, fingerprint)
            if replayed is not None:
                return replayed
        with self.store.write():
            game = self.load(request.game_id)
            if key is not None:
                replayed = self._idempotent(game.id, seat, key, fingerprint)
                if replayed is not None:
                    return replayed
            parsed = self._check_turn(game, seat, request)
            try:
                state = game.engine.apply(game.state, seat, parsed)
            except IllegalMove as error:
                raise TurnpostError(
                    "illegal_move", error.message, {"rule": error.rule, "move": parsed}
                ) from None
            if not request.by_clock:
                self.mark_acted(game, seat)
            answer = self._append(game, seat, parsed, state, request)
            if key is not None:
                self.store.record_response(game.id, seat, key, fingerprint, dumps(answer))
        return answer

    def _mover(self, request: MoveRequest) -> int:
        """The seat that moves: given, or the seat of the request's token (``404``, ``401``)."""
        if request.seat is not None:
            return request.seat
        if not self.store.game_exists(request.game_id):
            raise TurnpostError("not_found", f"No game {request.game_id!r}.")
        token = request.token
        seat = None if token is None else self.store.seat_by_token(request.game_id, token)
        if seat is None:
            raise TurnpostError("unauthorized", "A seat token of this game is needed to move.")
        return seat

    def _idempotent(self, game_id: str, seat: int, key: str, request: str) -> dict[str, Any] | None:
        """The first answer for a repeated ``Idempotency-Key``; ``422`` if the body differs."""
        recorded = self.store.idempotent_response(game_id, seat, key)
        if recorded is None:
            return None
        if recorded["request"] != request:
            raise TurnpostError(
                "invalid_request",
                "This Idempotency-Key was already used with a different request.",
                {"Idempotency-Key": [key]},
            )
        return json.loads(recorded["response"])

    def _check_turn(self, game: Game, seat: int, request: MoveRequest) -> dict[str, Any]:
        """Refuse a finished game, a stale seq or the wrong seat; return the parsed move."""
        if game.status != "active":
            raise TurnpostError("game_over", f"The game is {game.status}; no more moves.")
        expected_seq = request.expected_seq
        if expected_seq is not None and expected_seq != game.seq:
            raise TurnpostError(
                "stale_seq",
                f"The game is at seq {game.seq}, not {expected_seq}; reload and try again.",
                {"seq": game.seq},
            )
        parsed = self._read_move(game, request.move, request.notation)
        to_move = game.to_move
        if seat not in to_move:
            waiting = " and ".join(game.seats[s]["name"] for s in to_move)
            raise TurnpostError(
                "not_your_turn",
                f"It is not your turn: {waiting} {'moves' if len(to_move) == 1 else 'move'} now.",
                {"to_move": to_move},
            )
        return parsed

    def _append(
        self,
        game: Game,
        seat: int,
        move: dict[str, Any],
        state: dict[str, Any],
        request: MoveRequest,
    ) -> dict[str, Any]:
        """Append the move, the new snapshot and its mails inside the caller's transaction."""
        now = request.now or utcnow()
        seq = game.seq + 1
        snapshot = self._snapshot(game.engine, state, now, game.row["turn_hours"], game.seats)
        notation = game.engine.format(move)
        names = [row["name"] for row in game.seats]
        self.store.append_move(
            {
                "game_id": game.id,
                "seq": seq,
                "seat": seat,
                "move": dumps(move),
                "public_move": dumps(game.engine.public_move(game.state, state, seat, move)),
                "notation": notation,
                "description": game.engine.describe(game.state, state, seat, move, names),
                "to_move": snapshot["to_move"],
                "status": snapshot["status"],
                "at": now,
            },
        )
        self.store.update_game(game.id, {"seq": seq, **snapshot})
        updated = Game({**game.row, "seq": seq, **snapshot}, game.seats, game.engine, state)
        if self.notifier is not None and request.mail_message_id is not None:
            self.notifier.move_accepted(
                self.store, updated, seat, request.mail_message_id, notation
            )
        self._changed(updated)
        return {"seq": seq, "game": game_object(updated, seat)}

    def _changed(self, game: Game) -> None:
        """Tell the notifier (if any) that ``game`` changed: it queues the turn mails."""
        if self.notifier is not None:
            self.notifier.game_changed(self.store, game)

    def mark_acted(self, game: Game, seat: int) -> None:
        """Remember that ``seat`` acted in ``game``, so its mails flow (call inside a write)."""
        row = game.seats[seat]
        if row["acted_at"] is None:
            row["acted_at"] = utcnow()
            self.store.mark_acted(game.id, seat, row["acted_at"])

    def forfeit(self, game_id: str, seat: int, expected_seq: int) -> bool:
        """End the game because ``seat`` ran out of time: everyone else wins.

        Does nothing (``False``) if the game moved on since ``expected_seq``.
        """
        with self.store.write():
            game = self.load(game_id)
            if game.status != "active" or game.seq != expected_seq:
                return False
            losers = game.engine.partners(game.state, seat)
            names = " and ".join(game.seats[s]["name"] for s in losers)
            result = {
                "winners": [s["seat"] for s in game.seats if s["seat"] not in losers],
                "scores": {},
                "reason": f"{names} ran out of time and forfeit{'s' if len(losers) == 1 else ''}.",
                "forfeit": losers,
            }
            ended = {
                "status": "finished",
                "result": dumps(result),
                "to_move": "[]",
                "deadline": None,
                "updated_at": utcnow(),
            }
            self.store.update_game(game.id, ended)
            self._changed(Game({**game.row, **ended}, game.seats, game.engine, game.state))
        return True

    def abort(self, game_id: str, admin_token: str | None) -> dict[str, Any]:
        """End a running game as ``aborted`` (admin token only)."""
        game = self.load(game_id)
        expected = game.row["admin_token_hash"]
        if admin_token is None or not secrets.compare_digest(hash_secret(admin_token), expected):
            raise TurnpostError("unauthorized", "The admin token of this game is needed.")
        with self.store.write():
            game = self.load(game_id)
            if game.status != "active":
                raise TurnpostError("game_over", f"The game is already {game.status}.")
            self.store.update_game(
                game.id, {"status": "aborted", "to_move": "[]", "updated_at": utcnow()}
            )
        return game_object(self.load(game_id), seat=None)
