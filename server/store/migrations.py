"""The database schema as an ordered list of migrations (sqlite-utils' ``Migrations``).

Each migration is applied once and recorded in the ``_sqlite_migrations``
table; a database's *schema version* is how many have been applied. A new
database gets them all; an older one the ones it lacks, when the app starts
or with ``turnpost init-db`` (:meth:`server.store.sqlite.SqliteStore.init`). They
run in the store's write transaction, so two processes starting at once
apply them once, and a failing one leaves the database as it was.

Databases made before migrations were versioned (before schema version 1
was recorded) may already hold any part of the schema, so every step only
adds what is missing. A new step goes at the end; a step once released is
never changed.

    >>> import sqlite_utils
    >>> db = sqlite_utils.Database(memory=True)
    >>> migrate(db)
    SchemaChange(before=0, after=29, created=True)
    >>> migrate(db)
    SchemaChange(before=29, after=29, created=False)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlite_utils import Database, Migrations

from server.store.records import SchemaChange

migrations = Migrations("turnpost")

_REFUSE = "BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END"


def version(db: Database) -> int:
    """The schema version of ``db``: how many migrations it has had."""
    return len(migrations.applied(db))


def migrate(db: Database) -> SchemaChange:
    """Apply the migrations ``db`` lacks (call inside a write transaction)."""
    created = not db.table_names()
    before = version(db)
    migrations.apply(db)
    return SchemaChange(before, version(db), created)


def _add_missing(db: Database, table: str, columns: dict[str, tuple[type, Any]]) -> None:
    """Add each ``name: (type, default)`` column that ``table`` lacks."""
    present = db[table].columns_dict
    for name, (kind, default) in columns.items():
        if name not in present:
            db[table].add_column(name, kind, not_null_default=default)


@migrations()
def m001_first_release(db: Database) -> None:
    """The schema of the first release: games, seats, the append-only move log, outbox, keys."""
    db["games"].create(
        {
            "id": str,
            "engine": str,
            "options": str,
            "seed": int,
            "position": str,
            "status": str,
            "seq": int,
            "state": str,
            "to_move": str,
            "result": str,
            "deadline": str,
            "turn_hours": float,
            "deadline_policy": str,
            "reminders_sent": int,
            "admin_token_hash": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"engine", "options", "seed", "status", "seq", "state", "to_move"},
        defaults={"reminders_sent": 0},
        if_not_exists=True,
    )
    db["seats"].create(
        {
            "game_id": str,
            "seat": int,
            "name": str,
            "email": str,
            "token_hash": str,
            "mail_generation": int,
            "vacation_until": str,
            "vacation_year": int,
            "vacation_days_used": float,
        },
        pk=("game_id", "seat"),
        foreign_keys=[("game_id", "games", "id")],
        not_null={"name", "token_hash", "mail_generation", "vacation_days_used"},
        defaults={"mail_generation": 0, "vacation_days_used": 0},
        if_not_exists=True,
    )
    db["seats"].create_index(["token_hash"], unique=True, if_not_exists=True)
    db["moves"].create(
        {
            "game_id": str,
            "seq": int,
            "seat": int,
            "move": str,
            "public_move": str,
            "notation": str,
            "to_move": str,
            "status": str,
            "at": str,
        },
        pk=("game_id", "seq"),
        foreign_keys=[("game_id", "games", "id")],
        not_null={"seat", "move", "public_move", "notation", "at"},
        if_not_exists=True,
    )
    db["outbox"].create(
        {
            "id": int,
            "game_id": str,
            "seat": int,
            "kind": str,
            "to_addr": str,
            "subject": str,
            "text": str,
            "html": str,
            "message_id": str,
            "in_reply_to": str,
            "seq": int,
            "created_at": str,
            "attempts": int,
            "next_attempt_at": str,
            "sent_at": str,
            "last_error": str,
        },
        pk="id",
        not_null={"kind", "to_addr", "subject", "text", "html", "message_id", "created_at"},
        defaults={"attempts": 0},
        if_not_exists=True,
    )
    db["outbox"].create_index(["message_id"], unique=True, if_not_exists=True)
    db["outbox"].create_index(["sent_at", "next_attempt_at"], if_not_exists=True)
    db["outbox"].create_index(["in_reply_to"], if_not_exists=True)
    db["idempotency"].create(
        {"game_id": str, "seat": int, "key": str, "request": str, "response": str},
        pk=("game_id", "seat", "key"),
        not_null={"request", "response"},
        if_not_exists=True,
    )
    for event in ("UPDATE", "DELETE"):
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS moves_no_{event.lower()} BEFORE {event} ON moves "
            + _REFUSE
        )


@migrations()
def m002_refuse_replace(db: Database) -> None:
    """The move log refuses ``REPLACE`` too: its implicit delete fires no DELETE trigger."""
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS moves_no_replace BEFORE INSERT ON moves WHEN EXISTS"
        " (SELECT 1 FROM moves WHERE game_id = NEW.game_id AND seq = NEW.seq) " + _REFUSE
    )


@migrations()
def m003_mail_gate(db: Database) -> None:
    """The mail gate: who created a game, who acted, what each mail counts against."""
    _add_missing(db, "games", {"creator_client": (str, None)})
    _add_missing(db, "seats", {"acted_at": (str, None)})
    _add_missing(
        db, "outbox", {"rcpt_key": (str, None), "client": (str, None), "invitation": (int, 0)}
    )
    db["mail_suppressions"].create(
        {"rcpt_hash": str, "created_at": str},
        pk="rcpt_hash",
        not_null={"created_at"},
        if_not_exists=True,
    )
    for columns in (["rcpt_key", "created_at"], ["client", "created_at"], ["game_id", "seat"]):
        db["outbox"].create_index(columns, if_not_exists=True)
    db.execute("CREATE INDEX IF NOT EXISTS outbox_bodies ON outbox (created_at) WHERE text != ''")


@migrations()
def m004_fair_games(db: Database) -> None:
    """Fair games: whether the creator chose the seed (``seeded``)."""
    _add_missing(db, "games", {"seeded": (int, 0)})


@migrations()
def m005_move_descriptions(db: Database) -> None:
    """Each logged move in a sentence of the game's words (``description``)."""
    _add_missing(db, "moves", {"description": (str, None)})


