//! Resolution: what a scenario file may leave implicit, made explicit. Link endpoints come
//! from the link's name; a consumer's `file_size` becomes a segment count.

use super::app::AppSpec;
use super::error::{Invalid, ScenarioError};
use super::source::join;
use super::types::Scenario;

/// The ways `name` splits at one `-` into two declared nodes.
fn splits(name: &str, is_node: impl Fn(&str) -> bool) -> Vec<(&str, &str)> {
    name.match_indices('-')
        .map(|(i, _)| (&name[..i], &name[i + 1..]))
        .filter(|(a, b)| is_node(a) && is_node(b))
        .collect()
}

impl Scenario {
    /// Fill in link endpoints from link names and turn `file_size` into `segments` where the
    /// consumer's producer is known. Loading does this already; call it for scenarios built in
    /// code before `validate`.
    pub fn resolve(&mut self) -> Result<(), ScenarioError> {
        self.resolve_in_place().map_err(|e| ScenarioError::at("", None, Some(e.key), e.message))
    }

    pub(crate) fn resolve_in_place(&mut self) -> Result<(), Invalid> {
        let nodes = &self.nodes;
        for (name, link) in self.links.iter_mut() {
            if !(link.endpoints[0].is_empty() && link.endpoints[1].is_empty()) {
                continue;
            }
            let found = splits(name, |n| nodes.contains_key(n));
            match found.as_slice() {
                [(a, b)] => link.endpoints = [a.to_string(), b.to_string()],
                [] => {
                    return Err(Invalid::new(
                        join("links", name),
                        format!(
                            "cannot tell which nodes link '{name}' connects: the name does not split at a '-' into two \
                             declared nodes; add endpoints = [\"A\", \"B\"]"
                        ),
                    ))
                }
                many => {
                    let options: Vec<String> = many.iter().map(|(a, b)| format!("{a} and {b}")).collect();
                    return Err(Invalid::new(
                        join("links", name),
                        format!(
                            "link name '{name}' is ambiguous ({}); add endpoints = [\"A\", \"B\"]",
                            options.join(" or ")
                        ),
                    ));
                }
            }
        }
        let sizes: Vec<(String, Option<u64>)> = self
            .consumers()
            .filter(|(_, c)| c.file_size.is_some() && c.segments.is_none())
            .map(|(n, c)| (n.to_string(), self.producer_for(&c.prefix).map(|(_, p)| p.payload.0)))
            .collect();
        for (name, payload) in sizes {
            let Some(payload) = payload.filter(|p| *p > 0) else { continue };
            if let Some(AppSpec::Consumer(c)) = self.apps.get_mut(&name) {
                if let Some(size) = c.file_size.take() {
                    c.segments = Some(size.0.div_ceil(payload));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::{FixedWindowConfig, WindowConfig};
    use crate::scenario::{ConsumerSpec, LinkSpec, NodeSpec, ProducerSpec};
    use crate::units::{Bandwidth, Bytes, Duration};

    fn base() -> Scenario {
        let mut s = Scenario::new("t", Duration::from_secs(1));
        for n in ["a-b", "c", "b", "a"] {
            s.nodes.insert(n.into(), NodeSpec::default());
        }
        s
    }

    #[test]
    fn a_name_that_splits_one_way_gives_the_endpoints() {
        let mut s = base();
        let mut l = LinkSpec::new("", "", Bandwidth::mbps(1), Duration::from_millis(1));
        s.links.insert("a-b-c".into(), l.clone());
        s.resolve().unwrap();
        assert_eq!(s.links["a-b-c"].endpoints, ["a-b".to_string(), "c".to_string()]);
        l.endpoints = [String::new(), String::new()];
        s.links.insert("x-y".into(), l);
        assert!(s.resolve().unwrap_err().message.contains("does not split"));
    }

    #[test]
    fn a_name_that_splits_two_ways_is_ambiguous() {
        let mut s = base();
        s.nodes.insert("b-c".into(), NodeSpec::default());
        s.links.insert("a-b-c".into(), LinkSpec::new("", "", Bandwidth::mbps(1), Duration::from_millis(1)));
        let e = s.resolve().unwrap_err();
        assert!(e.message.contains("ambiguous"), "{e}");
    }

    #[test]
    fn file_size_becomes_a_rounded_up_segment_count() {
        let mut s = base();
        let mut p = ProducerSpec::new("b", "/p");
        p.payload = Bytes(1000);
        s.apps.insert("P".into(), AppSpec::Producer(p));
        let mut c = ConsumerSpec::with_window("a", "/p/file", WindowConfig::Fixed(FixedWindowConfig::default()));
        c.file_size = Some(Bytes(10_001));
        s.apps.insert("C".into(), AppSpec::Consumer(c));
        s.resolve().unwrap();
        let (_, c) = s.consumers().next().unwrap();
        assert_eq!((c.segments, c.file_size), (Some(11), None));
    }
}
