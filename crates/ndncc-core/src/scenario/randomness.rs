//! What in a scenario draws random numbers that can change its results: the things a run's seed
//! acts on. A scenario without any gives the same run for every seed.
//!
//! Interest nonces are random too, but they only tell Interests apart: they change no result.

use super::app::AppSpec;
use super::source::{index, join};
use super::types::Scenario;
use crate::cc::rate::RateConfig;
use crate::cc::window::WindowConfig;
use crate::forwarder::strategy::StrategyConfig;
use crate::loss::LossConfig;
use crate::module::ModuleConfig;

/// Is `p` a chance whose outcome is not certain?
fn uncertain(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

/// Why a loss model is random, if it is.
fn random_loss(loss: &LossConfig) -> Option<&'static str> {
    match *loss {
        LossConfig::None => None,
        LossConfig::Bernoulli { p } => uncertain(p.0).then_some("random loss"),
        LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
            [p_good_to_bad, p_bad_to_good, loss_good, loss_bad]
                .iter()
                .any(|p| uncertain(p.0))
                .then_some("random burst loss")
        }
    }
}

impl Scenario {
    /// Every setting that makes runs of this scenario differ from seed to seed, as
    /// `"KEY (what)"`, in key order; empty when every seed gives the same run.
    pub fn random_sources(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut add = |key: String, what: &str| out.push(format!("{key} ({what})"));
        for (name, n) in &self.nodes {
            let key = join("nodes", name);
            if matches!(n.strategy, StrategyConfig::Pcon(_)) {
                add(join(&key, "strategy"), "PCON's random choice of next hop");
            }
            for (i, m) in n.modules.iter().enumerate() {
                if let ModuleConfig::Srmcc(c) = m {
                    if uncertain(c.sampling) {
                        add(index(&join(&key, "modules"), i), "SRMCC's random flow sampling");
                    }
                }
            }
        }
        for (name, l) in &self.links {
            let key = join("links", name);
            if l.drawn.bandwidth.is_some() {
                add(join(&key, "bandwidth"), "drawn per run");
            }
            if l.drawn.delay.is_some() {
                add(join(&key, "delay"), "drawn per run");
            }
            for (k, loss) in [("loss", Some(&l.loss)), ("loss_ab", l.loss_ab.as_ref()), ("loss_ba", l.loss_ba.as_ref())]
            {
                if let Some(why) = loss.and_then(random_loss) {
                    add(join(&key, k), why);
                }
            }
        }
        for (name, app) in &self.apps {
            let AppSpec::Consumer(c) = app else { continue };
            let key = join("apps", name);
            if c.start_jitter.get().nanos() > 0 {
                add(join(&key, "start_jitter"), "random start");
            }
            if c.arrivals.is_some_and(|a| a.is_random()) {
                add(join(&key, "arrivals"), "random request times");
            }
            if c.arrivals.is_some() && c.catalogue.is_some_and(|k| k.objects > 1) {
                add(join(&key, "catalogue"), "random objects");
            }
            match (&c.window, &c.rate) {
                (Some(WindowConfig::Raaqm(_)), _) => add(join(&key, "window"), "RAAQM's random decrease"),
                (Some(WindowConfig::Python(_)), _) => {
                    add(join(&key, "window"), "a Python controller, given a seeded generator")
                }
                (_, Some(RateConfig::Python(_))) => {
                    add(join(&key, "rate"), "a Python controller, given a seeded generator")
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::load_str;

    const BASE: &str = r#"
[simulation]
duration = "1s"
[nodes]
C = {}
P = {}
[links.C-P]
bandwidth = "10Mbps"
delay = "10ms"
[apps.P]
type = "producer"
node = "P"
prefix = "/p"
[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = { type = "fixed", window = 10 }
"#;

    fn sources(overrides: &[&str]) -> Vec<String> {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        load_str(BASE, "t.toml", &o).unwrap().random_sources()
    }

    #[test]
    fn a_scenario_with_nothing_random_has_no_sources() {
        assert!(sources(&[]).is_empty());
        // Certain outcomes draw nothing that matters: no loss, all loss, periodic requests from
        // a one-object catalogue.
        assert!(sources(&["links.C-P.loss={ type = \"bernoulli\", p = 0 }"]).is_empty());
        assert!(sources(&["links.C-P.loss={ type = \"bernoulli\", p = 1 }"]).is_empty());
        let periodic =
            ["apps.C.arrivals={ type = \"periodic\", rate = 5.0 }", "apps.C.catalogue={ objects = 1, zipf = 1.0 }"];
        assert!(sources(&periodic).is_empty());
    }

    #[test]
    fn every_kind_of_random_setting_is_named_by_its_key() {
        let cases = [
            ("links.C-P.loss={ type = \"bernoulli\", p = \"1%\" }", "links.C-P.loss (random loss)"),
            (
                "links.C-P.loss_ba={ type = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0.5 }",
                "links.C-P.loss_ba (random burst loss)",
            ),
            (
                "links.C-P.delay={ type = \"uniform\", min = \"5ms\", max = \"15ms\" }",
                "links.C-P.delay (drawn per run)",
            ),
            (
                "links.C-P.bandwidth={ type = \"normal\", mean = \"10Mbps\", sd = \"1Mbps\" }",
                "links.C-P.bandwidth (drawn per run)",
            ),
            ("apps.C.start_jitter=\"100ms\"", "apps.C.start_jitter (random start)"),
            ("apps.C.arrivals={ type = \"poisson\", rate = 5.0 }", "apps.C.arrivals (random request times)"),
            ("apps.C.window={ type = \"raaqm\" }", "apps.C.window (RAAQM's random decrease)"),
            ("nodes.C.strategy={ type = \"pcon\" }", "nodes.C.strategy (PCON's random choice of next hop)"),
            ("nodes.C.modules=[{ type = \"srmcc\" }]", "nodes.C.modules[0] (SRMCC's random flow sampling)"),
        ];
        for (set, named) in cases {
            assert_eq!(sources(&[set]), vec![named.to_string()], "{set}");
        }
        let zipf = sources(&[
            "apps.C.arrivals={ type = \"periodic\", rate = 5.0 }",
            "apps.C.catalogue={ objects = 100, zipf = 0.8 }",
        ]);
        assert_eq!(zipf, vec!["apps.C.catalogue (random objects)".to_string()]);
    }
}
