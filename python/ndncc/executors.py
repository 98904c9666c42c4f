"""Where a sweep's runs execute: a local process pool (the default), a Dask cluster, or any
``concurrent.futures`` executor the caller hands in.

Each backend takes picklable tasks and a module-level function, and yields ``(task, result)`` as
runs finish, in whatever order they finish. A task whose execution failed outside the function
(a worker process that died, a task Dask gave up on) yields an :class:`ExecutionError` instead.
"""

from __future__ import annotations

import abc
import ast
import asyncio
import concurrent.futures as cf
import contextlib
import inspect
import multiprocessing
import os
import re
import signal
import socket
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Optional, Sequence, Union

from . import _core
from .errors import BadInput, RunTimeout, one_line


class ExecutionError(_core.NdnccError):
    """A run could not be carried out by the executor (not an error of the run itself)."""


def check_workers(workers: object) -> int:
    """A number of local worker processes: an integer of at least 1."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise BadInput(f"workers {workers!r}: expected a number of worker processes of at least 1")
    return workers


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Backend(abc.ABC):
    """The common shape: ``capacity`` runs at once; ``results`` yields finished runs."""

    capacity: int = 1
    description: str = ""

    @abc.abstractmethod
    def results(self, fn: Callable, tasks: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        """Run ``fn`` on every task; yield ``(task, outcome)`` as each finishes."""

    def close(self, cancel: bool = False) -> None:  # noqa: B027 (optional hook: most backends hold nothing)
        pass


def _watch_driver(lifeline: Connection) -> None:
    """End this worker once the driver is gone, even killed with SIGKILL, so no orphan keeps
    computing: the driver holds the only write end of ``lifeline``, and a dead process's pipes
    close at once, so reading it ends in EOF."""
    try:
        lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(1)


#: In a pool process: where it says which task it starts (see :func:`_reporting`).
_starts: Optional[Any] = None


def _init_worker(lifeline: Connection, starts: Any = None) -> None:
    """Runs first in each pool process: Ctrl-C is the driver's to handle (it stops the workers),
    and the worker ends with its driver."""
    global _starts
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _starts = starts
    threading.Thread(target=_watch_driver, args=(lifeline,), daemon=True).start()


def _reporting(fn: Callable, index: int, task: Any) -> Any:
    """``fn(task)`` in a pool process, after telling the driver that this process started task
    ``index`` now, so that the driver can end it past its time limit whatever it is doing."""
    if _starts is not None:
        _starts.put((index, os.getpid(), time.monotonic()))
    return fn(task)


def _context() -> multiprocessing.context.BaseContext:
    """Fresh interpreters, never a ``fork`` of the (threaded) driver: forkserver where it exists,
    with ndncc imported once in the server so each worker starts warm; spawn elsewhere."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ndncc.sweeping"])
        return ctx
    return multiprocessing.get_context("spawn")


# ---------------------------------------------------------------- scripts without a main guard
#
# A local pool's workers are fresh interpreters. Before one takes work, multiprocessing runs the
# driver's script in it again (as the module ``__mp_main__``) so that what the script defines can
# be found there. A sweep called at the top level of that script, outside
# ``if __name__ == "__main__":``, would then start again in every worker. The driver refuses such
# a call before anything starts (:func:`unguarded_call`); a worker that gets there anyway leaves
# at once (:func:`starting_worker`).


def _main_file() -> Optional[str]:
    """The file multiprocessing has a new worker run again as it starts, if any: an interactive
    session or a notebook has no file, and multiprocessing skips a package's ``__main__`` module
    (``python -m ndncc``). It may name no file at all: ``python - < script.py`` runs ``<stdin>``."""
    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    if spec_name is not None and (spec_name == "__main__" or spec_name.endswith(".__main__")):
        return None
    path = getattr(main, "__file__", None)
    return os.fspath(path) if isinstance(path, (str, os.PathLike)) else None


def _rerun_main_file() -> Optional[str]:
    """The script a new worker runs again as it starts, or ``None`` if it runs none (see
    :func:`_without_unreadable_main`)."""
    path = _main_file()
    return path if path is not None and os.path.isfile(path) else None