@migrations()
def m006_mail_rendered_when_sent(db: Database) -> None:
    """Mail rendered when sent: the outbox keeps each mail's facts, not its text; seats stop mail.

    A row holds what kind of mail, for whom, about which game and seq, and the
    few ``facts`` its words need (a mailed notation, a refusal's reason); its
    Message-ID is given when it is first sent. A row dropped before sending
    says why (``superseded``); a row sent inside another row's digest names it
    (``digest_id``). A seat may stop its mail (``mail_stopped_at``).
    """
    _add_missing(
        db, "outbox", {"facts": (str, None), "superseded": (str, None), "digest_id": (int, None)}
    )
    _add_missing(db, "seats", {"mail_stopped_at": (str, None)})
    db.execute("DROP INDEX IF EXISTS outbox_bodies")
    db["outbox"].transform(drop={"text", "html"}, not_null={"message_id": False, "subject": False})
    db.execute(
        "CREATE INDEX IF NOT EXISTS outbox_facts ON outbox (created_at) WHERE facts IS NOT NULL"
    )


@migrations()
def m007_api_log_kinds(db: Database) -> None:
    """What each log entry is (``kind``): an engine ``move``, or a ``resign`` or ``forfeit``.

    A resignation or a forfeit ends the game without the engine: replaying skips it.
    """
    _add_missing(db, "moves", {"kind": (str, "move")})


@migrations()
def m008_api_webhooks(db: Database) -> None:
    """Webhooks: the URLs a game's events are posted to, and their outbox of deliveries."""
    db["webhooks"].create(
        {"id": int, "game_id": str, "url": str, "created_at": str, "removed_at": str},
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "url", "created_at"},
        if_not_exists=True,
    )
    db["webhooks"].create_index(["game_id"], if_not_exists=True)
    db["webhook_deliveries"].create(
        {
            "id": int,
            "webhook_id": int,
            "event": str,
            "seq": int,
            "body": str,
            "created_at": str,
            "next_attempt_at": str,
            "attempts": int,
            "delivered_at": str,
            "last_status": int,
            "last_error": str,
        },
        pk="id",
        foreign_keys=[("webhook_id", "webhooks", "id")],
        not_null={"webhook_id", "event", "seq", "body", "created_at", "attempts"},
        defaults={"attempts": 0},
        if_not_exists=True,
    )
    db["webhook_deliveries"].create_index(["delivered_at", "next_attempt_at"], if_not_exists=True)


