"""King of Siam's faces for clients and mail: the state and board schemas against real
views, the board data, and the board templates rendered with Jinja (no browser)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest

from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import MAPS, get_board
from schemas.king_of_siam import BoardSchema, StateSchema
from server.boards import Board, environment, last_touched, render_board
from tests.engines.test_king_of_siam_words import NAMES, random_states

ENGINE = KingOfSiamEngine()
SVG = "{http://www.w3.org/2000/svg}"
IDENTIFIER = re.compile(r"\b[a-z]+[_-][a-z]+\b|\bseat\b")


def game_of(state: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The game object the API would answer for ``seat`` (the parts boards read)."""
    players = len(state["players"])
    return {
        "engine": ENGINE.id,
        "players": [{"seat": s, "name": NAMES[s]} for s in range(players)],
        "you": seat,
        "state": ENGINE.view(state, seat),
        "result": ENGINE.result(state),
        "to_move": ENGINE.to_move(state),
    }


@pytest.fixture(scope="module")
def games() -> list[list[dict[str, Any]]]:
    """Every state of three random games, with 2, 3 and 4 players."""
    return [random_states(players, seed) for players, seed in ((2, 11), (3, 12), (4, 13))]


# -- schemas --------------------------------------------------------------------------
def test_state_schema_accepts_every_view_of_random_games(games: list[list[dict]]) -> None:
    schema = StateSchema()
    for states in games:
        for state in states:
            for seat in (None, *range(len(state["players"]))):
                assert schema.validate(ENGINE.view(state, seat)) == {}


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda view: view["provinces"]["korat"].update(control="french"), "provinces"),
        (lambda view: view.update(hand=["joker"]), "hand"),
        (lambda view: view.pop("pool"), "pool"),
        (lambda view: view["players"][0].update(cards_left=9), "players"),
        (lambda view: view.update(pending={"seat": 0, "kind": "dance"}), "pending"),
    ],
)
def test_state_schema_refuses_a_broken_view(change: Any, field: str) -> None:
    view = ENGINE.view(ENGINE.setup(3, {}, 1), 0)
    change(view)
    assert field in StateSchema().validate(view)


def test_board_data_is_the_map_and_fits_its_schema() -> None:
    data = ENGINE.board_data({})
    assert BoardSchema().validate(data) == {}
    board = get_board("siam-1874")
    assert [p["key"] for p in data["provinces"]] == list(board.provinces)
    assert {p["key"]: p["name"] for p in data["provinces"]} == board.names
    assert {p["key"]: set(p["neighbours"]) for p in data["provinces"]} == board.adjacent
    assert data["homes"] == board.homes and data["colony_at"] == 4
    assert [c["name"] for c in data["cards"]] == [
        "Maharacha",
        "Khon Thai",
        "1 vs 1",
        "2 vs 1",
        "Rama",
        "Lao",
        "Malay",
    ]
    assert sum(c["copies"] for c in data["cards"]) == 8
    assert data["followers"] == {"2": 16, "3": 18, "4": 18}


def test_board_data_of_an_unknown_map_is_refused() -> None:
    with pytest.raises(ValueError):
        ENGINE.board_data({"map": "atlantis"})


# -- the drawn map ------------------------------------------------------------------------
def drawings() -> dict[str, Any]:
    """The maps as the board templates draw them (the partial's exported data)."""
    return environment().get_template("boards/_king-of-siam.svg").module.maps


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_map_is_drawn_with_its_names(name: str) -> None:
    drawing = drawings()[name]
    board = get_board(name)
    assert drawing["names"] == board.names
    assert set(drawing["rings"]) == set(board.provinces)
    assert {home: faction for faction, home in drawing["home_of"].items()} == {
        home: faction for faction, home in board.homes.items()
    }


@pytest.mark.parametrize("name", sorted(MAPS))
def test_provinces_that_share_a_drawn_border_are_exactly_the_neighbours(name: str) -> None:
    drawing = drawings()[name]
    sides: dict[str, set[str]] = {}
    for province, ring in drawing["rings"].items():
        for ref in ring:
            sides.setdefault(ref.rstrip("~"), set()).add(province)
    drawn = {frozenset(pair) for pair in sides.values() if len(pair) == 2}
    assert all(len(pair) <= 2 for pair in sides.values())
    assert drawn == {frozenset(pair) for pair in MAPS[name]["borders"]}


@pytest.mark.parametrize("name", sorted(MAPS))
def test_each_province_outline_is_a_closed_ring(name: str) -> None:
    drawing = drawings()[name]
    for province, ring in drawing["rings"].items():
        lines = [
            drawing["borders"][ref[:-1]][::-1] if ref.endswith("~") else drawing["borders"][ref]
            for ref in ring
        ]
        joints = zip(lines, lines[1:] + lines[:1], strict=True)
        assert all(line[-1] == following[0] for line, following in joints), province


