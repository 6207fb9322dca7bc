from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_action_record import EnvelopeActionRecord
from ...models.error_envelope import ErrorEnvelope
from ...models.push_body import PushBody
from ...types import Response


def _get_kwargs(
    device_id: str,
    *,
    body: PushBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/battery/{device_id}".format(
            device_id=quote(str(device_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeActionRecord | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeActionRecord.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = EnvelopeActionRecord.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 405:
        response_405 = ErrorEnvelope.from_dict(response.json())

        return response_405

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

    if response.status_code == 423:
        response_423 = ErrorEnvelope.from_dict(response.json())

        return response_423

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ErrorEnvelope.from_dict(response.json())

        return response_502

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EnvelopeActionRecord | ErrorEnvelope]:
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
    body: PushBody,
) -> Response[EnvelopeActionRecord | ErrorEnvelope]:
    """Send a command to a battery

     Send a command now (200, `acknowledged`), at `start` (202, `scheduled`) or for a window
    `start`-`end`; times are plant-local. Conflicts follow `onConflict`.

    Args:
        device_id (str):
        body (PushBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeActionRecord | ErrorEnvelope]
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
    body: PushBody,
) -> EnvelopeActionRecord | ErrorEnvelope | None:
    """Send a command to a battery

     Send a command now (200, `acknowledged`), at `start` (202, `scheduled`) or for a window
    `start`-`end`; times are plant-local. Conflicts follow `onConflict`.

    Args:
        device_id (str):
        body (PushBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeActionRecord | ErrorEnvelope
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
    body: PushBody,
) -> Response[EnvelopeActionRecord | ErrorEnvelope]:
    """Send a command to a battery

     Send a command now (200, `acknowledged`), at `start` (202, `scheduled`) or for a window
    `start`-`end`; times are plant-local. Conflicts follow `onConflict`.

    Args:
        device_id (str):
        body (PushBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeActionRecord | ErrorEnvelope]
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
    body: PushBody,
) -> EnvelopeActionRecord | ErrorEnvelope | None:
    """Send a command to a battery

     Send a command now (200, `acknowledged`), at `start` (202, `scheduled`) or for a window
    `start`-`end`; times are plant-local. Conflicts follow `onConflict`.

    Args:
        device_id (str):
        body (PushBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeActionRecord | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            device_id=device_id,
            client=client,
            body=body,
        )
    ).parsed
