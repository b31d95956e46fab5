"""Request and response schemas of the REST API (contract section 2).

The OpenAPI document at ``/api/v1/openapi.json`` is generated from these.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Any

from email_validator import EmailNotValidError, validate_email
from marshmallow import ValidationError, fields, validate, validates, validates_schema

from schemas.base import StrictSchema
from schemas.clocks import ClockSchema, ClockViewSchema

#: The largest integer SQLite stores (seeds, seq numbers).
MAX_SEED = 2**63 - 1
#: A game's statuses: a table forming, a game running, and its two ends.
STATUSES = ("forming", "active", "finished", "aborted")


class PerEngine(fields.Dict):
    """A JSON object whose shape depends on the game's engine: a ``Move``, ``State`` or ``Board``.

    It loads and dumps as a plain object; in the OpenAPI document it is any
    engine's ``<Engine><kind>`` component (:mod:`server.http.api_spec`).
    """

    def __init__(self, kind: str, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), **kwargs)
        self.kind = kind


def timestamp(**kwargs: Any) -> fields.String:
    """An ISO 8601 UTC moment as the server writes it (``2026-11-25T21:00:00.000000Z``)."""
    metadata = {"format": "date-time", **kwargs.pop("metadata", {})}
    return fields.String(metadata=metadata, **kwargs)


#: Unicode categories refused in names and addresses: controls, lone surrogates, line breaks.
UNPRINTABLE = {"Cc", "Cs", "Zl", "Zp"}


def printable(value: str) -> None:
    """Refuse control characters, line breaks and lone surrogates (they end up in mail).

    >>> printable("Ann Lee")
    >>> printable("Ann\\nBcc: eve@example.org")
    Traceback (most recent call last):
    marshmallow.exceptions.ValidationError: Must not contain control characters or line breaks.
    """
    if any(unicodedata.category(character) in UNPRINTABLE for character in value):
        raise ValidationError("Must not contain control characters or line breaks.")


#: Letters that show nothing: the Hangul fillers and the braille blank.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible_name(value: str) -> None:
    """Refuse invisible formatting characters, and a name that shows nothing.

    Format characters (Unicode ``Cf``: zero-width spaces and joiners,
    bidirectional overrides...) let a name look like another or reverse the
    text around it; a name of spaces, marks or fillers alone shows no one.

    >>> visible_name("Ann Lee")
    >>> visible_name("\\u202eevil")
    Traceback (most recent call last):
    marshmallow.exceptions.ValidationError: Must not contain zero-width or bidirectional formatting.
    >>> visible_name(" \\u3164\\u0301 ")
    Traceback (most recent call last):
    marshmallow.exceptions.ValidationError: Must show at least one letter, digit or sign.
    """
    if any(unicodedata.category(character) == "Cf" for character in value):
        raise ValidationError("Must not contain zero-width or bidirectional formatting.")
    if not shows_something(value):
        raise ValidationError("Must show at least one letter, digit or sign.")


def shows_something(value: str) -> bool:
    """Whether ``value`` shows a letter, digit or sign (not only spaces, marks, fillers).

    >>> shows_something("gg"), shows_something(" \\u3164\\u0301\\n")
    (True, False)
    """
    return any(
        unicodedata.category(character)[0] not in "ZCM" and character not in BLANK_LETTERS
        for character in value
    )


def plain_address(value: str) -> str:
    """``value`` as the SMTP envelope carries it, if it is a plain ``local@domain`` address.

    The domain comes back IDNA-encoded and in lower case. Refused (with the
    reason, from email-validator): a quoted local part (``"opt\\out"@...``
    is ``optout@...`` spelled otherwise), a domain literal (``@[192.0.2.1]``),
    a display name, a local part that is not ASCII, anything malformed.
    Nothing is looked up in the DNS.

    >>> plain_address("Ann+games@Exämple.ORG")
    'Ann+games@xn--exmple-cua.org'
    >>> plain_address('"optout"@example.org')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    marshmallow.exceptions.ValidationError: Not a plain address: Quoting ... not allowed here.
    """
    try:
        checked = validate_email(value, check_deliverability=False, allow_smtputf8=False)
    except EmailNotValidError as error:
        raise ValidationError(f"Not a plain address: {error}") from None
    return checked.ascii_email


class MailAddress(fields.String):
    """An email address, loaded as :func:`plain_address` (``format: email`` in the document)."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"format": "email", **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return plain_address(super()._deserialize(value, attr, data, **kwargs))


