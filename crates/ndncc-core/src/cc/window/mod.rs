//! Window controllers, one per file, and the tagged config enum that builds them.
//!
//! Shared pieces: `law.rs` (the `WindowLaw` trait and the loss-driven `LossWindow` that `bic`
//! and `cubic` run in), `recovery.rs` (the recovery point behind "one decrease per RTT" and
//! PCON's conservative window adaptation), and `aimd.rs`'s `AimdState` (slow start, congestion
//! avoidance, Tahoe and fast-recovery decreases), reused by `reno-hole` and `arrival-rate`.

pub mod aimd;
pub mod arrival_rate;
pub mod bic;
pub mod consumer_window;
pub mod cubic;
pub mod fixed;
pub mod icp;
pub mod law;
pub mod pcon;
pub mod pcon_icn2016;
pub mod raaqm;
pub mod recovery;
pub mod reno_hole;

#[cfg(test)]
pub(crate) mod testkit;

use super::WindowControl;

pub use aimd::{Aimd, AimdConfig, AimdLaw, AimdState, SlowStartStep};
pub use arrival_rate::{ArrivalRate, ArrivalRateConfig, WindowRtt};
pub use bic::{Bic, BicConfig, BicLaw};
pub use consumer_window::{ConsumerWindow, ConsumerWindowConfig};
pub use cubic::{Cubic, CubicConfig, CubicLaw};
pub use fixed::{FixedWindow, FixedWindowConfig};
pub use icp::{Icp, IcpConfig, IcpWindow};
pub use law::{LossWindow, WindowLaw};
pub use pcon::{Pcon, PconConfig, PconLaw};
pub use pcon_icn2016::{PconIcn2016, PconIcn2016Config};
pub use raaqm::{Raaqm, RaaqmConfig};
pub use reno_hole::{RenoHole, RenoHoleConfig};

crate::plugin_family! {
    /// `[apps.x.window] type = "..."` in a scenario: which window algorithm and its parameters.
    pub enum WindowConfig -> Box<dyn WindowControl> {
        /// A constant window (no congestion control).
        "fixed" => Fixed(FixedWindowConfig),
        /// ndnSIM's old ConsumerWindow: +1 per Data, back to the initial window on every timeout.
        "consumer-window" => ConsumerWindow(ConsumerWindowConfig),
        /// Slow start and congestion avoidance; Tahoe on a timeout (seed 002 "aimd").
        "aimd" => Aimd(AimdConfig),
        /// AIMD plus sequence-hole detection and fast recovery (seed 002 "reno").
        "reno-hole" => RenoHole(RenoHoleConfig),
        /// Probe windows, settle on the best Data arrival rate × RTT, then grow linearly.
        "arrival-rate" => ArrivalRate(ArrivalRateConfig),
        /// BIC-TCP on timeouts and marked NACKs.
        "bic" => Bic(BicConfig),
        /// CUBIC on timeouts and marked NACKs.
        "cubic" => Cubic(CubicConfig),
        /// The PCON consumer: AIMD, BIC or CUBIC driven by congestion marks.
        "pcon" => Pcon(PconConfig),
        /// The original PCON simulations' consumer (ACM ICN 2016): its own BIC, β 0.5.
        "pcon-icn2016" => PconIcn2016(PconIcn2016Config),
        /// ICP: AIMD on timeouts only (Carofiglio et al., 2012).
        "icp" => Icp(IcpConfig),
        /// RAAQM: ICP plus a per-route probabilistic decrease driven by the RTT (2013).
        "raaqm" => Raaqm(RaaqmConfig),
        /// A class written in Python (needs the `ndncc` Python package; docs/python-controllers.md).
        "python" => Python(super::external::PythonWindowConfig),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Wrapper {
        window: WindowConfig,
    }

    fn parse(toml_text: &str) -> Result<WindowConfig, String> {
        toml::from_str::<Wrapper>(toml_text).map(|w| w.window).map_err(|e| e.to_string())
    }

    #[test]
    fn every_type_deserialises_with_defaults_validates_and_builds_under_its_name() {
        // "python" needs the Python front and a class (cc/external.rs; python/tests).
        for &kind in WindowConfig::TYPES.iter().filter(|&&k| k != crate::cc::external::PYTHON) {
            let cfg = parse(&format!("window = {{ type = \"{kind}\" }}")).unwrap();
            assert_eq!(cfg.kind(), kind);
            assert_eq!(cfg.validate(), Ok(()), "{kind}");
            assert_eq!(cfg.build().name(), kind);
        }
    }

    #[test]
    fn every_type_rejects_an_unknown_key() {
        for &kind in WindowConfig::TYPES {
            let err = parse(&format!("window = {{ type = \"{kind}\", bogus = 1 }}")).unwrap_err();
            assert!(err.contains("bogus"), "{kind}: {err}");
        }
    }

    #[test]
    fn an_unknown_type_is_rejected() {
        assert!(parse("window = { type = \"vegas\" }").is_err());
    }

    #[test]
    fn pcon_takes_its_law_and_law_parameters_as_flat_keys() {
        let cfg = parse("window = { type = \"pcon\", law = \"cubic\", beta = 0.7, c = 0.4 }").unwrap();
        let WindowConfig::Pcon(p) = &cfg else { panic!("{cfg:?}") };
        assert_eq!((p.law, p.beta, p.c), (PconLaw::Cubic, Some(0.7), Some(0.4)));
        assert_eq!(cfg.validate(), Ok(()));
    }

    #[test]
    fn parameters_of_each_type_are_read() {
        let cases = [
            ("window = { type = \"consumer-window\", initial_window = 4 }", "consumer-window"),
            ("window = { type = \"aimd\", slow_start_step = \"interest-over-data\", initial_ssthresh = 64 }", "aimd"),
            ("window = { type = \"reno-hole\", holes_before_reaction = 5 }", "reno-hole"),
            ("window = { type = \"arrival-rate\", step = 5, window_rtt = \"srtt\" }", "arrival-rate"),
            ("window = { type = \"bic\", beta = 0.8, smooth_part = 5 }", "bic"),
            ("window = { type = \"cubic\", beta = 0.7, fast_convergence = true, tcp_friendly = true }", "cubic"),
            ("window = { type = \"pcon\", law = \"bic\", cwa = false, low_window = 10 }", "pcon"),
        ];
        for (text, kind) in cases {
            let cfg = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(cfg.kind(), kind);
            assert_eq!(cfg.validate(), Ok(()), "{text}");
        }
        let WindowConfig::RenoHole(r) = parse(cases[2].0).unwrap() else { unreachable!() };
        assert_eq!(r.holes_before_reaction, 5);
    }

    #[test]
    fn a_misspelt_enum_value_is_rejected() {
        assert!(parse("window = { type = \"pcon\", law = \"reno\" }").is_err());
        assert!(parse("window = { type = \"aimd\", slow_start_step = \"half\" }").is_err());
    }

    #[test]
    fn configs_survive_a_json_round_trip() {
        let cfg = parse("window = { type = \"pcon\", law = \"cubic\", beta = 0.7 }").unwrap();
        let json = serde_json::to_string(&cfg).unwrap();
        assert_eq!(serde_json::from_str::<WindowConfig>(&json).unwrap(), cfg);
    }
}
