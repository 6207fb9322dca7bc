"""What a settings write changes beyond the keys it names: a ceiling that exists in two
units stays one ceiling, and a state field that reports a setting follows it at once
(rather than after the next pull)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from energyhub.domain.capabilities import Capabilities

LINE_VOLTS = 230.0
LINE_PHASES = 3
"""A charger's current and power convert at 230 V on three phases, as the sandbox's
chargers and the `current` push parameter do."""

CEILING_PAIR = ("max_charge_rate", "max_charge_current")  # kW, A: one ceiling
STATE_MIRRORS = {"discharge_floor": "dischargeLimit"}
"""Settings a device's state also reports, under another name."""


def amps_for_kw(kw: float) -> float:
    return kw * 1000 / (LINE_VOLTS * LINE_PHASES)


def kw_for_amps(amps: float) -> float:
    return amps * LINE_VOLTS * LINE_PHASES / 1000


def paired_settings(caps: Capabilities, written: Mapping[str, float | bool]) -> dict[str, float]:
    """The other unit of a ceiling written in one (a write carries at most one of the pair),
    kept within that setting's range, for devices that have both settings."""
    rate, current = CEILING_PAIR
    if rate not in caps.settings or current not in caps.settings:
        return {}
    if rate in written:
        spec, value = caps.settings[current], amps_for_kw(float(written[rate]))
        other = current
    elif current in written:
        spec, value = caps.settings[rate], kw_for_amps(float(written[current]))
        other = rate
    else:
        return {}
    if spec.min is not None:
        value = max(value, float(spec.min))
    if spec.max is not None:
        value = min(value, float(spec.max))
    return {other: round(value, 1 if other == current else 3)}


def state_after_settings(
    state: Mapping[str, Any], written: Mapping[str, float | bool]
) -> dict[str, Any]:
    """The state with the fields that report a written setting updated (those it has)."""
    changed = dict(state)
    for setting, field in STATE_MIRRORS.items():
        if setting in written and field in changed:
            changed[field] = written[setting]
    return changed
