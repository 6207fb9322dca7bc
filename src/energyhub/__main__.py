"""`python -m energyhub` runs the command line."""

from energyhub.cli import app

app()