#: The languages Turnpost speaks, each with its own name (a player's, a seat's, a page's).
LANGUAGES = {"en": "English", "nl": "Nederlands", "de": "Deutsch", "fr": "Français"}

#: The bots a seat may be played by (:mod:`engines.search`), and their levels.
BOT_KINDS = ("random", "mcts")
BOT_LEVELS = (1, 5)


class BotSchema(StrictSchema):
    """The bot that plays a seat."""

    bot = fields.String(
        required=True,
        validate=validate.OneOf(BOT_KINDS),
        metadata={"description": "`random` (a random legal move) or `mcts` (a tree search)."},
    )
    level = fields.Integer(
        strict=True,
        validate=validate.Range(*BOT_LEVELS),
        metadata={"description": "The search's strength, 1 (fast) to 5 (up to 5 s a turn)."},
    )


class PlayerInSchema(StrictSchema):
    """A player at creation: the order of ``players`` is the seating order.

    A seat is named (``name``, perhaps ``email``), a bot (``{"bot": "mcts",
    "level": 3}`` or ``{"bot": "random"}``) or open (``{"open": true}``): a
    game with an open seat is a table that forms until every seat is taken.
    """

    name = fields.String(
        load_default=None,
        validate=[validate.Length(min=1, max=64), printable, visible_name],
        metadata={
            "description": "Required unless the seat is open. No control characters, line"
            " breaks or invisible formatting (zero-width, bidirectional); at least one visible"
            " character."
        },
    )
    email = MailAddress(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Mail this player their turns: a plain local@domain address (ASCII"
            " local part, not quoted; no [IP] domain), kept with its domain IDNA-encoded in"
            " lower case."
        },
    )
    invite = fields.Boolean(
        load_default=False,
        truthy={True},
        falsy={False},
        metadata={
            "description": "Mail this player an invitation at once (needs `email`): the game,"
            " its host and the other players, with a link that takes the seat. Without it the"
            " first mail is the player's first turn mail."
        },
    )
    language = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(LANGUAGES, error="Pick one of en, nl, de, fr."),
        metadata={
            "description": "The language of the seat's page and mails (`en`, `nl`, `de`, `fr`);"
            " a signed-in player's own choice comes first. Null: the browser's, else the"
            " server's."
        },
    )
    open = fields.Boolean(
        load_default=False,
        truthy={True},
        falsy={False},
        metadata={
            "description": "An open seat, without name or email: a signed-in player takes it by"
            " joining the table (the lobby's open tables)."
        },
    )
    bot = fields.String(
        load_default=None,
        validate=validate.OneOf(BOT_KINDS, error="A bot is `random` or `mcts`."),
        metadata={
            "description": "A seat the computer plays, without name or email: `random` plays a"
            " random legal move, `mcts` searches (see `level`). Its name says it is a bot, e.g."
            " `Computer (level 3)`; it moves as soon as it is its turn."
        },
    )
    level = fields.Integer(
        load_default=None,
        strict=True,
        validate=validate.Range(*BOT_LEVELS, error="A bot's level is 1 to 5."),
        metadata={"description": "The level of an `mcts` bot, 1 to 5 (default 3)."},
    )

    @validates_schema
    def named_bot_or_open(self, data: dict[str, Any], **_: Any) -> None:
        """A named seat has a name; a bot or an open one has neither name nor email; an
        invitation needs an address; a level is an ``mcts`` bot's."""
        if data["bot"] is not None:
            if data["open"] or data["name"] is not None or data["email"] is not None:
                raise ValidationError("A bot's seat has no name, email or open: it is named so.")
            if data["level"] is not None and data["bot"] != "mcts":
                raise ValidationError("Only an `mcts` bot has a level.", "level")
            return
        if data["level"] is not None:
            raise ValidationError("A level is a bot's: give `bot` too.", "level")
        if data["open"] and (data["name"] is not None or data["email"] is not None):
            raise ValidationError("An open seat has no name or email: whoever joins it names it.")
        if not data["open"] and data["name"] is None:
            raise ValidationError("Missing data for required field.", "name")
        if data["invite"] and data["email"] is None:
            raise ValidationError("An invitation is mailed: give the player's email.", "invite")


