"""What the package and the ``ndncc`` command import before they need it, and the thread that
imports the table libraries while the engine runs (ndncc.preload)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from ndncc import preload

#: Libraries the command line must not load before a command asks for them.
HEAVY = ("polars", "numpy", "matplotlib", "rich", "typer", "pydantic", "pandas")


def fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON value, returned here."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_importing_the_package_and_its_command_line_loads_no_table_or_drawing_library():
    code = "import sys, json, ndncc, ndncc.cli; print(json.dumps(sorted(sys.modules)))"
    loaded = fresh(code)
    assert [m for m in HEAVY if m in loaded] == []


def test_every_name_of_the_package_api_is_there_when_first_used():
    code = (
        "import json, ndncc, inspect\n"
        "found = {n: getattr(ndncc, n).__module__ if not isinstance(getattr(ndncc, n), str) else 'str'"
        " for n in ndncc.__all__}\n"
        "import ndncc.sweeping\n"  # the module named like the function must not hide it
        "found['sweep is a function'] = inspect.isfunction(ndncc.sweep)\n"
        "found['dir'] = sorted(set(ndncc.__all__) - set(dir(ndncc)))\n"
        "print(json.dumps(found))"
    )
    found = fresh(code)
    assert found.pop("sweep is a function") is True
    assert found.pop("dir") == []
    assert found["Result"] == "ndncc.result" and found["sweep"] == "ndncc.sweeping"
    assert found["load"] == "ndncc.scenario" and found["BadInput"] == "ndncc.errors"


def test_a_submodule_is_there_without_importing_it_first():
    code = "import json, ndncc; print(json.dumps([ndncc.plots.__name__, ndncc.errors.NdnccWarning.__name__]))"
    assert fresh(code) == ["ndncc.plots", "NdnccWarning"]


def test_an_unknown_name_of_the_package_is_an_attribute_error():
    import ndncc

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ndncc.nope  # noqa: B018


def test_a_run_imports_the_result_module_beside_the_engine_and_gets_the_same_result(scenario_file):
    # In a fresh interpreter nothing has imported ndncc.result before the run; the run's
    # summary is the one this process (which has it imported) computes.
    code = (
        "import sys, json, ndncc\n"
        f"sc = ndncc.load({str(scenario_file)!r})\n"
        "before = 'ndncc.result' in sys.modules or 'polars' in sys.modules\n"
        "res = sc.run(seed=3)\n"
        "print(json.dumps({'before': before, 'summary': res.summary.to_dicts()}))"
    )
    got = fresh(code)
    import ndncc

    assert got["before"] is False
    assert got["summary"] == json.loads(json.dumps(ndncc.load(scenario_file).run(seed=3).summary.to_dicts()))


def test_preload_imports_on_another_thread_and_waits_for_it_at_the_end(monkeypatch):
    threads = []

    def record(names, warm):
        threads.append((threading.current_thread().name, names))

    monkeypatch.setattr(preload, "_import_all", record)
    with preload.importing("json", "ndncc_no_such_module_a"):
        pass
    # Only what is not imported yet is imported, and on the preload thread.
    assert threads == [("ndncc-preload", ("ndncc_no_such_module_a",))]
    threads.clear()
    with preload.importing("json"):
        pass
    assert threads == []


def test_the_preload_thread_warms_up_once_it_has_imported(tmp_path, monkeypatch):
    (tmp_path / "ndncc_warm_probe.py").write_text(
        "import threading\ncalls = []\ndef warm():\n    calls.append(threading.current_thread().name)\n"
    )
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    with preload.importing("ndncc_warm_probe", warm="ndncc_warm_probe.warm"):
        pass
    assert sys.modules.pop("ndncc_warm_probe").calls == ["ndncc-preload"]


def test_the_result_s_warm_up_builds_and_encodes_a_table():
    # The preload thread swallows its errors, so a warm-up that broke would go unnoticed there.
    from ndncc import result

    result.warm_up()


def test_a_module_that_fails_to_import_on_the_preload_thread_fails_where_it_is_used():
    with preload.importing("ndncc_no_such_module_b"):
        pass
    assert "ndncc_no_such_module_b" not in sys.modules
    with pytest.raises(ModuleNotFoundError, match="ndncc_no_such_module_b"):
        __import__("ndncc_no_such_module_b")


@pytest.mark.parametrize("preset, expected", [(None, "1"), ("3", "3")])
def test_the_script_keeps_openblas_to_one_thread_unless_the_user_chose(monkeypatch, preset, expected):

    from ndncc import cli

    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    seen, left = [], []
    monkeypatch.setattr(cli, "main", lambda: seen.append(os.environ.get("OPENBLAS_NUM_THREADS")) or 7)
    monkeypatch.setattr(cli, "leave", left.append)
    cli.script()
    assert (seen, left) == ([expected], [7])


LEAVE = """
import atexit, sys, threading, time
from ndncc.cli import leave
{setup}
atexit.register(lambda: print("exit handler ran", flush=True))
sys.stdout.write("written, not flushed;")
leave({code})
print("not reached")
"""


def _leave(setup: str = "", code: int = 3) -> subprocess.CompletedProcess:
    script = LEAVE.format(setup=setup, code=code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_the_script_leaves_with_its_code_after_the_exit_handlers_and_flushed_output():
    done = _leave()
    assert (done.returncode, done.stdout) == (3, "written, not flushed;exit handler ran\n")


def test_leaving_waits_for_a_thread_that_is_not_a_daemon():
    late = "threading.Thread(target=lambda: (time.sleep(0.3), print('late thread done'))).start()"
    done = _leave(late)
    assert done.returncode == 3
    assert "late thread done" in done.stdout and "exit handler ran" in done.stdout


def test_output_that_cannot_be_flushed_makes_the_exit_code_120():
    broken = (
        "class Broken:\n"
        "    def write(self, s): return len(s)\n"
        "    def flush(self): raise BrokenPipeError\n"
        "sys.stdout = Broken()"
    )
    assert _leave(broken, code=0).returncode == 120
    assert _leave(broken, code=2).returncode == 2


def test_the_ndncc_script_runs_and_exits_with_its_command_s_code(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "ndncc", "--version"], capture_output=True, text=True)
    assert (ok.returncode, ok.stdout.split()[0]) == (0, "ndncc")
    bad = subprocess.run(
        [sys.executable, "-m", "ndncc", "run", str(tmp_path / "nope.toml")], capture_output=True
    )
    assert bad.returncode == 2


def test_runs_started_at_once_in_threads_of_a_fresh_interpreter_share_the_preload(scenario_file):
    # Both runs find ndncc.result not imported yet, so both start importing it beside their
    # engines; the import system lets one finish and the other wait for it.
    code = (
        "import json, ndncc\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        f"sc = ndncc.load({str(scenario_file)!r})\n"
        "with ThreadPoolExecutor(2) as pool:\n"
        "    a, b = pool.map(lambda s: sc.run(seed=s).summary.to_dicts(), [5, 5])\n"
        "print(json.dumps(a == b and len(a) > 0))"
    )
    assert fresh(code) is True
