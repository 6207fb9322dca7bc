"""Background loops: each sleeps until its next due work and runs it through a service."""
