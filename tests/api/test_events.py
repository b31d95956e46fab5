"""What a client can rely on in the event stream: each entry's move, words, turn and result."""

from __future__ import annotations

import json
from typing import Any

from tests.api.conftest import seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def parse_stream(text: str) -> list[dict[str, Any]]:
    """The events of a finished stream, each ``{"id", "event", "data"}`` with ``data`` parsed."""
    events = []
    for chunk in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines() if line and line[0] != ":")
        if "event" in fields:
            events.append({**fields, "data": json.loads(fields["data"])})
    return events


def test_a_resigned_games_stream_tells_every_entry_then_ends(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}"
    client.post(f"{path}/moves", json={"notation": "enter a1 N"}, headers=seat_header(siam_game, 0))
    client.post(f"{path}/resign", headers=seat_header(siam_game, 1))
    events = parse_stream(client.get(f"{path}/events").get_data(as_text=True))
    assert [(e["id"], e["event"]) for e in events] == [("1", "move"), ("2", "move"), ("2", "end")]
    first, resigned, end = (event["data"] for event in events)
    assert first == {
        "seq": 1,
        "seat": 0,
        "move": {"action": "enter", "to": "a1", "facing": "N"},
        "notation": "enter a1 N",
        "description": "Ann enters an elephant on a1, facing north.",
        "to_move": [1],
        "status": "active",
        "result": None,
    }
    assert resigned["move"] == {"action": "resign"} and resigned["description"] == "Bob resigns."
    assert resigned["status"] == "finished" and resigned["to_move"] == []
    assert resigned["result"]["winners"] == [0] and resigned["result"]["resigned"] == [1]
    assert end == {"seq": 2, "status": "finished", "result": resigned["result"]}
    resumed = client.get(f"{path}/events", headers={"Last-Event-ID": "1"}).get_data(as_text=True)
    assert [e["id"] for e in parse_stream(resumed)] == ["2", "2"]
    assert client.get(f"{path}/events", headers={"Last-Event-ID": "2"}).status_code == 204
    assert client.get(f"{path}/events", headers={"Last-Event-ID": "two"}).status_code == 400
