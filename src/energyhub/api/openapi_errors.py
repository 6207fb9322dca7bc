"""The error codes each operation can answer, as the OpenAPI document lists them: the codes
any request can meet, then each operation's own (by operation id). The document groups
them by HTTP status, each with its message and an example envelope."""

from __future__ import annotations

from typing import Any

from energyhub.domain import errors as e
from energyhub.domain.errors import ApiError, DeviceFailure, all_error_classes

COMMON: tuple[type[ApiError], ...] = (
    e.InvalidRequest,
    e.UnsupportedVersion,
    e.Unauthorized,
    e.ExpiredToken,
    e.NotFound,
    e.MethodNotAllowed,
    e.PayloadTooLarge,
    e.UnsupportedMediaType,
    e.RateLimited,
    e.InternalError,
)
"""Any request can meet these: a malformed request, a bad key, an unknown path or method,
a body too large or not JSON, too many requests, a failure of the service."""

DEVICE_FAILURES = tuple(
    cls for cls in all_error_classes() if issubclass(cls, DeviceFailure) and cls.code
)
PUSH = (
    e.DeviceNotFound,
    e.SandboxOnly,
    e.ActionConflict,
    e.ConflictInExecution,
    e.SchedulerActive,
    e.UnsupportedMode,
    e.ExecutionNotSupported,
    e.UnsupportedParameter,
    e.UnsupportedParameterCombination,
    e.UnsupportedUnit,
    e.ParameterOutOfRange,
    e.UnsupportedConflictStrategy,
    e.StartOutOfRange,
    e.WindowTooLong,
    e.VppLocked,
    *DEVICE_FAILURES,
)
SETTINGS = (
    e.DeviceNotFound,
    e.UnsupportedSetting,
    e.ReadOnlySetting,
    e.UnsupportedSettingCombination,
    e.UnsupportedUnit,
    e.ParameterOutOfRange,
    *DEVICE_FAILURES,
)
CANCEL = (e.ActionNotFound, e.ActionNotCancellable)
SCHEDULE_PUT = (
    e.DeviceNotFound,
    e.UnsupportedMode,
    e.ExecutionNotSupported,
    e.UnsupportedParameter,
    e.UnsupportedParameterCombination,
    e.UnsupportedUnit,
    e.ParameterOutOfRange,
    e.StartOutOfRange,
    e.NotImplementedYet,
)
SCHEDULE_READ = (e.DeviceNotFound, e.ScheduleNotFound, e.NotImplementedYet)
SANDBOX_DEVICE = (e.SandboxOnly, e.DeviceNotFound)

OPERATION_ERRORS: dict[str, tuple[type[ApiError], ...]] = {
    "getBattery": (e.DeviceNotFound,),
    "listBatteries": (),
    "getEvCharger": (e.DeviceNotFound,),
    "listEvChargers": (),
    "getVehicle": (e.DeviceNotFound,),
    "pushBatteryCommand": PUSH,
    "pushEvChargerCommand": PUSH,
    "writeBatterySettings": SETTINGS,
    "writeEvChargerSettings": SETTINGS,
    "getAction": (e.ActionNotFound,),
    "listActions": (),
    "cancelAction": CANCEL,
    "cancelBatteryAction": CANCEL,
    "cancelEvChargerAction": CANCEL,
    "listUserDevices": (e.UserNotFound,),
    "createSandboxDevice": (e.SandboxOnly,),
    "simulateSandboxDevice": (*SANDBOX_DEVICE, e.UnsupportedParameter, e.ParameterOutOfRange),
    "lockSandboxDevice": SANDBOX_DEVICE,
    "disconnectSandboxDevice": SANDBOX_DEVICE,
    "reconnectSandboxDevice": SANDBOX_DEVICE,
    "createWebhookEndpoint": (e.EndpointLimitReached, e.WebhookUrlNotPublic),
    "listWebhookEndpoints": (),
    "getWebhookEndpoint": (e.EndpointNotFound,),
    "deleteWebhookEndpoint": (e.EndpointNotFound,),
    "rotateWebhookSecret": (e.EndpointNotFound,),
    "sendWebhookTestEvent": (e.EndpointNotFound,),
    "listWebhookDeliveries": (),
    "getWebhookDelivery": (e.DeliveryNotFound,),
    "resendWebhookDelivery": (e.DeliveryNotFound, e.EndpointNotFound),
    "createLinkSession": (e.SandboxOnly, e.LiveOnly, e.NotYetAvailable),
    "listLinkedAccounts": (e.UserNotFound,),
    "revokeLinkedAccount": (e.UserNotFound, e.LinkedAccountNotFound),
    "listChargingSessions": (e.DeviceNotFound, e.SessionsNotSupported),
    "getSite": (e.UserNotFound,),
    "updateSite": (e.UserNotFound,),
    "addSitePrices": (e.UserNotFound, e.TariffNotDynamic),
    "addSiteReadings": (e.UserNotFound,),
    "setChargingGoal": (e.DeviceNotFound, e.UnsupportedParameter),
    "deleteChargingGoal": (e.DeviceNotFound,),
    "getChargingPlan": (e.DeviceNotFound,),
    "setBatterySchedule": SCHEDULE_PUT,
    "getBatterySchedule": SCHEDULE_READ,
    "deleteBatterySchedule": SCHEDULE_READ,
    "setEvChargerSchedule": SCHEDULE_PUT,
    "getEvChargerSchedule": SCHEDULE_READ,
    "deleteEvChargerSchedule": SCHEDULE_READ,
}


def error_example(error: type[ApiError]) -> dict[str, Any]:
    """An example envelope of `error`, with its default message."""
    return {
        "summary": error.code,
        "value": {
            "success": False,
            "error": {"code": error.code, "message": error.default_message, "details": {}},
            "meta": {
                "requestId": "req_5f0c2a9e41b70000000001",
                "timestamp": "2026-11-20T12:00:00.000Z",
                "path": "/battery/8cffe0a2-5b1e-4c55-9d7f-3f1e2a4b6c8d",
                "latencyMs": 1.8,
            },
        },
    }