@migrations()
def m009_inbound_mail(db: Database) -> None:
    """The mails by reply already handled, so that one delivered twice runs once.

    Mail commands and refused mails were told apart by the answer they got in
    the outbox; an answer the mail gate withheld left no trace. Those answers
    are carried over.
    """
    db["inbound"].create(
        {"message_id": str, "game_id": str, "seat": int, "handled_at": str},
        pk=("message_id", "game_id", "seat"),
        not_null={"handled_at"},
        if_not_exists=True,
    )
    db.execute(
        "INSERT OR IGNORE INTO inbound SELECT in_reply_to, game_id, seat, created_at FROM outbox"
        " WHERE in_reply_to IS NOT NULL AND kind IN ('answer', 'rejected')"
    )


@migrations()
def m010_webhook_backlog(db: Database) -> None:
    """A webhook's backlog is capped and a failing receiver rests.

    At the cap, a webhook's pending ``move`` deliveries are deleted and the
    next one queued records the seqs they spanned (``missed_from_seq``,
    ``missed_to_seq``); a partial index finds a webhook's pending deliveries.
    A webhook whose delivery failed gets none other until that one's next
    attempt (``resting_until``).
    """
    _add_missing(
        db, "webhook_deliveries", {"missed_from_seq": (int, None), "missed_to_seq": (int, None)}
    )
    _add_missing(db, "webhooks", {"resting_until": (str, None)})
    db.execute(
        "CREATE INDEX IF NOT EXISTS webhook_pending ON webhook_deliveries (webhook_id, id)"
        " WHERE delivered_at IS NULL AND next_attempt_at IS NOT NULL"
    )


@migrations()
def m011_private_seats(db: Database) -> None:
    """Seat tokens of their own: a seat may hold several, and its player may replace the handed one.

    ``seat_tokens`` keeps the hash of every token that lets a seat in:
    ``handed`` (shown to the game's creator at creation, or to its admin by a
    reissue) and ``browser`` (minted when a seat's link is opened, seen only by
    that browser). A replaced or reissued token is kept, revoked, so that its
    link can say why it no longer works. Seats record when their player made
    them private (``private_at``), their last reissue (``reissued_at``), and
    since when their mails' links are void (``passes_revoked_at``). The
    ``created_pages`` table is the server's side of a creator's "new game"
    page: a reference to the key in that browser's cookie, from which the
    handed tokens are derived, so the cookie holds no token.
    """
    db["seat_tokens"].create(
        {
            "token_hash": str,
            "game_id": str,
            "seat": int,
            "kind": str,
            "created_at": str,
            "revoked_at": str,
            "revoked_why": str,
        },
        pk="token_hash",
        foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "seat", "kind", "created_at"},
        if_not_exists=True,
    )
    db["seat_tokens"].create_index(["game_id", "seat"], if_not_exists=True)
    if "token_hash" in db["seats"].columns_dict:
        db.execute(
            "INSERT OR IGNORE INTO seat_tokens (token_hash, game_id, seat, kind, created_at)"
            " SELECT s.token_hash, s.game_id, s.seat, 'handed', g.created_at"
            " FROM seats s JOIN games g ON g.id = s.game_id"
        )
        db.execute("DROP INDEX IF EXISTS idx_seats_token_hash")
        db["seats"].transform(drop={"token_hash"})
    _add_missing(
        db,
        "seats",
        {"private_at": (str, None), "reissued_at": (str, None), "passes_revoked_at": (str, None)},
    )
    db["created_pages"].create(
        {"key_hash": str, "game_id": str, "until": str},
        pk="key_hash",
        foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "until"},
        if_not_exists=True,
    )


