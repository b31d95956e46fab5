"""Game records: a game as text to download and share, and such a text played into a new game.

A record is PGN-like: header lines ``[Name "value"]`` (values JSON-escaped,
one per line), a blank line, then one line per log entry::

    [Game "3f9a0c1b2d4e"]
    [Engine "siam"]
    [Seat0 "Ann"]
    [Seat1 "Bob"]
    [Options "{\\"cross_rule\\":true,\\"exit_once\\":false}"]
    [Seed "42"]
    [Created "2026-11-26T10:00:00.000000Z"]
    [Status "finished"]
    [Result "Ann wins: a rock left the board."]

    1. (0) enter a1 N
    2. (1) enter e5 S {conditional}

Each entry is its number (the log's ``seq``), the seat in parentheses and
the notation exactly as the public log shows it; a ``{comment}`` after it
says how it was played and is not read back. ``resign`` and ``forfeit``
entries, and ``takeback N`` (the move ``N`` taken back by agreement), are
written as they are logged.

The ``Seed`` (and a creator's ``Position``) are written only where they
reveal nothing: once the game is over, or in a game without chance (where
the seed decides nothing). A running game of chance is recorded without
them, and such a record cannot be played again (:func:`import_record`
says why).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engines import DETERMINISTIC, ENGINES, Engine, EngineError, OptionError
from engines.phrases import Words, english, phrase
from schemas.api import MAX_SEED
from server.errors import TurnpostError
from server.games.game import Game
from server.games.service import GameService, MoveRequest
from server.games.takebacks import take_back
from server.phrases import render
from server.store.records import LoggedMove

#: One header line: ``[Name "JSON string body"]``.
HEADER = re.compile(r'^\[([A-Za-z][A-Za-z0-9]*) ("(?:[^"\\]|\\.)*")\]$')
#: One entry line: ``12. (1) notation {comment}``.
ENTRY = re.compile(r"^(\d+)\. \((\d+)\) ([^{}]+?)(?: \{[^{}]*\})?$")
#: The entries that are no engine move, by their notation's first word.
NOT_MOVES = ("resign", "forfeit")
#: The most bytes of a record that is read.
MAX_RECORD_BYTES = 2_000_000

#: The language of a record's words (its result): English, as its headers.
RECORD_LANGUAGE = "en"


@dataclass(frozen=True)
class RecordEntry:
    """One entry of a record: its number, the seat that made it, its notation."""

    seq: int
    seat: int
    notation: str


@dataclass(frozen=True)
class Record:
    """A record as read: its headers and its entries, in order."""

    headers: dict[str, str]
    entries: list[RecordEntry]


def header(name: str, value: str) -> str:
    """One header line, its value quoted as a JSON string.

    >>> header("Seat0", 'Ann "the" Lee')
    '[Seat0 "Ann \\\\"the\\\\" Lee"]'
    """
    return f"[{name} {json.dumps(value, ensure_ascii=False)}]"


def reveals_nothing(game: Game) -> bool:
    """Whether the seed and a starting position may be shown: the game is over, or nothing in
    it is left to chance."""
    return game.status in ("finished", "aborted") or game.engine.chance == DETERMINISTIC


def entry_line(logged: LoggedMove) -> str:
    """One entry of a record: ``seq. (seat) notation``, ``{conditional}`` when the seat's
    conditional moves played it."""
    comment = " {conditional}" if logged.conditional else ""
    return f"{logged.seq}. ({logged.seat}) {logged.notation}{comment}"


def game_record(games: GameService, game: Game) -> str:
    """The text record of ``game`` as everyone may see it (see the module's documentation)."""
    row = game.row
    lines = [header("Game", game.id), header("Engine", game.engine.id)]
    lines += [header(f"Seat{seat.seat}", seat.name) for seat in game.seats]
    lines.append(header("Options", json.dumps(row.options, sort_keys=True)))
    if reveals_nothing(game):
        lines.append(header("Seed", str(row.seed)))
        if row.position is not None:
            lines.append(header("Position", json.dumps(row.position, sort_keys=True)))
    lines += [header("Created", row.created_at), header("Status", game.status)]
    if game.status in ("finished", "aborted"):
        lines.append(header("Ended", row.updated_at))
    if row.result is not None:
        names = [seat.name for seat in game.seats]
        result = game.engine.describe_result(row.result, names)
        lines.append(header("Result", render(result, names, RECORD_LANGUAGE)))
        lines.append(header("Winners", " ".join(map(str, row.result.get("winners", [])))))
    entries = [entry_line(logged) for logged in games.store.moves(game.id)]
    return "\n".join([*lines, "", *entries]) + "\n"


def read_record(text: str) -> Record:
    """The headers and entries of a record; ``422 invalid_request`` naming the first bad line."""
    headers: dict[str, str] = {}
    entries: list[RecordEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        found = HEADER.match(line)
        if found is not None and not entries:
            headers[found[1]] = _header_value(found[2], number)
            continue
        found = ENTRY.match(line)
        if found is None:
            _refuse(
                phrase(
                    "Line %(line)s is neither a header nor an entry: %(text)r.",
                    line=number,
                    text=line[:80],
                )
            )
        entry = RecordEntry(int(found[1]), int(found[2]), found[3].strip())
        if entry.seq != len(entries) + 1:
            _refuse(
                phrase(
                    "Line %(line)s: entry %(seq)s follows entry %(last)s.",
                    line=number,
                    seq=entry.seq,
                    last=len(entries),
                )
            )
        entries.append(entry)
    return Record(headers, entries)


def _header_value(quoted: str, number: int) -> str:
    """The value of a header's quoted JSON string."""
    try:
        value = json.loads(quoted)
    except ValueError:
        _refuse(phrase("Line %(line)s: the header's value is not a quoted string.", line=number))
    return value


def _refuse(words: Words) -> Any:
    """``422 invalid_request`` about a record (the details in English)."""
    raise TurnpostError("invalid_request", words, {"record": [english(words)]})


@dataclass(frozen=True)
class Setup:
    """What a record creates its game from."""

    engine: Engine
    names: list[str]
    options: dict[str, Any]
    seed: int | None
    position: dict[str, Any] | None


def record_setup(record: Record) -> Setup:
    """The engine, players, options, seed and position a record's headers give; ``422``."""
    headers = record.headers
    engine = ENGINES.get(headers.get("Engine", ""))
    if engine is None:
        _refuse(
            phrase(
                "The record's Engine header names no game: %(engine)r.",
                engine=headers.get("Engine"),
            )
        )
    names = []
    while f"Seat{len(names)}" in headers:
        names.append(headers[f"Seat{len(names)}"])
    options = _json_header(headers, "Options", dict) or {}
    position = _json_header(headers, "Position", dict)
    seed = None
    if "Seed" in headers:
        text = headers["Seed"]
        if not (text.isascii() and text.isdigit() and int(text) <= MAX_SEED):
            _refuse(phrase("The record's Seed is not a number from 0 to %(most)s.", most=MAX_SEED))
        seed = int(text)
    elif engine.chance != DETERMINISTIC and record.entries:
        _refuse(
            phrase(
                "The record has no Seed: it was written while the game ran, and its chance is"
                " still secret. A record written after the end can be played again."
            )
        )
    return Setup(engine, names, options, seed, position)


def _json_header(headers: dict[str, str], name: str, kind: type) -> Any:
    """The JSON value of header ``name`` (``None`` if absent); ``422`` unless a ``kind``."""
    if name not in headers:
        return None
    try:
        value = json.loads(headers[name])
    except ValueError:
        value = None
    if not isinstance(value, kind):
        _refuse(
            phrase(
                "The record's %(name)s header is not a JSON %(kind)s.",
                name=name,
                kind=kind.__name__,
            )
        )
    return value


def check_record(games: GameService, setup: Setup, entries: list[RecordEntry]) -> None:
    """Play the record's moves on its engine alone: ``422`` naming the first one that is not
    legal there, before any game is made."""
    engine = setup.engine
    try:
        options = engine.options(setup.options)
    except OptionError as error:
        _refuse(phrase("The record's options: %(why)s", why=error.words))
    states = [
        GameService.initial_state(
            engine, len(setup.names), options, setup.seed or 0, setup.position
        )
    ]
    for entry in entries:
        if not 0 <= entry.seat < len(setup.names):
            _refuse(
                phrase("Entry %(seq)s: there is no seat %(seat)s.", seq=entry.seq, seat=entry.seat)
            )
        states.append(_after(engine, states, entry))


def _after(engine: Engine, states: list[dict[str, Any]], entry: RecordEntry) -> dict[str, Any]:
    """The state after ``entry`` of a record, from the ``states`` before it; ``422``."""
    word, state = entry.notation.split()[0], states[-1]
    if word == "takeback":
        return _taken_back(states, entry)
    if word in NOT_MOVES:
        return state
    try:
        return engine.apply(state, entry.seat, engine.parse(entry.notation, state))
    except EngineError as error:
        _refuse(
            phrase(
                "Entry %(seq)s (%(move)s) is not legal: %(why)s",
                seq=entry.seq,
                move=entry.notation,
                why=error.words,
            )
        )


def _taken_back(states: list[dict[str, Any]], entry: RecordEntry) -> dict[str, Any]:
    """The state a ``takeback N`` entry returns to: the one before move ``N``, the last."""
    _, _, number = entry.notation.partition(" ")
    if number != str(len(states) - 1):
        _refuse(
            phrase(
                "Entry %(seq)s: %(move)r does not take back the last move.",
                seq=entry.seq,
                move=entry.notation,
            )
        )
    return states[-2]


def import_record(games: GameService, text: str) -> dict[str, Any]:
    """A new game played from a record, every move checked; the creation answer (tokens).

    The record is first played on the engine alone, so a record with an
    illegal move (or a malformed one) makes no game: ``422 invalid_request``
    naming the entry. Then the game is created with the record's players
    (without addresses), options, seed and position, and every entry is
    played through the service, as the seats would play them.
    """
    record = read_record(text)
    setup = record_setup(record)
    if not setup.names:
        _refuse(phrase("The record names no players (Seat0, Seat1... headers)."))
    check_record(games, setup, record.entries)
    created = games.create(
        setup.engine.id,
        [{"name": name} for name in setup.names],
        setup.options,
        seed=setup.seed,
        position=setup.position,
    )
    for entry in record.entries:
        play_entry(games, created["id"], entry)
    return created


def play_entry(games: GameService, game_id: str, entry: RecordEntry) -> None:
    """Play one entry of a record into ``game_id`` through the service."""
    word, _, rest = entry.notation.partition(" ")
    expected = entry.seq - 1
    if word == "resign":
        games.resign(game_id, entry.seat, expected)
    elif word == "forfeit":
        games.forfeit(game_id, entry.seat, expected)
    elif word == "takeback":
        take_back(games, game_id, entry.seat, int(rest), expected)
    else:
        games.submit(
            MoveRequest(game_id, seat=entry.seat, notation=entry.notation, expected_seq=expected)
        )
