"""The crowd of ``bench/load.py``: slow clients and event-stream listeners, in their own process.

One asyncio loop holds every connection, so that a thousand of them cost the
benchmark one process, and the timing threads of the movers and readers (in
the parent) do not share its interpreter lock:

- a **slow client** opens a connection, starts a request and sends one more
  header line every :data:`SLOW_LINE_SECONDS`, never ending its headers; when
  the server cuts it off it connects again (counted as ``cut_off``);
- a **listener** follows the event stream of an active game (ids arrive on a
  queue as the movers create games), counts its ``move`` events and, when the
  stream ends (the game is over: ``end``), follows another game.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from dataclasses import asdict, dataclass
from typing import Any

#: Seconds between the header lines of a slow client (issue 11's attack: one every 3 s).
SLOW_LINE_SECONDS = 3.0


@dataclass
class Tally:
    """What the crowd saw."""

    events: int = 0
    streams: int = 0
    refused_streams: int = 0
    ended_streams: int = 0
    slow_connections: int = 0
    cut_off: int = 0
    errors: int = 0
    #: CPU seconds the crowd's process used (it shares the machine with the server).
    cpu_seconds: float = 0.0


class Crowd:
    """The asyncio side: slow clients and listeners against ``host:port``."""

    def __init__(self, host: str, port: int, games: Any, stop: Any) -> None:
        self.host, self.port = host, port
        self.games_queue, self.stop = games, stop
        self.games: list[str] = []
        self.finished: set[str] = set()
        self.tally = Tally()

    def running(self) -> bool:
        """Whether the parent has not asked the crowd to stop."""
        return not self.stop.is_set()

    async def learn_games(self) -> None:
        """Take the ids of new games from the parent's queue."""
        while self.running():
            while not self.games_queue.empty():
                self.games.append(self.games_queue.get())
            await asyncio.sleep(0.2)

    async def slow_client(self, index: int) -> None:
        """Hold a request whose headers never end; reconnect whenever cut off."""
        await asyncio.sleep(index * 0.01)
        while self.running():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                self.tally.errors += 1
                await asyncio.sleep(1)
                continue
            self.tally.slow_connections += 1
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n")
            try:
                line = 0
                while self.running():
                    try:
                        await asyncio.wait_for(reader.read(1), SLOW_LINE_SECONDS)
                        break  # EOF or an answer: the server cut the request off
                    except TimeoutError:
                        pass
                    writer.write(f"X-Slow-{line}: yes\r\n".encode())
                    await writer.drain()
                    line += 1
                else:
                    return
                self.tally.cut_off += 1
            except OSError:
                self.tally.cut_off += 1
            finally:
                writer.close()

    async def listener(self, index: int) -> None:
        """Follow the stream of one active game after another, counting move events."""
        rng = random.Random(index)
        await asyncio.sleep(index * 0.005)
        while self.running():
            active = [game for game in self.games if game not in self.finished]
            if not active:
                await asyncio.sleep(0.2)
                continue
            await self.follow(rng.choice(active))

    async def follow(self, game_id: str) -> None:
        """One event stream until it ends or the crowd stops."""
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            self.tally.errors += 1
            await asyncio.sleep(1)
            return
        path = f"/api/v1/games/{game_id}/events"
        writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        try:
            status = await reader.readline()
            if b" 200 " not in status:
                self.tally.refused_streams += 1
                await asyncio.sleep(1)
                return
            self.tally.streams += 1
            while self.running():
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                self.tally.events += chunk.count(b"event: move")
                if b"event: end" in chunk:
                    self.finished.add(game_id)
                    self.tally.ended_streams += 1
                    return
        except OSError:
            self.tally.errors += 1
        finally:
            writer.close()

    async def run(self, slow_clients: int, listeners: int) -> Tally:
        """Run every client until stopped."""
        tasks = [asyncio.create_task(self.learn_games())]
        tasks += [asyncio.create_task(self.slow_client(i)) for i in range(slow_clients)]
        tasks += [asyncio.create_task(self.listener(i)) for i in range(listeners)]
        while self.running():
            await asyncio.sleep(0.2)
        await asyncio.wait(tasks, timeout=5)
        for task in tasks:
            task.cancel()
        return self.tally


def crowd_process(
    host: str, port: int, slow_clients: int, listeners: int, games: Any, stop: Any, results: Any
) -> None:
    """The child process's body: run the crowd, then report its tally."""
    crowd = Crowd(host, port, games, stop)
    tally = asyncio.run(crowd.run(slow_clients, listeners))
    tally.cpu_seconds = time.process_time()
    results.put(asdict(tally))


def start_crowd(
    url: str, slow_clients: int, listeners: int
) -> tuple[multiprocessing.Process, Any, Any, Any]:
    """Start the crowd in a child process: ``(process, games queue, stop event, results)``."""
    host, port = url.removeprefix("http://").split(":")
    games, results = multiprocessing.Queue(), multiprocessing.Queue()
    stop = multiprocessing.Event()
    process = multiprocessing.Process(
        target=crowd_process,
        args=(host, int(port), slow_clients, listeners, games, stop, results),
        daemon=True,
    )
    process.start()
    return process, games, stop, results