@migrations()
def m013_siam_positions(db: Database) -> None:
    """Siam counts positions for its draw by repetition (``positions`` in the state).

    A running game's snapshot from before gets an empty count: its positions
    are counted from its next move on (a game past the 500-ply limit is drawn
    by its next move).
    """
    db.execute(
        "UPDATE games SET state = json_set(state, '$.positions', json('{}'))"
        " WHERE engine = 'siam' AND json_type(state, '$.positions') IS NULL"
    )


@migrations()
def m014_players(db: Database) -> None:
    """Players: accounts signed in by mailed link, their sessions and API tokens, their seats.

    A player is known by the mailbox of their address (``email_key``, as the
    mail limits count it). ``sign_in_links`` are single use and short lived;
    their secret is derived from the server's key and the link's id when the
    mail is sent, never stored. ``sessions`` and ``api_tokens`` keep hashes
    only. A seat may belong to a player (``seats.player_id``).
    """
    db["players"].create(
        {
            "id": str,
            "email": str,
            "email_key": str,
            "name": str,
            "time_zone": str,
            "language": str,
            "mail_pref": str,
            "created_at": str,
        },
        pk="id",
        not_null={"email", "email_key", "name", "time_zone", "language", "mail_pref", "created_at"},
        if_not_exists=True,
    )
    db["players"].create_index(["email_key"], unique=True, if_not_exists=True)
    db["sign_in_links"].create(
        {
            "id": str,
            "email": str,
            "email_key": str,
            "client": str,
            "created_at": str,
            "expires_at": str,
            "used_at": str,
        },
        pk="id",
        not_null={"email", "email_key", "created_at", "expires_at"},
        if_not_exists=True,
    )
    for columns in (["email_key", "created_at"], ["client", "created_at"]):
        db["sign_in_links"].create_index(columns, if_not_exists=True)
    db["sessions"].create(
        {"token_hash": str, "player_id": str, "created_at": str, "revoked_at": str},
        pk="token_hash",
        foreign_keys=[("player_id", "players", "id")],
        not_null={"player_id", "created_at"},
        if_not_exists=True,
    )
    db["sessions"].create_index(["player_id"], if_not_exists=True)
    db["api_tokens"].create(
        {
            "id": int,
            "token_hash": str,
            "player_id": str,
            "name": str,
            "created_at": str,
            "revoked_at": str,
        },
        pk="id",
        foreign_keys=[("player_id", "players", "id")],
        not_null={"token_hash", "player_id", "name", "created_at"},
        if_not_exists=True,
    )
    db["api_tokens"].create_index(["token_hash"], unique=True, if_not_exists=True)
    _add_missing(db, "seats", {"player_id": (str, None)})
    db["seats"].create_index(["player_id"], if_not_exists=True)


@migrations()
def m015_lists_by_index(db: Database) -> None:
    """Lists that stay as fast with 100,000 games as with ten: the lobby's newest games.

    ``games(updated_at)`` lets the lobby read its newest games from an index,
    in order, instead of sorting every game. A player's games are found
    through ``seats(player_id)`` (m014), each game and its last move by their
    keys.
    """
    db["games"].create_index(["updated_at"], if_not_exists=True)


@migrations()
def m017_table_talk(db: Database) -> None:
    """Table talk: the messages of each game's threads, the seats' mutes, what was mailed.

    A message belongs to a thread of its game: ``table`` (everyone's) or a
    team's private thread (``team:0,2``, the partners of 4-player King of
    Siam); ``number`` counts the messages of its thread. A message the host
    deleted keeps its row with ``text`` gone (``deleted_at``, ``deleted_by``).
    ``talk_mutes`` lists the seats whose messages a seat does not want to
    read; ``seats.talk_mailed`` is the last message id the seat was mailed.
    """
    db["messages"].create(
        {
            "id": int,
            "game_id": str,
            "thread": str,
            "number": int,
            "seat": int,
            "text": str,
            "via": str,
            "at": str,
            "deleted_at": str,
            "deleted_by": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "thread", "number", "seat", "via", "at"},
        if_not_exists=True,
    )
    db["messages"].create_index(["game_id", "thread", "number"], unique=True, if_not_exists=True)
    db["messages"].create_index(["game_id", "seat", "at"], if_not_exists=True)
    db["talk_mutes"].create(
        {"game_id": str, "seat": int, "muted_seat": int, "created_at": str},
        pk=("game_id", "seat", "muted_seat"),
        foreign_keys=[("game_id", "games", "id")],
        not_null={"created_at"},
        if_not_exists=True,
    )
    _add_missing(db, "seats", {"talk_mailed": (int, 0)})


