"""The webhook sender against a real HTTP receiver on 127.0.0.1 that verifies every signature
with standardwebhooks, as a customer's receiver would.

No test sleeps or races the wall clock: the hanging receiver waits on an Event that is only
set at teardown, a refused port is a socket bound but not listening, and DNS answers come
from a fake resolver."""

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

from energyhub.domain.clock import FakeClock
from energyhub.domain.webhooks import new_signing_secret
from energyhub.outbound.webhook_client import (
    USER_AGENT,
    AttemptOutcome,
    PublicOnlyResolver,
    WebhookClient,
    WebhookRequest,
)

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
    client = WebhookClient(clock, timeout_s=10)
    yield client
    await client.aclose()


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port that refuses connections for the whole test: bound, never listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def request(
    url: str, secret: str, *, allow_private: bool = True, delivery_id: str = "msg_1"
) -> WebhookRequest:
    return WebhookRequest(
        delivery_id=delivery_id,
        event_type="push.completed",
        url=url,
        secret=secret,
        body=BODY,
        allow_private=allow_private,
    )


def assert_failed_cleanly(outcome: AttemptOutcome, secret: str) -> str:
    assert not outcome.succeeded
    assert outcome.error
    assert secret not in outcome.error
    assert secret.removeprefix("whsec_") not in outcome.error
    assert "v1," not in outcome.error  # no signature
    return outcome.error


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


async def test_connection_refused_is_recorded(client: WebhookClient, refusing_port: int) -> None:
    secret = new_signing_secret()
    outcome = await client.send(request(f"http://127.0.0.1:{refusing_port}/", secret))
    assert outcome.http_status is None
    assert assert_failed_cleanly(outcome, secret) == "connection refused"


async def test_receiver_that_never_answers_times_out(clock: FakeClock, receiver: Receiver) -> None:
    client = WebhookClient(clock, timeout_s=0.2)
    try:
        outcome = await client.send(request(receiver.url("/hang"), receiver.secret))
    finally:
        await client.aclose()
    assert receiver.hanging.is_set()  # the request arrived; only the answer never came
    assert outcome.http_status is None
    assert assert_failed_cleanly(outcome, receiver.secret) == "timed out after 0.2 s"
    assert outcome.duration_ms >= 150


async def test_unresolvable_host_is_recorded(clock: FakeClock) -> None:
    client = WebhookClient(clock, resolver=StaticResolver({}))
    secret = new_signing_secret()
    try:
        for allow_private in (False, True):
            outcome = await client.send(
                request("http://nowhere.example/", secret, allow_private=allow_private)
            )
            error = assert_failed_cleanly(outcome, secret)
            assert error == "could not resolve host nowhere.example"
    finally:
        await client.aclose()


@pytest.mark.parametrize("url", ["http://[::1/", "http://127.1/", "http://example.com:99999/"])
async def test_malformed_url_is_recorded_not_raised(client: WebhookClient, url: str) -> None:
    secret = new_signing_secret()
    for allow_private in (False, True):
        outcome = await client.send(request(url, secret, allow_private=allow_private))
        assert assert_failed_cleanly(outcome, secret) == "invalid URL"


# --- private addresses ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", "address 127.0.0.1 is private"),
        ("localhost", "localhost resolves only to private addresses"),
        ("[::1]", "address ::1 is private"),
        ("[::ffff:127.0.0.1]", "is private"),
    ],
)
async def test_private_addresses_refused_for_live(
    client: WebhookClient, receiver: Receiver, host: str, expected: str
) -> None:
    outcome = await client.send(
        request(receiver.url("/ok", host=host), receiver.secret, allow_private=False)
    )
    assert outcome.http_status is None
    assert expected in assert_failed_cleanly(outcome, receiver.secret)
    assert receiver.received == []


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_private_addresses_allowed_when_allow_private(
    client: WebhookClient, receiver: Receiver, host: str
) -> None:
    outcome = await client.send(
        request(receiver.url("/ok", host=host), receiver.secret, allow_private=True)
    )
    assert (outcome.http_status, outcome.error) == (204, None)
    assert receiver.received[0].verified


async def test_name_resolving_to_private_address_is_refused_after_dns(
    clock: FakeClock, receiver: Receiver
) -> None:
    """A public-looking name whose DNS answer is loopback (what DNS rebinding does at
    delivery time) is refused on the live path; the same answer is used on the sandbox path."""
    resolver = StaticResolver({"hooks.customer.example": ["127.0.0.1"]})
    client = WebhookClient(clock, resolver=resolver)
    url = receiver.url("/ok", host="hooks.customer.example")
    try:
        live = await client.send(request(url, receiver.secret, allow_private=False))
        sandbox = await client.send(request(url, receiver.secret, allow_private=True))
    finally:
        await client.aclose()
    assert assert_failed_cleanly(live, receiver.secret) == (
        "hooks.customer.example resolves only to private addresses (127.0.0.1); "
        "live webhooks are only sent to public addresses"
    )
    assert (sandbox.http_status, sandbox.error) == (204, None)
    assert len(receiver.received) == 1


async def test_public_only_resolver_keeps_only_public_answers() -> None:
    inner = StaticResolver(
        {"mixed.example": ["10.0.0.1", "8.8.8.8", "::1", "2606:4700:4700::1111", "169.254.1.1"]}
    )
    kept = await PublicOnlyResolver(inner).resolve("mixed.example", 443)
    assert [r["host"] for r in kept] == ["8.8.8.8", "2606:4700:4700::1111"]
    assert all(r["port"] == 443 for r in kept)
