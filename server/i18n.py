"""Turnpost in its readers' languages: the gettext catalogs and who reads which language.

Every word a person reads is looked up in a gettext catalog of
``translations/<language>/LC_MESSAGES/messages.mo`` (English, Dutch, German,
French), compiled from its ``.po`` file when Turnpost is installed
(``scripts/venv.sh``) and loaded once per process (:func:`catalog`).

Who reads which language (:func:`reader_language`, Flask-Babel's locale
selector): a signed-in player's choice (``/me``); else the language an
anonymous reader picked with the switch on every page (a cookie); else the
seat's, when the page is a seat's (set when the game was created or the seat
invited); else the browser's ``Accept-Language``; else the server's default,
``TURNPOST_LANGUAGE``. A mail goes out in its recipient's language
(:func:`recipient_language`): the seat's player's choice, else the seat's,
else the server's default; mails are rendered outside a request, with
:func:`template_words`. The ``turnpost`` command (its help, what it prints,
click's messages: :mod:`server.cli_help`) speaks the language of its environment
(:func:`command_language`). Time zones are named in the reader's language
(:func:`zone_name`, :func:`zone_label`); forms and the API keep their identifiers.

    >>> catalog("nl").gettext("Sign in")
    'Inloggen'
    >>> catalog("en") is catalog("en")
    True
    >>> best_language("de-CH, fr;q=0.8", "en")
    'de'
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.core import Locale, get_global, negotiate_locale
from babel.dates import get_timezone_gmt, get_timezone_location
from babel.lists import format_list
from babel.support import Translations
from flask import Flask, current_app, g, has_app_context, request
from flask_babel import Babel, Domain, get_locale
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from engines.phrases import N_  # noqa: F401 (marks the server's messages too)
from schemas.api import LANGUAGES
from schemas.base import time_zones
from server.resources import translations_dir

if TYPE_CHECKING:
    from server.store.base import Store
    from server.store.records import Seat

#: The cookie holding the language an anonymous reader picked with the switch.
LANGUAGE_COOKIE = "turnpost_language"
#: How long the switch's cookie lasts (seconds).
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600
#: The variables naming a program's language, in the order gettext reads them.
GETTEXT_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: The catalog domain (``messages.po``).
DOMAIN = "messages"


@cache
def catalog(language: str) -> Translations:
    """The compiled catalog of ``language`` (one of :data:`LANGUAGES`), loaded once per process.

    A missing catalog is an installation error, said at once: the ``.po``
    files are compiled by ``scripts/venv.sh`` (``pybabel compile -d translations``).
    """
    if language not in LANGUAGES:
        raise ValueError(f"no catalog for language {language!r}")
    path = translations_dir() / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: compile the catalogs with `pybabel compile -d translations`"
            " (scripts/venv.sh does it)"
        )
    with path.open("rb") as compiled:
        return Translations(compiled, domain=DOMAIN)


def known_language(language: str | None) -> str | None:
    """``language`` if Turnpost speaks it, else ``None``."""
    return language if language in LANGUAGES else None


def best_language(accept_language: str, default: str) -> str:
    """The language of :data:`LANGUAGES` an ``Accept-Language`` header prefers, else
    ``default`` (a regional tag counts for its language: ``de-CH`` is German)."""
    accepted = [value for value, _ in parse_accept_header(accept_language, LanguageAccept)]
    return negotiate_locale(accepted, list(LANGUAGES), sep="-") or default


def command_language() -> str:
    """The language of the ``turnpost`` command: ``TURNPOST_LANGUAGE`` if it names one of
    :data:`LANGUAGES`, else the first of them that the first set one of gettext's variables
    (:data:`GETTEXT_VARIABLES`) names, as gettext reads it (``de_DE.UTF-8`` is German,
    ``LANGUAGE=fr:de`` French, ``C`` ends the list), else English."""
    chosen = known_language(os.environ.get("TURNPOST_LANGUAGE"))
    if chosen:
        return chosen
    setting = next((os.environ[name] for name in GETTEXT_VARIABLES if os.environ.get(name)), "")
    for locale in setting.split(":"):
        language = locale.partition(".")[0].partition("@")[0].partition("_")[0]
        if language in ("C", "POSIX"):
            break
        if known_language(language):
            return language
    return "en"


def server_language() -> str:
    """The server's default language (``TURNPOST_LANGUAGE``), of the running app."""
    return current_app.config["TURNPOST_LANGUAGE"]


def read_as_seat(language: str | None) -> None:
    """Say that this request shows a seat's page, whose seat reads ``language`` (or none)."""
    g.turnpost_seat_language = known_language(language)


def reader_language() -> str:
    """The language of this request's reader (Flask-Babel's locale selector, see above)."""
    from server.http.actor import current_actor  # the actor module needs the app's services

    player = current_actor().player
    chosen = (
        (player.language if player else None)
        or known_language(request.cookies.get(LANGUAGE_COOKIE))
        or g.get("turnpost_seat_language")
    )
    if chosen:
        return chosen
    return best_language(request.headers.get("Accept-Language", ""), server_language())