class GameCreateSchema(StrictSchema):
    """``POST /api/v1/games`` body."""

    #: Field errors in these fields get this code instead of ``invalid_request``.
    field_error_codes = {"position": "invalid_position"}

    engine = fields.String(required=True, metadata={"example": "siam"})
    players = fields.List(
        fields.Nested(PlayerInSchema), required=True, validate=validate.Length(min=1, max=8)
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(0, MAX_SEED)
    )
    position = fields.Dict(
        keys=fields.String(),
        load_default=None,
        allow_none=True,
        metadata={"description": "A starting position in the engine's state shape plus to_move."},
    )
    turn_hours = fields.Float(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=24 * 60),
        metadata={"description": "Hours each turn may take; reminders and expiry follow."},
    )
    clock = fields.Nested(
        ClockSchema,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "A time control instead of `turn_hours`: `per_move` or `bank`,"
            " with quiet times and automatic vacation days (see the API guide)."
        },
    )
    deadline_policy = fields.String(
        load_default="remind",
        validate=validate.OneOf(["remind", "skip", "forfeit"]),
        metadata={"description": "What happens when a turn's time runs out."},
    )
    hints = fields.Boolean(
        load_default=True,
        truthy={True},
        falsy={False},
        metadata={
            "description": "Whether a seat may ask for a suggested move"
            " (`GET /api/v1/games/{id}/hint`); false refuses them with 403 forbidden."
        },
    )
    takebacks = fields.Boolean(
        load_default=True,
        truthy={True},
        falsy={False},
        metadata={
            "description": "Whether a seat may offer to take back its last move"
            " (`POST /api/v1/games/{id}/takeback`); false refuses offers with 403 forbidden."
        },
    )
    seating = fields.String(
        load_default="drawn",
        validate=validate.OneOf(["drawn", "listed"]),
        metadata={
            "description": "For a table with open seats: `drawn`, Turnpost draws the seat order"
            " from the seed when the last seat is taken; `listed`, the seats stay in the order"
            " of `players`. A game without open seats is always seated as listed."
        },
    )


def expected_seq_field() -> fields.Integer:
    """The optional ``expected_seq`` of a change: refused with ``409 stale_seq`` unless the
    game is at this seq."""
    return fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        metadata={"description": "Refuse with 409 stale_seq unless the game is at this seq."},
    )


class MoveSubmitSchema(StrictSchema):
    """``POST /api/v1/games/{id}/moves`` body: a move object or its notation."""

    move = PerEngine(
        "Move",
        metadata={
            "description": "The move as JSON, in the game's move schema (a legal-moves entry may"
            " be posted back unchanged: its notation is ignored).",
            "example": {"action": "rotate", "at": "b2", "facing": "S"},
        },
    )
    notation = fields.String(validate=validate.Length(min=1, max=500))
    expected_seq = expected_seq_field()

    @validates_schema
    def one_of_move_or_notation(self, data: dict[str, Any], **_: Any) -> None:
        """Exactly one of ``move`` and ``notation``."""
        if ("move" in data) == ("notation" in data):
            raise ValidationError("Give exactly one of 'move' and 'notation'.", "_schema")


