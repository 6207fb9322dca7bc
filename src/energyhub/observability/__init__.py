"""What an operator sees of a running process: Prometheus metrics and log lines."""
