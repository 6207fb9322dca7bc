"""energyhub.web."""
