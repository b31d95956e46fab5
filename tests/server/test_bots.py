"""Bots at the table (issue 25, server side): bot seats at creation, the worker that plays
them, hints.

Real processes where it matters: ``turnpost worker`` child processes play bots-only games
of every engine to the end (two of them at once, checked move by move against the seeded
bots), and a human plays a bot over HTTP against a gunicorn server and a worker, or a
gunicorn server alone (``TURNPOST_BOTS=server``: its workers play the bots, checked with a
worker beside them, for reads answered while a bot thinks, and for a prompt ``SIGTERM``).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import requests
from click.testing import CliRunner

from engines import ENGINES
from engines.search import make_bot
from server import create_app
from server.cli import main
from server.games.bots import BotMover, Plan, turn_seed
from server.games.game import Game
from server.games.service import GameService
from server.http.context import current_service
from server.store import open_store
from server.store.base import canonical_json
from tests.support import BackgroundServer, free_port, run_command, start_background

ON_BOTH_BACKENDS = True

#: Seconds a bot may take to answer a move over HTTP (a level-1 turn takes under 0.2 s of CPU).
ANSWER_SECONDS = 5
#: The environment of a web server that plays the bots, with generous request limits.
SERVER_BOTS = {"TURNPOST_BOTS": "server", "TURNPOST_RATELIMIT_IP": "1000000/minute"}


def create(client, engine: str, players: list[dict], **extra) -> dict:
    """A new game through the API (asserting it was made)."""
    response = client.post("/api/v1/games", json={"engine": engine, "players": players, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# -- creation ---------------------------------------------------------------------------
def test_a_bot_seat_is_named_a_bot_everywhere_and_handed_no_token(client) -> None:
    game = create(client, "siam", [{"name": "Ann"}, {"bot": "mcts", "level": 3}])
    ann, bot = game["players"]
    assert (bot["name"], bot["bot"], "token" in bot) == (
        "Computer (level 3)",
        {"bot": "mcts", "level": 3},
        False,
    )
    assert (ann["bot"], "token" in ann) == (None, True)
    public = client.get(f"/api/v1/games/{game['id']}").get_json()
    assert public["players"][1]["bot"] == {"bot": "mcts", "level": 3}
    mine = {"Authorization": f"Bearer {ann['token']}"}  # the list shows a game to its seats
    listed = client.get("/api/v1/games", headers=mine).get_json()["games"][0]
    assert [player["name"] for player in listed["players"]] == ["Ann", "Computer (level 3)"]
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert "Computer (level 3)" in page


def test_several_bots_are_numbered_and_an_mcts_bot_defaults_to_level_3(client) -> None:
    game = create(client, "foreign-king", [{"bot": "random"}, {"bot": "mcts"}])
    assert [(player["name"], player["bot"]) for player in game["players"]] == [
        ("Computer 1 (random moves)", {"bot": "random"}),
        ("Computer 2 (level 3)", {"bot": "mcts", "level": 3}),
    ]


@pytest.mark.parametrize(
    ("seat", "words"),
    [
        ({"bot": "mcts", "level": 9}, "level is 1 to 5"),
        ({"bot": "mcts", "level": "3"}, "Not a valid integer"),
        ({"bot": "random", "level": 2}, "Only an `mcts` bot has a level"),
        ({"bot": "alphazero"}, "A bot is `random` or `mcts`"),
        ({"bot": "mcts", "name": "Hal"}, "has no name, email or open"),
        ({"name": "Hal", "level": 2}, "A level is a bot's"),
    ],
)
def test_a_bad_bot_is_refused_in_words_and_no_game_is_made(
    client, app, seat: dict, words: str
) -> None:
    response = client.post(
        "/api/v1/games", json={"engine": "siam", "players": [{"name": "A"}, seat]}
    )
    error = response.get_json()["error"]
    assert (response.status_code, error["code"]) == (422, "invalid_request")
    assert words in str(error["details"]["players"])
    with app.app_context():
        assert current_service().store.game_ids() == []


def test_the_lobby_form_seats_the_computer(client) -> None:
    client.application.config["WTF_CSRF_ENABLED"] = False
    form = {"engine": "siam", "name0": "Ann", "bot1": "mcts2", "seating": "listed"}
    response = client.post("/games", data=form)
    assert response.status_code == 303
    game_id = re.search(r"/games/(\w+)/created", response.headers["Location"]).group(1)
    players = client.get(f"/api/v1/games/{game_id}").get_json()["players"]
    assert [player["name"] for player in players] == ["Ann", "Computer (level 2)"]


def test_new_game_on_the_command_line_takes_bots(db_url: str) -> None:
    command = ["new-game", "siam", "--player", "Ann", "--player", "bot:mcts:1"]
    result = CliRunner().invoke(main, command, env={"TURNPOST_DB": db_url})
    assert result.exit_code == 0, result.output
    assert "seat 1 Computer (level 1): played by the worker" in result.output
    bad = CliRunner().invoke(main, [*command[:-1], "bot:mcts:7"], env={"TURNPOST_DB": db_url})
    assert bad.exit_code != 0 and "1 to 5" in bad.output


# -- hints ------------------------------------------------------------------------------
def hint(client, game: dict, seat: int):
    """``GET .../hint`` with the token of ``seat``."""
    token = game["players"][seat]["token"]
    return client.get(
        f"/api/v1/games/{game['id']}/hint", headers={"Authorization": f"Bearer {token}"}
    )


def test_a_hint_is_a_legal_turn_and_is_refused_off_turn_or_without_hints(client) -> None:
    game = create(client, "siam", [{"name": "Ann"}, {"name": "Bob"}], seed=5)
    answer = hint(client, game, 0).get_json()
    legal = client.get(
        f"/api/v1/games/{game['id']}/legal-moves",
        headers={"Authorization": f"Bearer {game['players'][0]['token']}"},
    ).get_json()["moves"]
    assert answer["seq"] == 0 and len(answer["moves"]) == 1 and answer["moves"][0] in legal
    assert hint(client, game, 1).get_json()["error"]["code"] == "not_your_turn"
    assert client.get(f"/api/v1/games/{game['id']}/hint").status_code == 401
    closed = create(client, "siam", [{"name": "Ann"}, {"name": "Bob"}], hints=False)
    refused = hint(client, closed, 0)
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (403, "forbidden")


def test_a_hint_never_depends_on_what_the_seat_cannot_see(client, app) -> None:
    """Bangkok Klongs hides the other hands and the pile: redrawn, the seat's hint stays."""
    players = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
    game = create(client, "bangkok-klongs", players, seed=11)
    with app.app_context():
        games = current_service()
        loaded = games.load(game["id"])
        seat = loaded.to_move[0]
        engine = loaded.engine
        first = hint(client, game, seat).get_json()
        redrawn = engine.determinize(loaded.state, seat, random.Random(3))
        assert redrawn != loaded.state
        assert engine.view(redrawn, seat) == engine.view(loaded.state, seat)
        games.store.update_game(game["id"], {"state": redrawn})
        assert hint(client, game, seat).get_json() == first


