"""The ceiling for `device_read.py`: a plain ASGI callable (no framework) under uvicorn with
the service's options (uvloop, httptools, access log off, one worker) that answers every
request with the same fixed JSON body of a given size.

Run: `.venv/bin/python bench/bare_app.py --port 8001 --body-bytes 1500`
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def json_body(size: int) -> bytes:
    """A valid JSON object of exactly `size` bytes (at least 12)."""
    frame = b'{"data":""}'
    size = max(size, len(frame) + 1)
    return b'{"data":"' + b"x" * (size - len(frame)) + b'"}'


def make_app(body: bytes) -> App:
    start: Message = {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    message: Message = {"type": "http.response.body", "body": body}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                if event["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif event["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        await send(start)
        await send(message)

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--body-bytes", type=int, default=1500)
    args = parser.parse_args()
    uvicorn.run(
        make_app(json_body(args.body_bytes)),
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        workers=1,
        lifespan="on",
    )


if __name__ == "__main__":
    main()