# -- the board templates --------------------------------------------------------------------
def picture(game: dict[str, Any], board: Board | None = None) -> ElementTree.Element:
    """The standalone SVG, parsed as XML (it must be a well-formed document of its own)."""
    return ElementTree.fromstring(render_board("svg", game, board))


def test_svg_is_a_standalone_document_without_styles_scripts_or_outside_files(
    games: list[list[dict]],
) -> None:
    for states in games:
        for state in (states[0], states[len(states) // 2], states[-1]):
            root = picture(game_of(state, 0))
            assert root.tag == f"{SVG}svg" and root.get("viewBox")
            tags = {element.tag for element in root.iter()}
            assert not tags & {f"{SVG}script", f"{SVG}style", f"{SVG}image", f"{SVG}foreignObject"}
            for element in root.iter():
                assert "style" not in element.attrib
                href = element.get("href") or element.get("{http://www.w3.org/1999/xlink}href")
                assert href is None or href.startswith("#"), href
                fill = element.get("fill", "")
                assert not fill.startswith("url(") or fill.startswith("url(#"), fill


def links(markup: str) -> dict[str, str]:
    """``data-key`` -> ``href`` of every link in ``markup`` (HTML or SVG)."""
    found = re.findall(r'<a href="([^"]*)"[^>]*data-key="([^"]*)"', markup)
    assert len(found) == markup.count("<a "), "every link names its key"
    return {key: href for href, key in found}


def test_targets_are_links_only_where_given() -> None:
    state = ENGINE.setup(3, {}, 5)
    seat = ENGINE.to_move(state)[0]
    game = game_of(state, seat)
    cards = {"khon_thai": "/pick?card=khon_thai", "pass": "/pick?card=pass"}
    html = render_board("html", game, Board(interactive=True, targets=cards))
    assert links(html) == {"khon_thai": "/pick?card=khon_thai"}
    provinces = {"korat": "/k", "kedah": "/d"}
    html = render_board(
        "html", game, Board(interactive=True, targets=provinces, chosen=["maharacha"])
    )
    assert set(links(html).items()) == {("korat", "/k"), ("kedah", "/d")}
    assert html.count('href="/k"') == 2, "the province and its struggle tile"
    assert links(render_board("html", game, Board(interactive=False, targets=provinces))) == {}
    assert "<a " not in render_board("svg", game, Board())


def test_the_followers_of_the_chosen_province_are_links_for_a_faction_answer() -> None:
    state = ENGINE.setup(3, {}, 5)
    seat = ENGINE.to_move(state)[0]
    province = next(p for p, e in state["provinces"].items() if e["followers"]["lao"])
    game = game_of(state, seat)
    board = Board(
        interactive=True, targets={"lao": "/lao", "rama": "/rama"}, chosen=["take", province]
    )
    shown = links(render_board("html", game, board))
    held = state["provinces"][province]["followers"]
    assert shown == {f: f"/{f}" for f in ("lao", "rama") if held[f]}


def test_the_last_move_and_the_chosen_provinces_are_marked() -> None:
    state = ENGINE.setup(3, {}, 5)
    game = game_of(state, 0)
    plain = render_board("svg", game, Board())
    marked = render_board(
        "svg", game, Board(last=last_touched({"province": "korat"}), chosen=["kedah"])
    )
    assert marked.count('stroke-dasharray="8 5"') == plain.count('stroke-dasharray="8 5"') + 1
    assert 'fill-opacity="0.3"' in marked and 'fill-opacity="0.3"' not in plain


def text_boards(games: list[list[dict]]) -> list[str]:
    return [
        render_board("txt", game_of(state, seat))
        for states in games
        for state in (states[0], states[len(states) // 2], states[-1])
        for seat in (None, 0)
    ]


def test_text_board_fits_72_columns_and_speaks_words(games: list[list[dict]]) -> None:
    for text in text_boards(games):
        assert max(len(line) for line in text.splitlines()) <= 72
        assert not IDENTIFIER.search(text), IDENTIFIER.search(text)
        assert "{" not in text and "NAKHON SI THAMMARAT" in text


def test_text_board_shows_only_the_readers_own_cards() -> None:
    state = ENGINE.setup(3, {}, 5)
    assert "Your cards: Maharacha, Khon Thai, Khon Thai, 1 vs 1" in render_board(
        "txt", game_of(state, 1)
    )
    assert "Your cards" not in render_board("txt", game_of(state, None))


def test_the_end_shows_who_rules_siam_and_the_winners(games: list[list[dict]]) -> None:
    for states in games:
        end = states[-1]
        result = ENGINE.result(end)
        svg = render_board("svg", game_of(end, None))
        ruler = "Siam is a British colony" if result["ruling"] == "british" else " rule Siam"
        assert ruler in svg and svg.count(">wins</text>") == len(result["winners"])
        assert ruler in render_board("txt", game_of(end, None))
