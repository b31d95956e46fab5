"""Mails worth opening (issue 15): a board in every part, words instead of JSON, a handful of
different example moves, one move number, every kind of mail of every game saved and shown.

Everything goes through a real SMTP server (aiosmtpd); replies go through
``receive`` as the listener hands them over. The mails are saved under
``test-output/mail/`` (see ``tests/mail/samples.py``) for a person to read.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import ENGINES
from engines.phrases import english
from server.boards import Board, render_board
from server.games.clock import format_time, parse_time
from server.games.deadlines import process_deadlines
from server.games.game import game_object
from server.games.service import GameService, MoveRequest
from server.mail.inbound import receive
from server.mail.picture import png_size, svg_size
from server.mail.render import result_words
from tests.mail.conftest import Mailbox, opened_links, reply_to, send
from tests.mail.samples import html_of, images, inlined, save, text_of
from tests.support import table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "boards"
#: A JSON object or list as a program prints it: a brace or bracket, then a quoted key.
JSON = re.compile(r'[{\[]\s*"[^"]*"\s*[:,]')
NAMES = ("Ann", "Bob", "Cy")
HOURS_20 = timedelta(hours=20)


def players(engine_id: str) -> list[dict[str, str]]:
    """The players of a game of ``engine_id``, each with an email."""
    count = max(ENGINES[engine_id].min_players, 2)
    return [{"name": name, "email": f"{name.lower()}@example.org"} for name in NAMES[:count]]


def with_boards(engine_id: str) -> str:
    """``engine_id``, skipped while its game helper's text board and picture are not merged."""
    missing = [kind for kind in ("txt", "svg") if not (TEMPLATES / f"{engine_id}.{kind}").exists()]
    if missing:
        pytest.skip(f"templates/boards/{engine_id}.{'/'.join(missing)} not merged yet")
    return engine_id


def first_turn(games: GameService, mailbox: Mailbox, engine_id: str) -> tuple[dict, Any]:
    """A new game of ``engine_id`` and the first turn mail."""
    game = games.create(engine_id, players(engine_id), {}, seed=5, turn_hours=48)
    seat = games.load(game["id"]).to_move[0]
    return game, mailbox.latest(players(engine_id)[seat]["email"])


@pytest.mark.sqlite_only  # drawing a mail reads the same game on either backend
@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_games_turn_mail_shows_the_board_in_both_parts_and_no_json(
    games: GameService, mailbox: Mailbox, browser, engine_id: str
) -> None:
    with_boards(engine_id)
    game, mail = first_turn(games, mailbox, engine_id)
    text, html = text_of(mail), html_of(mail)
    loaded = games.load(game["id"])
    seat = loaded.to_move[0]
    view = game_object(loaded, seat)
    board_lines = [line for line in render_board("txt", view, Board()).splitlines() if line.strip()]
    assert all(line.rstrip() in text for line in board_lines), "the text board is not in the text"
    long = [line.strip() for line in text.splitlines() if len(line) > 72 and "http" not in line]
    for line in long:  # only a whole turn's notation, which must stay on one line to be copied
        loaded.engine.parse(line, loaded.state)
    for part in (text, html):
        assert not JSON.search(part), f"JSON in the mail: {JSON.search(part)[0]!r}"
        assert "seat" not in re.sub(r"https?://\S+|/seat/\S+", "", part).lower()
    assert "<svg" not in html and "<style" not in html and "<script" not in html
    [(cid, png)] = images(mail).items()
    assert f'src="cid:{cid}"' in html
    shown = re.search(
        r'<img src="cid:[^"]+" width="(\d+)" height="(\d+)" alt="([^"]*)"', html, re.S
    )
    width, height = int(shown[1]), int(shown[2])
    drawn = png_size(png)
    assert drawn[0] == 2 * width and abs(drawn[1] - 2 * height) <= 1, "not twice the size shown"
    svg_width, svg_height = svg_size(render_board("svg", view, Board()))
    assert abs(height / width - svg_height / svg_width) < 0.01, "not the board's proportions"
    assert board_lines[1].strip() in shown[3].replace("&#34;", '"').replace("&#39;", "'")
    page = browser.new_page(viewport={"width": 700, "height": 900})
    page.set_content(inlined(mail))
    page.wait_for_load_state("load")
    natural = page.eval_on_selector("img", "img => [img.complete, img.naturalWidth]")
    assert natural == [True, 2 * width], "Chromium does not show the board from the message"
    page.close()
    save(mail, f"{engine_id}-turn", browser)


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_a_turn_mail_speaks_in_words_with_one_move_number_and_a_few_different_examples(
    games: GameService, mailbox: Mailbox, engine_id: str
) -> None:
    game, mail = first_turn(games, mailbox, engine_id)
    text = " ".join(text_of(mail).split())
    loaded = games.load(game["id"])
    seat = loaded.to_move[0]
    assert f"(move {loaded.seq + 1})" in mail["Subject"]
    assert set(re.findall(r"move (\d+)", text)) == {str(loaded.seq + 1)}, "two move numbers"
    names = [row.name for row in loaded.seats]
    assert f"Hello {names[seat]}," in text
    others = [name for index, name in enumerate(names) if index != seat]
    assert not any(name in mail["Subject"] for name in others), "the creator's words in a subject"
    assert english(loaded.engine.prompt(loaded.state, seat)) in mail["Subject"]
    deadline = parse_time(loaded.row.deadline)
    assert f"by {deadline:%a} {deadline.day} {deadline:%b}, {deadline:%H:%M} UTC" in text
    examples = re.findall(r"\n    (\S[^\n]*)\n        (\S[^\n]*)", text_of(mail))
    assert 1 <= len(examples) <= 5
    engine = loaded.engine
    moves = [engine.parse(notation, loaded.state) for notation, _ in examples]
    for move in moves:  # each a whole turn, legal now
        engine.apply(loaded.state, seat, move)
    assert moves[0].get("action") != "pass", "a pass first"
    questions = loaded.engine.questions(loaded.state, seat)
    kinds = {tuple(q.answer(move) for q in questions[:2]) + (move.get("action"),) for move in moves}
    assert len(kinds) == len(moves), "two examples of the same kind"
    assert all(sentence.startswith(names[seat]) for _, sentence in examples), examples


