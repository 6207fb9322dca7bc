"""The gateway answers device list pages with a plain query (`limit`, `offset`) itself;
every other query goes on to the FastAPI route. Both must give the same answers, byte for
byte apart from the request's own meta and id."""

from __future__ import annotations

import re

import httpx
import pytest

from energyhub.api.gateway import list_query
from tests.support import Api, Caller

LEGACY = {"energyhub-version": "legacy"}


def _comparable(response: httpx.Response) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    own = {b"x-request-id", b"x-ratelimit-remaining", b"content-length"}  # meta differs
    headers = [(k, b"" if k.lower() in own else v) for k, v in response.headers.raw]
    body = re.sub(rb',"meta":\{.*\}\}$', b"}", response.content)
    return response.status_code, headers, body


async def _get(api: Api, caller: Caller, url: str, **headers: str) -> httpx.Response:
    return await api.client.get(url, headers={**caller.headers, **headers})


@pytest.mark.parametrize("version", [{}, LEGACY])
async def test_fast_and_route_pages_agree(api: Api, version: dict[str, str]) -> None:
    caller = await api.caller()
    for i in range(4):
        await api.sandbox_device(caller, user_id=f"u{i}")
    await api.sandbox_device(caller, "ev-charger")
    # `%6C` is `l`: the same query, which the gateway leaves to the route
    for fast, routed in [
        ("/battery", "/battery?offset=0"),
        ("/battery?limit=3&offset=1", "/battery?%6Cimit=3&offset=1"),
        ("/battery?offset=3&limit=050", "/battery?offset=3&%6Cimit=50"),
        ("/ev-charger?limit=50", "/ev-charger?%6Cimit=50"),
        ("/battery?offset=9", "/battery?%6Fffset=9"),
    ]:
        answers = [await _get(api, caller, url, **version) for url in (fast, routed)]
        assert answers[0].status_code == 200, answers[0].text
        assert _comparable(answers[0]) == _comparable(answers[1]), fast


async def test_other_queries_get_the_routes_answer(api: Api) -> None:
    caller = await api.caller()
    await api.sandbox_device(caller)
    for query, status in [
        ("limit=51", 400),
        ("limit=0", 400),
        ("limit=", 400),
        ("offset=1000001", 400),
        ("limit=x", 400),
        ("colour=red", 400),
        ("limit=5&limit=6", 400),
    ]:
        answer = await _get(api, caller, f"/battery?{query}")
        assert answer.status_code == status, (query, answer.text)
        assert answer.json()["success"] is (status == 200)


def test_only_plain_queries_are_taken() -> None:
    assert list_query(b"") == (0, 10)
    assert list_query(b"limit=50") == (0, 50)
    assert list_query(b"offset=1000000&limit=1") == (1_000_000, 1)
    assert list_query(b"limit=007") == (0, 7)
    for query in [
        b"limit=51",
        b"limit=0",
        b"offset=1000001",
        b"offset=99999999999",
        b"limit=5&limit=6",
        b"limit=",
        b"limit",
        b"limit=+5",
        b"limit=5&",
        b"userId=u1",
        b"%6Cimit=5",
    ]:
        assert list_query(query) is None, query
