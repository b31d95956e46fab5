"""Games as the API, the pages, the mail and the CLI play them: the service, its clock, time."""
