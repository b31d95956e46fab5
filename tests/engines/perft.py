"""Move-count oracles (like chess perft): legal move sequences counted from fixed positions.

``tests/engines/perft.json`` holds, per engine, a few positions and how many
sequences of 1, 2 and 3 listed moves (decisions, whoever makes them) start
there, as deep as the count stays quick (the deepest level applies at most
:data:`APPLIES` moves, so a Bangkok Klongs position with hundreds of
placements stops at depth 2). A sequence that reaches the end of the game
early is not counted, as in chess. The positions are the start of a game, a
middle position of a seeded random game and, where a game splits turns into
decisions, a position with a decision pending (the seat that just moved
moves again); each is given by its seed and the moves from ``setup`` in
notation, so the file reads on its own. ``tests/engines/test_perft.py``
recounts them: a change to move generation (or to ``apply``) that changes
what is legal shows up there, not silently in a search.

Regenerate the file after an intended rule change (and say why in the commit)::

    .venv/bin/python -m tests.engines.perft
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engines import ENGINES, Engine
from engines.base import State
from tests.engines.tiny_game import NimEngine

PATH = Path(__file__).with_name("perft.json")
DEPTH = 3
#: The most moves a position's deepest count may apply (its count one level less).
APPLIES = 5000
#: Every engine the oracles cover: the registered games and the test suite's Nim.
GAMES: dict[str, Engine] = {**ENGINES, NimEngine.id: NimEngine()}
#: How far into a seeded game the middle position lies, and where the search for a
#: pending decision starts (plies).
MIDDLE, PENDING_FROM = {"siam": 40, "nim": 4}, 6
SEED = 3


def perft(engine: Engine, state: State, depth: int) -> int:
    """How many sequences of ``depth`` listed moves start at ``state``."""
    to_move = engine.to_move(state)
    if depth == 0:
        return 1
    total = 0
    for seat in to_move:
        moves = engine.legal_moves(state, seat)
        if depth == 1:
            total += len(moves)
            continue
        total += sum(perft(engine, engine.apply(state, seat, move), depth - 1) for move in moves)
    return total


def replay(engine: Engine, position: dict[str, Any]) -> State:
    """The state of a recorded position: ``setup`` then its moves (seat, notation)."""
    state = engine.setup(position["players"], engine.options(position["options"]), position["seed"])
    for seat, text in position["moves"]:
        state = engine.apply(state, seat, engine.parse(text, state))
    return state


def counts(engine: Engine, position: dict[str, Any], depth: int) -> list[int]:
    """The counts of sequences of 1 to ``depth`` moves from ``position``."""
    state = replay(engine, position)
    return [perft(engine, state, plies) for plies in range(1, depth + 1)]


def quick_counts(engine: Engine, position: dict[str, Any]) -> list[int]:
    """The counts from ``position`` down to :data:`DEPTH`, or less where the next level
    would apply more than :data:`APPLIES` moves."""
    state = replay(engine, position)
    found = [perft(engine, state, 1)]
    while len(found) < DEPTH and found[-1] <= APPLIES:
        found.append(perft(engine, state, len(found) + 1))
    return found


def positions(engine: Engine) -> list[dict[str, Any]]:
    """The start, a middle position and a pending decision of a seeded random game (2 seats)."""
    players = engine.min_players
    rng = random.Random(SEED)
    state = engine.setup(players, engine.options({}), SEED)
    moves: list[list[Any]] = []
    found = {"start": []}
    middle = MIDDLE.get(engine.id, 12)
    while engine.to_move(state) and len(found) < 3:
        if len(moves) == middle:
            found["middle"] = list(moves)
        seat = engine.to_move(state)[0]
        if moves and moves[-1][0] == seat and len(moves) >= PENDING_FROM and "pending" not in found:
            found["pending"] = list(moves)
        move = rng.choice(engine.legal_moves(state, seat))
        moves.append([seat, engine.format(move)])
        state = engine.apply(state, seat, move)
    base = {"players": players, "options": {}, "seed": SEED}
    return [{"name": name, **base, "moves": found[name]} for name in sorted(found)]


def regenerate() -> dict[str, list[dict[str, Any]]]:
    """The oracle file's content: every engine's positions with their counts."""
    oracles = {}
    for engine_id, engine in sorted(GAMES.items()):
        oracles[engine_id] = [
            {**position, "counts": quick_counts(engine, position)} for position in positions(engine)
        ]
    return oracles


def dump(oracles: dict[str, list[dict[str, Any]]]) -> str:
    """The oracles as JSON with one move per line."""
    engines = []
    for engine_id, entries in oracles.items():
        items = []
        for entry in entries:
            head = json.dumps({k: v for k, v in entry.items() if k != "moves"})[:-1]
            moves = ",\n".join(f"    {json.dumps(move)}" for move in entry["moves"])
            items.append(
                f'  {head}, "moves": [\n{moves}\n  ]}}' if moves else f'  {head}, "moves": []}}'
            )
        engines.append(f" {json.dumps(engine_id)}: [\n" + ",\n".join(items) + "\n ]")
    return "{\n" + ",\n".join(engines) + "\n}\n"


def main() -> None:
    """Write :data:`PATH` anew and print the counts."""
    oracles = regenerate()
    text = dump(oracles)
    assert json.loads(text) == oracles
    PATH.write_text(text)
    for engine_id, entries in oracles.items():
        for entry in entries:
            print(f"{engine_id:16} {entry['name']:8} {entry['counts']}")


if __name__ == "__main__":
    main()
