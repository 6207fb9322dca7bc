from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.price_period_in import PricePeriodIn


T = TypeVar("T", bound="AddSitePricesBody")


@_attrs_define
class AddSitePricesBody:
    """Periods merged into the dynamic tariff: one replaces a stored one of the same start.

    Attributes:
        import_ (list[PricePeriodIn] | Unset):
        export (list[PricePeriodIn] | Unset):
    """

    import_: list[PricePeriodIn] | Unset = UNSET
    export: list[PricePeriodIn] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        import_: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.import_, Unset):
            import_ = []
            for import_item_data in self.import_:
                import_item = import_item_data.to_dict()
                import_.append(import_item)

        export: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.export, Unset):
            export = []
            for export_item_data in self.export:
                export_item = export_item_data.to_dict()
                export.append(export_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if import_ is not UNSET:
            field_dict["import"] = import_
        if export is not UNSET:
            field_dict["export"] = export

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.price_period_in import PricePeriodIn  # noqa: PLC0415

        d = dict(src_dict)
        _import_ = d.pop("import", UNSET)
        import_: list[PricePeriodIn] | Unset = UNSET
        if _import_ is not UNSET:
            import_ = []
            for import_item_data in _import_:
                import_item = PricePeriodIn.from_dict(import_item_data)

                import_.append(import_item)

        _export = d.pop("export", UNSET)
        export: list[PricePeriodIn] | Unset = UNSET
        if _export is not UNSET:
            export = []
            for export_item_data in _export:
                export_item = PricePeriodIn.from_dict(export_item_data)

                export.append(export_item)

        add_site_prices_body = cls(
            import_=import_,
            export=export,
        )

        return add_site_prices_body
