"""The agent's version (its own module, so submodules can import it without the package ``__init__``)."""

__version__ = "0.1.0"
