"""The webhook sender against a real HTTP receiver on 127.0.0.1 that verifies every signature
with standardwebhooks, as a customer's receiver would.

No test sleeps or races the wall clock: the hanging receiver waits on an Event that is only
set at teardown, a refused port is a socket bound but not listening, and DNS answers come
from a fake resolver. Nothing leaves 127.0.0.0/8: a public address a test needs is mapped
onto a local port at the socket (`loopback_nat`), and a refused address is never connected
to (tests/network_guard.py fails a test that tries)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult
from standardwebhooks import Webhook, WebhookVerificationError

from energyhub.adapters.address_guard import AddressNotAllowedError, ReachResolver
from energyhub.adapters.webhook_client import NON_PUBLIC_FAILURE, USER_AGENT, WebhookClient
from energyhub.domain.clock import FakeClock
from energyhub.domain.webhook_reach import PrivateWebhookUrls, Reach
from energyhub.domain.webhooks import new_signing_secret
from energyhub.ports.webhooks import AttemptOutcome, WebhookRequest
from tests.network_guard import loopback_nat

BODY = json.dumps(
    {"actionId": "act_1", "deviceId": "dev_1", "result": {"success": True}},
    separators=(",", ":"),
).encode()


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool


class Receiver:
    """A customer's endpoint: verifies the signature over the raw body, then answers as the
    path says (`/ok`, `/status/<code>`, `/redirect`, `/hang`, `/big`)."""

    def __init__(self) -> None:
        self.secret = new_signing_secret()
        self.received: list[Received] = []
        self.port = 0
        self.hanging = asyncio.Event()
        self.release = asyncio.Event()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            Webhook(self.secret).verify(body, headers, json_parse=False)
            verified = True
        except WebhookVerificationError:
            verified = False
        self.received.append(Received(request.path, headers, body, verified))
        if not verified:
            return web.Response(status=401)
        if request.path == "/redirect":
            return web.Response(status=302, headers={"location": "/ok"})
        if request.path.startswith("/status/"):
            return web.Response(status=int(request.path.rsplit("/", 1)[1]))
        if request.path == "/hang":
            self.hanging.set()
            await self.release.wait()  # set only at teardown
        if request.path == "/big":
            return web.Response(body=b"x" * 300_000)
        return web.Response(status=204)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    app = web.Application()
    app.router.add_post("/{tail:.*}", receiver.handle)
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    receiver.port = runner.addresses[0][1]
    yield receiver
    receiver.release.set()
    await runner.cleanup()


@pytest.fixture
def clock() -> FakeClock:
    # standardwebhooks verifies the timestamp against the real time (+/- 5 min)
    return FakeClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
async def client(clock: FakeClock) -> AsyncIterator[WebhookClient]:
    client = WebhookClient(clock, timeout_s=10, resolver=StaticResolver(LOCALHOST))
    yield client
    await client.aclose()


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port that refuses connections for the whole test: bound, never listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def request(
    url: str, secret: str, *, environment: str = "sandbox", delivery_id: str = "msg_1"
) -> WebhookRequest:
    return WebhookRequest(
        delivery_id=delivery_id,
        event_type="push.completed",
        url=url,
        secret=secret,
        body=BODY,
        environment=environment,
    )


def assert_failed_cleanly(outcome: AttemptOutcome, secret: str) -> str:
    assert not outcome.succeeded
    assert outcome.error
    assert secret not in outcome.error
    assert secret.removeprefix("whsec_") not in outcome.error
    assert "v1," not in outcome.error  # no signature
    return outcome.error


LOCALHOST = {"localhost": ["::1", "127.0.0.1"]}
"""What the system's resolver answers for localhost (the receivers listen on 127.0.0.1)."""


