"""Every error the engine raises, in one tree; a face maps each to its own wording (problem+json, a Slack
reply, a CLI message and exit code) in one place of its own.

    ValueError
    └── WhichGpuError              anything the engine refuses
        ├── QuestionError          a question's value it cannot use; ``field`` names the culprit
        ├── SettingsError          a setting from the environment that cannot be used
        └── DataFileError          a data file is missing, not JSON, or breaks its schema or a check
            └── CatalogError       ... one of the catalog's files

They are ValueErrors so that callers which only know "bad value" keep working.
"""

from __future__ import annotations

__all__ = ["CatalogError", "DataFileError", "QuestionError", "SettingsError", "WhichGpuError"]


class WhichGpuError(ValueError):
    """Anything the engine refuses to work with."""


class QuestionError(WhichGpuError):
    """A question with a value the engine cannot use; ``field`` names the culprit."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


class SettingsError(WhichGpuError):
    """A setting has a value that cannot be used."""


class DataFileError(WhichGpuError):
    """A data file is missing, not JSON, or breaks its schema."""


class CatalogError(DataFileError):
    """A catalog data file that cannot be used; the message names file, entry and field."""