def test_hints_are_limited_per_seat_token(db_url: str) -> None:
    """Each hint counts against its own limit (and its CPU time against every limit)."""
    config = {"TURNPOST_DB": db_url, "TESTING": True, "TURNPOST_RATELIMIT_HINT": "2/hour"}
    client = create_app(config).test_client()
    game = create(client, "siam", [{"name": "Ann"}, {"name": "Bob"}])
    answers = [hint(client, game, 0) for _ in range(3)]
    assert answers[0].status_code == 200 and answers[-1].status_code == 429
    assert answers[-1].get_json()["error"]["code"] == "rate_limited"
    assert hint(client, game, 1).get_json()["error"]["code"] == "not_your_turn"  # its own count


# -- the mover --------------------------------------------------------------------------
def test_two_movers_with_the_same_turn_append_it_once(db_url: str, client) -> None:
    """King of Siam's turn is several decisions: a second worker that planned the same turn,
    or another, while the first played it, appends nothing."""
    game = create(client, "king-of-siam", [{"bot": "random"}, {"bot": "random"}], seed=3)
    first, second = (BotMover(GameService(open_store(db_url))) for _ in range(2))
    turn = first.games.store.bot_turns(1)[0]
    plan = first.plan(turn)
    assert plan == second.plan(turn) and len(plan.moves) > 1
    assert first.play(replace(plan, moves=plan.moves[:1])) == 1
    assert second.play(plan) == len(plan.moves)  # the first move answered again, then the rest
    other = Plan(plan.game_id, plan.seat, plan.seq, list(reversed(plan.moves)))
    assert first.play(other) == 0
    logged = first.games.store.moves(game["id"])
    assert [entry.move for entry in logged] == plan.moves
    assert first.games.load(game["id"]).seq == turn.seq + len(plan.moves)


