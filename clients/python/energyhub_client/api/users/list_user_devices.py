from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_user_devices import EnvelopeUserDevices
from ...models.error_envelope import ErrorEnvelope
from ...models.list_user_devices_type_type_0_item import ListUserDevicesTypeType0Item
from ...types import UNSET, Response, Unset


def _get_kwargs(
    user_id_or_email: str,
    *,
    type_: list[ListUserDevicesTypeType0Item] | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_type_: list[str] | None | Unset
    if isinstance(type_, Unset):
        json_type_ = UNSET
    elif isinstance(type_, list):
        json_type_ = []
        for type_type_0_item_data in type_:
            type_type_0_item = type_type_0_item_data.value
            json_type_.append(type_type_0_item)

    else:
        json_type_ = type_
    params["type"] = json_type_

    params["offset"] = offset

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/users/{user_id_or_email}/devices".format(
            user_id_or_email=quote(str(user_id_or_email), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeUserDevices | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeUserDevices.from_dict(response.json())

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
) -> Response[EnvelopeUserDevices | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    user_id_or_email: str,
    *,
    client: AuthenticatedClient | Client,
    type_: list[ListUserDevicesTypeType0Item] | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> Response[EnvelopeUserDevices | ErrorEnvelope]:
    """List a user's devices

     A user's devices by user id or e-mail address; `type` may be repeated.

    Args:
        user_id_or_email (str):
        type_ (list[ListUserDevicesTypeType0Item] | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeUserDevices | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        user_id_or_email=user_id_or_email,
        type_=type_,
        offset=offset,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    user_id_or_email: str,
    *,
    client: AuthenticatedClient | Client,
    type_: list[ListUserDevicesTypeType0Item] | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> EnvelopeUserDevices | ErrorEnvelope | None:
    """List a user's devices

     A user's devices by user id or e-mail address; `type` may be repeated.

    Args:
        user_id_or_email (str):
        type_ (list[ListUserDevicesTypeType0Item] | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeUserDevices | ErrorEnvelope
    """

    return sync_detailed(
        user_id_or_email=user_id_or_email,
        client=client,
        type_=type_,
        offset=offset,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    user_id_or_email: str,
    *,
    client: AuthenticatedClient | Client,
    type_: list[ListUserDevicesTypeType0Item] | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> Response[EnvelopeUserDevices | ErrorEnvelope]:
    """List a user's devices

     A user's devices by user id or e-mail address; `type` may be repeated.

    Args:
        user_id_or_email (str):
        type_ (list[ListUserDevicesTypeType0Item] | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeUserDevices | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        user_id_or_email=user_id_or_email,
        type_=type_,
        offset=offset,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    user_id_or_email: str,
    *,
    client: AuthenticatedClient | Client,
    type_: list[ListUserDevicesTypeType0Item] | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> EnvelopeUserDevices | ErrorEnvelope | None:
    """List a user's devices

     A user's devices by user id or e-mail address; `type` may be repeated.

    Args:
        user_id_or_email (str):
        type_ (list[ListUserDevicesTypeType0Item] | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeUserDevices | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            user_id_or_email=user_id_or_email,
            client=client,
            type_=type_,
            offset=offset,
            limit=limit,
        )
    ).parsed
