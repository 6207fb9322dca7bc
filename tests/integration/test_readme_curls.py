"""README.md's curl examples, as an integrator runs them: against a real `energyhub serve` on
an empty database, every sh block that holds a curl runs in order in one bash session
(`set -euo pipefail`, so a variable the README does not set fails it), then the curls written
inline in the text; each curl answers what the README says, and none a 5xx."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.processes import free_port, start_service

README_ENDPOINT = "https://example.com/energyhub"

pytestmark = pytest.mark.slow

README = Path(__file__).parents[2] / "README.md"

# sh blocks without a curl, left out: each starts processes or runs the CLI on a database of
# its own, or is not a command (first line -> why)
SKIPPED = {
    "scripts/serve": "installs into .venv and runs the service: this test starts it itself",
    "energyhub accounts create": "CLI commands (accounts, keys, migrate, serve, worker)",
    "# replace:": "`-d` fragments of a push, not commands",
    "energyhub accounts add-member": "asks for a password on the terminal",
    "energyhub devices add-ocpp": "a live charger: needs a live account ($ACCOUNT)",
    "energyhub devices add-sunspec": "a live battery: needs SunSpec hardware at its address",
}

# the statuses the README names for a curl (a pattern of its arguments -> status); every
# other curl must answer 2xx
STATED = [
    (r"sandbox/devices$", 201),
    (r'"command": "charge", "parameters"', 200),  # "now: 200"
    (r'"command": "discharge"}, "start"', 202),  # "later: 202"
    (r'"end": "\d{4}-\d\d-\d\dT05:00:00"', 202),  # a window
    (r"-d .*webhooks/endpoints$", 201),
    (r"/test$", 202),
    (r"/resend$", 202),
    (r"link-sessions$", 201),
]

WRAPPER = r"""set -euo pipefail
curl() {  # the real curl, each call's HTTP status and arguments appended to $CURL_LOG
  local out args="$*"
  out=$(command curl --write-out '\n%{http_code}' "$@")
  printf '%s\t%s\n' "${out##*$'\n'}" "${args//$'\n'/ }" >> "$CURL_LOG"
  printf '%s\n' "${out%$'\n'*}"
}
"""


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def inline_curls(text: str) -> list[str]:
    """The curls written in the text as `curl ...` spans (a span may wrap lines)."""
    return [span.replace("\n", " ") for span in re.findall(r"`(curl [^`]+)`", text)]


def count_curls(block: str) -> int:
    code = [re.sub(r"\s#\s.*$", "", line) for line in block.splitlines()]
    return sum(
        len(re.findall(r"(?:^|[\s(])curl\s", line)) for line in code if line.strip()[:1] != "#"
    )


def test_every_curl_of_the_readme_answers_what_it_says(tmp_path: Path) -> None:
    text = README.read_text()
    blocks = [block for block in sh_blocks(text) if count_curls(block)]
    others = [block for block in sh_blocks(text) if not count_curls(block)]
    listed = sorted(next((p for p in SKIPPED if b.startswith(p)), b[:60]) for b in others)
    assert listed == sorted(SKIPPED), "an sh block without a curl: run it here or list it"
    inline = inline_curls(text)
    expected = sum(map(count_curls, blocks)) + len(inline)
    assert expected == 39, expected  # 37 in sh blocks, 2 inline

    service = start_service(f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}", tmp_path)
    try:
        key = re.search(r"sk_test_[A-Za-z0-9]{32,}", service.log.read_text())
        assert key, service.log.read_text()
        script = "\n".join([WRAPPER, *blocks, *inline])
        for line, value in [
            ("KEY=sk_test_...", key[0]),
            ("API=http://127.0.0.1:8000", service.base),
        ]:
            assert f"export {line}" in script, line  # what the README has you set
            script = script.replace(f"export {line}", f"export {line.split('=')[0]}={value}")
        # the README's endpoint made local (nothing listens there): no test reaches a host
        # beyond this machine, and sandbox endpoints may point at loopback
        assert README_ENDPOINT in script
        script = script.replace(README_ENDPOINT, f"http://127.0.0.1:{free_port()}/energyhub")
        log = tmp_path / "curls.log"
        log.touch()
        run = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            env={"PATH": os.environ["PATH"], "CURL_LOG": str(log)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        service.stop()
    calls = [line.split("\t", 1) for line in log.read_text().splitlines()]
    assert run.returncode == 0, (run.stderr, calls)
    assert len(calls) == expected, calls
    for status, args in calls:
        stated = [code for pattern, code in STATED if re.search(pattern, args)]
        if stated:
            assert int(status) == stated[0], (status, args)
        assert 200 <= int(status) < 300, (status, args)
    assert all(any(re.search(p, args) for _, args in calls) for p, _ in STATED)