@migrations()
def m018_notifications(db: Database) -> None:
    """Notifications: a player's daily digest, the browsers they let Turnpost notify, pushes.

    ``players.digest_due_at`` is when a player who chose the daily digest gets
    the next one (``NULL``: at the worker's next round). A ``push_subscriptions``
    row is one browser's Web Push subscription (its endpoint and the keys to
    encrypt for it), revocable by its player; ``pushes`` are the messages
    queued for them, deleted once sent or given up.
    """
    _add_missing(db, "players", {"digest_due_at": (str, None)})
    db["players"].create_index(["mail_pref", "digest_due_at"], if_not_exists=True)
    db["push_subscriptions"].create(
        {
            "id": int,
            "player_id": str,
            "endpoint": str,
            "p256dh": str,
            "auth": str,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("player_id", "players", "id")],
        not_null={"player_id", "endpoint", "p256dh", "auth", "created_at"},
        if_not_exists=True,
    )
    db["push_subscriptions"].create_index(["endpoint"], unique=True, if_not_exists=True)
    db["push_subscriptions"].create_index(["player_id"], if_not_exists=True)
    db["pushes"].create(
        {
            "id": int,
            "subscription_id": int,
            "game_id": str,
            "seat": int,
            "seq": int,
            "payload": str,
            "created_at": str,
            "next_attempt_at": str,
            "attempts": int,
        },
        pk="id",
        foreign_keys=[("subscription_id", "push_subscriptions", "id"), ("game_id", "games", "id")],
        not_null={"subscription_id", "game_id", "seat", "seq", "payload", "created_at", "attempts"},
        defaults={"attempts": 0},
        if_not_exists=True,
    )
    db["pushes"].create_index(["next_attempt_at"], if_not_exists=True)
    db["pushes"].create_index(["subscription_id", "game_id", "seat"], if_not_exists=True)


@migrations()
def m016_tables(db: Database) -> None:
    """Tables: games that form before they start, their hosts, rematches, seats taken at a table.

    A game with open seats is ``forming`` until its last seat is taken: its
    ``state`` is JSON ``null`` until then, and an open seat's ``name`` is empty.
    ``games.creator_id`` is the signed-in player who created the game (its
    host on the web); ``seating`` is ``drawn`` when the seat order is drawn
    from the seed as the table fills (else the order given); a forming table
    expires at ``forming_until``; ``hidden_at`` takes a game out of the lobby
    and the public list; ``rematch_of`` names the game a rematch follows (one
    rematch per game). ``seats.joined_at`` is when a seat's player took it.
    """
    _add_missing(
        db,
        "games",
        {
            "creator_id": (str, None),
            "seating": (str, None),
            "forming_until": (str, None),
            "hidden_at": (str, None),
            "rematch_of": (str, None),
        },
    )
    _add_missing(db, "seats", {"joined_at": (str, None)})
    db["games"].create_index(["creator_id"], if_not_exists=True)
    db["games"].create_index(["rematch_of"], unique=True, if_not_exists=True)
    db.execute(
        "CREATE INDEX IF NOT EXISTS games_forming ON games (created_at) WHERE status = 'forming'"
    )


#: The settings that versions before schema version 18 kept in files beside the database.
LEGACY_SETTING_FILES = {"secret_key": ".secret", "demo_game": ".demo"}


@migrations()
def m019_settings(db: Database) -> None:
    """Settings: the server's own named values (its secret key, the demo game), in the database.

    Earlier versions kept them in files named after the database file
    (``<db>.secret``, ``<db>.demo``): a file found is imported here, once, so
    that an upgraded server keeps its mail links, reply keys and demo game.
    The files are left as they were.
    """
    db["settings"].create(
        {"name": str, "value": str}, pk="name", not_null={"value"}, if_not_exists=True
    )
    path = db.execute("PRAGMA database_list").fetchone()[2]
    for name, suffix in LEGACY_SETTING_FILES.items():
        legacy = Path(f"{path}{suffix}")
        value = legacy.read_text().strip() if path and legacy.is_file() else ""
        if value:
            db.execute("INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)", [name, value])


