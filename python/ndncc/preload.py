"""Importing modules on a thread of their own while the engine runs.

The engine runs without the GIL, so the interpreter is free to import the table libraries a
run's result needs (polars and numpy, some 0.2 s on a slow machine) while the simulation runs
on another core, instead of before it. The result is unchanged; only the wall time is shorter.

The engine takes the GIL only to call a progress callback and to check for Ctrl-C, and paces
those takings once the GIL is slow to come (``GilPacing`` in ``ndncc-py``), so the importing
thread seldom makes it wait.
"""

from __future__ import annotations

import importlib
import sys
import threading
from contextlib import contextmanager
from typing import Iterator


def _import_all(names: tuple[str, ...]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: B036 - the main thread's own import will raise it again
            return


@contextmanager
def importing(*names: str) -> Iterator[None]:
    """Within the block, import ``names`` on a daemon thread (the ones not imported yet).

    Leaving the block waits for the thread, so that whatever comes after finds the modules
    imported (or, if one failed, imports it again and sees its error where it is used)."""
    missing = tuple(n for n in names if n not in sys.modules)
    if not missing:
        yield
        return
    thread = threading.Thread(target=_import_all, args=(missing,), name="ndncc-preload", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()
