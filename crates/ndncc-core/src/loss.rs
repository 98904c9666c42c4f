//! Link loss models: whether a packet that left the transmitter is lost on the wire.
//! Each link direction draws from its own RNG stream, so adding traffic elsewhere does not
//! change which packets this link loses.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::plugin::{check, Check};

use crate::rng::{stream_seed, SimRng};
use crate::units::Fraction;

/// `loss = { type = "...", ... }` on a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LossConfig {
    /// No random loss.
    #[default]
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: Fraction },
    /// Gilbert–Elliott two-state burst loss. Per packet, the channel first moves between its
    /// good and bad states, then the packet is lost with the loss probability of the state it
    /// is now in. The channel starts in the good state. In the long run it is bad a share
    /// `p_good_to_bad / (p_good_to_bad + p_bad_to_good)` of packets, and it stays bad for
    /// `1 / p_bad_to_good` packets on average.
    GilbertElliott {
        /// Chance per packet of moving from good to bad (required).
        p_good_to_bad: Fraction,
        /// Chance per packet of moving from bad to good (required).
        p_bad_to_good: Fraction,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: Fraction,
        /// Loss probability in the bad state (default 1).
        #[serde(default = "certain")]
        loss_bad: Fraction,
    },
}

fn certain() -> Fraction {
    Fraction(1.0)
}

impl LossConfig {
    /// Check every value; the error names the key relative to the `loss` table.
    pub fn validate(&self) -> Check {
        match *self {
            LossConfig::None => Ok(()),
            LossConfig::Bernoulli { p } => check::fraction("p", p.0),
            LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                check::fraction("p_good_to_bad", p_good_to_bad.0)?;
                check::fraction("p_bad_to_good", p_bad_to_good.0)?;
                check::fraction("loss_good", loss_good.0)?;
                check::fraction("loss_bad", loss_bad.0)
            }
        }
    }
    pub fn build(&self) -> LossModel {
        match *self {
            LossConfig::None => LossModel::None,
            LossConfig::Bernoulli { p } => LossModel::Bernoulli { p: p.0 },
            LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                LossModel::GilbertElliott(Box::new(GilbertElliott {
                    p_good_to_bad: p_good_to_bad.0,
                    p_bad_to_good: p_bad_to_good.0,
                    loss_good: loss_good.0,
                    loss_bad: loss_bad.0,
                    bad: false,
                }))
            }
        }
    }
}

/// The running state of a loss model. Every link face holds one: the two-state model, which
/// few links have, is boxed so that the others are 16 bytes rather than 40.
#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    Bernoulli { p: f64 },
    GilbertElliott(Box<GilbertElliott>),
}

/// The Gilbert-Elliott channel's parameters and state.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    /// The channel is in the bad state.
    pub bad: bool,
}

/// One draw with probability `p`; no random number is used when the outcome is certain.
#[inline]
fn chance(p: f64, rng: &mut SimRng) -> bool {
    p >= 1.0 || (p > 0.0 && rng.gen::<f64>() < p)
}

/// The losses of one link direction on the wire: its loss model and the random stream the
/// model draws from, boxed together once the direction has a model (most have none), beside
/// the stream's seed. 16 bytes of the direction's egress, where the model and a stream made
/// on its first draw took 32 of every face.
#[derive(Debug)]
pub struct LinkLoss {
    seed: u64,
    lossy: Option<Box<Lossy>>,
}

/// A loss model and its stream, made on the model's first draw.
#[derive(Debug)]
struct Lossy {
    model: LossModel,
    rng: Option<SimRng>,
}

impl LinkLoss {
    /// `model` on the link direction whose stream is called `name` in a run seeded with
    /// `root_seed` (the stream `crate::rng::stream` gives, made only if the model draws).
    pub fn new(root_seed: u64, name: &str, model: LossModel) -> LinkLoss {
        let mut loss = LinkLoss { seed: stream_seed(root_seed, name), lossy: None };
        loss.set_model(model);
        loss
    }

    /// A new model: the old one's state goes, its stream goes on.
    pub fn set_model(&mut self, model: LossModel) {
        match &mut self.lossy {
            Some(l) => l.model = model,
            None if matches!(model, LossModel::None) => {}
            None => self.lossy = Some(Box::new(Lossy { model, rng: None })),
        }
    }

    /// Draw: is the next packet lost? Without a model nothing is drawn and the stream is never
    /// made (`LossModel::is_lost` draws nothing either when the outcome is certain).
    #[inline]
    pub fn is_lost(&mut self) -> bool {
        let seed = self.seed;
        match self.lossy.as_deref_mut() {
            Some(Lossy { model, rng }) if !matches!(model, LossModel::None) => {
                model.is_lost(rng.get_or_insert_with(|| SimRng::seed_from_u64(seed)))
            }
            _ => false,
        }
    }
}

