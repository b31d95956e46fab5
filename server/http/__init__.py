"""The HTTP face: the REST API, the pages, and what guards and serves them."""
