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
from typing import Iterator, Optional


def _import_all(names: tuple[str, ...], warm: Optional[str]) -> None:
    try:
        for name in names:
            importlib.import_module(name)
        if warm is not None:
            module, _, function = warm.rpartition(".")
            getattr(importlib.import_module(module), function)()
    except BaseException:  # noqa: B036 - the main thread's own import or call will raise it again
        return


@contextmanager
def importing(*names: str, warm: Optional[str] = None) -> Iterator[None]:
    """Within the block, import ``names`` on a daemon thread (the ones not imported yet), then
    call the function ``warm`` names (``"module.function"``), if any.

    ``warm`` runs what comes after the block once, on a tiny input: the first call of a polars
    function pages its code in, which is then done beside the engine rather than after it (4 ms
    less for ``ndncc run`` of ``e4-ndnsim``). With every module imported already, there is no
    thread and no warm-up. Leaving the block waits for the thread, so that whatever comes after
    finds the modules imported (or, if one failed, imports it again and sees its error where it
    is used)."""
    missing = tuple(n for n in names if n not in sys.modules)
    if not missing:
        yield
        return
    thread = threading.Thread(target=_import_all, args=(missing, warm), name="ndncc-preload", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()
