"""The demo a newcomer meets on first start (CONTRACT 0): an account, a sandbox key and a
user with one simulated device of each sandbox profile."""

from __future__ import annotations

from dataclasses import dataclass

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.drivers.sandbox.profiles import PROFILES
from energyhub.services.accounts import AccountService
from energyhub.services.ports import UnitOfWorkFactory
from energyhub.services.sandbox import SandboxService

DEMO_USER_ID = "demo-user"
DEMO_USER_EMAIL = "demo@example.com"


@dataclass(frozen=True, slots=True)
class Demo:
    account_id: str
    app_id: str
    key: str
    user_id: str
    device_ids: dict[str, str]  # profile name -> device id


async def create_demo_if_empty(
    uow: UnitOfWorkFactory, accounts: AccountService, sandbox: SandboxService
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
    return Demo(account.id, account.app_id, created.key, DEMO_USER_ID, device_ids)


def first_of(demo: Demo, device_type: DeviceType) -> str:
    """The demo device of the default profile for a type (for the printed curl example)."""
    for name, device_id in demo.device_ids.items():
        if PROFILES[name].device_type is device_type:
            return device_id
    raise LookupError(device_type)
