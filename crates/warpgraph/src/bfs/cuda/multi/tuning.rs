//! The team's bounds and constants: what makes a level short, who expands a hub level,
//! how many arcs the host takes, and the team's setup.

use crate::error::{Error, Result};

/// Threads per block of every kernel.
pub(super) const THREADS: u32 = 256;

/// Values a rank counts in a level (`Counters::stats`; `STATS` in `multi.cu`).
pub(super) const STATS: usize = 4;

/// Out-arcs a warp expands at once of a frontier vertex with at least as many (multi.cu's
/// `piece`): the hubs of a skewed graph are cut into pieces that the whole grid shares.
pub(super) const PIECE: u64 = 256;

/// Vertices from which a team page-locks the host's tree in place (a smaller one is
/// copied through a page-locked buffer in microseconds).
pub(super) const LOCK_VERTICES: usize = 1 << 16;

/// The mean out-degree of a long top-down level's frontier from which a team expands the
/// whole frontier on every GPU (`Expand::Whole`). Each GPU then spends a warp on every
/// frontier vertex, not only on its own, but nothing crosses GPUs but the bitmap, which
/// on a power-law graph's hub level costs less than the pairs' steps (pack, counts, send
/// and receive, apply). A frontier of low degree (a road network's) keeps the pairs, so
/// that each GPU expands only its part of it.
pub const WHOLE_DEGREE: u64 = 32;

/// The piece of a short top-down level (at most [`LIST_CAP`] frontier arcs): its few
/// arcs go to many warps at once, one step of a warp each (in pieces of 256, a hub of a
/// thousand arcs would keep one warp busy longer than the level's other steps).
pub(super) const SHORT_PIECE: u64 = 32;

/// Entries the list of pieces can need on a short level: a vertex of `d >= SHORT_PIECE`
/// arcs is at most `2 d / SHORT_PIECE` pieces.
pub(super) const SHORT_PIECES: u64 = 2 * LIST_CAP as u64 / SHORT_PIECE;

/// Entries each of the two lists of a listed frontier's pieces can need (multi.cu's
/// mbfs_absorb lists them): a frontier of at most [`LIST_CAP`] arcs is at most
/// `LIST_CAP / SHORT_PIECE` pieces plus one a vertex with arcs.
pub(super) const LISTED_CAP: u64 = LIST_CAP as u64 + SHORT_PIECES;
const _: () = assert!(LISTED_CAP >= LIST_CAP as u64 + LIST_CAP as u64 / SHORT_PIECE);

/// With other ranks, a short level queued ahead may have twice the last known frontier's
/// arcs and a 1 / AHEAD_SLACK of the short levels' bound more (1,024 arcs; their lists'
/// all-gather is that long). A longer one does nothing and is queued again once the
/// counts are in (which the tests' small bounds exercise).
pub(super) const AHEAD_SLACK: u64 = 128;

/// Blocks of a team of one's run of short levels (mbfs_short_run, at most as many as are
/// resident at once): a level in one pass and one barrier on one word. A grid's levels
/// hold a few thousand arcs, a Kronecker graph's short ones up to [`LIST_CAP`].
pub const RUN_BLOCKS: u32 = 64;

/// Frontier arcs up to which a team of one's short levels go into a run: every short
/// level. A lower bound ends a run before a short level of more arcs, which then takes
/// the host's way, the whole grid's two launches (on a road-like grid, slower than the
/// run's one block set).
pub const RUN_ARCS: u64 = LIST_CAP as u64;

/// Words of each of mbfs_short_run's three sets of counters (multi.cu's RUN_SET).
pub(super) const RUN_SET: usize = 4;

/// Frontier out-arcs, over all the first levels, up to which the host expands them itself
/// (`HostLevels`). Small: each vertex a level finds costs the host a cache miss or two
/// for its degree (the vertices lie anywhere), so a level of a few thousand arcs costs it
/// as much as the GPUs' level it saves.
pub const HOST_ARCS: usize = 256;

