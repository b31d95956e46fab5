"""Webhooks: a game's events posted as signed JSON to the URLs its creator gave.

A game's admin token registers URLs (``POST /api/v1/games/{id}/webhooks``).
Each logged entry (a move, a resignation, a forfeit) queues a ``move`` event,
and the end of the game an ``end`` event, for every webhook of the game, in
the same transaction as the change (:meth:`~server.store.base.WebhookStore.queue_webhooks`);
the worker posts them later (:mod:`server.webhooks.delivery`), signed with
HMAC-SHA256, with retries and backoff, only to addresses the operator allows
(:mod:`server.webhooks.destinations`).
"""
