from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sandbox_failure_errorcode import SandboxFailureErrorcode

T = TypeVar("T", bound="SandboxFailure")


@_attrs_define
class SandboxFailure:
    """
    Attributes:
        result (Literal['failed']):
        error_code (SandboxFailureErrorcode): The device error to simulate.
    """

    result: Literal["failed"]
    error_code: SandboxFailureErrorcode

    def to_dict(self) -> dict[str, Any]:
        result = self.result

        error_code = self.error_code.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "result": result,
                "errorCode": error_code,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        result = cast(Literal["failed"], d.pop("result"))
        if result != "failed":
            raise ValueError(f"result must match const 'failed', got '{result}'")

        error_code = SandboxFailureErrorcode(d.pop("errorCode"))

        sandbox_failure = cls(
            result=result,
            error_code=error_code,
        )

        return sandbox_failure