def test_a_mail_queued_for_a_turn_played_before_the_worker_ran_is_never_sent(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", players("siam"), {}, turn_hours=48)
    opened_links(games, game)
    for seat, notation in enumerate(["enter a1 N", "enter e5 S", "enter a2 N"]):
        games.submit(by_token(game, seat % 2, notation))
    deadline = parse_time(games.load(game["id"]).row.deadline)
    assert [a.kind for a in process_deadlines(games, format_time(deadline - HOURS_20))] == [
        "reminder"
    ]
    games.submit(by_token(game, 1, "enter e4 S"))  # Bob plays before the worker runs
    assert send(games) == (1, 0)
    [mail] = mailbox.sink.messages
    assert mail["To"] == "ann@example.org" and "(move 5)" in mail["Subject"]
    stale = [row for row in table_rows(games.store, "outbox") if row["superseded"] is not None]
    assert [(row["kind"], row["seat"]) for row in stale] == [("turn", 0), ("turn", 1)] + [
        ("turn", 0),
        ("turn", 1),
        ("reminder", 1),
    ]
    assert all("already played" in row["superseded"] for row in stale)
    assert all(row["sent_at"] is None and row["next_attempt_at"] is None for row in stale)


def by_token(game: dict, seat: int, notation: str) -> MoveRequest:
    """``notation`` played by ``seat`` with its token (on the web or the API)."""
    return MoveRequest(game["id"], token=game["players"][seat]["token"], notation=notation)


@pytest.mark.sqlite_only  # the mails read the same on PostgreSQL (the module's other tests)
@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_kind_of_mail_of_every_game_is_saved_for_reading(
    games: GameService, mailbox: Mailbox, browser, engine_id: str
) -> None:
    """Turn, refusal, table talk, confirmation, reminder, digest, command answers and game
    over, each saved as ``<engine>-<kind>``; each says what it is about in its subject and
    text. The first player's words reach the second in their next mail, once."""
    game, turn = first_turn(games, mailbox, engine_id)
    settings = games.notifier.settings
    loaded = games.load(game["id"])
    first = loaded.to_move[0]
    emails = [player["email"] for player in players(engine_id)]
    shown = browser if (TEMPLATES / f"{engine_id}.svg").exists() else None
    saved: dict[str, Any] = {"turn": turn}

    def reply(mail, text: str) -> Any:
        return receive(reply_to(mail, text), games, settings)

    assert reply(turn, "hop a1").status == "rejected"
    saved["rejected"] = mailbox.latest(emails[first], "Move not played")
    assert reply(turn, "Good luck!").status == "said"
    saved["said"] = mailbox.latest(emails[first], "Posted to the table")
    legal = loaded.engine.legal_moves(loaded.state, first)
    assert reply(turn, loaded.engine.format(legal[0])).status == "applied"
    saved["accepted"] = mailbox.latest(emails[first], "Move accepted")
    current = games.load(game["id"])
    second = current.to_move[0]
    second_turn = mailbox.latest(emails[second])
    for command in ("board", "moves", "help", "vacation 7", "stop", "start"):
        assert reply(second_turn, command).status == "command"
        subject_start = {"vacation 7": "Vacation", "start": "Mail on"}.get(
            command,
            {"board": "The board", "moves": "Your legal", "help": "Mail commands"}.get(
                command, "Mail stopped"
            ),
        )
        saved[f"answer-{command.split()[0]}"] = mailbox.latest(emails[second], subject_start)
    deadline = parse_time(games.load(game["id"]).row.deadline)
    process_deadlines(games, format_time(deadline - timedelta(hours=11)))
    saved["reminder"] = mailbox.latest(emails[second], "Reminder")
    assert reply(second_turn, "board").status == "command"
    assert reply(second_turn, "hop a1").status == "rejected"
    saved["digest"] = mailbox.latest(emails[second], "The board")
    assert reply(second_turn, "resign").status == "command"
    saved["resigned"] = mailbox.latest(emails[second], "Game over")
    saved["game_over"] = mailbox.latest(emails[first], "Game over")
    for kind, mail in saved.items():
        save(mail, f"{engine_id}-{kind}", shown if kind in ("digest", "game_over") else None)
        text = text_of(mail)
        assert not JSON.search(text + html_of(mail)), kind
        assert "Hello " in text and "http" in text, kind
    digest = " ".join(text_of(saved["digest"]).split())
    assert "Here is the board" in digest and 'Your move "hop a1" was not played' in digest
    first_name = players(engine_id)[first]["name"]
    assert f"{first_name} said: Good luck!" in text_of(saved["answer-board"])
    assert "said:" not in text_of(saved["answer-moves"]), "a message mailed twice"
    over = " ".join(text_of(saved["game_over"]).split())
    result = games.game_object(games.load(game["id"]), None)["result"]
    names = [row.name for row in current.seats]
    assert result_words(current.engine, result, names) in over  # the game's words, where it can
    assert "you" in saved["game_over"]["Subject"].rsplit(": ", 1)[1]
    assert "You resigned" in text_of(saved["resigned"])
    answers = json.dumps({kind: text_of(mail) for kind, mail in saved.items()})
    assert "vacation days left" in answers and "no more turn mails" in answers