class StaticResolver(AbstractResolver):
    """DNS that answers from a table, as an attacker's name server would."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            ResolveResult(
                hostname=host,
                host=ip,
                port=port,
                family=socket.AF_INET6 if ":" in ip else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
            )
            for ip in self.table[host]
        ]

    async def close(self) -> None:
        pass


# --- success and what is sent -------------------------------------------------------------------


async def test_success_sends_signed_standard_webhook(
    client: WebhookClient, receiver: Receiver, clock: FakeClock
) -> None:
    outcome = await client.send(request(receiver.url("/ok"), receiver.secret, delivery_id="d_42"))

    assert outcome.succeeded
    assert (outcome.http_status, outcome.error, outcome.at) == (204, None, clock.now())
    assert outcome.duration_ms >= 0
    [got] = receiver.received
    assert got.verified
    assert got.body == BODY
    assert got.headers["webhook-id"] == "d_42"
    assert got.headers["webhook-timestamp"] == str(int(clock.now().timestamp()))
    assert got.headers["webhook-signature"].startswith("v1,")
    assert got.headers["x-event-type"] == "push.completed"
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"] == USER_AGENT
    assert "cookie" not in got.headers


async def test_each_secret_signs_its_own_deliveries(
    client: WebhookClient, receiver: Receiver
) -> None:
    """The signer cache is per secret: a rotated secret signs with the new key at once."""
    old = receiver.secret
    assert (await client.send(request(receiver.url("/ok"), old))).succeeded
    receiver.secret = new_signing_secret()
    assert (await client.send(request(receiver.url("/ok"), receiver.secret))).succeeded
    stale = await client.send(request(receiver.url("/ok"), old))
    assert stale.http_status == 401  # the receiver's new key rejects the old signature
    assert [r.verified for r in receiver.received] == [True, True, False]


async def test_large_response_body_is_not_a_problem(
    client: WebhookClient, receiver: Receiver
) -> None:
    for _ in range(2):
        outcome = await client.send(request(receiver.url("/big"), receiver.secret))
        assert (outcome.http_status, outcome.error) == (200, None)


async def test_fifty_concurrent_sends_all_verified(
    client: WebhookClient, receiver: Receiver
) -> None:
    outcomes = await asyncio.gather(
        *(
            client.send(request(receiver.url("/ok"), receiver.secret, delivery_id=f"msg_{i}"))
            for i in range(50)
        )
    )
    assert all(o.succeeded for o in outcomes)
    assert len(receiver.received) == 50
    assert all(r.verified for r in receiver.received)
    assert {r.headers["webhook-id"] for r in receiver.received} == {f"msg_{i}" for i in range(50)}


# --- failures ---------------------------------------------------------------------------------

PUBLIC_IP = "100.128.0.1"
"""A public address (just past CGNAT) that tests map onto a local port: never contacted."""


@pytest.fixture
async def closing_port() -> AsyncIterator[int]:
    """A port whose server accepts and closes at once, answering nothing."""

    async def close(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(close, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every address a socket of this process connects to during the test."""
    seen: list[object] = []
    connect = socket.socket.connect

    def noted(sock: socket.socket, address: object) -> None:
        seen.append(address)
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", noted)
    return seen


async def send_with(
    clock: FakeClock,
    req: WebhookRequest,
    *,
    policy: PrivateWebhookUrls = PrivateWebhookUrls.SANDBOX,
    dns: dict[str, list[str]] | None = None,
    timeout_s: float = 10,
) -> AttemptOutcome:
    client = WebhookClient(
        clock,
        timeout_s=timeout_s,
        private_urls=policy,
        resolver=StaticResolver(dns or {}),
    )
    try:
        return await client.send(req)
    finally:
        await client.aclose()


@pytest.mark.parametrize("status", [400, 404, 410, 500, 503])
async def test_non_2xx_is_recorded_with_its_status(
    client: WebhookClient, receiver: Receiver, status: int
) -> None:
    outcome = await client.send(request(receiver.url(f"/status/{status}"), receiver.secret))
    assert (outcome.http_status, outcome.succeeded, outcome.error) == (status, False, None)
    assert receiver.received[0].verified


async def test_redirect_is_not_followed(client: WebhookClient, receiver: Receiver) -> None:
    outcome = await client.send(request(receiver.url("/redirect"), receiver.secret))
    assert outcome.http_status == 302
    assert assert_failed_cleanly(outcome, receiver.secret) == "redirect not followed"
    assert [r.path for r in receiver.received] == ["/redirect"]


async def test_live_endpoint_at_a_public_address_is_delivered(
    clock: FakeClock, receiver: Receiver
) -> None:
    """The public-only session end to end: DNS answer, both checks, a real signed POST."""
    url = f"http://hooks.customer.example:{receiver.port}/ok"
    with loopback_nat({PUBLIC_IP: receiver.port}) as reached:
        outcome = await send_with(
            clock,
            request(url, receiver.secret, environment="live"),
            policy=PrivateWebhookUrls.NONE,
            dns={"hooks.customer.example": [PUBLIC_IP]},
        )
    assert (outcome.http_status, outcome.error) == (204, None)
    assert reached == [(PUBLIC_IP, receiver.port)]
    assert receiver.received[0].verified


