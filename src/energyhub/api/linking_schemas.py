"""Pydantic models of the linking routes (CONTRACT 8), for request validation and the
OpenAPI document; responses are serialised by hand in `api/routes/linking.py`."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from energyhub.api.schemas import EMAIL_PATTERN
from energyhub.domain.linking import MAX_REDIRECT_URI, URI_SPACE_OR_CONTROL, check_redirect_uri
from energyhub.domain.vendors import VENDORS

# absolute http(s), no user name or password, no #fragment (the outcome goes in the query),
# no spaces or control characters (one class for the schema and the check alike)
REDIRECT_URI_PATTERN = (
    rf"^https?://[A-Za-z0-9.\-]+(:[0-9]{{1,5}})?([/?][^{URI_SPACE_OR_CONTROL}#]*)?$"
)
_REDIRECT_URI = re.compile(REDIRECT_URI_PATTERN)


def _redirect_uri(value: str) -> str:
    """The pattern, checked with a message that says what is wrong (pydantic's would quote
    the pattern): the domain's reason first, then the shape of the host."""
    why = check_redirect_uri(value)
    if why is None and not _REDIRECT_URI.search(value):
        why = "must be http(s)://host[:port]/path?query with a host of letters, digits, . and -"
    if why is not None:
        raise PydanticCustomError("redirect_uri", "redirectUri {why}", {"why": why})
    return value


RedirectUri = Annotated[
    str,
    AfterValidator(_redirect_uri),
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_REDIRECT_URI,
            "pattern": REDIRECT_URI_PATTERN,
        }
    ),
]


class LinkSessionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    userId: str = Field(min_length=1, max_length=200, description="Your id of the end user.")
    email: str | None = Field(default=None, max_length=320, pattern=EMAIL_PATTERN)
    redirectUri: RedirectUri | None = Field(
        default=None,
        description="Where the flow sends the user when it ends, with the outcome added to "
        "the query: `status=success&linkedAccountId=...`, `status=revoked&linkedAccountId="
        "...`, or `status=error&error=user_cancelled|consent_denied|link_expired`.",
    )
    vendor: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="Start the flow at this vendor's sign-in; omit to let the user choose. "
        "Sandbox keys link the `sandbox-*` vendors, live keys `ocpp` and `sunspec` "
        "(403 `SANDBOX_ONLY` / `LIVE_ONLY` otherwise).",
        json_schema_extra={"enum": [v.id for v in VENDORS]},
    )


class LinkSession(BaseModel):
    linkUrl: str = Field(description="Send the end user here: the hosted Link UI.")
    linkToken: str = Field(description="Single use; shown once.")
    expiresAt: str


class LinkedAccount(BaseModel):
    id: str
    userId: str
    vendor: str
    vendorName: str
    deviceType: Literal["battery", "ev-charger"] | None
    status: Literal["active", "revoked"]
    createdAt: str
    revokedAt: str | None
    deviceIds: list[str]


class LinkedAccounts(BaseModel):
    items: list[LinkedAccount]
