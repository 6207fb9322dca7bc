"""Bounded request heads for uvicorn's httptools protocol. A head (request line and header
fields) over `MAX_HEAD_BYTES` is answered 431, and one not complete within the head timeout
is closed (with 408 when part of it came). uvicorn has neither: llhttp sets no size on
header fields, and uvicorn's only timer runs between requests of a kept-alive connection, so
a half-sent head held its connection, and every byte of it, for as long as the client liked.
The checks cost a counter per read and a timer per request; the rest is uvicorn's."""

from __future__ import annotations

import asyncio
import logging

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from energyhub.api.versioning import VERSION_HEADER
from energyhub.domain.versions import ApiVersion

MAX_HEAD_BYTES = 32 * 1024
# After refusing, what the client still sends is read and dropped for this long, so it reads
# the answer instead of a connection reset (closing with unread data sends a TCP RST).
LINGER_S = 5.0

log = logging.getLogger(__name__)


class _HeadTooLarge(Exception):
    """Raised from a parser callback to stop parsing a head that is too large."""


def plain_response(status: bytes, message: str) -> bytes:
    """An answer written below ASGI (no request was parsed, so none picked a version: it is
    rendered in the current one, like every answer the API gives before a version is
    known)."""
    body = message.encode()
    return b"".join(
        (
            b"HTTP/1.1 " + status + b"\r\n",
            b"content-type: text/plain; charset=utf-8\r\n",
            VERSION_HEADER + b": " + ApiVersion.V1.value.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
            body,
        )
    )


TOO_LARGE = plain_response(
    b"431 Request Header Fields Too Large",
    f"The request line and headers exceed {MAX_HEAD_BYTES // 1024} KiB; send fewer or "
    "shorter headers.",
)
TIMED_OUT = plain_response(
    b"408 Request Timeout", "The request line and headers did not arrive in time; send again."
)


class BoundedHeadProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a size and a deadline on every request head.

    The deadline runs from the connection's start (for its first request) or from a later
    request's first byte, to the end of its headers. The size is counted exactly from the
    parsed target and header fields when the head is complete, and from the bytes received
    while it is not (llhttp buffers a field until it ends), so no head holds more than the
    limit and one read."""

    max_head_bytes = MAX_HEAD_BYTES
    head_timeout_s = 10.0

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._reading_head = True
        self._head_begun = False  # the parser has seen a byte of this head
        self._head_bytes = 0  # bytes received while reading this head
        self._head_timer: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """uvicorn's own, plus the two checks (uvicorn answers any parser error 400)."""
        if self._refused:
            return  # lingering after a refusal: dropped
        if self._reading_head:
            self._head_bytes += len(data)
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:
            if isinstance(error.__context__, _HeadTooLarge):
                self._refuse(TOO_LARGE)
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if self._reading_head and self._head_bytes > self.max_head_bytes:
            self._refuse(TOO_LARGE)

    def handle_websocket_upgrade(self) -> None:
        """uvicorn's, then the parser let go: the websocket protocol has the connection now,
        and the parser and this protocol hold each other (its callbacks are this protocol's
        methods), so both would stay until the collector's next full scan: ~3 KB a charger,
        a reconnecting fleet's worth of it spread through the heap."""
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # as uvicorn's connection_lost does

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._reading_head = self._head_begun = True
        self._head_bytes = 0
        self._start_head_timer()

    def on_headers_complete(self) -> None:
        self._reading_head = self._head_begun = False
        self._stop_head_timer()
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)  # ": ", CRLF
        if size > self.max_head_bytes:
            raise _HeadTooLarge
        super().on_headers_complete()

    def _start_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self._reading_head or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self._start_head_timer()  # a pipelined head waits for the answer before it
            return
        if self._head_begun or self._head_bytes:
            self.transport.write(TIMED_OUT)
        self.transport.close()

    def _refuse(self, answer: bytes) -> None:
        log.info("refused a request head over %d bytes from %s", self.max_head_bytes, self.client)
        self._stop_head_timer()
        self._refused = True
        self._reading_head = False
        self.transport.write(answer)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_S, self.transport.close)


def bounded_head_protocol(head_timeout_s: float) -> type[BoundedHeadProtocol]:
    """The protocol class uvicorn builds per connection, with this head timeout."""

    class Configured(BoundedHeadProtocol):
        pass

    Configured.head_timeout_s = head_timeout_s
    return Configured
