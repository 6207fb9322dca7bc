"""Every Protocol the use cases need from the outside world (storage, drivers, vendors,
webhook attempts, metrics, secrets), with the plain values they carry. `persistence/`,
`drivers/` and `adapters/` implement them; unit tests pass fakes. Nothing here does I/O."""
