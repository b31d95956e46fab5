"""The API's refusals in the reader's language (issue 24): the human ``message`` follows
``Accept-Language``; the code, the status and the details stay the same, and an answer asked
without a language is English. Against a real server process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import requests

from tests.server.test_api import auth, create_siam, submit
from tests.support import BackgroundServer

#: An answer to a request, given the extra headers to send with it.
Ask = Callable[[dict[str, str]], requests.Response]


def said(ask: Ask) -> dict[str, dict[str, Any]]:
    """The error of ``ask`` without a language and in each language, checked to keep its
    status, code and details whatever the language."""
    answers = {"": ask({})} | {
        language: ask({"Accept-Language": f"{language},en;q=0.5"})
        for language in ("nl", "de", "fr")
    }
    statuses = {answer.status_code for answer in answers.values()}
    errors = {language: answer.json()["error"] for language, answer in answers.items()}
    assert len(statuses) == 1 and statuses.pop() >= 400, answers[""].text
    assert len({(error["code"], repr(error["details"])) for error in errors.values()}) == 1
    return {language: error for language, error in errors.items()}


def messages(ask: Ask) -> dict[str, str]:
    """The messages of :func:`said`, by language ("" for the English one)."""
    return {language: error["message"] for language, error in said(ask).items()}


def test_move_refusals_are_said_in_the_readers_language(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    assert submit(live_server, game, 0, {"notation": "enter b1 N"}).status_code == 201

    stale = said(
        lambda h: submit(live_server, game, 1, {"notation": "enter e5 S", "expected_seq": 0}, **h)
    )
    assert stale[""]["code"] == "stale_seq" and stale[""]["details"] == {"seq": 1}
    assert {language: error["message"] for language, error in stale.items()} == {
        "": "The game is at seq 1, not 0; reload and try again.",
        "nl": "Het spel staat op seq 1, niet 0; laad opnieuw en probeer het nog eens.",
        "de": "Das Spiel steht bei seq 1, nicht 0; lade neu und versuche es noch einmal.",
        "fr": "La partie en est au seq 1, pas 0 ; rechargez et réessayez.",
    }

    turn = said(lambda h: submit(live_server, game, 0, {"notation": "enter a1 N"}, **h))
    assert turn[""]["code"] == "not_your_turn"
    assert turn[""]["message"] == "It is not your turn: Bob moves now."
    assert all("Bob" in turn[language]["message"] for language in turn)
    assert len({error["message"] for error in turn.values()}) == 4

    unknown = said(
        lambda h: requests.get(live_server.api("/games/nosuchgame"), headers=h, timeout=10)
    )
    assert unknown[""]["code"] == "not_found"
    assert {language: error["message"] for language, error in unknown.items()} == {
        "": "No game 'nosuchgame'.",
        "nl": "Geen spel 'nosuchgame'.",
        "de": "Kein Spiel 'nosuchgame'.",
        "fr": "Aucune partie 'nosuchgame'.",
    }


def test_token_refusals_are_said_in_the_readers_language(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    moves = live_server.api(f"/games/{game['id']}/moves")

    def wrong_key(headers: dict[str, str]) -> requests.Response:
        body = {"notation": "enter b1 N"}
        sent = {**auth("not-a-key-of-this-game"), **headers}
        return requests.post(moves, json=body, headers=sent, timeout=10)

    wrong = messages(wrong_key)
    assert wrong[""].startswith("This key does not open a seat of this game")
    assert wrong["nl"].startswith("Deze sleutel opent geen plaats van dit spel")
    assert wrong["de"].startswith("Dieser Schlüssel öffnet keinen Platz dieses Spiels")
    assert wrong["fr"].startswith("Cette clé n'ouvre aucune place de cette partie")

    resign = live_server.api(f"/games/{game['id']}/resign")
    missing = said(lambda h: requests.post(resign, json={}, headers=h, timeout=10))
    assert missing[""]["code"] == "unauthorized"
    assert {language: error["message"] for language, error in missing.items()} == {
        "": "A seat token is needed to resign.",
        "nl": "Om op te geven is de sleutel van een plaats nodig.",
        "de": "Zum Aufgeben braucht es den Schlüssel eines Platzes.",
        "fr": "Il faut un jeton de place pour abandonner.",
    }


def test_takeback_and_conditional_refusals_are_said_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    game = create_siam(live_server)
    takeback = live_server.api(f"/games/{game['id']}/takeback")
    ann = auth(game["players"][0]["token"])
    refused = said(lambda h: requests.post(takeback, json={}, headers={**ann, **h}, timeout=10))
    assert refused[""]["code"] == "takeback_refused"
    assert {language: error["message"] for language, error in refused.items()} == {
        "": "Only your own move can be taken back, while it is the last one of the game.",
        "nl": "Alleen je eigen zet kan worden teruggenomen, zolang het de laatste van het spel is.",
        "de": "Nur dein eigener Zug kann zurückgenommen werden, solange er der letzte des Spiels"
        " ist.",
        "fr": "Seul votre propre coup peut être repris, tant qu'il est le dernier de la partie.",
    }

    conditional = live_server.api(f"/games/{game['id']}/conditional")
    bob = auth(game["players"][1]["token"])
    lines = {"lines": [["enter a1 N", "enter e5 S"], ["enter b1 N", "enter z9 N"]]}
    line = said(lambda h: requests.put(conditional, json=lines, headers={**bob, **h}, timeout=10))
    assert line[""]["code"] == "invalid_request"
    assert {language: error["message"] for language, error in line.items()} == {
        "": "Line 2, step 2 (enter z9 N): 'z9' is not a square: use a1..e5.",
        "nl": "Regel 2, stap 2 (enter z9 N): 'z9' is geen veld: gebruik a1..e5.",
        "de": "Zeile 2, Schritt 2 (enter z9 N): 'z9' ist kein Feld: verwende a1..e5.",
        "fr": "Ligne 2, étape 2 (enter z9 N) : 'z9' n'est pas une case : utilisez a1..e5.",
    }
    assert line[""]["details"] == {"lines": [line[""]["message"]]}, "details stay English"

    mine = {"lines": [["enter a1 N", "enter e5 S"]]}
    turn = messages(
        lambda h: requests.put(conditional, json=mine, headers={**ann, **h}, timeout=10)
    )
    assert turn == {
        "": "It is your turn: store conditional moves after your move, while others play.",
        "nl": "Je bent aan de beurt: bewaar voorwaardelijke zetten na je zet, terwijl anderen"
        " spelen.",
        "de": "Du bist am Zug: Speichere bedingte Züge nach deinem Zug, während andere spielen.",
        "fr": "C'est votre tour : enregistrez des coups conditionnels après votre coup, pendant"
        " que les autres jouent.",
    }


def test_a_finished_game_and_a_bad_body_are_refused_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    game = create_siam(live_server)
    ann = auth(game["players"][0]["token"])
    resigned = requests.post(
        live_server.api(f"/games/{game['id']}/resign"), headers=ann, timeout=10
    )
    assert resigned.status_code == 200, resigned.text
    resign = live_server.api(f"/games/{game['id']}/resign")
    over = said(lambda h: requests.post(resign, headers={**ann, **h}, timeout=10))
    assert over[""]["code"] == "game_over"
    assert over[""]["message"] == "The game is finished; no more moves."
    assert over["de"]["message"] == "Das Spiel ist beendet; es gibt keine Züge mehr."

    moves = live_server.api(f"/games/{game['id']}/moves")
    sent = {**ann, "Content-Type": "application/json"}
    broken = messages(lambda h: requests.post(moves, data="{", headers={**sent, **h}, timeout=10))
    assert broken == {
        "": "The body is not valid JSON.",
        "nl": "De body is geen geldige JSON.",
        "de": "Der Body ist kein gültiges JSON.",
        "fr": "Le corps n'est pas du JSON valide.",
    }
