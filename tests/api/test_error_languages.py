"""The API's refusals in the reader's language (issue 24): the human ``message`` follows
``Accept-Language``; the code, the status and the details stay the same, and an answer asked
without a language is English. Against a real server process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import requests

from tests.server.test_api import auth, create_siam, submit
from tests.support import BackgroundServer, start_background

#: Room for the creations this module refuses in four languages (ten an hour by default).
LIVE_SERVER_ENVIRONMENT = {"TURNPOST_RATELIMIT_CREATE": "1000/hour"}

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
        "fr": "La partie en est au seq 1, pas 0\u00a0; rechargez et réessayez.",
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
        "de": "Zum Aufgeben ist der Schlüssel eines Platzes nötig.",
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
        "de": "Zeile 2, Schritt 2 (enter z9 N): 'z9' ist kein Feld: Verwende a1..e5.",
        "fr": "Ligne 2, étape 2 (enter z9 N)\u00a0: 'z9' n'est pas une case\u00a0:"
        " utilisez a1..e5.",
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
        "fr": "C'est votre tour\u00a0: enregistrez des coups conditionnels après votre coup,"
        " pendant que les autres jouent.",
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


def test_the_frameworks_http_errors_are_said_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    """Werkzeug's own 404, 405 and 413 (its English descriptions before) are Turnpost's words."""
    unknown = said(lambda h: requests.get(live_server.api("/no-such-route"), headers=h, timeout=10))
    assert unknown[""]["code"] == "not_found"
    assert {language: error["message"] for language, error in unknown.items()} == {
        "": "There is nothing at this address.",
        "nl": "Op dit adres staat niets.",
        "de": "Unter dieser Adresse gibt es nichts.",
        "fr": "Il n'y a rien à cette adresse.",
    }

    games = live_server.api("/games")
    method = said(lambda h: requests.delete(games, headers=h, timeout=10))
    assert method[""]["code"] == "method_not_allowed"
    assert {language: error["message"] for language, error in method.items()} == {
        "": "This address does not take DELETE requests.",
        "nl": "Dit adres neemt geen DELETE-verzoeken aan.",
        "de": "Diese Adresse nimmt keine DELETE-Anfragen an.",
        "fr": "Cette adresse n'accepte pas les requêtes DELETE.",
    }

    huge = b'{"engine": "' + b"x" * 3_000_000 + b'"}'
    sent = {"Content-Type": "application/json"}
    large = said(lambda h: requests.post(games, data=huge, headers={**sent, **h}, timeout=30))
    assert large[""]["code"] == "payload_too_large"
    assert {language: error["message"] for language, error in large.items()} == {
        "": "The request is larger than this server takes.",
        "nl": "Het verzoek is groter dan deze server aanneemt.",
        "de": "Die Anfrage ist größer, als dieser Server annimmt.",
        "fr": "La requête dépasse la taille que ce serveur accepte.",
    }


def create(server: BackgroundServer, headers: dict[str, str], **extra: Any) -> requests.Response:
    """POST a two-player Siam game with ``extra`` settings."""
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}], **extra}
    return requests.post(server.api("/games"), json=body, headers=headers, timeout=10)


def test_bad_options_and_clocks_are_refused_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    """The engine's option checks and the clock's (English f-strings before) are phrases; the
    details keep their English."""
    options = said(lambda h: create(live_server, h, options={"speed": 1, "cross_rule": True}))
    assert options[""]["details"] == {"options": ["This game has no option speed."]}
    assert {language: error["message"] for language, error in options.items()} == {
        "": "This game has no option speed.",
        "nl": "Dit spel heeft geen optie speed.",
        "de": "Dieses Spiel hat keine Option speed.",
        "fr": "Ce jeu n'a pas d'option speed.",
    }
    kind = messages(lambda h: create(live_server, h, options={"cross_rule": 3}))
    assert kind == {
        "": "The option cross_rule takes true or false.",
        "nl": "De optie cross_rule moet true of false zijn.",
        "de": "Die Option cross_rule muss true oder false sein.",
        "fr": "L'option cross_rule doit être true ou false.",
    }
    board = live_server.api("/engines/king-of-siam")
    choice = messages(
        lambda h: requests.get(board, params={"map": "atlantis"}, headers=h, timeout=10)
    )
    assert choice == {
        "": "The option map takes siam-1874.",
        "nl": "De optie map moet siam-1874 zijn.",
        "de": "Die Option map muss siam-1874 sein.",
        "fr": "L'option map doit valoir siam-1874.",
    }

    bank = {"kind": "bank", "bank_hours": 10, "max_bank_hours": 5}
    clock = said(lambda h: create(live_server, h, clock=bank))
    assert clock[""]["details"] == {
        "clock": {"max_bank_hours": ["The largest bank cannot be smaller than the first."]}
    }
    assert {language: error["message"] for language, error in clock.items()} == {
        "": "The largest bank cannot be smaller than the first.",
        "nl": "De grootste tijdbank kan niet kleiner zijn dan de eerste.",
        "de": "Das größte Zeitkonto kann nicht kleiner sein als das erste.",
        "fr": "La plus grande réserve de temps ne peut pas être plus petite que la première.",
    }
    days = ["mon", "tue", "wed", "thu", "fri", "sat"]
    pause = {"kind": "per_move", "hours": 24, "pause": {"weekdays": days}}
    weekdays = messages(lambda h: create(live_server, h, clock=pause))
    assert weekdays == {
        "": "A pause covers at most 5 weekdays.",
        "nl": "Een pauze beslaat hoogstens 5 weekdagen.",
        "de": "Eine Pause umfasst höchstens 5 Wochentage.",
        "fr": "Une pause couvre au plus 5 jours de la semaine.",
    }
    both = messages(lambda h: create(live_server, h, clock=bank, turn_hours=4))
    assert both["de"] == "Gib entweder clock oder turn_hours an, nicht beides."
    assert len(set(both.values())) == 4


def test_refused_destinations_are_said_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    """The webhook and chat ping URL checks (English f-strings before) are phrases."""
    game = create_siam(live_server)
    hooks = live_server.api(f"/games/{game['id']}/webhooks")
    admin = auth(game["admin_token"])

    def webhook(url: str) -> Ask:
        return lambda h: requests.post(hooks, json={"url": url}, headers={**admin, **h}, timeout=10)

    private = said(webhook("http://10.0.0.1/hook"))
    assert private[""]["details"] == {"url": ["This server does not post webhooks to 10.0.0.1."]}
    assert {language: error["message"] for language, error in private.items()} == {
        "": "This server does not post webhooks to 10.0.0.1.",
        "nl": "Deze server stuurt geen webhooks naar 10.0.0.1.",
        "de": "Dieser Server sendet keine Webhooks an 10.0.0.1.",
        "fr": "Ce serveur n'envoie pas de webhooks à 10.0.0.1.",
    }
    scheme = messages(webhook("ftp://example.org/hook"))
    assert scheme == {
        "": "A webhook URL is http:// or https:// with a host.",
        "nl": "Een webhook-URL begint met http:// of https:// en noemt een host.",
        "de": "Eine Webhook-URL beginnt mit http:// oder https:// und nennt einen Host.",
        "fr": "Une URL de webhook commence par http:// ou https:// et nomme un hôte.",
    }

    pings = live_server.api(f"/games/{game['id']}/pings")
    ann = auth(game["players"][0]["token"])
    body = {"kind": "discord", "url": "http://user:secret@example.org/hook"}
    ping = messages(lambda h: requests.post(pings, json=body, headers={**ann, **h}, timeout=10))
    assert ping == {
        "": "A webhook URL carries no user name or password.",
        "nl": "Een webhook-URL bevat geen gebruikersnaam of wachtwoord.",
        "de": "Eine Webhook-URL enthält weder Benutzernamen noch Passwort.",
        "fr": "Une URL de webhook ne contient ni nom d'utilisateur ni mot de passe.",
    }


def test_a_rate_limit_is_said_in_the_readers_language(tmp_path: Any) -> None:
    """The limit's own words ("2 per 3 hours", the limits library's English before) too."""
    server = start_background(  # one worker: each worker counts its own limits in memory
        str(tmp_path / "limited.db"),
        workers=1,
        environment={"TURNPOST_RATELIMIT_CREATE": "2 per 3 hours"},
    )
    try:
        for _ in range(2):
            assert create(server, {}).status_code == 201
        limited = said(lambda h: create(server, h))
    finally:
        server.stop()
    assert limited[""]["code"] == "rate_limited"
    assert {language: error["message"] for language, error in limited.items()} == {
        "": "Too many requests from this address (limit 2 per 3 hours); slow down and retry.",
        "nl": "Te veel verzoeken van dit adres (limiet 2 per 3 uur); doe het rustiger aan en"
        " probeer het opnieuw.",
        "de": "Zu viele Anfragen von dieser Adresse (Grenze 2 pro 3 Stunden); mach langsamer und"
        " versuche es wieder.",
        "fr": "Trop de requêtes depuis cette adresse (limite 2 par 3 heures)\u00a0; ralentissez et"
        " réessayez.",
    }


def test_a_failed_csrf_check_is_said_in_the_readers_language(
    live_server: BackgroundServer,
) -> None:
    """Flask-WTF's reason (its English before) is said in Turnpost's words."""
    switch = live_server.url + "/language"
    forged = said(lambda h: requests.post(switch, json={"language": "nl"}, headers=h, timeout=10))
    assert forged[""]["code"] == "bad_request"
    assert {language: error["message"] for language, error in forged.items()} == {
        "": "CSRF check failed: the form carries no CSRF token.",
        "nl": "CSRF-controle mislukt: het formulier bevat geen CSRF-token.",
        "de": "CSRF-Prüfung fehlgeschlagen: das Formular enthält kein CSRF-Token.",
        "fr": "Échec du contrôle CSRF\u00a0: le formulaire ne contient aucun jeton CSRF.",
    }