impl LossModel {
    /// Draw: is the next packet lost?
    #[inline]
    pub fn is_lost(&mut self, rng: &mut SimRng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => *p > 0.0 && rng.gen::<f64>() < *p,
            LossModel::GilbertElliott(ge) => {
                let GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad, bad } = &mut **ge;
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                if chance(flip, rng) {
                    *bad = !*bad;
                }
                chance(if *bad { *loss_bad } else { *loss_good }, rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    const N: usize = 1_000_000;

    /// A lossy link draws what its stream draws, made at its first draw, and goes on drawing
    /// from it when its model changes; a link without a model makes no stream.
    #[test]
    fn a_link_s_losses_come_from_its_own_stream_across_model_changes() {
        let model = || LossModel::Bernoulli { p: 0.5 };
        let mut link = LinkLoss::new(7, "link:A->B", model());
        let (mut eager, mut reference) = (stream(7, "link:A->B"), model());
        for k in 0..40 {
            if k == 20 {
                link.set_model(model());
            }
            assert_eq!(link.is_lost(), reference.is_lost(&mut eager), "draw {k}");
        }
        let mut clean = LinkLoss::new(7, "link:A->B", LossModel::None);
        assert!(!clean.is_lost());
        assert!(clean.lossy.is_none(), "no model: nothing boxed, no stream");
    }

    fn ge(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64) -> LossModel {
        LossConfig::GilbertElliott {
            p_good_to_bad: Fraction(p_gb),
            p_bad_to_good: Fraction(p_bg),
            loss_good: Fraction(loss_good),
            loss_bad: Fraction(loss_bad),
        }
        .build()
    }

    /// Loss rate and mean length of runs of consecutive losses over `N` packets.
    fn run(model: &mut LossModel, seed: u64) -> (f64, f64) {
        let mut rng = stream(seed, "link:test");
        let (mut lost, mut bursts, mut prev) = (0usize, 0usize, false);
        for _ in 0..N {
            let l = model.is_lost(&mut rng);
            lost += l as usize;
            bursts += (l && !prev) as usize;
            prev = l;
        }
        (lost as f64 / N as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn gilbert_elliott_loses_the_stationary_share_of_packets() {
        // p_gb = 1%, p_bg = 10%: bad a share 0.01 / 0.11 = 0.0909 of the time, losing all
        // there and nothing in the good state: rate 0.0909. With lag-one correlation
        // 1 - 0.11 = 0.89 the standard error over 10^6 packets is about
        // √(0.0909 · 0.9091 / 10^6 · 1.89 / 0.11) = 0.0012; allow 0.005.
        let (rate, _) = run(&mut ge(0.01, 0.10, 0.0, 1.0), 1);
        assert!((rate - 0.0909).abs() < 0.005, "rate {rate}");
        // Losses in both states: bad share 0.05 / 0.25 = 0.2; rate 0.2 × 0.5 + 0.8 × 0.01 = 0.108.
        let (rate, _) = run(&mut ge(0.05, 0.20, 0.01, 0.5), 2);
        assert!((rate - 0.108).abs() < 0.005, "rate {rate}");
    }

    #[test]
    fn gilbert_elliott_losses_come_in_bursts_of_one_over_p_bad_to_good() {
        // A bad spell lasts 1 / 0.1 = 10 packets on average, all lost; about 9,090 spells
        // whose lengths have standard deviation √90 = 9.5, so the mean is within ~0.1 of 10.
        let (_, burst) = run(&mut ge(0.01, 0.10, 0.0, 1.0), 3);
        assert!((burst - 10.0).abs() < 0.5, "mean burst {burst}");
        // Independent losses at the same rate give runs of 1 / (1 - 0.0909) = 1.1 packets.
        let (_, burst) = run(&mut LossModel::Bernoulli { p: 0.0909 }, 3);
        assert!((burst - 1.1).abs() < 0.05, "mean burst {burst}");
    }

    #[test]
    fn gilbert_elliott_reads_from_toml_with_default_state_losses() {
        #[derive(serde::Deserialize)]
        struct Link {
            loss: LossConfig,
        }
        let l: Link =
            toml::from_str(r#"loss = { type = "gilbert-elliott", p_good_to_bad = "1%", p_bad_to_good = 0.1 }"#)
                .unwrap();
        assert_eq!(
            l.loss,
            LossConfig::GilbertElliott {
                p_good_to_bad: Fraction(0.01),
                p_bad_to_good: Fraction(0.1),
                loss_good: Fraction(0.0),
                loss_bad: Fraction(1.0),
            }
        );
        assert!(l.loss.validate().is_ok());
        let err = toml::from_str::<Link>(
            r#"loss = { type = "gilbert-elliott", p_good_to_bad = 0.1, p_bad_to_good = 0.1, burst = 3 }"#,
        );
        assert!(err.is_err());
    }

    #[test]
    fn validation_names_the_offending_key() {
        let c = LossConfig::GilbertElliott {
            p_good_to_bad: Fraction(0.1),
            p_bad_to_good: Fraction(1.5),
            loss_good: Fraction(0.0),
            loss_bad: Fraction(1.0),
        };
        assert_eq!(c.validate().unwrap_err().key, "p_bad_to_good");
    }
}
