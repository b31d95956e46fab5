"""The Foreign King (Belgium, 1831): factories, citizens, parliament and King Leopold.

Engine id ``foreign-king``, 2-4 players, no options (contract section 4.3).

Modules (the layout of :mod:`engines.base`): :mod:`.engine` (the interface,
dispatching moves), :mod:`.board` (the map of Belgium and the fixed
quantities), :mod:`.position` (a new game and positions), :mod:`.rules`
(turns, rounds, the turn-order track, the end), :mod:`.notation`; the game's
own: :mod:`.actions` (the action table), :mod:`.moving` (moving citizens),
:mod:`.scoring` (the King's scoring and the final scoring), :mod:`.state`
(small queries on a state), :mod:`.checks` (shape checks of move fields) and
:mod:`.words` (the game in words: moves as sentences, prompts, the move questions). The map
(borders and frontiers as lines, names as the board prints them) is in :mod:`.board`, which
also gives :meth:`~engines.base.Engine.board_data`.

Turns
    Seat order is the turn order with 2 players (seat 0 starts); with 3-4
    players the turn order is drawn from the seed and the first seat of
    ``turn_order`` starts. Starting coins are 5, 6, 7 and 8 by turn-order
    position. On a turn a player may take a ``loan`` or ``repay`` one (each
    its own move, the turn goes on), then plays exactly one main action,
    moving their figure onto it. A decision that is not a regular turn is
    ``pending`` (``{"seat", "kind", ...}``) and ``to_move`` is the deciding
    seat: ``move_citizens`` (a move of citizens made step by step is open:
    ``{"from", "paths"}``, see :mod:`engines.foreign_king.moving`),
    ``bring_parliament``, ``deactivate``, ``virtual`` (2 players, ``{"steps"}``
    still owed), ``set_position`` (end of a round with a turn-order change)
    and ``finish`` (the final repay window).

Legal moves
    Every outcome is reachable from listed moves, each listed once: moving
    citizens is listed step by step (a first ``step``, then further steps or
    ``end``), the virtual player's steps one at a time, and the King one route
    per end province and length. ``apply`` also accepts the whole move at
    once: several citizens with any routes (one line of notation, one mail),
    any route of the King, several virtual steps.

State
    The contract's fields (``provinces`` with all nine provinces, ``king``,
    ``parliament``, ``actions``, ``players``, ``virtual``, ``stock``,
    ``turn_order``, ``round``, ``pending``) plus ``final`` (the end-of-game
    points by owner and category, ``null`` while running) and internal fields
    the view leaves out: ``rng``, ``options``, ``turn_index``,
    ``order_changes`` (seats that chose a turn-order change this round, in
    order), ``skips``, ``ending`` (``"king"``, ``"factories"``,
    ``"stalled"`` or ``"rounds"`` once the end is triggered) and ``result``. The view adds
    ``current``: the seat whose turn it is. Nothing else is hidden.

Result
    ``{"winners": [seats], "scores": {"0": vp, ...}, "reason": text,
    "virtual_wins": bool, "virtual_score": vp or null, "final": {...}}``. When
    the virtual player (2 players) has the most points and wins the tie-break,
    ``virtual_wins`` is true and ``winners`` lists only the seats sharing the
    win with it (usually none: ``"winners": []``).

Notation (lower case; ``|`` separates citizens, ``,`` virtual steps)::

    build textile liege          {"action": "build_factory", "kind": "textile",
                                  "province": "liege"}
    place namur 3                {"action": "place_citizens", "province": "namur", "count": 3}
    move namur: liege | hainaut west-vlaanderen | supply
                                 {"action": "move_citizens", "from": "namur", "paths":
                                  [["liege"], ["hainaut", "west-vlaanderen"], ["supply"]]}
    step namur liege             {"action": "step", "from": "namur", "to": "liege"}
    step namur supply            {"action": "step", "from": "namur", "to": "supply"}
    end                          {"action": "end_move"}
    parliament supply            {"action": "parliament", "from": "supply"}
    parliament namur             {"action": "parliament", "from": "namur"}
    coins                        {"action": "take_coins"}
    king namur liege             {"action": "king", "path": ["namur", "liege"]}
    queen place namur 3          {"action": "queen", "copy": {"action": "place_citizens",
                                  "province": "namur", "count": 3}}
    turn-order                   {"action": "turn_order"}
    loan                         {"action": "loan"}
    repay                        {"action": "repay"}
    bring yes                    {"action": "bring_parliament", "accept": true}
    bring no                     {"action": "bring_parliament", "accept": false}
    deactivate 0                 {"action": "deactivate", "factory": 0}
    deactivate none              {"action": "deactivate", "factory": null}
    virtual place liege, move liege namur
                                 {"action": "virtual", "steps": [{"place": "liege"},
                                  {"move": ["liege", "namur"]}]}
    position 0                   {"action": "set_position", "position": 0}
    finish                       {"action": "finish"}

Decisions
    - Loans and repayments are made before the main action (the main action
      ends the turn) and, for repayments, in the final window. The window is
      offered only when the active player can repay (a loan and 4 francs).
    - "An action you cannot carry out" is judged with the coins in hand: to
      pay for it with a loan, take the loan first. A player who cannot carry
      out any action even after every possible loan is skipped (practically
      impossible); if every seat is skipped in a row the game ends
      (``"stalled"``). The bank's money is unlimited.
    - Round limit: the rulebook's game ends only through the King or the
      factories, so players who never move the King (taking coins, placing
      citizens and moving them back to the supply) could play forever. The
      game therefore ends after round 100 (``ROUND_LIMIT``; random games
      end within 40): when its last turn is over the final scoring follows
      at once (``ending`` ``"rounds"``), with no turn-order choice and no
      repay window (loans can be repaid on one's own turns before). A
      position's ``round`` is 1 to 100.
    - A citizen's path crosses borders one at a time, never enters a
      province twice nor returns to its start (like the King), and goes back
      to the supply only straight from its province (``[["supply"]]``).
    - Moving citizens step by step follows the rulebook's sentences: the
      first ``step`` (free) chooses the action; each further step (1 franc,
      paid at once from the francs in hand, no loan while the move is open)
      moves another citizen from the same province or a moved citizen one
      province on. Where several moved citizens stand in the province a step
      starts from, the one moved last that may enter the target goes on. The
      move ends with ``end``, or by itself when no further step is possible
      or affordable. Step by step or whole, the same outcomes are legal.
    - The King never enters a province twice in one action, nor returns to
      his starting province. From his portrait he is put into exactly one
      province (free, the marker falls 1) and moves no further that turn. His
      marker stops at 0.
    - The King's mover is the active player, also when copying via the Queen.
      Parliamentarians may be brought only when the King's province holds a
      citizen (only then is it scored). A brought parliamentarian becomes a
      citizen of the province. Only one player brings: the first who accepts.
    - Without a majority the mover may deactivate one *active* factory.
    - Moves are checked completely by ``apply``: a missing, unknown or
      malformed field is an ``IllegalMove`` (rule ``shape``), like the schema.
    - The Queen copies an action occupied by another player's figure (never
      the Queen, never the action the player's own figure leaves); she costs
      2 francs on top of the copied action's costs.
    - Turn order: ``position`` is the new index in ``turn_order`` (0 =
      first); the other markers keep their order. Several choosers (the
      action and the Queen copying it) choose in the order they chose the
      action. Figures stay on the table between rounds, but only a choice
      made in this round moves a marker at the round's end.
    - Virtual player (2 players): 16 citizens in an unused colour, one marking
      its score, so 15 in ``virtual.supply``. It scores provinces like a
      player and counts for control and for "the second-most points" of the
      game end, but its own points never trigger virtual steps. Virtual steps
      are ``place`` (from its supply) or ``move`` (to a neighbouring
      province, never back to its supply); a move may carry up to the owed
      number of steps and the rest stays pending. Its end bonus for the most
      provinces uses the same count as the players (factories count extra).
    - The game end triggered during a turn lets the turn finish (bringing,
      scoring, deactivating, virtual steps), then the repay window. Both end
      conditions are checked when the turn ends; as points only rise and the
      King's marker only falls this equals checking at once.
    - "Every factory inactive" needs all 10 factories built and inactive.
    - Final scoring: a category whose best count is 0 awards nothing; ties
      split the points evenly, rounded down. Unpaid loans may make a score
      negative. Winner: most points, then most
      royal orders (the virtual player has none), else a shared win.
    - Positions: keys left out default to the start of a game (no citizens,
      King on his portrait at 30, coins by turn order, turn order = seat
      order, supplies and stock computed from the pieces in play; a given
      supply or stock must agree). ``current`` and ``final`` of a view are
      ignored. A position cannot have a pending decision, cannot already meet
      an end condition, and its seat to move must be able to act; a turn-order
      change at the end of its first round is not carried over.
"""

from engines.foreign_king.engine import ForeignKingEngine

__all__ = ["ForeignKingEngine"]
