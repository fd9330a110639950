//! A search's state on the host from level to level, and the rule of each level's
//! direction.

use super::spent;
use crate::bfs::cuda::multi::trace::LevelMarks;
use crate::bfs::{BfsOptions, Direction};
use crate::graph::VertexId;

/// A search's state on the host, from level to level.
pub(super) struct Walk {
    pub(super) source: VertexId,
    pub(super) opts: BfsOptions,
    /// Vertices of the graph, and Beamer's alpha and beta (at least 1).
    pub(super) n: u64,
    pub(super) alpha: u64,
    pub(super) beta: u64,
    /// `WARPGRAPH_TRACE`: the levels are traced.
    pub(super) trace: bool,
    /// As [`super::RankState::undirected`].
    pub(super) undirected: u32,
    /// The frontier's vertices and out-arcs, and the arcs in no frontier yet.
    pub(super) nf: u64,
    pub(super) mf: u64,
    pub(super) unexplored: u64,
    pub(super) bottom_up: bool,
    pub(super) level: u32,
    /// The frontier before this one (Beamer: back to top-down only while shrinking).
    pub(super) prev_nf: u64,
    /// The levels traced, printed once the search is done (printing between levels
    /// would hold the next one back).
    pub(super) traced: Vec<LevelMarks>,
    /// Whether the host's first levels (expanded while the GPUs clear their arrays) are
    /// handed over, and whether mbfs_seed queued the first level the GPUs expand.
    pub(super) seeded: bool,
    pub(super) seeded_queue: bool,
    /// The level before, if it was short: its lists' bound. The frontier is then listed
    /// in pieces ([`super::RankState::listed`]), and not in `front`.
    pub(super) last_short: Option<u32>,
    /// The level queued ahead, if any: its lists' bound, its post, and the bound its
    /// mbfs_absorb was given for the level after it.
    pub(super) ahead: Option<(u32, u64, u32)>,
    /// After a short level, whether its mbfs_absorb found the next one short.
    pub(super) said_short: Option<bool>,
    /// Whether the level before ended a team of one's run of short levels.
    pub(super) ran: bool,
    pub(super) nothing_left: bool,
    /// Whether this level's counts are this rank's own, to be summed on the hosts, and
    /// the host's wait for the other ranks' (traced).
    pub(super) split_round: bool,
    pub(super) board_ms: Option<f64>,
    /// Whether the level before's mbfs_visit is yet to come (see
    /// [`super::RankState::host_counts`]).
    pub(super) unvisited: bool,
}

impl Walk {
    /// Whether the search goes on to another level.
    pub(super) fn goes_on(&self) -> bool {
        self.nf > 0
            && !self.nothing_left
            && !spent(self.level, self.nf, self.mf, self.undirected == 1)
    }

    /// The direction of the next level.
    pub(super) fn direction(&self, list_cap: usize) -> bool {
        let (nf, mf, n) = (self.nf, self.mf, self.n);
        match self.opts.direction {
            Direction::TopDown => false,
            Direction::BottomUp => true,
            // Beamer's rule, but only from a frontier that is not shrinking: past its
            // widest level a road network's frontier holds a fifteenth of the arcs left,
            // and the search would go bottom-up and back at every level.
            Direction::Optimizing if !self.bottom_up => {
                mf > self.unexplored / self.alpha && nf >= self.prev_nf
            }
            // Beamer's rule, but only into a short level: a long top-down level after the
            // bottom-up ones finds little and still pays all its steps, more than another
            // bottom-up step.
            Direction::Optimizing => {
                !(nf < n / self.beta && nf < self.prev_nf && mf <= list_cap as u64)
            }
        }
    }
}