def reader_zone() -> str | None:
    """The time zone of this request's reader: a signed-in player's, else UTC."""
    from server.http.actor import current_actor

    player = current_actor().player
    return player.time_zone if player else None


def recipient_language(store: Store, seat: Seat, default: str) -> str:
    """The language a mail to ``seat`` is written in: its player's choice, else the seat's,
    else ``default`` (the server's)."""
    player = store.player(seat.player_id) if seat.player_id else None
    return (player.language if player else None) or known_language(seat.language) or default


def recipient_zone(store: Store, seat: Seat) -> str:
    """The time zone a mail to ``seat`` words its moments in: its player's (a seat tied to a
    player), else UTC."""
    player = store.player(seat.player_id) if seat.player_id else None
    return player.time_zone if player and known_zone(player.time_zone) else "UTC"


def known_zone(zone: str) -> bool:
    """Whether ``zone`` is a time zone this system knows (``Europe/Brussels``, ``UTC``)."""
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


@lru_cache(maxsize=1024)
def zone_label(zone: str, language: str = "en") -> str:
    """How a time zone is named after a time: "UTC", or its place's "Brussels time".

    >>> zone_label("UTC"), zone_label("Europe/Brussels"), zone_label("America/New_York")
    ('UTC', 'Brussels time', 'New York time')
    >>> zone_label("Europe/Brussels", "nl"), zone_label("Europe/Brussels", "de")
    ('tijd in Brussel', 'Zeit in Brüssel')
    """
    if "/" not in zone:
        return zone
    place = get_timezone_location(ZoneInfo(zone), locale=language, return_city=True)
    return catalog(language).gettext("%(place)s time") % {"place": place}


@lru_cache(maxsize=4096)  # every zone in every language
def zone_name(zone: str, language: str = "en") -> str:
    """A time zone as a reader picks it from a list, in ``language``: its place and country,
    or for a zone of no country its offset from UTC (the identifier stays the form's value);
    an unknown ``zone`` as it is.

    >>> zone_name("Europe/Brussels", "nl"), zone_name("Europe/Brussels", "de")
    ('Brussel (België)', 'Brüssel (Belgien)')
    >>> zone_name("Asia/Singapore", "fr"), zone_name("Etc/GMT+5"), zone_name("Etc/UTC", "de")
    ('Singapour', 'GMT-05:00', 'UTC')
    """
    if not known_zone(zone):
        return zone
    place = ZoneInfo(zone)
    territory = get_global("zone_territories").get(canonical_zone(zone), "ZZ")
    if territory == "ZZ":
        offset = datetime(2026, 1, 1, tzinfo=place)
        return "UTC" if not offset.utcoffset() else get_timezone_gmt(offset, locale=language)
    city = get_timezone_location(place, locale=language, return_city=True)
    country = Locale.parse(language).territories.get(territory, "")
    return city if country in ("", city) else f"{city} ({country})"


def canonical_zone(zone: str) -> str:
    """The time zone ``zone`` is another name of, or ``zone`` (CLDR's aliases).

    >>> canonical_zone("US/Eastern"), canonical_zone("Europe/Kiev"), canonical_zone("UTC")
    ('America/New_York', 'Europe/Kyiv', 'Etc/UTC')
    """
    return get_global("zone_aliases").get(zone, zone)


@cache
def _zones_by_name(language: str) -> dict[str, str]:
    """Every name of :func:`zone_name` in ``language`` with the first of the pickable time
    zones that bears it (``UTC`` for UTC's other names, a zone rather than its aliases)."""
    zones: dict[str, str] = {}
    for zone in sorted(
        time_zones(), key=lambda zone: (zone != "UTC", zone != canonical_zone(zone))
    ):
        zones.setdefault(zone_name(zone, language), zone)
    return zones


@cache
def zone_choices(language: str) -> dict[str, str]:
    """The time zones a player picks from, identifier to name in ``language``: one per name,
    UTC first, then by name (as the reader's alphabet sorts them, accents aside); worked out
    once per language and process.

    >>> choices = zone_choices("nl")
    >>> list(choices.items())[0], choices["Europe/Brussels"], "Europe/Kiev" in choices
    (('UTC', 'UTC'), 'Brussel (België)', False)
    """
    zones = _zones_by_name(language)
    names = sorted(zones, key=lambda name: (name != "UTC", _sort_key(name)))
    return {zones[name]: name for name in names}


def zone_choice(zone: str, language: str) -> str:
    """The identifier among :func:`zone_choices` that names the same time zone as ``zone``
    (``Europe/Kyiv`` for ``Europe/Kiev``), or ``zone`` if it is no known one."""
    if not known_zone(zone):
        return zone
    return _zones_by_name(language).get(zone_name(zone, language), zone)


