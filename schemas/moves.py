"""Move validation by engine: each engine's ``MOVE_SCHEMAS`` chosen by ``action``.

>>> load_move("siam", {"action": "rotate", "at": "b2", "facing": "S"})
{'action': 'rotate', 'at': 'b2', 'facing': 'S'}
>>> try:
...     load_move("siam", {"action": "fly"})
... except ValidationError as error:
...     error.messages["action"]
['Unknown action; expected one of: enter, exit, move, rotate.']
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError

from schemas import bangkok_klongs, foreign_king, king_of_siam, siam

#: The key each ``legal-moves`` entry carries beside the move's fields.
LISTED_NOTATION = "notation"

MOVE_SCHEMAS: dict[str, dict[str, type[Schema]]] = {
    "siam": siam.MOVE_SCHEMAS,
    "king-of-siam": king_of_siam.MOVE_SCHEMAS,
    "foreign-king": foreign_king.MOVE_SCHEMAS,
    "bangkok-klongs": bangkok_klongs.MOVE_SCHEMAS,
}


def load_move(engine_id: str, data: Any) -> dict[str, Any]:
    """Validate ``data`` as a move of ``engine_id``; raise ``ValidationError`` with field errors.

    A ``notation`` key beside the move's fields (as each ``legal-moves`` entry
    carries) is left out, so a listed entry can be posted back unchanged:

    >>> load_move("siam", {"action": "exit", "from": "a1", "notation": "exit a1"})
    {'action': 'exit', 'from': 'a1'}
    """
    if not isinstance(data, dict):
        raise ValidationError({"move": ["Must be a JSON object with an 'action' field."]})
    data = {key: value for key, value in data.items() if key != LISTED_NOTATION}
    schemas = MOVE_SCHEMAS[engine_id]
    action = data.get("action")
    if not isinstance(action, str) or action not in schemas:
        expected = ", ".join(sorted(schemas))
        raise ValidationError({"action": [f"Unknown action; expected one of: {expected}."]})
    return schemas[action]().load(data)
