"""Web Push: telling the browsers a player allowed that it is their turn.

Standard Web Push (RFC 8030) with VAPID (RFC 8292) and the message
encrypted for the browser (RFC 8291, ``aes128gcm``), as every browser's push
service takes it:

- :mod:`server.push.keys`: the server's VAPID key pair, derived from its secret key;
- :mod:`server.push.subscriptions`: the browsers' subscriptions, per player,
  to push endpoints the destination rules allow;
- :mod:`server.push.queue`: the listener that queues a push when a game waits
  for a player's seat;
- :mod:`server.push.delivery`: the worker's thread that encrypts, signs and posts them.

The page side is :mod:`server.http.push` (the "notify this browser" button of
the player's page, its script ``static/push.js`` and the service worker
``static/push-worker.js``).
"""
