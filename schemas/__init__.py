"""Marshmallow schemas for every request, move and response of the API."""
