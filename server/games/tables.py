"""Tables: games that form before they start, their host's controls, rematches.

A game created with an open seat (or a rematch) is a *table*: its status is
``forming`` and nothing is dealt until every seat is taken. An open seat is
taken by a signed-in player who joins (:meth:`Tables.join`, one click in the
lobby); a named seat by whoever opens its link (the creator's handed link, or
the invitation mailed to its address: :meth:`GameService.take_seat`); a seat
kept for a player (a rematch) by that player, signed in, or by its link. The
last seat taken deals the game, which may draw the seat order from the seed
then (:meth:`GameService.start_if_full`). Every join happens in one write
transaction: of two players joining for the last seat at once, exactly one
sits down and the other is told the table is full. A table that waits
:data:`~server.games.service.FORMING_DAYS` days is cancelled by the worker
(:func:`expire_tables`), and refused at once by a join.

The *host* is the signed-in player who created the game (``creator_id``):
on the web, without the admin token, they may cancel a table or stop a game,
remove a player from a table, set or lift the turn clock, hide the game from
the lobby and the public list, send a seat's invitation again (the mail gate
decides: an address that has not answered gets one mail per game) or replace
a seat's link (a reissue: every token and mail link of the seat stops).

At the end, any player of a game (or its host) sets up its rematch
(:meth:`Tables.rematch`): the same game and options, the seats rotated by
one, each kept for the same player and invited again; it starts once all
accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.phrases import Words, english, phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.game import Game, status_words
from server.games.service import ALL_TOKENS, GameService, Table, Taken
from server.games.talk import TalkService
from server.games.time_control import TimeControl, clock_json
from server.mail.gate import UNANSWERED
from server.store.base import Conflict
from server.store.records import Player, Seat

#: Turn clocks a host may set (hours), as the schema of creation allows.
MIN_TURN_HOURS, MAX_TURN_HOURS = 1, 24 * 60
DEADLINE_POLICIES = ("remind", "skip", "forfeit")


@dataclass(frozen=True)
class Rematch:
    """The rematch of a game: its id, whether it existed before it was asked for, and the
    tokens of the seats of the player who asked for it (for their browser)."""

    id: str
    existed: bool
    tokens: list[str] = field(default_factory=list)


class Tables:
    """Joining tables, the host's controls and rematches, on a :class:`GameService`."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.store = games.store

    # -- players at a table -------------------------------------------------------
    def join(self, game_id: str, player: Player) -> Taken:
        """Seat ``player`` (signed in) at a forming table; a token for their browser.

        The seat kept for them (a rematch), else the first open seat. ``409
        table_full`` when every seat is taken, ``409 game_over`` for a table
        cancelled or expired. Joining proves the player's mailbox (they signed
        in by mail): their seat is mailed at their address from now on. A
        player already seated opens their seat (:meth:`GameService.take_own_seat`).
        """
        now = utcnow()
        with self.store.write():
            game = self.games.load(game_id)
            mine = [row for row in game.seats if row.player_id == player.id]
            seated = next((row for row in mine if row.joined_at), None)
            if seated is None:
                self.games.check_open(game, now)
                kept = [row for row in mine if row.joined_at is None]
                free = [row for row in game.seats if not row.name and row.joined_at is None]
                if not kept + free:
                    raise TurnpostError("table_full", phrase("Every seat of this table is taken."))
                token = self._sit(game_id, (kept + free)[0], player, now)
                self.games.start_if_full(game_id)
                return Taken(self.store.seat_by_token(game_id, token), token)
        return self.games.take_own_seat(game_id, seated.seat, player.id)

    def _sit(self, game_id: str, place: Seat, player: Player, now: str) -> str:
        """Seat ``player`` at ``place`` (a seats row) of a forming table, in the caller's write;
        the token of their browser. A kept seat keeps its name, an open one takes theirs."""
        self.store.update_seat(
            game_id,
            place.seat,
            {
                "name": place.name or player.name,
                "email": player.email,
                "player_id": player.id,
                "joined_at": now,
                "acted_at": now,
            },
        )
        self.store.update_game(game_id, {"updated_at": now})
        return self.games.browser_token(game_id, place.seat, now)

    def remove(self, game_id: str, host: Player, seat: int) -> None:
        """The host frees a seat of a forming table: its player leaves, it is open again.

        Every token and mail link of the seat stops; whoever joins next names it.
        """
        now = utcnow()
        with self.store.write():
            game = self._hosted(game_id, host)
            self.games.check_open(game, now)
            row = self._seat(game, seat)
            self.store.revoke_seat_tokens(game_id, seat, ALL_TOKENS, now, "removed")
            self.store.update_seat(
                game_id,
                seat,
                {
                    "name": "",
                    "email": None,
                    "player_id": None,
                    "joined_at": None,
                    "acted_at": None,
                    "private_at": None,
                    "mail_stopped_at": None,
                    "mail_generation": row.mail_generation + 1,
                    "passes_revoked_at": now,
                    "bot": None,
                },
            )
            self.store.update_game(game_id, {"updated_at": now})

    # -- the host's controls ------------------------------------------------------------
    def stop(self, game_id: str, host: Player) -> None:
        """The host cancels a forming table or stops a running game (``aborted``)."""
        self._hosted(game_id, host)
        self.games.stop(game_id)

    def set_clock(
        self, game_id: str, host: Player, control: TimeControl | None, policy: str
    ) -> None:
        """The host sets the time control (``control``, ``policy``) or lifts it (``None``).

        A plain clock per move is kept as the game's ``turn_hours``, any other as its
        ``clock``. Every seat gets its whole new time from now; ``422`` out of range.
        """
        hours = control.hours if control is not None and control.kind == "per_move" else None
        if hours is not None and not MIN_TURN_HOURS <= hours <= MAX_TURN_HOURS:
            words = phrase(
                "A turn may take %(least)s to %(most)s hours.",
                least=MIN_TURN_HOURS,
                most=MAX_TURN_HOURS,
            )
            raise TurnpostError("invalid_request", words, {"turn_hours": [english(words)]})
        _check_policy(policy)
        plain = control is not None and control == TimeControl("per_move", control.hours)
        now = utcnow()
        with self.store.write():
            game = self._hosted(game_id, host)
            if game.status not in ("forming", "active"):
                raise TurnpostError("game_over", status_words(game.status))
            self.store.update_game(
                game_id,
                {
                    "turn_hours": control.hours if plain and control else None,
                    "clock": None if plain or control is None else clock_json(control),
                    "deadline_policy": policy,
                    "deadline": None,
                    "reminders_sent": 0,
                    "updated_at": now,
                },
            )
            self.games.restart_clocks(game_id, now)

    def set_policy(self, game_id: str, host: Player, policy: str) -> None:
        """The host changes what happens when time runs out, keeping the game's clock."""
        _check_policy(policy)
        with self.store.write():
            game = self._hosted(game_id, host)
            if game.status not in ("forming", "active"):
                raise TurnpostError("game_over", status_words(game.status))
            self.store.update_game(game_id, {"deadline_policy": policy})

    def delete_message(self, game_id: str, host: Player, number: int) -> None:
        """The host deletes the text of message ``number`` of the table (logged as deleted)."""
        TalkService(self.store).delete(self._hosted(game_id, host), number, by="host")

    def hide(self, game_id: str, host: Player, hidden: bool) -> None:
        """The host takes the game out of the lobby and the public list, or puts it back."""
        with self.store.write():
            self._hosted(game_id, host)
            self.store.update_game(game_id, {"hidden_at": utcnow() if hidden else None})

    def send_invitation(self, game_id: str, host: Player, seat: int) -> None:
        """The host mails a seat its invitation again: a new link; the old ones stop.

        The mail gate decides (:mod:`server.mail.gate`): an address that has not
        answered was mailed once for this game and gets nothing more, and the
        limits per address and per creator hold. ``422`` in words when the
        mail cannot go, and then nothing changes.
        """
        now = utcnow()
        with self.store.write():
            game = self._hosted(game_id, host)
            if game.status not in ("forming", "active"):
                raise TurnpostError("game_over", status_words(game.status))
            row = self._seat(game, seat)
            if not row.email:
                raise TurnpostError("invalid_request", _no_address(row.name))
            if game.status == "forming" and row.joined_at:
                raise TurnpostError(
                    "invalid_request", phrase("%(name)s took their seat already.", name=row.name)
                )
            self.store.update_seat(game_id, seat, {"passes_revoked_at": now})
            why = self.games.invite(self.games.load(game_id), seat)
            if why is not None:
                raise TurnpostError("invalid_request", _unsent(row.name, why))

    def replace_link(self, game_id: str, host: Player, seat: int) -> dict[str, Any]:
        """The host gives a seat a new link: every token and mail link of the seat stops.

        The answer ``{"seat", "name", "token"}`` is the one place the new token
        is shown (5 a day per game, as the admin's reissue).
        """
        game = self._hosted(game_id, host)
        if game.status not in ("forming", "active"):
            raise TurnpostError("game_over", status_words(game.status))
        if not self._seat(game, seat).name:
            raise TurnpostError(
                "invalid_request", phrase("An open seat has no link: players join it.")
            )
        return self.games.reissue(game, seat)

    # -- rematches ---------------------------------------------------------------------
    def rematch(
        self,
        game_id: str,
        player: Player,
        held: list[int],
        client: str | None,
        handed_key: bytes | None = None,
    ) -> Rematch:
        """Set up the rematch of a finished game (its players and host only).

        The same game, options and clock; the seats rotated by one; each seat
        kept for the same player and invited again at the same address (the
        account's, for a seat tied to a player), where no token is handed: only
        its player takes it; a seat without an address is handed to whoever
        asked, with its link. The seats of the player asking (tied to them, or
        ``held`` in their browser) are theirs at once. Asking again answers
        the same rematch.
        """
        game = self.games.load(game_id)
        mine = {row.seat for row in game.seats if row.player_id == player.id}
        mine |= set(held)
        if not mine and game.row.creator_id != player.id:
            raise TurnpostError(
                "forbidden", phrase("Only the game's players may ask for a rematch.")
            )
        if game.status != "finished":
            raise TurnpostError(
                "invalid_request", phrase("A rematch follows a game that was played out.")
            )
        existing = self.store.rematch_of(game_id)
        if existing is not None:
            return Rematch(existing, existed=True)
        seats = len(game.seats)
        rotated = [game.seats[(place + 1) % seats] for place in range(seats)]
        places = [self._kept_place(row, player, mine) for row in rotated]
        own = {place for place, row in enumerate(rotated) if row.seat in mine}
        table = Table(creator_id=player.id, seating="listed", rematch_of=game_id)
        try:
            created = self.games.create(
                game.engine.id,
                places,
                game.row.options,
                turn_hours=None if game.row.clock else game.row.turn_hours,
                deadline_policy=game.row.deadline_policy,
                clock=game.row.clock,
                client=client,
                handed_key=handed_key,
                table=table,
            )
        except Conflict:  # another player asked at the same moment
            return Rematch(self.store.rematch_of(game_id), existed=True)
        now = utcnow()
        with self.store.write():
            rows = self.store.seats(created["id"])
            tokens = [self._sit(created["id"], row, player, now) for row in rows if row.seat in own]
            self.games.start_if_full(created["id"])
        return Rematch(created["id"], existed=False, tokens=tokens)

    def _kept_place(self, row: Seat, player: Player, mine: set[int]) -> dict[str, Any]:
        """A seat of the rematch kept for the player of ``row``, at their address.

        A seat of nobody known (no player, no address) is handed to the rematch's
        host, who passes its link on; a bot's seat is the same bot's again.
        """
        if row.bot is not None:
            return dict(row.bot)
        asking = row.seat in mine
        owner = player.id if asking else row.player_id
        known = self.store.player(owner) if owner else None
        email = known.email if known else row.email
        kept = bool(email)
        return {
            "name": row.name,
            "email": email,
            "player_id": owner,
            "kept": kept,
            "invite": kept and not asking,
        }

    # -- checks ---------------------------------------------------------------------------
    def host_of(self, game: Game, player: Player | None) -> bool:
        """Whether ``player`` (signed in, or ``None``) is the host of ``game``."""
        return player is not None and game.row.creator_id == player.id

    def _hosted(self, game_id: str, host: Player) -> Game:
        """The game ``game_id`` if ``host`` created it; ``403`` otherwise."""
        game = self.games.load(game_id)
        if not self.host_of(game, host):
            raise TurnpostError(
                "forbidden", phrase("Only the player who created this game may do this.")
            )
        return game

    @staticmethod
    def _seat(game: Game, seat: int) -> Seat:
        """The seat ``seat`` of ``game``; ``404`` if it has none such."""
        if not 0 <= seat < len(game.seats):
            raise TurnpostError("not_found", phrase("This game has no such seat."))
        return game.seats[seat]


