//! Rate controllers, one per file, and the tagged config enum that builds them.

pub mod aimd_rate;
pub mod constant;
pub mod mircc;

use super::RateControl;

pub use aimd_rate::{AimdRate, AimdRateConfig};
pub use constant::{ConstantRate, ConstantRateConfig};
pub use mircc::{MirccRate, MirccRateConfig};

crate::plugin_family! {
    /// `[apps.x.rate] type = "..."` in a scenario.
    pub enum RateConfig -> Box<dyn RateControl> {
        /// Constant bit rate (CBR): a fixed number of Interests per second.
        "constant" => Constant(ConstantRateConfig),
        /// MIRCC consumer: the rate stamped into the last Data (seed 000).
        "mircc" => Mircc(MirccRateConfig),
        /// AIMD on the rate, decreasing on Congestion NACKs (stateful forwarding, B §5.2).
        "aimd-rate" => AimdRate(AimdRateConfig),
        /// A class written in Python (needs the `ndncc` Python package; docs/python-controllers.md).
        "python" => Python(super::external::PythonRateConfig),
    }
}
