"""Engines: each answers the same privacy question its own way and returns a Result."""
