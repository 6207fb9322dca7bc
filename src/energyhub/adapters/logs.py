"""Log lines: text (the default) or one JSON object a line (ENERGYHUB_LOG_FORMAT=json) with
the id of the request being served, which the gateway puts in a context variable (each
request runs in its own task, so the value never leaks into another request)."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import orjson

REQUEST_ID: ContextVar[str | None] = ContextVar("energyhub_request_id", default=None)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
# LogRecord's own attributes: everything else on a record was passed as `extra`
# (uvicorn adds `color_message`, the message with terminal colours)
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """`time`, `level`, `logger`, `message`, `requestId` while a request is served, the
    `extra` fields of the call, and `exception` with its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["requestId"] = request_id
        for name, value in record.__dict__.items():
            if name not in _STANDARD and name not in line:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def configure_logging(level: str, log_format: str) -> None:
    """The root handler for `serve`, `worker` and the other commands."""
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    # Alembic narrates each step of a migration (a first start: some 40 lines before the
    # service's own); the service logs one line for the whole migration instead
    if logging.getLogger().level > logging.DEBUG:
        logging.getLogger("alembic").setLevel(logging.WARNING)


def uvicorn_log_config(log_format: str) -> dict[str, Any]:
    """uvicorn's own loggers go through the root handler above when logs are JSON (text
    keeps uvicorn's own configuration)."""
    if log_format != "json":
        from uvicorn.config import LOGGING_CONFIG

        return LOGGING_CONFIG
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "loggers": {
            name: {"handlers": [], "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }
