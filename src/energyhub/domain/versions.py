"""API versions: `1.0` and `legacy`, the older variant existing clients still speak.

The two differ only by the data here: a table of error codes and a transformer of device
listing items. Renderers look a version's rules up in `RULES`; nothing else branches on a
version (docs/versioning.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class ApiVersion(StrEnum):
    V1 = "1.0"
    LEGACY = "legacy"


SUPPORTED_VERSIONS: tuple[str, ...] = tuple(v.value for v in ApiVersion)
# When each deprecated version was superseded: from then on its answers say so
# (`Deprecation`), and it is served for at least `MINIMUM_LIFETIME_DAYS` more.
DEPRECATED_SINCE: Mapping[ApiVersion, datetime] = {
    ApiVersion.LEGACY: datetime(2026, 11, 25, tzinfo=UTC),
}
MINIMUM_LIFETIME_DAYS = 365
BY_NAME: dict[str, ApiVersion] = {v.value: v for v in ApiVersion}


def version_from_cli(name: str) -> ApiVersion:
    """`1.0` or `legacy`, as the CLI takes it."""
    found = BY_NAME.get(name.strip().lower())
    if found is None:
        raise ValueError(f"unknown API version {name!r}: use {' or '.join(SUPPORTED_VERSIONS)}")
    return found


def pinned_version(key_prefix: str, requested: ApiVersion | None) -> ApiVersion:
    """The version a new key is pinned to: the one asked for, else `legacy` for the older
    `sk_sandbox_` keys (their clients were written for it) and `1.0` for every other."""
    if requested is not None:
        return requested
    return ApiVersion.LEGACY if key_prefix == "sk_sandbox_" else ApiVersion.V1


@dataclass(frozen=True, slots=True)
class CodeMapping:
    """A 1.0 error code as another version spells it. With `reason`, `details.reason`
    keeps the 1.0 code (several 1.0 codes share one older code)."""

    code: str
    status: int
    reason: bool = False


_NOT_CAPABLE = CodeMapping("DEVICE_NOT_CAPABLE", 422, reason=True)
LEGACY_CODES: Mapping[str, CodeMapping] = {
    "EXPIRED_TOKEN": CodeMapping("API_KEY_EXPIRED", 401),
    "UNSUPPORTED_MODE": _NOT_CAPABLE,
    "UNSUPPORTED_PARAMETER": _NOT_CAPABLE,
    "EXECUTION_NOT_SUPPORTED": _NOT_CAPABLE,
    "SESSIONS_NOT_SUPPORTED": _NOT_CAPABLE,
    "UNSUPPORTED_SETTING": _NOT_CAPABLE,
    "UNSUPPORTED_CONFLICT_STRATEGY": _NOT_CAPABLE,
    "READ_ONLY_SETTING": _NOT_CAPABLE,
}

# State bounds the interface declares for a device type's `state` keys; others are unbounded.
STATE_BOUNDS: Mapping[str, Mapping[str, tuple[float, float]]] = {
    "battery": {"level": (0, 100)},
    "ev-charger": {"phases": (1, 3)},
}


def _entry(key: str, low: Any, high: Any) -> dict[str, Any]:
    return {"key": key, "min": low, "max": high}


def legacy_features(item: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """`features.pull` and `features.push` of a listing item, from its `state` and its
    commands map: one push entry per declared parameter (`command.parameter`), or one per
    command without parameters."""
    bounds = STATE_BOUNDS.get(str(item.get("type")), {})
    pull = [_entry(key, *bounds.get(key, (None, None))) for key in item.get("state") or {}]
    push: list[dict[str, Any]] = []
    for command, spec in (item.get("commands") or {}).items():
        parameters: Mapping[str, Any] = spec.get("parameters") or {}
        if not parameters:
            push.append(_entry(command, None, None))
        for name, declared in parameters.items():
            push.append(_entry(f"{command}.{name}", declared.get("min"), declared.get("max")))
    return {"pull": pull, "push": push}


def legacy_listing_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """A listing item with `features` in the place of `commands` (same key order)."""
    return {
        ("features" if key == "commands" else key): (
            legacy_features(item) if key == "commands" else value
        )
        for key, value in item.items()
    }


@dataclass(frozen=True, slots=True)
class VersionRules:
    """Everything that differs between versions."""

    version: ApiVersion
    codes: Mapping[str, CodeMapping]
    listing_item: Callable[[Mapping[str, Any]], dict[str, Any]] | None  # None: as in 1.0

    def error(
        self, code: str, status: int, details: Mapping[str, Any]
    ) -> tuple[str, int, Mapping[str, Any]]:
        """An error's code, status and details as this version renders them."""
        mapping = self.codes.get(code)
        if mapping is None:
            return code, status, details
        if mapping.reason:
            details = {**details, "reason": code}
        return mapping.code, mapping.status, details


RULES: Mapping[ApiVersion, VersionRules] = {
    ApiVersion.V1: VersionRules(ApiVersion.V1, {}, None),
    ApiVersion.LEGACY: VersionRules(ApiVersion.LEGACY, LEGACY_CODES, legacy_listing_item),
}