@pytest.mark.parametrize(
    ("environment", "host"),
    [
        ("live", PUBLIC_IP),
        ("live", "hooks.customer.example"),
        ("sandbox", "hooks.customer.example"),
    ],
)
async def test_failures_at_a_public_address_say_what_happened(
    clock: FakeClock,
    receiver: Receiver,
    refusing_port: int,
    closing_port: int,
    environment: str,
    host: str,
) -> None:
    """Refused, closed and timed out read differently when the receiver is public; for a
    sandbox endpoint, which may also reach loopback, the client knows it from the address
    it connected to."""
    errors = []
    for port, path in ((refusing_port, "/"), (closing_port, "/"), (receiver.port, "/hang")):
        with loopback_nat({PUBLIC_IP: port}):
            outcome = await send_with(
                clock,
                request(f"http://{host}:{port}{path}", receiver.secret, environment=environment),
                dns={"hooks.customer.example": [PUBLIC_IP]},
                timeout_s=0.2,
            )
        assert outcome.http_status is None
        errors.append(assert_failed_cleanly(outcome, receiver.secret))
    assert errors == [
        "connection refused",
        "receiver closed the connection without answering",
        "timed out after 0.2 s",
    ]
    assert receiver.hanging.is_set()  # the request arrived; only the answer never came


async def test_unresolvable_host_is_recorded(clock: FakeClock) -> None:
    client = WebhookClient(clock, resolver=StaticResolver({}))
    secret = new_signing_secret()
    try:
        for environment in ("live", "sandbox"):
            outcome = await client.send(
                request("http://nowhere.example/", secret, environment=environment)
            )
            error = assert_failed_cleanly(outcome, secret)
            assert error == "could not resolve host nowhere.example"
    finally:
        await client.aclose()


@pytest.mark.parametrize("url", ["http://[::1/", "http://127.1/", "http://example.com:99999/"])
async def test_malformed_url_is_recorded_not_raised(client: WebhookClient, url: str) -> None:
    secret = new_signing_secret()
    for environment in ("live", "sandbox"):
        outcome = await client.send(request(url, secret, environment=environment))
        assert assert_failed_cleanly(outcome, secret) == "invalid URL"


# --- private addresses (ENERGYHUB_PRIVATE_WEBHOOK_URLS) ------------------------------------
NONE, SANDBOX, ALL = PrivateWebhookUrls.NONE, PrivateWebhookUrls.SANDBOX, PrivateWebhookUrls.ALL
ONLY_PUBLIC = "(only public addresses)"


@pytest.mark.parametrize(
    ("policy", "environment", "reaches_loopback"),
    [
        (NONE, "sandbox", False),
        (NONE, "live", False),
        (SANDBOX, "sandbox", True),
        (SANDBOX, "live", False),
        (ALL, "sandbox", True),
        (ALL, "live", True),
    ],
)
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_the_setting_decides_which_endpoints_reach_loopback(
    clock: FakeClock,
    receiver: Receiver,
    policy: PrivateWebhookUrls,
    environment: str,
    reaches_loopback: bool,
    host: str,
) -> None:
    client = WebhookClient(clock, private_urls=policy, resolver=StaticResolver(LOCALHOST))
    try:
        outcome = await client.send(
            request(receiver.url("/ok", host=host), receiver.secret, environment=environment)
        )
    finally:
        await client.aclose()
    if reaches_loopback:
        assert (outcome.http_status, outcome.error) == (204, None)
        assert receiver.received[0].verified
    else:
        assert outcome.http_status is None
        expected = (
            f"address {host} is not one this endpoint may reach {ONLY_PUBLIC}"
            if host == "127.0.0.1"
            else f"localhost resolves to no address this endpoint may reach {ONLY_PUBLIC}"
        )
        assert assert_failed_cleanly(outcome, receiver.secret) == expected
        assert receiver.received == []


@pytest.mark.parametrize("address", ["10.0.0.1", "192.168.1.20", "172.16.0.1", "169.254.169.254"])
async def test_sandbox_setting_lets_sandbox_endpoints_reach_loopback_only(
    clock: FakeClock, connects: list[object], address: str
) -> None:
    """A private, non-loopback address is refused for a sandbox endpoint, by name (after
    DNS) and as a literal, without a connection being opened."""
    secret = new_signing_secret()
    by_name = await send_with(
        clock,
        request("http://internal.customer.example:8080/", secret),
        dns={"internal.customer.example": [address, "fd00::1"]},
    )
    literal = await send_with(clock, request(f"http://{address}:8080/", secret))
    assert assert_failed_cleanly(by_name, secret) == (
        "internal.customer.example resolves to no address this endpoint may reach "
        "(only public addresses and this server's loopback (127.0.0.0/8, ::1))"
    )
    assert assert_failed_cleanly(literal, secret) == (
        f"address {address} is not one this endpoint may reach "
        "(only public addresses and this server's loopback (127.0.0.0/8, ::1))"
    )
    assert connects == []