@contextlib.contextmanager
def _without_unreadable_main() -> Iterator[None]:
    """Start workers without asking them to run a main script that is no file (``<stdin>``, or a
    script deleted since): each would fail to find it and die before taking work. The script's
    code stays the driver's, as in a notebook, and needs no main guard."""
    main = sys.modules.get("__main__")
    path = _main_file()
    if main is None or path is None or os.path.isfile(path):
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def _tests_name(test: ast.expr) -> bool:
    """Whether an ``if`` test reads ``__name__`` (the main guard, however it is written)."""
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test))


def unguarded_call() -> Optional[str]:
    """``file:line`` of the statement of the main script that led to this call, if that statement
    lies outside every ``if`` on ``__name__`` and new workers run that script again; ``None``
    otherwise, or when it cannot be told (no source, code run by ``exec``, another thread)."""
    path = _rerun_main_file()
    if path is None:
        return None
    main_globals = sys.modules["__main__"].__dict__
    frame, statement = inspect.currentframe(), None
    while frame is not None:
        if frame.f_globals is main_globals and frame.f_code.co_name == "<module>":
            statement = frame
        frame = frame.f_back
    if statement is None:
        return None
    line, file = statement.f_lineno, Path(statement.f_code.co_filename)
    try:
        if not file.samefile(path):
            return None
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _tests_name(node.test):
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                return None
    return f"{path}:{line}"


def starting_worker() -> bool:
    """Whether this process is a worker still running the driver's script as it starts: only
    then does a module named ``__mp_main__`` run its top level."""
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_globals.get("__name__") == "__mp_main__" and frame.f_code.co_name == "<module>":
            return True
        frame = frame.f_back
    return False


def is_local_pool(executor: "Target") -> bool:
    """Whether ``executor`` means a local process pool (the default, or a number of workers)."""
    return executor is None or (isinstance(executor, int) and not isinstance(executor, bool))


#: Wall time past a task's time limit after which the pool ends its worker process [s]. The
#: run's own checks and its alarm (:mod:`ndncc.sweeping`) come first; this ends a worker that
#: neither reaches, stuck in code that holds no signal (a controller spinning in C, say).
KILL_GRACE_S = 1.5


class LocalPool(Backend):
    """``K`` worker processes on this machine. If a worker dies, the pool is rebuilt; the runs it
    may have been carrying are tried once more, one at a time, and fail if their worker dies again.

    With a ``timeout``, a task still running ``KILL_GRACE_S`` past it has its worker process
    killed and ends as a :class:`RunTimeout`; the pool is rebuilt, and the other tasks it was
    carrying start again."""

    def __init__(self, workers: Optional[int] = None, timeout: Optional[float] = None):
        self.capacity = default_workers() if workers is None else check_workers(workers)
        self.description = f"{self.capacity} local worker{'s' if self.capacity != 1 else ''}"
        self.timeout = timeout
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._lifeline: Optional[tuple[Connection, Connection]] = None
        self._starts: Optional[Any] = None

    def _start(self, workers: int) -> cf.ProcessPoolExecutor:
        ctx = _context()
        if self._lifeline is None:
            self._lifeline = ctx.Pipe(duplex=False)  # (read end for workers, write end kept here)
        self._starts = ctx.SimpleQueue() if self.timeout is not None else None
        self._pool = cf.ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_init_worker, initargs=(self._lifeline[0], self._starts)
        )
        return self._pool

    def results(self, fn: Callable, tasks: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        waiting = list(range(len(tasks)))
        while waiting:
            unfinished, killed = yield from self._round(fn, tasks, waiting, self.capacity)
            if killed:
                # The pool broke because a run past its time limit was ended: the runs it was
                # carrying besides start again.
                waiting = unfinished
                continue
            # A worker died. The runs in flight were the oldest unfinished ones; each is tried
            # again alone, so that a crash now names its run. The rest go on in a new pool.
            suspects, waiting = unfinished[: self.capacity], unfinished[self.capacity :]
            for i in suspects:
                left, killed = yield from self._round(fn, tasks, [i], 1)
                if left and not killed:
                    yield tasks[i], ExecutionError("the worker process running it died")

    def _round(
        self, fn: Callable, tasks: Sequence[Any], indices: list[int], workers: int
    ) -> Generator[tuple[Any, Any], None, tuple[list[int], bool]]:
        """Run ``tasks[i]`` for ``i`` in ``indices`` in a fresh pool until done or until a worker
        dies; yield what finished and return the indices left unfinished, oldest first, and
        whether the pool broke because a run past its time limit was ended."""
        pool = self._start(workers)
        unfinished = list(indices)
        futures = {}
        try:
            # Workers start as tasks are submitted.
            with _without_unreadable_main():
                for i in indices:
                    futures[pool.submit(_reporting, fn, i, tasks[i])] = i
        except cf.process.BrokenProcessPool:
            pass  # the runs not submitted stay unfinished
        started: dict[int, tuple[int, float]] = {}  # task index -> (its worker's pid, when)
        killed = False
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=0.1, return_when=cf.FIRST_COMPLETED)
            for future in done:
                i = futures[future]
                if i not in unfinished:
                    continue  # ended past its time limit: already reported
                try:
                    result = future.result()
                except cf.process.BrokenProcessPool:
                    continue
                except Exception as e:  # the outcome could not come back (say, it does not pickle)
                    result = ExecutionError(f"{type(e).__name__}: {e}")
                unfinished.remove(i)
                yield tasks[i], result
            for i in self._overdue(started, unfinished):
                killed = True
                unfinished.remove(i)
                yield (
                    tasks[i],
                    RunTimeout(
                        f"stopped after {self.timeout:g} s of wall time (the run timeout; its worker "
                        "process was ended)"
                    ),
                )
        self._pool = None
        pool.shutdown(wait=True)
        return unfinished, killed

    def _overdue(self, started: dict[int, tuple[int, float]], unfinished: list[int]) -> list[int]:
        """The tasks past their time limit and its grace, their worker processes killed."""
        if self._starts is None or self.timeout is None:
            return []
        while not self._starts.empty():
            index, pid, at = self._starts.get()
            started[index] = (pid, at)
        now, late = time.monotonic(), []
        for i, (pid, at) in list(started.items()):
            if i in unfinished and now > at + self.timeout + KILL_GRACE_S:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                late.append(i)
                del started[i]
        return late

    def close(self, cancel: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            self._stop(pool, cancel)
        if self._starts is not None:
            self._starts.close()
            self._starts = None
        if self._lifeline is not None:
            for end in self._lifeline:
                end.close()
            self._lifeline = None

    @staticmethod
    def _stop(pool: cf.ProcessPoolExecutor, cancel: bool) -> None:
        if cancel:
            # Stop the runs in progress instead of waiting for them (interrupted sweep).
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=cancel)


