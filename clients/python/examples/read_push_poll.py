"""Read a battery, send it a command and poll the action until the battery has done it,
through the generated client. CI runs it against a live `energyhub serve`
(scripts/check-clients); by hand:

    python examples/read_push_poll.py --base-url http://127.0.0.1:8000 --key sk_test_...
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from energyhub_client import AuthenticatedClient
from energyhub_client.api.actions import get_action
from energyhub_client.api.batteries import get_battery, push_battery_command
from energyhub_client.api.sandbox import create_sandbox_device
from energyhub_client.models import ErrorEnvelope, PushBody, SandboxBatteryRequest

DONE = {"completed", "failed", "cancelled"}


def answered(result: object, what: str) -> object:
    """The envelope's data; exits with the API's own message on an error."""
    if result is None or isinstance(result, ErrorEnvelope):
        detail = "no answer" if result is None else f"{result.error.code}: {result.error.message}"
        sys.exit(f"{what} failed: {detail}")
    return result.data  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--key", default=os.environ.get("ENERGYHUB_API_KEY"), help="sk_test_...")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to poll")
    args = parser.parse_args()
    if not args.key:
        sys.exit("give a sandbox key: --key sk_test_... (or ENERGYHUB_API_KEY)")

    client = AuthenticatedClient(base_url=args.base_url, token=args.key, auth_header_name="x-api-key", prefix="")
    with client as api:
        # a simulated battery of the default profile, for user "ada"
        request = SandboxBatteryRequest.from_dict({"type": "battery", "userId": "ada"})
        battery = answered(create_sandbox_device.sync(client=api, body=request), "create")
        device_id = battery.id

        # read: state, commands map and settings
        read = answered(get_battery.sync(device_id, client=api), "read")
        print(f"battery {device_id}: level {read.state.level} %, status {read.state.status.value}")

        # push: charge to 80 % at 3 kW, now
        body = PushBody.from_dict(
            {
                "action": {
                    "command": "charge",
                    "parameters": {
                        "target": {"value": 80, "unit": "percent"},
                        "power": {"value": 3, "unit": "kw"},
                    },
                }
            }
        )
        action = answered(push_battery_command.sync(device_id, client=api, body=body), "push")
        print(f"action {action.id}: {action.state.value}")

        # poll the action until the battery has done it
        deadline = time.monotonic() + args.timeout
        while action.state.value not in DONE:
            if time.monotonic() > deadline:
                sys.exit(f"action {action.id} still {action.state.value} after {args.timeout} s")
            time.sleep(0.5)
            action = answered(get_action.sync(action.id, client=api), "poll")
        print(f"action {action.id}: {action.state.value}")
        if action.state.value != "completed":
            sys.exit(f"the action ended {action.state.value}: {action.error_message}")


if __name__ == "__main__":
    main()
