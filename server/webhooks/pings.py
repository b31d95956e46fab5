"""Chat pings: "your turn" posted where a player's club talks, once per turn.

Discord, Slack, Matrix, or any receiver of JSON; the ping mentions the player
and links the game.

A seat adds a chat ping: an incoming-webhook URL of its chat, the chat's
``kind`` and, optionally, who to ``mention`` there. A player adds one for
every game of theirs: when a turn of one of their seats starts, the seat gets
a ping made from it (once per game; a seat that removed it keeps it removed). A ping is a webhook of
the seat (:mod:`server.webhooks`): the same destination rules (no private
addresses unless the operator allows them) and the same delivery (a total
deadline per post, retries, a failing receiver resting). Each chat gets its
own message format:

- ``discord``: ``{"content", "allowed_mentions"}``; the mention is a user id
  (``<@id>``), and only that user may be pinged (a name like ``@everyone``
  pings nobody);
- ``slack``: ``{"text"}`` in Slack's markup (``<@U...>``, ``<url|label>``),
  names escaped;
- ``matrix``: ``{"text", "html"}`` (a hookshot-style generic webhook); the
  mention is a Matrix user id, linked as a pill;
- ``generic``: ``{"event": "turn", ...}`` with the facts and the text.

A ping says only what anyone watching the game sees: the game, whose turn,
the move number and the link to the game's page (never a seat link: a chat
channel is shared, and a seat link would let anyone there play the seat).
A turn is pinged when it starts: a seat that the game did not wait for
before the change; a seat deciding again within its own turn is not pinged.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from engines.phrases import N_, english, phrase
from server.errors import TurnpostError
from server.games.changes import Change
from server.games.clock import utcnow
from server.games.game import Game
from server.i18n import catalog, recipient_language
from server.mail.words import title
from server.store.base import Store
from server.store.records import ChatPing, PlayerPing

#: The chats a ping can speak to, and a generic JSON receiver.
KINDS = ("discord", "slack", "matrix", "generic")
#: What a mention looks like in each chat (``generic``: any short text).
MENTIONS = {
    "discord": re.compile(r"\d{5,25}"),
    "slack": re.compile(r"[UW][A-Z0-9]{2,20}"),
    "matrix": re.compile(r"@[a-z0-9._=/+-]+:[A-Za-z0-9.-]+(:\d{1,5})?"),
    "generic": re.compile(r"[^\x00-\x1f\x7f]{1,100}"),
}
#: Chat pings one seat may have at once.
MAX_PINGS = 3


def ping_body(
    kind: str, mention: str | None, facts: Mapping[str, Any], language: str = "en"
) -> dict[str, Any]:
    """The message of a ``kind`` chat announcing a turn (``facts``: ``name``, ``title``,
    ``move``, ``url``, ``game_id``, ``seat``, ``seq``), its words in ``language``.

    >>> facts = {"name": "Ann <b>", "title": "Siam with Bob", "move": 3, "seat": 0,
    ...     "url": "https://t.example/g1", "game_id": "g1", "seq": 2}
    >>> ping_body("slack", "U1ABC", facts)["text"]
    '<@U1ABC>, it is your turn in Siam with Bob (move 3): <https://t.example/g1|open the game>'
    >>> ping_body("slack", None, facts)["text"][:13]
    'Ann &lt;b&gt;'
    >>> ping_body("discord", None, facts)["allowed_mentions"]
    {'parse': []}
    >>> ping_body("slack", None, facts | {"title": "Siam mit Bob"}, "de")["text"][15:]
    'du bist am Zug in Siam mit Bob (Zug 3): <https://t.example/g1|Partie öffnen>'
    """
    translations = catalog(language)
    sentence = translations.gettext("it is your turn in %(title)s (move %(move)s)") % {
        "title": facts["title"],
        "move": facts["move"],
    }
    opening = translations.gettext("open the game")
    url = facts["url"]
    if kind == "discord":
        who = f"<@{mention}>" if mention else facts["name"]
        allowed = {"users": [mention]} if mention else {"parse": []}
        return {"content": f"{who}, {sentence}: {url}", "allowed_mentions": allowed}
    if kind == "slack":
        who = f"<@{mention}>" if mention else _slack_escape(facts["name"])
        return {"text": f"{who}, {_slack_escape(sentence)}: <{url}|{_slack_escape(opening)}>"}
    if kind == "matrix":
        who = mention or facts["name"]
        pill = (
            f'<a href="https://matrix.to/#/{html.escape(mention)}">{html.escape(mention)}</a>'
            if mention
            else html.escape(facts["name"])
        )
        link = f'<a href="{html.escape(url)}">{html.escape(opening)}</a>'
        return {
            "text": f"{who}, {sentence}: {url}",
            "html": f"{pill}, {html.escape(sentence)}: {link}",
        }
    who = mention or facts["name"]
    return {"event": "turn", **facts, "mention": mention, "text": f"{who}, {sentence}: {url}"}


def _slack_escape(text: str) -> str:
    """Text for Slack's markup: ``&``, ``<`` and ``>`` escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def turn_facts(game: Game, seat: int, base_url: str, language: str = "en") -> dict[str, Any]:
    """What a ping of ``seat``'s turn tells (the game's title in ``language``): nothing the
    game's public page does not show."""
    names = [row.name for row in game.seats]
    return {
        "game_id": game.id,
        "seat": seat,
        "seq": game.seq,
        "move": game.seq + 1,
        "name": names[seat],
        "title": title(game.engine, names, seat, language),
        "url": f"{base_url}/games/{game.id}",
    }