class FuturesExecutor(Backend):
    """Any ``concurrent.futures.Executor`` (a thread pool runs several engines at once: the
    engine releases the GIL). The caller owns it; it is not shut down here."""

    def __init__(self, executor: cf.Executor):
        self._executor = executor
        self.capacity = getattr(executor, "_max_workers", 1) or 1
        self.description = type(executor).__name__
        self._futures: list[cf.Future] = []

    def results(self, fn: Callable, tasks: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        futures = {self._executor.submit(fn, t): t for t in tasks}
        self._futures = list(futures)
        for future in cf.as_completed(futures):
            try:
                result = future.result()
            except Exception as e:  # the executor, not the run, failed
                result = ExecutionError(f"{type(e).__name__}: {e}")
            yield futures[future], result

    def close(self, cancel: bool = False) -> None:
        if cancel:
            for f in self._futures:
                f.cancel()


#: A scheduler address: ``[protocol://]host:port``, the host a name, an IPv4 or a bracketed IPv6.
_ADDRESS = re.compile(
    r"(?:(?P<protocol>tcp|tls|ws|wss)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>\d{1,5})"
)

#: Seconds to wait for a scheduler's answer before saying it cannot be reached.
CONNECT_TIMEOUT = 5.0


def check_address(address: str) -> str:
    """A Dask scheduler address, or :class:`BadInput` saying what form it should take."""
    m = _ADDRESS.fullmatch(address.strip())
    if not m or not 0 < int(m.group("port")) < 65536:
        raise BadInput(f"--dask {address!r}: expected a scheduler address such as tcp://host:8786")
    return address.strip()


async def _identity(address: str, timeout: float) -> dict:
    from distributed.core import rpc

    scheduler = rpc(address, timeout=timeout)
    try:
        return await asyncio.wait_for(scheduler.identity(), timeout)
    finally:
        await scheduler.close_rpc()


def _refused(address: str, timeout: float) -> Optional[str]:
    """Why a plain TCP connection to ``address`` fails at once (``None`` if it does not): Dask
    would retry a refused connection until its timeout."""
    m = _ADDRESS.fullmatch(address)
    if not m or m.group("protocol") not in (None, "tcp"):
        return None
    try:
        socket.create_connection((m.group("host").strip("[]"), int(m.group("port"))), timeout).close()
    except OSError as e:
        return e.strerror or str(e) or type(e).__name__
    return None


def probe_scheduler(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Ask ``address`` who it is, within ``timeout`` seconds. A ``Client`` that fails to connect
    keeps the process waiting for twice its timeout while it is collected, so it is only made
    once a scheduler has answered."""
    refused = _refused(address, timeout)
    if refused:
        raise BadInput(f"--dask {address}: cannot reach the scheduler ({refused})")
    try:
        answer = asyncio.run(_identity(address, timeout))
    except (KeyboardInterrupt, SystemExit):
        raise
    except MemoryError:  # a server that is no scheduler answered with a huge "message length"
        raise BadInput(f"--dask {address}: the server there is not a Dask scheduler") from None
    except BaseException as e:  # noqa: B036 - whatever the other end sends, the answer is no
        reason = one_line(str(e)) or ("no answer" if isinstance(e, TimeoutError) else type(e).__name__)
        raise BadInput(
            f"--dask {address}: cannot reach the scheduler within {timeout:g} s ({reason})"
        ) from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise BadInput(f"--dask {address}: the server there is not a Dask scheduler")


class DaskCluster(Backend):
    """A Dask distributed scheduler, by address (``tcp://host:8786``) or as a ``Client``."""

    def __init__(self, target: Any):
        try:
            import distributed
        except ImportError:
            raise BadInput("--dask needs dask.distributed: pip install 'ndncc[dask]'") from None
        self._distributed = distributed
        if isinstance(target, str):
            address = check_address(target)
            probe_scheduler(address)
            try:
                self._client = distributed.Client(
                    address, timeout=f"{CONNECT_TIMEOUT:g}s", set_as_default=False
                )
            except (OSError, TimeoutError) as e:
                raise BadInput(f"--dask {target}: cannot reach the scheduler ({e})") from None
            self._own = True
        else:
            self._client = target
            self._own = False
        self.capacity = max(1, sum(self._client.nthreads().values()))
        self.description = f"Dask at {self._client.scheduler.address} ({self.capacity} threads)"
        self._futures: list[Any] = []

    def results(self, fn: Callable, tasks: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        futures = {}
        for t in tasks:
            # Named after the run, so a run is never computed twice on the cluster at once.
            f = self._client.submit(fn, t, key=f"ndncc-run-{t.key}", pure=False)
            futures[f] = t
        self._futures = list(futures)
        for future in self._distributed.as_completed(list(futures), loop=self._client.loop):
            try:
                result = future.result()
            except Exception as e:
                result = ExecutionError(f"{type(e).__name__}: {e}")
            future.release()
            yield futures[future], result

    def close(self, cancel: bool = False) -> None:
        if cancel and self._futures:
            self._client.cancel(self._futures)
        if self._own:
            self._client.close()


Target = Union[None, int, str, cf.Executor, Any]


def check_executor(executor: Target) -> None:
    """Refuse an executor :func:`backend` would refuse, without starting or reaching it, so that
    a sweep given a bad one stops before it writes anything."""
    if isinstance(executor, int) and not isinstance(executor, bool):
        check_workers(executor)
    elif isinstance(executor, str):
        check_address(executor)
    elif not (executor is None or isinstance(executor, cf.Executor) or _is_dask_client(executor)):
        raise BadInput(
            f"executor {executor!r}: expected a worker count, a Dask address or client, or an Executor"
        )


def _is_dask_client(executor: Target) -> bool:
    return type(executor).__module__.split(".")[0] == "distributed"


def backend(executor: Target = None, timeout: Optional[float] = None) -> Backend:
    """``None``: a local pool on every core; ``K``: a local pool of ``K``; ``"tcp://…"``: Dask at
    that address; a ``distributed.Client``; or any ``concurrent.futures.Executor``. ``timeout``:
    a local pool ends a worker whose task runs past it (the others cannot)."""
    check_executor(executor)
    if executor is None or isinstance(executor, int):
        return LocalPool(executor, timeout)
    if isinstance(executor, cf.Executor):
        return FuturesExecutor(executor)
    return DaskCluster(executor)  # an address or a client
