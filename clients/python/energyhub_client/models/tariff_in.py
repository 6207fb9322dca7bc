from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dynamic_prices_in import DynamicPricesIn
    from ..models.time_of_use_in import TimeOfUseIn


T = TypeVar("T", bound="TariffIn")


@_attrs_define
class TariffIn:
    """
    Attributes:
        currency (str): ISO 4217 code
        import_ (DynamicPricesIn | TimeOfUseIn):
        export (DynamicPricesIn | None | TimeOfUseIn | Unset): No export tariff: export earns 0.
    """

    currency: str
    import_: DynamicPricesIn | TimeOfUseIn
    export: DynamicPricesIn | None | TimeOfUseIn | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.dynamic_prices_in import DynamicPricesIn  # noqa: PLC0415
        from ..models.time_of_use_in import TimeOfUseIn  # noqa: PLC0415

        currency = self.currency

        import_: dict[str, Any]
        if isinstance(self.import_, TimeOfUseIn):
            import_ = self.import_.to_dict()
        else:
            import_ = self.import_.to_dict()

        export: dict[str, Any] | None | Unset
        if isinstance(self.export, Unset):
            export = UNSET
        elif isinstance(self.export, TimeOfUseIn):
            export = self.export.to_dict()
        elif isinstance(self.export, DynamicPricesIn):
            export = self.export.to_dict()
        else:
            export = self.export

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "currency": currency,
                "import": import_,
            }
        )
        if export is not UNSET:
            field_dict["export"] = export

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dynamic_prices_in import DynamicPricesIn  # noqa: PLC0415
        from ..models.time_of_use_in import TimeOfUseIn  # noqa: PLC0415

        d = dict(src_dict)
        currency = d.pop("currency")

        def _parse_import_(data: object) -> DynamicPricesIn | TimeOfUseIn:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                import_type_0 = TimeOfUseIn.from_dict(data)

                return import_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            import_type_1 = DynamicPricesIn.from_dict(data)

            return import_type_1

        import_ = _parse_import_(d.pop("import"))

        def _parse_export(data: object) -> DynamicPricesIn | None | TimeOfUseIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                export_type_0 = TimeOfUseIn.from_dict(data)

                return export_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                export_type_1 = DynamicPricesIn.from_dict(data)

                return export_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DynamicPricesIn | None | TimeOfUseIn | Unset, data)

        export = _parse_export(d.pop("export", UNSET))

        tariff_in = cls(
            currency=currency,
            import_=import_,
            export=export,
        )

        return tariff_in
