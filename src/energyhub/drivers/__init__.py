"""energyhub.drivers."""
