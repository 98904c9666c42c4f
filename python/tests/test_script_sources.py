"""A sweep on the local pool from every way of handing Python a script: a file, standard input,
``-c``, and a file gone since it started. Each works, with no worker traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"

#: An unguarded sweep of 4 runs on two local workers, as a script at its top level.
SWEEP = textwrap.dedent(
    """\
    import ndncc
    res = ndncc.sweep({example!r}, grid={{"apps.consumer.window.window": [5, 10]}}, seeds=2,
                      overrides=['simulation.duration="1s"'], out={out!r}, executor=2, progress=False)
    print("runs", res.status.done, res.status.failed)
    """
)


def python(args: list[str], tmp_path: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], input=stdin, cwd=tmp_path, capture_output=True, text=True, timeout=180
    )


def script(tmp_path: Path, prefix: str = "") -> str:
    return prefix + SWEEP.format(example=str(EXAMPLE), out=str(tmp_path / "out"))


@pytest.mark.parametrize("how", ["stdin", "-c", "deleted file"])
def test_a_script_that_is_no_file_sweeps_on_the_local_pool_without_a_guard(tmp_path, how):
    if how == "stdin":
        proc = python(["-"], tmp_path, stdin=script(tmp_path))
    elif how == "-c":
        proc = python(["-c", script(tmp_path)], tmp_path)
    else:
        path = tmp_path / "study.py"
        path.write_text(script(tmp_path, prefix="import os\nos.remove(__file__)\n"))
        proc = python([str(path)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "runs 4 0"
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out" / "failed").exists() or not any((tmp_path / "out" / "failed").iterdir())