@pytest.mark.parametrize("policy", [NONE, SANDBOX])
async def test_refused_addresses_are_never_connected_to(
    clock: FakeClock, connects: list[object], policy: PrivateWebhookUrls
) -> None:
    """The refusal comes before any connection: its text and timing cannot depend on what
    listens at the address."""
    secret = new_signing_secret()
    dns = {"rebound.example": ["10.0.0.1"], "mixed.example": ["::1", "10.0.0.1"]}
    for url in ("http://rebound.example/", "http://10.0.0.1/", "http://[fd00::1]/"):
        outcome = await send_with(
            clock, request(url, secret, environment="live"), policy=policy, dns=dns
        )
        assert ONLY_PUBLIC in assert_failed_cleanly(outcome, secret)
    outcome = await send_with(
        clock, request("http://mixed.example/", secret, environment="live"), dns=dns
    )
    assert ONLY_PUBLIC in assert_failed_cleanly(outcome, secret)
    assert connects == []


@pytest.mark.parametrize("environment", ["sandbox", "live"])
async def test_all_lets_every_endpoint_reach_private_addresses(
    clock: FakeClock, refusing_port: int, environment: str
) -> None:
    """Under `all` a 10.x address is connected to (here mapped onto a closed local port, so
    nothing leaves the machine), and its failure is the generic one."""
    secret = new_signing_secret()
    with loopback_nat({"10.0.0.1": refusing_port}) as reached:
        outcome = await send_with(
            clock,
            request("http://intranet.example:8080/", secret, environment=environment),
            policy=ALL,
            dns={"intranet.example": ["10.0.0.1"]},
        )
    assert reached == [("10.0.0.1", 8080)]
    assert assert_failed_cleanly(outcome, secret) == NON_PUBLIC_FAILURE


@pytest.mark.parametrize("policy", [SANDBOX, ALL])
async def test_failures_at_non_public_addresses_share_one_error(
    clock: FakeClock,
    receiver: Receiver,
    refusing_port: int,
    closing_port: int,
    policy: PrivateWebhookUrls,
) -> None:
    """Refused, closed at once and never answering all read the same at loopback, by
    literal or by name, so the delivery record is no port scanner."""
    secret = receiver.secret
    dns = {"dev.customer.example": ["127.0.0.1"]}
    errors = set()
    for host in ("127.0.0.1", "dev.customer.example"):
        for port, path in ((refusing_port, "/"), (closing_port, "/"), (receiver.port, "/hang")):
            outcome = await send_with(
                clock,
                request(f"http://{host}:{port}{path}", secret, environment="sandbox"),
                policy=policy,
                dns=dns,
                timeout_s=0.2,
            )
            assert outcome.http_status is None
            errors.add(assert_failed_cleanly(outcome, secret))
    assert errors == {NON_PUBLIC_FAILURE}


async def test_name_resolving_to_private_address_is_refused_after_dns(
    clock: FakeClock, receiver: Receiver
) -> None:
    """A public-looking name whose DNS answer is loopback (what DNS rebinding does at
    delivery time) is refused on the live path; the same answer is used on the sandbox path."""
    resolver = StaticResolver({"hooks.customer.example": ["127.0.0.1"]})
    client = WebhookClient(clock, resolver=resolver)
    url = receiver.url("/ok", host="hooks.customer.example")
    try:
        live = await client.send(request(url, receiver.secret, environment="live"))
        sandbox = await client.send(request(url, receiver.secret, environment="sandbox"))
    finally:
        await client.aclose()
    assert assert_failed_cleanly(live, receiver.secret) == (
        f"hooks.customer.example resolves to no address this endpoint may reach {ONLY_PUBLIC}"
    )
    assert (sandbox.http_status, sandbox.error) == (204, None)
    assert len(receiver.received) == 1


ANSWERS = ["10.0.0.1", "8.8.8.8", "::1", "2606:4700:4700::1111", "169.254.1.1", "127.0.0.2"]


@pytest.mark.parametrize(
    ("reach", "kept"),
    [
        (Reach.PUBLIC, ["8.8.8.8", "2606:4700:4700::1111"]),
        (Reach.PUBLIC_OR_LOOPBACK, ["8.8.8.8", "::1", "2606:4700:4700::1111", "127.0.0.2"]),
        (Reach.ANY, ANSWERS),
    ],
)
async def test_reach_resolver_keeps_only_allowed_answers(reach: Reach, kept: list[str]) -> None:
    resolver = ReachResolver(StaticResolver({"m.example": ANSWERS}), reach)
    answered = await resolver.resolve("m.example", 443)
    assert [r["host"] for r in answered] == kept
    assert all(r["port"] == 443 for r in answered)


async def test_reach_resolver_refusal_does_not_show_the_addresses() -> None:
    """What an internal name resolves to is the operator's business, not the customer's."""
    resolver = ReachResolver(StaticResolver({"db.internal": ["10.1.2.3"]}), Reach.PUBLIC)
    with pytest.raises(AddressNotAllowedError) as refused:
        await resolver.resolve("db.internal", 5432)
    assert "10.1.2.3" not in str(refused.value)
