import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_sessions_page import EnvelopeSessionsPage
from ...models.error_envelope import ErrorEnvelope
from ...models.list_charging_sessions_status_type_0 import ListChargingSessionsStatusType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    device_id: str,
    *,
    from_: datetime.datetime | None | Unset = UNSET,
    to: datetime.datetime | None | Unset = UNSET,
    status: ListChargingSessionsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_from_: None | str | Unset
    if isinstance(from_, Unset):
        json_from_ = UNSET
    elif isinstance(from_, datetime.datetime):
        json_from_ = from_.isoformat()
    else:
        json_from_ = from_
    params["from"] = json_from_

    json_to: None | str | Unset
    if isinstance(to, Unset):
        json_to = UNSET
    elif isinstance(to, datetime.datetime):
        json_to = to.isoformat()
    else:
        json_to = to
    params["to"] = json_to

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListChargingSessionsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/ev-charger/{device_id}/sessions".format(
            device_id=quote(str(device_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeSessionsPage | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeSessionsPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 405:
        response_405 = ErrorEnvelope.from_dict(response.json())

        return response_405

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EnvelopeSessionsPage | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.datetime | None | Unset = UNSET,
    to: datetime.datetime | None | Unset = UNSET,
    status: ListChargingSessionsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
) -> Response[EnvelopeSessionsPage | ErrorEnvelope]:
    """List an EV charger's charging sessions

     Sessions overlapping the window, newest first. Page on with the echoed `window.to`
    as `to`, so a session starting meanwhile does not shift rows. A charger without
    session history answers 422 SESSIONS_NOT_SUPPORTED.

    Args:
        device_id (str):
        from_ (datetime.datetime | None | Unset): ISO 8601 UTC; default: 30 days before `to`.
        to (datetime.datetime | None | Unset): ISO 8601 UTC; default: now. Send the echoed
            `window.to` on later pages.
        status (ListChargingSessionsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 10.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSessionsPage | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        from_=from_,
        to=to,
        status=status,
        limit=limit,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.datetime | None | Unset = UNSET,
    to: datetime.datetime | None | Unset = UNSET,
    status: ListChargingSessionsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
) -> EnvelopeSessionsPage | ErrorEnvelope | None:
    """List an EV charger's charging sessions

     Sessions overlapping the window, newest first. Page on with the echoed `window.to`
    as `to`, so a session starting meanwhile does not shift rows. A charger without
    session history answers 422 SESSIONS_NOT_SUPPORTED.

    Args:
        device_id (str):
        from_ (datetime.datetime | None | Unset): ISO 8601 UTC; default: 30 days before `to`.
        to (datetime.datetime | None | Unset): ISO 8601 UTC; default: now. Send the echoed
            `window.to` on later pages.
        status (ListChargingSessionsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 10.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSessionsPage | ErrorEnvelope
    """

    return sync_detailed(
        device_id=device_id,
        client=client,
        from_=from_,
        to=to,
        status=status,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.datetime | None | Unset = UNSET,
    to: datetime.datetime | None | Unset = UNSET,
    status: ListChargingSessionsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
) -> Response[EnvelopeSessionsPage | ErrorEnvelope]:
    """List an EV charger's charging sessions

     Sessions overlapping the window, newest first. Page on with the echoed `window.to`
    as `to`, so a session starting meanwhile does not shift rows. A charger without
    session history answers 422 SESSIONS_NOT_SUPPORTED.

    Args:
        device_id (str):
        from_ (datetime.datetime | None | Unset): ISO 8601 UTC; default: 30 days before `to`.
        to (datetime.datetime | None | Unset): ISO 8601 UTC; default: now. Send the echoed
            `window.to` on later pages.
        status (ListChargingSessionsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 10.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSessionsPage | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        from_=from_,
        to=to,
        status=status,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.datetime | None | Unset = UNSET,
    to: datetime.datetime | None | Unset = UNSET,
    status: ListChargingSessionsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
) -> EnvelopeSessionsPage | ErrorEnvelope | None:
    """List an EV charger's charging sessions

     Sessions overlapping the window, newest first. Page on with the echoed `window.to`
    as `to`, so a session starting meanwhile does not shift rows. A charger without
    session history answers 422 SESSIONS_NOT_SUPPORTED.

    Args:
        device_id (str):
        from_ (datetime.datetime | None | Unset): ISO 8601 UTC; default: 30 days before `to`.
        to (datetime.datetime | None | Unset): ISO 8601 UTC; default: now. Send the echoed
            `window.to` on later pages.
        status (ListChargingSessionsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 10.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSessionsPage | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            device_id=device_id,
            client=client,
            from_=from_,
            to=to,
            status=status,
            limit=limit,
            offset=offset,
        )
    ).parsed
