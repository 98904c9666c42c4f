"""docs/first-experiment.md, followed step by step in an empty folder as a reader would.

The page's fenced blocks say what to do with them:

- ```` ```toml ```` and ```` ```python ```` blocks whose first line is a comment naming a file
  (``# lossy.toml``) are saved under that name;
- ```` ```sh ```` blocks are run, one command a line, with the ``ndncc`` and ``python`` of this
  environment first on the ``PATH``;
- a ```` ```text ```` block right after an ``sh`` block is what its last command prints: each of
  its lines must be a line of that output (stdout and stderr), table borders and runs of spaces
  aside, with ``…`` standing for anything. A block that starts with ``error:`` shows a refusal,
  whose exit code must be 2; every other command must succeed. A ``text`` block under the comment
  ``<!-- checked against PATH -->`` is checked against that file instead;
- blocks without a language are the installation commands, which are not run here.

After the walk-through the test checks what the page says in prose: the sweep's seeds give
different runs, the non-random sweep's give identical ones, and the figures are labelled PDFs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import polars as pl

import ndncc

PAGE = Path(__file__).resolve().parents[2] / "docs" / "first-experiment.md"

#: A fenced block, with the comment that may name the file its text is checked against.
_BLOCK = re.compile(r"(?:^<!-- checked against (\S+) -->\n)?^```(\w*)\n(.*?)^```$", re.M | re.S)
#: The first line of a block that is to be saved as a file.
_FILE_NAME = re.compile(r"# ([\w.-]+\.(?:toml|py))\n")
#: Table borders and column rules of the command line's tables.
_TABLE_RULES = re.compile(r"[│┃┏┓┗┛┡┩└┘┳┻╇╋━─]+")
#: The installation commands, shown but not run.
_INSTALL = ("python3 -m venv ", ". ", "pip install ", "make setup")


@dataclass
class Block:
    lang: str  # "" for a block without a language
    text: str
    checked_file: str  # "" unless the block is checked against a file


def blocks(page: str) -> list[Block]:
    return [Block(lang, text, checked) for checked, lang, text in _BLOCK.findall(page)]


def commands(script: str) -> list[str]:
    """The commands of an ``sh`` block: one a line, ``\\`` continuing a line, ``#`` comments out."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [
        line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


def normalised(line: str) -> str:
    return " ".join(_TABLE_RULES.sub(" ", line).split())


def assert_lines_shown(expected: str, actual: str, where: str) -> None:
    shown = [normalised(line) for line in actual.splitlines()]
    for line in expected.splitlines():
        want = normalised(line)
        if not want:
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("…")))
        assert any(pattern.fullmatch(s) for s in shown), f"{where}: no line reads\n  {want}\nin:\n{actual}"


def run_command(command: str, work: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )


def walk_through(page: str, work: Path, bin_dir: Path) -> list[str]:
    """Follow ``page`` in the folder ``work`` with the commands in ``bin_dir``; return the
    commands run."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    ran: list[str] = []
    last: Optional[subprocess.CompletedProcess] = None
    shown = blocks(page)
    for i, block in enumerate(shown):
        if block.lang in ("toml", "python"):
            name = _FILE_NAME.match(block.text)
            if name:
                (work / name.group(1)).write_text(block.text)
        elif block.lang == "sh":
            follower = shown[i + 1] if i + 1 < len(shown) else None
            refused = (
                follower is not None
                and follower.lang == "text"
                and not follower.checked_file
                and follower.text.startswith("error:")
            )
            script = commands(block.text)
            assert script, f"an empty sh block in {PAGE.name}"
            for n, command in enumerate(script):
                last = run_command(command, work, env)
                expected = 2 if refused and n == len(script) - 1 else 0
                assert last.returncode == expected, (
                    f"{command}: exit code {last.returncode}, not {expected}\n{last.stdout}\n{last.stderr}"
                )
                ran.append(command)
        elif block.lang == "text":
            if block.checked_file:
                path = work / block.checked_file
                assert path.is_file(), f"{block.checked_file}: not written"
                assert_lines_shown(block.text, path.read_text(), block.checked_file)
            else:
                previous = shown[i - 1] if i > 0 else None
                assert previous is not None and previous.lang == "sh" and last is not None, (
                    f"a text block in {PAGE.name} follows no command:\n{block.text}"
                )
                assert_lines_shown(block.text, last.stdout + last.stderr, ran[-1])
        else:
            assert block.lang == "", f"{PAGE.name}: a ```{block.lang} block, which this test cannot check"
            for line in block.text.splitlines():
                assert line.startswith(_INSTALL), f"{PAGE.name}: an untagged block runs {line!r}"
    return ran


def test_the_blocks_are_read_as_the_page_means_them():
    page = (
        "<!-- checked against out/a.md -->\n```text\n| a |\n```\n\n```sh\nndncc run x.toml \\\n"
        "  --out y  # here\n# aside\n```\n```toml\n# x.toml\nk = 1\n```\n```\nmake setup\n```\n"
    )
    found = blocks(page)
    assert [(b.lang, b.checked_file) for b in found] == [
        ("text", "out/a.md"),
        ("sh", ""),
        ("toml", ""),
        ("", ""),
    ]
    assert commands(found[1].text) == ["ndncc run x.toml  --out y  # here"]
    assert _FILE_NAME.match(found[2].text).group(1) == "x.toml"


def test_quoted_output_must_appear_as_a_whole_line():
    table = "│ 5   │ consumer │ 1770  │ ± 21.1 │\nok: 3 s simulated in 0.02 s\n"
    assert_lines_shown("│ 5 │ consumer │ 1770 │ ± 21.1 │\nok: … s simulated in … s", table, "t")
    for wrong in ("│ 5 │ consumer │ 1771 │ ± 21.1 │", "consumer", "ok: … s simulated"):
        try:
            assert_lines_shown(wrong, table, "t")
        except AssertionError:
            continue
        raise AssertionError(f"{wrong!r} was taken as shown")


def test_a_reader_following_the_page_gets_a_defensible_sweep(tmp_path):
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "ndncc").exists(), f"no ndncc command beside {sys.executable}"
    ran = walk_through(PAGE.read_text(), tmp_path, bin_dir)

    # Every step of the page was run, not skipped by a block the test did not recognise.
    steps = ["ndncc validate", "ndncc run", "ndncc sweep", "ndncc plot", "python study.py"]
    for step in [*steps, "python read_back.py"]:
        assert any(command.startswith(step) for command in ran), f"the page runs no '{step}'"

    # Without a random source the ten seeds are ten copies of one run ...
    plain = ndncc.open_sweep(tmp_path / "runs" / "plain")
    per_value = plain.runs.group_by("apps.consumer.window.window", "entity", "metric")
    assert per_value.agg(pl.col("value").n_unique())["value"].max() == 1
    # ... with loss and start jitter they differ, and every interval has a width.
    window = ndncc.open_sweep(tmp_path / "runs" / "window")
    throughput = window.runs.filter(pl.col("metric") == "throughput_kbps")
    assert (
        throughput.group_by("apps.consumer.window.window").agg(pl.col("value").n_unique())["value"].min() > 1
    )
    shown = window.summary()
    assert set(shown["metric"]) == {"throughput_kbps", "mean_rtt_ms"}
    assert shown.height == 10 and (shown["n"] == 10).all() and (shown["ci95"] > 0).all()
    # The Python sweep ran the same runs into its own folder.
    from_python = ndncc.open_sweep(tmp_path / "runs" / "window-py").summary()
    assert from_python.equals(shown)

    figures = [
        tmp_path / "runs" / "window" / "figures" / f"{m}.pdf" for m in ("throughput_kbps", "mean_rtt_ms")
    ]
    for pdf in [*figures, tmp_path / "throughput.pdf", tmp_path / "rtt.pdf"]:
        assert pdf.read_bytes().startswith(b"%PDF-"), pdf
    figure = window.plot("throughput_kbps")
    assert figure.axes[0].get_ylabel() == "throughput [kbit/s]"
    assert figure.axes[0].get_title() == "Throughput: mean and 95% CI over 10 seeds"
    assert figure.axes[0].get_xlabel()