def _sort_key(name: str) -> str:
    """``name`` as a list sorts it: case and accents aside ("Île" with the I's)."""
    letters = unicodedata.normalize("NFKD", name.casefold())
    return "".join(letter for letter in letters if not unicodedata.combining(letter))


def listing(words: Sequence[str], language: str, last: str = "and") -> str:
    """Words joined as a sentence joins them in ``language``, as a list (``last="and"``) or as
    alternatives (``last="or"``).

    >>> listing(["Ann", "Bob", "Cy"], "en"), listing(["Ann", "Bob"], "de", "or")
    ('Ann, Bob and Cy', 'Ann oder Bob')
    """
    style = "or" if last == "or" else "standard"
    return format_list(list(words), style=style, locale="en_GB" if language == "en" else language)


@cache
def template_words(language: str) -> dict[str, Callable[..., str]]:
    """``gettext``, ``_`` and ``ngettext`` of ``language`` for a template rendered outside a
    request (mails): Jinja's new-style gettext, escaping the parameters where the template
    escapes.

    >>> import jinja2
    >>> env = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    >>> env.newstyle_gettext = True
    >>> env.from_string('{{ _("Sign in") }}').render(**template_words("fr"))
    'Se connecter'
    """
    translations = catalog(language)

    @pass_context
    def gettext(context: Context, message: str, **variables: Any) -> str:
        text = translations.gettext(message)
        return (Markup(text) if context.eval_ctx.autoescape else text) % variables

    @pass_context
    def ngettext(context: Context, singular: str, plural: str, num: int, **variables: Any) -> str:
        text = translations.ngettext(singular, plural, num)
        variables.setdefault("num", num)
        return (Markup(text) if context.eval_ctx.autoescape else text) % variables

    return {"gettext": gettext, "_": gettext, "ngettext": ngettext}


def page_language() -> str:
    """The language of the page being rendered (``en`` outside a request); read once per
    request (a list's page asks for it hundreds of times), as Flask-Babel reads its locale."""
    if not has_app_context():
        return "en"
    if "turnpost_page_language" not in g:
        locale = get_locale()
        g.turnpost_page_language = str(locale) if locale else "en"
    return g.turnpost_page_language


class CatalogDomain(Domain):
    """Flask-Babel's domain reading :func:`catalog` (so that pages and mails share one load)."""

    def get_translations(self) -> Translations:
        """The catalog of the request's language."""
        return catalog(page_language())


def init_i18n(app: Flask) -> None:
    """Give ``app`` Flask-Babel with Turnpost's catalogs, selectors and template helpers
    (``TURNPOST_LANGUAGE`` was checked with the mail settings)."""
    babel = Babel(
        app,
        default_locale=app.config["TURNPOST_LANGUAGE"],
        default_translation_directories=str(translations_dir()),
        locale_selector=reader_language,
        timezone_selector=reader_zone,
    )
    babel.domain_instance = CatalogDomain()
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.context_processor(language_helpers)


#: What the pages' scripts (static/turnpost.js, static/push.js) write into a page, by key:
#: each page hands them in its language (``<body data-words>``).
SCRIPT_WORDS = {
    "just_now": N_("just now"),
    "copied": N_("Copied"),
    "push_asking": N_("Asking your browser..."),
    "push_done": N_("Done: this browser will tell you when it is your turn."),
    "push_refused": N_("Turnpost refused it: %(reason)s"),
    "push_cannot": N_("This browser cannot be notified: %(reason)s"),
    "push_denied": N_("you did not allow notifications for this site in this browser."),
    "push_no_https": N_("it offers no push messages here (they need https)."),
}


@cache
def script_words(language: str) -> dict[str, str]:
    r""":data:`SCRIPT_WORDS` in ``language`` (a placeholder stays for the script to fill).

    >>> script_words("de")["copied"], script_words("fr")["push_refused"]
    ('Kopiert', "Turnpost l'a refusé\xa0: %(reason)s")
    """
    translations = catalog(language)
    return {key: translations.gettext(words) for key, words in SCRIPT_WORDS.items()}


#: The parts of a path that are secrets (a seat's link, a sign-in link, a mail's stop link).
SECRET_ARGS = frozenset({"token", "link"})


def language_helpers() -> dict[str, Any]:
    """What every page may use: the page's language, the languages of the switch, and whether
    the page shows the switch: not on a page whose address holds a secret (a seat's or a
    sign-in link), whose path the switch would copy into its form and whose form's CSRF
    session would be a cookie handed out with a dead link; and the words of the page's
    language (:func:`template_words`, as mails have them)."""
    secret = bool(SECRET_ARGS & set(request.view_args or {}))
    language = page_language()
    return {
        "page_language": language,
        "languages": LANGUAGES,
        "language_switch": not secret,
        "script_words": script_words(language),
        "zone_name": zone_name,
        **template_words(language),  # the page's catalog at hand (a list says hundreds of words)
    }
