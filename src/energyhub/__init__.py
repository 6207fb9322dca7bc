"""energyhub: read and control batteries and EV chargers through one HTTP API."""

__version__ = "0.1.0"
