"""Table talk over the API, the event stream and the game page, against a real server (issue 21).

Messages are posted and listed as plain text; hostile texts are refused with 422
and nothing is kept; only a seat posts, a seat past its limits gets 429; the host's
deletion leaves no text in the database; the partners' thread of 4-player King of
Siam is invisible to the other team through the API, the events and the page; a
seat's mutes hide the muted seat's messages everywhere it reads; a signed-in player
talks as the seat that is theirs.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.games.talk import PER_MINUTE
from server.http.actor import SESSION_COOKIE
from server.store import open_store
from server.store.records import Player
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer, database_text, table_rows
from tests.talk.conftest import (
    XSS,
    Browser,
    Stream,
    auth,
    create,
    said,
    say,
    seat_token,
)

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_a_message_is_posted_listed_and_shown_as_plain_text(live_server: BackgroundServer) -> None:
    game = create(live_server)
    text = f"{XSS}\nand a second line"
    posted = say(live_server, game, seat_token(game, 1), f"  {text}\r\n")
    assert posted.status_code == 201, posted.text
    message = posted.json()
    assert message == {
        "thread": "table",
        "number": 1,
        "seat": 1,
        "name": "Bob",
        "text": text,
        "deleted": False,
        "at": message["at"],
    }
    assert said(live_server, game).json() == [message], "the table is public"
    again = say(live_server, game, seat_token(game, 0), "gg")
    assert again.json()["number"] == 2 and again.json()["name"] == "Ann"
    page = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and XSS not in page


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("x" * 501, "At most 500 characters."),
        ("\n".join(["line"] * 13), "At most 12 lines."),
        ("bell\x07", "control characters"),
        ("nul\x00byte", "control characters"),
        ("carriage\rreturn", "control characters"),
        ("tab\there", "control characters"),
        ("line\u2028separator", "control characters"),
        ("evil \u202egnp.exe", "bidirectional"),
        ("isolate \u2067x\u2069", "bidirectional"),
        ("zero\u200bwidth", "bidirectional"),
        ("   \n  ", "Must show"),
        ("\u3164\u0301", "Must show"),
        (42, "Not a valid string."),
    ],
)
def test_a_hostile_text_is_refused_with_422_and_nothing_is_kept(
    live_server: BackgroundServer, text: object, problem: str
) -> None:
    game = create(live_server)
    answer = say(live_server, game, seat_token(game, 0), text)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_request"
    assert problem in " ".join(error["details"]["text"])
    assert said(live_server, game).json() == []


def test_emoji_joined_with_zero_width_joiners_are_fine(live_server: BackgroundServer) -> None:
    game = create(live_server)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: three joined
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a non-joiner inside a word
    family = f"{family} {persian}"
    assert say(live_server, game, seat_token(game, 0), family).json()["text"] == family


def test_only_a_seat_of_the_game_posts(live_server: BackgroundServer) -> None:
    game, other = create(live_server), create(live_server)
    for token in (None, game["admin_token"], seat_token(other, 0), "not-a-token"):
        answer = say(live_server, game, token, "hello")
        assert answer.status_code == 401, (token, answer.text)
        assert answer.json()["error"]["code"] == "unauthorized"
    reissued = requests.post(
        live_server.api(f"/games/{game['id']}/seats/0/token"),
        headers=auth(game["admin_token"]),
        timeout=10,
    )
    assert say(live_server, game, seat_token(game, 0), "old token").status_code == 401
    assert say(live_server, game, reissued.json()["token"], "new token").status_code == 201
    missing = requests.post(
        live_server.api("/games/nosuchgame/messages"),
        json={"text": "hi"},
        headers=auth(seat_token(game, 1)),
        timeout=10,
    )
    assert missing.status_code == 404
    assert [m["text"] for m in said(live_server, game).json()] == ["new token"]


def test_a_seat_posts_ten_messages_a_minute_then_gets_429(live_server: BackgroundServer) -> None:
    game = create(live_server)
    token = seat_token(game, 0)
    for number in range(PER_MINUTE):
        assert say(live_server, game, token, f"message {number}").status_code == 201
    refused = say(live_server, game, token, "one too many")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "60"
    assert refused.json()["error"]["code"] == "rate_limited"
    assert say(live_server, game, seat_token(game, 1), "my turn to talk").status_code == 201
    assert len(said(live_server, game).json()) == PER_MINUTE + 1


def test_the_host_deletes_a_message_and_its_text_leaves_the_database(
    live_server: BackgroundServer,
) -> None:
    game = create(live_server)
    secret = "Ring me at +32 470 12 34 56, Bob"
    say(live_server, game, seat_token(game, 0), secret)
    say(live_server, game, seat_token(game, 1), "Let's keep it to the game")
    url = live_server.api(f"/games/{game['id']}/messages/1")
    for token in (seat_token(game, 0), seat_token(game, 1), None):
        answer = requests.delete(url, headers=auth(token) if token else {}, timeout=10)
        assert answer.status_code == 401, "only the host deletes"
    host = auth(game["admin_token"])
    assert requests.delete(url, headers=host, timeout=10).status_code == 204
    first, second = said(live_server, game).json()
    assert first["deleted"] is True and first["text"] is None and first["name"] == "Ann"
    assert second["text"] == "Let's keep it to the game"
    assert requests.delete(url, headers=host, timeout=10).status_code == 404, "deleted twice"
    for number in ("3", "99999999999999999999999"):
        gone = live_server.api(f"/games/{game['id']}/messages/{number}")
        assert requests.delete(gone, headers=host, timeout=10).status_code == 404
    page = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert "deleted by the host" in page and "470 12 34 56" not in page
    store = open_store(live_server.db_path)
    try:
        rows = [row for row in table_rows(store, "messages") if row["game_id"] == game["id"]]
    finally:
        store.close()
    assert [row["text"] for row in rows] == [None, "Let's keep it to the game"]
    assert rows[0]["deleted_at"] and rows[0]["deleted_by"] == "host"
    assert "470 12 34 56" not in database_text(live_server.db_path)
    if "://" not in live_server.db_path:  # SQLite's file is the test's to read
        with sqlite3.connect(live_server.db_path) as db:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        with open(live_server.db_path, "rb") as file:
            assert b"470 12 34 56" not in file.read(), "the text is left in the database file"


def test_a_thread_is_read_a_page_at_a_time(live_server: BackgroundServer) -> None:
    game = create(live_server)
    for seat in (0, 1, 0):
        say(live_server, game, seat_token(game, seat), f"from seat {seat}")
    url = live_server.api(f"/games/{game['id']}/messages")
    first = requests.get(url, params={"limit": 2}, timeout=10)
    assert [m["number"] for m in first.json()] == [1, 2]
    following = first.links["next"]["url"]
    rest = requests.get(live_server.url + following, timeout=10)
    assert [m["number"] for m in rest.json()] == [3] and "next" not in rest.links
    for query in ({"limit": 0}, {"limit": 201}, {"after": -1}, {"thread": "everyone"}):
        assert requests.get(url, params=query, timeout=10).status_code == 422, query


def four_player_siam(server: BackgroundServer) -> dict:
    """A 4-player King of Siam game: Ann and Cleo (seats 0, 2) against Bob and Dan (1, 3)."""
    return create(server, "king-of-siam", 4)


def test_the_partners_thread_is_theirs_alone_in_the_api(live_server: BackgroundServer) -> None:
    game = four_player_siam(live_server)
    plan = "Cleo, I hold Rama: keep Lao for Bangkok"
    posted = say(live_server, game, seat_token(game, 0), plan, "partners")
    assert posted.status_code == 201 and posted.json()["thread"] == "partners"
    assert [m["text"] for m in said(live_server, game, "partners", seat_token(game, 2)).json()] == [
        plan
    ]
    assert said(live_server, game, "partners", seat_token(game, 1)).json() == []
    assert said(live_server, game, "partners", seat_token(game, 3)).json() == []
    assert said(live_server, game).json() == [], "a partner message on the table"
    nobody = said(live_server, game, "partners")
    assert nobody.status_code == 401
    host = said(live_server, game, "partners", game["admin_token"])
    assert host.status_code == 401, "the host reads a partner thread"
    url = live_server.api(f"/games/{game['id']}/messages/1")
    assert requests.delete(url, headers=auth(game["admin_token"]), timeout=10).status_code == 404
    two = create(live_server, "king-of-siam", 2)
    alone = say(live_server, two, seat_token(two, 0), "hi partner", "partners")
    assert alone.status_code == 422 and "partner" in alone.json()["error"]["message"]


def test_the_partners_thread_reaches_their_streams_only(
    live_server: BackgroundServer, streams: list[Stream]
) -> None:
    game = four_player_siam(live_server)
    url = live_server.api(f"/games/{game['id']}/events")
    public = Stream(url)
    partner = Stream(url, **auth(seat_token(game, 2)))
    opponent = Stream(url, **auth(seat_token(game, 1)))
    streams.extend([public, partner, opponent])
    plan = "Dan looks weak in Korat"
    assert say(live_server, game, seat_token(game, 0), plan, "partners").status_code == 201
    assert say(live_server, game, seat_token(game, 3), "Good luck all").status_code == 201
    for stream in (public, opponent):
        events = stream.wait_for("Good luck all")
        assert all(data.get("text") != plan for _, data in events), "the other team read it"
    events = partner.wait_for("Good luck all")
    [message] = [data for kind, data in events if kind == "message" and data["text"] == plan]
    assert message["thread"] == "partners" and message["name"] == "Ann"
    wrong = requests.get(url, headers=auth("forged"), timeout=10)
    assert wrong.status_code == 401


def test_the_partners_thread_is_on_their_pages_only(live_server: BackgroundServer) -> None:
    game = four_player_siam(live_server)
    plan = "Bob bluffs: he has no Maharacha"
    say(live_server, game, seat_token(game, 0), plan, "partners")
    pages = {seat: Browser(live_server, game).take(seat).page() for seat in range(4)}
    assert plan in pages[0] and plan in pages[2]
    assert "Your team" in pages[2] and "only you and Ann read this" in pages[2]
    for seat in (1, 3):
        assert plan not in pages[seat] and "Your team" in pages[seat], seat
    watcher = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert plan not in watcher and "Your team" not in watcher
    panel = requests.get(f"{live_server.url}/games/{game['id']}/talk", timeout=10).text
    assert plan not in panel


def test_a_page_posts_as_its_seat_and_a_refusal_keeps_the_words(
    live_server: BackgroundServer,
) -> None:
    game = create(live_server)
    ann = Browser(live_server, game).take(0)
    sent = ann.post("talk", seat="0", thread="table", text="Hello Bob")
    assert sent.status_code == 200 and "Hello Bob" in sent.text
    assert [m["name"] for m in said(live_server, game).json()] == ["Ann"]
    refused = ann.post("talk", seat="0", thread="table", text="x" * 501)
    assert refused.status_code == 422 and "At most 500 characters." in refused.text
    assert "x" * 501 in refused.text, "the words written are lost"
    as_bob = ann.post("talk", seat="1", thread="table", text="I am Bob")
    assert as_bob.status_code == 403, "a browser talks for a seat it does not hold"
    stranger = requests.Session()
    page = stranger.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert 'id="say-table"' not in page, "a watcher is offered the form"
    no_csrf = ann.session.post(
        f"{live_server.url}/games/{game['id']}/talk",
        data={"seat": "0", "text": "forged"},
        timeout=10,
    )
    assert no_csrf.status_code == 400
    assert [m["text"] for m in said(live_server, game).json()] == ["Hello Bob"]


def test_a_mute_hides_the_muted_seat_everywhere_its_seat_reads(
    live_server: BackgroundServer, streams: list[Stream]
) -> None:
    game = create(live_server)
    ann, bob = Browser(live_server, game).take(0), Browser(live_server, game).take(1)
    say(live_server, game, bob.token, "You will lose, Ann")
    muted = ann.post("talk/mute", seat="0", other="1", muted="1")
    assert muted.status_code == 200 and "You muted Bob" in muted.text
    assert "You will lose" not in ann.page()
    assert said(live_server, game, token=ann.token).json() == []
    assert len(said(live_server, game).json()) == 1, "the mute hides it from everyone"
    stream = Stream(live_server.api(f"/games/{game['id']}/events"), **auth(ann.token))
    page_stream = Stream(
        f"{live_server.url}/games/{game['id']}/events",
        Cookie="; ".join(f"{c.name}={c.value}" for c in ann.session.cookies),
    )
    streams.extend([stream, page_stream])
    say(live_server, game, bob.token, "Still losing?")
    say(live_server, game, ann.token, "I cannot hear you")
    for reading in (stream, page_stream):
        events = reading.wait_for("I cannot hear you")
        assert all(data.get("seat") != 1 for kind, data in events if kind == "message")
    assert "You will lose" in bob.page(), "the mute is Ann's, not Bob's"
    ann.post("talk/mute", seat="0", other="1", muted="0")
    assert "You will lose" in ann.page()
    for other in ("0", "2", "x"):
        refused = ann.post("talk/mute", seat="0", other=other, muted="1")
        assert refused.status_code == 422, other


def test_a_signed_in_player_talks_as_their_seat_from_any_browser(
    live_server: BackgroundServer,
) -> None:
    game = create(live_server)
    store = open_store(live_server.db_path)
    try:
        email = "cleo@example.org"
        player = Player("p-cleo", email, email, "Cleo", "UTC", "en", "turn", utcnow())
        with store.write():
            store.add_player(player)
            store.tie_seat(game["id"], 1, player.id)
        session = AccountService(store, "unused").open_session(player.id)
    finally:
        store.close()
    laptop = Browser(live_server, game)
    laptop.session.cookies.set(SESSION_COOKIE, session)
    page = laptop.page()
    assert 'id="say-table"' in page and 'name="seat" value="1"' in page
    assert laptop.post("talk", seat="1", text="Signed in, no seat link").status_code == 200
    assert laptop.post("talk", seat="0", text="As Ann").status_code == 403
    assert [(m["seat"], m["text"]) for m in said(live_server, game).json()] == [
        (1, "Signed in, no seat link")
    ]
    other = create(live_server)
    elsewhere = laptop.session.get(f"{live_server.url}/games/{other['id']}", timeout=10).text
    assert 'id="say-table"' not in elsewhere, "a player talks in a game they have no seat in"


def test_twenty_messages_at_once_from_one_seat_post_exactly_ten(
    live_server: BackgroundServer,
) -> None:
    game = create(live_server)
    token = seat_token(game, 0)
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda n: say(live_server, game, token, f"burst {n}"), range(20)))
    assert sorted(answer.status_code for answer in answers) == [201] * 10 + [429] * 10
    numbers = sorted(message["number"] for message in said(live_server, game).json())
    assert numbers == list(range(1, 11)), "two messages got one number"


def test_a_talk_stream_stays_open_after_the_end_for_the_gg(
    live_server: BackgroundServer, streams: list[Stream]
) -> None:
    game = create(live_server)
    for ply, notation in enumerate(WINNING_LINE):
        move = requests.post(
            live_server.api(f"/games/{game['id']}/moves"),
            json={"notation": notation},
            headers=auth(seat_token(game, ply % 2)),
            timeout=10,
        )
        assert move.status_code == 201, move.text
    url = live_server.api(f"/games/{game['id']}/events")
    seq = str(len(WINNING_LINE))
    assert requests.get(url, headers={"Last-Event-ID": seq}, timeout=10).status_code == 204
    seen_all = Stream(f"{url}?talk=true", **{"Last-Event-ID": seq})
    from_start = Stream(f"{url}?talk=true")
    streams.extend([seen_all, from_start])
    say(live_server, game, seat_token(game, 1), "gg")
    kinds = [kind for kind, _ in seen_all.wait_for("gg")]
    assert kinds == ["message"], "the end was told again"
    kinds = [kind for kind, _ in from_start.wait_for("gg")]
    assert kinds == ["move"] * len(WINNING_LINE) + ["end", "message"]
