"""Adapters that call out of the service over the network (webhook deliveries)."""
