//! Core results as Python values: long tables as numpy columns, everything else as dicts.

use ndncc_core::api::{BenchResult, LongTable, RunOutput, RunStats, SummaryRow};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn long_table<'py>(py: Python<'py>, tab: LongTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("t", PyArray1::from_vec_bound(py, tab.t))?;
    d.set_item("entity", PyArray1::from_vec_bound(py, tab.entity))?;
    d.set_item("metric", PyArray1::from_vec_bound(py, tab.metric))?;
    d.set_item("value", PyArray1::from_vec_bound(py, tab.value))?;
    d.set_item("entities", tab.entities)?;
    d.set_item("metrics", tab.metrics)?;
    // A run's tables come in the one row order of long tables (`LongTable::from_columns`).
    d.set_item("ordered", true)?;
    Ok(d)
}

/// The summary as columns (`entity`, `kind`, `metric`, `value`, `unit`): polars builds a frame
/// of 60,000 rows from lists in a few milliseconds, from as many dicts in 60.
fn summary_columns(py: Python<'_>, rows: Vec<SummaryRow>) -> PyResult<Bound<'_, PyDict>> {
    let mut columns: [Vec<String>; 4] = Default::default();
    let mut values = Vec::with_capacity(rows.len());
    for row in rows {
        for (column, text) in columns.iter_mut().zip([row.entity, row.kind, row.metric, row.unit.as_str().to_owned()]) {
            column.push(text);
        }
        values.push(row.value);
    }
    let [entity, kind, metric, unit] = columns;
    let d = PyDict::new_bound(py);
    d.set_item("entity", entity)?;
    d.set_item("kind", kind)?;
    d.set_item("metric", metric)?;
    d.set_item("value", values)?;
    d.set_item("unit", unit)?;
    Ok(d)
}

fn stats<'py>(py: Python<'py>, s: RunStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("sim_seconds", s.sim_seconds)?;
    d.set_item("wall_seconds", s.wall_seconds)?;
    d.set_item("events", s.events)?;
    d.set_item("packet_hops", s.packet_hops)?;
    Ok(d)
}

/// `{"series", "faces", "summary", "stats", "seed"}` and, with a packet trace, `"trace"`
/// (face name → (packets, drops) recorded); see `_core.pyi`.
pub fn run_output(py: Python<'_>, out: RunOutput) -> PyResult<PyObject> {
    let d = PyDict::new_bound(py);
    d.set_item("series", long_table(py, out.series)?)?;
    d.set_item("faces", long_table(py, out.faces)?)?;
    d.set_item("summary", summary_columns(py, out.summary)?)?;
    d.set_item("stats", stats(py, out.stats)?)?;
    d.set_item("seed", out.seed)?;
    if let Some(trace) = out.trace {
        let faces = PyDict::new_bound(py);
        for t in trace {
            faces.set_item(t.face, (t.packets, t.drops))?;
        }
        d.set_item("trace", faces)?;
    }
    Ok(d.into_any().unbind())
}

pub fn bench_result(py: Python<'_>, b: BenchResult) -> PyResult<PyObject> {
    let d = PyDict::new_bound(py);
    d.set_item("scenario", b.scenario)?;
    d.set_item("sim_seconds", b.sim_seconds)?;
    d.set_item("wall_seconds", b.wall_seconds)?;
    d.set_item("events", b.events)?;
    d.set_item("packet_hops", b.packet_hops)?;
    d.set_item("packet_hops_per_s", b.packet_hops_per_s)?;
    d.set_item("ns_per_hop", b.ns_per_hop)?;
    d.set_item("peak_rss_mb", b.peak_rss_mb)?;
    d.set_item("recorded_rows", b.recorded_rows)?;
    d.set_item("recorded_mb", b.recorded_mb)?;
    d.set_item("setup_seconds", b.setup_seconds)?;
    d.set_item("allocator", b.allocator)?;
    d.set_item("run_page_faults", b.run_page_faults)?;
    Ok(d.into_any().unbind())
}
