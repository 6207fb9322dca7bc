"""The error catalogue: every code a client can meet, with its HTTP status.

Each error class carries a stable `code`, a `status` and a default message that tells the
client what to do next; instances add `details`. Routes raise these, never HTTP types.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ApiError(Exception):
    """Base of every error that reaches a client in the failure envelope."""

    code: ClassVar[str] = "INTERNAL_ERROR"
    status: ClassVar[int] = 500
    default_message: ClassVar[str] = "An unexpected error occurred; retry later or contact support."

    def __init__(self, message: str | None = None, **details: Any) -> None:
        self.message = message or self.default_message
        self.details: dict[str, Any] = details
        super().__init__(self.message)


# --- authentication and access -------------------------------------------------------------
class Unauthorized(ApiError):
    code, status = "UNAUTHORIZED", 401
    default_message = "Missing or invalid API key: send a valid key in the x-api-key header."


class ExpiredToken(ApiError):
    code, status = "EXPIRED_TOKEN", 401
    default_message = "This API key was revoked or has expired: create a new key."

    def __init__(self, message: str | None = None, *, key_version: str | None = None) -> None:
        super().__init__(message)
        self.key_version = key_version  # the key's pinned API version, to answer in


class SandboxOnly(ApiError):
    code, status = "SANDBOX_ONLY", 403
    default_message = "This feature exists only in the sandbox: use an sk_test_ key."


class LiveOnly(ApiError):
    code, status = "LIVE_ONLY", 403
    default_message = "This exists only in the live environment: use an sk_live_ key."


class RateLimited(ApiError):
    code, status = "RATE_LIMITED", 429
    default_message = "Too many requests for this API key: wait for Retry-After seconds."


# --- request shape and routing -------------------------------------------------------------
class UnsupportedVersion(ApiError):
    code, status = "UNSUPPORTED_VERSION", 400
    default_message = (
        "Unknown API version in the energyhub-version header: send one of "
        "details.supportedVersions, or no header to use the key's version."
    )


class InvalidRequest(ApiError):
    code, status = "INVALID_REQUEST", 400
    default_message = "The request is malformed: see details.errors for what to fix."


class NotFound(ApiError):
    code, status = "NOT_FOUND", 404
    default_message = "No such route: check the path against /docs."


class MethodNotAllowed(ApiError):
    code, status = "METHOD_NOT_ALLOWED", 405
    default_message = "This route does not accept that method: see the Allow header."


class PayloadTooLarge(ApiError):
    code, status = "PAYLOAD_TOO_LARGE", 413
    default_message = "The request body is over 64 KiB: send a smaller body."


class UnsupportedMediaType(ApiError):
    code, status = "UNSUPPORTED_MEDIA_TYPE", 415
    default_message = (
        "The body must be JSON: send it with the header content-type: application/json "
        "(UTF-8; no other charset)."
    )


class InternalError(ApiError):
    code, status = "INTERNAL_ERROR", 500


class NotImplementedYet(ApiError):
    code, status = "NOT_IMPLEMENTED", 501
    default_message = "This route is not enabled on this server."


class NotYetAvailable(ApiError):
    code, status = "NOT_YET_AVAILABLE", 503
    default_message = "This route is not enabled for live yet; the sandbox serves it fully."


# --- missing resources ----------------------------------------------------------------------
class DeviceNotFound(ApiError):
    code, status = "DEVICE_NOT_FOUND", 404
    default_message = "No device with this id is visible to this API key."

    def __init__(self, device_id: str, message: str | None = None, **details: Any) -> None:
        super().__init__(
            message,
            description=f"Device {device_id!r} does not exist or is not linked to this account "
            "in this environment.",
            **details,
        )


class ActionNotFound(ApiError):
    code, status = "ACTION_NOT_FOUND", 404
    default_message = "No action with this id is visible to this API key."


class UserNotFound(ApiError):
    code, status = "USER_NOT_FOUND", 404
    default_message = "No user with this id or e-mail address in this environment."


class ScheduleNotFound(ApiError):
    code, status = "SCHEDULE_NOT_FOUND", 404
    default_message = "This device has no schedule: PUT one first."


class EndpointNotFound(ApiError):
    code, status = "ENDPOINT_NOT_FOUND", 404
    default_message = "No webhook endpoint with this id in this environment."


class DeliveryNotFound(ApiError):
    code, status = "DELIVERY_NOT_FOUND", 404
    default_message = "No webhook delivery with this id in this environment."


class LinkedAccountNotFound(ApiError):
    code, status = "LINKED_ACCOUNT_NOT_FOUND", 404
    default_message = "This user has no linked account with this id in this environment."


# --- the hosted link flow (shown as pages to end users, spec 1.6) ----------------------------
class LinkTokenInvalid(ApiError):
    code, status = "LINK_TOKEN_INVALID", 404
    default_message = "This link is not valid. Ask the app that sent you here for a new link."


class LinkTokenExpired(ApiError):
    code, status = "LINK_TOKEN_EXPIRED", 410
    default_message = "This link has expired. Ask the app that sent you here for a new link."


class LinkTokenUsed(ApiError):
    code, status = "LINK_TOKEN_USED", 410
    default_message = (
        "This link has already been used. Ask the app that sent you here for a new link."
    )


class LinkStepOutdated(ApiError):
    code, status = "LINK_STEP_OUTDATED", 409
    default_message = (
        "That page was out of date (sent twice, or from another tab): here is where you are now."
    )


class LinkRequestRefused(ApiError):
    code, status = "LINK_REQUEST_REFUSED", 403
    default_message = "This form can only be sent from the page that shows it."


# --- capability refusals (422) --------------------------------------------------------------
class UnsupportedMode(ApiError):
    code, status = "UNSUPPORTED_MODE", 422
    default_message = "The device does not support this command: see details.supportedModes."


class ExecutionNotSupported(ApiError):
    code, status = "EXECUTION_NOT_SUPPORTED", 422
    default_message = (
        "The command cannot run in this shape (immediate, scheduled or windowed): "
        "see details.supportedExecution."
    )


class UnsupportedParameter(ApiError):
    code, status = "UNSUPPORTED_PARAMETER", 422
    default_message = "The command does not take this parameter: see details.supportedParameters."


class UnsupportedParameterCombination(ApiError):
    code, status = "UNSUPPORTED_PARAMETER_COMBINATION", 422
    default_message = "These parameters cannot be sent together: send only one of them."


class UnsupportedUnit(ApiError):
    code, status = "UNSUPPORTED_UNIT", 422
    default_message = "Wrong unit for this value: see details.expectedUnit."


class ParameterOutOfRange(ApiError):
    code, status = "PARAMETER_OUT_OF_RANGE", 422
    default_message = "The value is outside the device's bounds: see details.min and details.max."


class UnsupportedConflictStrategy(ApiError):
    code, status = "UNSUPPORTED_CONFLICT_STRATEGY", 422
    default_message = (
        "The device does not accept this onConflict strategy: see details.supportedStrategies."
    )


class StartOutOfRange(ApiError):
    code, status = "START_OUT_OF_RANGE", 422
    default_message = "start must lie between 60 s ago and 30 days ahead, in plant-local time."


class WindowTooLong(ApiError):
    code, status = "WINDOW_TOO_LONG", 422
    default_message = (
        "A window lasts at most 7 days (P7D, as a schedule slot): send an end at most 7 days "
        "after start, or push again when the window ends."
    )


class UnsupportedSetting(ApiError):
    code, status = "UNSUPPORTED_SETTING", 422
    default_message = "The device has no such setting: see details.availableSettings."


class UnsupportedSettingCombination(ApiError):
    code, status = "UNSUPPORTED_SETTING_COMBINATION", 422
    default_message = "These settings are one ceiling in two units: write only one of them."


class ReadOnlySetting(ApiError):
    code, status = "READ_ONLY_SETTING", 422
    default_message = "This setting is managed by the platform and cannot be written."


class SessionsNotSupported(ApiError):
    code, status = "SESSIONS_NOT_SUPPORTED", 422
    default_message = "This charger does not report session history (sessions: false)."


class WebhookUrlNotPublic(ApiError):
    code, status = "WEBHOOK_URL_NOT_PUBLIC", 422
    default_message = (
        "This webhook endpoint may not reach the address in its URL: use a public host name "
        "or address."
    )


class DeviceNotCapable(ApiError):
    """The older variant's code for the capability refusals above (API version `legacy`,
    `domain/versions.py`); 1.0 answers with the precise codes."""

    code, status = "DEVICE_NOT_CAPABLE", 422
    default_message = "The device cannot do this."


class EndpointLimitReached(ApiError):
    code, status = "ENDPOINT_LIMIT_REACHED", 422
    default_message = (
        "This environment has as many webhook endpoints as allowed: delete one you no longer "
        "use, or let one endpoint receive more event types, before adding another."
    )


# --- conflicts and device locks --------------------------------------------------------------
class ActionConflict(ApiError):
    code, status = "ACTION_CONFLICT", 409
    default_message = (
        "Another action occupies this device at that time: resend with an onConflict strategy "
        "from details.supportedStrategies, or pick another time."
    )


class ConflictInExecution(ApiError):
    code, status = "CONFLICT_IN_EXECUTION", 409
    default_message = "The conflicting action is being executed now: wait and re-submit."


class ActionNotCancellable(ApiError):
    code, status = "ACTION_NOT_CANCELLABLE", 409
    default_message = "Only a scheduled or deferred action can be cancelled."


class SchedulerActive(ApiError):
    code, status = "SCHEDULER_ACTIVE", 409
    default_message = (
        "The device runs its own program (auto.schedule): resend with "
        "onConflict: cancel_and_replace to take over."
    )


class TariffNotDynamic(ApiError):
    code, status = "TARIFF_NOT_DYNAMIC", 409
    default_message = (
        "The site has no dynamic tariff to add prices to: first set one with PUT "
        "/users/{userId}/site and a tariff {currency, import: {prices: [...]}}."
    )


class VppLocked(ApiError):
    code, status = "VPP_LOCKED", 423
    default_message = "The device is locked by a virtual power plant: retry after details.until."


# --- failures at the device or manufacturer (502 on an immediate push) ----------------------
class DeviceFailure(ApiError):
    """The device or its manufacturer refused or failed a command."""

    status = 502
    retryable: ClassVar[bool] = False


class DeviceOffline(DeviceFailure):
    code = "DEVICE_OFFLINE"
    default_message = "The device is not reachable now: retry later."
    retryable = True


class DeviceBusy(DeviceFailure):
    code = "DEVICE_BUSY"
    default_message = "The device is busy with another command: retry later."
    retryable = True


class ManufacturerRateLimited(DeviceFailure):
    code = "MANUFACTURER_RATE_LIMITED"
    default_message = "The manufacturer's API limited our requests: retry later."
    retryable = True


class ManufacturerUnavailable(DeviceFailure):
    code = "MANUFACTURER_UNAVAILABLE"
    default_message = "The manufacturer's service did not answer: retry later."
    retryable = True


class DeviceRejected(DeviceFailure):
    code = "DEVICE_REJECTED"
    default_message = "The device refused the command."


class DeviceTimeout(DeviceFailure):
    code = "DEVICE_TIMEOUT"
    default_message = "The device did not confirm the command in time."
    retryable = True


class CredentialsInvalid(DeviceFailure):
    code = "CREDENTIALS_INVALID"
    default_message = "The manufacturer no longer accepts the user's credentials: relink."


def all_error_classes() -> list[type[ApiError]]:
    """Every concrete error class, for the catalogue in the docs and the OpenAPI document."""
    found: list[type[ApiError]] = []
    stack: list[type[ApiError]] = [ApiError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "code" in cls.__dict__ or cls is ApiError:
            found.append(cls)
    return sorted(found, key=lambda c: (c.status, c.code))


def device_failure_for(code: str) -> type[DeviceFailure] | None:
    """The device failure class for a code (the `sandbox` block names one)."""
    for cls in all_error_classes():
        if issubclass(cls, DeviceFailure) and cls.code == code:
            return cls
    return None
