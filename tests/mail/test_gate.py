"""Turnpost is not an open relay: who gets mail, how much, and the "never mail me again" link."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from server import create_app
from server.games.clock import format_time, parse_time
from server.games.deadlines import process_deadlines
from server.games.service import GameService
from server.mail.inbound import receive
from server.store import open_store
from tests.mail.conftest import DOMAIN, PLAYERS, Mailbox, Sink, opened_links, reply_to, send
from tests.support import database_text, forged, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

BASE_URL = "https://turnpost.example.org"
STRANGER = "stranger@example.org"


def mails_to(games: GameService, address: str) -> list[dict[str, Any]]:
    """The outbox rows to ``address``, oldest first."""
    return [row for row in table_rows(games.store, "outbox") if row["to_addr"] == address]


@pytest.fixture
def limited_app(db_url: str, smtp_sink: tuple[Sink, str]):
    """An app with small mail limits, so that tests reach them quickly."""
    return create_app(
        {
            "TURNPOST_DB": db_url,
            "TESTING": True,
            "TURNPOST_MAIL_DOMAIN": DOMAIN,
            "TURNPOST_BASE_URL": BASE_URL,
            "TURNPOST_SMTP_URL": smtp_sink[1],
            "TURNPOST_MAIL_INVITES_ADDRESS": "2/day",
            "TURNPOST_MAIL_INVITES_CLIENT": "3/day",
            "TURNPOST_MAIL_LIMIT_ADDRESS": "6/day",
            "TURNPOST_MAIL_LIMIT_CLIENT": "9/day",
            "RATELIMIT_ENABLED": False,
        }
    )


def service_of(app) -> GameService:
    """A game service on its own connection to ``app``'s database (outside any request)."""
    turnpost = app.extensions["turnpost"]
    return GameService(open_store(turnpost.db_url), turnpost.notifier)


