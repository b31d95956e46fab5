"""Bots for every game: a random player and information-set Monte Carlo tree search.

Pure Python over the engine interface (:mod:`engines.base`, "Search"): no
server, database or I/O. :func:`make_bot` turns a seat's bot spec into a
:class:`Bot`, whose :meth:`~Bot.turn` answers the moves of its seat's turn:

- :mod:`.bots`: :class:`RandomBot`, :class:`Mcts` (levels 1-5, budgets in moves
  applied, deterministic for a seed) and the rule that a bot sees only what
  its seat may know;
- :mod:`.mcts`: the tree search (UCT, and ISMCTS over determinized states);
- :mod:`.policies`: each game's playout policy.

``bench/bots.py`` measures their strength and speed (``docs/bots.md``).
"""

from engines.search.bots import LEVELS, Bot, Mcts, RandomBot, make_bot

__all__ = ["LEVELS", "Bot", "Mcts", "RandomBot", "make_bot"]
