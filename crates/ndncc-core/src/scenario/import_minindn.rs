//! Import of a Mini-NDN topology `.conf`.
//!
//! ```text
//! [nodes]
//! a: _ cache=100 radius=0.2 angle=3.14
//! [links]
//! a:b delay=10ms bw=5 loss=1 max_queue_size=100
//! ```
//!
//! `#` starts a comment. A node line is `name:` followed by `_` or `key=value` parameters;
//! `cache` (Content Store capacity in packets) is used, every other parameter (positions,
//! NLSR settings) is ignored. A node without `cache` gets ndncc's default, caching off
//! (NFD itself would cache). A link line is `a:b` followed by parameters: `delay` (one-way,
//! with a unit, default 0s), `bw` (Mbit/s as a bare number, default 1000 for a link Mini-NDN
//! leaves unshaped), `loss` (percent, both directions, default 0) and `max_queue_size`
//! (DropTail packets, default 1000, the netem default limit). Other link parameters are
//! errors. A `[switches]` section must be empty. Links are named `a-b`; routing is computed
//! with every link costing 1, there are no apps, and the scenario runs 10 s.

use super::error::ScenarioError;
use super::link::LinkSpec;
use super::parse::file_stem;
use super::types::{NodeSpec, Scenario};
use crate::loss::LossConfig;
use crate::queue::{DropTailConfig, QueueConfig};
use crate::units::{Bandwidth, Duration, Fraction};

/// Bandwidth of a link without `bw` [Mbit/s].
const UNSHAPED_MBPS: u64 = 1000;
/// Queue of a link without `max_queue_size` [packets].
const DEFAULT_QUEUE: usize = 1000;

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Nodes,
    Switches,
    Links,
}

/// Read a Mini-NDN topology. Errors name the file, the line and the parameter.
pub fn minindn_conf(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let mut s = Scenario::new(&file_stem(file), Duration::from_secs(10));
    let mut section = Section::None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let err = |key: &str, msg: String| ScenarioError::at(file, Some(line_no), Some(key.to_string()), msg);
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            section = match line {
                "[nodes]" => Section::Nodes,
                "[switches]" => Section::Switches,
                "[links]" => Section::Links,
                _ => return Err(err(line, "unknown section, expected one of [nodes], [switches], [links]".into())),
            };
            continue;
        }
        match section {
            Section::None => {
                return Err(ScenarioError::at(
                    file,
                    Some(line_no),
                    None,
                    "expected a [nodes] or [links] section line before this one",
                ))
            }
            Section::Switches => {
                return Err(err("switches", "switches are not supported; connect nodes directly".into()))
            }
            Section::Nodes => {
                let (name, params) =
                    line.split_once(':').ok_or_else(|| err("nodes", "expected `name: parameters`".into()))?;
                let name = name.trim();
                if name.is_empty() || name.contains(char::is_whitespace) {
                    return Err(err("nodes", format!("'{name}' is not a node name")));
                }
                let node = read_node(params, &err)?;
                if s.nodes.insert(name.to_string(), node).is_some() {
                    return Err(err(name, format!("node '{name}' is declared twice")));
                }
            }
            Section::Links => {
                let mut words = line.split_whitespace();
                let ends = words.next().unwrap_or("");
                let (a, b) =
                    ends.split_once(':').ok_or_else(|| err("links", format!("expected `a:b`, found '{ends}'")))?;
                for n in [a, b] {
                    if !s.nodes.contains_key(n) {
                        return Err(err(ends, format!("'{n}' is not a node declared in [nodes]")));
                    }
                }
                if s.links_between(a, b).next().is_some() {
                    return Err(err(ends, format!("a second link between {a} and {b}")));
                }
                let link = read_link(a, b, words, &err)?;
                s.links.insert(format!("{a}-{b}"), link);
            }
        }
    }
    s.validate().map_err(|e| ScenarioError { file: file.to_string(), ..e })?;
    Ok(s)
}

