//! RAAQM, Remote Adaptive Active Queue Management (Carofiglio, Gallo, Muscariello, Papalini,
//! 2013; ALGORITHMS.md Part B §6.2): ICP's window with a probabilistic, delay-driven decrease
//! per route.
//!
//! ```text
//!   Data (not retransmitted) on the path with route label ℓ:
//!     W += γ/W (while W < W_max);  add the RTT to ℓ's last `samples` RTTs
//!     once ℓ has `samples` of them:
//!       p = p_min + Δp_max · (RTT − RTT_min)/(RTT_max − RTT_min)   (p_min if RTT_max = RTT_min)
//!       with probability p:  W = max(W_min, β·W)
//!   timeout: ICP's decrease
//! ```
//!
//! Route labels come with each Data (`Packet::route`, set hop by hop as hICN does). A label seen
//! for the first time starts from a copy of the default path, which takes every sample. Defaults
//! are libndn-icp's (p_min 1e-5, Δp_max 0.02, β 0.5, γ 1, 30 samples), the set closest to the
//! papers.

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::icp::{IcpConfig, IcpWindow};
use crate::cc::{DataEvent, LossEvent, WindowControl};
use crate::plugin::{check, Check, Plugin};
use crate::rng::SimRng;
use crate::time::SimDuration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RaaqmConfig {
    /// Window at the start [packets]. Default 1.
    pub initial_window: f64,
    /// Floor of every decrease, W_min [packets]. Default 1.
    pub min_window: f64,
    /// Ceiling of the increase, W_max [packets]. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_window: Option<f64>,
    /// Additive increase per window of Data, γ. Default 1.
    pub gamma: f64,
    /// Multiplicative decrease β. Default 0.5.
    pub beta: f64,
    /// Decrease probability at the path's smallest RTT, p_min. Default 1e-5.
    pub p_min: f64,
    /// Added probability at the path's largest RTT, Δp_max ("drop factor"). Default 0.02.
    pub drop_factor: f64,
    /// RTT samples kept per path, and needed before the path may decrease. Default 30.
    pub samples: u64,
    /// Treat the timeouts of one window as one loss event (see `icp`). Default false:
    /// libndn-icp decreases on every timeout.
    pub one_decrease_per_window: bool,
}

impl Default for RaaqmConfig {
    fn default() -> Self {
        RaaqmConfig {
            initial_window: 1.0,
            min_window: 1.0,
            max_window: None,
            gamma: 1.0,
            beta: 0.5,
            p_min: 1e-5,
            drop_factor: 0.02,
            samples: 30,
            one_decrease_per_window: false,
        }
    }
}

impl RaaqmConfig {
    fn icp(&self) -> IcpConfig {
        IcpConfig {
            initial_window: self.initial_window,
            min_window: self.min_window,
            eta: self.gamma,
            beta: self.beta,
            one_decrease_per_window: self.one_decrease_per_window,
        }
    }
}

impl Plugin for RaaqmConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        self.icp()
            .check()
            .map_err(|e| if e.key == "eta" { crate::plugin::Invalid::new("gamma", e.message) } else { e })?;
        if let Some(m) = self.max_window {
            check::window("max_window", m)?;
        }
        check::fraction("p_min", self.p_min)?;
        check::fraction("drop_factor", self.drop_factor)?;
        if self.p_min + self.drop_factor > 1.0 {
            return Err(crate::plugin::Invalid::new("drop_factor", "p_min + drop_factor must not exceed 1"));
        }
        check::count("samples", self.samples, 1, 100_000)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(Raaqm::new(self))
    }
}

/// One path's last RTT samples.
#[derive(Clone, Debug, Default)]
pub struct PathRtts {
    rtts: VecDeque<SimDuration>,
}

impl PathRtts {
    fn add(&mut self, rtt: SimDuration, keep: usize) {
        if self.rtts.len() == keep {
            self.rtts.pop_front();
        }
        self.rtts.push_back(rtt);
    }

    /// The decrease probability for the latest sample, once `keep` samples are in.
    pub fn probability(&self, keep: usize, p_min: f64, drop_factor: f64) -> Option<f64> {
        if self.rtts.len() < keep {
            return None;
        }
        let latest = *self.rtts.back()?;
        let min = *self.rtts.iter().min()?;
        let max = *self.rtts.iter().max()?;
        if max == min {
            return Some(p_min);
        }
        let pos = (latest - min).as_secs_f64() / (max - min).as_secs_f64();
        Some(p_min + drop_factor * pos)
    }
}

