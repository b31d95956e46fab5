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
mailbox. It is rendered when sent (:func:`invitation_letter`), in the seat's
language (:func:`~server.i18n.recipient_language`), without a board: a table
that forms has dealt nothing yet.
"""

from __future__ import annotations

from server.games.game import Game, game_object
from server.i18n import N_, catalog, listing, recipient_language, template_words
from server.mail.addresses import seat_link, stop_url, unsubscribe_url
from server.mail.render import INVITATION, Letter, environment, milliseconds
from server.mail.settings import MailSettings
from server.store.base import Store
from server.store.records import OutboxMail

#: The subjects of invitations: the game's name only, never a player's words.
SUBJECTS = {
    "game": N_("An invitation to play %(engine)s on Turnpost"),
    "rematch": N_("An invitation to a rematch of %(engine)s on Turnpost"),
}
#: What an invitation opens with: by whom (a host, or nobody named), to a game or a rematch.
OPENINGS = {
    (True, False): N_("%(inviter)s invites you to play %(game)s with %(players)s on Turnpost."),
    (True, True): N_(
        "%(inviter)s invites you to play a rematch of %(game)s with %(players)s on Turnpost."
    ),
    (False, False): N_("You are invited to play %(game)s with %(players)s on Turnpost."),
    (False, True): N_(
        "You are invited to play a rematch of %(game)s with %(players)s on Turnpost."
    ),
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
    language = recipient_language(store, row, settings.language)
    translations = catalog(language)
    subject = translations.gettext(SUBJECTS["rematch" if rematch else "game"]) % {
        "engine": engine.name
    }
    context = {
        "engine": engine,
        "game": game_object(game, seat),
        "name": row.name,
        "subject": subject,
        "paragraphs": _paragraphs(store, game, seat, rematch, language),
        "link": seat_link(settings, game.id, seat, generation, milliseconds(now)),
        "rules": f"{settings.base_url}/rules/{engine.id}",
        "invitation": translations.gettext(INVITATION),
        "language": language,
        **template_words(language),
        "acted": row.acted_at is not None,
        "stop": stop_url(settings, game.id, seat),
        "unsubscribe": unsubscribe_url(settings, row.email),
    }
    text = environment.get_template("email/invite.txt").render(**context)
    html = environment.get_template("email/invite.html").render(**context)
    return Letter(subject, text, html, None, "")


def _paragraphs(store: Store, game: Game, seat: int, rematch: bool, language: str) -> list[str]:
    """What the invitation says in ``language``: who invites to what, with whom, and when it
    starts."""
    translations = catalog(language)
    others = [row.name for row in game.seats if row.name and row.seat != seat]
    open_seats = sum(not row.name for row in game.seats)
    if open_seats:
        counted = translations.ngettext("%(num)d open seat", "%(num)d open seats", open_seats)
        others.append(counted % {"num": open_seats})
    inviter = inviter_name(store, game)
    said = []
    if others:
        opening = translations.gettext(OPENINGS[inviter is not None, rematch])
        players = listing(others, language)
        said.append(opening % {"inviter": inviter, "game": game.engine.name, "players": players})
    if game.status == "forming" and game.row.seating == "drawn":
        said.append(
            translations.gettext(
                "The game starts as soon as every seat is taken: Turnpost draws the seat order"
                " then."
            )
        )
    elif game.status == "forming":
        said.append(translations.gettext("The game starts as soon as every seat is taken."))
    elif seat in game.to_move:
        said.append(translations.gettext("It is your turn now."))
    elif game.to_move:
        waiting = [game.seats[s].name for s in game.to_move]
        moves = translations.ngettext("%(names)s moves now.", "%(names)s move now.", len(waiting))
        said.append(moves % {"names": listing(waiting, language)})
    if game.status == "active" and game.seats[seat].acted_at is None:
        said.append(
            translations.gettext(
                "Once you took your seat (the link below) or replied to this mail, Turnpost"
                " mails you when it is your turn."
            )
        )
    return said


def superseded(game: Game, row: OutboxMail) -> str | None:
    """Why an invitation must not go out now (the game is over, the seat taken), or ``None``."""
    if game.status not in ("forming", "active"):
        return f"the game is {game.status}"
    if game.seats[row.seat].joined_at is not None:
        return "the seat was taken"
    return None
