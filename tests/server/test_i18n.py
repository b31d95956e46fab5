"""Every reader in their own language (issue 24): complete catalogs, who reads which language,
pages with no English left of what is translated, and the language switch, against a real
server process."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests
from babel.messages.pofile import read_po

from engines import ENGINES
from engines.base import IllegalMove, NotationError
from engines.phrases import english
from schemas.api import LANGUAGES
from server.phrases import render
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "translations"
#: A placeholder: ours (``%(name)s``) or click's (``{name}``, ``{name!r}``), kept by translations.
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+(?:![rsa])?\}")
OPENED = {"Sec-Fetch-Site": "none"}


def po(language: str):
    """The catalog of ``language`` as its ``.po`` file says."""
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source)


def texts(message) -> list[str]:
    """The message id (and its plural) of a catalog message."""
    return list(message.id) if message.pluralizable else [message.id]


def strings(message) -> list[str]:
    """The translations of a catalog message (each plural form)."""
    return list(message.string) if message.pluralizable else [message.string]


# -- catalogs ---------------------------------------------------------------------------
def test_the_template_holds_every_message_of_the_code_and_templates(tmp_path: Path) -> None:
    extracted = tmp_path / "messages.pot"
    pybabel = [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg"]
    options = [
        "-k",
        "N_",
        "-k",
        "say",
        "-k",
        "phrase",
        "-k",
        "counted:1,2",
        "--no-location",
        "--sort-output",
        "--omit-header",
    ]
    subprocess.run(
        [*pybabel, *options, "-o", str(extracted), "."], cwd=ROOT, check=True, capture_output=True
    )
    with extracted.open("rb") as fresh, (TRANSLATIONS / "messages.pot").open("rb") as kept:
        assert {m.id for m in read_po(fresh) if m.id} == {m.id for m in read_po(kept) if m.id}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_message_is_translated_unfuzzy_with_the_same_placeholders(language: str) -> None:
    with (TRANSLATIONS / "messages.pot").open("rb") as source:
        wanted = {m.id for m in read_po(source) if m.id}
    catalog = po(language)
    assert {m.id for m in catalog if m.id} == wanted
    assert not catalog.obsolete
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        placeholders = {tuple(sorted(PLACEHOLDER.findall(text))) for text in texts(message)}
        for string in strings(message):
            assert string.strip(), f"{language}: {message.id!r} is not translated"
            assert tuple(sorted(PLACEHOLDER.findall(string))) in placeholders, (language, string)
    assert catalog.num_plurals == {"en": 2, "nl": 2, "de": 2, "fr": 3}[language]


# -- pages ------------------------------------------------------------------------------
class VisibleText(HTMLParser):
    """The text a reader sees: every text node outside script and style, spaces squeezed."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._hidden:
            self.nodes.append(text)


def visible(html: str) -> list[str]:
    """The visible text nodes of a page."""
    parser = VisibleText()
    parser.feed(html)
    return parser.nodes


def english_words(language: str = "nl") -> set[str]:
    """The English message ids a page may show whole (no placeholder, no markup), that
    ``language`` translates differently ("Standard" is German too)."""
    translated = {m.id for m in po(language) if m.id and not m.pluralizable and m.string != m.id}
    return {text for text in translated if "%(" not in text and "<" not in text}


def page(server: BackgroundServer, path: str, language: str, **kwargs) -> requests.Response:
    """``path`` asked for by a browser preferring ``language``."""
    headers = {"Accept-Language": f"{language},en;q=0.5", **OPENED}
    return requests.get(f"{server.url}{path}", headers=headers, timeout=10, **kwargs)


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_a_page_in_each_language_has_no_english_left_of_the_translated_set(
    live_server: BackgroundServer, language: str
) -> None:
    english = english_words(language)
    for path in ("/", "/sign-in"):
        shown = set(visible(page(live_server, path, "en").text))
        assert shown & english, f"{path} in English shows none of the catalog's words"
        answer = page(live_server, path, language)
        assert f'<html lang="{language}">' in answer.text
        assert not set(visible(answer.text)) & english, (path, set(visible(answer.text)) & english)


