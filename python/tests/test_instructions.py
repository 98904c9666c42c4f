"""The instruction-count benchmark's arithmetic on hand-made cachegrind output (valgrind itself
runs only in ``make bench-instructions``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndncc.instructions import MeasureError, _counts, main, per_hop

SUMMARY = """desc: I1 cache: 32768 B, 64 B, 8-way associative
cmd: ndncc-bench --duration 1.0 dumbbell-1
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=src/main.rs
fn=main
1 5 0 0 0 0 0 0 0 0
summary: {ir} 10 3 500 {d1mr} {dlmr} 300 {d1mw} {dlmw}
"""


def _file(tmp_path: Path, name: str, **v: int) -> Path:
    p = tmp_path / name
    p.write_text(SUMMARY.format(**v))
    return p


def test_counts_read_the_summary_by_event_name(tmp_path):
    c = _counts(_file(tmp_path, "a", ir=1000, d1mr=7, dlmr=2, d1mw=1, dlmw=0))
    assert (c["Ir"], c["D1mr"], c["DLmr"], c["D1mw"], c["ILmr"]) == (1000, 7, 2, 1, 3)
    (tmp_path / "b").write_text("events: Ir\n")
    with pytest.raises(MeasureError):
        _counts(tmp_path / "b")


def test_per_hop_is_the_difference_of_two_runs_over_their_extra_hops(tmp_path):
    short = (_counts(_file(tmp_path, "s", ir=1_000_000, d1mr=100, dlmr=10, d1mw=50, dlmw=5)), 1_000)
    long = (_counts(_file(tmp_path, "l", ir=3_000_000, d1mr=1_100, dlmr=410, d1mw=250, dlmw=105)), 2_000)
    got = per_hop(short, long)
    # 2,000,000 instructions over 1,000 more hops; L1d: (1,000 + 200) / 1,000; last level: data
    # (400 + 100) and instruction (3 - 3) misses over 1,000 hops.
    assert got == {"instructions": 2000.0, "l1d_misses": 1.2, "ll_misses": 0.5, "hops": 1000.0}
    with pytest.raises(MeasureError):
        per_hop(long, short)


def test_bad_arguments_are_refused_with_exit_code_2(tmp_path, capsys):
    assert main(["--seconds", "0"]) == 2
    assert main(["--binary", str(tmp_path / "missing"), "dumbbell-1"]) == 2
    err = capsys.readouterr().err
    assert "--seconds" in err and ("not found" in err or "valgrind" in err)


LAYERED = """events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/src/ndncc/crates/ndncc-core/src/forwarder/pit.rs
fn=ndncc_core::forwarder::pit::Pit::insert
10 {pit} 0 0 0 0 {pit_miss}
fl=/rustc/abc/library/core/src/slice/index.rs
fn=ndncc_core::world::engine::Engine::receive
272 {idx}
fn=ndncc_core::api::bench_for
272 {loop}
fl=/src/ndncc/crates/ndncc-core/src/world/link.rs
fn=ndncc_core::api::bench_for
80 {link}
fl=./malloc/malloc.c
fn=malloc
1 {alloc}
summary: 0
"""


def test_layers_follow_the_source_file_then_the_function_inlined_into(tmp_path):
    from ndncc.instructions import _counts_by_layer, layer_of, per_hop_by_layer

    assert layer_of("/x/crates/ndncc-core/src/queue/codel.rs", "ndncc_core::api::bench_for") == "links"
    assert (
        layer_of("/x/crates/ndncc-core/src/ring.rs", "ndncc_core::forwarder::pit::Pit::insert") == "forwarder"
    )
    assert layer_of("/rustc/core/src/option.rs", "ndncc_core::app::consumer::ConsumerCore::on_data") == "apps"
    assert layer_of("/rustc/core/src/option.rs", "ndncc_core::world::engine::Engine::handle") == "events"
    polls = "ndncc_core::world::World::run_idle_polls"
    assert layer_of("/x/crates/ndncc-core/src/ring.rs", polls) == "events"
    assert layer_of("./malloc/malloc.c", "malloc") == "other"

    def run(name: str, **v: int) -> dict:
        p = tmp_path / name
        p.write_text(LAYERED.format(**v))
        return _counts_by_layer(p)

    short = run("s", pit=100, pit_miss=1, idx=50, loop=40, link=30, alloc=5)
    long = run("l", pit=300, pit_miss=21, idx=150, loop=140, link=130, alloc=5)
    got = per_hop_by_layer((short, 10), (long, 20))
    # Over 10 more hops: the PIT and the bounds checks inlined into the forwarder's receive are
    # (200 + 100) / 10; the loop's own checks 10 and the link code inlined into it 10 more.
    assert got["forwarder"] == {"instructions": 30.0, "l1d_misses": 0.0, "ll_misses": 2.0}
    assert got["events"]["instructions"] == 10.0
    assert got["links"]["instructions"] == 10.0
    assert got["other"]["instructions"] == 0.0
    assert list(got) == ["events", "links", "forwarder", "other"]


def test_measured_runs_turn_off_the_allocators_timed_purges_and_keep_its_other_options():
    from ndncc.instructions import NO_TIMED_PURGES, measuring_env

    assert measuring_env({"PATH": "/bin"}) == {"PATH": "/bin", "_RJEM_MALLOC_CONF": NO_TIMED_PURGES}
    got = measuring_env({"_RJEM_MALLOC_CONF": "thp:always"})["_RJEM_MALLOC_CONF"]
    assert got == f"thp:always,{NO_TIMED_PURGES}"
