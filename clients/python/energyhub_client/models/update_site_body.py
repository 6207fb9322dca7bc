from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.power_limit_in import PowerLimitIn
    from ..models.tariff_in import TariffIn


T = TypeVar("T", bound="UpdateSiteBody")


@_attrs_define
class UpdateSiteBody:
    """Only the fields sent change; null clears one.

    Attributes:
        timezone (None | str | Unset): IANA name; null: the timezone of the user's first device.
        grid_import_limit (None | PowerLimitIn | Unset): null: no limit.
        tariff (None | TariffIn | Unset): null: no tariff.
    """

    timezone: None | str | Unset = UNSET
    grid_import_limit: None | PowerLimitIn | Unset = UNSET
    tariff: None | TariffIn | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.power_limit_in import PowerLimitIn  # noqa: PLC0415
        from ..models.tariff_in import TariffIn  # noqa: PLC0415

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        grid_import_limit: dict[str, Any] | None | Unset
        if isinstance(self.grid_import_limit, Unset):
            grid_import_limit = UNSET
        elif isinstance(self.grid_import_limit, PowerLimitIn):
            grid_import_limit = self.grid_import_limit.to_dict()
        else:
            grid_import_limit = self.grid_import_limit

        tariff: dict[str, Any] | None | Unset
        if isinstance(self.tariff, Unset):
            tariff = UNSET
        elif isinstance(self.tariff, TariffIn):
            tariff = self.tariff.to_dict()
        else:
            tariff = self.tariff

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if grid_import_limit is not UNSET:
            field_dict["gridImportLimit"] = grid_import_limit
        if tariff is not UNSET:
            field_dict["tariff"] = tariff

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.power_limit_in import PowerLimitIn  # noqa: PLC0415
        from ..models.tariff_in import TariffIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        def _parse_grid_import_limit(data: object) -> None | PowerLimitIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                grid_import_limit_type_0 = PowerLimitIn.from_dict(data)

                return grid_import_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PowerLimitIn | Unset, data)

        grid_import_limit = _parse_grid_import_limit(d.pop("gridImportLimit", UNSET))

        def _parse_tariff(data: object) -> None | TariffIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tariff_type_0 = TariffIn.from_dict(data)

                return tariff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TariffIn | Unset, data)

        tariff = _parse_tariff(d.pop("tariff", UNSET))

        update_site_body = cls(
            timezone=timezone,
            grid_import_limit=grid_import_limit,
            tariff=tariff,
        )

        return update_site_body
