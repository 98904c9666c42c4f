//! `modules = [{ type = "..." }, ...]` on a node: router-side congestion-control modules.

use super::interest_limit::InterestLimitConfig;
use super::mircc::MirccConfig;
use super::static_stamp::StaticRateStampConfig;
use super::RouterModule;

crate::plugin_family! {
    /// One router module of a node and its parameters.
    pub enum ModuleConfig -> Box<dyn RouterModule> {
        /// Stamp a fixed rate [Interests/s] into every Data this node forwards (lowering, never
        /// raising, the stamp). A building block for testing rate-following consumers.
        "static-rate-stamp" => StaticRateStamp(StaticRateStampConfig),
        /// MIRCC: per-link stamping rate R(t) every interval T (seed 000, ALGORITHMS.md A6).
        "mircc" => Mircc(MirccConfig),
        /// Stateful-forwarding Interest limiting: a per-face limit of outstanding Interests or of
        /// their rate; an Interest over it is refused with a Congestion NACK (ALGORITHMS.md B §5.2).
        "interest-limit" => InterestLimit(InterestLimitConfig),
    }
}
