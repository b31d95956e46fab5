"""Seats of their own (issue 20): the attacks on seat tokens, mail links and the creator's page,
replayed against a real server process, a real worker and a real SMTP server.

- **The mail relay through the creator's tokens.** The creation answer hands the creator
  every seat's token; a move made with a stranger's token counted as the stranger acting,
  so a creator playing both seats had Turnpost mail the stranger every round, with the
  creator's words ("BUY CHEAP PILLS at evil.example") in the subject.
- **A mail's link outlived a reissue and was a full API token.**
- **The creator read every hand** with the tokens the creation answer returned, and the
  lobby kept those tokens in the creator's session cookie, sent with every request.
- **A seat link without ``Sec-Fetch-Site``** (older browsers, link scanners) took the seat at once.
"""

from __future__ import annotations

import re
import time
from email.message import EmailMessage
from typing import Any

import requests

from tests.mail.conftest import BASE_URL, Sink, first_mail
from tests.mail.samples import text_of
from tests.server.test_web import OPENED
from tests.support import BackgroundServer
from tests.web.test_pages import create_from_lobby

#: The app, the worker and the mail run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True
SPAM = "BUY CHEAP PILLS at evil.example"
VICTIM = "victim@example.org"


def create(server: BackgroundServer, engine: str, players: list[dict[str, str]]) -> dict[str, Any]:
    """A game made over the API; the answer with every token."""
    answer = requests.post(
        server.api("/games"), json={"engine": engine, "players": players}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_first_moves(server: BackgroundServer, game: dict[str, Any], plies: int) -> None:
    """Play ``plies`` moves, each the first legal one, with the mover's token from the creation."""
    for _ in range(plies):
        seat = requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()["to_move"][0]
        token = game["players"][seat]["token"]
        url = server.api(f"/games/{game['id']}/legal-moves")
        move = requests.get(url, headers=bearer(token), timeout=10).json()["moves"][0]
        played = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            json={"notation": move["notation"]},
            headers=bearer(token),
            timeout=10,
        )
        assert played.status_code == 201, played.text


def mails_to(sink: Sink, address: str, settle: float = 3.0) -> list[EmailMessage]:
    """The mails the sink got for ``address`` once the worker had ``settle`` quiet seconds."""
    count, quiet_since = -1, time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = len(sink.messages)
        if now != count:
            count, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since > settle:
            break
        time.sleep(0.1)
    return [mail for mail in sink.messages if mail["To"] == address]


def local(server: BackgroundServer, mail: EmailMessage) -> str:
    """The seat link of a mail, on the test server."""
    [link] = re.findall(r"^(https://\S+/games/\w+/seat/\S+)$", text_of(mail), re.M)
    return server.url + link.removeprefix(BASE_URL)


