"""Storage: SQLAlchemy Core tables, repositories and Alembic migrations (SQLite | PostgreSQL)."""
