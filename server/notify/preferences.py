"""A player's mail preference, applied to the mails of every seat tied to them.

A seat followed by a signed-in player belongs to that player
(``seats.player_id``); the player's ``mail_pref`` then decides its mails:

- ``turn``: as any seat, a mail for every turn;
- ``digest``: no turn mails nor reminders; one mail a day lists every game
  waiting for the player (:mod:`server.notify.digest`); results still come;
- ``none``: no mail about the player's games at all.

Answers to the player's own mails (confirmations, refusals, answers to
commands) always go. A seat without a player keeps the seat's own rules.
The mail gate (:mod:`server.mail.gate`) asks this module at queue time and
again when a mail is sent, so a preference changed in between holds.
"""

from __future__ import annotations

from server.store.base import Store
from server.store.records import Seat

#: The mails a daily digest replaces: those that only say "it is your turn".
DIGESTED = frozenset({"turn", "reminder"})
#: Why each preference withholds a mail.
REASONS = {
    "digest": "the player reads a daily digest instead",
    "none": "the player asked for no mail about their games",
}


def withheld_by_preference(store: Store, seat: Seat, kind: str) -> str | None:
    """Why the preference of ``seat``'s player withholds a mail ``kind``, or ``None``.

    ``kind`` is never an answer to the player's own mail (the gate lets those through).
    """
    if seat.player_id is None:
        return None
    player = store.player(seat.player_id)
    preference = None if player is None else player.mail_pref
    if preference == "none" or (preference == "digest" and kind in DIGESTED):
        return REASONS[preference]
    return None
