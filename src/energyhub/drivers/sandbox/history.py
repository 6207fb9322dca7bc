"""A sandbox device's state over a past span, straight from the simulator.

As with sessions (`sessions.py`), only the last command (the `SimAnchor`) is stored: before
`anchor.at` the device followed its no-command program, from then on the anchor's. So the
chart of a sandbox device agrees with every read made over the same span."""

from __future__ import annotations

from datetime import datetime, timedelta

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.history import StateSample, sample_of
from energyhub.domain.sandbox_controls import hold_in
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.drivers.sandbox import simulator
from energyhub.drivers.sandbox.simulator import SimAnchor


def sandbox_history(
    device: Device, start: datetime, end: datetime, step: timedelta
) -> list[StateSample]:
    profile = PROFILES[device.profile or ""]
    anchor = SimAnchor.of(device.sim)
    hold = hold_in(device.sim)
    samples: list[StateSample] = []
    at = start
    while at <= end:
        in_force = anchor if anchor is not None and anchor.at <= at else None
        held = hold if hold is not None and hold.at <= at else None
        state = simulator.read(profile, in_force, at, device.settings, held).state
        samples.append(sample_of(DeviceType(device.type), state, at))
        at += step
    return samples
