"""Sends one signed webhook attempt over HTTP (CONTRACT 9) and reports how it went.

One `aiohttp.ClientSession` per reach (below), kept for the client's life: connections are
pooled and kept alive, which is what makes ~1k+ deliveries/s from one process possible
(httpx stalls at concurrency 50, see shared/notes/performance.md).

Which addresses an endpoint may reach is `ENERGYHUB_PRIVATE_WEBHOOK_URLS` and its
environment (`domain.webhook_reach`), one session per reach. The check runs when the
connection is made, after DNS resolution, so a name that resolves to a public address at
registration and to 127.0.0.1 later (DNS rebinding) is still refused (`address_guard`).
An attempt to a non-public address that gets no HTTP answer is recorded with one generic
error, so the delivery record does not tell an open port from a closed one.
"""

from __future__ import annotations

import ipaddress
import ssl
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from standardwebhooks import Webhook

from energyhub.domain.clock import Clock, ensure_utc
from energyhub.domain.deliveries import RESPONSE_BODY_CHARS
from energyhub.domain.webhook_reach import IPAddress, PrivateWebhookUrls, Reach, endpoint_reach
from energyhub.domain.webhooks import is_public_address
from energyhub.ports.webhooks import AttemptOutcome, WebhookRequest

if TYPE_CHECKING:  # aiohttp loads with the first delivery (~8 MB a quiet service skips)
    import aiohttp
    from aiohttp.abc import AbstractResolver

USER_AGENT: Final = "energyhub-webhooks/1"
MAX_RESPONSE_BYTES: Final = 64 * 1024
"""Reading the receiver's body lets the connection be reused; the cap keeps a huge answer
from costing us (the connection is closed instead)."""
KEPT_RESPONSE_BYTES: Final = 4 * RESPONSE_BODY_CHARS  # enough for that many characters
_SIGNER_CACHE_SIZE: Final = 1024
NON_PUBLIC_FAILURE: Final = (
    "no HTTP answer from a non-public address; check that the receiver is running "
    "(the reason is not recorded for non-public addresses)"
)
"""The one error of every failed attempt to a non-public address that got no HTTP answer:
refused, reset, timed out, TLS or garbled answers would tell which ports are open."""


