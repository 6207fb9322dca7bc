from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.power_out import PowerOut
    from ..models.reading import Reading
    from ..models.tariff_in import TariffIn


T = TypeVar("T", bound="SiteRecord")


@_attrs_define
class SiteRecord:
    """
    Attributes:
        user_id (str):
        timezone (None | str):
        grid_import_limit (None | PowerOut):
        tariff (None | TariffIn):
        last_reading (None | Reading):
        updated_at (None | str): null until the site is first set.
    """

    user_id: str
    timezone: None | str
    grid_import_limit: None | PowerOut
    tariff: None | TariffIn
    last_reading: None | Reading
    updated_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.power_out import PowerOut  # noqa: PLC0415
        from ..models.reading import Reading  # noqa: PLC0415
        from ..models.tariff_in import TariffIn  # noqa: PLC0415

        user_id = self.user_id

        timezone: None | str
        timezone = self.timezone

        grid_import_limit: dict[str, Any] | None
        if isinstance(self.grid_import_limit, PowerOut):
            grid_import_limit = self.grid_import_limit.to_dict()
        else:
            grid_import_limit = self.grid_import_limit

        tariff: dict[str, Any] | None
        if isinstance(self.tariff, TariffIn):
            tariff = self.tariff.to_dict()
        else:
            tariff = self.tariff

        last_reading: dict[str, Any] | None
        if isinstance(self.last_reading, Reading):
            last_reading = self.last_reading.to_dict()
        else:
            last_reading = self.last_reading

        updated_at: None | str
        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "userId": user_id,
                "timezone": timezone,
                "gridImportLimit": grid_import_limit,
                "tariff": tariff,
                "lastReading": last_reading,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.power_out import PowerOut  # noqa: PLC0415
        from ..models.reading import Reading  # noqa: PLC0415
        from ..models.tariff_in import TariffIn  # noqa: PLC0415

        d = dict(src_dict)
        user_id = d.pop("userId")

        def _parse_timezone(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        timezone = _parse_timezone(d.pop("timezone"))

        def _parse_grid_import_limit(data: object) -> None | PowerOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                grid_import_limit_type_0 = PowerOut.from_dict(data)

                return grid_import_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PowerOut, data)

        grid_import_limit = _parse_grid_import_limit(d.pop("gridImportLimit"))

        def _parse_tariff(data: object) -> None | TariffIn:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tariff_type_0 = TariffIn.from_dict(data)

                return tariff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TariffIn, data)

        tariff = _parse_tariff(d.pop("tariff"))

        def _parse_last_reading(data: object) -> None | Reading:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_reading_type_0 = Reading.from_dict(data)

                return last_reading_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Reading, data)

        last_reading = _parse_last_reading(d.pop("lastReading"))

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        site_record = cls(
            user_id=user_id,
            timezone=timezone,
            grid_import_limit=grid_import_limit,
            tariff=tariff,
            last_reading=last_reading,
            updated_at=updated_at,
        )

        site_record.additional_properties = d
        return site_record

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
