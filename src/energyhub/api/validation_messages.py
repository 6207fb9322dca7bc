"""The one translation of the schema layer's refusals into the API's own voice: what is wrong
with a field and what to send instead, never a regular expression, a pydantic phrase or a
`Value error,` prefix. Pydantic names each failure by a stable `type`; the table below
gives each type its sentence, and a few fields whose form is a pattern say their form."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from pydantic_core import core_schema

PYDANTIC_TYPES = frozenset(get_args(core_schema.ErrorType))
"""pydantic's own error types; any other is one of our validators' (a custom error whose
message we wrote)."""

LOCAL_TIME = (
    "must be the device's local wall-clock time as YYYY-MM-DDTHH:MM:SS, with no offset and "
    "no Z: it is read in the device's timezone (its metadata.timezone)"
)
HTTP_URL = "must be an absolute http:// or https:// URL, such as https://example.com/webhooks"
QUANTITY = 'must be a quantity, an object with a value and a unit: {"value": 3, "unit": "kw"}'

PATTERN_FORMS: Mapping[str, str] = {
    "start": LOCAL_TIME,
    "end": LOCAL_TIME,
    "url": HTTP_URL,
    "redirectUri": HTTP_URL,
    "email": "must be an e-mail address, such as owner@example.com",
    "readyBy": "must be a wall-clock time as HH:MM, such as 07:00",
    "from": "must be a time of day as HH:MM, such as 01:00",
    "to": "must be a time of day as HH:MM (24:00 for the end of the day)",
    "time": "must be a time of day as HH:MM, such as 17:00",
}
QUANTITY_PARENTS = frozenset({"parameters", "settings"})
QUANTITY_FIELDS = frozenset(
    {"gridImportLimit", "gridPower", "energy", "target", "power", "value", "limit"}
)


def _ctx(error: Mapping[str, Any], key: str, default: str = "") -> str:
    return str(error.get("ctx", {}).get(key, default))


def _pattern(field: str, error: Mapping[str, Any]) -> str:
    return PATTERN_FORMS.get(field, "is not in the form this field takes: see it in /docs")


def _object(field: str, error: Mapping[str, Any], parent: str) -> str:
    if parent in QUANTITY_PARENTS or field in QUANTITY_FIELDS:
        return QUANTITY
    return "must be a JSON object ({...})"


def _value_error(field: str, error: Mapping[str, Any]) -> str:
    reason = _ctx(error, "error") or str(error.get("msg", ""))
    return reason.removeprefix("Value error, ")


Rule = Callable[[str, Mapping[str, Any]], str]
MESSAGES: Mapping[str, Rule] = {
    "missing": lambda f, e: "is required",
    "extra_forbidden": lambda f, e: (
        "is not a field of this request: remove it (check its spelling)"
    ),
    "string_type": lambda f, e: "must be a string (text in double quotes)",
    "int_type": lambda f, e: "must be a whole number",
    "int_parsing": lambda f, e: "must be a whole number",
    "int_from_float": lambda f, e: "must be a whole number",
    "float_type": lambda f, e: "must be a number",
    "float_parsing": lambda f, e: "must be a number",
    "finite_number": lambda f, e: "must be a finite number",
    "bool_type": lambda f, e: "must be true or false",
    "bool_parsing": lambda f, e: "must be true or false",
    "list_type": lambda f, e: "must be a list ([...])",
    "literal_error": lambda f, e: f"must be one of {_ctx(e, 'expected')}",
    "enum": lambda f, e: f"must be one of {_ctx(e, 'expected')}",
    "union_tag_not_found": lambda f, e: f"needs its `{_ctx(e, 'discriminator')}` field",
    "string_pattern_mismatch": _pattern,
    "string_too_short": lambda f, e: f"must be at least {_ctx(e, 'min_length')} characters",
    "string_too_long": lambda f, e: f"must be at most {_ctx(e, 'max_length')} characters",
    "too_short": lambda f, e: f"must have at least {_ctx(e, 'min_length')} items",
    "too_long": lambda f, e: f"must have at most {_ctx(e, 'max_length')} items",
    "greater_than": lambda f, e: f"must be more than {_ctx(e, 'gt')}",
    "greater_than_equal": lambda f, e: f"must be {_ctx(e, 'ge')} or more",
    "less_than": lambda f, e: f"must be less than {_ctx(e, 'lt')}",
    "less_than_equal": lambda f, e: f"must be {_ctx(e, 'le')} or less",
    "datetime_type": lambda f, e: (
        "must be a date and time in ISO 8601, such as 2026-12-01T06:00:00Z"
    ),
    "datetime_parsing": lambda f, e: (
        "must be a date and time in ISO 8601, such as 2026-12-01T06:00:00Z"
    ),
    "datetime_from_date_parsing": lambda f, e: (
        "must be a date and time in ISO 8601, such as 2026-12-01T06:00:00Z"
    ),
}


NEEDS: Mapping[str, str] = {
    "literal_error": "expected",
    "enum": "expected",
    "union_tag_invalid": "expected_tags",
    "string_too_short": "min_length",
    "string_too_long": "max_length",
    "too_short": "min_length",
    "too_long": "max_length",
    "greater_than": "gt",
    "greater_than_equal": "ge",
    "less_than": "lt",
    "less_than_equal": "le",
}
"""What a sentence needs from pydantic's context; an error of ours may reuse a type's name
(`enum`, say) with its own message and context, and keeps its message."""


def plain_message(error: Mapping[str, Any], loc: list[str]) -> str:
    """The sentence for one of pydantic's errors at `loc` (its path without the source)."""
    kind = str(error.get("type", ""))
    if kind in ("value_error", "assertion_error"):
        return _value_error("", error)  # our own validators' sentences, as written
    needed = NEEDS.get(kind)
    if kind not in PYDANTIC_TYPES or (needed and needed not in error.get("ctx", {})):
        return str(error.get("msg", ""))  # a custom error of ours, written in this voice
    if kind == "union_tag_invalid":  # the body's discriminator names what it is
        tag = _ctx(error, "discriminator").strip("'")
        return f"{tag} must be one of {_ctx(error, 'expected_tags')} (not {_ctx(error, 'tag')!r})"
    field = next((part for part in reversed(loc) if not part.isdigit()), "the body")
    parent = loc[-2] if len(loc) > 1 else ""
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        sentence = _object(field, error, parent)
    elif kind in MESSAGES:
        sentence = MESSAGES[kind](field, error)
    else:
        sentence = "is not valid here: see this field in /docs"
    return f"{field} {sentence}"