/// Whether a team of several GPUs over NCCL keeps the buffers of each level's bitmap
/// all-gather in NCCL's symmetric memory (`ncclMemAlloc`, a window registered by every
/// rank; NCCL 2.27 or later), so that NCCL's symmetric kernels make it, writing straight
/// into the peers' memory, in place of its ring through its own buffers, about twice as
/// fast for a bitmap of a megabyte a rank. The team first checks that an all-gather there
/// delivers, and keeps its own buffers if not.
pub const SYMMETRIC: bool = true;

/// How a team is set up: the choices all its searches share.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamSetup {
    /// A team of several ranks takes its short levels solo where every GPU has the
    /// memory (`RankState::solo`).
    pub solo: bool,
    /// A team of several GPUs exchanges its bitmaps in NCCL's symmetric memory where it
    /// can ([`SYMMETRIC`]).
    pub symmetric: bool,
}

impl Default for TeamSetup {
    /// Solo where the memory allows, bitmaps in symmetric memory where NCCL has it.
    fn default() -> Self {
        TeamSetup {
            solo: true,
            symmetric: SYMMETRIC,
        }
    }
}

/// The bounds by which a team's searches choose the way of each level. The defaults
/// suit every graph tried; each is settable for experiments and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamTuning {
    /// Frontier out-arcs up to which a top-down level is short (1 to [`LIST_CAP`]): a
    /// level of more arcs is split by owner (a team's) or expanded into the bitmap (a
    /// team of one's).
    pub list_cap: usize,
    /// Frontier out-arcs, over all the first levels, up to which the host expands them
    /// itself (0 to [`LIST_CAP`]; 0: every level on the GPUs). Default [`HOST_ARCS`].
    pub host_arcs: usize,
    /// The mean out-degree of a long top-down level's frontier from which every GPU
    /// expands the whole frontier (0: always; `u64::MAX`: never, the hubs only). Default
    /// [`WHOLE_DEGREE`].
    pub whole_degree: u64,
    /// Blocks of a team of one's (or a solo team's) run of short levels in one launch
    /// (0 to 65,536; 0: no runs, the levels one by one; at most as many as are resident
    /// are used). Default [`RUN_BLOCKS`].
    pub run_blocks: u32,
    /// Frontier out-arcs up to which a short level goes into such a run (0 to
    /// [`LIST_CAP`]). Default [`RUN_ARCS`].
    pub run_arcs: u64,
}

impl Default for TeamTuning {
    fn default() -> Self {
        TeamTuning {
            list_cap: LIST_CAP,
            host_arcs: HOST_ARCS,
            whole_degree: WHOLE_DEGREE,
            run_blocks: RUN_BLOCKS,
            run_arcs: RUN_ARCS,
        }
    }
}

impl TeamTuning {
    /// Checks that every bound lies within its range.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field, its value and its range.
    pub fn check(&self) -> Result<()> {
        let cap = LIST_CAP as u64;
        let fields = [
            ("list_cap", self.list_cap as u64, 1..=cap, "arcs"),
            ("host_arcs", self.host_arcs as u64, 0..=cap, "arcs"),
            (
                "run_blocks",
                u64::from(self.run_blocks),
                0..=1 << 16,
                "blocks",
            ),
            ("run_arcs", self.run_arcs, 0..=cap, "arcs"),
        ];
        for (name, value, range, what) in fields {
            if !range.contains(&value) {
                return Err(Error::InvalidArgument(format!(
                    "TeamTuning::{name} = {value}: expected {} to {} {what}",
                    range.start(),
                    range.end()
                )));
            }
        }
        Ok(())
    }
}

/// A top-down level whose frontier has at most this many out-arcs is short: each rank's
/// list of what it found holds no more (one pair per arc at most), so every list goes to
/// every rank in one all-gather of a size known beforehand (up to 1 MiB a rank).
/// [`TeamTuning::list_cap`] lowers the bound (1 to this): a level of more arcs is then
/// split by owner (a team's) or expanded into the bitmap (a team of one's).
pub const LIST_CAP: usize = 128 * 1024;
