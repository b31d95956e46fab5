"""Takebacks by agreement: a seat offers to take back its last move, the other seats answer.

The rules (``docs/api.md``, "Takebacks"):

- A game created with ``"takebacks": false`` refuses every offer (``403 forbidden``).
- A seat may offer to take back its own move while that move is the game's
  last log entry and the game runs; a game has one open offer, made at its
  ``seq``: any later entry (a move, a resignation) ends it unanswered.
- Never across hidden information already revealed (``409 takeback_refused``):
  a move that drew on chance (the PRNG kept in the state moved on), or, in a
  game that hides information, changed what any seat sees privately (a tile
  drawn or played from a hand), stays played.
- Every other seat played by a person must accept; a bot's seat accepts. The
  first ``decline`` ends the offer. Once all accepted, a ``takeback N`` entry
  (by the offering seat) returns the game to the state before move ``N``: the
  log stays append-only, and replaying it gives the same states
  (:meth:`~server.games.service.GameService.states`).

Offers and answers come over the API (``POST /api/v1/games/{id}/takeback``),
the game page and mail (the ``takeback``, ``accept`` and ``decline`` commands);
the other seats are told of an offer by mail.
"""

from __future__ import annotations

from typing import Any

from engines import IMPERFECT, Engine
from engines.phrases import phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.game import Game
from server.games.service import GameService
from server.store.records import LoggedMove, TakebackOffer


def revealed(engine: Engine, before: dict[str, Any], after: dict[str, Any], seats: int) -> bool:
    """Whether the move from ``before`` to ``after`` revealed something hidden: it drew on
    chance, or (in a game that hides information) changed any seat's private view."""
    if before.get("rng") != after.get("rng"):
        return True
    if engine.information != IMPERFECT:
        return False
    return any(
        _private(engine, before, seat) != _private(engine, after, seat) for seat in range(seats)
    )