class ResignSchema(StrictSchema):
    """``POST /api/v1/games/{id}/resign`` body, may be empty: the seq it was made at."""

    #: An empty body is ``{}`` (see :class:`server.http.api.ContractParser`).
    optional_body = True

    expected_seq = expected_seq_field()


class VacationSchema(StrictSchema):
    """``POST /api/v1/games/{id}/vacation``: pause this seat's clocks until ``until``."""

    until = fields.AwareDateTime(required=True, metadata={"example": "2026-12-24T00:00:00Z"})

    @validates("until")
    def within_a_year(self, value: datetime, **_: Any) -> None:
        """A vacation ends in the future, at most a year from now."""
        now = datetime.now(UTC)
        if not now < value <= now + timedelta(days=366):
            raise ValidationError("Must be in the future and at most a year from now.")


class VacationSetSchema(StrictSchema):
    """The vacation as recorded, with this year's allowance."""

    seat = fields.Integer(required=True)
    until = timestamp(required=True)
    days_used = fields.Float(required=True)
    days_left = fields.Float(required=True)


class GameQuerySchema(StrictSchema):
    """``?at=N``: the game as it was after move N."""

    at = fields.Integer(validate=validate.Range(min=0, max=MAX_SEED))


#: The most log entries one ``GET /games/{id}/moves`` answers (also its default).
MOVES_PAGE_SIZE = 500


class MovesQuerySchema(StrictSchema):
    """``GET /games/{id}/moves``: a page of the log (the next one is in the ``Link`` header)."""

    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "Only the entries after this move number."},
    )
    limit = fields.Integer(
        load_default=MOVES_PAGE_SIZE,
        validate=validate.Range(min=1, max=MOVES_PAGE_SIZE),
        metadata={"description": "Entries per page."},
    )


class EventsQuerySchema(StrictSchema):
    """``?last_event_id=N``: resume after move N (same as the ``Last-Event-ID`` header);
    ``?talk=true``: stay open after the end, for the table talk."""

    last_event_id = fields.Integer(validate=validate.Range(min=0, max=MAX_SEED))
    talk = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Keep the stream open after the game's `end` event, for the"
            " `message` events of the talk after the game (a game that is over whose events"
            " the client has all seen then answers a stream of messages, not 204)."
        },
    )


