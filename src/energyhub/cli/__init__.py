"""The `energyhub` command line: `main` holds the app and its core commands, `keys` and
`devices` their command groups, `common` what they share."""

from energyhub.cli.main import app

__all__ = ["app"]