def test_the_reader_language_follows_the_chain(live_server: BackgroundServer) -> None:
    """The seat's language, else Accept-Language, else TURNPOST_LANGUAGE (en); the switch's
    cookie before the seat's."""
    body = {"engine": "siam", "players": [{"name": "Ann", "language": "nl"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    lang = re.compile(r'<html lang="(\w+)">')

    def opened(seat: int, accept: str) -> requests.Session:
        session = requests.Session()
        token = game["players"][seat]["token"]
        headers = {"Accept-Language": accept, **OPENED}
        session.get(f"{live_server.url}/games/{game['id']}/seat/{token}", headers=headers)
        return session

    ann, bob = opened(0, "de"), opened(1, "de")
    game_page = f"{live_server.url}/games/{game['id']}"
    assert lang.search(ann.get(game_page, headers={"Accept-Language": "de"}).text)[1] == "nl"
    assert lang.search(bob.get(game_page, headers={"Accept-Language": "de"}).text)[1] == "de"
    assert lang.search(bob.get(game_page, headers={"Accept-Language": "pt"}).text)[1] == "en"
    switched = switch(live_server, ann, "fr", f"/games/{game['id']}")
    assert switched.headers["Location"] == f"/games/{game['id']}"
    assert lang.search(ann.get(game_page).text)[1] == "fr"


def switch(
    server: BackgroundServer, session: requests.Session, language: str, back: str
) -> requests.Response:
    """Pick ``language`` with the switch of the lobby page, asking to go back to ``back``."""
    lobby = session.get(f"{server.url}/", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', lobby)[1]
    form = {"csrf_token": csrf, "language": language, "next": back}
    return session.post(f"{server.url}/language", data=form, allow_redirects=False, timeout=10)


def test_the_switch_sends_nobody_to_another_site_and_refuses_an_unknown_language(
    live_server: BackgroundServer,
) -> None:
    session = requests.Session()
    for elsewhere in ("https://evil.example/", "//evil.example/", "/\\evil.example/"):
        answer = switch(live_server, session, "de", elsewhere)
        assert answer.status_code == 303 and answer.headers["Location"] == "/"
    cookie = answer.headers["Set-Cookie"]
    assert "turnpost_language=de" in cookie and "HttpOnly" in cookie
    refused = switch(live_server, session, "xx", "/")
    assert refused.status_code == 422
    assert session.cookies.get("turnpost_language") == "de"


def test_a_seat_language_outside_the_list_is_refused(live_server: BackgroundServer) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann", "language": "pt"}, {"name": "Bob"}]}
    answer = requests.post(live_server.api("/games"), json=body, timeout=10)
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "invalid_request"


def test_the_log_is_read_in_the_readers_language_with_the_same_codes(
    live_server: BackgroundServer,
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    token = game["players"][1]["token"]
    resigned = requests.post(
        live_server.api(f"/games/{game['id']}/resign"),
        headers={"Authorization": f"Bearer {token}"},
        json={},
        timeout=10,
    )
    assert resigned.status_code == 200, resigned.text
    read = {}
    for language in ("en", "nl", "de", "fr"):
        log = requests.get(
            live_server.api(f"/games/{game['id']}/moves"),
            headers={"Accept-Language": language},
            timeout=10,
        )
        read[language] = (log.headers["ETag"], log.json()[-1])
    sentences = {language: entry["description"] for language, (_, entry) in read.items()}
    assert sentences == {
        "en": "Bob resigns.",
        "nl": "Bob geeft op.",
        "de": "Bob gibt auf.",
        "fr": "Bob abandonne.",
    }
    assert len({etag for etag, _ in read.values()}) == 4  # a cached answer keeps its language
    codes = {language: {**entry, "description": None} for language, (_, entry) in read.items()}
    assert all(entry == codes["en"] for entry in codes.values())


# -- refusals ---------------------------------------------------------------------------
#: The cross rule's refusal of "enter c1 N" at the start, as each language says it.
CROSS_RULE = {
    "en": "Cross rule: no animal may enter or move onto c1 (c1 and c5) during each player's"
    " first two turns.",
    "nl": "Kruisregel: tijdens de eerste twee beurten van elke speler mag geen dier op c1 (c1 en"
    " c5) komen.",
    "de": "Kreuzregel: Während der ersten 2 Spielzüge jedes Spielers darf kein Tier auf c1 (c1"
    " und c5) ins Spiel gebracht oder gezogen werden.",
    "fr": "Règle de la croix\u00a0: aucun animal ne peut entrer ni se déplacer sur c1 (c1 et c5)"
    " lors des deux premiers tours de jeu de chaque joueur.",
}


def refusals(server: BackgroundServer, game: dict, body: dict) -> dict[str, dict]:
    """The error answers of the first seat sending ``body`` as a move, by ``Accept-Language``."""
    answers = {}
    for language in ("en", "nl", "de", "fr"):
        answer = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            json=body,
            headers={
                "Authorization": f"Bearer {game['players'][0]['token']}",
                "Accept-Language": f"{language};q=0.9",
            },
            timeout=10,
        )
        assert answer.status_code == 422, answer.text
        answers[language] = answer.json()["error"]
    return answers


def test_a_refusal_names_the_rule_in_the_readers_language_with_the_same_code_and_details(
    live_server: BackgroundServer,
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    illegal = refusals(live_server, game, {"notation": "enter c1 N"})
    assert {language: error["message"] for language, error in illegal.items()} == CROSS_RULE
    assert {(error["code"], str(error["details"])) for error in illegal.values()} == {
        ("illegal_move", str(illegal["en"]["details"]))
    }
    assert illegal["en"]["details"]["rule"] == "cross_rule"
    unread = refusals(live_server, game, {"notation": "enter z9 N"})
    assert unread["nl"]["message"] == "'z9' is geen veld: gebruik a1..e5."
    assert unread["de"]["message"] == "'z9' ist kein Feld: Verwende a1..e5."
    assert unread["fr"]["message"] == "'z9' n'est pas une case\u00a0: utilisez a1..e5."
    assert all(error["details"] == unread["en"]["details"] for error in unread.values())
    assert unread["en"]["details"] == {"notation": ["'z9' is not a square: use a1..e5."]}


def test_the_log_tells_the_games_moves_in_each_language_with_the_same_codes(
    live_server: BackgroundServer,
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    for seat, notation in enumerate(["enter a1 N", "enter e5 S"]):
        played = requests.post(
            live_server.api(f"/games/{game['id']}/moves"),
            json={"notation": notation},
            headers={"Authorization": f"Bearer {game['players'][seat]['token']}"},
            timeout=10,
        )
        assert played.status_code == 201, played.text
    logs = {
        language: requests.get(
            live_server.api(f"/games/{game['id']}/moves"),
            headers={"Accept-Language": language},
            timeout=10,
        ).json()
        for language in ("en", "nl", "de", "fr")
    }
    said = {language: [entry["description"] for entry in log] for language, log in logs.items()}
    assert said == {
        "en": [
            "Ann enters an elephant on a1, facing north.",
            "Bob enters a rhino on e5, facing south.",
        ],
        "nl": [
            "Ann zet een olifant op a1, kijkend naar het noorden.",
            "Bob zet een neushoorn op e5, kijkend naar het zuiden.",
        ],
        "de": [
            "Ann bringt auf a1 einen Elefanten ins Spiel, mit Blick nach Norden.",
            "Bob bringt auf e5 ein Nashorn ins Spiel, mit Blick nach Süden.",
        ],
        "fr": [
            "Ann entre un éléphant sur a1, tourné vers le nord.",
            "Bob entre un rhinocéros sur e5, tourné vers le sud.",
        ],
    }
    codes = {
        language: [{**entry, "description": None} for entry in log]
        for language, log in logs.items()
    }
    assert all(entries == codes["en"] for entries in codes.values())


def test_seats_reading_dutch_and_german_each_see_the_game_in_their_language(
    live_server: BackgroundServer,
) -> None:
    """One game, two seats' pages: each in its seat's language (the log's sentences, the
    prompt, the guided form's question and the refusal), the same game underneath."""
    players = [{"name": "Ann", "language": "nl"}, {"name": "Bob", "language": "de"}]
    body = {"engine": "siam", "players": players, "options": {"cross_rule": False}}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    played = requests.post(
        live_server.api(f"/games/{game['id']}/moves"),
        json={"notation": "enter a1 N"},
        headers={"Authorization": f"Bearer {game['players'][0]['token']}"},
        timeout=10,
    )
    assert played.status_code == 201, played.text
    seen = {}
    for seat in (0, 1):
        session = requests.Session()
        token = game["players"][seat]["token"]
        session.get(f"{live_server.url}/games/{game['id']}/seat/{token}", headers=OPENED)
        seen[seat] = " ".join(visible(session.get(f"{live_server.url}/games/{game['id']}").text))
    ann, bob = seen[0], seen[1]
    assert "Ann zet een olifant op a1, kijkend naar het noorden." in ann
    assert "Ann bringt auf a1 einen Elefanten ins Spiel, mit Blick nach Norden." in bob
    assert "ein Nashorn ins Spiel bringen" in bob and "Wohin?" in bob and "a1, mit Schieben" in bob
    for shown in (ann, bob):
        assert "enters an elephant" not in shown and "facing north" not in shown
    codes = [
        requests.get(
            live_server.api(f"/games/{game['id']}/moves"),
            headers={"Accept-Language": language},
            timeout=10,
        ).json()
        for language in ("nl", "de")
    ]
    assert [{**entry, "description": None} for entry in codes[0]] == [
        {**entry, "description": None} for entry in codes[1]
    ]


def test_a_king_of_siam_refusal_names_the_rule_in_german_and_dutch(
    live_server: BackgroundServer,
) -> None:
    players = [{"name": name} for name in ("Ann", "Bob", "Cy")]
    body = {"engine": "king-of-siam", "players": players, "seed": 5}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    seat = game["to_move"][0]
    token = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
    moves = requests.get(
        live_server.api(f"/games/{game['id']}/legal-moves"), headers=token, timeout=10
    ).json()["moves"]
    card = next(move["notation"] for move in moves if move.get("card") == "maharacha")
    played = requests.post(
        live_server.api(f"/games/{game['id']}/moves"),
        json={"notation": card},
        headers=token,
        timeout=10,
    )
    assert played.status_code == 201, played.text
    said = {}
    for language in ("de", "nl", "en"):
        answer = requests.post(
            live_server.api(f"/games/{game['id']}/moves"),
            json={"notation": "pass"},
            headers={**token, "Accept-Language": language},
            timeout=10,
        )
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert (error["code"], error["details"]["rule"]) == ("illegal_move", "pending")
        said[language] = error["message"]
    assert said == {
        "de": "Nach deiner Karte musst du zuerst einen Anhänger aus einer Provinz nehmen,"
        " z. B. 'take lao kedah'.",
        "nl": "Na je kaart moet je eerst een aanhanger uit een provincie nemen, bijvoorbeeld"
        " 'take lao kedah'.",
        "en": "After your card you must take one follower from a province before anything"
        " else, e.g. 'take lao kedah'.",
    }


# -- the games' words -------------------------------------------------------------------
#: English words no Dutch, German or French sentence of a game holds.
ENGLISH = re.compile(
    r"\b(the|and|with|from|into|moves?|builds|citizens?|factory|takes|scores|wins|supply|loan"
    r"|your|boats?|card|market|player|turn|rock|places)\b"
)


def phrase_nodes(words) -> Iterator[dict]:
    """Every phrase inside ``words`` (itself, its parameters, their parameters...)."""
    if isinstance(words, list):
        for item in words:
            yield from phrase_nodes(item)
    elif isinstance(words, dict):
        if "key" in words or "text" in words:
            yield words
        for value in (*words.get("args", {}).values(), *words.get("sentences", ())):
            yield from phrase_nodes(value)
        yield from phrase_nodes(words.get("or", []))


#: The random games whose words are read: (players, seed, options) by engine.
GAMES = {
    "foreign-king": [(2, 1, {}), (3, 2, {}), (4, 3, {})],
    "bangkok-klongs": [(2, 1, {}), (3, 2, {"tactical": True}), (4, 3, {})],
}

#: Text that is no notation, by engine: each is refused with words of its own.
NOT_NOTATION = {
    "foreign-king": ["", "bild textile liege", "build wood liege", "place namr 2", "king"]
    + ["bring maybe", "virtual jump x", "place liege x", "move namur liege"],
    "bangkok-klongs": ["", "foo", "place t50 zz new", "place t50 r3c4 new draw nope"]
    + ["score L4-5 remove zz", "place t50 r3c4 new wibble 1", "place zz r3c4 new"],
}


def notation_refusals(engine_id: str) -> Iterator:
    """The words refusing each text of :data:`NOT_NOTATION` as notation."""
    for text in NOT_NOTATION[engine_id]:
        with pytest.raises(NotationError) as refused:
            ENGINES[engine_id].parse(text)
        yield refused.value.words


def spoken_words(engine, players: int, seed: int, options: dict) -> Iterator:
    """Every word an engine says in a random game: each move's sentence and pause, each prompt,
    each question and answer label, refusals of moves from earlier states, and the result."""
    rng = random.Random(seed)
    state = engine.setup(players, engine.options(options), seed)
    earlier: list = []
    for _ in range(400):
        if engine.result(state) is not None:
            break
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        view = engine.view(state, seat)
        yield engine.prompt(state, seat)
        for question in engine.questions(state, seat):
            yield question.text
            for move in moves[:20]:
                answer = question.answer(move)
                if answer is not None:
                    yield question.label(answer, view)
        for move in rng.sample(earlier, min(len(earlier), 6)):
            try:
                engine.apply(state, seat, move)
            except IllegalMove as refusal:
                yield refusal.words
        move = rng.choice(moves)
        after = engine.apply(state, seat, move)
        yield engine.describe(state, after, seat, move, ["Ann", "Bob", "Cy", "Di"])
        yield engine.turn_pause(after, seat, move)
        earlier.append(move)
        state = after
    result = engine.result(state) or {"winners": [0], "resigned": [1]}
    yield engine.describe_result(result, ["Ann", "Bob", "Cy", "Di"])


@pytest.mark.parametrize("engine_id", sorted(GAMES))
@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_a_games_words_are_phrases_read_with_no_english_left(engine_id: str, language: str):
    """Each move, prompt, question, label, refusal and result of random games is a phrase
    whose every message the catalog translates, and reads without an English word."""
    engine = ENGINES[engine_id]
    translated = {
        (message.id if not message.pluralizable else message.id[0])
        for message in po(language)
        if message.id and all(strings(message))
    }
    names = ["Ann", "Bob", "Cy", "Di"]
    said = [spoken_words(engine, *game) for game in GAMES[engine_id]]
    for words in itertools.chain(notation_refusals(engine_id), *said):
        if isinstance(words, str):  # a name as printed (a province, a square)
            assert not ENGLISH.search(words), words
            continue
        for node in phrase_nodes(words):
            assert "key" in node, node
            assert node["key"] in translated, (language, node["key"])
        read = render(words, names, language)
        assert not ENGLISH.search(unquoted(read, engine)), (language, read, english(words, names))


def unquoted(text: str, engine) -> str:
    """``text`` without its quoted notation and the notation's words (understood in every
    language, so named as they are)."""
    text = re.sub(r"'[^']*'", "", text)
    return re.sub(r"[\w-]+", lambda word: "" if word[0] in engine.move_words else word[0], text)


@pytest.mark.parametrize("engine_id", sorted(GAMES))
def test_each_languages_words_and_the_canonical_notation_are_read_as_the_same_move(
    engine_id: str,
):
    """Every listed move of random games, written in notation and in each language's words
    (the rulebooks' actions, "bouw textiel liege" for "build textile liege"), is that move."""
    engine = ENGINES[engine_id]
    for players, seed, options in GAMES[engine_id]:
        rng = random.Random(seed)
        state = engine.setup(players, engine.options(options), seed)
        for _ in range(60):
            if engine.result(state) is not None:
                break
            seat = engine.to_move(state)[0]
            moves = engine.legal_moves(state, seat)
            for move in moves:
                written = engine.format(move)
                assert engine.parse(written) == move
                for language in ("nl", "de", "fr"):
                    said = in_words(written, engine.notation_words[language])
                    assert engine.parse(engine.in_notation(said, language)) == move, said
            state = engine.apply(state, seat, rng.choice(moves))


def in_words(notation: str, words: dict) -> str:
    """``notation`` with each notation word written as a language's first word for it."""
    return re.sub(r"[\w-]+", lambda word: words.get(word[0], (word[0],))[0], notation)


# -- the game page and its boards -------------------------------------------------------
#: English words of the game page and the boards (table.html and templates/boards/) that
#: each language translates: none may be left on a page read in Dutch, German or French.
PAGE_ENGLISH = [
    "Your turn:",
    "Pick on the board or below.",
    "Pick a highlighted place on the board.",
    "Pick one of the highlighted ones in your hand",
    "choices as a list",
    "You are watching",
    "how to play",
    "Rules of",
    "Players",
    "to move",
    "Moves",
    "No move yet.",
    "before the last move",
    "replay from the start",
    "Type a move in notation",
    "Takeback",
    "Offer to take back your move",
    "Conditional moves",
    "Fair play:",
    "Play only if you trust them.",
    "Swipe the board sideways",
    "Round ",
    "Take coins",
    "3 + 1 per textile",
    "Discs are citizens",
    "In stock",
    "The King’s track",
    "The King's track",
    "royal order",
    "in supply",
    "free water field",
    "basket",
    "merchant",
    "Your hand",
    "How to read the board",
    "Draw pile",
    "Luk Phat track",
    "First round:",
    "Bangkok Klongs: the floating market",
    "the map of Belgium",
    "Table talk",
    "No message yet.",
    "Mute a player",
    "Your turn, ",
]

#: The Dutch, German and French of "Your turn:" (the seat to move) and of the watcher's line.
#: (As the page reads, spaces squeezed: French's non-breaking space before a colon reads as one.)
YOUR_TURN = {"nl": "Jouw beurt:", "de": "Du bist am Zug:", "fr": "À vous de jouer :"}
WATCHING = {
    "nl": "Je kijkt mee",
    "de": "Du schaust zu",
    "fr": "Vous regardez",
}

#: Every engine's game: its players and a seed.
PAGE_GAMES = {
    "siam": (2, 1),
    "king-of-siam": (3, 5),
    "foreign-king": (3, 2),
    "bangkok-klongs": (3, 2),
}


def page_words(html: str) -> str:
    """What a reader of ``html`` meets: the visible text, the aria-labels and the titles."""
    named = re.findall(r'(?:aria-label|title)="([^"]*)"', html)
    return "\n".join([*visible(html), *named])


def english_left(html: str) -> list[str]:
    """The English words of :data:`PAGE_ENGLISH` that ``html`` still shows."""
    words = page_words(html).replace("&#39;", "'")
    return [english for english in PAGE_ENGLISH if english in words]


def seat_client(app, game: dict, seat: int):
    """A test client that opened ``seat``'s private link (which then stops working)."""
    client = app.test_client()
    token = game["players"][seat]["token"]
    assert client.get(f"/games/{game['id']}/seat/{token}", headers=OPENED).status_code == 303
    return client


def read_page(client, game: dict, language: str) -> str:
    """The game page as ``client`` reads it in ``language``."""
    answer = client.get(f"/games/{game['id']}", headers={"Accept-Language": language})
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def play_random_moves(client, game: dict, moves: int, seed: int) -> None:
    """``moves`` random legal moves of whoever is to move, through the API."""
    rng = random.Random(seed)
    for _ in range(moves):
        now = client.get(f"/api/v1/games/{game['id']}").get_json()
        if now["status"] != "active":
            return
        seat = now["to_move"][0]
        token = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
        legal = client.get(f"/api/v1/games/{game['id']}/legal-moves", headers=token).get_json()
        notation = rng.choice(legal["moves"])["notation"]
        played = client.post(
            f"/api/v1/games/{game['id']}/moves", json={"notation": notation}, headers=token
        )
        assert played.status_code == 201, played.get_data(as_text=True)


@pytest.mark.parametrize("engine_id", sorted(PAGE_GAMES))
def test_each_engines_game_page_has_no_english_left_of_its_own_words(app, engine_id: str):
    """Each engine's game page at the start and after a few moves, for the seat to move and a
    watcher: in English it shows the words, in Dutch, German and French none of them."""
    players, seed = PAGE_GAMES[engine_id]
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    body = {"engine": engine_id, "players": [{"name": name} for name in names], "seed": seed}
    watcher = app.test_client()
    for moves in (0, 4):
        game = watcher.post("/api/v1/games", json=body).get_json()
        play_random_moves(watcher, game, moves, seed)
        mover = seat_client(
            app, game, watcher.get(f"/api/v1/games/{game['id']}").get_json()["to_move"][0]
        )
        assert english_left(read_page(mover, game, "en"))
        for language in ("nl", "de", "fr"):
            moving, watching = read_page(mover, game, language), read_page(watcher, game, language)
            assert f'<html lang="{language}">' in moving
            assert YOUR_TURN[language] in page_words(moving)
            assert WATCHING[language] in page_words(watching)
            assert english_left(moving) == [], (language, moves, english_left(moving))
            assert english_left(watching) == [], (language, moves, english_left(watching))
