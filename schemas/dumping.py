"""``Schema.dump`` through a plan made once per schema: the same answer at less CPU per request.

marshmallow's ``dump`` finds, for every field of every object it dumps, the
field's getter, the schema's accessor and the field's formatter anew (five
calls a field, a game object has about 35 fields with its seats). A
:class:`Plan` looks at the schema's fields once and keeps, per field, where
its value is read and how it is written, for the field kinds the API's
answers use (``Field`` and ``Boolean`` as they are, ``String``, ``Integer``,
``Float``, ``Dict``, ``List``, ``Nested``); any other field (a ``Constant``,
a custom ``_serialize``, a ``dump_default``) is dumped by marshmallow itself,
and a schema with dump hooks or its own accessor wholly so. The schemas stay
the only description of the answers (and of the OpenAPI document);
``tests/api/test_dumping.py`` checks that every answer of every engine's
games dumps exactly as marshmallow's own ``Schema.dump`` would.

    >>> from marshmallow import Schema, fields
    >>> class Seat(Schema):
    ...     seat = fields.Integer()
    ...     name = fields.String(data_key="who")
    ...     hours = fields.Float(allow_none=True)
    >>> class Game(Schema):
    ...     seats = fields.List(fields.Nested(Seat))
    ...     state = fields.Dict(keys=fields.String())
    >>> game = {"seats": [{"seat": 0, "name": "Ann", "hours": 2, "secret": 1}], "state": {1: []}}
    >>> Plan(Game()).dump(game, many=False)
    {'seats': [{'seat': 0, 'who': 'Ann', 'hours': 2.0}], 'state': {'1': []}}
    >>> Plan(Game()).dump(game, many=False) == Schema.dump(Game(), game)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import Schema, fields, missing
from marshmallow.utils import get_value

#: A field's formatter: its value as it is written in the answer.
Formatter = Callable[[Any], Any]
#: A field's step: the field's written value of an object, or ``missing`` (left out).
Step = Callable[[Any], Any]


def as_is(value: Any) -> Any:
    """A ``Field`` or ``Boolean`` value: written as it is."""
    return value


def text(value: Any) -> str | None:
    """A ``String`` value, as marshmallow writes it."""
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def value_of(obj: Any, key: str) -> Any:
    """``obj[key]`` (or its attribute) as marshmallow's accessor finds it, or ``missing``."""
    if type(obj) is dict and "." not in key:
        value = obj.get(key, missing)
        return getattr(obj, key, missing) if value is missing else value
    return get_value(obj, key)


class Plan:
    """How to dump with one schema: a step per field (see the module)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        own = type(schema)
        plain = (
            not any(schema._hooks[hook] for hook in ("pre_dump", "post_dump"))
            and own.get_attribute is Schema.get_attribute
        )
        self.steps: list[tuple[str, Step]] | None = None
        if plain:
            self.steps = [
                (field.data_key if field.data_key is not None else name, self.step(name, field))
                for name, field in schema.dump_fields.items()
            ]

    def dump(self, obj: Any, many: bool) -> Any:
        """What ``Schema.dump(schema, obj, many=many)`` answers."""
        if self.steps is None:
            return Schema.dump(self.schema, obj, many=many)
        if many and obj is not None:
            return [self.one(each) for each in obj]
        return self.one(obj)

    def one(self, obj: Any) -> dict[str, Any]:
        """One object dumped, field by field."""
        written = {}
        for key, step in self.steps or ():
            value = step(obj)
            if value is not missing:
                written[key] = value
        return written

    def step(self, name: str, field: fields.Field) -> Step:
        """The step of ``field``: marshmallow's own unless its formatter is known."""
        formatter = formatter_of(field)
        own = type(field)
        plain = (
            own.serialize is fields.Field.serialize
            and own.get_value is fields.Field.get_value
            and field._CHECK_ATTRIBUTE
        )
        if formatter is None or not plain or field.dump_default is not missing:
            accessor = self.schema.get_attribute
            return lambda obj: field.serialize(name, obj, accessor=accessor)
        key = name if field.attribute is None else field.attribute

        def written(obj: Any) -> Any:
            value = value_of(obj, key)
            return value if value is missing else formatter(value)

        return written


def formatter_of(field: fields.Field) -> Formatter | None:
    """How ``field`` writes a value, for the kinds of the module; ``None`` for another."""
    serialize = type(field)._serialize
    if serialize is fields.Field._serialize:
        return as_is
    if serialize is fields.String._serialize:
        return text
    if serialize is fields.Number._serialize:
        return number(field)
    if serialize is fields.Mapping._serialize:
        return mapping(field)
    if serialize is fields.List._serialize:
        inner = formatter_of(field.inner)
        return None if inner is None else lambda value: listed(value, inner)
    if serialize is fields.Nested._serialize:
        return nested(field)
    return None


def number(field: fields.Number) -> Formatter | None:
    """An ``Integer``'s or ``Float``'s formatter (none for one written as a string)."""
    if field.as_string or type(field)._format_num is not fields.Number._format_num:
        return None
    kind = field.num_type
    return lambda value: None if value is None else kind(value)


def mapping(field: fields.Mapping) -> Formatter | None:
    """A ``Dict``'s formatter: a copy, its keys written by the key field (values as they are)."""
    kind, keys = field.mapping_type, field.key_field
    if field.value_field is not None:
        return None
    if keys is None:
        return lambda value: None if value is None else kind(value)
    key = formatter_of(keys)
    if key is None:
        return None
    return lambda value: None if value is None else kind((key(k), v) for k, v in value.items())


def listed(value: Any, inner: Formatter) -> list[Any] | None:
    """A ``List``'s value, each item written by the inner field."""
    return None if value is None else [inner(each) for each in value]


def nested(field: fields.Nested) -> Formatter:
    """A ``Nested`` field's formatter: its schema's plan."""
    schema = field.schema
    many = bool(schema.many or field.many)
    return lambda value: None if value is None else plan_of(schema).dump(value, many)


def plan_of(schema: Schema) -> Plan:
    """The schema's plan, made on its first dump and kept with it."""
    plan = schema.__dict__.get("_dump_plan")
    if plan is None:
        plan = schema.__dict__["_dump_plan"] = Plan(schema)
    return plan
