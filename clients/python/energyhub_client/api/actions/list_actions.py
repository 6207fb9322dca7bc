from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_page_action_record import EnvelopePageActionRecord
from ...models.error_envelope import ErrorEnvelope
from ...models.list_actions_state_type_0 import ListActionsStateType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    device_id: None | str | Unset = UNSET,
    state: ListActionsStateType0 | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_device_id: None | str | Unset
    if isinstance(device_id, Unset):
        json_device_id = UNSET
    else:
        json_device_id = device_id
    params["deviceId"] = json_device_id

    json_state: None | str | Unset
    if isinstance(state, Unset):
        json_state = UNSET
    elif isinstance(state, ListActionsStateType0):
        json_state = state.value
    else:
        json_state = state
    params["state"] = json_state

    params["offset"] = offset

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/actions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopePageActionRecord | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopePageActionRecord.from_dict(response.json())

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
) -> Response[EnvelopePageActionRecord | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    device_id: None | str | Unset = UNSET,
    state: ListActionsStateType0 | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> Response[EnvelopePageActionRecord | ErrorEnvelope]:
    """List actions

     Actions, newest first, optionally of one device or in one state.

    Args:
        device_id (None | str | Unset):
        state (ListActionsStateType0 | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopePageActionRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        state=state,
        offset=offset,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    device_id: None | str | Unset = UNSET,
    state: ListActionsStateType0 | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> EnvelopePageActionRecord | ErrorEnvelope | None:
    """List actions

     Actions, newest first, optionally of one device or in one state.

    Args:
        device_id (None | str | Unset):
        state (ListActionsStateType0 | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopePageActionRecord | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        device_id=device_id,
        state=state,
        offset=offset,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    device_id: None | str | Unset = UNSET,
    state: ListActionsStateType0 | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> Response[EnvelopePageActionRecord | ErrorEnvelope]:
    """List actions

     Actions, newest first, optionally of one device or in one state.

    Args:
        device_id (None | str | Unset):
        state (ListActionsStateType0 | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopePageActionRecord | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        device_id=device_id,
        state=state,
        offset=offset,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    device_id: None | str | Unset = UNSET,
    state: ListActionsStateType0 | None | Unset = UNSET,
    offset: int | Unset = 0,
    limit: int | Unset = 10,
) -> EnvelopePageActionRecord | ErrorEnvelope | None:
    """List actions

     Actions, newest first, optionally of one device or in one state.

    Args:
        device_id (None | str | Unset):
        state (ListActionsStateType0 | None | Unset):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopePageActionRecord | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            device_id=device_id,
            state=state,
            offset=offset,
            limit=limit,
        )
    ).parsed
