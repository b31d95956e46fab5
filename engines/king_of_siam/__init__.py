"""King of Siam (Peer Sylvester, histogame 2007): the ``king-of-siam`` engine.

Contract section 4.2. Two to four players (four: partners, seats 0+2 against
1+3) play action cards to give one of three factions (``rama``, ``lao``,
``malay``) control of Siam's provinces, and gather followers to profit from
the faction that rules at the end. The holder of the lowest playing-aid card
starts; play goes up the seats (clockwise).

Package layout: :mod:`.maps` (map data), :mod:`.cards` (the eight cards),
:mod:`.rules` (turns, struggles, the end), :mod:`.position` (positions),
:mod:`.notation` and :mod:`.engine` (:class:`KingOfSiamEngine`).

State
    The contract's shape::

        {"map", "provinces": {p: {"followers", "control", "king_marker"}},
         "struggle_order", "contested", "pool", "control_history",
         "players": [{"seat", "aid_card", "team", "followers", "cards_left",
                      "top_card", "hand"}],
         "passes_in_a_row"}

    plus ``options``; ``current_seat`` (the seat to play); ``last_card``
    (the previous action card of the game with its fields, for the "no
    undo" rule); ``card_recency`` (seats that played a card, least recent
    first, for the tie-breaks); ``auto_passed`` (seats passed automatically
    by the last :meth:`apply`, in order) and ``rng``. The views drop ``rng``,
    ``current_seat`` and every ``hand``, and add ``hand`` (the caller's) at
    the top for a seat's view. Chance is used only in ``setup``.

Moves
    ``{"action": "pass"}`` or ``{"action": "play", "card": c, <card fields>,
    "take": {"province": p, "faction": f}}`` (``take`` null only when no
    province holds a follower). Card fields, and their form when the card
    can do nothing:

    ===============  ========================================================
    maharacha        ``"swap": [p1, p2], "king": p1`` / ``[]``, ``null``
    khon_thai        ``"place": {"rama": p, "lao": q, "malay": r}``: exactly
                     the factions with followers in the pool (``{}``: none)
    one_vs_one       ``"give": {"province", "faction"}, "get": {...}``:
                     those two followers change places / both ``null``
    two_vs_one       ``"two": {"province": p1, "factions": [f, g]},
                     "one": {"province": p2, "faction": h}`` / both ``null``
    rama lao malay   ``"place": [p, q]`` (``[p]`` with one follower left in
                     the pool, ``[]`` with none or no province allowed)
    ===============  ========================================================

Notation (case-insensitive; ``;`` separates the card from the take)::

    pass
    maharacha swap korat sukhothai king korat; take rama kedah
    maharacha none; take rama kedah
    khon_thai rama korat lao kedah malay korat; take lao kedah
    khon_thai lao kedah; take none
    khon_thai none; take malay korat
    one_vs_one rama korat with lao kedah; take malay chiang-mai
    one_vs_one none; take malay chiang-mai
    two_vs_one rama lao korat with malay sukhothai; take rama korat
    two_vs_one none; take rama korat
    rama korat sukhothai; take lao kedah
    lao chiang-mai; take lao kedah
    malay none; take rama kedah

``one_vs_one rama korat with lao kedah`` is ``"give": {"province": "korat",
"faction": "rama"}, "get": {"province": "kedah", "faction": "lao"}``;
``two_vs_one rama lao korat with malay sukhothai`` swaps a Rama and a Lao
follower of korat with a Malay follower of sukhothai.

Decisions
    - "As far as legally possible": Khon Thai places one follower of every
      faction still in the pool; a faction card places min(2, pool) followers
      if any province is allowed, else none; Maharacha does nothing with
      fewer than two face-up tiles without a King marker. A swap is one
      action: 1 vs 1 and 2 vs 1 are done completely or (when no such swap is
      possible) not at all, never as a smaller swap. ``legal_moves`` lists
      only these maximal executions and ``apply`` refuses anything less,
      naming the rule.
    - Moves that differ only in the order of symmetric parts are all legal
      and all listed: ``swap`` in either order, 1 vs 1 with ``give`` and
      ``get`` exchanged, the two 2 vs 1 factions and the ``place`` list of a
      faction card in either order.
    - Rama/Lao/Malay: allowed provinces are the open (uncontrolled) ones
      adjacent to a province the faction controls, or adjacent to its home
      province while the home is open or its own. The home province itself
      is allowed only when adjacent to such a province (the rule says
      "adjacent"). Khon Thai may use any open province.
    - No undo: the restriction looks at the previous action card of the
      whole game, whoever played it; passes and decided struggles in between
      do not lift it. A swap of two followers of the same faction is its own
      undo, so it cannot be repeated right away.
    - Last card: when exactly one action card is left in all hands, it may be
      played only if, after it, the remaining struggles decided as the
      board stands (nobody can act any more) make the player or the partner
      a winner. Otherwise its holder can only pass, so passes automatically.
    - Automatic passes happen inside ``apply`` (and ``from_position``) for
      every seat in turn whose only legal move is pass; they count as passes,
      may decide several struggles and always end at a seat with a card to
      play or at the end of the game.
    - Setup: aid cards are dealt from 1-3 (1-4 with four players), so in a
      2-player game card 1 may be missing and the lower card starts. The left
      neighbour of card 4 is the next seat (seat + 1, clockwise). The random
      followers are drawn from the bag left after the aid-card followers and
      the home pairs. The King marker stays on its tile after the struggle.
    - The British end the game as soon as they hold 4 provinces (map data
      ``colony_at``). Tie-breaks: the second-ranked faction is ranked like the
      first (provinces, then latest control) and is skipped when the other
      two never controlled a province. "The tied player who played a card last
      loses" is applied until one is left: the tied player whose last card
      lies furthest back wins (never played counts as furthest back). In a
      colony the latest card wins (never played counts as earliest). Players
      (or teams) no rule separates share the win.
    - ``result`` adds ``ruling`` (faction or ``british``), ``faction_ranking``
      (empty for a colony), ``provinces`` (provinces per faction and british)
      and ``ranking`` (seats best first). ``scores``: followers of the ruling
      faction, or complete sets in a colony (with 4 players the team's sets).
    - ``from_position`` defaults: empty provinces, a full hand, no followers,
      the pool holding the remainder, the struggle order starting with the
      decided provinces (in ``control_history`` order) then map order,
      ``card_recency``: the seats that played, in seat order, and the
      lowest aid card to move; aid cards 1, 2, 3 (4) by seat. A seat with
      ``cards_left`` below 8 needs its ``hand``. Decided tiles must open the
      struggle order, in history order. A posted ``auto_passed`` is checked,
      then replaced by the automatic passes ``from_position`` itself makes.
"""

from engines.king_of_siam.engine import KingOfSiamEngine

__all__ = ["KingOfSiamEngine"]
