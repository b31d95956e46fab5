"""How players hear of their turns beyond the game change itself.

- :mod:`server.notify.preferences`: a player's mail preference (every turn, a
  daily digest, or none) decides the mails of the seats tied to them;
- :mod:`server.notify.presence`: a seat that moved on the page and still has
  the next decision of its turn is at the table: it is not told of it at once;
- :mod:`server.notify.digest`: the daily digest of every game waiting for a player.

Browsers a player allowed get pushes (:mod:`server.push`).
"""
