"""WebSocket-level liveness for OCPP chargers. OCPP 1.6J does not require heartbeats over a
WebSocket: a charger may go silent at the OCPP level and rely on WebSocket pings. ASGI never
shows an application a ping or a pong, so the server's websocket protocol is extended to tell
the application of every frame a peer sends (its pongs included): the central system counts
it as a sign of life. The server pings every `ping_s` and closes a connection whose pong does
not come within `ping_s` (uvicorn's keepalive)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

from energyhub.drivers.ocpp.small_event import SmallEvent
from energyhub.drivers.ocpp.small_queue import SmallQueue

MAX_MESSAGE_BYTES = 1024 * 1024  # uvicorn's default is 16 MiB a message

PEER_ACTIVITY = "energyhub.peer_activity"  # the ASGI scope extension a `PeerActivity` is under


class PeerActivity:
    """Set `listener`: it is called whenever the peer sends anything (a message, a ping, a
    pong)."""

    __slots__ = ("listener",)

    def __init__(self) -> None:
        self.listener: Callable[[], None] | None = None

    def heard(self) -> None:
        if self.listener is not None:
            self.listener()


class PeerActivityProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol (the one it picks by default) with a `PeerActivity`
    in each connection's scope, a lighter receive queue and `writable` event, and no
    handshake kept once it is answered (uvicorn keeps the request and the response, headers
    and all, for the connection's life)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.activity = PeerActivity()
        self.queue = SmallQueue()  # type: ignore[assignment]
        self.writable = SmallEvent()  # type: ignore[assignment]
        self.writable.set()

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.handshake_complete and getattr(self, "response", None) is not None:
            # websockets' parser keeps the request object for the connection's life too
            self.request.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # set once the handshake is accepted
        if scope is not None:
            scope["extensions"][PEER_ACTIVITY] = self.activity

    def data_received(self, data: bytes) -> None:
        self.activity.heard()
        super().data_received(data)


def server_options(
    ping_s: float,
    pong_timeout_s: float | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> dict[str, Any]:
    """The uvicorn options that give the central system WebSocket-level liveness; the pong
    may take `ping_s` unless told otherwise. No permessage-deflate: OCPP frames are small,
    and a connection that compresses keeps a zlib compressor and decompressor (~40 KB, about
    as much again as the rest of a charger's connection) for as long as it lives. A message
    over `max_message_bytes` closes its connection (1009): no charger makes the server
    buffer 16 MiB."""
    return {
        "ws": PeerActivityProtocol,
        "ws_max_size": max_message_bytes,
        "ws_per_message_deflate": False,
        "ws_ping_interval": ping_s,
        "ws_ping_timeout": ping_s if pong_timeout_s is None else pong_timeout_s,
    }