class WebhookClient:
    """Sends signed webhook attempts. Create it anywhere; its sessions are made on first use
    inside the running event loop, and it belongs to that loop. Call `aclose()` at shutdown."""

    def __init__(
        self,
        clock: Clock,
        *,
        timeout_s: float = 15.0,
        max_connections: int = 50,
        resolver: AbstractResolver | None = None,
        private_urls: PrivateWebhookUrls = PrivateWebhookUrls.SANDBOX,
    ) -> None:
        """`resolver` looks names up for every session (default: aiohttp's, made on first
        use); tests inject one to play DNS tricks. A given resolver stays the caller's.
        `private_urls` is ENERGYHUB_PRIVATE_WEBHOOK_URLS."""
        self._clock = clock
        self._timeout_s = timeout_s
        self._max_connections = max_connections
        self._resolver = resolver
        self._owns_resolver = resolver is None
        self._private_urls = private_urls
        self._sessions: dict[Reach, aiohttp.ClientSession] = {}
        self._signers: OrderedDict[str, Webhook] = OrderedDict()

    async def send(self, request: WebhookRequest) -> AttemptOutcome:
        """POST one signed attempt. Network and receiver problems (refused, timed out, TLS,
        private address, bad HTTP) come back as an outcome with `error`; only programming
        errors (a malformed secret, a body that is not UTF-8) raise."""
        from energyhub.adapters.address_guard import noting_connections

        now = ensure_utc(self._clock.now())
        text = request.body.decode("utf-8")
        signature = self._signer(request.secret).sign(request.delivery_id, now, text)
        if request.previous_secret is not None:  # a rotation's overlap: `v1,<new> v1,<old>`
            old = self._signer(request.previous_secret).sign(request.delivery_id, now, text)
            signature = f"{signature} {old}"
        headers = {
            "webhook-id": request.delivery_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": signature,
            "x-event-type": request.event_type,
        }
        import aiohttp

        reach = endpoint_reach(self._private_urls, request.environment)
        session = self._session(reach)
        started = time.perf_counter()
        status: int | None = None
        error: str | None = None
        answer: str | None = None
        with noting_connections() as connected:
            try:
                async with session.post(
                    request.url, data=request.body, headers=headers, allow_redirects=False
                ) as response:
                    status = response.status
                    answer = await _drain(response)
            except (aiohttp.ClientError, OSError, ValueError) as exc:  # TimeoutError too
                error = self._describe(exc)
                if _tells_port_state(exc) and not _known_public(reach, request.url, connected):
                    error = NON_PUBLIC_FAILURE
                if _leaks(error, request, signature):  # defence in depth
                    error = "request failed"
        duration_ms = round((time.perf_counter() - started) * 1000)
        if status is not None and 300 <= status < 400:
            error = "redirect not followed"
        return AttemptOutcome(
            at=now,
            http_status=status,
            duration_ms=duration_ms,
            error=error,
            response_body=answer,
        )

    async def aclose(self) -> None:
        """Close the sessions, their pooled connections and a resolver we made."""
        sessions = list(self._sessions.values())
        self._sessions.clear()
        for session in sessions:
            await session.close()
        if self._owns_resolver and self._resolver is not None:
            await self._resolver.close()
            self._resolver = None

    # --- internals ---------------------------------------------------------------------------
    def _signer(self, secret: str) -> Webhook:
        """One `Webhook` per secret: decoding the base64 key per request is avoidable churn."""
        signer = self._signers.get(secret)
        if signer is None:
            signer = Webhook(secret)
            self._signers[secret] = signer
            if len(self._signers) > _SIGNER_CACHE_SIZE:
                self._signers.popitem(last=False)
        else:
            self._signers.move_to_end(secret)
        return signer

    def _session(self, reach: Reach) -> aiohttp.ClientSession:
        session = self._sessions.get(reach)
        if session is None:
            import aiohttp
            from aiohttp.resolver import DefaultResolver

            from energyhub.adapters.address_guard import ReachResolver, guarded_socket

            if self._resolver is None:
                self._resolver = DefaultResolver()
            resolver = (
                self._resolver if reach is Reach.ANY else ReachResolver(self._resolver, reach)
            )
            session = self._sessions[reach] = self._new_session(
                aiohttp.TCPConnector(
                    limit=self._max_connections,
                    resolver=resolver,
                    socket_factory=guarded_socket(reach),
                )
            )
        return session

    def _new_session(self, connector: aiohttp.TCPConnector) -> aiohttp.ClientSession:
        import aiohttp

        return aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self._timeout_s),
            headers={"content-type": "application/json", "user-agent": USER_AGENT},
            # Receivers of different customers share the session: never carry cookies.
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
            # trust_env stays False: an HTTP(S)_PROXY from the environment would make the
            # proxy, not us, connect to the receiver and bypass the address check.
            trust_env=False,
        )

    def _describe(self, exc: BaseException) -> str:
        """A short reason for the dashboard. Built from our own words, never str(exc) of a
        request-level error, so no header (signature) can leak into it."""
        import aiohttp

        from energyhub.adapters.address_guard import AddressNotAllowedError

        if isinstance(exc, TimeoutError):
            return f"timed out after {self._timeout_s:g} s"
        if isinstance(exc, aiohttp.ClientConnectorCertificateError):
            return "TLS certificate verification failed"
        if isinstance(exc, aiohttp.ClientSSLError):
            return "TLS handshake failed"
        if isinstance(exc, aiohttp.ClientConnectorError):
            cause = exc.os_error
            if isinstance(cause, AddressNotAllowedError):
                return str(cause)
            if isinstance(cause, TimeoutError):
                return f"timed out after {self._timeout_s:g} s"
            if isinstance(exc, aiohttp.ClientConnectorDNSError):
                return f"could not resolve host {exc.host}"
            if isinstance(cause, ConnectionRefusedError):
                return "connection refused"
            return f"connection failed: {_os_reason(cause)}"
        if isinstance(exc, aiohttp.ServerDisconnectedError):
            return "receiver closed the connection without answering"
        if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
            return "receiver sent an invalid HTTP response"
        if isinstance(exc, aiohttp.InvalidURL | ValueError):  # yarl/IDNA refuse a bad URL
            return "invalid URL"
        if isinstance(exc, ConnectionResetError):
            return "connection reset by the receiver"
        if isinstance(exc, ssl.SSLError):
            return "TLS error"
        if isinstance(exc, OSError):
            return f"network error: {_os_reason(exc)}"
        return f"request failed ({type(exc).__name__})"


def _tells_port_state(exc: BaseException) -> bool:
    """Whether the error comes from what listens at the address (refused, reset, timed out,
    TLS, a garbled answer), rather than from the URL, DNS or the address check."""
    import aiohttp

    from energyhub.adapters.address_guard import AddressNotAllowedError

    if isinstance(exc, aiohttp.ClientConnectorDNSError | aiohttp.InvalidURL | ValueError):
        return False
    if isinstance(exc, aiohttp.ClientConnectorError):
        return not isinstance(exc.os_error, AddressNotAllowedError)
    return True


def _known_public(reach: Reach, url: str, connected: list[IPAddress]) -> bool:
    """Whether the attempt certainly went only to public addresses: always for a public-only
    endpoint; else when it connected only to public ones, or its host is a public literal
    (a reused pooled connection notes no address)."""
    if reach is Reach.PUBLIC:
        return True
    if connected:
        return all(is_public_address(ip) for ip in connected)
    try:
        host = urlsplit(url).hostname
        return host is not None and is_public_address(ipaddress.ip_address(host))
    except ValueError:
        return False


def _os_reason(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


def _leaks(error: str, request: WebhookRequest, signature: str) -> bool:
    secrets = (request.secret, request.previous_secret, signature)
    return any(s is not None and s in error for s in secrets)


async def _drain(response: aiohttp.ClientResponse) -> str:
    """Read up to MAX_RESPONSE_BYTES so the connection can be kept alive, and keep the
    start of it for the dashboard. The status already decides the attempt: a body that
    breaks off afterwards is ignored."""
    import aiohttp

    kept = bytearray()
    remaining = MAX_RESPONSE_BYTES
    try:
        while remaining > 0:
            chunk = await response.content.read(remaining)
            if not chunk:
                break
            if len(kept) < KEPT_RESPONSE_BYTES:
                kept += chunk[: KEPT_RESPONSE_BYTES - len(kept)]
            remaining -= len(chunk)
    except (aiohttp.ClientError, OSError):  # TimeoutError is an OSError
        pass
    return kept.decode("utf-8", errors="replace")[:RESPONSE_BODY_CHARS]
