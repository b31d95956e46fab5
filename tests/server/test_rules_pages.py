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


def words(page: str) -> str:
    """The text of an HTML page, tags dropped and spaces joined."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_the_new_game_form_explains_each_option_in_the_rules_pages_words(
    client, engine_id: str
) -> None:
    engine = ENGINES[engine_id]
    lobby = words(client.get("/").get_data(as_text=True))
    rules = words(client.get(f"/rules/{engine_id}").get_data(as_text=True))
    assert set(engine.option_words) == set(engine.default_options)
    for label, explanation in engine.option_words.values():
        assert label in lobby and explanation in lobby
        assert f"{label}" in rules and explanation in rules


def test_the_new_game_form_says_how_many_players_each_game_takes(client) -> None:
    page = client.get("/").get_data(as_text=True)
    for engine in ENGINES.values():
        option = re.search(rf'<option value="{engine.id}"[^>]*>', page)[0]
        assert f'data-min="{engine.min_players}"' in option
        assert f'data-max="{engine.max_players}"' in option


def test_the_site_has_a_favicon(client) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.data[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert icon.data[22:26] == b"\x89PNG"
    assert client.get("/assets/favicon.svg").status_code == 200
    assert 'rel="icon"' in client.get("/").get_data(as_text=True)