def seeded_bot_log(games: GameService, game: Game) -> list[dict]:
    """The moves the game's bots would play from the start, by their seeds: the log of a game
    whose every bot turn was played once (and whose bots are repeatable: random ones). The
    bots are handed each state as the store keeps it (canonical JSON: keys sorted)."""
    state = games.replay(game, upto=0)
    engine, moves, seq = game.engine, [], 0
    while engine.result(state) is None:
        state = json.loads(canonical_json(state))
        seat = engine.to_move(state)[0]
        at = Game(replace(game.row, seq=seq, state=state), game.seats, engine)
        spec = game.seats[seat].bot
        for move in make_bot(spec).turn(engine, state, seat, turn_seed(at, seat, "turn")):
            state = engine.apply(state, seat, move)
            moves.append(move)
            seq += 1
    return moves


@pytest.fixture
def two_workers(db_url: str) -> Iterator[list]:
    """Two ``turnpost worker`` processes on one database."""
    processes = [run_command(["worker"], {"TURNPOST_DB": db_url}) for _ in range(2)]
    yield processes
    for process in processes:
        process.terminate()


def test_two_workers_play_bots_only_games_of_every_engine_to_the_end_once(
    db_url: str, client, app, two_workers: list
) -> None:
    ids = [
        create(client, engine, [{"bot": "random"}] * ENGINES[engine].min_players)["id"]
        for engine in ENGINES
    ]
    with app.app_context():
        games = current_service()
        deadline = time.monotonic() + 120
        while any(games.load(game_id).status == "active" for game_id in ids):
            assert time.monotonic() < deadline, "the bots did not finish their games"
            time.sleep(0.2)
        for game_id in ids:
            game = games.load(game_id)
            assert game.status == "finished"
            assert [entry.move for entry in games.store.moves(game_id)] == seeded_bot_log(
                games, game
            )
    for process in two_workers:
        process.terminate()
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0 and "Traceback" not in err, err
        assert "worker stopped" in out


# -- a human against a bot over HTTP ----------------------------------------------------
@pytest.fixture(scope="module", params=["worker", "server"])
def bot_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackgroundServer]:
    """On one SQLite database, generous request limits: gunicorn and ``turnpost worker``
    (``worker``), or gunicorn's two workers alone playing the bots too (``server``). On
    SQLite only: the games take half a minute; the workers' tests run on both backends."""
    db_url = str(tmp_path_factory.mktemp("bots") / "turnpost.db")
    if request.param == "server":
        server = start_background(db_url, workers=2, environment=SERVER_BOTS)
        yield server
        server.stop()
        return
    limits = {"TURNPOST_RATELIMIT_IP": "1000000/minute"}
    server = start_background(db_url, workers=1, environment=limits)
    worker = run_command(["worker"], {"TURNPOST_DB": db_url})
    assert worker.stdout.readline() == "worker started; it plays the bots\n"
    yield server
    worker.terminate()
    worker.communicate(timeout=30)
    server.stop()


def test_a_game_against_a_bot_is_analysed_after_it_ends(bot_server: BackgroundServer) -> None:
    """Two moves against a bot, then a resignation: the analysis appears (played by the
    worker, or by the web server alone with ``TURNPOST_BOTS=server``). First of the tests
    on ``bot_server``, so that no other finished game waits for its analysis before it."""
    players = [{"name": "Ann"}, {"bot": "mcts", "level": 1}]
    game = requests.post(
        bot_server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    ).json()
    auth = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    url, rng = bot_server.api(f"/games/{game['id']}"), random.Random(4)
    for seq in (0, 2):
        deadline = time.monotonic() + 30
        while requests.get(url, timeout=10).json()["seq"] != seq:
            assert time.monotonic() < deadline, "the bot did not answer"
            time.sleep(0.05)
        legal = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"]
        move = {"move": rng.choice(legal), "expected_seq": seq}
        assert requests.post(f"{url}/moves", json=move, headers=auth, timeout=10).status_code == 201
    deadline = time.monotonic() + 30
    while requests.get(url, timeout=10).json()["seq"] != 4:
        assert time.monotonic() < deadline, "the bot did not answer"
        time.sleep(0.05)
    assert requests.post(f"{url}/resign", json={}, headers=auth, timeout=10).status_code == 200
    deadline = time.monotonic() + 60
    while (analysis := requests.get(f"{url}/analysis", timeout=10).json())["status"] == "waiting":
        assert time.monotonic() < deadline, "the game was not analysed"
        time.sleep(0.2)
    assert analysis["status"] == "ready" and analysis["level"] == 3
    assert {note["seq"] for note in analysis["moves"]} <= {1, 3}


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_player_plays_a_level_1_bot_to_the_end_over_http(
    bot_server: BackgroundServer, engine: str
) -> None:
    """Random moves of a person against the bot, which answers each within seconds."""
    players = [{"name": "Ann"}] + [{"bot": "mcts", "level": 1}] * (ENGINES[engine].min_players - 1)
    game = requests.post(
        bot_server.api("/games"), json={"engine": engine, "players": players}, timeout=10
    ).json()
    assert "players" in game, game
    auth = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    url, rng, waited = bot_server.api(f"/games/{game['id']}"), random.Random(1), []
    while True:
        started = time.monotonic()
        while (view := requests.get(url, headers=auth, timeout=10).json())["to_move"] != [0]:
            if view["status"] != "active":
                break
            assert time.monotonic() - started < ANSWER_SECONDS, "the bot did not answer"
            time.sleep(0.05)
        waited.append(time.monotonic() - started)
        if view["status"] != "active":
            break
        legal = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"]
        move = {"move": rng.choice(legal), "expected_seq": view["seq"]}
        assert requests.post(f"{url}/moves", json=move, headers=auth, timeout=10).status_code == 201
    assert view["status"] == "finished" and view["seq"] > 1
    assert max(waited) < ANSWER_SECONDS


