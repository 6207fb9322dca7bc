"""The outbound edges that are neither storage nor a device protocol: the webhook HTTP
client and its address guard, the credential cipher and its keys, the Prometheus registry,
and the log format. Each implements a port or is wired by `bootstrap`."""
