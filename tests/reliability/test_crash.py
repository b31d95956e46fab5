"""Crash durability: SIGKILL the gunicorn server under load, restart it, lose nothing.

Several client threads each play their own Siam game (choosing legal moves
with the engine locally, always with ``expected_seq``) against a real
gunicorn server on a temporary SQLite file. At random moments the test kills
the master and every worker with SIGKILL, three times, and starts a new
server on the same file. (The master and its workers are killed one by one,
at once: ``start_background`` does not give the server a process group of its
own, and the test's own group must survive.) Both players of every game have an email and
opened their mail's link, so each move also writes a "your turn" mail to the outbox in its
transaction.

What may happen to a move whose request was in flight during a kill: the
server may have committed it and died before the 201 left, or died before
committing. The client cannot tell, so it records the move as *uncertain*
and, once the server is back, reads the game: if the log has grown by one,
that entry must be exactly the move it sent (then it adopts it); otherwise
the log must be unchanged. So at the end, for every game, the log must be
exactly the moves that got a 201 (same seq, seat and move) plus adopted
uncertain moves, which are consistent with a replay by construction, and
``turnpost replay`` must rebuild every snapshot, and the outbox must hold
exactly one mail per position of each game: none lost, none for a move that
never landed.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from click.testing import CliRunner

from engines import get_engine
from server.cli import main
from server.games.service import GameService
from server.store import open_store
from tests.reliability.conftest import start_unlimited
from tests.support import BackgroundServer

SIAM = get_engine("siam")
CLIENTS = 6
KILLS = 3


def workers(pid: int) -> list[int]:
    """The child processes of gunicorn's master ``pid`` (its workers), from ``/proc``."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def kill_server(server: BackgroundServer) -> None:
    """SIGKILL the master and its workers at once (a crash, not a shutdown); reap the master."""
    for pid in [server.process.pid, *workers(server.process.pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.process.wait(timeout=10)


@dataclass
class Cluster:
    """The current server, swapped on every restart; clients wait on ``up`` while it is down."""

    server: BackgroundServer
    seed: int
    up: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    failures: list[str] = field(default_factory=list)
    #: The stderr of every server that ran, to explain a failure.
    logs: list[str] = field(default_factory=list)

    def replace(self, server: BackgroundServer) -> None:
        """Keep the stderr of the dead server and switch to ``server``."""
        self.logs.append(self.server.log())
        self.server = server

    def errors(self) -> str:
        """The server-side tracebacks, if any."""
        return "\n".join(log for log in self.logs if "Traceback" in log)[-4000:]


@dataclass
class Player:
    """One client thread's game: what the server acknowledged, and what is in doubt."""

    game: dict[str, Any]
    rng: random.Random
    state: dict[str, Any] = field(default_factory=lambda: SIAM.setup(2, SIAM.options({}), 0))
    #: ``(seq, seat, move)`` for every move the server answered 201, plus adopted uncertain ones.
    ledger: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    acknowledged: int = 0
    #: Requests whose answer never came (the server died under them).
    lost: int = 0
    adopted: int = 0
    uncertain: tuple[int, int, dict[str, Any]] | None = None

    def resolve(self, session: requests.Session, cluster: Cluster) -> None:
        """After a lost answer: adopt the in-flight move if it landed, else forget it."""
        seq, seat, move = self.uncertain
        url = cluster.server.api(f"/games/{self.game['id']}/moves")
        log = session.get(url, timeout=10).json()
        if len(log) == seq:
            landed = log[-1]
            if (landed["seat"], landed["move"]) != (seat, move):
                cluster.failures.append(f"seq {seq} holds {landed}, not the move sent {move}")
            self.record(seq, seat, move)
            self.adopted += 1
        elif len(log) != seq - 1:
            cluster.failures.append(f"log of {len(log)} moves after sending seq {seq}")
        self.uncertain = None

    def record(self, seq: int, seat: int, move: dict[str, Any]) -> None:
        """Append a move known to be in the log and advance the local state."""
        self.ledger.append((seq, seat, move))
        self.state = SIAM.apply(self.state, seat, move)

    def step(self, session: requests.Session, cluster: Cluster) -> None:
        """Submit one random legal move; 201 goes to the ledger, a lost answer to ``uncertain``."""
        seat = SIAM.to_move(self.state)[0]
        move = self.rng.choice(SIAM.legal_moves(self.state, seat))
        seq = len(self.ledger) + 1
        self.uncertain = (seq, seat, move)
        response = session.post(
            cluster.server.api(f"/games/{self.game['id']}/moves"),
            json={"move": move, "expected_seq": seq - 1},
            headers={"Authorization": f"Bearer {self.game['players'][seat]['token']}"},
            timeout=10,
        )
        self.uncertain = None
        if response.status_code != 201 or response.json()["seq"] != seq:
            cluster.failures.append(f"move {seq}: {response.status_code} {response.text[:200]}")
            cluster.stop.set()
            return
        self.record(seq, seat, move)
        self.acknowledged += 1


def play(player: Player, cluster: Cluster) -> None:
    """Submit moves until told to stop, riding out every crash."""
    session = requests.Session()
    while not cluster.stop.is_set() and SIAM.to_move(player.state):
        cluster.up.wait()
        try:
            if player.uncertain is not None:
                player.resolve(session, cluster)
            else:
                player.step(session, cluster)
        except requests.RequestException:
            player.lost += 1
            session = requests.Session()
            time.sleep(0.05)
        except Exception as error:  # a broken answer: report it rather than die silently
            cluster.failures.append(f"client of {player.game['id']} failed: {error!r}")
            cluster.stop.set()


def opened_links(db_path: str, games: list[dict[str, Any]]) -> None:
    """Every player of ``games`` opened their mail's link: each turn of theirs is mailed."""
    store = open_store(db_path)
    try:
        for game in games:
            for player in game["players"]:
                GameService(store).player_acted(game["id"], player["seat"])
    finally:
        store.close()


def run_with_crashes(db_path: str, seed: int) -> tuple[list[Player], Cluster]:
    """Play from ``CLIENTS`` threads while killing and restarting the server ``KILLS`` times."""
    rng = random.Random(seed)
    cluster = Cluster(start_unlimited(db_path), seed)
    players = []
    for index in range(CLIENTS):
        players_in = [{"name": n, "email": f"{n}{index}@example.org"} for n in ("ann", "bob")]
        body = {"engine": "siam", "players": players_in, "seed": 0}
        created = requests.post(cluster.server.api("/games"), json=body, timeout=10)
        assert created.status_code == 201, created.text
        players.append(Player(created.json(), random.Random(seed * 100 + index)))
    opened_links(db_path, [player.game for player in players])
    cluster.up.set()
    threads = [threading.Thread(target=play, args=(p, cluster)) for p in players]
    for thread in threads:
        thread.start()
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.3, 1.5))
            cluster.up.clear()
            kill_server(cluster.server)
            cluster.replace(start_unlimited(db_path))
            cluster.up.set()
        time.sleep(0.5)
    finally:
        cluster.stop.set()
        cluster.up.set()
        for thread in threads:
            thread.join(timeout=30)
        cluster.server.stop()
        cluster.logs.append(cluster.server.log())
    return players, cluster


