"""Siam (Ferti, Didier Dhorbait): elephants against rhinos around three rocks.

Contract section 4.1. Seat 0 plays the elephants and moves first, seat 1 the
rhinos. The game ends when a rock is pushed off the 5x5 board; the nearest
animal behind it facing the push wins for its owner. A game that goes round
in circles is drawn (see Decisions).

Modules (the layout of :mod:`engines.base`): :mod:`.engine`
(:class:`SiamEngine`: turns, the result, views), :mod:`.board` (squares,
facings, pieces), :mod:`.position` (a new game and positions), :mod:`.rules`
(legal moves, pushes and the four actions), :mod:`.notation`.

State
    ``{"board": {"c3": {"kind": "rock"}, "a1": {"kind": "elephant", "facing": "N"}},
    "reserve": {"elephant": 5, "rhino": 5}, "ply": 0,
    "options": {"cross_rule": true, "exit_once": false},
    "exits": {"elephant": 0, "rhino": 0}, "last_push": null,
    "positions": {"...........###...........0": 1}, "outcome": null}``.
    ``exits`` counts each side's voluntary exits (variant B); ``last_push``
    is the last move's push, for drawing it: ``null`` when it pushed nothing,
    else ``{"direction": "N", "squares": ["b4", "b5"], "off": null}`` (the
    squares the pushed pieces now stand on, nearest the pusher first, and
    ``{"kind", "from"}`` of a piece pushed off the board). ``positions``
    counts each position since the last entry, exit or push (the position
    then included), by its key (:func:`.board.position_key`): 25 characters,
    a1 to e5 rank by rank (``.`` empty, ``#`` a rock, ``NESW`` an elephant
    facing that way, ``nesw`` a rhino), then the seat to move. ``outcome`` is
    ``null`` while the game runs, then ``{"winner", "mover", "rock",
    "direction", "animal"}`` (``animal``: the winning animal's square after
    the push), or ``{"draw": "repetition"}`` / ``{"draw": "ply_limit"}``.
    Siam has no chance and no hidden information, so the state
    holds no PRNG and every view is the same public view (everything but
    ``outcome``, which the result reports).

Notation (case-insensitive, any spacing between words)::

    enter a1 N        {"action": "enter", "to": "a1", "facing": "N"}
    move b2 b3 E      {"action": "move", "from": "b2", "to": "b3", "facing": "E"}
    rotate b2 S       {"action": "rotate", "at": "b2", "facing": "S"}
    exit a1           {"action": "exit", "from": "a1"}

Decisions
    - Cross rule: "the first two turns" of each player are plies 0 to 3. It
      forbids only the acting animal's destination (an ``enter`` or ``move``
      onto c1 or c5, pushing or not). Pieces pushed onto c1 or c5 by a push,
      and rotations or exits of an animal already there, are allowed.
    - An animal entering onto an occupied square is the pusher: it faces
      inward, perpendicular to the edge (either inward direction on a
      corner), and counts in the push like any pusher.
    - Moving onto an empty square may keep or change the facing freely.
      ``rotate`` must change the facing. An animal leaves the board only by
      ``exit`` (from an outer square, whatever its facing) or by being pushed.
    - Winner: walk back from the rock's last square against the push,
      through the pushed line to the pusher, skipping rocks and animals not
      facing the push. The pusher always faces the push, so there is always
      a winner; it may be the opponent of the mover.
    - ``legal_moves`` lists one move per outcome. Entering on an occupied
      square whose pushed line holds only animals of the entering kind facing
      the push, with a free outer square behind it, gives the same board as
      entering on that square, which alone is listed; both are legal.
    - Variant B (``exit_once``) limits the voluntary ``exit`` action to once
      per side; animals pushed off do not count. Variant A (other board side,
      4 animals) is not offered: the contract defines no option for it.
    - Draws (the rulebook has no end but a rock pushed off, so two players
      turning or stepping back and forth would play forever): the game is
      drawn when the same position (the board and the player to move) comes
      up for the third time since the last entry, exit or push, which all
      start the count again, or when 500 plies (moves) have been played
      without a rock leaving the board. A rock pushed off on the 500th ply
      still wins. Both end the game at once, like chess's fivefold rule
      rather than a claim. A draw has no winner: ``winners`` is empty, both
      ``scores`` are 0, and the result adds ``draw`` (``repetition`` or
      ``ply_limit``) instead of the push fields.
    - ``from_position`` accepts ``board`` (required), ``reserve`` (default: 5
      minus that kind's animals on the board), ``ply`` (0 to 499), ``to_move`` (a seat or
      a one-seat list), ``exits`` (default none used) and ``options`` (must
      equal the game's options, so that a view can be posted back; a view's
      ``last_push`` and ``positions`` are accepted and left out, as a position
      has no last move and counts only itself as seen). Given
      only ``to_move``, the ply is 4 or 5 (cross rule over); given neither,
      the ply is 4 and the elephants move. A position always has 3 rocks.
"""

from engines.siam.engine import SiamEngine

__all__ = ["SiamEngine"]
