"""A write's answer leaves after the signals it caused: when the client that changed a
device asks another process next, that process has already been told (its read cache
dropped the device). Reads pass straight through."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from energyhub.ports.signals import Signals

READS = frozenset({"GET", "HEAD", "OPTIONS"})


def answering_after_signals(app: ASGIApp, signals: Signals) -> ASGIApp:
    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in READS:
            await app(scope, receive, send)
            return

        async def send_after_signals(message: Message) -> None:
            if message["type"] == "http.response.start" and signals.pending:
                await signals.sent()
            await send(message)

        await app(scope, receive, send_after_signals)

    return answer
