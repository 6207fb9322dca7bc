"""The metrics of a process in Prometheus' text format (prometheus_client), in a registry of
this container's own (tests with several containers do not collide). HTTP requests are
counted through children bound once per (method, route, status): a request costs a dict
lookup, a counter increment and a histogram observation."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

LATENESS_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class PrometheusMetrics:
    """The `Metrics` port (services/metrics.py) and the HTTP request metrics."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        r = self.registry
        self._requests = Counter(
            "energyhub_http_requests_total",
            "HTTP requests answered, by method, route template and status.",
            ("method", "route", "status"),
            registry=r,
        )
        self._durations = Histogram(
            "energyhub_http_request_duration_seconds",
            "Time from a request's arrival to its answer.",
            ("method", "route", "status"),
            buckets=DURATION_BUCKETS,
            registry=r,
        )
        self._actions = Counter(
            "energyhub_actions_total", "Action state transitions, by new state.", ("state",),
            registry=r,
        )  # fmt: skip
        self._dispatch_lateness = Histogram(
            "energyhub_dispatch_lateness_seconds",
            "From an action's due time to its dispatch.",
            buckets=LATENESS_BUCKETS,
            registry=r,
        )
        self._webhook_attempts = Counter(
            "energyhub_webhook_attempts_total", "Webhook delivery attempts, by outcome.",
            ("outcome",), registry=r,
        )  # fmt: skip
        self._webhook_lateness = Histogram(
            "energyhub_webhook_lateness_seconds",
            "From an event to the first attempt to deliver it.",
            buckets=LATENESS_BUCKETS,
            registry=r,
        )
        self._ocpp = Gauge(
            "energyhub_ocpp_connections", "Live chargers connected to this process.", registry=r
        )
        self._driver_calls = Counter(
            "energyhub_driver_calls_total", "Calls to device drivers, by driver and outcome.",
            ("driver", "outcome"), registry=r,
        )  # fmt: skip
        self._pruned = Counter(
            "energyhub_retention_pruned_total", "Old rows deleted by retention, by kind.",
            ("kind",), registry=r,
        )  # fmt: skip
        self._bound: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        bound = self._bound.get(key)
        if bound is None:
            labels = (method, route, str(status))
            bound = self._bound[key] = (
                self._requests.labels(*labels),
                self._durations.labels(*labels),
            )
        bound[0].inc()
        bound[1].observe(seconds)

    def action_state(self, state: str) -> None:
        self._actions.labels(state).inc()

    def dispatch_lateness(self, seconds: float) -> None:
        self._dispatch_lateness.observe(max(seconds, 0.0))

    def webhook_attempt(self, outcome: str) -> None:
        self._webhook_attempts.labels(outcome).inc()

    def webhook_lateness(self, seconds: float) -> None:
        self._webhook_lateness.observe(max(seconds, 0.0))

    def ocpp_connected(self, delta: int) -> None:
        self._ocpp.inc(delta)

    def driver_call(self, driver: str, outcome: str) -> None:
        self._driver_calls.labels(driver, outcome).inc()

    def pruned(self, kind: str, rows: int) -> None:
        self._pruned.labels(kind).inc(rows)

    def render(self) -> bytes:
        return generate_latest(self.registry)
