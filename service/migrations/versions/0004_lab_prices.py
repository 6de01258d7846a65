"""lab prices: the quotes and price lists a deployment trusts, dated and sourced

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lab_price",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("gpu_id", sa.String(length=80), nullable=False),
        sa.Column("price", sa.Float(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("seen", sa.Date(), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("price > 0", name="ck_lab_price_positive"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lab_price_gpu_id", "lab_price", ["gpu_id"])


def downgrade() -> None:
    op.drop_index("ix_lab_price_gpu_id", table_name="lab_price")
    op.drop_table("lab_price")
