"""Checks of what a caller passes to the Python API, so that a wrong type or value is one
:class:`~ndncc.errors.BadInput` naming the argument, never a ``TypeError`` from deep inside (or
from the compiled engine) nor a value taken for something else (``keep_series="yes"``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Optional, Union

from .errors import BadInput


def text(value: Any, name: str) -> str:
    """A string that can be written as UTF-8 (no lone surrogates)."""
    if not isinstance(value, str):
        raise BadInput(f"{name}: expected text (a str), got {_shown(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BadInput(f"{name}: not valid text at character {e.start} (a lone surrogate)") from None
    return value


def path(value: Any, name: str) -> str:
    """A file or folder path: a str or an ``os.PathLike``."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise BadInput(f"{name}: expected a path (a str or pathlib.Path), got {_shown(value)}")
    return text(value, name)


def texts(value: Union[str, Iterable[Any]], name: str) -> list[str]:
    """One string, or an iterable of strings, as a list."""
    if isinstance(value, str):
        return [text(value, name)]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
        return [text(v, f"{name}[{i}]") for i, v in enumerate(value)]
    raise BadInput(f"{name}: expected a string or a list of strings, got {_shown(value)}")


def optional_texts(value: Any, name: str) -> Optional[list[str]]:
    """``None``, one string or an iterable of strings."""
    return None if value is None else texts(value, name)


def flag(value: Any, name: str) -> bool:
    """True or False, and nothing that merely reads as one (``"yes"``, ``1``)."""
    if not isinstance(value, bool):
        raise BadInput(f"{name}: expected True or False, got {_shown(value)}")
    return value


def callback(value: Any, name: str) -> Optional[Callable]:
    """``None`` or something callable."""
    if value is not None and not callable(value):
        raise BadInput(f"{name}: expected a function (or None), got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    """A value for an error message, cut short: a long one is not echoed in full."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
