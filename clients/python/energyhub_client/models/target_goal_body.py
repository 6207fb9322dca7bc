from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.percent_in import PercentIn


T = TypeVar("T", bound="TargetGoalBody")


@_attrs_define
class TargetGoalBody:
    """Only on chargers whose `charge` command declares `target` (else 422).

    Attributes:
        ready_by (str):
        target (PercentIn):
    """

    ready_by: str
    target: PercentIn

    def to_dict(self) -> dict[str, Any]:
        ready_by = self.ready_by

        target = self.target.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "readyBy": ready_by,
                "target": target,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.percent_in import PercentIn  # noqa: PLC0415

        d = dict(src_dict)
        ready_by = d.pop("readyBy")

        target = PercentIn.from_dict(d.pop("target"))

        target_goal_body = cls(
            ready_by=ready_by,
            target=target,
        )

        return target_goal_body
