"""Use cases: each one fetches, asks the domain, stores, in one transaction."""
