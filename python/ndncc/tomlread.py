"""TOML reading: ``tomllib`` from Python 3.11 on, the ``tomli`` package before."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover - exercised on old Pythons only
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
