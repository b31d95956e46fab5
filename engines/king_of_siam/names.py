"""King of Siam's names as phrases (:mod:`engines.phrases`): the cards as printed and the
factions' followers, read in each reader's language (the Dutch rulebook's "aanhangers",
"Maleisiërs"); shared by the game's words and its refusals."""

from __future__ import annotations

from engines.phrases import Phrase, counted, phrase, recount

#: Each card's printed name, in the reader's language (the faction cards name their faction).
CARDS = {
    "maharacha": phrase("Maharacha"),
    "khon_thai": phrase("Khon Thai"),
    "one_vs_one": phrase("1 vs 1"),
    "two_vs_one": phrase("2 vs 1"),
    "rama": phrase("Rama"),
    "lao": phrase("Lao"),
    "malay": phrase("Malay"),
}
#: A faction's followers, one or ``%(count)s`` (each language gives the faction its form).
FOLLOWERS = {
    "rama": counted("a Rama follower", "%(count)s Rama followers", 1),
    "lao": counted("a Lao follower", "%(count)s Lao followers", 1),
    "malay": counted("a Malay follower", "%(count)s Malay followers", 1),
}


def card_name(card: str) -> Phrase:
    """The card as printed: ``one_vs_one`` -> "1 vs 1"."""
    return CARDS[card]


def followers(faction: str, count: int = 1) -> Phrase:
    """``count`` followers of ``faction``: "a Lao follower", "2 Lao followers".

    >>> from engines.phrases import english
    >>> english(followers("lao")), english(followers("rama", 2))
    ('a Lao follower', '2 Rama followers')
    """
    return recount(FOLLOWERS[faction], count)
