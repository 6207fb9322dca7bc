from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_webhook_endpoint_with_secret import EnvelopeWebhookEndpointWithSecret
from ...models.error_envelope import ErrorEnvelope
from ...models.rotate_secret import RotateSecret
from ...types import UNSET, Response, Unset


def _get_kwargs(
    endpoint_id: str,
    *,
    body: None | RotateSecret | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/webhooks/endpoints/{endpoint_id}/rotate-secret".format(
            endpoint_id=quote(str(endpoint_id), safe=""),
        ),
    }

    if isinstance(body, RotateSecret):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeWebhookEndpointWithSecret | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeWebhookEndpointWithSecret.from_dict(response.json())

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
) -> Response[EnvelopeWebhookEndpointWithSecret | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    endpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: None | RotateSecret | Unset = UNSET,
) -> Response[EnvelopeWebhookEndpointWithSecret | ErrorEnvelope]:
    """Rotate a webhook endpoint's signing secret

     Replace the signing secret: every attempt from now on, retries included, is signed
    with the new one, which the answer carries. For 24 hours the old secret signs too
    (`webhook-signature: v1,<new> v1,<old>`), unless `expireOldNow` is true.

    Args:
        endpoint_id (str):
        body (None | RotateSecret | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeWebhookEndpointWithSecret | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    endpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: None | RotateSecret | Unset = UNSET,
) -> EnvelopeWebhookEndpointWithSecret | ErrorEnvelope | None:
    """Rotate a webhook endpoint's signing secret

     Replace the signing secret: every attempt from now on, retries included, is signed
    with the new one, which the answer carries. For 24 hours the old secret signs too
    (`webhook-signature: v1,<new> v1,<old>`), unless `expireOldNow` is true.

    Args:
        endpoint_id (str):
        body (None | RotateSecret | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeWebhookEndpointWithSecret | ErrorEnvelope
    """

    return sync_detailed(
        endpoint_id=endpoint_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    endpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: None | RotateSecret | Unset = UNSET,
) -> Response[EnvelopeWebhookEndpointWithSecret | ErrorEnvelope]:
    """Rotate a webhook endpoint's signing secret

     Replace the signing secret: every attempt from now on, retries included, is signed
    with the new one, which the answer carries. For 24 hours the old secret signs too
    (`webhook-signature: v1,<new> v1,<old>`), unless `expireOldNow` is true.

    Args:
        endpoint_id (str):
        body (None | RotateSecret | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeWebhookEndpointWithSecret | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    endpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: None | RotateSecret | Unset = UNSET,
) -> EnvelopeWebhookEndpointWithSecret | ErrorEnvelope | None:
    """Rotate a webhook endpoint's signing secret

     Replace the signing secret: every attempt from now on, retries included, is signed
    with the new one, which the answer carries. For 24 hours the old secret signs too
    (`webhook-signature: v1,<new> v1,<old>`), unless `expireOldNow` is true.

    Args:
        endpoint_id (str):
        body (None | RotateSecret | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeWebhookEndpointWithSecret | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            endpoint_id=endpoint_id,
            client=client,
            body=body,
        )
    ).parsed
