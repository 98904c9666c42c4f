//! `link_service = { type = "..." }` on a link: the per-face link service each direction's
//! sending face gets (both ends of the link get one of their own, built from the same table).

use super::loss_detect::LossDetectConfig;
use super::LinkService;

crate::plugin_family! {
    /// The link service of a link's faces and its parameters.
    pub enum LinkServiceConfig -> Box<dyn LinkService> {
        /// PCON's local link-loss detection (seed 004, ALGORITHMS.md A5): frames are numbered and
        /// acknowledged; a Data lost on the link becomes a LinkLoss NACK towards the consumer.
        "loss-detect" => LossDetect(LossDetectConfig),
    }
}