def add_ping(
    store: Store, game_id: str, seat: int, kind: str, url: str, mention: str | None
) -> ChatPing:
    """Give ``seat`` a chat ping (the URL already checked); ``422`` past :data:`MAX_PINGS`."""
    with store.write():
        _check_room(
            len(store.chat_pings(game_id, seat)),
            N_("A seat has at most %(most)s chat pings; remove one first."),
        )
        now = utcnow()
        ping_id = store.add_chat_ping(game_id, seat, kind, url, mention, now)
    return ChatPing(ping_id, seat, kind, url, mention, now)


def add_player_ping(
    store: Store, player_id: str, kind: str, url: str, mention: str | None
) -> PlayerPing:
    """Give a player a chat ping for every game of theirs (the URL already checked); ``422``
    past :data:`MAX_PINGS`."""
    with store.write():
        _check_room(
            len(store.player_pings(player_id)),
            N_("A player has at most %(most)s chat pings; remove one first."),
        )
        now = utcnow()
        ping_id = store.add_player_ping(player_id, kind, url, mention, now)
    return PlayerPing(ping_id, kind, url, mention, now)


def _check_room(count: int, refusal: str) -> None:
    """``422`` (the message id ``refusal``) when :data:`MAX_PINGS` chat pings are there
    already."""
    if count >= MAX_PINGS:
        words = phrase(refusal, most=MAX_PINGS)
        raise TurnpostError("invalid_request", words, {"url": [english(words)]})


class ChatPingQueue:
    """The game service's listener that queues a ping of each turn that starts, in the seat's
    language (``language``: the server's, for a seat that has none)."""

    def __init__(self, base_url: str, language: str = "en") -> None:
        self.base_url = base_url
        self.language = language

    def changed(self, store: Store, change: Change) -> None:
        """Queue a ping to every chat ping of each seat whose turn starts with ``change``."""
        game = change.game
        if game.status != "active":
            return
        waited, now = set(change.waited or ()), utcnow()
        for seat in game.to_move:
            row = game.seats[seat]
            if seat in waited or row.bot is not None:
                continue
            for own in store.player_pings(row.player_id) if row.player_id else ():
                store.seat_ping_of(game.id, seat, own, now)
            if not (game.hooks_stored or row.player_id):
                continue
            language = recipient_language(store, row, self.language)
            facts = turn_facts(game, seat, self.base_url, language)
            for ping in store.chat_pings(game.id, seat):
                body = ping_body(ping.kind, ping.mention, facts, language)
                store.queue_chat_ping(ping.id, game.seq, body, now)