# -- bots in the web server (TURNPOST_BOTS=server) ---------------------------------------


def finish(url: str, game_ids: list[str], seconds: float) -> list[dict]:
    """The games ``game_ids`` read from the API once none is active (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        views = [
            requests.get(f"{url}/api/v1/games/{game_id}", timeout=10).json() for game_id in game_ids
        ]
        if all(view["status"] != "active" for view in views):
            return views
        assert time.monotonic() < deadline, "the bots did not finish their games"
        time.sleep(0.2)


def test_two_web_workers_and_a_worker_play_bots_only_games_once(db_url: str, app) -> None:
    """Two gunicorn workers and a ``turnpost worker`` all play the bots: every engine's game
    ends, its log is the seeded bots' (no seq twice, none skipped), nothing failed."""
    server = start_background(db_url, workers=2, environment=SERVER_BOTS)
    worker = run_command(["worker"], {"TURNPOST_DB": db_url, "TURNPOST_BOTS": "server"})
    try:
        ids = [
            requests.post(
                server.api("/games"),
                json={
                    "engine": engine,
                    "players": [{"bot": "random"}] * ENGINES[engine].min_players,
                },
                timeout=10,
            ).json()["id"]
            for engine in ENGINES
        ]
        assert all(view["status"] == "finished" for view in finish(server.url, ids, 120))
    finally:
        worker.terminate()
        server.stop()
    out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0 and "Traceback" not in err, err
    with app.app_context():
        games = current_service()
        for game_id in ids:
            logged = games.store.moves(game_id)
            assert [entry.seq for entry in logged] == list(range(1, len(logged) + 1))
            assert [entry.move for entry in logged] == seeded_bot_log(games, games.load(game_id))
    assert "Traceback" not in server.log() and "; retrying" not in server.log()


def timed_get(url: str) -> tuple[dict, float]:
    """The JSON answer to ``GET url`` and the seconds it took."""
    started = time.monotonic()
    answer = requests.get(url, timeout=30).json()
    return answer, time.monotonic() - started


def test_a_worker_answers_reads_while_its_bot_thinks(tmp_path) -> None:
    """One gunicorn worker plays a level-3 bot (half a second of search a turn): the game is
    read meanwhile from that worker, each read answered in a fraction of the bot's time (a
    search in the worker's event loop would hold a read for all of it)."""
    server = start_background(str(tmp_path / "t.db"), workers=1, environment=SERVER_BOTS)
    try:
        players = [{"name": "Ann"}, {"bot": "mcts", "level": 3}]
        game = requests.post(
            server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
        ).json()
        url, auth = server.api(f"/games/{game['id']}"), game["players"][0]["token"]
        headers, rng = {"Authorization": f"Bearer {auth}"}, random.Random(2)
        for _turn in range(3):
            view = requests.get(url, timeout=10).json()
            legal = requests.get(f"{url}/legal-moves", headers=headers, timeout=10).json()["moves"]
            move = {"move": rng.choice(legal), "expected_seq": view["seq"]}
            started = time.monotonic()
            posted = requests.post(f"{url}/moves", json=move, headers=headers, timeout=10)
            assert posted.status_code == 201, posted.text
            reads = []
            while (answer := timed_get(url))[0]["to_move"] == [1]:
                reads.append(answer[1])
                assert time.monotonic() - started < 30, "the bot did not answer"
            thinking = time.monotonic() - started
            assert answer[0]["status"] == "active" and len(reads) >= 5, (reads, thinking)
            assert max(reads) < thinking / 4, (max(reads), thinking)
    finally:
        server.stop()