def _private(engine: Engine, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """What ``seat`` sees of ``state`` that the public does not."""
    public, own = engine.view(state, None), engine.view(state, seat)
    return {key: value for key, value in own.items() if public.get(key) != value}


def open_offer(games: GameService, game: Game) -> TakebackOffer | None:
    """The game's offer still open: made at the game's last entry, while it runs."""
    offer = games.store.takeback_offer(game.id)
    if offer is None or offer.seq != game.seq or game.status != "active":
        return None
    return offer


def offer_entry(game: Game, offer: TakebackOffer | None) -> dict[str, Any] | None:
    """An offer as the API shows it: the move, who offers, who accepted, who is awaited."""
    if offer is None:
        return None
    return {
        "seq": offer.seq,
        "seat": offer.seat,
        "offered_at": offer.offered_at,
        "accepted": offer.accepted_seats,
        "waiting": awaited(game, offer),
    }


def awaited(game: Game, offer: TakebackOffer) -> list[int]:
    """The seats whose answer the offer still waits for: the other seats a person plays."""
    return [
        seat.seat
        for seat in game.seats
        if seat.seat != offer.seat and seat.bot is None and seat.seat not in offer.accepted_seats
    ]


def takeback_status(games: GameService, game_id: str) -> dict[str, Any]:
    """``{"offer"}``: the game's open offer, or ``None``."""
    game = games.load(game_id)
    return {"offer": offer_entry(game, open_offer(games, game))}


def takeback_panel(games: GameService, game: Game, seat: int | None) -> dict[str, Any]:
    """What the game page shows ``seat`` of takebacks: the open offer, whether the seat may
    offer one now (its move is the last entry) or must answer one."""
    offer = open_offer(games, game)
    last = last_move(games, game) if game.status == "active" and seat is not None else None
    may_offer = (
        offer is None
        and game.row.takebacks
        and last is not None
        and last.kind == "move"
        and last.seat == seat
    )
    return {
        "offer": offer_entry(game, offer),
        "may_offer": may_offer,
        "must_answer": offer is not None and seat in awaited(game, offer),
    }


def last_move(games: GameService, game: Game) -> LoggedMove | None:
    """The game's last log entry, or ``None`` before the first."""
    if game.seq == 0:
        return None
    return games.store.moves(game.id, after=game.seq - 1)[-1]


def check_offer(games: GameService, game: Game, seat: int) -> None:
    """Refuse an offer of ``seat`` that the rules do not allow (see the module)."""
    games.check_running(game)
    if not game.row.takebacks:
        raise TurnpostError("forbidden", phrase("This game was created without takebacks."))
    last = last_move(games, game)
    if last is None or last.kind != "move" or last.seat != seat:
        raise TurnpostError(
            "takeback_refused",
            phrase("Only your own move can be taken back, while it is the last one of the game."),
            {"seq": game.seq},
        )
    states = games.states(game, upto=game.seq)
    if revealed(game.engine, states[-2], states[-1], len(game.seats)):
        raise TurnpostError(
            "takeback_refused",
            phrase(
                "This move revealed something hidden (a draw, a hand): it cannot be taken back."
            ),
            {"seq": game.seq},
        )


def offer_takeback(
    games: GameService, game_id: str, seat: int, expected_seq: int | None = None
) -> dict[str, Any]:
    """``seat`` offers to take back its last move; taken back at once if nobody need answer."""
    with games.store.write():
        game = games.load(game_id)
        games.check_seq(game, expected_seq)
        check_offer(games, game, seat)
        offer = TakebackOffer(game.id, game.seq, seat, [], utcnow())
        games.store.set_takeback_offer(offer)
        if not awaited(game, offer):
            return _take_back(games, game, offer, seat)
        _tell_offer(games, game, offer)
        return _answer(games, game, "offered", offer, seat)


def answer_takeback(
    games: GameService, game_id: str, seat: int, accept: bool, expected_seq: int | None = None
) -> dict[str, Any]:
    """``seat`` accepts or declines the open offer; the last acceptance takes the move back."""
    with games.store.write():
        game = games.load(game_id)
        games.check_seq(game, expected_seq)
        offer = open_offer(games, game)
        if offer is None:
            raise TurnpostError(
                "takeback_refused", phrase("No takeback is offered in this game now.")
            )
        if seat not in awaited(game, offer):
            raise TurnpostError(
                "takeback_refused",
                phrase("You made this offer.")
                if seat == offer.seat
                else phrase("You already accepted it."),
            )
        if not accept:
            games.store.drop_takeback_offer(game.id)
            return _answer(games, game, "declined", None, seat)
        offer = TakebackOffer(
            game.id, offer.seq, offer.seat, [*offer.accepted_seats, seat], offer.offered_at
        )
        if awaited(game, offer):
            games.store.set_takeback_offer(offer)
            return _answer(games, game, "accepted", offer, seat)
        return _take_back(games, game, offer, seat)


def _answer(
    games: GameService, game: Game, outcome: str, offer: TakebackOffer | None, seat: int | None
) -> dict[str, Any]:
    """The API's answer: what happened, the offer still open, the game."""
    return {
        "outcome": outcome,
        "offer": offer_entry(game, offer),
        "game": games.game_object(game, seat),
    }


def take_back(games: GameService, game_id: str, seat: int, seq: int, expected_seq: int) -> None:
    """Take back move ``seq`` of ``seat`` at once, as agreed elsewhere (a record played again:
    :mod:`server.games.records`); the same checks as an offer."""
    with games.store.write():
        game = games.load(game_id)
        games.check_seq(game, expected_seq)
        if seq != game.seq:
            raise TurnpostError(
                "takeback_refused", phrase("Move %(seq)s is not the last one.", seq=seq)
            )
        check_offer(games, game, seat)
        _take_back(games, game, TakebackOffer(game.id, seq, seat, [], utcnow()), seat)


def _take_back(games: GameService, game: Game, offer: TakebackOffer, seat: int) -> dict[str, Any]:
    """Append the ``takeback`` entry of ``offer`` (inside the caller's write)."""
    games.store.drop_takeback_offer(game.id)
    before = games.states(game, upto=offer.seq - 1)[-1]
    now = utcnow()
    snapshot = {
        "seq": game.seq + 1,
        **games.snapshot(game.engine, before, now),
    }
    name = game.seats[offer.seat].name
    logged = LoggedMove(
        game_id=game.id,
        seq=game.seq + 1,
        seat=offer.seat,
        kind="takeback",
        move={"action": "takeback", "seq": offer.seq},
        public_move={"action": "takeback", "seq": offer.seq},
        notation=f"takeback {offer.seq}",
        description=f"{name} takes back move {offer.seq}, as agreed.",
        to_move=snapshot["to_move"],
        status=snapshot["status"],
        at=now,
    )
    updated = games.append_entry(game, logged, snapshot)
    return _answer(games, updated, "taken_back", None, seat)


def _tell_offer(games: GameService, game: Game, offer: TakebackOffer) -> None:
    """Mail each awaited seat that ``offer`` was made and how to answer it."""
    if games.notifier is None:
        return
    name = game.seats[offer.seat].name
    said = (
        f"{name} offers to take back move {offer.seq}. Reply with one word: accept (the move"
        " is taken back once every other player accepted) or decline."
    )
    for seat in awaited(game, offer):
        games.notifier.answer(games.store, game, seat, None, command="takeback", said=said)
