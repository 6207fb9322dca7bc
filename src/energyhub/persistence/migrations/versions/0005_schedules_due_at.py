"""schedules: due_at

The scheduler's due work is rows, as the dispatcher's: `due_at` is when a schedule must be
looked at next (plan its occurrences ahead, or move its `nextFireAt` on after one fired),
and a claim moves it forward as a lease, so a crashed planner's schedule comes due again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("schedules", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "due_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
            )
        )
        batch_op.create_index(batch_op.f("ix_schedules_due_at"), ["due_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("schedules", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_schedules_due_at"))
        batch_op.drop_column("due_at")
