"""The demo a newcomer meets on first start (CONTRACT 0): an account, a sandbox key and a
user with one simulated device of each sandbox profile, and a dashboard member whose
password is printed once, like the key."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.ports.storage import UnitOfWorkFactory
from energyhub.services.accounts import AccountService
from energyhub.services.members import MemberService
from energyhub.services.sandbox import SandboxService

DEMO_USER_ID = "demo-user"
DEMO_USER_EMAIL = "demo@example.com"
DEMO_MEMBER_EMAIL = "owner@demo.example"  # the dashboard's sign-in


@dataclass(frozen=True, slots=True)
class Demo:
    account_id: str
    app_id: str
    key: str
    user_id: str
    device_ids: dict[str, str]  # profile name -> device id
    member_email: str  # signs in to the dashboard with
    member_password: str  # shown once, like the key


async def create_demo_if_empty(
    uow: UnitOfWorkFactory,
    accounts: AccountService,
    sandbox: SandboxService,
    members: MemberService,
) -> Demo | None:
    """The demo, only when the database has no account yet."""
    async with uow() as tx:
        if await tx.accounts.count_accounts() > 0:
            return None
    account = await accounts.create_account("Demo")
    created = await accounts.create_key(account.id, Environment.SANDBOX)
    principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
    device_ids: dict[str, str] = {}
    for name, profile in PROFILES.items():
        view = await sandbox.create_device(
            principal, profile.device_type, DEMO_USER_ID, DEMO_USER_EMAIL, name
        )
        device_ids[name] = view.device.id
    password = secrets.token_urlsafe(12)
    await members.add_member(account.id, DEMO_MEMBER_EMAIL, password)
    return Demo(
        account.id,
        account.app_id,
        created.key,
        DEMO_USER_ID,
        device_ids,
        DEMO_MEMBER_EMAIL,
        password,
    )


def first_of(demo: Demo, device_type: DeviceType) -> str:
    """The demo device of the default profile for a type (for the printed curl example)."""
    for name, device_id in demo.device_ids.items():
        if PROFILES[name].device_type is device_type:
            return device_id
    raise LookupError(device_type)
