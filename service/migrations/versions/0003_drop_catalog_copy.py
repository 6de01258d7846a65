"""drop the catalog tables: a copy of the shipped data files that nothing read

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("price_point")  # refers to catalog_gpu: first
    op.drop_table("cloud_offer")
    op.drop_table("catalog_state")
    op.drop_table("catalog_gpu")


def downgrade() -> None:
    """The tables come back empty; the previous release writes the catalog into them on its next start."""
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
    op.create_index("ix_catalog_gpu_vendor", "catalog_gpu", ["vendor"])
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
    op.create_index("ix_cloud_offer_gpu_id", "cloud_offer", ["gpu_id"])
    op.create_index("ix_cloud_offer_provider", "cloud_offer", ["provider"])
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
    op.create_index("ix_price_point_gpu_id", "price_point", ["gpu_id"])
