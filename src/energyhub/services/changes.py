"""A feed of device ids whose stored body changed, so read caches can drop them."""

from __future__ import annotations

from collections.abc import Callable


class DeviceChangeFeed:
    def __init__(self) -> None:
        self._listeners: list[Callable[[str], None]] = []

    def subscribe(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    def publish(self, device_id: str) -> None:
        for listener in self._listeners:
            listener(device_id)