def create(app, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """Create a Siam game over the API, as an outside client does."""
    body = {"engine": "siam", "players": players, **extra}
    answer = app.test_client().post("/api/v1/games", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def play(app, game: dict[str, Any], plies: int) -> None:
    """Play ``plies`` moves over the API, each the first legal move, with the mover's token."""
    games = service_of(app)
    for _ in range(plies):
        loaded = games.load(game["id"])
        seat = loaded.to_move[0]
        notation = loaded.engine.format(loaded.engine.legal_moves(loaded.state, seat)[0])
        headers = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
        url = f"/api/v1/games/{game['id']}/moves"
        answer = app.test_client().post(url, json={"notation": notation}, headers=headers)
        assert answer.status_code == 201, answer.get_json()


def test_invitations_to_one_recipient_are_limited_whatever_the_spelling(limited_app) -> None:
    games = service_of(limited_app)
    for spelling in ["stranger@example.org", "Stranger+a@Example.org", "stranger+b@example.org"]:
        create(limited_app, [{"name": "Eve", "email": spelling}, {"name": "Mallory"}])
    assert games.store.outbox_count(rcpt_key=STRANGER) == 2
    assert len(games.store.game_ids()) == 3, "the games are created all the same"


def test_invitations_in_the_games_of_one_client_are_limited(limited_app) -> None:
    games = service_of(limited_app)
    for number in range(5):
        create(
            limited_app, [{"name": "Eve", "email": f"person{number}@example.org"}, {"name": "M"}]
        )
    assert games.store.outbox_count() == 3
    assert games.store.outbox_count(client="127.0.0.1", invitation=1) == 3


def test_the_creator_playing_a_strangers_seat_with_its_token_mails_the_stranger_once(
    limited_app,
) -> None:
    games = service_of(limited_app)
    game = create(limited_app, [{"name": "Mallory"}, {"name": "Eve", "email": STRANGER}])
    play(limited_app, game, 20)  # the creator plays Eve's seat with the token it was handed
    assert games.store.outbox_count(rcpt_key=STRANGER) == 1
    assert games.store.seats(game["id"])[1].acted_at is None, "a token move proves nothing"


def test_all_mail_to_one_recipient_is_limited_once_the_player_opened_their_link(
    limited_app,
) -> None:
    games = service_of(limited_app)
    game = create(limited_app, [{"name": "Mallory"}, {"name": "Eve", "email": STRANGER}])
    opened_links(games, game)
    play(limited_app, game, 20)
    assert games.store.outbox_count(rcpt_key=STRANGER) == 6


def test_all_mail_in_the_games_of_one_client_is_limited(limited_app) -> None:
    games = service_of(limited_app)
    for number in range(4):
        emails = [f"m{number}@example.org", f"e{number}@example.org"]
        game = create(
            limited_app, [{"name": "M", "email": emails[0]}, {"name": "E", "email": emails[1]}]
        )
        opened_links(games, game)
        play(limited_app, game, 4)
    assert games.store.outbox_count(client="127.0.0.1") == 9


def test_a_player_who_has_not_acted_gets_one_mail_per_game_until_they_act(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {}, turn_hours=48)
    deadline = parse_time(games.load(game["id"]).row.deadline)
    for hours in (23, 11):  # half time, then 12 hours before: reminders are due
        actions = process_deadlines(games, format_time(deadline - timedelta(hours=hours)))
        assert [action.kind for action in actions] == ["reminder"]
    assert [row["kind"] for row in mails_to(games, "ann@example.org")] == ["turn"]
    turn = mailbox.latest("ann@example.org")
    outcome = receive(reply_to(turn, "enter a1 N"), games, games.notifier.settings)
    assert outcome.status == "applied"
    assert [row["kind"] for row in mails_to(games, "ann@example.org")] == ["turn", "accepted"]
    assert [row["kind"] for row in mails_to(games, "bob@example.org")] == ["turn"]


def test_a_player_who_only_uses_email_plays_from_the_first_mail_on(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {})
    line = ["enter a1 N", "enter e5 S", "enter a2 N", "enter e4 S"]
    for ply, notation in enumerate(line):
        turn = mailbox.latest(PLAYERS[ply % 2]["email"])
        assert f"(move {ply + 1})" in turn["Subject"]
        outcome = receive(reply_to(turn, notation), games, games.notifier.settings)
        assert outcome.status == "applied", outcome
    assert games.load(game["id"]).seq == len(line)


def test_never_mail_me_again_stops_all_mail_to_the_address_for_every_game(
    mail_app, games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    sink, url = smtp_sink
    games.create("siam", PLAYERS, {})
    assert send(games) == (1, 0)
    [mail] = sink.messages
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    link = text.split("Never mail me again (for any game): ", 1)[1].split()[0]
    assert link.startswith(f"{BASE_URL}/mail/unsubscribe/")
    assert f'href="{link}"' in html
    path = link.removeprefix(BASE_URL)
    browser = mail_app.test_client()
    page = browser.get(path)
    assert page.status_code == 200 and "ann@example.org" in page.get_data(as_text=True)
    assert 'method="post"' in page.get_data(as_text=True)
    games.create("siam", PLAYERS, {})  # queued before the click, sent after it
    assert browser.post(forged(path, count=4)).status_code == 404, "a forged link worked"
    assert not games.store.mail_suppressed("ann@example.org")
    one_click = browser.post(  # as a mail client posts it (RFC 8058): no CSRF token
        path, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert one_click.status_code == 200
    assert "never mail" in one_click.get_data(as_text=True).lower()
    games.create("siam", [{"name": "Ann", "email": "ANN+club@example.org"}, {"name": "Bob"}], {})
    assert send(games) == (0, 0)
    assert len(sink.messages) == 1
    [unsent] = [row for row in table_rows(games.store, "outbox") if row["sent_at"] is None]
    assert "never to be mailed again" in unsent["superseded"]
    assert unsent["next_attempt_at"] is None
    assert games.store.outbox_count() == 2, "a mail was queued for an unsubscribed address"
    [suppressed] = table_rows(games.store, "mail_suppressions")
    assert "ann" not in suppressed["rcpt_hash"], "the address is stored in clear"


def test_other_forms_still_need_their_csrf_token(mail_app, games: GameService) -> None:
    game = games.create("siam", PLAYERS, {})
    browser = mail_app.test_client()
    browser.get(f"/games/{game['id']}/seat/{game['players'][0]['token']}")
    answer = browser.post(f"/games/{game['id']}/moves", data={"notation": "enter a1 N"})
    assert answer.status_code == 400
    assert games.load(game["id"]).seq == 0


def test_the_unsubscribe_link_is_not_stored(
    games: GameService, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink, url = smtp_sink
    games.create("siam", PLAYERS, {})
    send(games)
    text = sink.messages[0].get_body(("plain",)).get_content()
    links = [word for word in text.split() if word.startswith(BASE_URL)]
    assert len(links) == 3, "the seat's page, stop mail, never mail me again"
    assert sink.messages[0]["List-Unsubscribe"].strip("<>") in links
    dump = database_text(db_url)
    assert not [link for link in links if link.rsplit("/", 1)[1] in dump]
