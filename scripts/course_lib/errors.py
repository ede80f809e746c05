"""The kit's two failures: bad input (exit 2) and the tool itself failing (exit 1)."""
from __future__ import annotations


class UsageError(Exception):
    """Bad input: one line (or a few, one per problem) on stderr, exit 2."""


class ToolError(Exception):
    """The tool itself could not do its job (missing cmake, git, ...): exit 1."""