def _no_address(name: str) -> Words:
    """Why a seat (of ``name``, or unnamed) cannot be mailed: it has no address."""
    if not name:
        return phrase("This seat has no address to mail.")
    return phrase("%(name)s has no address to mail.", name=name)


def _unsent(name: str, why: str) -> Words:
    """Why an invitation to ``name`` was not mailed, in words for the host."""
    if why == UNANSWERED:
        return phrase(
            "%(name)s was mailed about this game already and has not answered: Turnpost mails"
            " an address that has not answered once per game. Give them a new link yourself"
            " (replace the link) instead.",
            name=name,
        )
    return phrase(
        "Turnpost cannot mail %(name)s now: the address asked never to be mailed, stopped the"
        " mail of this game, or had as many mails as Turnpost sends in a day.",
        name=name,
    )


def expire_tables(games: GameService, now: str | None = None) -> list[str]:
    """Cancel the tables that waited too long for players (the worker's clock); their ids."""
    now = now or utcnow()
    expired = []
    for game_id in games.store.expired_tables(now):
        try:
            games.stop(game_id, forming_only=True)
        except TurnpostError:  # it filled or was cancelled meanwhile
            continue
        expired.append(game_id)
    return expired


def _check_policy(policy: str) -> None:
    """``422`` unless ``policy`` is a deadline policy."""
    if policy not in DEADLINE_POLICIES:
        words = phrase("The policy is one of %(policies)s.", policies=", ".join(DEADLINE_POLICIES))
        raise TurnpostError("invalid_request", words, {"deadline_policy": [english(words)]})
