"""The browsers a player lets Turnpost notify: their Web Push subscriptions.

A browser that subscribes gives an *endpoint* (a URL of its push service,
secret to that browser) and two keys to encrypt for it (``p256dh``, ``auth``).
Turnpost keeps exactly these, with the player and the moment; the player
sees them on their page and may remove any. A player keeps at most
:data:`MAX_BROWSERS`: a new one past it forgets the oldest. The same endpoint
subscribed again replaces the old subscription (a browser notifies the
player who subscribed from it last).

The endpoint is posted to by the server, so it follows the rules of webhook
destinations (:mod:`server.webhooks.destinations`), and more: ``https``
only, no user or password, every address its host resolves to public or in
``TURNPOST_PUSH_NETWORKS`` (CIDR networks the operator allows; loopback and
private addresses are refused by default), checked when the browser
subscribes and again, on the address connected to, at each push.

    >>> rules = Destinations.from_settings("", "", label="push message")
    >>> check_endpoint(rules, "http://push.example.org/x")
    Traceback (most recent call last):
    ...
    server.webhooks.destinations.Refused: A push endpoint is an https:// URL.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from engines.phrases import phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.store.base import Store
from server.store.records import NewSubscription
from server.webhooks.destinations import Destinations, Refused

#: The browsers one player may have notified at once.
MAX_BROWSERS = 10
#: The setting naming the networks push endpoints may reach besides public addresses.
NETWORKS_SETTING = "TURNPOST_PUSH_NETWORKS"


def push_destinations(config: Mapping[str, Any]) -> Destinations:
    """The rules for push endpoints of an app's config (else the environment)."""
    networks = config.get(NETWORKS_SETTING, os.environ.get(NETWORKS_SETTING, ""))
    return Destinations.from_settings("", networks, label="push message")


def check_endpoint(destinations: Destinations, endpoint: str) -> None:
    """:class:`Refused` unless ``endpoint`` is an https URL the rules allow (without resolving)."""
    scheme, *_ = destinations.check_url(endpoint)
    if scheme != "https":
        raise Refused(phrase("A push endpoint is an https:// URL."))


def subscribe(
    store: Store, destinations: Destinations, player_id: str, subscription: dict[str, Any]
) -> dict[str, Any]:
    """Record a browser's subscription for ``player_id``: ``{"id", "created_at"}``.

    ``subscription`` is loaded by :class:`schemas.push.PushSubscriptionSchema`.
    ``422`` for an endpoint the rules refuse (its host is resolved now).
    """
    endpoint = subscription["endpoint"]
    try:
        check_endpoint(destinations, endpoint)
        destinations.resolve(endpoint)
    except Refused as error:
        raise TurnpostError("invalid_request", error.words, {"endpoint": [str(error)]}) from None
    now = utcnow()
    row: NewSubscription = {
        "player_id": player_id,
        "endpoint": endpoint,
        "p256dh": subscription["keys"]["p256dh"],
        "auth": subscription["keys"]["auth"],
        "created_at": now,
    }
    return {"id": store.add_push_subscription(row, MAX_BROWSERS), "created_at": now}


def browsers(store: Store, player_id: str) -> list[dict[str, Any]]:
    """A player's notified browsers for their page: ``id``, ``created_at`` and the push
    service's host (``service``); never the endpoint itself."""
    return [
        {
            "id": row.id,
            "created_at": row.created_at,
            "service": urlsplit(row.endpoint).hostname,
        }
        for row in store.push_subscriptions(player_id)
    ]
