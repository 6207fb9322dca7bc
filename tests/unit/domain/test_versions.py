"""API versions as data: the legacy code table and the listing transformer (CONTRACT 13)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.errors import all_error_classes
from energyhub.domain.sandbox_profiles import PROFILES, new_sandbox_device
from energyhub.domain.versions import (
    DEPRECATED_SINCE,
    LEGACY_CODES,
    RULES,
    SUPPORTED_VERSIONS,
    ApiVersion,
    legacy_features,
    legacy_listing_item,
    pinned_version,
    version_from_cli,
)

CAPABILITY_REFUSALS = [
    "UNSUPPORTED_MODE",
    "UNSUPPORTED_PARAMETER",
    "EXECUTION_NOT_SUPPORTED",
    "SESSIONS_NOT_SUPPORTED",
    "UNSUPPORTED_SETTING",
    "UNSUPPORTED_CONFLICT_STRATEGY",
    "READ_ONLY_SETTING",
]
ALL_CODES = sorted({cls.code: cls.status for cls in all_error_classes()}.items())


def test_the_legacy_table_is_exactly_the_contracts() -> None:
    assert set(LEGACY_CODES) == {"EXPIRED_TOKEN", *CAPABILITY_REFUSALS}
    assert SUPPORTED_VERSIONS == ("1.0", "legacy")
    assert set(DEPRECATED_SINCE) == {ApiVersion.LEGACY}


def test_every_mapped_code_is_a_code_of_the_catalogue() -> None:
    known = dict(ALL_CODES)
    for code in LEGACY_CODES:
        assert code in known, code
    assert known["DEVICE_NOT_CAPABLE"] == 422


def test_expired_token_is_api_key_expired_in_legacy() -> None:
    rules = RULES[ApiVersion.LEGACY]
    assert rules.error("EXPIRED_TOKEN", 401, {}) == ("API_KEY_EXPIRED", 401, {})
    assert RULES[ApiVersion.V1].error("EXPIRED_TOKEN", 401, {}) == ("EXPIRED_TOKEN", 401, {})


@pytest.mark.parametrize("code", CAPABILITY_REFUSALS)
def test_capability_refusals_are_device_not_capable_with_the_reason(code: str) -> None:
    details = {"supportedModes": ["charge"], "availableSettings": ["cable_lock"]}
    legacy = RULES[ApiVersion.LEGACY].error(code, 422, details)
    assert legacy == ("DEVICE_NOT_CAPABLE", 422, {**details, "reason": code})
    assert details == {"supportedModes": ["charge"], "availableSettings": ["cable_lock"]}
    assert RULES[ApiVersion.V1].error(code, 422, details) == (code, 422, details)


@pytest.mark.parametrize(("code", "status"), ALL_CODES)
def test_unmapped_codes_are_the_same_in_both_versions(code: str, status: int) -> None:
    details = {"x": 1}
    for version in ApiVersion:
        rendered = RULES[version].error(code, status, details)
        if version is ApiVersion.LEGACY and code in LEGACY_CODES:
            continue
        assert rendered == (code, status, details)


def _item(profile_name: str) -> dict[str, Any]:
    """A listing item of a sandbox device of this profile, with a state of every key."""
    profile = PROFILES[profile_name]
    now = datetime(2026, 11, 25, tzinfo=UTC)
    device = new_sandbox_device(
        profile,
        device_id="d1",
        account_id="acc",
        environment=Environment.SANDBOX,
        user_id="u",
        timezone="UTC",
        now=now,
    )
    state: dict[str, Any] = (
        {"status": "idle", "capacity": 13.5, "level": 50, "chargeRate": 0, "dischargeLimit": 10}
        if profile.device_type is DeviceType.BATTERY
        else {"status": "available", "isConnected": False, "isCharging": False, "phases": 3}
    )
    return {
        "id": device.id,
        "type": device.type.value,
        "state": state,
        "commands": device.capabilities.commands_json(),
        "settings": device.capabilities.settings_json(device.settings),
    }


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_listing_features_of_every_sandbox_profile(profile_name: str) -> None:
    item = _item(profile_name)
    legacy = legacy_listing_item(item)
    assert "commands" not in legacy
    assert list(legacy) == ["id", "type", "state", "features", "settings"]
    features = legacy["features"]
    assert set(features) == {"pull", "push"}
    assert [e["key"] for e in features["pull"]] == list(item["state"])
    caps = PROFILES[profile_name].capabilities
    expected_push: list[dict[str, Any]] = []
    for command, spec in caps.commands.items():
        if not spec.parameters:
            expected_push.append({"key": command, "min": None, "max": None})
        for name, parameter in spec.parameters.items():
            expected_push.append(
                {"key": f"{command}.{name}", "min": parameter.min, "max": parameter.max}
            )
    assert features["push"] == expected_push
    for entry in features["pull"] + features["push"]:
        assert set(entry) == {"key", "min", "max"}
        for bound in (entry["min"], entry["max"]):
            assert bound is None or isinstance(bound, int | float)
    pull = {e["key"]: (e["min"], e["max"]) for e in features["pull"]}
    if item["type"] == "battery":
        assert pull["level"] == (0, 100)
        assert pull["status"] == (None, None)
    else:
        assert pull["phases"] == (1, 3)
        assert pull["isConnected"] == (None, None)
    assert item["commands"], "the input is left as it was"
    assert RULES[ApiVersion.V1].listing_item is None


def test_features_of_an_item_without_state_or_commands() -> None:
    assert legacy_features({"type": "battery", "state": {}, "commands": {}}) == {
        "pull": [],
        "push": [],
    }


def test_pinning_and_the_cli_names() -> None:
    assert pinned_version("sk_sandbox_", None) is ApiVersion.LEGACY
    assert pinned_version("sk_test_", None) is ApiVersion.V1
    assert pinned_version("sk_live_", None) is ApiVersion.V1
    assert pinned_version("sk_sandbox_", ApiVersion.V1) is ApiVersion.V1
    assert pinned_version("sk_live_", ApiVersion.LEGACY) is ApiVersion.LEGACY
    assert version_from_cli("1.0") is ApiVersion.V1
    assert version_from_cli(" Legacy ") is ApiVersion.LEGACY
    with pytest.raises(ValueError, match=r"1\.0 or legacy"):
        version_from_cli("2.0")
