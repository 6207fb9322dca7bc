from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.push_body_on_conflict_type_0 import PushBodyOnConflictType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.push_command import PushCommand
    from ..models.sandbox_failure import SandboxFailure


T = TypeVar("T", bound="PushBody")


@_attrs_define
class PushBody:
    """
    Attributes:
        action (PushCommand):
        start (None | str | Unset): Plant-local wall clock YYYY-MM-DDTHH:MM:SS (no offset).
        end (None | str | Unset): Plant-local end of a window; without start the window starts now.
        on_conflict (None | PushBodyOnConflictType0 | Unset):
        sandbox (None | SandboxFailure | Unset): Sandbox only: make the push fail with this code.
    """

    action: PushCommand
    start: None | str | Unset = UNSET
    end: None | str | Unset = UNSET
    on_conflict: None | PushBodyOnConflictType0 | Unset = UNSET
    sandbox: None | SandboxFailure | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.sandbox_failure import SandboxFailure  # noqa: PLC0415

        action = self.action.to_dict()

        start: None | str | Unset
        if isinstance(self.start, Unset):
            start = UNSET
        else:
            start = self.start

        end: None | str | Unset
        if isinstance(self.end, Unset):
            end = UNSET
        else:
            end = self.end

        on_conflict: None | str | Unset
        if isinstance(self.on_conflict, Unset):
            on_conflict = UNSET
        elif isinstance(self.on_conflict, PushBodyOnConflictType0):
            on_conflict = self.on_conflict.value
        else:
            on_conflict = self.on_conflict

        sandbox: dict[str, Any] | None | Unset
        if isinstance(self.sandbox, Unset):
            sandbox = UNSET
        elif isinstance(self.sandbox, SandboxFailure):
            sandbox = self.sandbox.to_dict()
        else:
            sandbox = self.sandbox

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "action": action,
            }
        )
        if start is not UNSET:
            field_dict["start"] = start
        if end is not UNSET:
            field_dict["end"] = end
        if on_conflict is not UNSET:
            field_dict["onConflict"] = on_conflict
        if sandbox is not UNSET:
            field_dict["sandbox"] = sandbox

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.push_command import PushCommand  # noqa: PLC0415
        from ..models.sandbox_failure import SandboxFailure  # noqa: PLC0415

        d = dict(src_dict)
        action = PushCommand.from_dict(d.pop("action"))

        def _parse_start(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        start = _parse_start(d.pop("start", UNSET))

        def _parse_end(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        end = _parse_end(d.pop("end", UNSET))

        def _parse_on_conflict(data: object) -> None | PushBodyOnConflictType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                on_conflict_type_0 = PushBodyOnConflictType0(data)

                return on_conflict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PushBodyOnConflictType0 | Unset, data)

        on_conflict = _parse_on_conflict(d.pop("onConflict", UNSET))

        def _parse_sandbox(data: object) -> None | SandboxFailure | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sandbox_type_0 = SandboxFailure.from_dict(data)

                return sandbox_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SandboxFailure | Unset, data)

        sandbox = _parse_sandbox(d.pop("sandbox", UNSET))

        push_body = cls(
            action=action,
            start=start,
            end=end,
            on_conflict=on_conflict,
            sandbox=sandbox,
        )

        return push_body
