"""Every game's rules page (``templates/rules/<id>.html``) teaches notation the engine reads.

Each ``<code class="notation">`` example parses with the engine's parser and
is written back the same, and together the examples show every action.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from flask import render_template

from engines import ENGINES
from schemas.moves import move_schemas


def notation_examples(page: str) -> list[str]:
    """The text of every ``<code class="notation">`` element of ``page``."""
    return [unescape(text) for text in re.findall(r'<code class="notation">(.*?)</code>', page)]


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_rules_page_examples_are_notation_of_every_action(app, engine_id: str) -> None:
    engine = ENGINES[engine_id]
    with app.test_request_context():
        page = render_template(f"rules/{engine_id}.html")
    examples = notation_examples(page)
    assert examples, "the rules page shows no notation"
    moves = [engine.parse(example) for example in examples]
    assert [engine.format(move) for move in moves] == examples
    assert {move["action"] for move in moves} == set(move_schemas(engine))