def test_sigterm_stops_a_web_server_whose_bots_think_within_seconds(tmp_path) -> None:
    """gunicorn's graceful stop with level-5 bots searching (up to 4.5 s of CPU a turn) in
    both workers: the server is gone within 4 s (before gunicorn's 5 s would end in
    SIGKILL), the searches abandoned, and the log it kept is whole."""
    db_url = str(tmp_path / "t.db")
    server = start_background(db_url, workers=2, environment=SERVER_BOTS)
    players = [{"bot": "mcts", "level": 5}] * 2
    ids = [
        requests.post(
            server.api("/games"), json={"engine": engine, "players": players}, timeout=10
        ).json()["id"]
        for engine in ("king-of-siam", "foreign-king")
    ]
    time.sleep(3)  # both workers deep in a search
    started = time.monotonic()
    server.process.terminate()
    server.process.wait(timeout=30)
    stopped = time.monotonic() - started
    log = server.log()
    assert stopped < 4 and server.process.returncode == 0, (stopped, log[-2000:])
    assert "SIGKILL" not in log and "Traceback" not in log and "timeout" not in log
    games = GameService(open_store(db_url))
    for game_id in ids:
        logged = games.store.moves(game_id)
        assert [entry.seq for entry in logged] == list(range(1, len(logged) + 1))


def test_sigterm_stops_a_waiting_worker_within_seconds(tmp_path) -> None:
    """A worker whose bots and after-game analyses wait for the database's next change (the
    analyses up to 10 s between looks) exits within seconds of ``SIGTERM``, 0, saying so."""
    worker = run_command(["worker", "--interval", "0.2"], {"TURNPOST_DB": str(tmp_path / "t.db")})
    assert worker.stdout is not None and "worker started" in worker.stdout.readline()
    time.sleep(1.5)  # every thread in its wait
    started = time.monotonic()
    worker.terminate()
    out, err = worker.communicate(timeout=30)
    took = time.monotonic() - started
    assert took < 3 and worker.returncode == 0, (took, err)  # 8.7 s when the waits ignored it
    assert "worker stopped" in out and "Traceback" not in err


def test_the_quick_start_demo_server_plays_the_bots_without_a_worker(tmp_path) -> None:
    """``./run`` is ``turnpost serve --demo`` and starts no worker: unless ``TURNPOST_BOTS``
    says otherwise, its own workers play the bots."""
    port = free_port()
    environment = {"TURNPOST_DB": str(tmp_path / "demo.db"), "HOME": str(tmp_path)}
    server = run_command(["serve", "--demo", "--port", str(port)], environment)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while not healthy(url):
            assert time.monotonic() < deadline and server.poll() is None, "no server"
            time.sleep(0.2)
        players = [{"bot": "random"}, {"bot": "random"}]
        game = requests.post(
            f"{url}/api/v1/games", json={"engine": "siam", "players": players}, timeout=10
        ).json()
        assert finish(url, [game["id"]], 60)[0]["status"] == "finished"
    finally:
        server.terminate()
    out, _err = server.communicate(timeout=30)
    assert "played by this server (TURNPOST_BOTS=server)" in out


def healthy(url: str) -> bool:
    """Whether the server at ``url`` answers ``/healthz`` (gunicorn's socket is open before
    its workers boot: a request may wait then)."""
    try:
        return requests.get(f"{url}/healthz", timeout=2).ok
    except (requests.ConnectionError, requests.Timeout):
        return False


def test_with_turnpost_bots_off_no_worker_plays_them(db_url: str, client) -> None:
    game = create(client, "siam", [{"bot": "random"}, {"bot": "random"}])
    worker = run_command(["worker"], {"TURNPOST_DB": db_url, "TURNPOST_BOTS": "off"})
    assert worker.stdout.readline() == "worker started; other processes play the bots\n"
    time.sleep(2)
    worker.terminate()
    _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0 and "Traceback" not in err, err
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["seq"] == 0


@pytest.mark.parametrize("command", [["worker"], ["serve", "--port", "1"]])
def test_a_wrong_turnpost_bots_is_refused_in_words(db_url: str, command: list[str]) -> None:
    environment = {"TURNPOST_DB": db_url, "TURNPOST_BOTS": "sometimes"}
    result = CliRunner().invoke(main, command, env=environment)
    assert result.exit_code != 0
    assert "TURNPOST_BOTS must be one of worker, server, off, not 'sometimes'" in result.output
