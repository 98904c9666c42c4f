"""The ``ndncc`` command: exit codes, messages, and what each command writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ndncc import cli, experiments


def ndncc(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_writes_the_output_folder(capsys, scenario_file, tmp_path):
    code, out, err = ndncc(
        capsys,
        "run",
        scenario_file,
        "--out",
        tmp_path / "r",
        "--seed",
        4,
        "--set",
        'simulation.duration="2s"',
        "--figures",
    )
    assert code == 0, err
    assert f"-> {tmp_path / 'r'}" in out
    names = {p.name for p in (tmp_path / "r").iterdir()}
    assert {
        "manifest.json",
        "summary.json",
        "series.parquet",
        "faces.parquet",
        "report.md",
        "window.png",
    } <= names
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert (manifest["seed"], manifest["sim_seconds"]) == (4, 2.0)
    assert manifest["overrides"] == ['simulation.duration="2s"']


def test_run_into_a_folder_that_cannot_be_written_fails_before_running(capsys, scenario_file, monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError("the simulation ran before the folder was checked")

    monkeypatch.setattr(cli, "run_with_progress", no_run)
    code, _, err = ndncc(capsys, "run", scenario_file, "-o", "/proc/ndncc-cannot-be-here")
    assert code == 2 and "cannot write a folder there" in err


def test_plot_refuses_a_run_folder_whose_summary_is_empty(capsys, scenario_file, tmp_path):
    out = tmp_path / "run"
    assert ndncc(capsys, "run", scenario_file, "-o", out)[0] == 0
    (out / "summary.json").write_text("[]")
    code, _, err = ndncc(capsys, "plot", out)
    assert code == 2 and "holds no rows" in err


def test_run_defaults_to_runs_slash_name(capsys, scenario_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ndncc(capsys, "run", scenario_file)[0] == 0
    assert (tmp_path / "runs" / "two-node" / "summary.json").is_file()


def test_a_bad_scenario_exits_2_naming_file_line_and_key(capsys, bad_scenario):
    code, out, err = ndncc(capsys, "run", bad_scenario)
    assert code == 2
    assert err.startswith(f"error: {bad_scenario}:9: apps.consumer.node: ")
    assert "Traceback" not in err and err.count("\n") == 1


def test_a_toml_syntax_error_is_one_line_with_its_line(capsys, tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text('[simulation]\nduration = "1s"\n[nodes\n')
    code, _, err = ndncc(capsys, "validate", bad)
    assert code == 2
    assert err.startswith(f"error: {bad}:3: ")
    assert err.count("\n") == 1


def test_a_bad_override_exits_2(capsys, scenario_file):
    code, _, err = ndncc(capsys, "validate", scenario_file, "--set", 'simulation.duration="soon"')
    assert code == 2
    assert "simulation.duration" in err


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_an_override_error_names_the_set_option_not_a_line_of_the_file(capsys, scenario_file, command):
    code, _, err = ndncc(capsys, command, scenario_file, "--set", 'links.C-P.delay="9 parsecs"')
    assert code == 2
    assert err.startswith(f"error: {scenario_file}: --set links.C-P.delay: unknown time unit 'parsecs'"), err
    assert err.count("\n") == 1


def test_a_missing_file_exits_2_without_traceback(capsys, tmp_path, monkeypatch):
    # A relative path: an absolute one past 80 characters (a deep tmp_path) is cut short.
    monkeypatch.chdir(tmp_path)
    code, _, err = ndncc(capsys, "run", "nope.toml")
    assert code == 2
    assert "nope.toml" in err and "Traceback" not in err


def test_the_installed_command_exits_2_on_bad_input(bad_scenario):
    proc = subprocess.run(
        [sys.executable, "-m", "ndncc", "run", str(bad_scenario)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert f"{bad_scenario}:9" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate_prints_one_ok_line_with_counts(capsys, scenario_file):
    code, out, _ = ndncc(capsys, "validate", scenario_file)
    assert code == 0
    assert out == f"OK {scenario_file}: two-node: 2 nodes, 1 links, 2 apps, 10 s simulated, seed 1\n"


def test_plot_redraws_figures_and_report(capsys, scenario_file, tmp_path):
    folder = tmp_path / "run"
    ndncc(capsys, "run", scenario_file, "--out", folder)
    # Without --figures the run writes data and report only; plot draws the figures.
    assert not (folder / "window.png").exists()
    (folder / "report.md").unlink()
    code, out, _ = ndncc(capsys, "plot", folder)
    assert code == 0
    assert (folder / "report.md").is_file() and (folder / "window.png").is_file()


def test_plot_of_a_folder_that_is_no_run_exits_2(capsys, tmp_path):
    code, _, err = ndncc(capsys, "plot", tmp_path)
    assert code == 2
    assert err.startswith(f"error: {tmp_path / 'manifest.json'}: missing")


def test_bench_json_prints_one_object_per_line(capsys):
    code, out, _ = ndncc(capsys, "bench", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(r["packet_hops_per_s"] > 0 for r in rows)


def test_bench_table_and_scenario_choice(capsys):
    from ndncc import _core

    name = _core.bench_names()[0]
    code, out, _ = ndncc(capsys, "bench", "--scenario", name)
    assert code == 0 and name in out
    code, _, err = ndncc(capsys, "bench", "--scenario", "no-such-bench")
    assert code == 2 and "no-such-bench" in err


def test_bench_runs_a_scale_case_for_the_duration_asked(capsys):
    # The scale cases are not run by default but can be named; their set-up goes through the
    # scenario loader and is reported.
    code, out, _ = ndncc(capsys, "bench", "--json", "--scenario", "tree-1111", "--duration", "0.05")
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["scenario"] == "tree-1111" and row["sim_seconds"] == 0.05
    assert row["setup_seconds"] > 0 and row["packet_hops"] > 0
    code, out, _ = ndncc(capsys, "bench", "--scenario", "dumbbell-1", "--duration", "0.5")
    assert code == 0 and "set-up" in out


def test_bench_no_record_simulates_the_same_without_rows(capsys):
    args = ("bench", "--json", "--scenario", "dumbbell-20", "--duration", "0.3")
    code, out, _ = ndncc(capsys, *args)
    on = json.loads(out)
    code_off, out, _ = ndncc(capsys, *args, "--no-record")
    off = json.loads(out)
    assert (code, code_off) == (0, 0) and on["recorded_rows"] > 0 and off["recorded_rows"] == 0
    # The same packets; the sampling ticks at 0, 0.1, 0.2 and 0.3 s are the only other events.
    assert off["packet_hops"] == on["packet_hops"] and off["events"] + 4 == on["events"]
    code, _, err = ndncc(capsys, "bench", "--command", "--no-record")
    assert code == 2 and "--no-record" in err


def test_bench_repeat_reports_the_median_run_and_the_range(capsys):
    code, out, _ = ndncc(
        capsys, "bench", "--json", "--scenario", "dumbbell-1", "--duration", "0.5", "--repeat", "3"
    )
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["runs"] == 3 and row["events"] > 0
    assert row["ns_per_hop_min"] <= row["ns_per_hop"] <= row["ns_per_hop_max"]
    code, out, _ = ndncc(capsys, "bench", "--scenario", "dumbbell-1", "--duration", "0.5", "--repeat", "2")
    assert code == 0 and "ns/hop range" in out and "medians of 2 runs" in out
    # One run, as before: no range column.
    code, out, _ = ndncc(capsys, "bench", "--scenario", "dumbbell-1", "--duration", "0.5")
    assert code == 0 and "range" not in out


def test_bench_command_times_ndncc_run_against_the_engine(capsys, monkeypatch, scenario_file):
    from ndncc import benchmark, shipped

    # The shipped E4 run takes a third of a second each time; a two-node run shows the same.
    monkeypatch.setattr(shipped, "scenario_path", lambda name: scenario_file)
    code, out, _ = ndncc(capsys, "bench", "--command", "--json", "--repeat", "2")
    r = json.loads(out)
    assert code == 0 and r["command"] == f"ndncc run {scenario_file.name}" and r["runs"] == 2
    assert r["wall_seconds"] > r["engine_seconds"] > 0
    assert r["wall_per_engine_min"] <= r["wall_per_engine"] <= r["wall_per_engine_max"]
    monkeypatch.setattr(benchmark, "COMMAND_RUNS", 1)
    code, out, _ = ndncc(capsys, "bench", "--command")
    assert code == 0 and "wall / engine" in out and "│ 1 " in out


def test_bench_help_gives_the_default_runs_of_the_command(capsys, monkeypatch):
    from ndncc import benchmark

    assert f"with --command, its timed runs, default {benchmark.COMMAND_RUNS})" in help_text(
        capsys, monkeypatch, "bench"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--duration", "0"], "--duration: 0.0 is not more than 0 and at most 3600"),
        (["--duration", "nan"], "--duration: nan is not more than 0"),
        (["--duration", "3601"], "--duration: 3601.0 is not more than 0 and at most 3600"),
        (["--all", "--scenario", "dumbbell-1"], "--scenario and --all exclude each other"),
        (["--command", "--duration", "5"], "--command runs its own scenario: it excludes"),
        (["--command", "--all"], "--command runs its own scenario: it excludes"),
        (["--repeat", "0"], "--repeat: 0 is not a number of runs from 1 to 100"),
        (["--repeat", "101"], "--repeat: 101 is not a number of runs from 1 to 100"),
        (["--command", "--repeat", "-1"], "--repeat: -1 is not a number of runs from 1 to 100"),
    ],
)
def test_bench_refuses_bad_options_naming_them(capsys, args, message):
    code, out, err = ndncc(capsys, "bench", *args)
    assert code == 2 and message in err and out == ""


def help_text(capsys, monkeypatch, *command: str) -> str:
    """``ndncc COMMAND --help`` as a wide terminal shows it."""
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = ndncc(capsys, *command, "--help")
    assert code == 0
    return out


def test_sweep_help_shows_the_sweep_file_tables_in_brackets(capsys, monkeypatch):
    out = help_text(capsys, monkeypatch, "sweep")
    assert "Scenario file, or a sweep file (TOML with scenario, seeds, [grid], [set])." in out


def all_commands(group, path=()):
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            yield from all_commands(command, (*path, name))
        else:
            yield (*path, name), command


def test_an_80_column_terminal_shows_every_command_s_summary_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    for group in ([], ["scenarios"], ["topo"]):
        code, out, _ = ndncc(capsys, *group, "--help")
        listed = out.split("Commands:")[1]
        assert code == 0 and "..." not in listed, listed


def test_every_command_describes_its_arguments_and_options_in_its_help(capsys, monkeypatch):
    import click

    for path, command in all_commands(cli.app):
        shown = " ".join(help_text(capsys, monkeypatch, *path).split())
        for param in command.params:
            assert param.help, f"ndncc {' '.join(path)}: {param.name} has no help text"
            assert " ".join(param.help.split()) in shown, f"ndncc {' '.join(path)}: {param.name}"
            if isinstance(param, click.Option):
                assert param.opts[0] in shown


def test_scenarios_list_names_every_shipped_file_with_its_description(capsys):
    from ndncc import shipped

    code, out, _ = ndncc(capsys, "scenarios", "list")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == [f.name for f in shipped.shipped()]
    minimal = next(line for line in lines if line.startswith("minimal "))
    assert minimal.split(None, 2)[1:] == ["scenario", shipped.find("minimal").description]
    assert any(line.split()[:2] == ["e3-loss", "sweep"] for line in lines)


def test_scenarios_copy_writes_the_file_and_refuses_to_overwrite_it(capsys, tmp_path):
    root = Path(__file__).resolve().parents[2]
    code, out, _ = ndncc(capsys, "scenarios", "copy", "dumbbell", tmp_path)
    assert (code, out) == (0, f"{tmp_path / 'dumbbell.toml'}\n")
    assert (tmp_path / "dumbbell.toml").read_text() == (root / "scenarios" / "dumbbell.toml").read_text()
    (tmp_path / "dumbbell.toml").write_text("edited")
    code, _, err = ndncc(capsys, "scenarios", "copy", "dumbbell", tmp_path)
    assert (
        code == 2 and err == f"error: {tmp_path / 'dumbbell.toml'}: already there (add --force to replace)\n"
    )
    assert (tmp_path / "dumbbell.toml").read_text() == "edited"
    assert ndncc(capsys, "scenarios", "copy", "dumbbell", tmp_path, "--force")[0] == 0
    assert (tmp_path / "dumbbell.toml").read_text() != "edited"


def test_scenarios_copy_defaults_to_the_current_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = ndncc(capsys, "scenarios", "copy", "e3-loss")
    assert (code, out) == (0, "e3-loss.toml\ne3.toml\n")
    assert ndncc(capsys, "validate", "e3.toml")[0] == 0


def test_scenarios_copy_of_an_unknown_name_exits_2(capsys, tmp_path):
    code, _, err = ndncc(capsys, "scenarios", "copy", "no-such", tmp_path)
    assert code == 2 and err.startswith("error: no shipped scenario or sweep file 'no-such'")
    assert not list(tmp_path.iterdir())


NDNSIM_TOPO = """# two routers
router
A
B
link
A B 10Mbps 1 10ms 100
"""

MININDN_CONF = """[nodes]
a: _
b: _
[links]
a:b delay=10ms
"""


def test_topo_convert_reads_ndnsim_text(capsys, tmp_path):
    src = tmp_path / "topo.txt"
    src.write_text(NDNSIM_TOPO)
    code, out, _ = ndncc(capsys, "topo", "convert", src)
    assert code == 0
    assert "[links.A-B]" in out


@pytest.mark.parametrize("name", ["lab.conf", "lab.txt"])
def test_topo_convert_recognises_mini_ndn_by_extension_or_content(capsys, tmp_path, name):
    src = tmp_path / name
    src.write_text(MININDN_CONF)
    code, _, err = ndncc(capsys, "topo", "convert", src, "--out", tmp_path / "lab.toml")
    assert code == 0
    assert "(minindn)" in err
    assert "[links.a-b]" in (tmp_path / "lab.toml").read_text()


@pytest.mark.parametrize(
    "rate, canonical",
    [
        ("10Mb/s", "10Mbps"),
        ("1Gb/s", "1Gbps"),
        ("500kb/s", "500kbps"),
        ("20Kbps", "20kbps"),
        ("1MB/s", "8Mbps"),
    ],
)
def test_topo_convert_reads_ns3_data_rates(capsys, tmp_path, rate, canonical):
    import ndncc as api

    src = tmp_path / "topo.txt"
    src.write_text(NDNSIM_TOPO.replace("10Mbps", rate))
    assert ndncc(capsys, "topo", "convert", src, "--out", tmp_path / "topo.toml")[0] == 0
    assert api.load(tmp_path / "topo.toml").to_dict()["links"]["A-B"]["bandwidth"] == canonical


def test_topo_convert_writes_only_what_differs_from_the_defaults(capsys, tmp_path):
    src = tmp_path / "topo.txt"
    src.write_text(NDNSIM_TOPO.replace("10ms 100", "10ms 50"))
    code, out, _ = ndncc(capsys, "topo", "convert", src)
    assert code == 0
    comment, toml = out.split("\n\n", 1)
    assert comment.startswith("# Converted from topo.txt (ndnSIM topology) by `ndncc topo convert`")
    assert toml == (
        '[simulation]\nduration = "10s"\n\n[nodes]\nA = {}\nB = {}\n\n'
        '[links.A-B]\nbandwidth = "10Mbps"\ndelay = "10ms"\nqueue = { type = "droptail", packets = 50 }\n'
    )


def test_a_converted_topology_loads_as_a_scenario(capsys, tmp_path):
    import ndncc as api

    src = tmp_path / "topo.txt"
    src.write_text(NDNSIM_TOPO)
    ndncc(capsys, "topo", "convert", src, "--out", tmp_path / "topo.toml")
    assert set(api.load(tmp_path / "topo.toml").to_dict()["nodes"]) == {"A", "B"}


def test_topo_convert_of_bad_input_exits_2(capsys, tmp_path):
    src = tmp_path / "bad.conf"
    src.write_text("[nodes]\na: _\n[links]\nnonsense\n")
    code, _, err = ndncc(capsys, "topo", "convert", src)
    assert code == 2
    assert err.startswith(f"error: {src}:4: ")


@pytest.fixture
def registry(monkeypatch):
    """An empty experiment registry, so tests register their own."""
    monkeypatch.setattr(experiments, "_REGISTRY", {})
    monkeypatch.setattr(experiments, "_discovered", True)
    return experiments


def tiny_experiment(scenario_file: Path):
    def reproduce(out_dir: Path, quick: bool, progress) -> list:
        import ndncc as api

        sc = api.load(scenario_file, ['simulation.duration="1s"'] if quick else [])
        result = sc.run(progress=lambda t: progress("only", t, sc.duration))
        return result.save(out_dir / "only", variant="only", paper={("consumer", "throughput_kbps"): 5.0})

    return reproduce


def test_reproduce_list_prints_names_and_titles(capsys, registry, scenario_file):
    registry.register("tiny", "A tiny experiment")(tiny_experiment(scenario_file))
    code, out, _ = ndncc(capsys, "reproduce", "--list")
    assert code == 0
    assert out == "tiny\tA tiny experiment\n"


def test_reproduce_list_with_nothing_registered(capsys, registry):
    code, out, err = ndncc(capsys, "reproduce", "--list")
    assert (code, out) == (0, "")
    assert "no experiments registered" in err


def test_reproduce_writes_runs_summary_and_reports(capsys, registry, scenario_file, tmp_path):
    registry.register("tiny", "A tiny experiment")(tiny_experiment(scenario_file))
    code, _, err = ndncc(capsys, "reproduce", "tiny", "--out", tmp_path, "--quick")
    assert code == 0, err
    rows = json.loads((tmp_path / "tiny" / "summary.json").read_text())
    assert {r["variant"] for r in rows} == {"only"}
    assert json.loads((tmp_path / "tiny" / "only" / "manifest.json").read_text())["sim_seconds"] == 1.0
    report = (tmp_path / "tiny" / "report.md").read_text()
    assert "## Ours vs seed" in report and "[only](only/report.md)" in report
    assert "[tiny](tiny/report.md)" in (tmp_path / "report.md").read_text()


def test_reproduce_draws_the_runs_own_figures_only_when_asked(capsys, registry, scenario_file, tmp_path):
    asked = []
    tiny = tiny_experiment(scenario_file)

    def reproduce(out_dir, quick, progress):
        asked.append(experiments.RUN_FIGURES.get())
        return tiny(out_dir, quick, progress)

    registry.register("tiny", "A tiny experiment")(reproduce)
    for flags in ([], ["--figures"], ["--no-figures"]):
        code, _, err = ndncc(capsys, "reproduce", "tiny", "--out", tmp_path, "--quick", *flags)
        assert code == 0, err
    assert asked == [False, True, False]
    assert experiments.RUN_FIGURES.get() is False


def test_reproduce_all_keeps_going_past_a_failure(capsys, registry, scenario_file, tmp_path):
    def broken(out_dir, quick, progress):
        raise RuntimeError("model diverged")

    registry.register("a-broken", "Fails")(broken)
    registry.register("b-tiny", "Works")(tiny_experiment(scenario_file))
    code, out, err = ndncc(capsys, "reproduce", "all", "--out", tmp_path, "--quick")
    assert code == 1
    assert "error: a-broken: model diverged" in out + err
    assert (tmp_path / "b-tiny" / "summary.json").is_file()
    index = (tmp_path / "report.md").read_text()
    assert "| a-broken | Fails | failed |" in index and "[b-tiny](b-tiny/report.md)" in index


def test_reproduce_rejects_rows_that_break_the_schema(capsys, registry, tmp_path):
    registry.register("sloppy", "Bad rows")(lambda out, quick, progress: [{"flow": "x"}])
    code, out, err = ndncc(capsys, "reproduce", "sloppy", "--out", tmp_path)
    assert code == 1
    assert "summary row 0" in out + err
    assert not (tmp_path / "sloppy" / "summary.json").exists()


def test_reproduce_of_an_unknown_name_exits_2(capsys, registry):
    code, _, err = ndncc(capsys, "reproduce", "nope")
    assert code == 2
    assert "no experiment called 'nope'" in err


def test_reproduce_without_a_name_exits_2(capsys, registry):
    assert ndncc(capsys, "reproduce")[0] == 2


def test_registry_refuses_duplicates_and_bad_names(registry):
    registry.register("x", "X")(lambda *a: [])
    with pytest.raises(ValueError, match="twice"):
        registry.register("x", "X again")(lambda *a: [])
    for bad in ("all", "Has Space", ""):
        with pytest.raises(ValueError):
            registry.register(bad, "bad")(lambda *a: [])


def test_an_unexpected_error_exits_1_with_one_line(capsys, monkeypatch, scenario_file):
    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli, "run_with_progress", explode)
    code, _, err = ndncc(capsys, "run", scenario_file)
    assert code == 1
    assert err == "internal error: disk on fire\n"


def test_usage_errors_exit_2(capsys):
    assert ndncc(capsys, "run")[0] == 2
    assert ndncc(capsys, "no-such-command")[0] == 2


def test_version_and_help_exit_0(capsys):
    import ndncc as api

    code, out, _ = ndncc(capsys, "--version")
    assert (code, out) == (0, f"ndncc {api.__version__}\n")
    assert ndncc(capsys, "--help")[0] == 0


def test_ctrl_c_exits_130_with_one_line(capsys, monkeypatch, scenario_file):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_with_progress", interrupted)
    code, _, err = ndncc(capsys, "run", scenario_file)
    assert (code, err) == (130, "interrupted\n")
