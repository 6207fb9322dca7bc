"""energyhub.drivers.sandbox."""
