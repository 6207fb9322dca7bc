"""Replaying a guide's curl examples through the test client: each `curl` of its ```sh
blocks, with its method, headers and body, the `$NAME` variables filled in."""

from __future__ import annotations

import re
import shlex

import httpx


def curl_commands(text: str) -> list[list[str]]:
    """Each `curl` command of the text's sh blocks, continuation lines joined."""
    commands: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for word in shlex.split(block.replace("\\\n", " "), comments=True):
            if word == "curl":
                commands.append([])
            if commands:
                commands[-1].append(word)
    return [c for c in commands if c]


async def replay(
    client: httpx.AsyncClient, argv: list[str], variables: dict[str, str]
) -> httpx.Response:
    method, headers, body, url = "GET", {}, None, ""
    words = iter(argv[1:])
    for word in words:
        if word == "-X":
            method = next(words)
        elif word == "-H":
            name, _, value = next(words).partition(": ")
            headers[name] = value
        elif word == "-d":
            body = next(words)
            method = "POST" if method == "GET" else method
        elif word.startswith("$API/"):
            url = word
    for name, value in variables.items():
        url = url.replace(name, value)
    headers = {k: _fill(v, variables) for k, v in headers.items()}
    return await client.request(method, url, content=body, headers=headers)


def _fill(text: str, variables: dict[str, str]) -> str:
    for name, value in variables.items():
        text = text.replace(name, value)
    return text
