"""The shipped scenario and sweep files (ndncc.shipped), and the wheel a user installs.

The last test builds the wheel, installs it into a fresh venv outside the repository and runs
ndncc from there; it is marked ``package`` and runs in ``make package-check`` (part of
``make test``), not in a plain ``pytest``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from ndncc import shipped, sweepfile
from ndncc.errors import BadInput, MissingFile

ROOT = Path(__file__).resolve().parents[2]
REPO_FILES = {
    "scenario": sorted((ROOT / "scenarios").glob("*.toml")),
    "sweep": sorted((ROOT / "sweeps").glob("*.toml")),
}
#: The registries of the seeds' claims (ndncc.seedclaims), package data beside the experiments.
SEED_CLAIMS = sorted((ROOT / "python" / "ndncc" / "experiments" / "seed_claims").glob("*.toml"))


# ---------------------------------------------------------------- finding the files


def test_every_file_of_the_repository_folders_is_shipped():
    found = {(f.kind, f.name): f.path for f in shipped.shipped()}
    expected = {(kind, p.stem): p for kind, paths in REPO_FILES.items() for p in paths}
    assert set(found) == set(expected)
    for key, path in expected.items():
        assert found[key].samefile(path)


def test_reproductions_read_the_shipped_scenario_files():
    assert shipped.scenario_path("e3.toml").samefile(ROOT / "scenarios" / "e3.toml")
    with pytest.raises(MissingFile, match="no shipped scenario 'nope.toml'"):
        shipped.scenario_path("nope.toml")


def test_a_checkout_without_the_package_links_falls_back_to_its_folders(monkeypatch, tmp_path):
    monkeypatch.setattr(shipped.resources, "files", lambda package: tmp_path)
    assert shipped.folder("sweep") == ROOT / "sweeps"


def test_names_are_unique_across_scenarios_and_sweeps():
    names = [f.name for f in shipped.shipped()]
    assert len(names) == len(set(names))


def test_every_shipped_file_has_its_own_one_line_description():
    described = {f.name: f.description for f in shipped.shipped()}
    for name, text in described.items():
        assert text and "\n" not in text, name
    assert len(set(described.values())) == len(described), "two files read the same in the list"
    assert described["minimal"].startswith("The smallest useful experiment: one consumer")
    assert described["minimal"].endswith("for 10 seconds")


@pytest.mark.parametrize(
    "text, sentence",
    [
        ("# One line.\n\nkey = 1\n", "One line"),
        ("# Two lines that make\n# one sentence. And more.\n", "Two lines that make one sentence"),
        ("# A citation (Kato et al.\n# 2020) inside. Next.\n", "A citation (Kato et al. 2020) inside"),
        ("# A diagram follows:\n#\n#   A -- B\n", "A diagram follows"),
        ("# Two words: both kept. Next.\n", "Two words: both kept"),
        ("#\n# After a blank comment line.\n", "After a blank comment line"),
        ("# No full stop\n\n# a later comment.\n", "No full stop"),
        ("key = 1\n# not leading.\n", ""),
        ("# ndnSIM 2.8's set-up. More.\n", "ndnSIM 2.8's set-up"),
    ],
)
def test_the_description_is_the_first_sentence_of_the_leading_comment(text, sentence):
    assert shipped.first_sentence(text) == sentence


# ---------------------------------------------------------------- copying


def test_a_scenario_is_copied_into_a_folder_unchanged(tmp_path):
    written = shipped.copy("e3", tmp_path)
    assert written == [tmp_path / "e3.toml"]
    assert written[0].read_bytes() == (ROOT / "scenarios" / "e3.toml").read_bytes()


def test_a_scenario_is_copied_to_a_new_file_name(tmp_path):
    assert shipped.copy("minimal.toml", tmp_path / "mine.toml") == [tmp_path / "mine.toml"]
    assert (tmp_path / "mine.toml").read_text() == (ROOT / "scenarios" / "minimal.toml").read_text()


def test_a_sweep_file_takes_its_scenario_along(tmp_path):
    written = shipped.copy("e3-loss", tmp_path)
    assert written == [tmp_path / "e3-loss.toml", tmp_path / "e3.toml"]
    sweep = sweepfile.read(tmp_path / "e3-loss.toml")
    assert sweep.scenario == tmp_path / "e3.toml"
    original = (ROOT / "sweeps" / "e3-loss.toml").read_text()
    assert 'scenario = "../scenarios/e3.toml"' in original
    assert written[0].read_text() == original.replace('"../scenarios/e3.toml"', '"e3.toml"', 1)


@pytest.mark.parametrize("sweep", [p.stem for p in REPO_FILES["sweep"]])
def test_every_sweep_file_copied_reads_with_its_scenario_beside_it(tmp_path, sweep):
    sweep_copy, scenario_copy = shipped.copy(sweep, tmp_path)
    assert sweepfile.read(sweep_copy).scenario == scenario_copy
    original = sweepfile.read(ROOT / "sweeps" / f"{sweep}.toml").scenario
    assert scenario_copy.read_bytes() == original.read_bytes()


def test_copy_keeps_existing_files_unless_forced(tmp_path):
    (tmp_path / "e3.toml").write_text("mine")
    with pytest.raises(BadInput, match=r"e3\.toml: already there \(add --force to replace\)"):
        shipped.copy("e3-loss", tmp_path)
    assert not (tmp_path / "e3-loss.toml").exists(), "nothing is written when one file is refused"
    assert (tmp_path / "e3.toml").read_text() == "mine"
    shipped.copy("e3-loss", tmp_path, force=True)
    assert (tmp_path / "e3.toml").read_text() == (ROOT / "scenarios" / "e3.toml").read_text()


def test_copy_refuses_unknown_names_and_missing_folders(tmp_path):
    with pytest.raises(BadInput, match="no shipped scenario or sweep file 'e9'.*known: dumbbell"):
        shipped.copy("e9", tmp_path)
    with pytest.raises(MissingFile, match="no such folder"):
        shipped.copy("e3", tmp_path / "missing" / "e3.toml")
    with pytest.raises(MissingFile, match="no such folder"):
        shipped.copy("e3", f"{tmp_path / 'missing'}/")


# ---------------------------------------------------------------- the wheel


def _run(args: list, cwd: Path, env: dict) -> str:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _maturin() -> str:
    beside = Path(sys.executable).with_name("maturin")
    found = str(beside) if beside.exists() else shutil.which("maturin")
    assert found, "maturin is needed to build the wheel (make setup installs it into .venv)"
    return found


def _fresh_venv(venv: Path, env: dict) -> list:
    """Make a venv and return the pip command that installs into it (dependencies come from
    the package index). A pip that can install into another environment (22.3 and later) spares
    the new venv a pip of its own, which takes seconds to set up."""
    import pip

    version = tuple(int(n) for n in re.match(r"(\d+)\.(\d+)", pip.__version__).groups())
    if version >= (22, 3):
        _run([sys.executable, "-m", "venv", "--without-pip", venv], venv.parent, env)
        return [sys.executable, "-m", "pip", "--python", venv / "bin" / "python"]
    _run([sys.executable, "-m", "venv", venv], venv.parent, env)
    return [venv / "bin" / "python", "-m", "pip"]


@pytest.mark.package
def test_the_wheel_reproduces_an_experiment_from_a_fresh_venv_elsewhere(tmp_path):
    # Nothing of the repository or of the development venv may leak into the installed one.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    # The ci profile and this interpreter, as `make test`'s `maturin develop --profile ci` had:
    # cargo then finds every crate built (another interpreter would rebuild pyo3 and the crates
    # above it).
    build = [_maturin(), "build", "--profile", "ci", "-i", sys.executable, "--out", tmp_path / "dist"]
    _run(build, ROOT, env)
    (wheel,) = (tmp_path / "dist").glob("ndncc-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for kind, folder in shipped.FOLDERS.items():
            for path in REPO_FILES[kind]:
                assert archive.read(f"ndncc/data/{folder}/{path.name}") == path.read_bytes()
        assert SEED_CLAIMS
        for path in SEED_CLAIMS:
            assert archive.read(f"ndncc/experiments/seed_claims/{path.name}") == path.read_bytes()
        dissector = ROOT / "python" / "ndncc" / "data" / "wireshark" / "ndncc.lua"
        assert archive.read("ndncc/data/wireshark/ndncc.lua") == dissector.read_bytes()
    # The source distribution carries them as plain files, so a wheel built from it has them too.
    _run([_maturin(), "sdist", "--out", tmp_path / "dist"], ROOT, env)
    (sdist,) = (tmp_path / "dist").glob("ndncc-*.tar.gz")
    with tarfile.open(sdist) as archive:
        packed = {Path(m.name).relative_to(Path(m.name).parts[0]).as_posix() for m in archive if m.isfile()}
    for kind, folder in shipped.FOLDERS.items():
        assert {f"python/ndncc/data/{folder}/{p.name}" for p in REPO_FILES[kind]} <= packed
    assert {f"python/ndncc/experiments/seed_claims/{p.name}" for p in SEED_CLAIMS} <= packed

    venv = tmp_path / "venv"
    bin_dir = venv / "bin"
    pip = _fresh_venv(venv, env)
    _run([*pip, "install", "--quiet", "--no-compile", "--disable-pip-version-check", wheel], tmp_path, env)

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run(
        [bin_dir / "python", "-c", "from ndncc import shipped; print(shipped.folder('scenario'))"], work, env
    )
    assert Path(where.strip()).is_relative_to(venv.resolve()), where

    listing = _run([bin_dir / "ndncc", "scenarios", "list"], work, env)
    listed = {line.split()[0] for line in listing.splitlines()}
    assert listed == {p.stem for paths in REPO_FILES.values() for p in paths}

    # E1 is the quickest reproduction (about 8 s with --quick).
    _run([bin_dir / "ndncc", "reproduce", "e1", "--quick", "--out", "results"], work, env)
    rows = json.loads((work / "results" / "e1" / "summary.json").read_text())
    assert {"tick=100ms,original", "tick=750ms,smoothing"} <= {r["variant"] for r in rows}
    # The installed registry judged the seed's claims: the scoreboard is on the pages.
    board = json.loads((work / "results" / "e1" / "scoreboard.json").read_text())
    assert board["claims"] and sum(board["counts"].values()) == len(board["claims"])
    assert "## The seed's claims" in (work / "results" / "e1" / "report.md").read_text()

    _run([bin_dir / "ndncc", "scenarios", "copy", "minimal"], work, env)
    _run([bin_dir / "ndncc", "run", "minimal.toml", "--out", "run"], work, env)
    assert (work / "run" / "summary.json").is_file()
