"""The notation examples in each game's rulebook docstring are read by its own parser.

Each registered engine (and the test-only Nim) documents its notation in the
docstring of its package (or of its module, for a one-module game): the
paragraph starting with ``Notation`` ends with ``::`` and the literal block
after it lists examples, one move per line, written as ``format`` writes
them; two or more spaces separate what the line means, continued on lines
indented further. Every example parses (with a new game's state, for the
parsers that check names against it) and formats back to itself; where its
meaning is the move's JSON object, parsing gives exactly that object.
"""

from __future__ import annotations

import importlib
import json
import re

import pytest

from engines import ENGINES, Engine
from tests.engines.tiny_game import NimEngine

pytestmark = pytest.mark.usefixtures("nim")

#: Two or more spaces: between an example and what it means.
GAP = re.compile(r"\s{2,}")


def rulebook(engine: Engine) -> str:
    """The docstring of the game's package (of its module, for a one-module game)."""
    module = type(engine).__module__.removesuffix(".engine")
    return importlib.import_module(module).__doc__ or ""


def notation_block(doc: str) -> list[str]:
    """The lines of the literal block after the paragraph starting with ``Notation``."""
    lines = doc.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith("Notation")), None)
    assert start is not None, "the rulebook has no 'Notation' paragraph"
    end = next(n for n in range(start, len(lines)) if lines[n].rstrip().endswith("::"))
    block = []
    for line in lines[end + 1 :]:
        if line.strip() and not line.startswith(" "):
            break
        block.append(line)
    return [line for line in block if line.strip()]


def examples(doc: str) -> list[tuple[str, str]]:
    """Each example of the notation block with what it means (``""`` when nothing is said)."""
    lines = notation_block(doc)
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    found: list[tuple[str, str]] = []
    for line in lines:
        if len(line) - len(line.lstrip()) == indent:
            text, *meaning = GAP.split(line.strip(), maxsplit=1)
            found.append((text, " ".join(meaning)))
        else:
            text, meaning = found.pop()
            found.append((text, f"{meaning} {line.strip()}".strip()))
    return found


@pytest.mark.parametrize("engine_id", [*ENGINES, NimEngine.id])
def test_every_notation_example_parses_and_formats_back_to_itself(engine_id: str) -> None:
    engine = ENGINES[engine_id]
    state = engine.setup(engine.min_players, engine.options({}), 1)
    documented = examples(rulebook(engine))
    assert len(documented) >= 2, "the rulebook lists fewer than two notation examples"
    for text, meaning in documented:
        move = engine.parse(text, state)
        assert engine.format(move) == text
        if meaning.startswith("{"):
            assert move == json.loads(meaning), text


def test_examples_are_read_with_their_meaning_over_several_lines() -> None:
    doc = (
        "Game.\n\nNotation (lower case)::\n\n"
        '    take 1      {"action": "take",\n'
        '                 "count": 1}\n'
        "    pass\n\nDecisions\n    - none\n"
    )
    assert examples(doc) == [("take 1", '{"action": "take", "count": 1}'), ("pass", "")]
