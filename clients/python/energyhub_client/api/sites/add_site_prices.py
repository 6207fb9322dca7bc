from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.add_site_prices_body import AddSitePricesBody
from ...models.envelope_site_record import EnvelopeSiteRecord
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    user_id: str,
    *,
    body: AddSitePricesBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/users/{user_id}/site/prices".format(
            user_id=quote(str(user_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeSiteRecord | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeSiteRecord.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[EnvelopeSiteRecord | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    user_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AddSitePricesBody,
) -> Response[EnvelopeSiteRecord | ErrorEnvelope]:
    """Add dynamic price periods to a site's tariff

     Add dynamic price periods to the site's tariff: a period replaces a stored one of
    the same start. 409 TARIFF_NOT_DYNAMIC when the site has no dynamic tariff for it.

    Args:
        user_id (str):
        body (AddSitePricesBody): Periods merged into the dynamic tariff: one replaces a stored
            one of the same start.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSiteRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    user_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AddSitePricesBody,
) -> EnvelopeSiteRecord | ErrorEnvelope | None:
    """Add dynamic price periods to a site's tariff

     Add dynamic price periods to the site's tariff: a period replaces a stored one of
    the same start. 409 TARIFF_NOT_DYNAMIC when the site has no dynamic tariff for it.

    Args:
        user_id (str):
        body (AddSitePricesBody): Periods merged into the dynamic tariff: one replaces a stored
            one of the same start.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSiteRecord | ErrorEnvelope
    """

    return sync_detailed(
        user_id=user_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    user_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AddSitePricesBody,
) -> Response[EnvelopeSiteRecord | ErrorEnvelope]:
    """Add dynamic price periods to a site's tariff

     Add dynamic price periods to the site's tariff: a period replaces a stored one of
    the same start. 409 TARIFF_NOT_DYNAMIC when the site has no dynamic tariff for it.

    Args:
        user_id (str):
        body (AddSitePricesBody): Periods merged into the dynamic tariff: one replaces a stored
            one of the same start.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSiteRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    user_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AddSitePricesBody,
) -> EnvelopeSiteRecord | ErrorEnvelope | None:
    """Add dynamic price periods to a site's tariff

     Add dynamic price periods to the site's tariff: a period replaces a stored one of
    the same start. 409 TARIFF_NOT_DYNAMIC when the site has no dynamic tariff for it.

    Args:
        user_id (str):
        body (AddSitePricesBody): Periods merged into the dynamic tariff: one replaces a stored
            one of the same start.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSiteRecord | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            user_id=user_id,
            client=client,
            body=body,
        )
    ).parsed
