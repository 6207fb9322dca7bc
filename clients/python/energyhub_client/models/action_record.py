from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_record_on_conflict_type_0 import ActionRecordOnConflictType0
from ..models.action_record_state import ActionRecordState
from ..models.action_record_type import ActionRecordType

if TYPE_CHECKING:
    from ..models.action_record_parameters import ActionRecordParameters
    from ..models.action_record_result_type_0 import ActionRecordResultType0
    from ..models.links import Links


T = TypeVar("T", bound="ActionRecord")


@_attrs_define
class ActionRecord:
    """
    Attributes:
        id (str):
        device_id (str):
        type_ (ActionRecordType):
        state (ActionRecordState):
        command (str):
        parameters (ActionRecordParameters):
        start (str):
        end (None | str):
        on_conflict (ActionRecordOnConflictType0 | None):
        result (ActionRecordResultType0 | None):
        created_at (str):
        updated_at (str):
        deferred_until (None | str):
        error_code (None | str):
        error_message (None | str):
        acknowledged_at (None | str):
        completed_at (None | str):
        links (Links):
    """

    id: str
    device_id: str
    type_: ActionRecordType
    state: ActionRecordState
    command: str
    parameters: ActionRecordParameters
    start: str
    end: None | str
    on_conflict: ActionRecordOnConflictType0 | None
    result: ActionRecordResultType0 | None
    created_at: str
    updated_at: str
    deferred_until: None | str
    error_code: None | str
    error_message: None | str
    acknowledged_at: None | str
    completed_at: None | str
    links: Links
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.action_record_result_type_0 import ActionRecordResultType0  # noqa: PLC0415

        id = self.id

        device_id = self.device_id

        type_ = self.type_.value

        state = self.state.value

        command = self.command

        parameters = self.parameters.to_dict()

        start = self.start

        end: None | str
        end = self.end

        on_conflict: None | str
        if isinstance(self.on_conflict, ActionRecordOnConflictType0):
            on_conflict = self.on_conflict.value
        else:
            on_conflict = self.on_conflict

        result: dict[str, Any] | None
        if isinstance(self.result, ActionRecordResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        created_at = self.created_at

        updated_at = self.updated_at

        deferred_until: None | str
        deferred_until = self.deferred_until

        error_code: None | str
        error_code = self.error_code

        error_message: None | str
        error_message = self.error_message

        acknowledged_at: None | str
        acknowledged_at = self.acknowledged_at

        completed_at: None | str
        completed_at = self.completed_at

        links = self.links.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deviceId": device_id,
                "type": type_,
                "state": state,
                "command": command,
                "parameters": parameters,
                "start": start,
                "end": end,
                "onConflict": on_conflict,
                "result": result,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "deferredUntil": deferred_until,
                "errorCode": error_code,
                "errorMessage": error_message,
                "acknowledgedAt": acknowledged_at,
                "completedAt": completed_at,
                "links": links,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_record_parameters import ActionRecordParameters  # noqa: PLC0415
        from ..models.action_record_result_type_0 import ActionRecordResultType0  # noqa: PLC0415
        from ..models.links import Links  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        device_id = d.pop("deviceId")

        type_ = ActionRecordType(d.pop("type"))

        state = ActionRecordState(d.pop("state"))

        command = d.pop("command")

        parameters = ActionRecordParameters.from_dict(d.pop("parameters"))

        start = d.pop("start")

        def _parse_end(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        end = _parse_end(d.pop("end"))

        def _parse_on_conflict(data: object) -> ActionRecordOnConflictType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                on_conflict_type_0 = ActionRecordOnConflictType0(data)

                return on_conflict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionRecordOnConflictType0 | None, data)

        on_conflict = _parse_on_conflict(d.pop("onConflict"))

        def _parse_result(data: object) -> ActionRecordResultType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = ActionRecordResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionRecordResultType0 | None, data)

        result = _parse_result(d.pop("result"))

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        def _parse_deferred_until(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        deferred_until = _parse_deferred_until(d.pop("deferredUntil"))

        def _parse_error_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_code = _parse_error_code(d.pop("errorCode"))

        def _parse_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_message = _parse_error_message(d.pop("errorMessage"))

        def _parse_acknowledged_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        acknowledged_at = _parse_acknowledged_at(d.pop("acknowledgedAt"))

        def _parse_completed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        completed_at = _parse_completed_at(d.pop("completedAt"))

        links = Links.from_dict(d.pop("links"))

        action_record = cls(
            id=id,
            device_id=device_id,
            type_=type_,
            state=state,
            command=command,
            parameters=parameters,
            start=start,
            end=end,
            on_conflict=on_conflict,
            result=result,
            created_at=created_at,
            updated_at=updated_at,
            deferred_until=deferred_until,
            error_code=error_code,
            error_message=error_message,
            acknowledged_at=acknowledged_at,
            completed_at=completed_at,
            links=links,
        )

        action_record.additional_properties = d
        return action_record

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
