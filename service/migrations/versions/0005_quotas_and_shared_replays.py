"""conversations know their client (per-client quota); Slack signatures shared by replicas; per-host runs

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("conversation") as batch:
        batch.add_column(sa.Column("client", sa.String(length=64), nullable=True))
    op.create_index("ix_conversation_client_updated_at", "conversation", ["client", "updated_at"])
    op.create_index(
        "ix_benchmark_run_gpu_id_host_received_at", "benchmark_run", ["gpu_id", "host", "received_at", "id"]
    )
    op.create_index("ix_benchmark_run_agent_received_at", "benchmark_run", ["agent", "received_at"])
    op.create_table(
        "slack_request",
        sa.Column("signature", sa.String(length=80), primary_key=True),
        sa.Column("stamp", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_slack_request_stamp", "slack_request", ["stamp"])


def downgrade() -> None:
    op.drop_index("ix_slack_request_stamp", table_name="slack_request")
    op.drop_table("slack_request")
    op.drop_index("ix_benchmark_run_agent_received_at", table_name="benchmark_run")
    op.drop_index("ix_benchmark_run_gpu_id_host_received_at", table_name="benchmark_run")
    op.drop_index("ix_conversation_client_updated_at", table_name="conversation")
    with op.batch_alter_table("conversation") as batch:
        batch.drop_column("client")
