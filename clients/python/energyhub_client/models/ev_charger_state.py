from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.ev_charger_state_not_charging_reason_type_0 import EvChargerStateNotChargingReasonType0
from ..models.ev_charger_state_status import EvChargerStateStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="EvChargerState")


@_attrs_define
class EvChargerState:
    """Presence-based: a key is absent when the charger does not report it.

    Attributes:
        status (EvChargerStateStatus):
        is_connected (bool):
        is_charging (bool):
        current_power (float | None | Unset):
        max_current (float | None | Unset):
        power_rate_limit (float | None | Unset):
        session_energy (float | None | Unset):
        phases (int | None | Unset):
        voltage (float | None | Unset):
        not_charging_reason (EvChargerStateNotChargingReasonType0 | None | Unset):
        active_control_mode (None | str | Unset):
    """

    status: EvChargerStateStatus
    is_connected: bool
    is_charging: bool
    current_power: float | None | Unset = UNSET
    max_current: float | None | Unset = UNSET
    power_rate_limit: float | None | Unset = UNSET
    session_energy: float | None | Unset = UNSET
    phases: int | None | Unset = UNSET
    voltage: float | None | Unset = UNSET
    not_charging_reason: EvChargerStateNotChargingReasonType0 | None | Unset = UNSET
    active_control_mode: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        is_connected = self.is_connected

        is_charging = self.is_charging

        current_power: float | None | Unset
        if isinstance(self.current_power, Unset):
            current_power = UNSET
        else:
            current_power = self.current_power

        max_current: float | None | Unset
        if isinstance(self.max_current, Unset):
            max_current = UNSET
        else:
            max_current = self.max_current

        power_rate_limit: float | None | Unset
        if isinstance(self.power_rate_limit, Unset):
            power_rate_limit = UNSET
        else:
            power_rate_limit = self.power_rate_limit

        session_energy: float | None | Unset
        if isinstance(self.session_energy, Unset):
            session_energy = UNSET
        else:
            session_energy = self.session_energy

        phases: int | None | Unset
        if isinstance(self.phases, Unset):
            phases = UNSET
        else:
            phases = self.phases

        voltage: float | None | Unset
        if isinstance(self.voltage, Unset):
            voltage = UNSET
        else:
            voltage = self.voltage

        not_charging_reason: None | str | Unset
        if isinstance(self.not_charging_reason, Unset):
            not_charging_reason = UNSET
        elif isinstance(self.not_charging_reason, EvChargerStateNotChargingReasonType0):
            not_charging_reason = self.not_charging_reason.value
        else:
            not_charging_reason = self.not_charging_reason

        active_control_mode: None | str | Unset
        if isinstance(self.active_control_mode, Unset):
            active_control_mode = UNSET
        else:
            active_control_mode = self.active_control_mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "isConnected": is_connected,
                "isCharging": is_charging,
            }
        )
        if current_power is not UNSET:
            field_dict["currentPower"] = current_power
        if max_current is not UNSET:
            field_dict["maxCurrent"] = max_current
        if power_rate_limit is not UNSET:
            field_dict["powerRateLimit"] = power_rate_limit
        if session_energy is not UNSET:
            field_dict["sessionEnergy"] = session_energy
        if phases is not UNSET:
            field_dict["phases"] = phases
        if voltage is not UNSET:
            field_dict["voltage"] = voltage
        if not_charging_reason is not UNSET:
            field_dict["notChargingReason"] = not_charging_reason
        if active_control_mode is not UNSET:
            field_dict["activeControlMode"] = active_control_mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = EvChargerStateStatus(d.pop("status"))

        is_connected = d.pop("isConnected")

        is_charging = d.pop("isCharging")

        def _parse_current_power(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        current_power = _parse_current_power(d.pop("currentPower", UNSET))

        def _parse_max_current(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_current = _parse_max_current(d.pop("maxCurrent", UNSET))

        def _parse_power_rate_limit(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        power_rate_limit = _parse_power_rate_limit(d.pop("powerRateLimit", UNSET))

        def _parse_session_energy(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        session_energy = _parse_session_energy(d.pop("sessionEnergy", UNSET))

        def _parse_phases(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        phases = _parse_phases(d.pop("phases", UNSET))

        def _parse_voltage(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        voltage = _parse_voltage(d.pop("voltage", UNSET))

        def _parse_not_charging_reason(data: object) -> EvChargerStateNotChargingReasonType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                not_charging_reason_type_0 = EvChargerStateNotChargingReasonType0(data)

                return not_charging_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EvChargerStateNotChargingReasonType0 | None | Unset, data)

        not_charging_reason = _parse_not_charging_reason(d.pop("notChargingReason", UNSET))

        def _parse_active_control_mode(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        active_control_mode = _parse_active_control_mode(d.pop("activeControlMode", UNSET))

        ev_charger_state = cls(
            status=status,
            is_connected=is_connected,
            is_charging=is_charging,
            current_power=current_power,
            max_current=max_current,
            power_rate_limit=power_rate_limit,
            session_energy=session_energy,
            phases=phases,
            voltage=voltage,
            not_charging_reason=not_charging_reason,
            active_control_mode=active_control_mode,
        )

        ev_charger_state.additional_properties = d
        return ev_charger_state

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
