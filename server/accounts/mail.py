"""Mails to a person rather than to a seat: the sign-in link.

They go through the outbox like every mail (a row without a game), are
rendered when sent (:func:`account_message`), in the language of the page the
link was asked from, and pass the same last check: an address that asked never
to be mailed again gets nothing.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import format_datetime

from server.accounts.service import LINK_MINUTES, link_text
from server.games.clock import parse_time
from server.i18n import N_, catalog, known_language, template_words
from server.mail.addresses import new_message_id, unsubscribe_url
from server.mail.render import environment
from server.mail.settings import MailSettings
from server.store.records import OutboxMail

#: The subject of each kind of account mail.
SUBJECTS = {"sign_in": N_("Your link to sign in to Turnpost")}


def account_message(settings: MailSettings, row: OutboxMail) -> EmailMessage:
    """The mail of one account ``outbox`` row (``kind`` ``sign_in``), text and HTML."""
    facts = row.facts or {}
    language = known_language(facts.get("language")) or settings.language
    context = {
        "link": f"{settings.base_url}/sign-in/{link_text(settings.secret, facts['link'])}",
        "minutes": LINK_MINUTES,
        "unsubscribe": unsubscribe_url(settings, row.to_addr),
        "language": language,
        **template_words(language),
    }
    message = EmailMessage()
    message["From"] = settings.from_address
    message["To"] = row.to_addr
    message["Subject"] = catalog(language).gettext(SUBJECTS[row.kind])
    message["Message-ID"] = new_message_id(settings, row.kind, "account")
    message["Date"] = format_datetime(parse_time(row.created_at))
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(environment.get_template(f"email/{row.kind}.txt").render(**context))
    html = environment.get_template(f"email/{row.kind}.html").render(**context)
    message.add_alternative(html, subtype="html")
    return message