@migrations()
def m020_operator_indexes(db: Database) -> None:
    """Indexes of the operator's page (``/admin``): the unsent mails that failed, the mails
    never sent, and the webhook deliveries that failed, each newest first without a scan."""
    db.execute(
        "CREATE INDEX IF NOT EXISTS outbox_problems ON outbox (id)"
        " WHERE sent_at IS NULL AND superseded IS NULL AND last_error IS NOT NULL"
    )
    db.execute(
        "CREATE INDEX IF NOT EXISTS outbox_withheld ON outbox (id) WHERE superseded IS NOT NULL"
    )
    db.execute(
        "CREATE INDEX IF NOT EXISTS webhook_deliveries_failing ON webhook_deliveries (id)"
        " WHERE delivered_at IS NULL AND last_error IS NOT NULL"
    )


@migrations()
def m021_bot_seats(db: Database) -> None:
    """Bot seats: ``seats.bot`` is the spec of a seat the computer plays (JSON, as
    :func:`engines.search.make_bot` takes it; NULL for a person), and ``games.hints``
    whether its seats may ask for a suggested move (1, the default) or not (0).

    The worker finds the bot seats to move through the partial index ``seats_bots``;
    ``bot_claims`` holds the game whose bot turn a worker is playing (``holder``) until
    the claim ends (``until``), so that two workers never play one turn.
    """
    _add_missing(db, "seats", {"bot": (str, None)})
    _add_missing(db, "games", {"hints": (int, 1)})
    db.execute("CREATE INDEX IF NOT EXISTS seats_bots ON seats (game_id) WHERE bot IS NOT NULL")
    db["bot_claims"].create(
        {"game_id": str, "holder": str, "until": str},
        pk="game_id",
        not_null={"holder", "until"},
        if_not_exists=True,
    )


@migrations()
def m022_seat_language(db: Database) -> None:
    """The language a seat reads (``en``, ``nl``, ``de``, ``fr``), set when it is created or
    invited; ``NULL``: its player's, else the browser's or the server's (:mod:`server.i18n`)."""
    _add_missing(db, "seats", {"language": (str, None)})


#: The phrases m023 gives the concessions of an old log, by kind (:mod:`engines.phrases`).
_CONCEDED = {
    "resign": "%(seat)s resigns.",
    "forfeit": "%(seat)s ran out of time and forfeits.",
}


@migrations()
def m023_move_phrases(db: Database) -> None:
    """The log's sentences become phrases read in each reader's language
    (:mod:`engines.phrases`): ``moves.description`` holds a phrase as JSON. A resignation
    or a forfeit becomes its phrase naming the seat; any other sentence of an old log is
    kept as written (``{"text": ...}``), a move logged before sentences its notation.

    The move log refuses every update: its trigger is dropped for this one step and made
    again as :func:`m001_first_release` made it.
    """
    conceded = " ".join(
        f"WHEN '{kind}' THEN json_object('args', json_object('seat', json_object('seat', seat)),"
        f" 'key', '{key}')"
        for kind, key in _CONCEDED.items()
    )
    db.execute("DROP TRIGGER moves_no_update")
    db.execute(
        f"UPDATE moves SET description = CASE kind {conceded}"
        " ELSE json_object('text', coalesce(description, notation)) END"
    )
    db.execute("CREATE TRIGGER IF NOT EXISTS moves_no_update BEFORE UPDATE ON moves " + _REFUSE)


@migrations()
def m024_takebacks(db: Database) -> None:
    """Takebacks by agreement: ``games.takebacks`` whether a seat may offer one (1, the
    default) or not (0), and ``takeback_offers`` each game's open offer: the move offered
    back (``seq``, the game's last entry), the seat that offers it, the seats that accepted
    (a JSON array) and when it was made."""
    _add_missing(db, "games", {"takebacks": (int, 1)})
    db["takeback_offers"].create(
        {"game_id": str, "seq": int, "seat": int, "accepted_seats": str, "offered_at": str},
        pk="game_id",
        not_null={"seq", "seat", "accepted_seats", "offered_at"},
        foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True,
    )


