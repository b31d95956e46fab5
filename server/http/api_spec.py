"""The OpenAPI document of the API: typed per-engine schemas, operation ids and every answer.

:func:`init_api` builds the flask-smorest :class:`~server.http.api.Api` of an
app. On top of what flask-smorest generates from the marshmallow schemas of
:mod:`schemas.api`, it registers for every engine in :data:`engines.ENGINES`
(``<Engine>`` is its id in CamelCase, ``king-of-siam`` -> ``KingOfSiam``):

- ``<Engine><Action>Move``: one component per action, from the engine's
  ``MOVE_SCHEMAS`` (its ``move_schemas`` reference), with an example move
  met in a seeded game and the optional ``notation`` each ``legal-moves``
  entry carries (ignored when posted back);
- ``<Engine>Move``: a ``oneOf`` of those, discriminated by ``action``;
- ``<Engine>State`` and ``<Engine>Board``: the ``StateSchema`` and
  ``BoardSchema`` of the module holding its move schemas
  (``schemas/<game>.py``), or a plain object while a game has none yet.

Fields of :mod:`schemas.api` whose shape depends on the engine
(:class:`schemas.api.PerEngine`: a game's ``state``, a submitted or listed
move, an engine's ``board``) become an ``anyOf`` of every engine's component.
Nested schemas of a game module are named after the game too
(``schemas.king_of_siam.FollowerSchema`` -> ``KingOfSiamFollowerSchema``).

    >>> camel("king-of-siam"), camel("move_citizens")
    ('KingOfSiam', 'MoveCitizens')
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Flask, current_app
from marshmallow import Schema, fields

from engines import ENGINES, Engine
from schemas.api import PerEngine
from schemas.moves import LISTED_NOTATION, move_schemas
from server.http.actor import SESSION_COOKIE

#: How callers prove who they are (``components.securitySchemes``).
SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat token (shown once at creation, or by a reissue) opens that seat"
        " of its game; a game's admin token, its admin operations.",
    },
    "personalToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "tpp_...",
        "description": "A player's personal API token, made, named and revoked on the"
        " player's page (/me); only its hash is stored. It reads the player's games.",
    },
    "session": {
        "type": "apiKey",
        "in": "cookie",
        "name": SESSION_COOKIE,
        "description": "The session cookie of a browser signed in by a mailed link.",
    },
}
#: Seeded random games played to find an example of each action (until every action has one).
EXAMPLE_GAMES = 6
EXAMPLE_PLIES = 300
#: Modules whose schema names are not prefixed with a game's name.
SHARED_MODULES = frozenset(
    {"schemas.api", "schemas.accounts", "schemas.base", "schemas.talk", __name__}
)


def camel(name: str) -> str:
    """``king-of-siam`` or ``move_citizens`` in CamelCase."""
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


def schema_name(schema: type[Schema] | Schema) -> str:
    """The component name of a schema met inside another one.

    A schema of :mod:`schemas.api` is named after its class without
    ``Schema`` (``GameSchema`` -> ``Game``). One of ``schemas/<game>.py`` is
    prefixed with the game's name and keeps its ``Schema`` suffix
    (``schemas.foreign_king.FactorySchema`` -> ``ForeignKingFactorySchema``):
    two games' ``OptionsSchema`` never collide, and neither do a schema's
    name and the name a client generator gives an enum of another schema
    (``ForeignKingFactory`` + ``kind`` would be ``ForeignKingFactoryKind``).
    """
    resolved = resolve_schema_cls(schema)
    cls = resolved[0] if isinstance(resolved, list) else resolved
    module = cls.__module__
    if module.startswith("schemas.") and module not in SHARED_MODULES:
        return camel(module.rsplit(".", 1)[1]) + cls.__name__
    return cls.__name__.removesuffix("Schema") or cls.__name__


def ref(name: str) -> dict[str, str]:
    """A reference to the component schema ``name``."""
    return {"$ref": f"#/components/schemas/{name}"}


def per_engine_properties(_converter: Any, field: fields.Field, **_: Any) -> dict[str, Any]:
    """The OpenAPI of a :class:`~schemas.api.PerEngine` field: any engine's component.

    (An apispec attribute function: apispec binds it to its converter.)
    """
    if not isinstance(field, PerEngine):
        return {}
    choices = [ref(f"{camel(engine_id)}{field.kind}") for engine_id in ENGINES]
    return {"anyOf": choices}


def constant_properties(_converter: Any, field: fields.Field, **_: Any) -> dict[str, Any]:
    """A string ``Constant`` (a move's ``action``) is a one-value string enum."""
    if isinstance(field, fields.Constant) and isinstance(field.constant, str):
        return {"type": "string", "enum": [field.constant]}
    return {}


def game_module(engine: Engine) -> Any:
    """The module holding ``engine``'s move schemas (``schemas/<game>.py``)."""
    return import_module(engine.move_schemas.partition(":")[0])


@dataclass(frozen=True)
class Example:
    """A move met in a seeded random game: the ``state`` where ``seat`` could play it."""

    move: dict[str, Any]
    state: dict[str, Any]
    seat: int


@cache
def examples(engine_id: str) -> dict[str, Example]:
    """A legal move of each action of ``engine_id``, with where it was legal.

    Found by playing seeded random games (the first listed move of each
    action), so every process finds the same and every worker serves the
    same document. An action no listed move has (a whole turn the engine
    lists as decisions) has no example.
    """
    engine = ENGINES[engine_id]
    actions = set(move_schemas(engine))
    found: dict[str, Example] = {}
    for seed in range(EXAMPLE_GAMES):
        players = engine.max_players if seed % 2 else engine.min_players
        _play_for_examples(engine, players, seed, found)
        if actions <= set(found):
            break
    return found


def _play_for_examples(engine: Engine, players: int, seed: int, found: dict[str, Example]) -> None:
    """Play one seeded random game, keeping the first listed move of each action."""
    choose = random.Random(seed).choice
    state = engine.setup(players, engine.options({}), seed)
    for _ in range(EXAMPLE_PLIES):
        seats = engine.to_move(state)
        if not seats:
            return
        moves = engine.legal_moves(state, seats[0])
        for move in moves:
            if move["action"] not in found:
                found[move["action"]] = Example(move, state, seats[0])
        state = engine.apply(state, seats[0], choose(moves))


def _documented(schema: type[Schema]) -> type[Schema]:
    """``schema`` with the optional ``notation`` a listed move carries (documentation only)."""
    notation = fields.String(
        metadata={
            "description": "The move's notation, as each legal-moves entry carries it;"
            " ignored when the move is posted."
        }
    )
    return type(schema.__name__, (schema,), {LISTED_NOTATION: notation})


def register_engine(spec: Any, engine: Engine) -> None:
    """Register ``engine``'s move, state and board components (see the module docstring)."""
    prefix = camel(engine.id)
    found = examples(engine.id)
    mapping = {}
    for action, schema in sorted(move_schemas(engine).items()):
        name = f"{prefix}{camel(action)}Move"
        component: dict[str, Any] = {"description": f"A `{action}` move of {engine.name}."}
        if action in found:
            component["example"] = found[action].move
        spec.components.schema(name, component, schema=_documented(schema))
        mapping[action] = ref(name)["$ref"]
    spec.components.schema(
        f"{prefix}Move",
        {
            "description": f"A move of {engine.name}: its `action` says which.",
            "oneOf": [{"$ref": target} for target in mapping.values()],
            "discriminator": {"propertyName": "action", "mapping": mapping},
        },
    )
    module = game_module(engine)
    for kind, what in (("State", "public state"), ("Board", "static board data")):
        schema = getattr(module, f"{kind}Schema", None)
        name = f"{prefix}{kind}"
        if schema is None:
            plain = {"type": "object", "description": f"The {what} of {engine.name} (untyped)."}
            spec.components.schema(name, plain)
        else:
            spec.components.schema(name, schema=schema)


def marshmallow_plugin() -> MarshmallowPlugin:
    """apispec's marshmallow plugin naming game schemas after their game."""
    return MarshmallowPlugin(schema_name_resolver=schema_name)


def init_api(app: Flask) -> Any:
    """Build the app's API and its OpenAPI document; the :class:`~server.http.api.Api`."""
    from server.http import api  # the views need the app module first (see server.app)

    rest = api.Api(app, spec_kwargs={"marshmallow_plugin": marshmallow_plugin()})
    rest.ma_plugin.converter.add_attribute_function(per_engine_properties)
    rest.ma_plugin.converter.add_attribute_function(constant_properties)
    for name, scheme in SECURITY_SCHEMES.items():
        rest.spec.components.security_scheme(name, scheme)
    for engine in ENGINES.values():
        register_engine(rest.spec, engine)
    rest.register_blueprint(api.blp)
    app.extensions["turnpost_api"] = rest
    return rest


def openapi_document() -> dict[str, Any]:
    """The running app's OpenAPI document (what ``/api/v1/openapi.json`` serves)."""
    return current_app.extensions["turnpost_api"].spec.to_dict()
