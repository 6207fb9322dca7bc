"""What both OCPP versions share on a connection: the `ocpp` package's connection interface
over a Starlette websocket, and calls to the charger with their failures turned into
`DriverError` (offline, timeout, refused)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, TypeVar, cast

from ocpp import routing  # type: ignore[import-untyped]
from ocpp.exceptions import OCPPError  # type: ignore[import-untyped]
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from energyhub.domain.clock import Clock
from energyhub.domain.errors import DeviceOffline, DeviceRejected, DeviceTimeout
from energyhub.domain.readings import DriverError
from energyhub.drivers.ocpp.keepalive import PEER_ACTIVITY, PeerActivity
from energyhub.drivers.ocpp.small_event import SmallEvent
from energyhub.drivers.ocpp.small_queue import SmallQueue
from energyhub.drivers.ocpp.station import CallNotSupported, Station

log = logging.getLogger(__name__)

ACCEPTED = "Accepted"
NOT_SUPPORTED = "NotSupported"  # a CALLERROR code, and a 1.6 SetChargingProfile status
NOT_IMPLEMENTED = "NotImplemented"
Handler = TypeVar("Handler", bound=Callable[..., Any])


def on(action: str) -> Callable[[Handler], Handler]:
    """`ocpp.routing.on`, typed: the handler of a message the charger sends."""
    return cast(Callable[[Handler], Handler], routing.on(action))


def after(action: str) -> Callable[[Handler], Handler]:
    """`ocpp.routing.after`, typed: runs as a task once the answer is sent."""
    return cast(Callable[[Handler], Handler], routing.after(action))


class WebSocketConnection:
    """`recv`/`send` as `ocpp.ChargePoint` expects them, on a Starlette websocket;
    `on_message` hears of every message received, and of every ping and pong where the
    server tells of them (liveness, `keepalive.py`)."""

    def __init__(self, websocket: WebSocket, on_message: Callable[[], None]) -> None:
        self.websocket = websocket
        self._on_message = on_message
        activity = (websocket.scope.get("extensions") or {}).get(PEER_ACTIVITY)
        if isinstance(activity, PeerActivity):
            activity.listener = on_message

    async def recv(self) -> str:
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
            self._on_message()
            text = message.get("text")
            if text is not None:
                return str(text)
            data = message.get("bytes")
            if data is not None:  # OCPP-J frames are text; tolerate a binary one
                return bytes(data).decode("utf-8", errors="replace")

    async def send(self, message: str) -> None:
        if self.websocket.application_state is not WebSocketState.CONNECTED:
            raise ConnectionError("websocket closed")
        await self.websocket.send_text(message)

    async def close(self, code: int, reason: str) -> None:
        if self.websocket.application_state is WebSocketState.CONNECTED:
            with contextlib.suppress(RuntimeError, OSError):
                await self.websocket.close(code, reason)


class LinkCalls:
    """Mixed into the version's `ChargePoint`: calls that fail as `DriverError`, and a
    `closed` event that ends calls waiting on a dropped connection at once."""

    closed: SmallEvent
    clock: Clock
    connection: WebSocketConnection

    def __init__(
        self,
        station: Station,
        connection: WebSocketConnection,
        clock: Clock,
        *,
        heartbeat_s: int,
        response_timeout_s: float,
        id_tag: str,
    ) -> None:
        # the version's ChargePoint comes next in the MRO
        super().__init__(  # type: ignore[call-arg]
            station.record.charge_point_id, connection, response_timeout_s
        )
        # what the package builds per connection, made lighter (a fleet holds thousands)
        self.route_map = _BoundRoutes(self)
        self._response_queue = SmallQueue()
        self.closed = SmallEvent()
        self.clock = clock
        self.connection = connection
        self.station = station
        self._heartbeat_s = heartbeat_s
        self._id_tag = id_tag

    def now_text(self) -> str:
        return iso(self.clock.now())

    async def request(self: Any, payload: Any) -> Any:
        """One call; returns the call result dataclass."""
        if self.closed.is_set():
            raise _offline()
        task = asyncio.ensure_future(self.call(payload, suppress=False))
        ended = asyncio.ensure_future(self.closed.wait())
        try:
            await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            ended.cancel()
        if not task.done():
            task.cancel()
            raise _offline()
        try:
            return task.result()
        except TimeoutError:
            raise DriverError(
                DeviceTimeout.code,
                f"The charger did not answer {type(payload).__name__} in time.",
                retryable=True,
            ) from None
        except OCPPError as error:
            raise call_error(type(payload).__name__, error) from None
        except (WebSocketDisconnect, ConnectionError, RuntimeError, OSError):
            raise _offline() from None

    async def close(self, code: int, reason: str) -> None:
        self.closed.set()
        await self.connection.close(code, reason)


class _BoundRoutes:
    """`ChargePoint.route_map`, bound on lookup: the package builds a dict of bound handlers
    per connection (~2 KB); the action -> handler-name table is built once per class."""

    __slots__ = ("_owner",)
    _tables: ClassVar[dict[type, dict[str, dict[str, Any]]]] = {}

    def __init__(self, owner: Any) -> None:
        self._owner = owner
        kind = type(owner)
        if kind not in self._tables:
            self._tables[kind] = {
                action: {
                    option: getattr(value, "__name__", value)
                    if option != "_skip_schema_validation"
                    else value
                    for option, value in handlers.items()
                }
                for action, handlers in routing.create_route_map(owner).items()
            }

    def __getitem__(self, action: str) -> dict[str, Any]:
        names = self._tables[type(self._owner)][action]  # KeyError: no handler
        return {
            option: value if option == "_skip_schema_validation" else getattr(self._owner, value)
            for option, value in names.items()
        }


def require_accepted(status: Any, what: str) -> None:
    """A charger's `status` answer: anything but Accepted is a refusal (`NotSupported`, a
    1.6 answer to SetChargingProfile, as `CallNotSupported`)."""
    text = str(getattr(status, "value", status))
    if text == NOT_SUPPORTED:
        raise CallNotSupported(
            f"The charger does not support {what}.", details={"ocppStatus": text}
        )
    if text != ACCEPTED:
        raise DriverError(
            DeviceRejected.code,
            f"The charger answered {what} with {text}.",
            retryable=False,
            details={"ocppStatus": text},
        )


def call_error(action: str, error: OCPPError) -> DriverError:
    """A CALLERROR as one sentence; its code and (short) description go to the details, its
    `errorDetails` (a charger may put a whole protocol dump there) nowhere."""
    details = {"ocppError": str(error.code), "ocppErrorDescription": _short(error.description)}
    if error.code in (NOT_IMPLEMENTED, NOT_SUPPORTED):
        return CallNotSupported(f"The charger does not support {action}.", details=details)
    return DriverError(
        DeviceRejected.code,
        f"The charger answered {action} with an OCPP error.",
        retryable=False,
        details=details,
    )


def _short(text: Any, limit: int = 120) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _offline() -> DriverError:
    return DriverError(
        DeviceOffline.code, "The charger's connection closed: retry later.", retryable=True
    )


def iso(instant: datetime) -> str:
    return instant.isoformat().replace("+00:00", "Z")
