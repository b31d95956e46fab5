"""Bangkok Klongs (Martin Schlegel, dlp 2010): boats, merchants and market days (CONTRACT 4.4).

Modules (the layout of :mod:`engines.base`): :mod:`.engine` (turn order,
views, result), :mod:`.board` (the layouts, one per board name, and what a
board allows), :mod:`.position` (positions), :mod:`.rules` (the placement
turn and its decisions), :mod:`.notation`; the game's own: :mod:`.market`
(market days and the end); and :mod:`.words` (the game in words: a sentence per
move, the result, what to decide now and the guided form's questions).

State
    The view is the contract's shape: ``board``, ``tiles`` (only tiles the
    caller can see), ``luk_phat`` (spaces moved, 0 = start space), ``market``,
    ``players`` (``seat``, ``score``, ``merchants`` off the board,
    ``move_cards``, ``inventory``, ``hand_size``), ``draw_pile`` (a count) and,
    for a seat, its ``hand``; plus ``options``, ``track`` (the points of the
    Luk Phat spaces), ``box`` (thieves sent back), ``first_round`` (seats yet
    to place their first boat), ``pending`` (the rest of a turn split into
    decisions, null otherwise; see :mod:`.rules`) and, tactical variant,
    ``draw_piles`` (``{"merchant": n, "plain": n}``). The internal state also keeps every
    hand in its ``players`` entry, ``draw_pile`` as the ordered tile list (top
    first), ``current`` (the placing seat), ``finished``,
    ``inventory_points``, ``rng`` and ``revealed`` (tile id -> seat: the boats
    in hands that every seat saw go there, a thief's loot kept in hand or the
    thief an overseer kept, until they are placed again; a search keeps them
    where they are when it redraws the unseen boats). ``market`` is described
    in :mod:`.market`.

Notation (case-insensitive; clauses after the merchant in any order)::

    place t50 r3c4 new                              a boat with a new merchant
    place t1 r3c5 none                              a neutral boat (or no merchant)
    place t20 r3c6 r7c2                             merchant taken back from r7c2
    place t50 r3c4 none relocate r2c2 r2c3 before   move card before placing
    place t63 r3c4 none steal r3c7 keep hand        thief, stolen boat to the hand
    place t64 r2c4 none steal r2c0 keep inventory   thief, stolen boat to the inventory
    place t66 r1c5 none remove-thieves              overseer, all thieves to the box
    place t66 r1c5 none remove-thieves keep r4c5    overseer, the thief on r4c5 to the hand
    place t12 r4c4 new draw plain                   tactical variant: draw from a pile
    relocate r2c2 r2c3                              move card first, then place (no relocate)
    place t50 r3c4 new relocate after               the boat to move is the next decision:
    relocate r3c4 r2c4                                move card after placing, ends the turn
    finish                                            or end the turn without it
    finish draw plain                               tactical variant: the pile, named last
    score L4-5 remove r3c4                          market day
    decline

The grammar (upper case: a tile id, a field, a merchant of ``new``, ``none``
or the field it is taken back from, a landing place)::

    place TILE FIELD MERCHANT [relocate FROM TO before|after | relocate after]
          [steal FIELD] [remove-thieves] [keep hand|inventory|FIELD]
          [draw merchant|plain]
    relocate FROM TO [draw merchant|plain]
    finish [draw merchant|plain]
    score LANDING remove FIELD
    decline

Turns in decisions
    ``legal_moves`` lists a turn as decisions of the same seat, each a logged
    move, so that every outcome is listed without every combination of its
    parts: ``relocate FROM TO`` first (then the placement), ``place ...
    relocate after`` (then ``relocate FROM TO`` or ``finish``), and in the
    tactical variant a placement naming no pile when there is a choice left
    (then ``relocate FROM TO draw P`` or ``finish draw P``). The whole-turn
    ``place`` move with ``relocate {from, to, when}`` and ``draw`` is accepted
    as before, except where a market day cuts the turn (see Decisions).

Decisions
    - Seat 0 is the youngest player and starts; play goes up the seats.
    - The first round is each seat's first placement: that boat goes on a
      start field and needs no neighbour. The 3-4 player start fields are the
      light and the dark ones (contract).
    - A placement may use its merchant spot for a new merchant while any are
      in supply; only once all are on the board may one be taken back from
      an own boat (``merchant`` = its field), which leaves that boat ownerless.
    - Move cards: a relocated boat must carry your merchant, and the
      sub-market limit of 3 applies to it like to a placement. ``after`` may
      move the boat just placed if it carries your merchant.
    - Market-day timing ("Zodra het Luk Phat fiche verplaatst wordt naar de
      velden Kleine Marktdag of Grote Marktdag vindt een waardering plaats"):
      the market day is held as soon as the placed boat's Luk Phat step
      reaches its space, after the boat's own effects and before the rest of
      the turn. A placement that reaches a market day therefore carries no
      relocation ``after`` and no ``draw`` (refused, rule ``market_day``);
      after a small market day the trigger finishes the turn as its next
      decision (``relocate`` with a card not yet played this turn, or
      ``finish``; ``draw`` in the tactical variant), which happens by itself
      when ``finish`` is its only choice. After the big market day only the
      inventory count follows: the rest of the turn is dropped. A Luk Phat
      boat advances the marker every time it is placed, also after a thief
      took it back into a hand.
    - Thief: stealing is optional. Any boat of the row may be taken (own,
      other players', neutral, thieves, cooks) except overseers and boats in
      a column holding an overseer. Its merchant returns to its owner. With
      ``keep inventory`` the placer draws, with ``keep hand`` not.
    - Overseer: removing thieves is optional but takes every thief of its
      column; ``keep`` names the one taken into the hand (no draw), without it
      all go to the box and the placer draws.
    - Thieves' baskets never count; several cooks in one block double once.
    - Market days ask only seats that can score; a seat that cannot would only
      decline, and removals never complete a landing place.
    - Small market day: two rounds from the trigger, one decision per seat
      and round; play resumes with the seat after the trigger.
    - Big market day removals ("een eigen of een neutrale boot"): the scorer's
      own boats and neutral boats, which are the boats with a printed merchant
      ("Boten met daarin een handelaar zijn neutraal"); a boat whose merchant
      spot is empty is neither, and other players' and special boats never.
      A decline holds until someone scores; after a scoring every seat may be
      asked again. The day ends when every seat that could score has declined
      since the last scoring, or nobody can score.
    - The hand is refilled to 4 (one boat in normal play); an empty pile gives
      nothing. Tactical variant: starting hands are the top 3 plain and top 1
      merchant boats in seat order; ``draw`` names a non-empty pile and only
      goes with a turn that draws; a placement may leave it out when a choice
      is left (two piles, or a move card to play), which makes the pile the
      next decision; a pile running out during a refill is made up from the
      other one.
    - A move card played first must leave a boat of the hand placeable; ``place
      ... relocate after`` needs a card and an own boat that can then move.
    - A seat without a legal placement (empty hand, or no allowed field even
      after a relocation) is passed over. When no seat can place, the big
      market day is held at once (no Luk Phat points), as if caused by the
      seat whose turn it was. So every game ends with a big market day.
    - No game goes on forever, so no length limit is needed: every turn
      places a boat from the hand, and boats come into hands only from the
      draw pile (which only shrinks), as a thief's loot or as a thief an
      overseer keeps; an overseer never leaves the board and a placed thief
      comes back only through an overseer, so those turns are few too.
    - Equal final scores share the win.
    - ``remove_thieves`` is only ever ``true`` (leave it out otherwise).
    - Positions: see :mod:`.position` for defaults; ``options``,
      ``track`` and ``draw_piles`` from a view are accepted (options must
      match, the others are ignored); the seat to move is passed over like
      in play if it cannot act; a ``pending`` decision must be the seat's to
      move (during a small market day, its trigger's ``finish``).
"""

from engines.bangkok_klongs.engine import BangkokKlongsEngine

__all__ = ["BangkokKlongsEngine"]