def test_the_creator_playing_a_strangers_seat_gets_them_one_mail_without_the_creators_words(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    game = create(mail_server, "siam", [{"name": SPAM}, {"name": SPAM, "email": VICTIM}])
    play_first_moves(mail_server, game, 1)
    first_mail(sink, VICTIM)  # the worker mailed the stranger's turn: the attack goes on
    for _ in range(15):  # eight rounds in all: the creator plays both seats, the worker mails
        play_first_moves(mail_server, game, 1)
        time.sleep(0.5)
    [invitation] = mails_to(sink, VICTIM)
    assert "PILLS" not in invitation["Subject"] and "evil" not in invitation["Subject"]
    assert invitation["Subject"].startswith("Your turn in Siam (move ")
    assert "only mail Turnpost sends you about this game" in " ".join(text_of(invitation).split())
    read = requests.get(mail_server.api(f"/games/{game['id']}"), timeout=10).json()
    assert read["seq"] == 16, "the game went on all the same"
    # the player opens the link of that one mail: their seat is theirs, and mail flows
    opened = requests.Session().get(local(mail_server, invitation), headers=OPENED, timeout=10)
    assert opened.status_code == 200 and "(you)" in opened.text
    url = mail_server.api(f"/games/{game['id']}/legal-moves")
    creators = requests.get(url, headers=bearer(game["players"][1]["token"]), timeout=10)
    assert creators.status_code == 401, "the creator still holds the player's seat"
    play_first_moves(mail_server, {**game, "players": game["players"][:1]}, 1)
    first, turn = mails_to(sink, VICTIM)
    assert first is invitation or first["Message-ID"] == invitation["Message-ID"]
    assert (
        turn["Subject"].startswith("Your turn in Siam with BUY CHEAP")
        and "(move 18)" in turn["Subject"]
    ), "the player chose to play with them: their name is in the subject now"


def test_a_mails_link_is_no_api_token_and_dies_with_a_reissue(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    game = create(mail_server, "siam", [{"name": "Ann", "email": VICTIM}, {"name": "Bob"}])
    link = local(mail_server, first_mail(smtp_sink[0], VICTIM))
    mail_pass = link.rsplit("/", 1)[1]
    gid = game["id"]
    for method, path, body in [
        ("GET", f"/games/{gid}", None),
        ("GET", f"/games/{gid}/legal-moves", None),
        ("POST", f"/games/{gid}/moves", {"notation": "enter a1 N"}),
    ]:
        answer = requests.request(
            method, mail_server.api(path), json=body, headers=bearer(mail_pass), timeout=10
        )
        assert answer.status_code == 401, (path, answer.text)
    admin = bearer(game["admin_token"])
    url = mail_server.api(f"/games/{gid}/seats/0/token")
    new = requests.post(url, headers=admin, timeout=10).json()["token"]
    dead = requests.get(link, headers=OPENED, timeout=10)
    assert dead.status_code == 401 and "expired" in dead.text and "Set-Cookie" not in dead.headers
    read = requests.get(mail_server.api(f"/games/{gid}"), headers=bearer(new), timeout=10).json()
    assert read["you"] == 0 and read["players"][0]["reissued_at"]
    assert "admin gave Ann a new link" in requests.get(f"{mail_server.url}/games/{gid}").text
    for _ in range(4):
        assert requests.post(url, headers=admin, timeout=10).status_code == 200
    limited = requests.post(url, headers=admin, timeout=10)
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) > 0


def test_the_creator_reads_no_hand_once_its_player_opened_their_mails_link(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    players = [{"name": "Ann", "email": VICTIM}, {"name": "Bob", "email": "bob@example.org"}]
    game = create(mail_server, "king-of-siam", players)
    gid, creators = game["id"], [bearer(player["token"]) for player in game["players"]]
    hand = requests.get(mail_server.api(f"/games/{gid}"), headers=creators[0], timeout=10)
    assert hand.json()["state"]["hand"], "the handed token reads the hand before"
    page = requests.get(f"{mail_server.url}/games/{gid}", timeout=10).text
    assert "see the hand of each player who has not opened their own link yet (Ann and Bob)" in (
        " ".join(page.split())
    )
    while requests.get(mail_server.api(f"/games/{gid}"), timeout=10).json()["to_move"] != [0]:
        play_first_moves(mail_server, game, 1)  # Bob began: the creator plays him to Ann's turn
    mail = first_mail(smtp_sink[0], VICTIM)
    browser = requests.Session()
    opened = browser.get(local(mail_server, mail), headers=OPENED, timeout=10)
    assert opened.status_code == 200 and "(you)" in opened.text
    stolen = requests.get(mail_server.api(f"/games/{gid}"), headers=creators[0], timeout=10)
    assert stolen.status_code == 401, "the creator still reads Ann's hand"
    public = requests.get(mail_server.api(f"/games/{gid}"), timeout=10).json()
    assert [p["private"] for p in public["players"]] == [True, False]
    page = " ".join(requests.get(f"{mail_server.url}/games/{gid}", timeout=10).text.split())
    assert "who has not opened their own link yet (Bob)" in page
    again = browser.get(local(mail_server, mail), headers=OPENED, timeout=10)
    assert again.status_code == 200, "a mail's link opens the seat in another browser too"


def test_a_first_seat_link_without_sec_fetch_site_asks_and_a_scanner_uses_nothing_up(
    mail_server: BackgroundServer,
) -> None:
    game = create(mail_server, "siam", [{"name": "Ann"}, {"name": "Bob"}])
    link = f"{mail_server.url}/games/{game['id']}/seat/{game['players'][1]['token']}"
    scanner = requests.Session()  # no Sec-Fetch-Site: an older browser, or a mail's link scanner
    asked = scanner.get(link, timeout=10)
    assert asked.status_code == 200 and 'id="claim"' in asked.text
    assert not [cookie for cookie in scanner.cookies if cookie.name.startswith("turnpost_seat")]
    still = requests.get(
        mail_server.api(f"/games/{game['id']}"),
        headers=bearer(game["players"][1]["token"]),
        timeout=10,
    )
    assert still.status_code == 200 and still.json()["you"] == 1, "the scan used the link up"
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', asked.text).group(1)
    taken = scanner.post(link, data={"csrf_token": csrf}, timeout=10)
    assert taken.status_code == 200 and "(you)" in taken.text
    used = requests.get(link, headers=OPENED, timeout=10)
    assert used.status_code == 401 and "already opened in a browser" in used.text


def test_the_creators_page_cookie_holds_no_token_and_goes_to_that_page_only(
    mail_server: BackgroundServer,
) -> None:
    session, created = create_from_lobby(mail_server)
    page = session.get(created, timeout=10).text
    tokens = [
        link.rsplit("/", 1)[1] for link in re.findall(r">(http[^<]+/seat/[^<]+)</code>", page)
    ]
    admin = re.search(r'<code id="admin-token">([^<]+)</code>', page).group(1)
    assert len(tokens) == 2
    for cookie in session.cookies:
        assert all(secret not in cookie.value for secret in [*tokens, admin]), cookie.name
    [key] = [cookie for cookie in session.cookies if cookie.name == "turnpost_created"]
    assert key.path == created.removeprefix(mail_server.url) and key.has_nonstandard_attr(
        "HttpOnly"
    )
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    stolen = key.value
    session.post(f"{created}/forget", data={"csrf_token": csrf}, timeout=10)
    replayed = requests.get(created, cookies={"turnpost_created": stolen}, timeout=10)
    assert replayed.status_code == 403, "a forgotten page's key still shows the links"
    assert all(token not in replayed.text for token in tokens)