class EngineSchema(StrictSchema):
    """One engine of ``GET /api/v1/engines``."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "Option names and defaults."})


class EngineDetailSchema(EngineSchema):
    """``GET /api/v1/engines/{id}``: the engine and the static board or map of a game."""

    board = PerEngine(
        "Board",
        required=True,
        metadata={"description": "The board or map for the options asked (the defaults if none)."},
    )


class PlayerSchema(StrictSchema):
    """A seat as everyone sees it: its name, and who could hold a token of it."""

    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    private = fields.Boolean(
        required=True,
        metadata={
            "description": "The seat's player opened a seat link, which replaced the token"
            " handed out at creation (or by the last reissue): only the player's browsers hold"
            " a token of the seat now. False while a handed token still works: whoever was"
            " handed it (the game's creator, or its admin) can play the seat and see its"
            " private parts."
        },
    )
    reissued_at = timestamp(
        allow_none=True,
        required=True,
        metadata={"description": "When the admin last gave the seat a new token; null: never."},
    )
    bot = fields.Nested(
        BotSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The bot that plays the seat; null: a person."},
    )


class PlayerWithTokenSchema(PlayerSchema):
    """A seat as its creator sees it once, with the secret seat token (none for a bot's seat:
    the server plays it)."""

    token = fields.String()


def game_result(description: str = "null while the game runs.") -> fields.Dict:
    """The ``result`` field of a game (null while it runs) or of a log entry."""
    return fields.Dict(
        allow_none=True,
        required=True,
        metadata={
            "description": f"{description} The engine may add fields of its own;"
            " a resignation adds `resigned` and a lost clock `forfeit` (the losing seats).",
            "properties": {
                "winners": {"type": "array", "items": {"type": "integer"}},
                "scores": {"type": "object", "additionalProperties": {"type": "number"}},
                "reason": {"type": "string"},
            },
            "required": ["winners", "scores", "reason"],
        },
    )


class GameSummarySchema(StrictSchema):
    """A game in a list (``GET /api/v1/games``): the game object without options and state."""

    id = fields.String(required=True)
    engine = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "`forming` until every seat of a table is taken (no moves yet: 409"
            " not_started), then `active`, and at the end `finished` or `aborted`."
        },
    )
    seq = fields.Integer(required=True)
    to_move = fields.List(fields.Integer(), required=True)
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        metadata={
            "description": "The named seats. While the table forms, `seat` is the place at the"
            " table: the seat order may be drawn when the last seat is taken."
        },
    )
    open_seats = fields.Integer(
        required=True,
        metadata={"description": "Seats still open at a forming table; 0 once it started."},
    )
    forming_until = timestamp(
        allow_none=True,
        required=True,
        metadata={"description": "When a forming table is cancelled unless full; else null."},
    )
    you = fields.Integer(allow_none=True, required=True)
    result = game_result()
    deadline = timestamp(
        allow_none=True,
        required=True,
        metadata={"description": "When the seats to move run out of time; null: no clock."},
    )
    seeded = fields.Boolean(
        required=True,
        metadata={
            "description": "The creator chose the seed (so they can know any hidden card, tile"
            " or draw order); false when the server drew it."
        },
    )
    from_position = fields.Boolean(
        required=True,
        metadata={"description": "The game started from a position given by its creator."},
    )
    created_at = timestamp(required=True)
    updated_at = timestamp(required=True)


class GameSchema(GameSummarySchema):
    """The game object."""

    options = fields.Dict(required=True, metadata={"description": "The engine's options."})
    takebacks = fields.Boolean(
        required=True,
        metadata={"description": "Whether a seat may offer to take back its last move."},
    )
    clock = fields.Nested(
        ClockViewSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The game's clock and each seat's time; null: no clock."},
    )
    state = PerEngine(
        "State",
        required=True,
        allow_none=True,
        metadata={
            "description": "The engine's view for the caller: the public view, plus the"
            " caller's own private parts (such as its hand) with a seat token. Null while the"
            " table forms (nothing is dealt before the last seat is taken)."
        },
    )


class GameCreatedSchema(GameSchema):
    """The game object right after creation, with every seat's token and the admin token."""

    players = fields.List(fields.Nested(PlayerWithTokenSchema), required=True)
    admin_token = fields.String(required=True)


class MoveSubmittedSchema(StrictSchema):
    """The answer to an accepted move."""

    seq = fields.Integer(required=True)
    game = fields.Nested(GameSchema, required=True)


class LoggedMoveSchema(StrictSchema):
    """One entry of the public move log."""

    seq = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    move = fields.Dict(required=True)
    notation = fields.String(required=True)
    description = fields.String(
        required=True, metadata={"description": "The move in a sentence, in the game's words."}
    )
    at = timestamp(required=True)
    to_move = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats to move after it."}
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(["active", "finished"]),
        metadata={"description": "The game's status after it."},
    )
    result = game_result(
        "The game's result on the entry that ended the game (null on every other entry)."
    )
    conditional = fields.Boolean(
        required=True,
        metadata={"description": "Played at once from the seat's conditional moves."},
    )


class AnalysisNoteSchema(StrictSchema):
    """A move where the computer would have played differently."""

    seq = fields.Integer(required=True, metadata={"description": "The move's entry in the log."})
    seat = fields.Integer(required=True, metadata={"description": "The seat that played it."})
    played = fields.String(required=True, metadata={"description": "The move, in notation."})
    played_words = fields.String(required=True, metadata={"description": "The move in words."})
    suggested = fields.String(
        required=True,
        metadata={"description": "The computer's turn from the same position, in notation."},
    )
    suggested_words = fields.String(
        required=True, metadata={"description": "The computer's turn in words."}
    )


