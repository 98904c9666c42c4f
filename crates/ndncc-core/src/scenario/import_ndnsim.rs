//! Import of ndnSIM's annotated topology text (the format its topology reader takes).
//!
//! ```text
//! router
//! # name   comment  yPos  xPos
//! R1       NA       1     2
//! link
//! # src  dst  bandwidth  metric  delay  queue  [loss]
//! R1     R2   10Mbps     1       10ms   100    0.01
//! ```
//!
//! `#` starts a comment; blank lines are ignored. A router line needs its name; the comment
//! and the two coordinates are optional and not used (coordinates must be numbers when given).
//! A link line needs source, destination, bandwidth, metric and delay; `queue` (DropTail
//! capacity in packets, both directions) defaults to 100 and `loss` (a probability such as
//! `0.01` or `1%`, Bernoulli, both directions) to none. The bandwidth is an ns-3 `DataRate`
//! (`10Mbps`, `10Mb/s`, `1Gb/s`, `500kb/s`, `8Kib/s`, `1MB/s`; see [`Bandwidth::parse_ns3`]). The link is named `SRC-DST`, its
//! `cost` is the metric. The scenario has computed routing by cost, no apps, and runs 10 s.

use super::error::ScenarioError;
use super::link::LinkSpec;
use super::parse::file_stem;
use super::types::{NodeSpec, Scenario};
use crate::loss::LossConfig;
use crate::queue::{DropTailConfig, QueueConfig};
use crate::units::{Bandwidth, Duration, Fraction};

const LINK_COLUMNS: &[&str] = &["source", "destination", "bandwidth", "metric", "delay", "queue", "loss"];

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Router,
    Link,
}

/// Read an ndnSIM annotated topology. Errors name the file, the line and the column.
pub fn ndnsim_topology(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let mut s = Scenario::new(&file_stem(file), Duration::from_secs(10));
    let mut section = Section::None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let err = |key: &str, msg: String| ScenarioError::at(file, Some(line_no), Some(key.to_string()), msg);
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        match line.to_ascii_lowercase().as_str() {
            "router" => {
                section = Section::Router;
                continue;
            }
            "link" => {
                section = Section::Link;
                continue;
            }
            _ => {}
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        match section {
            Section::None => {
                return Err(ScenarioError::at(
                    file,
                    Some(line_no),
                    None,
                    "expected a `router` or `link` section line before this one",
                ))
            }
            Section::Router => {
                if cols.len() > 4 {
                    return Err(err(
                        "router",
                        format!("expected `name comment yPos xPos`, found {} columns", cols.len()),
                    ));
                }
                for (col, name) in cols.iter().zip(["name", "comment", "yPos", "xPos"]).skip(2) {
                    if col.parse::<f64>().is_err() {
                        return Err(err(name, format!("'{col}' is not a number")));
                    }
                }
                let name = cols[0];
                if s.nodes.insert(name.to_string(), NodeSpec::default()).is_some() {
                    return Err(err("name", format!("router '{name}' is declared twice")));
                }
            }
            Section::Link => {
                let link = read_link(&cols, &s, &err)?;
                let name = format!("{}-{}", cols[0], cols[1]);
                if s.links_between(cols[0], cols[1]).next().is_some() || s.links.contains_key(&name) {
                    return Err(err("link", format!("a second link between {} and {}", cols[0], cols[1])));
                }
                s.links.insert(name, link);
            }
        }
    }
    s.validate().map_err(|e| ScenarioError { file: file.to_string(), ..e })?;
    Ok(s)
}

fn read_link(
    cols: &[&str],
    s: &Scenario,
    err: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<LinkSpec, ScenarioError> {
    if cols.len() < 5 {
        let missing = LINK_COLUMNS[cols.len()];
        return Err(err(
            missing,
            format!("missing column `{missing}` (expected `src dst bandwidth metric delay [queue] [loss]`)"),
        ));
    }
    if cols.len() > LINK_COLUMNS.len() {
        return Err(err("link", format!("expected at most {} columns, found {}", LINK_COLUMNS.len(), cols.len())));
    }
    for (col, key) in cols.iter().zip(["source", "destination"]) {
        if !s.nodes.contains_key(*col) {
            return Err(err(key, format!("'{col}' is not a router declared in the router section")));
        }
    }
    let bandwidth = Bandwidth::parse_ns3(cols[2]).map_err(|m| err("bandwidth", m))?;
    let cost: u32 =
        cols[3].parse().map_err(|_| err("metric", format!("'{}' is not a non-negative integer", cols[3])))?;
    let delay = Duration::parse(cols[4]).map_err(|m| err("delay", m))?;
    let mut link = LinkSpec::new(cols[0], cols[1], bandwidth, delay);
    link.cost = cost;
    if let Some(q) = cols.get(5) {
        let packets: usize = q
            .parse()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| err("queue", format!("'{q}' is not a packet count >= 1")))?;
        link.queue = QueueConfig::Droptail(DropTailConfig { packets: Some(packets), bytes: None });
    }
    if let Some(l) = cols.get(6) {
        let p = Fraction::parse(l).map_err(|m| err("loss", m))?;
        if p.0 > 0.0 {
            link.loss = LossConfig::Bernoulli { p };
        }
    }
    Ok(link)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_topology_reads_nodes_links_and_optional_columns() {
        let text = "# test\nrouter\nA NA 1 1\nB\n\nlink\nA B 5Mbps 3 20ms 50 1%  # lossy\n";
        let s = ndnsim_topology(text, "topo/t.txt").unwrap();
        assert_eq!(s.simulation.name, "t");
        let l = &s.links["A-B"];
        assert_eq!((l.bandwidth.bps(), l.cost, l.delay.to_string()), (5_000_000, 3, "20ms".to_string()));
        assert_eq!(l.loss, LossConfig::Bernoulli { p: Fraction(0.01) });
    }

    #[test]
    fn bandwidths_take_ns3_data_rate_spellings() {
        let text = "router\nA\nB\nC\nD\nlink\nA B 10Mb/s 1 1ms\nB C 1Gb/s 1 1ms\nC D 500kb/s 1 1ms\nD A 1MB/s 1 1ms\n";
        let s = ndnsim_topology(text, "t.txt").unwrap();
        let bps: Vec<u64> = ["A-B", "B-C", "C-D", "D-A"].iter().map(|l| s.links[*l].bandwidth.bps()).collect();
        assert_eq!(bps, [10_000_000, 1_000_000_000, 500_000, 8_000_000]);
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let e = ndnsim_topology("router\nA\nB\nlink\nA B 5Mbs 1 10ms\n", "t.txt").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(5), Some("bandwidth")));
        let e = ndnsim_topology("router\nA\nlink\nA C 5Mbps 1 10ms\n", "t.txt").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(4), Some("destination")));
        let e = ndnsim_topology("A NA 1 1\n", "t.txt").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = ndnsim_topology("router\nA\nB\nlink\nA B 5Mbps 1\n", "t.txt").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("delay"));
    }
}
