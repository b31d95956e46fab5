"""Storage: the only place SQL runs (:mod:`server.store.sqlite`), with its migrations."""