fn key_value<'a>(
    word: &'a str,
    err: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<(&'a str, &'a str), ScenarioError> {
    word.split_once('=').ok_or_else(|| err(word, format!("expected key=value, found '{word}'")))
}

fn read_node(params: &str, err: &dyn Fn(&str, String) -> ScenarioError) -> Result<NodeSpec, ScenarioError> {
    let mut node = NodeSpec::default();
    for word in params.split_whitespace().filter(|w| *w != "_") {
        let (k, v) = key_value(word, err)?;
        if k == "cache" {
            node.content_store.capacity =
                v.parse().map_err(|_| err("cache", format!("'{v}' is not a packet count")))?;
        }
    }
    Ok(node)
}

fn read_link<'a>(
    a: &str,
    b: &str,
    words: impl Iterator<Item = &'a str>,
    err: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<LinkSpec, ScenarioError> {
    let mut link = LinkSpec::new(a, b, Bandwidth::mbps(UNSHAPED_MBPS), Duration::default());
    link.queue = QueueConfig::Droptail(DropTailConfig { packets: Some(DEFAULT_QUEUE), bytes: None });
    for word in words {
        let (k, v) = key_value(word, err)?;
        match k {
            "delay" => link.delay = Duration::parse(v).map_err(|m| err("delay", m))?,
            "bw" => {
                let mbps: f64 = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| *x > 0.0 && x.is_finite())
                    .ok_or_else(|| err("bw", format!("'{v}' is not a bandwidth in Mbit/s (a positive number)")))?;
                link.bandwidth = Bandwidth::parse(&format!("{mbps}Mbps")).map_err(|m| err("bw", m))?;
            }
            "loss" => {
                let p = Fraction::parse(&format!("{v}%")).map_err(|m| err("loss", m))?;
                link.loss = if p.0 > 0.0 { LossConfig::Bernoulli { p } } else { LossConfig::None };
            }
            "max_queue_size" => {
                let packets: usize = v
                    .parse()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| err("max_queue_size", format!("'{v}' is not a packet count >= 1")))?;
                link.queue = QueueConfig::Droptail(DropTailConfig { packets: Some(packets), bytes: None });
            }
            _ => {
                return Err(err(
                    k,
                    format!("unsupported link parameter '{k}', expected one of delay, bw, loss, max_queue_size"),
                ))
            }
        }
    }
    Ok(link)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_and_links_read_with_their_units() {
        let text = "[nodes]\na: _ cache=100 radius=0.2\nb: _\n[links]\na:b delay=10ms bw=5 loss=1 max_queue_size=50\n";
        let s = minindn_conf(text, "x.conf").unwrap();
        assert_eq!(s.nodes["a"].content_store.capacity, 100);
        assert_eq!(s.nodes["b"].content_store.capacity, 0);
        let l = &s.links["a-b"];
        assert_eq!(l.bandwidth.bps(), 5_000_000);
        assert_eq!(l.delay, Duration::from_millis(10));
        assert_eq!(l.loss, LossConfig::Bernoulli { p: Fraction(0.01) });
        assert_eq!(l.queue, QueueConfig::Droptail(DropTailConfig { packets: Some(50), bytes: None }));
    }

    #[test]
    fn errors_name_the_line_and_parameter() {
        let e = minindn_conf("[nodes]\na: _\nb: _\n[links]\na:b delay=10ms jitter=2ms\n", "x.conf").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(5), Some("jitter")));
        let e = minindn_conf("[nodes]\na: _\n[links]\na:c delay=10ms\n", "x.conf").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(4), Some("a:c")));
        let e = minindn_conf("[nodes]\na: _ cache=lots\n", "x.conf").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(2), Some("cache")));
        let e = minindn_conf("[nodes]\na: _\nb: _\n[links]\na:b bw=fast\n", "x.conf").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("bw"));
    }
}
