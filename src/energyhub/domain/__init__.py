"""Pure rules of the service: no I/O, no SQL, no HTTP."""
