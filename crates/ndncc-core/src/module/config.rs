//! `modules = [{ type = "..." }, ...]` on a node: router-side congestion-control modules.

use super::hbh_shaper::HbhShaperConfig;
use super::interest_limit::InterestLimitConfig;
use super::mircc::MirccConfig;
use super::perif_ecn::PerIfEcnModuleConfig;
use super::srmcc::SrmccMtnConfig;
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
        /// Hop-by-hop Interest shaper: per-face Interest pacing from both directions' capacities
        /// and the observed opposite demand (ALGORITHMS.md B §7).
        "hbh-shaper" => HbhShaper(HbhShaperConfig),
        /// SRMCC's multicast tree node: queue occupancy, fair shared rate, MCC aggregation
        /// (seed 001, ALGORITHMS.md A7).
        "srmcc" => Srmcc(SrmccMtnConfig),
        /// PerIfWithECN's router: a suggested rate to the multicast source whenever an outgoing
        /// queue is over its set point (ALGORITHMS.md Part B §3).
        "perif-ecn" => PerIfEcn(PerIfEcnModuleConfig),
    }
}
