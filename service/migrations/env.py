"""Alembic environment: migrations run inside the caller's connection (see service.db.migrate)."""

from alembic import context
from sqlmodel import SQLModel

import service.models  # noqa: F401  (registers the tables on SQLModel.metadata)

target_metadata = SQLModel.metadata
connection = context.config.attributes.get("connection")

if connection is None:  # `alembic` command line: open our own connection
    from service.db import make_engine

    with make_engine(context.config.get_main_option("sqlalchemy.url") or "").begin() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