pub struct Raaqm {
    cfg: RaaqmConfig,
    w: IcpWindow,
    keep: usize,
    default_path: PathRtts,
    /// Indexed by route label.
    paths: Vec<Option<PathRtts>>,
    rng: Option<SimRng>,
    decreases: u64,
}

impl Raaqm {
    pub fn new(cfg: &RaaqmConfig) -> Raaqm {
        Raaqm {
            cfg: cfg.clone(),
            w: IcpWindow::new(&cfg.icp()),
            keep: usize::try_from(cfg.samples).unwrap_or(usize::MAX),
            default_path: PathRtts::default(),
            paths: vec![None; 256],
            rng: None,
            decreases: 0,
        }
    }
}

impl WindowControl for Raaqm {
    fn name(&self) -> &'static str {
        "raaqm"
    }
    fn use_rng(&mut self, rng: SimRng) {
        self.rng = Some(rng);
    }
    fn on_data(&mut self, ev: &DataEvent) {
        let Some(rtt) = ev.rtt else { return };
        self.w.increase(self.cfg.max_window.unwrap_or(f64::INFINITY));
        let default = &self.default_path;
        let path = self.paths[usize::from(ev.route)].get_or_insert_with(|| default.clone());
        path.add(rtt, self.keep);
        let p = path.probability(self.keep, self.cfg.p_min, self.cfg.drop_factor);
        self.default_path.add(rtt, self.keep);
        let Some(p) = p else { return };
        // A controller built outside a consumer has no stream: it never draws a decrease.
        let Some(rng) = self.rng.as_mut() else { return };
        if rng.gen::<f64>() < p {
            self.w.decrease(ev.next_seq);
            self.decreases += 1;
        }
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.w.on_timeout(ev.seq, ev.next_seq);
    }
    fn window(&self) -> f64 {
        self.w.window
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("raaqm_decreases", self.decreases as f64));
        out.push(("raaqm_paths", self.paths.iter().filter(|p| p.is_some()).count() as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::data;
    use crate::rng::stream;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    #[test]
    fn the_probability_scales_with_the_rtts_place_between_min_and_max() {
        let mut p = PathRtts::default();
        for r in [100, 140, 120] {
            p.add(ms(r), 3);
        }
        // latest 120 between 100 and 140: p = 1e-5 + 0.02 · 0.5 = 0.01001.
        assert!((p.probability(3, 1e-5, 0.02).unwrap() - 0.01001).abs() < 1e-12);
        p.add(ms(140), 3); // window now 140, 120, 140
        assert!((p.probability(3, 1e-5, 0.02).unwrap() - 0.02001).abs() < 1e-12);
        p.add(ms(120), 3);
        p.add(ms(120), 3);
        p.add(ms(120), 3); // all equal: p_min
        assert_eq!(p.probability(3, 1e-5, 0.02), Some(1e-5));
        assert_eq!(PathRtts::default().probability(3, 1e-5, 0.02), None, "too few samples");
    }

    #[test]
    fn decreases_come_only_from_a_path_with_a_full_sample_window_and_rising_rtt() {
        let cfg = RaaqmConfig { samples: 4, drop_factor: 1.0 - 1e-5, initial_window: 50.0, ..RaaqmConfig::default() };
        let mut c = Raaqm::new(&cfg);
        c.use_rng(stream(1, "t"));
        // Three samples: no decision yet, only the increase.
        for (i, r) in [10u64, 20, 30].iter().enumerate() {
            c.on_data(&DataEvent { rtt: Some(ms(*r)), ..data(i as u64, i as u64) });
        }
        assert!(c.window() > 50.0);
        // The fourth is the path's maximum: p = 1, the window halves.
        let before = c.window();
        c.on_data(&DataEvent { rtt: Some(ms(40)), ..data(5, 5) });
        assert!((c.window() - (before + 1.0 / before) * 0.5).abs() < 1e-9);
        // A new route starts from the default path's samples, so it decides at once.
        let before = c.window();
        c.on_data(&DataEvent { rtt: Some(ms(5)), route: 7, ..data(6, 6) }); // its minimum: p = 1e-5
        assert!(c.window() > before);
        assert_eq!(c.paths.iter().filter(|p| p.is_some()).count(), 2);
    }

    #[test]
    fn validation_names_the_key() {
        assert_eq!(RaaqmConfig { p_min: 2.0, ..Default::default() }.validate().unwrap_err().key, "p_min");
        assert_eq!(RaaqmConfig { samples: 0, ..Default::default() }.validate().unwrap_err().key, "samples");
        assert_eq!(RaaqmConfig { gamma: 0.0, ..Default::default() }.validate().unwrap_err().key, "gamma");
    }
}
