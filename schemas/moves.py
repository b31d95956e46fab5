"""Move validation by engine: the move schemas each engine names, chosen by ``action``.

An engine names its schemas in its ``move_schemas`` attribute
(``"schemas.siam:MOVE_SCHEMAS"``); they are loaded once and checked for every
registered engine when this module is imported and for each engine
registered later (:func:`engines.on_register`), so a missing or broken
reference stops the server from starting instead of failing a request.

>>> load_move("siam", {"action": "rotate", "at": "b2", "facing": "S"})
{'action': 'rotate', 'at': 'b2', 'facing': 'S'}
>>> try:
...     load_move("siam", {"action": "fly"})
... except ValidationError as error:
...     error.messages["action"]
['Unknown action; expected one of: enter, exit, move, rotate.']
"""

from __future__ import annotations

from functools import cache
from pkgutil import resolve_name
from typing import Any

from marshmallow import Schema, ValidationError

from engines import ENGINES, Engine, on_register

#: The key each ``legal-moves`` entry carries beside the move's fields.
LISTED_NOTATION = "notation"

MoveSchemas = dict[str, type[Schema]]


def move_schemas(engine: Engine) -> MoveSchemas:
    """The schema class of each action of ``engine``, as its ``move_schemas`` names them.

    Raise ``ValueError`` naming the engine if the reference cannot be loaded
    or is not a dict from action names to marshmallow schema classes.

    >>> sorted(move_schemas(ENGINES["siam"]))
    ['enter', 'exit', 'move', 'rotate']
    """
    return _resolved(engine.id, engine.move_schemas)


@cache
def _resolved(engine_id: str, reference: str) -> MoveSchemas:
    """The schemas ``reference`` names, checked; loaded once per reference."""
    try:
        schemas = resolve_name(reference)
    except (ImportError, AttributeError, ValueError) as error:
        raise ValueError(
            f"Engine {engine_id!r}: its move schemas {reference!r} cannot be loaded ({error})."
        ) from error
    if not isinstance(schemas, dict) or not schemas or not all(map(_is_action, schemas.items())):
        raise ValueError(
            f"Engine {engine_id!r}: {reference!r} must be a dict from each action "
            f"to its marshmallow schema class."
        )
    return schemas


def _is_action(item: tuple[Any, Any]) -> bool:
    """Whether ``item`` pairs an action name with a marshmallow schema class."""
    action, schema = item
    return isinstance(action, str) and isinstance(schema, type) and issubclass(schema, Schema)


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
    schemas = move_schemas(ENGINES[engine_id])
    action = data.get("action")
    if not isinstance(action, str) or action not in schemas:
        expected = ", ".join(sorted(schemas))
        raise ValidationError({"action": [f"Unknown action; expected one of: {expected}."]})
    return _schema(schemas[action]).load(data)


@cache
def _schema(kind: type[Schema]) -> Schema:
    """The one instance of a move schema class (a schema keeps no state between loads)."""
    return kind()


on_register(move_schemas)
