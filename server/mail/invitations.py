"""The invitation mail: a seat named at creation (or kept for a rematch) is asked to take it.

An invitation is an outbox row of kind ``invite``, queued when the game is
created (for every seat with an address that is not to move: a seat to move
is invited by its first turn mail), when a rematch is set up, or when the
game's host sends it again. Like every mail it passes the mail gate
(:mod:`server.mail.gate`): it is the seat's one mail until its player acts.

It names the game, who invites (the host's display name, in the body only:
a subject never carries a stranger's words) and the other players, and
carries the seat's link: following it takes the seat in that browser (for
the signed-in player, who then holds it), and proves the player reads the
mailbox. It is rendered when sent (:func:`invitation_letter`), without a
board: a table that forms has dealt nothing yet.
"""

from __future__ import annotations

from engines.words import join, plural
from server.games.game import Game, game_object
from server.mail.addresses import seat_link, stop_url, unsubscribe_url
from server.mail.render import INVITATION, Letter, environment, milliseconds
from server.mail.settings import MailSettings
from server.store.base import Store
from server.store.records import OutboxMail

#: The subjects of invitations: the game's name only, never a player's words.
SUBJECTS = {
    "game": "An invitation to play {engine} on Turnpost",
    "rematch": "An invitation to a rematch of {engine} on Turnpost",
}


def inviter_name(store: Store, game: Game) -> str | None:
    """The display name of the signed-in player who created ``game`` (its host), if any."""
    creator = game.row.creator_id
    player = store.player(creator) if creator else None
    return None if player is None else player.name


def invitation_letter(
    store: Store, settings: MailSettings, game: Game, seat: int, generation: int, now: str
) -> Letter:
    """The invitation of ``seat`` to ``game`` as it stands at ``now``."""
    engine, row = game.engine, game.seats[seat]
    rematch = game.row.rematch_of is not None
    subject = SUBJECTS["rematch" if rematch else "game"].format(engine=engine.name)
    context = {
        "engine": engine,
        "game": game_object(game, seat),
        "name": row.name,
        "subject": subject,
        "paragraphs": _paragraphs(store, game, seat, rematch),
        "link": seat_link(settings, game.id, seat, generation, milliseconds(now)),
        "rules": f"{settings.base_url}/rules/{engine.id}",
        "invitation": INVITATION,
        "acted": row.acted_at is not None,
        "stop": stop_url(settings, game.id, seat),
        "unsubscribe": unsubscribe_url(settings, row.email),
    }
    text = environment.get_template("email/invite.txt").render(**context)
    html = environment.get_template("email/invite.html").render(**context)
    return Letter(subject, text, html, None, "")


def _paragraphs(store: Store, game: Game, seat: int, rematch: bool) -> list[str]:
    """What the invitation says: who invites to what, with whom, and when it starts."""
    engine = game.engine
    others = [row.name for row in game.seats if row.name and row.seat != seat]
    open_seats = sum(not row.name for row in game.seats)
    company = others + ([plural(open_seats, "open seat")] if open_seats else [])
    what = f"a rematch of {engine.name}" if rematch else engine.name
    inviter = inviter_name(store, game)
    opening = f"{inviter} invites you" if inviter else "You are invited"
    said = [f"{opening} to play {what} with {join(company)} on Turnpost." if company else ""]
    if game.status == "forming":
        said.append(
            "The game starts as soon as every seat is taken"
            + (": Turnpost draws the seat order then." if game.row.seating == "drawn" else ".")
        )
    elif seat in game.to_move:
        said.append("It is your turn now.")
    elif game.to_move:
        waiting = [game.seats[s].name for s in game.to_move]
        said.append(f"{join(waiting)} {'moves' if len(waiting) == 1 else 'move'} now.")
    if game.status == "active" and game.seats[seat].acted_at is None:
        said.append(
            "Once you took your seat (the link below) or replied to this mail, Turnpost"
            " mails you when it is your turn."
        )
    return [paragraph for paragraph in said if paragraph]


def superseded(game: Game, row: OutboxMail) -> str | None:
    """Why an invitation must not go out now (the game is over, the seat taken), or ``None``."""
    if game.status not in ("forming", "active"):
        return f"the game is {game.status}"
    if game.seats[row.seat].joined_at is not None:
        return "the seat was taken"
    return None