def logged_moves(db_path: str, game_id: str) -> list[tuple[int, int, dict[str, Any]]]:
    """The move log of a game as stored in the database file."""
    store = open_store(db_path)
    try:
        return [(m.seq, m.seat, m.move) for m in store.moves(game_id)]
    finally:
        store.close()


def outbox_mails(db_path: str, game_id: str) -> list[tuple[int, str, int]]:
    """``(seq, kind, seat)`` of every mail of a game in the outbox, in order."""
    store = open_store(db_path)
    try:
        rows = store.db.query(
            "SELECT seq, kind, seat FROM outbox WHERE game_id = ? ORDER BY seq, seat", [game_id]
        )
        return [(row["seq"], row["kind"], row["seat"]) for row in rows]
    finally:
        store.close()


def expected_mails(ledger: list[tuple[int, int, dict[str, Any]]]) -> list[tuple[int, str, int]]:
    """One "your turn" mail per position of the game (both seats have an email)."""
    state = SIAM.setup(2, SIAM.options({}), 0)
    mails = []
    for seq in range(len(ledger) + 1):
        if seq:
            state = SIAM.apply(state, ledger[seq - 1][1], ledger[seq - 1][2])
        to_move = SIAM.to_move(state)
        if to_move:
            mails.append((seq, "turn", to_move[0]))
        else:
            mails.extend((seq, "game_over", seat) for seat in (0, 1))
    return mails


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[Player], Cluster]:
    """A database that went through ``KILLS`` crashes under load, with each client's ledger."""
    db_path = str(tmp_path_factory.mktemp("crash") / "crash.db")
    players, cluster = run_with_crashes(db_path, seed=time.time_ns())
    return db_path, players, cluster


def test_every_acknowledged_move_survives_and_nothing_else_lands(
    crashed: tuple[str, list[Player], Cluster],
) -> None:
    db_path, players, cluster = crashed
    assert cluster.failures == [], f"seed {cluster.seed}\n{cluster.errors()}"
    assert all(player.uncertain is None for player in players)
    assert sum(player.acknowledged for player in players) >= CLIENTS * 10, "too little load"
    assert sum(player.lost for player in players) > 0, "no kill hit a request in flight"
    for player in players:
        assert logged_moves(db_path, player.game["id"]) == player.ledger, f"seed {cluster.seed}"


def test_the_outbox_holds_one_mail_per_logged_move(
    crashed: tuple[str, list[Player], Cluster],
) -> None:
    db_path, players, cluster = crashed
    for player in players:
        assert outbox_mails(db_path, player.game["id"]) == expected_mails(player.ledger)


def test_replay_rebuilds_every_snapshot_after_the_crashes(
    crashed: tuple[str, list[Player], Cluster],
) -> None:
    db_path, players, _ = crashed
    runner = CliRunner()
    for player in players:
        result = runner.invoke(main, ["replay", player.game["id"]], env={"TURNPOST_DB": db_path})
        assert result.exit_code == 0, result.output
        assert f"OK: {len(player.ledger)} moves" in result.output
