//! What a team's exchanges share, whichever way they go (NCCL between GPUs, or copies on a
//! GPU the ranks share): the reductions over the ranks, and the error of a rank that waited
//! for one that had stopped.

use crate::error::Error;

/// A reduction over the ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Min,
    Max,
}

/// What a rank waiting for a rank that left hears. The team reports the leaver's own
/// error in its place ([`departed`]).
pub(crate) const DEPARTED: &str = "another rank of the team stopped before this exchange";

/// Whether `e` only says that another rank stopped (its own error says why).
pub(crate) fn departed(e: &Error) -> bool {
    matches!(e, Error::Nccl(m) if m == DEPARTED)
}
