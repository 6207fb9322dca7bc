"""energyhub.workers."""
