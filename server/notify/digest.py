"""The daily digest: one mail a morning listing every game waiting for a player.

A player who chose it (``mail_pref`` ``digest``, on their page) gets no turn
mails nor reminders for their seats (:mod:`server.notify.preferences`);
instead the worker (``turnpost worker`` or ``send-mail``) queues a digest at
:data:`DIGEST_HOUR` o'clock in the player's time zone, and then every
morning. The first one goes at the worker's next round after the player
chose it. A morning on which no game waits for them queues nothing.

It is an account mail (an outbox row without a game, like the sign-in
mail), rendered when it is sent with the games as they are then: one that
finds no game waiting any more is dropped. Each game is listed with its
move, what to do (the game's words), the deadline in the player's time
zone and the seat's own link, all in the player's language (else the
server's); games whose mail the player stopped are left out, and an
address that asked never to be mailed again gets nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from server.games.clock import format_time, parse_time
from server.games.service import GameService
from server.i18n import catalog, known_language, template_words
from server.mail.addresses import new_message_id, seat_link, unsubscribe_url
from server.mail.render import environment
from server.mail.settings import MailSettings
from server.mail.words import title, when
from server.phrases import render
from server.store.base import Store
from server.store.records import OutboxMail, Player

#: The hour of the player's morning at which their digest is queued.
DIGEST_HOUR = 8
#: The most games one digest lists (soonest deadline first).
MAX_LISTED = 50
#: Players whose digest is looked at in one round of the worker.
BATCH = 200


def zone_of(player: Player) -> ZoneInfo:
    """The player's time zone (UTC if it is not one this system knows)."""
    try:
        return ZoneInfo(player.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def next_morning(zone: ZoneInfo, now: str) -> str:
    """The first :data:`DIGEST_HOUR` o'clock in ``zone`` after ``now``, as a stored moment.

    >>> next_morning(ZoneInfo("Europe/Brussels"), "2026-01-10T06:59:00.000000Z")
    '2026-01-10T07:00:00.000000Z'
    >>> next_morning(ZoneInfo("Europe/Brussels"), "2026-07-10T06:00:00.000000Z")
    '2026-07-11T06:00:00.000000Z'
    """
    local = parse_time(now).astimezone(zone)
    morning = local.replace(hour=DIGEST_HOUR, minute=0, second=0, microsecond=0)
    if morning <= local:
        tomorrow = local.date() + timedelta(days=1)
        morning = datetime(tomorrow.year, tomorrow.month, tomorrow.day, DIGEST_HOUR, tzinfo=zone)
    return format_time(morning)


def queue_digests(store: Store, now: str) -> int:
    """Queue the digests due at ``now`` and schedule each player's next one; how many queued."""
    queued = 0
    for player in store.digests_due(now, BATCH):
        waiting = store.waiting_seats(player.id, 1)
        with store.write():
            if waiting:
                store.queue_mail(
                    {
                        "kind": "digest",
                        "to_addr": player.email,
                        "facts": {"player": player.id},
                        "created_at": now,
                        "next_attempt_at": now,
                        "rcpt_key": player.email_key,
                    }
                )
                queued += 1
            store.set_digest_due(player.id, next_morning(zone_of(player), now))
    return queued


def waiting_games(
    store: Store, settings: MailSettings, player: Player, now: str, language: str = "en"
) -> list[dict[str, str]]:
    """What the digest says of each game waiting for ``player`` now (their seat's link too),
    in ``language``."""
    games, zone = GameService(store), zone_of(player)
    issued = int(parse_time(now).timestamp() * 1000)
    listed = []
    for seat in store.waiting_seats(player.id, MAX_LISTED):
        game = games.load(seat.game_id)
        names = [row.name for row in game.seats]
        deadline = game.row.deadline
        generation = seat.mail_generation or 0
        listed.append(
            {
                "title": title(game.engine, names, seat.seat, language),
                "move": str(game.seq + 1),
                "prompt": render(game.engine.prompt(game.state, seat.seat), names, language),
                "deadline": when(deadline, now, language, zone.key) if deadline else "",
                "link": seat_link(settings, game.id, seat.seat, generation, issued),
            }
        )
    return listed


def digest_message(
    store: Store, settings: MailSettings, row: OutboxMail, now: str
) -> EmailMessage | None:
    """The digest of an outbox row (``kind`` ``digest``), or ``None`` if no game waits now."""
    player = store.player((row.facts or {}).get("player", ""))
    if player is None:
        return None
    language = known_language(player.language) or settings.language
    games = waiting_games(store, settings, player, now, language)
    if not games:
        return None
    context = {
        "name": player.name,
        "games": games,
        "me": f"{settings.base_url}/me",
        "unsubscribe": unsubscribe_url(settings, row.to_addr),
        "language": language,
        **template_words(language),
    }
    message = EmailMessage()
    message["From"] = settings.from_address
    message["To"] = row.to_addr
    message["Subject"] = digest_subject(games, language)
    message["Message-ID"] = new_message_id(settings, "digest", "account")
    message["Date"] = format_datetime(parse_time(row.created_at))
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(environment.get_template("email/digest.txt").render(**context))
    html = environment.get_template("email/digest.html").render(**context)
    message.add_alternative(html, subtype="html")
    return message


def digest_subject(games: list[dict[str, str]], language: str) -> str:
    """The digest's subject in ``language``: the one game waiting, or how many.

    >>> digest_subject([{"title": "Siam met Bob", "move": "3"}], "nl")
    'Jouw beurt in Siam met Bob (zet 3)'
    >>> digest_subject([{}, {}], "de")
    'Du bist am Zug in 2 Spielen'
    """
    translations = catalog(language)
    if len(games) == 1:
        only = games[0]
        words = translations.gettext("Your turn in %(title)s (move %(move)s)")
        return words % {"title": only["title"], "move": only["move"]}
    words = translations.ngettext(
        "Your turn in %(num)d game", "Your turn in %(num)d games", len(games)
    )
    return words % {"num": len(games)}
