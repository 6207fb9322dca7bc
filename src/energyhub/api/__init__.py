"""HTTP: the FastAPI app, envelopes, authentication, rate limits and thin routes."""
