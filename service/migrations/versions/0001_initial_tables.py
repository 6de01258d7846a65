"""initial tables

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "benchmark_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=120), nullable=False),
        sa.Column("host", sa.String(length=200), nullable=False),
        sa.Column("device_name", sa.String(length=200), nullable=False),
        sa.Column("gpu_id", sa.String(length=80), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("flags", sa.JSON(), nullable=False),
        sa.Column("environ", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id"),
    )
    with op.batch_alter_table("benchmark_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_benchmark_run_agent"), ["agent"], unique=False)
        batch_op.create_index(batch_op.f("ix_benchmark_run_gpu_id"), ["gpu_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_benchmark_run_host"), ["host"], unique=False)

    op.create_table(
        "catalog_gpu",
        sa.Column("id", sa.String(length=80), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("vendor", sa.String(length=40), nullable=False),
        sa.Column("architecture", sa.String(length=60), nullable=False),
        sa.Column("memory_gb", sa.Float(), nullable=False),
        sa.Column("released", sa.Date(), nullable=True),
        sa.Column("entry", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("catalog_gpu", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalog_gpu_vendor"), ["vendor"], unique=False)

    op.create_table(
        "catalog_state",
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "cloud_offer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("provider", sa.String(length=80), nullable=False),
        sa.Column("instance", sa.String(length=120), nullable=False),
        sa.Column("accelerator", sa.String(length=120), nullable=False),
        sa.Column("gpu_id", sa.String(length=80), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("on_demand_per_hour", sa.Float(), nullable=False),
        sa.Column("spot_per_hour", sa.Float(), nullable=True),
        sa.Column("seen", sa.Date(), nullable=False),
        sa.Column("source", sa.String(length=300), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("cloud_offer", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cloud_offer_gpu_id"), ["gpu_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cloud_offer_provider"), ["provider"], unique=False)

    op.create_table(
        "conversation",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("question", sa.JSON(), nullable=False),
        sa.Column("turns", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "benchmark_result",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("benchmark", sa.String(length=60), nullable=False),
        sa.Column("precision", sa.String(length=20), nullable=False),
        sa.Column("unit", sa.String(length=20), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("p10", sa.Float(), nullable=True),
        sa.Column("p90", sa.Float(), nullable=True),
        sa.Column("cv", sa.Float(), nullable=True),
        sa.Column("flags", sa.JSON(), nullable=False),
        sa.Column("error", sa.String(length=2000), nullable=True),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["benchmark_run.run_id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "benchmark", "precision"),
    )
    with op.batch_alter_table("benchmark_result", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_benchmark_result_benchmark"), ["benchmark"], unique=False)
        batch_op.create_index(batch_op.f("ix_benchmark_result_run_id"), ["run_id"], unique=False)

    op.create_table(
        "price_point",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("gpu_id", sa.String(length=80), nullable=False),
        sa.Column("seen", sa.Date(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("price_usd", sa.Float(), nullable=False),
        sa.Column("source", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["gpu_id"],
            ["catalog_gpu.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("price_point", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_price_point_gpu_id"), ["gpu_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("price_point", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_price_point_gpu_id"))

    op.drop_table("price_point")
    with op.batch_alter_table("benchmark_result", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_benchmark_result_run_id"))
        batch_op.drop_index(batch_op.f("ix_benchmark_result_benchmark"))

    op.drop_table("benchmark_result")
    op.drop_table("conversation")
    with op.batch_alter_table("cloud_offer", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cloud_offer_provider"))
        batch_op.drop_index(batch_op.f("ix_cloud_offer_gpu_id"))

    op.drop_table("cloud_offer")
    op.drop_table("catalog_state")
    with op.batch_alter_table("catalog_gpu", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalog_gpu_vendor"))

    op.drop_table("catalog_gpu")
    with op.batch_alter_table("benchmark_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_benchmark_run_host"))
        batch_op.drop_index(batch_op.f("ix_benchmark_run_gpu_id"))
        batch_op.drop_index(batch_op.f("ix_benchmark_run_agent"))

    op.drop_table("benchmark_run")
    op.drop_table("agent_token")
