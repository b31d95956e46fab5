"""After a game: where the computer would have played differently.

When a game with a person at a seat has ended, ``turnpost worker`` looks at
every move a person made (:func:`analyse`): from the same position, knowing
only what that seat knew (the search reads the state through the engine's
``determinize`` for the seat, as a hint does), what would a level-3 bot
(:data:`ANALYSIS_LEVEL`) have played? The moves where its turn differs are
kept (:class:`~server.store.records.Analysis`) and shown on the game's page
and in the API (``GET /api/v1/games/{id}/analysis``), each with the position
to look at in the replay.

It runs in a thread of its own in the worker (:func:`run_analyses`), and with
``TURNPOST_BOTS=server`` in each process of the web server too (the search
in one of gevent's real threads, :func:`~server.cooperative.offload`), never
in a web request: a game takes a level-3 search per move, about half a
second each. Of several workers, the one that claims a game analyses it (the claim
the bots use, :meth:`~server.store.base.GameStore.claim_bot_turn`), and the
first analysis kept is the one shown. A search is seeded from the game and
the move's number, so an analysis can be made again and gives the same.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass

from engines.base import Engine, IllegalMove, Move, State
from engines.search import Mcts
from server.cooperative import offload
from server.errors import TurnpostError
from server.games.bots import canonical_state, claim_game, turn_seed, wait_unless_stopped
from server.games.clock import utcnow
from server.games.game import Game
from server.games.service import GameService
from server.phrases import render
from server.store.records import Analysis, Difference

logger = logging.getLogger(__name__)

#: The level of the bot whose turns a game's moves are compared with.
ANALYSIS_LEVEL = 3
#: Games one round looks at.
ROUND_GAMES = 5
#: Seconds a worker's claim of a game to analyse lasts: far more than the longest game
#: takes (a few hundred moves at most 1.5 s of CPU each); a worker that died is replaced.
CLAIM_SECONDS = 30 * 60
#: The longest the analyses wait between two looks for finished games.
WAIT_SECONDS = 10.0


def suggested_turn(engine: Engine, state: State, seat: int, seed: int) -> list[Move]:
    """The decisions of the turn a level-:data:`ANALYSIS_LEVEL` bot of ``seat`` plays from
    ``state`` (none when ``seat`` is not the only seat to move)."""
    return Mcts(ANALYSIS_LEVEL).turn(engine, canonical_state(state), seat, seed)


def joined(engine: Engine, state: State, seat: int, turn: list[Move]) -> Move:
    """The decisions ``turn`` as one move where the game joins them, else the first."""
    try:
        return engine.join_turn(state, seat, turn)
    except IllegalMove:  # one decision, or a turn that pauses (a market day)
        return turn[0]


def analyse(games: GameService, game: Game, stop: threading.Event | None = None) -> Analysis | None:
    """Where a level-3 bot would have played differently from the people of the finished
    ``game``, move by move; ``None`` if ``stop`` was set meanwhile.

    A logged move may be a whole turn or one decision of it (API and mail
    clients may send either): it counts as the bot's when it is written as
    the bot's whole turn or as its first decision. Under gevent each search
    runs in a real thread, and ``stop`` abandons it (:class:`~server.cooperative.Abandoned`).
    """
    engine = game.engine
    people = {seat.seat for seat in game.seats if seat.bot is None}
    states = games.states(game)  # a takeback entry goes back to an earlier one
    differences: list[Difference] = []
    for logged in games.store.moves(game.id):
        if stop is not None and stop.is_set():
            return None
        if logged.kind != "move" or logged.seat not in people:
            continue
        state = states[logged.seq - 1]
        seed = turn_seed(game, logged.seat, "analysis", logged.seq - 1)
        turn = offload(suggested_turn, engine, state, logged.seat, seed, stop=stop)
        suggested = joined(engine, state, logged.seat, turn) if turn else None
        writings = {engine.format(move) for move in (suggested, *turn[:1]) if move}
        if suggested is not None and logged.notation not in writings:
            differences.append(Difference(logged.seq, logged.seat, logged.move, suggested))
    return Analysis(game.id, utcnow(), differences)


def analyse_due(games: GameService, holder: str, stop: threading.Event) -> int:
    """Analyse the finished games waiting for it that this worker claims (until ``stop``);
    how many were analysed. A game that cannot be replayed gets an empty analysis
    (``differences`` ``None``), so it is not tried again."""
    done = 0
    for game_id in games.store.games_to_analyse(ROUND_GAMES):
        if stop.is_set() or not claim_game(games, game_id, holder, CLAIM_SECONDS):
            continue
        try:
            analysis = _analysis_of(games, game_id, stop)
            if analysis is not None:
                with games.store.write():
                    games.store.save_analysis(analysis)
                done += 1
        finally:
            with games.store.write():
                games.store.release_bot_turn(game_id, holder)
    return done


def _analysis_of(games: GameService, game_id: str, stop: threading.Event) -> Analysis | None:
    """:func:`analyse` of ``game_id``, or an empty one for a game that cannot be replayed."""
    game = games.load(game_id)
    try:
        return analyse(games, game, stop)
    except (IllegalMove, TurnpostError) as error:
        logger.warning("the game %s cannot be analysed: %s", game_id, error)
        return Analysis(game_id, utcnow(), None)


def run_analyses(service: Callable[[], GameService], stop: threading.Event, wait: float) -> None:
    """Analyse finished games until ``stop``: round after round while some wait, else as
    soon as the database changes (at the latest every ``wait`` seconds)."""
    games = service()
    holder = secrets.token_hex(8)
    seen = games.store.wait_for_change(None, 0)
    while not stop.is_set():
        if analyse_due(games, holder, stop):
            continue
        seen = wait_unless_stopped(games.store, seen, wait, stop)


@dataclass(frozen=True)
class Note:
    """A move where the computer would have played differently, in words for a page."""

    seq: int
    seat: int
    #: The move played and the computer's turn, each in notation and in a sentence.
    played: str
    played_words: str
    suggested: str
    suggested_words: str


@dataclass(frozen=True)
class Notes:
    """What the game's page and the API show of a game's analysis (:func:`notes_of`)."""

    #: ``not_over`` (the game runs), ``waiting`` (the worker has not analysed it yet),
    #: ``ready`` or ``none`` (never analysed: it ended before Turnpost analysed games,
    #: cannot be replayed, or only bots played).
    status: str
    notes: list[Note]
    #: Whether each seat reads only the notes on its own moves (a game that hides something).
    own_only: bool = False


def notes_of(games: GameService, game: Game, seat: int | None, language: str = "en") -> Notes:
    """The analysis of ``game`` as ``seat`` (``None``: anyone) may read it, with each
    move in words in ``language`` (its sentence and the computer's, made from the position).

    In a game that hides something, a seat reads only the notes on its own
    moves: a suggestion may name what was in its hand.
    """
    if game.status != "finished":
        return Notes("not_over", [])
    analysis = games.store.analysis(game.id)
    if analysis is None:
        has_person = any(row.bot is None for row in game.seats)
        return Notes("waiting" if has_person else "none", [])
    if analysis.differences is None:
        return Notes("none", [])
    private = bool(game.engine.hidden_information)
    shown = [item for item in analysis.differences if not private or item.seat == seat]
    return Notes("ready", _in_words(games, game, shown, language), private)


def _in_words(
    games: GameService, game: Game, differences: list[Difference], language: str
) -> list[Note]:
    """The notes of ``differences``: the logged move's sentence and the suggestion's, said
    from the position before the move (one replay up to the last of them)."""
    if not differences:
        return []
    by_seq = {item.seq: item for item in differences}
    names = [row.name for row in game.seats]
    engine = game.engine
    states = games.states(game, upto=max(by_seq))
    notes = []
    for logged in games.store.moves(game.id, upto=max(by_seq)):
        difference = by_seq.get(logged.seq)
        if difference is not None:
            state, suggested = states[logged.seq - 1], difference.suggested
            after = engine.apply(state, logged.seat, suggested)
            words = render(
                engine.describe(state, after, logged.seat, suggested, names), names, language
            )
            played = render(logged.description or logged.notation, names, language)
            notes.append(
                Note(
                    logged.seq,
                    logged.seat,
                    logged.notation,
                    played,
                    engine.format(suggested),
                    words,
                )
            )
    return notes
