//! Link loss models: whether a packet that left the transmitter is lost on the wire.
//! Each link direction draws from its own RNG stream, so adding traffic elsewhere does not
//! change which packets this link loses.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::rng::SimRng;
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
}

impl LossConfig {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    pub fn build(&self) -> LossModel {
        match *self {
            LossConfig::None => LossModel::None,
            LossConfig::Bernoulli { p } => LossModel::Bernoulli { p: p.0 },
        }
    }
}

/// The running state of a loss model.
#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    Bernoulli { p: f64 },
}

impl LossModel {
    /// Draw: is the next packet lost?
    #[inline]
    pub fn is_lost(&mut self, rng: &mut SimRng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => *p > 0.0 && rng.gen::<f64>() < *p,
        }
    }
}
