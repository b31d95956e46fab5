"""Tables, host controls and rematches (issue 21) and the attacks on them, against a real
server.

Joining without signing in or without the form's CSRF token, joining a full, cancelled or
expired table, two players racing for the last seat (exactly one sits down), the host's
controls used by anyone else or with bad input, forged, reused and given-up links, a
rematch asked by a stranger or twice at once, moves at a table that has not started; the
lobby lists tables to join and no running game, hiding takes a game out of every list,
the host sets and lifts the clock.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable
from typing import Any

import pytest
import requests

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.store import open_store
from server.store.records import Player
from tests.mail.conftest import MAIL_SETTINGS
from tests.mail.players import move
from tests.mail.test_tables import SIAM_LINE
from tests.support import BackgroundServer, forged, run_command, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

#: The settings of the module's ``live_server`` (tests/conftest.py).
LIVE_SERVER_ENVIRONMENT = MAIL_SETTINGS


@pytest.fixture(scope="module")
def server(live_server: BackgroundServer) -> BackgroundServer:
    """gunicorn with two worker processes (joins race across them) and the mail settings."""
    return live_server


class Browser:
    """A person's browser (a requests session), signed in or not."""

    def __init__(self, server: BackgroundServer, session_token: str | None = None) -> None:
        self.server = server
        self.http = requests.Session()
        if session_token:
            self.http.cookies.set("turnpost_player", session_token)

    def csrf(self, path: str = "/") -> str:
        """The CSRF token of this browser's forms."""
        page = self.http.get(self.server.url + path, timeout=10).text
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def post(self, path: str, csrf: bool = True, **data: str) -> requests.Response:
        """Post a form of our pages (with the CSRF token unless ``csrf`` is false)."""
        form = {"csrf_token": self.csrf()} if csrf else {}
        return self.http.post(
            self.server.url + path, data={**form, **data}, timeout=10, allow_redirects=False
        )

    def get(self, path: str, **headers: str) -> requests.Response:
        """A page of the server."""
        return self.http.get(self.server.url + path, headers=headers, timeout=10)


def player(server: BackgroundServer, name: str) -> Browser:
    """A browser signed in as a new player ``name`` (a session opened as following a sign-in
    link does; the sign-in itself is tested in test_sign_in.py)."""
    store = open_store(server.db_path)
    player_id = secrets.token_hex(8)
    email = f"{name.lower()}.{player_id}@example.org"
    with store.write():
        store.add_player(Player(player_id, email, email, name, "UTC", "en", "turn", utcnow()))
    token = AccountService(store, "unused").open_session(player_id)
    store.close()
    return Browser(server, token)


