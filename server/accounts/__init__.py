"""Players: accounts signed in by a mailed link, their sessions, API tokens and seats.

Turnpost keeps token-only play for API clients and adds players on top:
:mod:`server.accounts.service` signs players in and out, keeps their
profile (name, time zone, language, mail preference) and their personal API
tokens, and ties seats to them; :mod:`server.accounts.mail` writes the
sign-in mail. The web pages are in :mod:`server.http.account_pages`, the
request's actor (who is asking) in :mod:`server.http.actor`.
"""
