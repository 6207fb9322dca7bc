from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.at_schedule_body import AtScheduleBody
from ...models.envelope_schedule_record import EnvelopeScheduleRecord
from ...models.error_envelope import ErrorEnvelope
from ...models.time_schedule_body import TimeScheduleBody
from ...types import Response


def _get_kwargs(
    device_id: str,
    *,
    body: AtScheduleBody | TimeScheduleBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/ev-charger/{device_id}/schedule".format(
            device_id=quote(str(device_id), safe=""),
        ),
    }

    if isinstance(body, AtScheduleBody):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeScheduleRecord | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeScheduleRecord.from_dict(response.json())

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

    if response.status_code == 501:
        response_501 = ErrorEnvelope.from_dict(response.json())

        return response_501

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EnvelopeScheduleRecord | ErrorEnvelope]:
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
    body: AtScheduleBody | TimeScheduleBody,
) -> Response[EnvelopeScheduleRecord | ErrorEnvelope]:
    """Set an EV charger's recurring schedule

     Set the charger's recurring schedule; the same rules as for batteries.

    Args:
        device_id (str):
        body (AtScheduleBody | TimeScheduleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeScheduleRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AtScheduleBody | TimeScheduleBody,
) -> EnvelopeScheduleRecord | ErrorEnvelope | None:
    """Set an EV charger's recurring schedule

     Set the charger's recurring schedule; the same rules as for batteries.

    Args:
        device_id (str):
        body (AtScheduleBody | TimeScheduleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeScheduleRecord | ErrorEnvelope
    """

    return sync_detailed(
        device_id=device_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AtScheduleBody | TimeScheduleBody,
) -> Response[EnvelopeScheduleRecord | ErrorEnvelope]:
    """Set an EV charger's recurring schedule

     Set the charger's recurring schedule; the same rules as for batteries.

    Args:
        device_id (str):
        body (AtScheduleBody | TimeScheduleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeScheduleRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    device_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AtScheduleBody | TimeScheduleBody,
) -> EnvelopeScheduleRecord | ErrorEnvelope | None:
    """Set an EV charger's recurring schedule

     Set the charger's recurring schedule; the same rules as for batteries.

    Args:
        device_id (str):
        body (AtScheduleBody | TimeScheduleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeScheduleRecord | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            device_id=device_id,
            client=client,
            body=body,
        )
    ).parsed
