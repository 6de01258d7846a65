"""agent tokens bound to one host; indexes for arrival-ordered measurements and conversation expiry

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_token") as batch:
        batch.add_column(sa.Column("host", sa.String(length=200), nullable=True))
    op.create_index("ix_benchmark_run_gpu_id_received_at", "benchmark_run", ["gpu_id", "received_at"])
    op.create_index("ix_conversation_updated_at", "conversation", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_conversation_updated_at", table_name="conversation")
    op.drop_index("ix_benchmark_run_gpu_id_received_at", table_name="benchmark_run")
    with op.batch_alter_table("agent_token") as batch:
        batch.drop_column("host")
