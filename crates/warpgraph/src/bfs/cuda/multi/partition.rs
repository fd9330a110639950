//! How a team splits a graph, and the device memory each rank needs for its part.

use super::delegates::Delegates;
use super::pieces::pieces_bound;
use super::tuning::{LISTED_CAP, LIST_CAP, RUN_SET, SHORT_PIECES};
use crate::graph::{Csr, Graph};

/// Bitmap words a rank's range is a multiple of, in a team of several (16 bytes).
const SEG_ALIGN: usize = 4;

/// How a graph is split: ranks own ranges of `seg` bitmap words.
#[derive(Debug, Clone, Copy)]
pub(super) struct Partition {
    pub(super) n: usize,
    pub(super) world: usize,
    /// Bitmap words per rank.
    pub(super) seg: usize,
}

impl Partition {
    pub(super) fn new(n: usize, world: usize) -> Partition {
        let words = n.div_ceil(32).max(1);
        // With other ranks, a rank's part of a gathered bitmap starts on 16 bytes: NCCL's
        // all-gather in symmetric memory delivered wrong data on 4 H200s for parts of 469
        // and 547 words (its kernels move 16 bytes at a time).
        let seg = match world {
            1 => words,
            _ => words.div_ceil(world).next_multiple_of(SEG_ALIGN),
        };
        Partition { n, world, seg }
    }

    /// Words of a whole bitmap (every rank's range, padded).
    pub(super) fn words(&self) -> usize {
        self.seg * self.world
    }

    /// The vertices of `rank`.
    pub(super) fn range(&self, rank: usize) -> std::ops::Range<usize> {
        let lo = (rank * self.seg * 32).min(self.n);
        lo..((rank + 1) * self.seg * 32).min(self.n)
    }
}

/// Device bytes rank `rank` of `world` needs to search `g`: its rows (twice for a
/// directed graph) and, with other ranks, every vertex's arcs into its range; four whole
/// bitmaps and its part of one, its queues, depths and parents, every vertex's
/// out-degree, the short levels' lists (its own and every rank's), with other ranks the
/// candidate parents of every vertex and a buffer of (vertex, parent) pairs to and from
/// each other rank, and on rank 0 of a team spread over processes every vertex's depth
/// and parent. `solo` (with other ranks): also every vertex's out-rows, and its depths
/// and parents, for short levels taken alone.
pub fn bytes_needed(g: &Graph, world: usize, rank: usize, gather: bool, solo: bool) -> u64 {
    let p = Partition::new(g.num_vertices(), world);
    let r = p.range(rank);
    let rows = |c: &Csr| 8 * (r.len() as u64 + 1) + 4 * (c.offsets()[r.end] - c.offsets()[r.start]);
    let graph = rows(g.out())
        + if g.is_directed() {
            rows(g.incoming())
        } else {
            0
        };
    let words = p.words() as u64;
    let local = 32 * p.seg as u64;
    let peers = world as u64 - 1;
    let exchange = if peers > 0 {
        4 * 32 * words + 2 * peers * 4 * 2 * local
    } else {
        0
    };
    let tree = if gather && rank == 0 {
        4 * 2 * 32 * words
    } else {
        0
    };
    let solo = match solo && peers > 0 {
        true => {
            let c = g.out();
            8 * (p.n as u64 + 1) + 4 * c.num_arcs() + 4 * 2 * (32 * words - local)
        }
        false => 0,
    };
    // This rank's list and every rank's, twice with other ranks.
    let lists = 4 * (1 + world as u64 * if peers > 0 { 2 } else { 1 }) * (1 + 2 * LIST_CAP as u64);
    // What the host's first levels reached (the bound is at most LIST_CAP arcs).
    let seeds = 4 * 3 * LIST_CAP as u64;
    // Its queue (with other ranks, of every vertex), depths and parents, and the pieces of
    // its big frontier vertices: with other ranks, of the hubs' arcs into its range (and
    // the delegates' rows, every vertex's arcs into its range).
    let (delegates, pieces, queue) = if world > 1 {
        let d = Delegates::sizes(g.out(), r.clone());
        (
            4 * d.0 + 8 * (p.n as u64 + 1) + 4 * d.1,
            d.2.max(pieces_bound(g.out(), r) as u64),
            32 * words,
        )
    } else {
        (0, pieces_bound(g.out(), r) as u64, local)
    };
    let queues =
        4 * (2 * local + queue) + 8 * pieces.max(SHORT_PIECES) + 8 * 2 * LISTED_CAP + delegates;
    // Every vertex's out-degree, and at setup its range's part to all-gather.
    let degrees = 4 * 32 * words + 4 * local;
    graph
        + 4 * (4 * words + p.seg as u64)
        + queues
        + degrees
        + lists
        + seeds
        + 4 * (world as u64 + 1) * world as u64
        + exchange
        + tree
        + solo
        + 8 * 3 * RUN_SET as u64
        + 64
}
