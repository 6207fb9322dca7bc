from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.charging_session_end_reason_type_0 import ChargingSessionEndReasonType0
from ..models.charging_session_measurement import ChargingSessionMeasurement
from ..models.charging_session_status import ChargingSessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quantity_out import QuantityOut
    from ..models.session_cost import SessionCost


T = TypeVar("T", bound="ChargingSession")


@_attrs_define
class ChargingSession:
    """`endedAt` and `endReason` are absent while active (and `endReason` when
    the charger gave none).

        Attributes:
            id (str):
            status (ChargingSessionStatus):
            started_at (str):
            energy_delivered (QuantityOut):
            measurement (ChargingSessionMeasurement):
            ended_at (None | str | Unset):
            end_reason (ChargingSessionEndReasonType0 | None | Unset):
            cost (None | SessionCost | Unset): What the session cost while a charging strategy ran: grid energy at the
                import price in force, surplus energy at the export price (what exporting it would have earned). null when no
                strategy ran, or the site has no tariff.
            energy_from_surplus (None | QuantityOut | Unset): The part of the energy charged while a strategy ran that came
                from the site's surplus; null when no strategy ran.
    """

    id: str
    status: ChargingSessionStatus
    started_at: str
    energy_delivered: QuantityOut
    measurement: ChargingSessionMeasurement
    ended_at: None | str | Unset = UNSET
    end_reason: ChargingSessionEndReasonType0 | None | Unset = UNSET
    cost: None | SessionCost | Unset = UNSET
    energy_from_surplus: None | QuantityOut | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.quantity_out import QuantityOut  # noqa: PLC0415
        from ..models.session_cost import SessionCost  # noqa: PLC0415

        id = self.id

        status = self.status.value

        started_at = self.started_at

        energy_delivered = self.energy_delivered.to_dict()

        measurement = self.measurement.value

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        else:
            ended_at = self.ended_at

        end_reason: None | str | Unset
        if isinstance(self.end_reason, Unset):
            end_reason = UNSET
        elif isinstance(self.end_reason, ChargingSessionEndReasonType0):
            end_reason = self.end_reason.value
        else:
            end_reason = self.end_reason

        cost: dict[str, Any] | None | Unset
        if isinstance(self.cost, Unset):
            cost = UNSET
        elif isinstance(self.cost, SessionCost):
            cost = self.cost.to_dict()
        else:
            cost = self.cost

        energy_from_surplus: dict[str, Any] | None | Unset
        if isinstance(self.energy_from_surplus, Unset):
            energy_from_surplus = UNSET
        elif isinstance(self.energy_from_surplus, QuantityOut):
            energy_from_surplus = self.energy_from_surplus.to_dict()
        else:
            energy_from_surplus = self.energy_from_surplus

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "startedAt": started_at,
                "energyDelivered": energy_delivered,
                "measurement": measurement,
            }
        )
        if ended_at is not UNSET:
            field_dict["endedAt"] = ended_at
        if end_reason is not UNSET:
            field_dict["endReason"] = end_reason
        if cost is not UNSET:
            field_dict["cost"] = cost
        if energy_from_surplus is not UNSET:
            field_dict["energyFromSurplus"] = energy_from_surplus

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quantity_out import QuantityOut  # noqa: PLC0415
        from ..models.session_cost import SessionCost  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        status = ChargingSessionStatus(d.pop("status"))

        started_at = d.pop("startedAt")

        energy_delivered = QuantityOut.from_dict(d.pop("energyDelivered"))

        measurement = ChargingSessionMeasurement(d.pop("measurement"))

        def _parse_ended_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ended_at = _parse_ended_at(d.pop("endedAt", UNSET))

        def _parse_end_reason(data: object) -> ChargingSessionEndReasonType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                end_reason_type_0 = ChargingSessionEndReasonType0(data)

                return end_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChargingSessionEndReasonType0 | None | Unset, data)

        end_reason = _parse_end_reason(d.pop("endReason", UNSET))

        def _parse_cost(data: object) -> None | SessionCost | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cost_type_0 = SessionCost.from_dict(data)

                return cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionCost | Unset, data)

        cost = _parse_cost(d.pop("cost", UNSET))

        def _parse_energy_from_surplus(data: object) -> None | QuantityOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                energy_from_surplus_type_0 = QuantityOut.from_dict(data)

                return energy_from_surplus_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuantityOut | Unset, data)

        energy_from_surplus = _parse_energy_from_surplus(d.pop("energyFromSurplus", UNSET))

        charging_session = cls(
            id=id,
            status=status,
            started_at=started_at,
            energy_delivered=energy_delivered,
            measurement=measurement,
            ended_at=ended_at,
            end_reason=end_reason,
            cost=cost,
            energy_from_surplus=energy_from_surplus,
        )

        charging_session.additional_properties = d
        return charging_session

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