@migrations()
def m025_conditional_moves(db: Database) -> None:
    """Conditional moves: ``conditional_lines`` the lines each seat stored ahead (a JSON array
    of arrays of notations, private to the seat), and ``moves.conditional`` whether a logged
    move was played from them (1) or not (0)."""
    db["conditional_lines"].create(
        {"game_id": str, "seat": int, "lines": str, "updated_at": str},
        pk=("game_id", "seat"),
        not_null={"lines", "updated_at"},
        foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True,
    )
    _add_missing(db, "moves", {"conditional": (int, 0)})


@migrations()
def m026_clocks(db: Database) -> None:
    """Clocks: ``games.clock`` is a game's time control (JSON, as
    :func:`server.games.time_control.clock_json` writes it; NULL: the per-move clock of
    ``turn_hours``, or none), ``seats.clock`` a seat's clock (its bank, since when it runs,
    its automatic vacation days; JSON, NULL until its first turn)."""
    _add_missing(db, "games", {"clock": (str, None)})
    _add_missing(db, "seats", {"clock": (str, None)})


@migrations()
def m027_chat_pings(db: Database) -> None:
    """Chat pings: a webhook of one seat (``webhooks.seat``; NULL: a game's webhook) that
    announces the seat's turns in a chat's message format (``kind``: ``discord``, ``slack``,
    ``matrix`` or ``generic``), mentioning its player (``mention``, optional). Its deliveries
    go out as the game webhooks' do.

    ``player_pings`` are a player's own, for every game of theirs: when a turn of one of
    their seats starts, a seat's ping is made from each (``webhooks.player_ping_id``), once
    per game and seat (a seat that removed it keeps it removed)."""
    db["player_pings"].create(
        {
            "id": int,
            "player_id": str,
            "kind": str,
            "url": str,
            "mention": str,
            "created_at": str,
            "removed_at": str,
        },
        pk="id",
        foreign_keys=[("player_id", "players", "id")],
        not_null={"player_id", "kind", "url", "created_at"},
        if_not_exists=True,
    )
    db["player_pings"].create_index(["player_id"], if_not_exists=True)
    _add_missing(
        db,
        "webhooks",
        {
            "seat": (int, None),
            "kind": (str, None),
            "mention": (str, None),
            "player_ping_id": (int, None),
        },
    )


@migrations()
def m029_analyses(db: Database) -> None:
    """After-game analysis: ``analyses`` holds, per finished game, where a level-3 bot
    would have played differently (``differences``, JSON; see
    :class:`~server.store.records.Analysis`). Games that ended before get a row with
    ``differences`` NULL: the worker never analyses them (a backlog of old games would
    keep it busy for days)."""
    db["analyses"].create(
        {"game_id": str, "made_at": str, "differences": str},
        pk="game_id",
        not_null={"made_at"},
        if_not_exists=True,
    )
    db.execute(
        "INSERT OR IGNORE INTO analyses (game_id, made_at) SELECT id, updated_at FROM games"
        " WHERE status = 'finished'"
    )


@migrations()
def m030_finished_games_index(db: Database) -> None:
    """Finished games by the time they ended, for the worker's search for games to analyse
    (a partial index: running games, the most written, pay nothing for it)."""
    db.execute(
        "CREATE INDEX IF NOT EXISTS games_finished ON games (updated_at) WHERE status = 'finished'"
    )


@migrations()
def m031_player_vacation_days(db: Database) -> None:
    """Automatic vacation days per player: ``player_vacation_days`` counts the days a
    player's clocks spent before a timeout (``used``) in each calendar ``year`` of the
    player's time zone, across all their games (a seat without a player keeps its count in
    its clock)."""
    db["player_vacation_days"].create(
        {"player_id": str, "year": int, "used": int},
        pk=("player_id", "year"),
        not_null={"used"},
        defaults={"used": 0},
        foreign_keys=[("player_id", "players", "id")],
        if_not_exists=True,
    )
