"""King of Siam (Peer Sylvester, histogame 2007): the ``king-of-siam`` engine.

Contract section 4.2. Two to four players (four: partners, seats 0+2 against
1+3) play action cards to give one of three factions (``rama``, ``lao``,
``malay``) control of Siam's provinces, and gather followers to profit from
the faction that rules at the end. The holder of the lowest playing-aid card
starts (card 1 is not dealt in some 2-player games: then card 2 starts); play
goes up the seats (clockwise).

Modules (the layout of :mod:`engines.base`): :mod:`.engine`
(:class:`KingOfSiamEngine`: setup, turns, automatic passes, views),
:mod:`.board` (the maps), :mod:`.position` (positions), :mod:`.rules`
(turns, power struggles, the end), :mod:`.notation`, :mod:`.words` (moves,
prompts, questions and results in the game's words); the game's own:
:mod:`.cards` (the eight cards) and :mod:`.steps` (cards played in steps).

State
    The contract's shape::

        {"map", "provinces": {p: {"followers", "control", "king_marker"}},
         "struggle_order", "contested", "pool", "control_history",
         "players": [{"seat", "aid_card", "team", "followers", "cards_left",
                      "top_card", "hand"}],
         "passes_in_a_row", "pending"}

    ``pending`` is null at the start of a turn, else the decision the seat to
    move still owes in its turn (public, like the card on the table):
    ``{"seat": s, "kind": "take"}`` after its card, or the next step of a card
    played in steps, with the card and its fields so far:
    ``{"seat": s, "kind": "place", "card": "khon_thai", "place": {...}}`` or
    ``{"seat": s, "kind": "swap", "card": "one_vs_one", "give": {...}}`` /
    ``{..., "card": "two_vs_one", "two": {...}}``. Besides, the state holds
    ``options``; ``current_seat`` (the seat to play); ``last_card``
    (the previous action card of the game with its fields, for the "no
    undo" rule); ``card_recency`` (seats that played a card, least recent
    first, for the tie-breaks); ``auto_passed`` (seats passed automatically
    by the last :meth:`apply`, in order) and ``rng``. The views drop ``rng``,
    ``current_seat`` and every ``hand``, and add ``hand`` (the caller's) at
    the top for a seat's view. Chance is used only in ``setup``.

Moves
    A turn is ``{"action": "pass"}`` or an action card and its take. The
    whole turn is one move, ``{"action": "play", "card": c, <card fields>,
    "take": {"province": p, "faction": f}}`` (``take`` null only when no
    province holds a follower), or a sequence of decisions by the same seat
    (contract section 2), each one logged move:

    1. the card without ``take``: ``{"action": "play", "card": c, <card
       fields>}``. Khon Thai, 1 vs 1 and 2 vs 1 may stop after a first step:
       Khon Thai with fewer factions than the pool holds, 1 vs 1 with
       ``give`` alone, 2 vs 1 with ``two`` alone;
    2. the steps still pending, one move each: ``{"action": "place",
       "faction": f, "province": p}`` (the next Khon Thai faction, any order)
       or ``{"action": "swap", "province": p, "faction": f}`` (the follower on
       the other side of the swap);
    3. the take: ``{"action": "take", "province": p, "faction": f}``, pending
       after every card that leaves a follower on the board (none is pending,
       and the turn ends, when no province holds one).

    The card is carried out once all its fields are known; a step is legal
    when some legal execution of the card goes on from it. ``legal_moves``
    lists one move per outcome and no more: at a turn ``pass`` and the card
    plays without take, Khon Thai, 1 vs 1 and 2 vs 1 by their first step
    only; at a pending decision its answers. Every outcome of the whole-turn
    move is reached by listed moves, and the whole-turn move, the card alone
    and every step are accepted in any order of their symmetric parts (see
    Decisions). Card fields, and their form when the card can do nothing:

    ===============  ========================================================
    maharacha        ``"swap": [p1, p2], "king": p1`` / ``[]``, ``null``
    khon_thai        ``"place": {"rama": p, "lao": q, "malay": r}``: exactly
                     the factions with followers in the pool (``{}``: none)
    one_vs_one       ``"give": {"province", "faction"}, "get": {...}``:
                     those two followers change places / both ``null``
    two_vs_one       ``"two": {"province": p1, "factions": [f, g]},
                     "one": {"province": p2, "faction": h}`` / both ``null``;
                     ``"factions": [f]`` for a 1-for-1 swap (see Decisions)
    rama lao malay   ``"place": [p, q]`` (``[p]`` with one follower left in
                     the pool, ``[]`` with none or no province allowed)
    ===============  ========================================================

Notation (case-insensitive; ``;`` separates the card from the take; the card
alone, a step or a take alone are a move each)::

    pass
    maharacha swap korat sukhothai king korat; take rama kedah
    maharacha none; take rama kedah
    khon_thai rama korat lao kedah malay korat; take lao kedah
    khon_thai lao kedah; take none
    khon_thai none; take malay korat
    one_vs_one rama korat with lao kedah; take malay chiang-mai
    one_vs_one none; take malay chiang-mai
    two_vs_one rama lao korat with malay sukhothai; take rama korat
    two_vs_one rama korat with malay sukhothai; take rama korat
    two_vs_one none; take rama korat
    rama korat sukhothai; take lao kedah
    lao chiang-mai; take lao kedah
    malay none; take rama kedah
    rama korat sukhothai                       (the card alone: the take follows)
    one_vs_one none
    take lao kedah
    khon_thai rama korat                       (first step of Khon Thai)
    place lao kedah
    one_vs_one rama korat                      (first step of 1 vs 1)
    two_vs_one rama lao korat                  (first step of 2 vs 1)
    swap malay sukhothai

``one_vs_one rama korat with lao kedah`` is ``"give": {"province": "korat",
"faction": "rama"}, "get": {"province": "kedah", "faction": "lao"}``;
``two_vs_one rama lao korat with malay sukhothai`` swaps a Rama and a Lao
follower of korat with a Malay follower of sukhothai; ``two_vs_one rama
korat with malay sukhothai`` swaps one follower each.

Decisions
    - "As far as legally possible" (EN section 5: "It is permitted to play an
      action card which is wholly or partly illegal to execute. In such a
      case, the action of the card is executed as far as legally possible."):
      Khon Thai places one follower of every faction still in the pool; a
      faction card places min(2, pool) followers if any province is allowed,
      else none; Maharacha does nothing with fewer than two face-up tiles
      without a King marker; 1 vs 1 swaps two followers of different
      provinces, else does nothing. 2 vs 1 swaps two followers of a province
      with one of an adjacent province; where no such swap is legal (no
      province holds two followers with a follower next door, or each one
      would undo the previous 2 vs 1), the fullest legal execution is a
      1-for-1 swap between adjacent provinces (``"factions": [f]``), and only
      where that is impossible too does the card do nothing. Moving followers
      without anything in return is not a swap, so never an execution.
      ``legal_moves`` lists only these maximal executions and ``apply``
      refuses anything less, naming the rule.
    - One order per symmetric move: plays that differ only in the order of
      symmetric parts have one outcome and are all accepted, but listed once,
      in canonical order (map order of provinces, then faction order
      rama, lao, malay): the two Maharacha tiles, the two sides of a 1 vs 1
      (and of a 1-for-1 2 vs 1), the two 2 vs 1 factions, the ``place`` list
      of a faction card. Khon Thai and the swaps are listed by their first
      step; the Khon Thai factions are listed in faction order and accepted
      in any order. ``last_card`` records the canonical form.
    - Steps: a first step is accepted when some legal execution goes on from
      it (after the very last card: some winning one), so a listed step never
      leads to a dead end; the card changes nothing on the board until its
      last step, and the take is always a decision of its own after the card.
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
      played only if, after it and its take, the remaining struggles decided
      as the board stands (nobody can act any more) make the player or the
      partner a winner. Its steps and its take are listed (and accepted)
      only where a winning completion remains. A holder with no winning play
      can only pass, so passes automatically.
    - No game goes on forever, so no length limit is needed: every turn
      plays one of the finite action cards or passes, and a round of passes
      decides a struggle, of which there are as many as provinces.
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
      and ``ranking`` (seats best first), ``second`` (the second-ranked faction
      used in ties, or null), ``decided_by`` (the rule that separated the best:
      ``most``, ``second_faction``, ``last_card``, or ``shared`` when none did)
      and ``tied`` (the seats that rule was applied to; empty for ``most``).
      ``scores``: followers of the ruling faction, or complete sets in a colony
      (with 4 players the team's sets). ``reason`` says it without names.
    - ``from_position`` defaults: empty provinces, a full hand, no followers,
      the pool holding the remainder, the struggle order starting with the
      decided provinces (in ``control_history`` order) then map order,
      ``card_recency``: the seats that played, in seat order, and the
      lowest aid card to move; aid cards 1, 2, 3 (4) by seat. A seat with
      ``cards_left`` below 8 needs its ``hand``. Decided tiles must open the
      struggle order, in history order. A posted ``auto_passed`` is checked,
      then replaced by the automatic passes ``from_position`` itself makes.
      ``pending`` (default null) may be a take of the seat to move that
      played the last card (no pass since) or a legal step of a card in its
      hand.
"""

from engines.king_of_siam.engine import KingOfSiamEngine

__all__ = ["KingOfSiamEngine"]