class AnalysisSchema(StrictSchema):
    """``GET /api/v1/games/{id}/analysis``: where a level-3 bot would have played
    differently, knowing what each seat knew."""

    status = fields.String(
        required=True,
        validate=validate.OneOf(["not_over", "waiting", "ready", "none"]),
        metadata={
            "description": "`not_over`: the game runs; `waiting`: the worker has not"
            " analysed it yet; `ready`; `none`: it will not be (it ended before Turnpost"
            " analysed games, or only bots played)."
        },
    )
    level = fields.Integer(required=True, metadata={"description": "The bot's level."})
    moves = fields.List(
        fields.Nested(AnalysisNoteSchema),
        required=True,
        metadata={
            "description": "The moves where the bot's turn differs, in order. In a game that"
            " hides something, only the caller's seat's own moves (seat token)."
        },
    )


class HintSchema(StrictSchema):
    """``GET /api/v1/games/{id}/hint``: a suggested turn for the caller's seat."""

    seq = fields.Integer(required=True, metadata={"description": "The move the hint follows."})
    moves = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "The moves of the suggested turn, in order, each with its"
            " `notation` beside its fields: one, or the decisions of a split turn (it may stop"
            " where the seat would learn something hidden). A level-1 search of what the seat"
            " may know: it never reads what the seat cannot see."
        },
    )


class LegalMovesSchema(StrictSchema):
    """Every legal move of the caller's seat now."""

    seq = fields.Integer(required=True)
    moves = fields.List(
        PerEngine("Move"),
        required=True,
        metadata={
            "description": "Each entry is a move object with its one-line notation beside its "
            'fields, e.g. {"action": "enter", "to": "a1", "facing": "N", "notation": '
            '"enter a1 N"}. Post it back as {"notation": entry.notation} or as the move '
            "without the notation key."
        },
    )


class ErrorBodySchema(StrictSchema):
    """The inside of an error answer."""

    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ErrorResponseSchema(StrictSchema):
    """Every error answer: ``{"error": {"code", "message", "details"}}``."""

    error = fields.Nested(ErrorBodySchema, required=True)


#: Games per page of ``GET /api/v1/games``: the default and the most.
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


class GameListQuerySchema(StrictSchema):
    """``GET /api/v1/games`` filters and page."""

    engine = fields.String(metadata={"description": "Only games of this engine id."})
    status = fields.String(
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "Only games with this status (`forming`: tables to join; without a"
            " seat token only `forming`, which is what the list then holds)."
        },
    )
    waiting = fields.Boolean(
        metadata={
            "description": "With a seat token: true lists the token's game only if it waits for"
            " that seat, false only if it does not."
        }
    )
    limit = fields.Integer(
        load_default=PAGE_SIZE,
        validate=validate.Range(min=1, max=MAX_PAGE_SIZE),
        metadata={"description": "Games per page."},
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=40),
        metadata={"description": "The `next_cursor` of the previous page."},
    )


class GameListSchema(StrictSchema):
    """A page of games, newest first."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last page."},
    )


class SeatTokenSchema(StrictSchema):
    """A seat's new token (shown once; the old one no longer works)."""

    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)


class WebhookCreateSchema(StrictSchema):
    """``POST /api/v1/games/{id}/webhooks``: where to post the game's events."""

    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), printable],
        metadata={
            "description": "An http:// or https:// URL the server's operator allows.",
            "example": "https://example.org/turnpost-hook",
        },
    )


class WebhookSchema(StrictSchema):
    """A webhook of a game."""

    id = fields.Integer(required=True)
    url = fields.String(required=True)
    created_at = timestamp(required=True)


class WebhookCreatedSchema(WebhookSchema):
    """A new webhook, with the secret its deliveries are signed with (shown once)."""

    secret = fields.String(
        required=True,
        metadata={"description": "Key of the HMAC-SHA256 in each delivery's Turnpost-Signature."},
    )
