"""How errors reach a user of the command line: one line on stderr and an exit code.

Exit codes: 0 success, 2 bad input, 1 internal error, 130 interrupted. Set ``NDNCC_DEBUG=1`` to
get the traceback as well.
"""

from __future__ import annotations

import functools
import os
import traceback
from typing import Callable, TypeVar

import typer

from . import _core

BAD_INPUT = 2
INTERNAL = 1
INTERRUPTED = 130

F = TypeVar("F", bound=Callable)


class BadInput(Exception):
    """A problem with what the user asked for (a name, a path, an option)."""


#: Errors caused by the input rather than by ndncc. A scenario that validates but cannot be built
#: (say, a prefix no producer serves) is the user's to fix too.
_USER_ERRORS = (_core.ScenarioError, _core.BuildError, _core.StalledError, BadInput, OSError)


def one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def describe(e: BaseException) -> str:
    """A one-line description of an error; scenario errors as ``file:line: key: message``."""
    if isinstance(e, _core.ScenarioError) and hasattr(e, "file"):
        where = e.file + (f":{e.line}" if e.line is not None else "")
        return ": ".join([where] + ([e.key] if e.key else []) + [one_line(e.message)])
    return one_line(str(e)) or type(e).__name__


def exit_code(e: BaseException) -> int:
    return BAD_INPUT if isinstance(e, _USER_ERRORS) else INTERNAL


def message(e: BaseException) -> str:
    prefix = "error" if isinstance(e, (_core.NdnccError, *_USER_ERRORS)) else "internal error"
    return f"{prefix}: {describe(e)}"


def _is_cli_control(e: BaseException) -> bool:
    """typer's and click's own exceptions (exit, abort, usage errors) are theirs to handle."""
    return type(e).__module__.split(".")[0] in ("typer", "click")


def guarded(fn: F) -> F:
    """Run a command so that any error ends it with one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(INTERRUPTED) from None
        except Exception as e:
            if _is_cli_control(e):
                raise
            if os.environ.get("NDNCC_DEBUG"):
                traceback.print_exc()
            typer.echo(message(e), err=True)
            raise typer.Exit(exit_code(e)) from None

    return wrapper  # type: ignore[return-value]
