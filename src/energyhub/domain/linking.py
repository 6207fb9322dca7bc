"""Linking (spec 1.6, CONTRACT 8): link sessions and linked accounts, the steps of the
hosted flow and the rules each step applies (codes, picks, redirect URIs, outcomes). Pure:
no I/O. The vendors are in `vendors.py`; the use cases in `services/linking.py` and
`services/link_flow.py`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.vendors import OfferedDevice

LINK_SESSION_TTL = timedelta(hours=24)
MFA_CODE_TTL = timedelta(minutes=5)
MFA_MAX_ATTEMPTS = 3
LINK_TOKEN_PREFIX = "lt_"
MAX_REDIRECT_URI = 2048
# what a redirect URI may not contain, as a regex character class body that Python and the
# JSON Schema (ECMA) regexes read alike: the C0 and C1 control characters, DEL, the space and
# every Unicode space either dialect's \s knows (Python's takes U+001C-U+001F, ECMA's the BOM)
URI_SPACE_OR_CONTROL = (
    r"\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SPACE_OR_CONTROL = re.compile(f"[{URI_SPACE_OR_CONTROL}]")
LINKABLE_TYPES = (DeviceType.BATTERY, DeviceType.EV_CHARGER)


def hash_token(token: str) -> str:
    """Link tokens are random with 230+ bits: a plain SHA-256 is a safe lookup hash."""
    return hashlib.sha256(token.encode()).hexdigest()


# --- the flow --------------------------------------------------------------------------------
class LinkStep(StrEnum):
    DEVICE_TYPE = "device_type"
    VENDOR = "vendor"
    CREDENTIALS = "credentials"
    MFA = "mfa"
    DEVICES = "devices"
    CONSENT = "consent"
    REVOKE = "revoke"  # confirming the removal of a linked account
    DONE = "done"
    CANCELLED = "cancelled"
    REVOKED = "revoked"

    @property
    def terminal(self) -> bool:
        return self in (LinkStep.DONE, LinkStep.CANCELLED, LinkStep.REVOKED)


# Where "Back" leads from each step.
BACK: dict[LinkStep, LinkStep] = {
    LinkStep.VENDOR: LinkStep.DEVICE_TYPE,
    LinkStep.CREDENTIALS: LinkStep.VENDOR,
    LinkStep.MFA: LinkStep.CREDENTIALS,
    LinkStep.DEVICES: LinkStep.CREDENTIALS,
    LinkStep.CONSENT: LinkStep.DEVICES,
    LinkStep.REVOKE: LinkStep.DEVICE_TYPE,
}

# The numbered stages a user sees ("Step 3 of 5"); MFA is part of signing in.
STAGES: tuple[tuple[LinkStep, ...], ...] = (
    (LinkStep.DEVICE_TYPE,),
    (LinkStep.VENDOR,),
    (LinkStep.CREDENTIALS, LinkStep.MFA),
    (LinkStep.DEVICES,),
    (LinkStep.CONSENT,),
)


def progress(step: LinkStep, vendor_preset: bool) -> tuple[int, int] | None:
    """(stage number, stage count) of a step, or None off the numbered path."""
    stages = STAGES[2:] if vendor_preset else STAGES
    for number, steps in enumerate(stages, start=1):
        if step in steps:
            return number, len(stages)
    return None


def first_step(vendor_preset: bool) -> LinkStep:
    return LinkStep.CREDENTIALS if vendor_preset else LinkStep.DEVICE_TYPE


def back_from(step: LinkStep, vendor_preset: bool) -> LinkStep | None:
    """Where Back leads; None where there is nothing before (a preset vendor's sign-in)."""
    if vendor_preset and step is LinkStep.CREDENTIALS:
        return None
    return BACK.get(step)


class Outcome(StrEnum):
    """How a flow ended, as the customer's `redirectUri` hears it."""

    SUCCESS = "success"
    REVOKED = "revoked"
    USER_CANCELLED = "user_cancelled"
    CONSENT_DENIED = "consent_denied"
    LINK_EXPIRED = "link_expired"
    LINK_USED = "link_used"

    def query(self, linked_account_id: str | None) -> dict[str, str]:
        if self in (Outcome.SUCCESS, Outcome.REVOKED):
            params = {"status": self.value}
            if linked_account_id is not None:
                params["linkedAccountId"] = linked_account_id
            return params
        return {"status": "error", "error": self.value}


def check_redirect_uri(uri: str) -> str | None:
    """Why a redirect URI is refused, or None when it is usable: absolute http(s), no
    credentials or fragment (we add our outcome to its query)."""
    if len(uri) > MAX_REDIRECT_URI:
        return f"must be at most {MAX_REDIRECT_URI} characters"
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an absolute http:// or https:// URL"
    if parts.username or parts.password:
        return "may not carry a user name or password"
    if parts.fragment:
        return "may not have a #fragment"
    if _SPACE_OR_CONTROL.search(uri):
        return "may not contain spaces or control characters"
    return None


def outcome_url(redirect_uri: str, outcome: Outcome, linked_account_id: str | None) -> str:
    """The customer's redirect URI with the outcome added to its query."""
    parts = urlsplit(redirect_uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query.extend(outcome.query(linked_account_id).items())
    return urlunsplit(parts._replace(query=urlencode(query)))


@dataclass(frozen=True, slots=True)
class FlowState:
    """What the flow has gathered so far (stored as JSON on the session). The credentials
    themselves are stored encrypted beside it, never here."""

    device_type: DeviceType | None = None
    vendor: str | None = None
    identity: str | None = None
    public_values: dict[str, str] = field(default_factory=dict)
    mfa_destination: str | None = None
    mfa_issued_at: datetime | None = None
    mfa_attempts: int = 0
    offered: tuple[OfferedDevice, ...] = ()
    selected: tuple[str, ...] = ()
    revoke_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "deviceType": None if self.device_type is None else self.device_type.value,
            "vendor": self.vendor,
            "identity": self.identity,
            "publicValues": dict(self.public_values),
            "mfaDestination": self.mfa_destination,
            "mfaIssuedAt": None if self.mfa_issued_at is None else self.mfa_issued_at.isoformat(),
            "mfaAttempts": self.mfa_attempts,
            "offered": [d.to_json() for d in self.offered],
            "selected": list(self.selected),
            "revokeId": self.revoke_id,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> FlowState:
        if not data:
            return cls()
        issued = data.get("mfaIssuedAt")
        return cls(
            device_type=None if data.get("deviceType") is None else DeviceType(data["deviceType"]),
            vendor=data.get("vendor"),
            identity=data.get("identity"),
            public_values=dict(data.get("publicValues") or {}),
            mfa_destination=data.get("mfaDestination"),
            mfa_issued_at=None if issued is None else datetime.fromisoformat(issued),
            mfa_attempts=int(data.get("mfaAttempts") or 0),
            offered=tuple(OfferedDevice.from_json(d) for d in data.get("offered") or ()),
            selected=tuple(data.get("selected") or ()),
            revoke_id=data.get("revokeId"),
        )

    def signed_out(self) -> FlowState:
        """Back before signing in: forget the account and what it offered."""
        return replace(
            self,
            identity=None,
            mfa_destination=None,
            mfa_issued_at=None,
            mfa_attempts=0,
            offered=(),
            selected=(),
        )

    def picked(self) -> list[OfferedDevice]:
        return [d for d in self.offered if d.vendor_device_id in self.selected]


class CodeCheck(StrEnum):
    ACCEPTED = "accepted"
    WRONG = "wrong"
    EXPIRED = "expired"  # a new code was sent
    EXHAUSTED = "exhausted"  # too many wrong codes: sign in again


def check_code(state: FlowState, now: datetime, code_matches: bool) -> CodeCheck:
    """The MFA rule: a code lasts MFA_CODE_TTL; MFA_MAX_ATTEMPTS wrong codes end the sign-in."""
    if state.mfa_issued_at is None or now - state.mfa_issued_at > MFA_CODE_TTL:
        return CodeCheck.EXPIRED
    if code_matches:
        return CodeCheck.ACCEPTED
    if state.mfa_attempts + 1 >= MFA_MAX_ATTEMPTS:
        return CodeCheck.EXHAUSTED
    return CodeCheck.WRONG


CODE_PATTERN = re.compile(r"^\d{6}$")


def choose_devices(state: FlowState, chosen: Sequence[str]) -> tuple[str, ...] | None:
    """The picked devices' ids in the order offered, or None when none (or an unknown one)
    was picked."""
    offered = [d.vendor_device_id for d in state.offered]
    if not chosen or any(c not in offered for c in chosen):
        return None
    return tuple(i for i in offered if i in chosen)


# --- sessions and linked accounts ------------------------------------------------------------
class SessionStatus(StrEnum):
    OPEN = "open"
    EXPIRED = "expired"
    USED = "used"


@dataclass(frozen=True, slots=True)
class LinkSession:
    """A single-use invitation to link, bound to one account, environment and user. The
    token is never stored, only its hash; `nonce` changes at every step (CSRF and replay)."""

    id: str
    account_id: str
    environment: Environment
    user_id: str
    email: str | None
    redirect_uri: str | None
    vendor: str | None  # preset by the customer: the flow starts at signing in
    step: LinkStep
    state: FlowState
    nonce: str
    created_at: datetime
    expires_at: datetime
    updated_at: datetime
    used_at: datetime | None = None
    outcome: Outcome | None = None
    linked_account_id: str | None = None
    pending_credentials: str | None = None  # encrypted, between sign-in and consent

    def status_at(self, now: datetime) -> SessionStatus:
        if self.used_at is not None or self.step.terminal:
            return SessionStatus.USED
        if now >= self.expires_at:
            return SessionStatus.EXPIRED
        return SessionStatus.OPEN


class LinkedAccountStatus(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"


@dataclass(frozen=True, slots=True)
class LinkedAccount:
    """An end user's authenticated session with a vendor, holding one or more devices.
    `credentials` is a MultiFernet token (None once revoked)."""

    id: str
    account_id: str
    environment: Environment
    user_id: str
    vendor: str
    external_id: str
    credentials: str | None
    status: LinkedAccountStatus
    redirect_uri: str | None
    created_at: datetime
    updated_at: datetime
    revoked_at: datetime | None = None