def at_once(*calls: Callable[[], requests.Response]) -> list[requests.Response]:
    """Make the ``calls`` at the same moment (threads behind a barrier); their answers."""
    start = threading.Barrier(len(calls))
    answers: list[requests.Response | None] = [None] * len(calls)

    def run(index: int) -> None:
        start.wait()
        answers[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def prepared(who: Browser, path: str) -> Callable[[], requests.Response]:
    """A form post of ``who`` to ``path``, its CSRF token fetched now, to be sent later."""
    url, form = who.server.url + path, {"csrf_token": who.csrf()}
    return lambda: who.http.post(url, data=form, timeout=20, allow_redirects=False)


def new_table(host: Browser, engine: str = "siam", **fields: str) -> str:
    """A table created with the lobby form by ``host``: Ann's named seat and open ones."""
    seats = {"siam": 2, "king-of-siam": 3}[engine]
    form = {"engine": engine, "name0": "Ann", **{f"open{n}": "on" for n in range(1, seats)}}
    answer = host.post("/games", **{**form, **fields})
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"].split("/")[2]


def public(server: BackgroundServer, game_id: str) -> dict[str, Any]:
    """The public game object."""
    return requests.get(server.api(f"/games/{game_id}"), timeout=10).json()


def stored(server: BackgroundServer, game_id: str) -> tuple[Any, ...]:
    """The game's row, its seats and seat tokens as stored (what a refused control must not
    change)."""
    store = open_store(server.db_path)
    rows = (
        store.game(game_id),
        store.seats(game_id),
        [row for row in table_rows(store, "seat_tokens") if row["game_id"] == game_id],
        store.outbox_count(game_id=game_id),
    )
    store.close()
    return rows


def test_joining_takes_a_signed_in_player_a_csrf_token_and_gives_one_seat_each(
    server: BackgroundServer,
) -> None:
    host, bob, cy, dan = (player(server, name) for name in ("Host", "Bob", "Cy", "Dan"))
    game_id = new_table(host, "king-of-siam")
    stranger = Browser(server)
    assert stranger.post(f"/tables/{game_id}/join").status_code == 401
    assert bob.post(f"/tables/{game_id}/join", csrf=False).status_code == 400
    assert public(server, game_id)["open_seats"] == 2
    etag = requests.get(server.api(f"/games/{game_id}"), timeout=10).headers["ETag"]
    assert bob.post(f"/tables/{game_id}/join").status_code == 303
    polled = requests.get(
        server.api(f"/games/{game_id}"), headers={"If-None-Match": etag}, timeout=10
    )
    assert polled.status_code == 200, "a client polling the table missed a player joining"
    assert bob.post(f"/tables/{game_id}/join").status_code == 303  # again: the same seat
    assert public(server, game_id)["open_seats"] == 1
    assert cy.post(f"/tables/{game_id}/join").status_code == 303
    full = dan.post(f"/tables/{game_id}/join")
    assert full.status_code == 409 and "Every seat of this table is taken" in full.text
    table = public(server, game_id)
    assert table["status"] == "forming", "Ann's named seat is not taken yet"
    assert [p["name"] for p in table["players"]] == ["Ann", "Bob", "Cy"]


def test_a_full_table_is_refused_in_the_readers_language(server: BackgroundServer) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    game_id = new_table(host)
    assert bob.post(f"/tables/{game_id}/join").status_code == 303
    full = {
        "en": "Every seat of this table is taken.",
        "nl": "Elke plaats aan deze tafel is bezet.",
        "de": "Jeder Platz an diesem Tisch ist besetzt.",
        "fr": "Toutes les places de cette table sont prises.",
    }
    for language, words in full.items():
        late = player(server, f"Late{language}")
        late.http.headers["Accept-Language"] = language
        refused = late.post(f"/tables/{game_id}/join")
        assert refused.status_code == 409 and words in refused.text, (language, refused.text)
        others = [other for other in full.values() if other != words]
        assert not any(other in refused.text for other in others)


def test_two_joins_for_the_last_seat_seat_exactly_one_player(server: BackgroundServer) -> None:
    host, bob, cy = (player(server, name) for name in ("Host", "Bob", "Cy"))
    for _ in range(6):
        game_id = new_table(host)
        path = f"/tables/{game_id}/join"
        answers = at_once(prepared(bob, path), prepared(cy, path))
        assert sorted(answer.status_code for answer in answers) == [303, 409], answers
        winner = "Bob" if answers[0].status_code == 303 else "Cy"
        table = public(server, game_id)
        assert [p["name"] for p in table["players"]] == ["Ann", winner]
        assert table["open_seats"] == 0


def test_a_cancelled_or_expired_table_refuses_joins_and_the_worker_cancels_it(
    server: BackgroundServer,
) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    cancelled = new_table(host)
    assert host.post(f"/games/{cancelled}/host/stop").status_code == 422  # not ticked as sure
    assert public(server, cancelled)["status"] == "forming"
    assert host.post(f"/games/{cancelled}/host/stop", sure="yes").status_code == 303
    refused = bob.post(f"/tables/{cancelled}/join")
    assert refused.status_code == 409 and "cancelled" in refused.text
    assert "This table was cancelled" in bob.get(f"/tables/{cancelled}").text

    expired = new_table(host)
    store = open_store(server.db_path)
    with store.write():
        store.update_game(expired, {"forming_until": "2020-01-01T00:00:00.000000Z"})
    store.close()
    assert f"/tables/{expired}" not in bob.get("/").text
    late = bob.post(f"/tables/{expired}/join")
    assert late.status_code == 409 and "expired" in late.text
    env = {"TURNPOST_DB": server.db_path, **MAIL_SETTINGS}
    process = run_command(["send-mail"], env)
    process.communicate(timeout=60)
    assert public(server, expired)["status"] == "aborted"


HOST_ROUTES = [
    ("stop", {"sure": "yes"}),
    ("seats/0/remove", {}),
    ("clock", {"turn_hours": "24", "deadline_policy": "remind"}),
    ("hide", {"hidden": "yes"}),
    ("seats/0/invite", {}),
    ("seats/0/replace", {}),
]


@pytest.mark.parametrize(("route", "form"), HOST_ROUTES, ids=[r for r, _ in HOST_ROUTES])
def test_the_host_controls_refuse_everyone_but_the_host(
    server: BackgroundServer, route: str, form: dict[str, str]
) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    game_id = new_table(host, email0="ann@example.org")
    path = f"/games/{game_id}/host/{route}"
    before = stored(server, game_id)
    assert Browser(server).post(path, **form).status_code == 401
    assert bob.post(path, **form).status_code == 403
    assert host.post(path, csrf=False, **form).status_code == 400
    assert stored(server, game_id) == before, "a refused control changed the game"


def test_the_host_controls_refuse_bad_input_in_words(server: BackgroundServer) -> None:
    host = player(server, "Host")
    game_id = new_table(host, email0="ann@example.org")
    before = stored(server, game_id)
    for hours in ("abc", "-5", "99999", "1e3", "\u00b2"):
        answer = host.post(
            f"/games/{game_id}/host/clock", turn_hours=hours, deadline_policy="remind"
        )
        assert answer.status_code == 422, (hours, answer.status_code)
    bad_policy = host.post(f"/games/{game_id}/host/clock", turn_hours="24", deadline_policy="x")
    assert bad_policy.status_code == 422
    for route in ("seats/9/remove", "seats/9/invite", "seats/9/replace"):
        assert host.post(f"/games/{game_id}/host/{route}").status_code == 404, route
    open_seat = host.post(f"/games/{game_id}/host/seats/1/invite")
    assert open_seat.status_code == 422 and "has no address" in open_seat.text
    assert host.post("/games/nosuchgame/host/hide", hidden="yes").status_code == 404
    assert stored(server, game_id) == before


def test_forged_reused_and_given_up_links_are_refused(server: BackgroundServer) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    created = host.post("/games", engine="king-of-siam", name0="Ann", open1="on", open2="on")
    created_page = host.get(created.headers["Location"]).text
    game_id = created.headers["Location"].split("/")[2]
    token = re.search(r">http[^<]+/seat/([^<]+)</code>", created_page).group(1)
    forgeries = [forged(token), "0.1700000000000.0123456789abcdef0123456789abcdef", "x" * 500]
    for credential in forgeries:
        answer = bob.get(f"/games/{game_id}/seat/{credential}", **{"Sec-Fetch-Site": "none"})
        assert answer.status_code == 401, credential
    ann = Browser(server)
    assert ann.get(f"/games/{game_id}/seat/{token}", **{"Sec-Fetch-Site": "none"}).ok
    reused = bob.get(f"/games/{game_id}/seat/{token}", **{"Sec-Fetch-Site": "none"})
    assert reused.status_code == 401 and "already opened" in reused.text
    assert bob.post(f"/tables/{game_id}/join").status_code == 303
    assert "You sit at this table" in bob.get(f"/tables/{game_id}").text
    bob_token = bob.http.cookies.get(f"turnpost_seat_{game_id}")
    seat = next(p["seat"] for p in public(server, game_id)["players"] if p["name"] == "Bob")
    assert host.post(f"/games/{game_id}/host/seats/{seat}/remove").status_code == 303
    assert "You sit at this table" not in bob.get(f"/tables/{game_id}").text
    as_bob = {"Authorization": f"Bearer {bob_token}"}
    gone = requests.get(server.api(f"/games/{game_id}"), headers=as_bob, timeout=10)
    assert gone.status_code == 401, "a removed player's browser still holds the seat"
    table = public(server, game_id)
    assert table["open_seats"] == 2 and [p["name"] for p in table["players"]] == ["Ann"]


def play_out(server: BackgroundServer, game: dict[str, Any]) -> None:
    """Play :data:`SIAM_LINE` over the API with the handed tokens."""
    for notation in SIAM_LINE:
        move(server, game, public(server, game["id"])["to_move"][0], notation)


def test_a_rematch_is_for_the_players_of_a_finished_game_and_made_once(
    server: BackgroundServer,
) -> None:
    ann, bob, eve = (player(server, name) for name in ("Ann", "Bob", "Eve"))
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(server.api("/games"), json=body, timeout=10).json()
    running = ann.post(f"/games/{game['id']}/rematch")
    assert running.status_code == 403, "a stranger to the game asked for its rematch"
    play_out(server, game)
    for who, entry in zip((ann, bob), game["players"], strict=True):
        opened = who.get(f"/games/{game['id']}/seat/{entry['token']}", **{"Sec-Fetch-Site": "none"})
        assert opened.ok  # signed in: the seat is theirs now
    assert eve.post(f"/games/{game['id']}/rematch").status_code == 403
    path = f"/games/{game['id']}/rematch"
    answers = at_once(prepared(ann, path), prepared(bob, path))
    assert all(answer.status_code == 303 for answer in answers)
    rematches = {answer.headers["Location"].split("/")[2] for answer in answers}
    assert len(rematches) == 1, "two rematches of one game"
    [rematch] = rematches
    store = open_store(server.db_path)
    assert store.rematch_of(game["id"]) == rematch
    store.close()


def test_a_game_in_progress_has_no_rematch(server: BackgroundServer) -> None:
    ann = player(server, "Ann")
    created = ann.post("/games", engine="siam", name0="Ann", name1="Bob").headers["Location"]
    game_id = created.split("/")[2]
    token = re.search(r">http[^<]+/seat/([^<]+)</code>", ann.get(created).text).group(1)
    assert ann.get(f"/games/{game_id}/seat/{token}", **{"Sec-Fetch-Site": "none"}).ok
    refused = ann.post(f"/games/{game_id}/rematch")
    assert refused.status_code == 422 and "played out" in refused.text


def test_a_table_that_has_not_started_takes_no_move_over_the_api(server: BackgroundServer) -> None:
    players = [{"name": "Ann", "email": "ann@example.org"}, {"open": True}]
    refused = [
        {"engine": "siam", "players": [{"name": "Ann"}, {"open": True, "name": "Eve"}]},
        {"engine": "siam", "players": [{"name": "Ann"}, {"open": True, "email": "e@x.org"}]},
        {"engine": "king-of-siam", "players": [{"name": "A"}, {"open": True}], "position": {}},
        {"engine": "siam", "players": [{"name": "Ann"}, {"open": "yes"}]},
        {"engine": "siam", "players": [{"name": "Ann"}, {}]},
        {"engine": "siam", "players": [{"name": "Ann"}, {"open": True}], "seating": "random"},
    ]
    for body in refused:
        answer = requests.post(server.api("/games"), json=body, timeout=10)
        assert answer.status_code == 422, (body, answer.text)
    game = requests.post(
        server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    ).json()
    assert game["status"] == "forming" and game["state"] is None and game["open_seats"] == 1
    assert [p["name"] for p in game["players"]] == ["Ann"] and "email" not in str(game)
    seat = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    for path, body in (("moves", {"notation": "enter a1 N"}), ("resign", {})):
        answer = requests.post(
            server.api(f"/games/{game['id']}/{path}"), json=body, headers=seat, timeout=10
        )
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_started"
    listed = requests.get(server.api("/games"), params={"status": "forming"}, timeout=10).json()
    assert game["id"] in [entry["id"] for entry in listed["games"]]
    events = requests.get(server.api(f"/games/{game['id']}/events"), stream=True, timeout=10)
    assert events.status_code == 200, "a forming table's event stream ended at once"
    events.close()
    admin = {"Authorization": f"Bearer {game['admin_token']}"}
    stopped = requests.post(server.api(f"/games/{game['id']}/abort"), headers=admin, timeout=10)
    assert stopped.status_code == 200 and stopped.json()["status"] == "aborted"


def test_the_lobby_lists_tables_to_join_but_no_running_game_and_hiding_takes_a_table_out(
    server: BackgroundServer,
) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    running = requests.post(server.api("/games"), json=body, timeout=10).json()
    game_id = new_table(host, turn_hours="72")
    lobby = Browser(server).get("/").text
    assert running["id"] not in lobby, "the lobby lists a running game to a stranger"
    assert f"/tables/{game_id}" in lobby and "3 days a move" in lobby
    assert host.post(f"/games/{game_id}/host/hide", hidden="yes").status_code == 303
    assert f"/tables/{game_id}" not in Browser(server).get("/").text
    listed = requests.get(server.api("/games"), params={"limit": 200}, timeout=10).json()
    assert game_id not in [entry["id"] for entry in listed["games"]]
    assert bob.post(f"/tables/{game_id}/join").status_code == 303, "its link still lets in"
    assert f"/games/{game_id}" in bob.get("/").text, "a player's own games are in their lobby"
    assert host.post(f"/games/{game_id}/host/hide", hidden="no").status_code == 303
    listed = requests.get(server.api("/games"), params={"limit": 200}, timeout=10).json()
    assert game_id in [entry["id"] for entry in listed["games"]]


def test_the_host_sets_and_lifts_the_clock_of_a_running_game(server: BackgroundServer) -> None:
    host = player(server, "Host")
    created = host.post("/games", engine="siam", name0="Ann", name1="Bob").headers["Location"]
    game_id = created.split("/")[2]
    assert public(server, game_id)["deadline"] is None
    page = host.get(f"/games/{game_id}").text
    assert "You host this game" in page and 'id="host-clock"' in page
    clock = {"turn_hours": "24", "deadline_policy": "forfeit"}
    assert host.post(f"/games/{game_id}/host/clock", **clock).status_code == 303
    assert public(server, game_id)["deadline"] is not None
    store = open_store(server.db_path)
    row = store.game(game_id)
    store.close()
    assert (row.turn_hours, row.deadline_policy) == (24, "forfeit")
    lifted = {"turn_hours": "", "deadline_policy": "remind"}
    assert host.post(f"/games/{game_id}/host/clock", **lifted).status_code == 303
    assert public(server, game_id)["deadline"] is None
    assert host.post(f"/games/{game_id}/host/stop", sure="yes").status_code == 303
    assert public(server, game_id)["status"] == "aborted"
    again = host.post(f"/games/{game_id}/host/stop", sure="yes")
    assert again.status_code == 409


def test_the_host_keeps_a_bank_clock_while_changing_the_policy(server: BackgroundServer) -> None:
    host = player(server, "Host")
    form = {"engine": "siam", "name0": "Ann", "name1": "Bob", "turn_hours": "bank"}
    game_id = host.post("/games", **form, pause_weekends="on").headers["Location"].split("/")[2]
    page = host.get(f"/games/{game_id}").text
    assert '<option value="keep" selected>keep: 10 days, 1.5 days more a move' in page
    kept = {"turn_hours": "keep", "deadline_policy": "forfeit"}
    assert host.post(f"/games/{game_id}/host/clock", **kept).status_code == 303
    clock = public(server, game_id)["clock"]
    assert clock["kind"] == "bank" and clock["pause"]["weekdays"] == ["sat", "sun"]
    store = open_store(server.db_path)
    assert store.game(game_id).deadline_policy == "forfeit"
    store.close()
    bad = host.post(f"/games/{game_id}/host/clock", turn_hours="keep", deadline_policy="x")
    assert bad.status_code == 422


def test_the_host_gives_a_running_game_a_bank_with_quiet_weekends(
    server: BackgroundServer,
) -> None:
    """The host panel offers the lobby's bank and quiet weekends; a form without the CSRF
    token changes nothing; a per-move clock afterwards replaces the bank."""
    host = player(server, "Host")
    game_id = host.post("/games", engine="siam", name0="Ann", name1="Bob").headers["Location"]
    game_id = game_id.split("/")[2]
    page = host.get(f"/games/{game_id}").text
    assert '<option value="bank">a time bank: 10 days, 1.5 days more a move' in page
    assert 'name="pause_weekends"' in page
    bank = {"turn_hours": "bank", "pause_weekends": "on", "deadline_policy": "forfeit"}
    path = f"/games/{game_id}/host/clock"
    assert host.post(path, csrf=False, **bank).status_code == 400
    assert public(server, game_id)["clock"] is None
    assert host.post(path, **bank).status_code == 303
    clock = public(server, game_id)["clock"]
    assert (clock["kind"], clock["bank_hours"], clock["increment_hours"]) == ("bank", 240, 36)
    assert clock["max_bank_hours"] == 480 and clock["pause"]["weekdays"] == ["sat", "sun"]
    running = clock["seats"][0]
    assert running["runs_out_at"] is not None and running["remaining_seconds"] > 239 * 3600
    assert host.post(path, turn_hours="24", deadline_policy="remind").status_code == 303
    game = public(server, game_id)
    assert (game["clock"]["kind"], game["clock"]["hours"]) == ("per_move", 24)
    assert "pause" not in game["clock"] or not game["clock"]["pause"]


def test_the_created_page_says_plainly_when_this_server_cannot_send_mail(
    server: BackgroundServer,
) -> None:
    host = player(server, "Host")  # this server has no TURNPOST_SMTP_URL
    created = host.post("/games", engine="siam", name0="Ann", name1="Bob", email1="b@example.org")
    page = host.get(created.headers["Location"]).text
    assert "This server cannot send mail" in page and "nobody will be mailed" in page
    assert "is mailed an invitation" not in page and "b@example.org" not in page
    plain = host.post("/games", engine="siam", name0="Ann", name1="Bob")
    assert "cannot send mail" not in host.get(plain.headers["Location"]).text  # nobody to mail
