"""Link sessions, linked accounts and the devices linked through them, in SQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.domain.linking import (
    FlowState,
    LinkedAccount,
    LinkedAccountStatus,
    LinkSession,
    LinkStep,
    Outcome,
)
from energyhub.persistence.tables import devices, link_sessions, linked_accounts


def _session(row: Any) -> LinkSession:
    return LinkSession(
        id=row.id,
        account_id=row.account_id,
        environment=Environment(row.environment),
        user_id=row.user_id,
        email=row.email,
        redirect_uri=row.redirect_uri,
        vendor=row.vendor,
        step=LinkStep(row.step),
        state=FlowState.from_json(row.state),
        nonce=row.nonce,
        created_at=row.created_at,
        expires_at=row.expires_at,
        updated_at=row.updated_at,
        used_at=row.used_at,
        outcome=None if row.outcome is None else Outcome(row.outcome),
        linked_account_id=row.linked_account_id,
        pending_credentials=row.pending_credentials,
    )


def _linked(row: Any) -> LinkedAccount:
    return LinkedAccount(
        id=row.id,
        account_id=row.account_id,
        environment=Environment(row.environment),
        user_id=row.user_id,
        vendor=row.vendor,
        external_id=row.external_id,
        credentials=row.credentials,
        status=LinkedAccountStatus(row.status),
        redirect_uri=row.redirect_uri,
        created_at=row.created_at,
        updated_at=row.updated_at,
        revoked_at=row.revoked_at,
    )


def session_values(session: LinkSession) -> dict[str, Any]:
    """The columns a flow step may change."""
    return {
        "step": session.step.value,
        "state": session.state.to_json(),
        "nonce": session.nonce,
        "pending_credentials": session.pending_credentials,
        "outcome": None if session.outcome is None else session.outcome.value,
        "linked_account_id": session.linked_account_id,
        "used_at": session.used_at,
        "updated_at": session.updated_at,
    }


class SqlLinkingRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    # --- link sessions ---------------------------------------------------------------------
    async def add_session(self, session: LinkSession, token_hash: str) -> None:
        await self._c.execute(
            link_sessions.insert().values(
                id=session.id,
                token_hash=token_hash,
                account_id=session.account_id,
                environment=session.environment.value,
                user_id=session.user_id,
                email=session.email,
                redirect_uri=session.redirect_uri,
                vendor=session.vendor,
                created_at=session.created_at,
                expires_at=session.expires_at,
                **session_values(session),
            )
        )

    async def session_by_token_hash(self, token_hash: str) -> LinkSession | None:
        row = (
            await self._c.execute(
                select(link_sessions).where(link_sessions.c.token_hash == token_hash)
            )
        ).first()
        return None if row is None else _session(row)

    async def advance_session(self, session: LinkSession, expected_nonce: str) -> bool:
        """Stores the session's new step only while it is still at the step shown with
        `expected_nonce` and unused: a form sent twice changes it once."""
        result = await self._c.execute(
            update(link_sessions)
            .where(
                link_sessions.c.id == session.id,
                link_sessions.c.nonce == expected_nonce,
                link_sessions.c.used_at.is_(None),
            )
            .values(**session_values(session))
        )
        return bool(result.rowcount)

    # --- linked accounts -------------------------------------------------------------------
    async def add_linked_account(self, account: LinkedAccount) -> None:
        await self._c.execute(
            linked_accounts.insert().values(
                id=account.id,
                account_id=account.account_id,
                environment=account.environment.value,
                user_id=account.user_id,
                vendor=account.vendor,
                external_id=account.external_id,
                credentials=account.credentials,
                status=account.status.value,
                redirect_uri=account.redirect_uri,
                created_at=account.created_at,
                updated_at=account.updated_at,
                revoked_at=account.revoked_at,
            )
        )

    async def get_linked_account(
        self, account_id: str, environment: Environment, linked_account_id: str
    ) -> LinkedAccount | None:
        row = (
            await self._c.execute(
                select(linked_accounts).where(
                    linked_accounts.c.id == linked_account_id,
                    linked_accounts.c.account_id == account_id,
                    linked_accounts.c.environment == environment.value,
                )
            )
        ).first()
        return None if row is None else _linked(row)

    async def active_linked_account(
        self, account_id: str, environment: Environment, user_id: str, vendor: str, external_id: str
    ) -> LinkedAccount | None:
        """The user's active linked account for this vendor login, if any (linking the same
        login again adds to it instead of making a second one)."""
        row = (
            await self._c.execute(
                select(linked_accounts)
                .where(
                    linked_accounts.c.account_id == account_id,
                    linked_accounts.c.environment == environment.value,
                    linked_accounts.c.user_id == user_id,
                    linked_accounts.c.vendor == vendor,
                    linked_accounts.c.external_id == external_id,
                    linked_accounts.c.status == LinkedAccountStatus.ACTIVE.value,
                )
                .order_by(linked_accounts.c.pk.desc())
            )
        ).first()
        return None if row is None else _linked(row)

    async def list_linked_accounts(
        self, account_id: str, environment: Environment, user_id: str
    ) -> list[LinkedAccount]:
        rows = await self._c.execute(
            select(linked_accounts)
            .where(
                linked_accounts.c.account_id == account_id,
                linked_accounts.c.environment == environment.value,
                linked_accounts.c.user_id == user_id,
            )
            .order_by(linked_accounts.c.pk)
        )
        return [_linked(r) for r in rows]

    async def update_linked_account(self, linked_account_id: str, **values: Any) -> None:
        if "status" in values and isinstance(values["status"], LinkedAccountStatus):
            values["status"] = values["status"].value
        await self._c.execute(
            update(linked_accounts)
            .where(linked_accounts.c.id == linked_account_id)
            .values(**values)
        )

    async def credentials_page(self, after_pk: int, limit: int) -> list[tuple[int, str, str]]:
        """(pk, id, credentials) of linked accounts that hold credentials, in pk order."""
        rows = await self._c.execute(
            select(linked_accounts.c.pk, linked_accounts.c.id, linked_accounts.c.credentials)
            .where(linked_accounts.c.pk > after_pk, linked_accounts.c.credentials.is_not(None))
            .order_by(linked_accounts.c.pk)
            .limit(limit)
        )
        return [(r.pk, r.id, r.credentials) for r in rows]

    # --- devices linked through them -------------------------------------------------------
    async def device_ids_of(self, linked_account_ids: Sequence[str]) -> dict[str, list[str]]:
        """Each linked account's device ids, in creation order."""
        found: dict[str, list[str]] = {i: [] for i in linked_account_ids}
        if not linked_account_ids:
            return found
        rows = await self._c.execute(
            select(devices.c.id, devices.c.linked_account_id)
            .where(devices.c.linked_account_id.in_(list(linked_account_ids)))
            .order_by(devices.c.pk)
        )
        for row in rows:
            found[row.linked_account_id].append(row.id)
        return found

    async def find_linked_device(
        self,
        account_id: str,
        environment: Environment,
        user_id: str,
        vendor: str,
        vendor_device_id: str,
    ) -> str | None:
        """The id of the user's device with this vendor identity, if it was linked before
        (through any of the user's linked accounts at that vendor, revoked ones too)."""
        row = (
            await self._c.execute(
                select(devices.c.id)
                .join(linked_accounts, linked_accounts.c.id == devices.c.linked_account_id)
                .where(
                    devices.c.account_id == account_id,
                    devices.c.environment == environment.value,
                    devices.c.user_id == user_id,
                    devices.c.vendor_device_id == vendor_device_id,
                    linked_accounts.c.vendor == vendor,
                )
                .order_by(devices.c.pk)
            )
        ).first()
        return None if row is None else str(row.id)

    async def attach_device(
        self, device_id: str, linked_account_id: str, vendor_device_id: str, now: datetime
    ) -> None:
        await self._c.execute(
            update(devices)
            .where(devices.c.id == device_id)
            .values(
                linked_account_id=linked_account_id,
                vendor_device_id=vendor_device_id,
                updated_at=now,
            )
        )
