"""How errors reach a user of the command line: one line on stderr and an exit code.

Exit codes: 0 success, 2 bad input, 3 the user's own Python controller raised, 1 internal
error, 130 interrupted. Set ``NDNCC_DEBUG=1`` to
get the traceback as well.

Every error ndncc raises on purpose is an :class:`ndncc.NdnccError`; the ones made here in Python:

```text
NdnccError
 ├── BadInput        a bad option, value, name or path (also a ValueError)
 │    ├── MissingFile   a file or folder that should be there (also a FileNotFoundError)
 │    └── DamagedFile   a file ndncc wrote that no longer reads back
 └── RunTimeout      a sweep's run stopped at its wall-time limit (also a TimeoutError)
```

A panic of the compiled engine reaches Python as pyo3's ``PanicException``, a ``BaseException``;
the command line reports it as one "internal error" line like any other bug.

Every warning ndncc gives is an :class:`NdnccWarning`; the command line shows each as one line,
``warning: message``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import traceback
import warnings
from typing import Callable, Iterator, TypeVar

from . import _core

BAD_INPUT = 2
INTERNAL = 1
#: A Python controller the user wrote raised: their code, not ndncc's, and not the scenario's.
USER_CODE = 3
INTERRUPTED = 130

F = TypeVar("F", bound=Callable)


#: Longest quoted value a message repeats in full [characters]; a longer one is cut (as the
#: engine's own messages do).
MAX_QUOTED = 80
#: Longest word (a run without spaces) a message repeats in full [characters].
MAX_WORD = 200

_QUOTED = re.compile(r"(?:(?<=^)|(?<=[\s(\[{=:,]))(['\"`])(.*?)\1(?=$|[\s,;:.)\]}])", re.S)
_WORD = re.compile(r"\S{%d,}" % (MAX_WORD + 1))


#: Characters a cut value's ending (``… (5000 characters)``) may take: a cut value is no longer
#: than the limit either, so a message cut twice reads as one cut once.
_CUT_ENDING = 24


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[: limit - _CUT_ENDING]}… ({len(text)} characters)"


def shorten(text: str) -> str:
    """``text`` with each quoted value longer than ``MAX_QUOTED`` characters, and each other
    word longer than ``MAX_WORD``, cut short with an ellipsis and its length: a message names a
    value, it need not repeat 5,000 characters of it."""
    if len(text) <= MAX_QUOTED:
        return text
    parts, at = [], 0
    for m in _QUOTED.finditer(text):
        parts.append(_WORD.sub(lambda w: _cut(w.group(), MAX_WORD), text[at : m.start()]))
        parts.append(m.group(1) + _cut(m.group(2), MAX_QUOTED) + m.group(1))
        at = m.end()
    parts.append(_WORD.sub(lambda w: _cut(w.group(), MAX_WORD), text[at:]))
    return "".join(parts)


class BadInput(_core.NdnccError, ValueError):
    """A problem with what the user asked for (a name, a path, an option, a value).

    A ``ValueError`` too, so that code catching the built-in error for a bad value still works.
    Long values in its message are cut short (:func:`shorten`)."""

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(shorten(message) if isinstance(message, str) else message, *args)


class MissingFile(BadInput, FileNotFoundError):
    """A file or folder that should be there is not."""


class DamagedFile(BadInput):
    """A file ndncc wrote earlier cannot be read back (cut short, overwritten, edited by hand)."""


class NdnccWarning(UserWarning):
    """Something ndncc was asked to do that works but is probably not what was meant."""


class RunTimeout(_core.NdnccError, TimeoutError):
    """A run was stopped because it took longer than its wall-time limit."""


#: Errors caused by the input rather than by ndncc. A scenario that validates but cannot be built
#: (say, a prefix no producer serves) is the user's to fix too.
_USER_ERRORS = (_core.ScenarioError, _core.BuildError, _core.StalledError, BadInput, OSError)

#: What a crash of the compiled engine says instead of the Rust panic's own text.
ENGINE_CRASH = "the simulation engine crashed (a bug in ndncc; NDNCC_DEBUG=1 shows where)"


def is_panic(e: BaseException) -> bool:
    """A Rust panic, as pyo3 raises it: a ``BaseException``, so ``except Exception`` misses it."""
    return type(e).__name__ == "PanicException"


def one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _raised_at(e: BaseException) -> str:
    """Where the user's exception behind a ControllerError was raised: `` at file:line``, the
    innermost frame of its traceback (their code), or nothing if it has none."""
    cause = e.__cause__
    frames = traceback.extract_tb(cause.__traceback__) if cause is not None else []
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def describe(e: BaseException) -> str:
    """A one-line description of an error. A scenario error's text, as the engine writes it,
    says where: ``file:line: key: message``, or ``file: --set key: message`` for an override; a
    controller's error where in the user's code it was raised."""
    if isinstance(e, _core.ControllerError):
        text = one_line(str(e))
        hook = f" raised in {getattr(e, 'hook', '')}()"
        at = _raised_at(e)
        return text.replace(hook, hook + at, 1) if at and hook in text else text + at
    if is_panic(e):
        return ENGINE_CRASH
    if isinstance(e, MemoryError):
        return "out of memory"
    return shorten(one_line(str(e))) or type(e).__name__


def exit_code(e: BaseException) -> int:
    if isinstance(e, _core.ControllerError):
        return USER_CODE
    return BAD_INPUT if isinstance(e, _USER_ERRORS) else INTERNAL


def message(e: BaseException) -> str:
    prefix = "internal error" if exit_code(e) == INTERNAL else "error"
    return f"{prefix}: {describe(e)}"


def _is_cli_control(e: BaseException) -> bool:
    """click's own exceptions (exit, abort, usage errors) are its to handle."""
    return type(e).__module__.split(".")[0] == "click"


def _say(line: str) -> None:
    """One line on stderr (this module is the library's too, so it does not need click)."""
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Within the block, an :class:`NdnccWarning` is shown as one line on stderr,
    ``warning: message``; other warnings as Python shows them."""
    with warnings.catch_warnings():
        show_other = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, NdnccWarning):
                _say(f"warning: {one_line(str(message))}")
            else:
                show_other(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def guarded(fn: F) -> F:
    """Run a command so that any error ends it with one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            with warnings_as_lines():
                return fn(*args, **kwargs)
        except KeyboardInterrupt:
            _say("interrupted")
            raise SystemExit(INTERRUPTED) from None
        except (SystemExit, GeneratorExit):
            raise
        except BaseException as e:  # noqa: B036 - a Rust panic arrives as a BaseException
            if _is_cli_control(e):
                raise
            if os.environ.get("NDNCC_DEBUG"):
                traceback.print_exc()
            _say(message(e))
            raise SystemExit(exit_code(e)) from None

    return wrapper  # type: ignore[return-value]
