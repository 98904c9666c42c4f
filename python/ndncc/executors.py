"""Where a sweep's runs execute: a local process pool (the default), a Dask cluster, or any
``concurrent.futures`` executor the caller hands in.

Each backend takes picklable tasks and a module-level function, and yields ``(task, result)`` as
runs finish, in whatever order they finish. A task whose execution failed outside the function
(a worker process that died, a task Dask gave up on) yields an :class:`ExecutionError` instead.
"""

from __future__ import annotations

import abc
import concurrent.futures as cf
import multiprocessing
import os
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable, Generator, Iterator, Optional, Sequence, Union

from .errors import BadInput


class ExecutionError(Exception):
    """A run could not be carried out by the executor (not an error of the run itself)."""


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


def _init_worker(lifeline: Connection) -> None:
    """Runs first in each pool process: Ctrl-C is the driver's to handle (it stops the workers),
    and the worker ends with its driver."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_driver, args=(lifeline,), daemon=True).start()


def _context() -> multiprocessing.context.BaseContext:
    """Fresh interpreters, never a ``fork`` of the (threaded) driver: forkserver where it exists,
    with ndncc imported once in the server so each worker starts warm; spawn elsewhere."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ndncc.sweep"])
        return ctx
    return multiprocessing.get_context("spawn")


class LocalPool(Backend):
    """``K`` worker processes on this machine. If a worker dies, the pool is rebuilt; the runs it
    may have been carrying are tried once more, one at a time, and fail if their worker dies again."""

    def __init__(self, workers: Optional[int] = None):
        self.capacity = workers or default_workers()
        if self.capacity < 1:
            raise BadInput("--workers must be at least 1")
        self.description = f"{self.capacity} local worker{'s' if self.capacity != 1 else ''}"
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._lifeline: Optional[tuple[Connection, Connection]] = None

    def _start(self, workers: int) -> cf.ProcessPoolExecutor:
        ctx = _context()
        if self._lifeline is None:
            self._lifeline = ctx.Pipe(duplex=False)  # (read end for workers, write end kept here)
        self._pool = cf.ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_init_worker, initargs=(self._lifeline[0],)
        )
        return self._pool

    def results(self, fn: Callable, tasks: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        waiting = list(range(len(tasks)))
        while waiting:
            unfinished = yield from self._round(fn, tasks, waiting, self.capacity)
            # A worker died. The runs in flight were the oldest unfinished ones; each is tried
            # again alone, so that a crash now names its run. The rest go on in a new pool.
            suspects, waiting = unfinished[: self.capacity], unfinished[self.capacity :]
            for i in suspects:
                if (yield from self._round(fn, tasks, [i], 1)):
                    yield tasks[i], ExecutionError("the worker process running it died")

    def _round(
        self, fn: Callable, tasks: Sequence[Any], indices: list[int], workers: int
    ) -> Generator[tuple[Any, Any], None, list[int]]:
        """Run ``tasks[i]`` for ``i`` in ``indices`` in a fresh pool until done or until a worker
        dies; yield what finished and return the indices left unfinished, oldest first."""
        pool = self._start(workers)
        unfinished = list(indices)
        futures = {}
        try:
            for i in indices:
                futures[pool.submit(fn, tasks[i])] = i
        except cf.process.BrokenProcessPool:
            pass  # the runs not submitted stay unfinished
        for future in cf.as_completed(futures):
            try:
                result = future.result()
            except cf.process.BrokenProcessPool:
                continue
            unfinished.remove(futures[future])
            yield tasks[futures[future]], result
        self._pool = None
        pool.shutdown(wait=True)
        return unfinished

    def close(self, cancel: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            self._stop(pool, cancel)
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


class DaskCluster(Backend):
    """A Dask distributed scheduler, by address (``tcp://host:8786``) or as a ``Client``."""

    def __init__(self, target: Any):
        try:
            import distributed
        except ImportError:
            raise BadInput("--dask needs dask.distributed: pip install 'ndncc[dask]'") from None
        self._distributed = distributed
        if isinstance(target, str):
            try:
                self._client = distributed.Client(target, timeout="10s", set_as_default=False)
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


def backend(executor: Target = None) -> Backend:
    """``None``: a local pool on every core; ``K``: a local pool of ``K``; ``"tcp://…"``: Dask at
    that address; a ``distributed.Client``; or any ``concurrent.futures.Executor``."""
    if executor is None or (isinstance(executor, int) and not isinstance(executor, bool)):
        return LocalPool(executor)
    if isinstance(executor, str):
        return DaskCluster(executor)
    if isinstance(executor, cf.Executor):
        return FuturesExecutor(executor)
    if type(executor).__module__.split(".")[0] == "distributed":
        return DaskCluster(executor)
    raise BadInput(
        f"executor {executor!r}: expected a worker count, a Dask address or client, or an Executor"
    )
