//! Breadth-first search over several GPUs by 1-D partition (seed 003's two-GPU
//! Enterprise), the GPUs talking through NCCL.
//!
//! **Computes** the same [`BfsTree`] as one GPU or the CPU: identical depths, and a
//! parent that does not depend on the number of GPUs: the least in-neighbour one level
//! up (rows are sorted, so also the first in arc order).
//!
//! **Method** (kernels in `multi.cu`, ranks as in [`crate::cuda::team`]): the vertices
//! are split into equal ranges of whole 32-bit bitmap words, one per GPU, and each GPU
//! holds only its range's rows (out-arcs, and in-arcs for a directed graph), depths and
//! parents. The frontier and the visited set are bitmaps of the whole graph, the same on
//! every GPU. Each level is either
//! - top-down: every GPU queues its own frontier vertices (a prefix sum per warp), expands
//!   them a warp each (those of 256 arcs or more cut into pieces of 256, a warp each;
//!   on a short level, of 32 or more into pieces of 32)
//!   and, for each unvisited target, sets its bit and lowers its parent to the expanding
//!   vertex by an atomic min, wherever the target lives. While the frontier has at most
//!   131,072 out-arcs (a short level), the expansion instead writes a (vertex, parent)
//!   pair for every arc into an unvisited vertex into one list per GPU, an all-gather of
//!   that known size gives every GPU every list, and each builds the visited set and the
//!   counts from them alike (the owner keeping the least parent), and lists its own new
//!   vertices in pieces of 32 arcs: a short level after a short one expands that list, so
//!   it is two kernels and one collective (a road network or a grid is crossed in
//!   thousands of them), and the frontier's bitmap is made from the lists only where a
//!   level that is not short needs it. Beyond, each GPU
//!   holds every vertex's arcs into its own range (`Delegates`, after Pearce et al.'s
//!   delegates). Where the frontier's vertices have [`WHOLE_DEGREE`] out-arcs or more on
//!   average (a power-law graph's hub level), every GPU expands the whole frontier into
//!   its own range from them, and nothing crosses GPUs but the bitmap below. Otherwise
//!   only a frontier vertex of 256 arcs or more (a hub) is expanded so by every GPU; the
//!   others by their owners, the targets found for each other GPU going to it as
//!   (vertex, parent) pairs over NCCL send/receive, their lengths first (each GPU merging
//!   its own finds while the host waits for them), and the owner ORs the bits into its
//!   part of the next frontier and takes the least parent; or
//! - bottom-up: every unvisited vertex of a GPU's range scans its in-arcs, in order, for
//!   one in the frontier bitmap, which becomes its parent: a lane per vertex (four loads
//!   in flight) over its first 32 in-arcs, then its warp 32 arcs a step over the rest;
//!   each bitmap word of the next frontier comes from its warp's ballot (the paper's
//!   compression), so nothing but the all-gather crosses GPUs. The vertices no arc leads
//!   to (half of a Kronecker graph's) count as visited from the start, so it passes over
//!   them as over the visited.
//!
//! Then (but after a short top-down level) an all-gather of the parts makes the next
//! frontier on every GPU, and in the same group an all-gather of every GPU's count of its
//! vertices and out-arcs, whose sums the host reads for the direction switch, which
//! every GPU takes alike: Beamer's rule ([`BfsOptions::alpha`], [`BfsOptions::beta`]) on
//! the whole graph's counts, but back to top-down only into a short level (a long one
//! after the bottom-up levels finds little, and costs more than a bottom-up step). When
//! the frontier is empty, or a bottom-up step left no vertex unvisited (a fourth count;
//! the vertices no arc leads to aside), every GPU holds the depths and parents of its
//! range: in one process each copies them straight into the host's tree (through
//! page-locked memory); a team spread over processes sends them to rank 0 first.
//!
//! Each level costs a few kernels, one collective (group) and one wait of the host for
//! the counts (three and two for a top-down level that sends pairs; a team of one GPU
//! swaps buffers in place of its collectives, which NCCL would run as kernels). A kernel
//! posts the counts straight into page-locked host memory (a `cuda::Mailbox`), which the
//! host spins on: no copy, no wait for the kernel's end. Inside a run of short levels the
//! host does not wait for them before it queues the next level: that level's kernels do
//! nothing unless the last kernel of the level before, applying the host's own rule to
//! the counts, found it short (and within the lists' bound it was given); the host
//! checks that it finds the same, and queues the right level after one that did nothing.
//! A team of one goes further: it runs such a run of short levels in one cooperative
//! launch (`mbfs_short_run`, [`RUN_BLOCKS`] blocks, `WARPGRAPH_BFS_RUN_BLOCKS`; 0: none),
//! a level in one pass and one barrier, its vertices claimed by a compare-and-swap of
//! their depths, up to the level whose next one is not short (or has more than
//! [`RUN_ARCS`] arcs); it posts the counts once (a 1024 x 1024 grid on an H100: 7.2 ms,
//! against 24-26 ms a level at a time). The graph is uploaded once for any number of
//! sources. The first levels cost none of that: while their frontiers have [`HOST_ARCS`]
//! out-arcs in all, the host expands them itself (every process alike, from its copy of
//! the graph, with the same rule for parents) while the GPUs clear their arrays, and
//! hands the GPUs what they reached in one copy and one kernel (`WARPGRAPH_BFS_HOST_ARCS`
//! sets the bound; 0 leaves every level to the GPUs).
//!
//! `WARPGRAPH_TRACE=1` prints each rank's levels once its search is done (events on the
//! stream, read afterwards: the levels run as untraced, but for the queueing ahead and a
//! team of one's runs, which a trace turns off): the GPU time of the step, of the
//! exchange, the host's, and the GPU's wait for the host before the level;
//! `WARPGRAPH_TRACE=2` also the GPU time of each kernel and collective of the level. A
//! lone search starts on idle GPUs (an H200 idles at 345 MHz, not 1,980), so trace warm
//! ones: `WARPGRAPH_TRACE=2 warpgraph bench bfs FILE --gpus 2 --trials 2` traces every
//! search of the bench, its warm-up first. `WARPGRAPH_BFS_WHOLE_DEGREE` sets
//! [`WHOLE_DEGREE`] (0: always; 18446744073709551615: never).

use std::time::Instant;

use cudarc::driver::{
    CudaEvent, CudaFunction, CudaSlice, DevicePtr, LaunchArgs, PinnedHostSlice, PushKernelArg,
};
use rayon::prelude::*;

use super::super::{BfsOptions, BfsTree, Direction};
use super::never_reached;
use crate::cuda::link::Reduce;
use crate::cuda::team::{self, Member, TeamSpec};
use crate::cuda::{gpu_err, launch_config, Gpu, KernelSource, Mailbox};
use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId};
use crate::par::sized;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs_multi",
    source: include_str!("multi.cu"),
};

/// Threads per block of every kernel.
const THREADS: u32 = 256;

/// Values a rank counts in a level (`Counters::stats`; `STATS` in `multi.cu`).
const STATS: usize = 4;

/// What a team search returns.
#[derive(Debug, Clone)]
pub struct TeamRuns {
    /// One tree per source, on the process that drives rank 0 (`None` elsewhere).
    pub trees: Vec<Option<BfsTree>>,
    /// One time per source, the slowest local rank's: `seconds` from the start to the
    /// tree in the host's memory, `kernel_seconds` (CUDA events) to the end of the search,
    /// every GPU holding its range's depths and parents (for a team spread over
    /// processes: to the tree in rank 0's GPU memory).
    pub times: Vec<RunTimes>,
    /// Levels of each search.
    pub levels: Vec<u32>,
    /// Seconds to set the team up: communicators, partition and upload.
    pub setup_seconds: f64,
}

/// How a graph is split: ranks own ranges of `seg` bitmap words.
#[derive(Debug, Clone, Copy)]
struct Partition {
    n: usize,
    world: usize,
    /// Bitmap words per rank.
    seg: usize,
}

impl Partition {
    fn new(n: usize, world: usize) -> Partition {
        let words = n.div_ceil(32).max(1);
        Partition {
            n,
            world,
            seg: words.div_ceil(world),
        }
    }

    /// Words of a whole bitmap (every rank's range, padded).
    fn words(&self) -> usize {
        self.seg * self.world
    }

    /// The vertices of `rank`.
    fn range(&self, rank: usize) -> std::ops::Range<usize> {
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
/// and parent.
pub fn bytes_needed(g: &Graph, world: usize, rank: usize, gather: bool) -> u64 {
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
        + 8 * 3 * RUN_SET as u64
        + 64
}

/// Out-arcs a warp expands at once of a frontier vertex with at least as many (multi.cu's
/// `piece`): the hubs of a skewed graph are cut into pieces that the whole grid shares.
const PIECE: u64 = 256;

/// Who expands a top-down level's frontier vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expand {
    /// Each its owner, from its rows: on one GPU, and on a short level.
    Owners,
    /// The hubs by every rank, each into its own range (from the delegates' rows); the
    /// other vertices by their owners, who send what they find for other ranks to them as
    /// (vertex, parent) pairs.
    Hubs,
    /// Every vertex by every rank, each into its own range: no pairs.
    Whole,
}

/// The mean out-degree of a long top-down level's frontier from which a team expands the
/// whole frontier on every GPU (`Expand::Whole`). Each GPU then spends a warp on every
/// frontier vertex, not only on its own, but nothing crosses GPUs but the bitmap: at
/// Kronecker 24 on 2 H200s the hub level took 0.18 ms so, 0.22 ms with the pairs' steps
/// (pack, counts, send and receive, apply; warm traces). A frontier of low degree (a road
/// network's) keeps the pairs, so that each GPU expands only its half of it.
pub const WHOLE_DEGREE: u64 = 32;

/// The piece of a short top-down level (at most [`LIST_CAP`] frontier arcs): its few
/// arcs go to many warps at once, one step of a warp each (a hub of 1,147 arcs took a
/// warp 0.027 ms in pieces of 256 on an H200, the level's other steps 0.01 ms each).
const SHORT_PIECE: u64 = 32;

/// Entries the list of pieces can need on a short level: a vertex of `d >= SHORT_PIECE`
/// arcs is at most `2 d / SHORT_PIECE` pieces.
const SHORT_PIECES: u64 = 2 * LIST_CAP as u64 / SHORT_PIECE;

/// Entries each of the two lists of a listed frontier's pieces can need (multi.cu's
/// mbfs_absorb lists them): a frontier of at most [`LIST_CAP`] arcs is at most
/// `LIST_CAP / SHORT_PIECE` pieces plus one a vertex with arcs.
const LISTED_CAP: u64 = LIST_CAP as u64 + SHORT_PIECES;
const _: () = assert!(LISTED_CAP >= LIST_CAP as u64 + LIST_CAP as u64 / SHORT_PIECE);

/// A short top-down level: its frontier's arcs (each rank's list holds at most a pair
/// each), and whether the frontier is listed in pieces by the short level before
/// ([`RankState::listed`]), so that no queue is made from the bitmap.
#[derive(Clone, Copy)]
struct Short {
    cap: u32,
    listed: bool,
    /// Queued ahead, before the counts of the level before: its kernels do nothing unless
    /// mbfs_absorb found it short ([`RankState::ahead`]).
    ahead: bool,
}

/// What mbfs_absorb needs to decide whether the level after its own is short, for one
/// queued ahead (see multi.cu): the arcs unexplored before the frontier it absorbs, that
/// frontier's arcs (`None`: as the last mbfs_absorb counted them, for a level queued
/// before they were known), the switch's alpha (0: top-down only) and the next level's
/// lists' bound.
#[derive(Clone, Copy)]
struct NextRule {
    unexplored: u64,
    frontier_arcs: Option<u64>,
    alpha: u64,
    next_cap: u32,
}

/// The pieces of a row of `arcs` arcs.
fn pieces_of(arcs: u64) -> u64 {
    arcs.div_ceil(PIECE)
}

/// Entries the list of big vertices' pieces can need for the vertices `r` of `c`.
fn pieces_bound(c: &Csr, r: std::ops::Range<usize>) -> usize {
    r.into_par_iter()
        .map(|v| match c.degree(v as VertexId) {
            d if d >= PIECE => pieces_of(d) as usize,
            _ => 0,
        })
        .sum()
}

/// Delegates (Pearce et al., IPDPS 2013): in a team of several ranks each rank holds every
/// vertex's arcs into its own range (rows by vertex; rows are sorted, so each is one run
/// of the vertex's), and the hubs, the vertices of [`PIECE`] out-arcs or more. On a long
/// top-down level every rank expands each frontier hub into its own range, so no (vertex,
/// parent) pair for another rank comes from a hub; and where the frontier's vertices have
/// [`WHOLE_DEGREE`] out-arcs each on average, every rank expands the whole frontier into
/// its range, and no pair crosses GPUs at all.
struct Delegates {
    hubs: Vec<u32>,
    off: Vec<u64>,
    tgt: Vec<u32>,
}

impl Delegates {
    /// The hubs of `c`, ascending.
    fn hubs(c: &Csr) -> Vec<u32> {
        (0..c.num_vertices() as u32)
            .into_par_iter()
            .filter(|&v| c.degree(v) >= PIECE)
            .collect()
    }

    /// The run of `v`'s arcs into `r`.
    fn run(c: &Csr, v: u32, r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        let row = c.neighbors(v);
        row.partition_point(|&t| (t as usize) < r.start)
            ..row.partition_point(|&t| (t as usize) < r.end)
    }

    /// The arcs of `c` into `r`, by vertex.
    fn new(c: &Csr, r: std::ops::Range<usize>) -> Delegates {
        let n = c.num_vertices();
        let mut off = vec![0u64; n + 1];
        off[1..]
            .par_iter_mut()
            .enumerate()
            .for_each(|(v, o)| *o = Self::run(c, v as u32, &r).len() as u64);
        for v in 0..n {
            off[v + 1] += off[v];
        }
        let mut tgt = vec![0u32; off[n] as usize];
        // Blocks of vertices, each filling its own slice of `tgt`.
        const BLOCK: usize = 1 << 14;
        let mut blocks = Vec::with_capacity(n.div_ceil(BLOCK));
        let mut rest = &mut tgt[..];
        for lo in (0..n).step_by(BLOCK) {
            let hi = (lo + BLOCK).min(n);
            let (head, tail) = std::mem::take(&mut rest).split_at_mut((off[hi] - off[lo]) as usize);
            blocks.push((lo..hi, head));
            rest = tail;
        }
        blocks.into_par_iter().for_each(|(vs, out)| {
            let mut at = 0;
            for v in vs {
                let run = &c.neighbors(v as u32)[Self::run(c, v as u32, &r)];
                out[at..at + run.len()].copy_from_slice(run);
                at += run.len();
            }
        });
        Delegates {
            hubs: Self::hubs(c),
            off,
            tgt,
        }
    }

    /// The pieces of all rows of hubs (every row of [`PIECE`] arcs or more is a hub's).
    fn pieces(&self) -> u64 {
        self.hubs
            .iter()
            .map(|&h| pieces_of(self.off[h as usize + 1] - self.off[h as usize]))
            .sum()
    }

    /// Without building them: the hubs, the arcs into `r`, and the pieces of the hubs'.
    fn sizes(c: &Csr, r: std::ops::Range<usize>) -> (u64, u64, u64) {
        (0..c.num_vertices() as u32)
            .into_par_iter()
            .map(|v| {
                let arcs = Self::run(c, v, &r).len() as u64;
                match c.degree(v) >= PIECE {
                    true => (1, arcs, pieces_of(arcs)),
                    false => (0, arcs, 0),
                }
            })
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    }
}

/// [`Delegates`] on a GPU, and the number of hubs.
struct DelegatesOnGpu {
    hubs: CudaSlice<u32>,
    off: CudaSlice<u64>,
    tgt: CudaSlice<u32>,
    count: u32,
}

/// Breadth-first searches of `g` from every one of `sources` on the team `spec` (this
/// process's part of it); `opts` gives the direction and Beamer's switch. Every tree is
/// kept until the end: for many searches of a big graph, [`bfs_team_visit`] reuses one.
///
/// # Errors
/// [`Error::InvalidArgument`] for a source out of range or bad switch values;
/// [`Error::OutOfMemory`] when a GPU cannot hold its part (on every rank, so none is left
/// waiting); [`Error::Nccl`] when NCCL is missing or fails; [`Error::Gpu`] for a driver
/// error.
pub fn bfs_team(
    spec: &TeamSpec,
    g: &Graph,
    sources: &[VertexId],
    opts: &BfsOptions,
) -> Result<TeamRuns> {
    let searches: Vec<(VertexId, BfsOptions)> = sources.iter().map(|&s| (s, *opts)).collect();
    bfs_team_each(spec, g, &searches)
}

/// As [`bfs_team`], each search with its own options, all on one setup of the team
/// (communicators and upload, which take much longer than a search of a small graph).
///
/// # Errors
/// As [`bfs_team`].
pub fn bfs_team_each(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
) -> Result<TeamRuns> {
    let t = Tuning::from_env()?;
    bfs_team_lists(spec, g, searches, t.list_cap, t.host_arcs, t.whole_degree)
}

/// One search of a team, as [`bfs_team_visit`] hands it over once every rank is done.
#[derive(Debug, Clone, Copy)]
pub struct TeamSearch<'a> {
    /// Which of the searches (an index into them).
    pub index: usize,
    /// The tree, on the process that drives rank 0 (`None` elsewhere).
    pub tree: Option<&'a BfsTree>,
    /// The slowest rank's times: `seconds` from the start to the tree in the host's
    /// memory, `kernel_seconds` (CUDA events) to the end of the search, every GPU holding
    /// its range's depths and parents (for a team spread over processes: to the tree in
    /// rank 0's GPU memory).
    pub times: RunTimes,
    /// Levels of the search.
    pub levels: u32,
}

/// Searches as [`bfs_team_each`], each into `tree` (its vectors reused when they hold
/// one entry per vertex, as after an earlier search of this graph; else replaced), which
/// `visit` sees after each search, before the next one writes over it: host memory for
/// one tree, however many searches, and no fresh pages for the team to fill in each.
/// `visit` runs on every process of the team, once per search; only the process of
/// rank 0 sees the tree (the others leave `tree` as it was). The GPUs wait for `visit`
/// to return (counted against the team's patience, `WARPGRAPH_NCCL_TIMEOUT`), but the
/// searches' times do not.
///
/// # Returns
/// Seconds to set the team up: communicators, partition and upload.
///
/// # Errors
/// As [`bfs_team`], and the first error `visit` returns (which stops the team).
///
/// # Example
/// ```no_run
/// use warpgraph::bfs::{self, cuda::multi::bfs_team_visit, BfsOptions, BfsTree};
/// use warpgraph::cuda::team::TeamSpec;
/// use warpgraph::generate::{generate, GenerateOptions, Generator};
/// # fn main() -> warpgraph::Result<()> {
/// let kron = Generator::Kronecker { scale: 20, edge_factor: 16 };
/// let g = generate(&kron, &GenerateOptions::default())?;
/// let searches: Vec<_> = (0..64).map(|s| (s, BfsOptions::default())).collect();
/// let mut tree = BfsTree::default();
/// bfs_team_visit(&TeamSpec::local(2), &g, &searches, &mut tree, |s| {
///     if let Some(tree) = s.tree {
///         bfs::verify(&g, tree)?;
///         println!("{}: {} reached in {:.3} ms", tree.source, tree.reached(),
///             s.times.seconds * 1e3);
///     }
///     Ok(())
/// })?;
/// # Ok(())
/// # }
/// ```
pub fn bfs_team_visit(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tree: &mut BfsTree,
    visit: impl FnMut(&TeamSearch<'_>) -> Result<()> + Send,
) -> Result<f64> {
    team_searches(spec, g, searches, Tuning::from_env()?, tree, visit)
}

/// As [`bfs_team_each`], with top-down levels short up to `list_cap` frontier arcs (at
/// most [`LIST_CAP`]), the host's first levels up to `host_arcs` arcs (at most
/// [`LIST_CAP`]), and a team expanding the whole frontier of a long top-down level on
/// every GPU from a mean out-degree of `whole_degree` (0: always; `u64::MAX`: never, the
/// hubs only): for tests, to take every way on small graphs. A team of one's runs of
/// short levels take levels of up to `list_cap / 2` arcs.
#[doc(hidden)]
pub fn bfs_team_lists(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    list_cap: usize,
    host_arcs: usize,
    whole_degree: u64,
) -> Result<TeamRuns> {
    let tuning = Tuning {
        list_cap,
        host_arcs,
        whole_degree,
        fail_at: None,
        run_blocks: RUN_BLOCKS,
        // Half the bound: some runs end before a short level, which then takes the
        // host's way.
        run_arcs: list_cap as u64 / 2,
    };
    every_tree(spec, g, searches, tuning)
}

/// As [`bfs_team_each`] with no levels on the host, but rank `rank` stops with an error
/// at the start of level `level` of each search, the other ranks then on their way into
/// that level's exchange: for tests of how a team stops.
#[doc(hidden)]
pub fn bfs_team_failing(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    rank: usize,
    level: u32,
) -> Result<TeamRuns> {
    let tuning = Tuning {
        list_cap: LIST_CAP,
        host_arcs: 0,
        whole_degree: WHOLE_DEGREE,
        fail_at: Some((rank, level)),
        run_blocks: RUN_BLOCKS,
        run_arcs: RUN_ARCS,
    };
    every_tree(spec, g, searches, tuning)
}

/// The searches of [`team_searches`], every tree kept.
fn every_tree(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tuning: Tuning,
) -> Result<TeamRuns> {
    let mut runs = TeamRuns {
        trees: vec![None; searches.len()],
        times: vec![RunTimes::default(); searches.len()],
        levels: vec![0; searches.len()],
        setup_seconds: 0.0,
    };
    let mut tree = BfsTree::default();
    runs.setup_seconds = team_searches(spec, g, searches, tuning, &mut tree, |s| {
        runs.trees[s.index] = s.tree.cloned();
        runs.times[s.index] = s.times;
        runs.levels[s.index] = s.levels;
        Ok(())
    })?;
    Ok(runs)
}

/// The bounds a team's searches take their ways by (see [`bfs_team_lists`]).
#[derive(Debug, Clone, Copy)]
struct Tuning {
    list_cap: usize,
    host_arcs: usize,
    whole_degree: u64,
    /// A rank and the level at whose start it fails ([`bfs_team_failing`]).
    fail_at: Option<(usize, u32)>,
    /// Blocks of a team of one's runs of short levels (0: none), and the most arcs of a
    /// level in a run.
    run_blocks: u32,
    run_arcs: u64,
}

impl Tuning {
    /// The defaults, or `WARPGRAPH_BFS_HOST_ARCS`, `WARPGRAPH_BFS_WHOLE_DEGREE`,
    /// `WARPGRAPH_BFS_RUN_BLOCKS` and `WARPGRAPH_BFS_RUN_ARCS`.
    fn from_env() -> Result<Tuning> {
        let setting = |name: &str, default: u64, most: u64, what: &str| -> Result<u64> {
            match std::env::var(name) {
                Ok(v) => match v.parse() {
                    Ok(a) if a <= most => Ok(a),
                    _ => Err(Error::InvalidArgument(format!(
                        "{name}={v:?}: expected {what}, 0 to {most}"
                    ))),
                },
                Err(_) => Ok(default),
            }
        };
        Ok(Tuning {
            list_cap: LIST_CAP,
            host_arcs: setting(
                "WARPGRAPH_BFS_HOST_ARCS",
                HOST_ARCS as u64,
                LIST_CAP as u64,
                "a number of arcs",
            )? as usize,
            whole_degree: setting(
                "WARPGRAPH_BFS_WHOLE_DEGREE",
                WHOLE_DEGREE,
                u64::MAX,
                "a mean out-degree",
            )?,
            fail_at: None,
            run_blocks: setting(
                "WARPGRAPH_BFS_RUN_BLOCKS",
                RUN_BLOCKS.into(),
                1 << 16,
                "a number of blocks (0: no runs)",
            )? as u32,
            run_arcs: setting(
                "WARPGRAPH_BFS_RUN_ARCS",
                RUN_ARCS,
                LIST_CAP as u64,
                "a number of arcs",
            )?,
        })
    }
}

/// The caller's `visit`, as the first rank of the process holds it.
type Visit<'v> = &'v mut (dyn FnMut(&TeamSearch<'_>) -> Result<()> + Send);

/// The searches of [`bfs_team_visit`], their ways bounded by `tuning`.
fn team_searches(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tuning: Tuning,
    tree: &mut BfsTree,
    mut visit: impl FnMut(&TeamSearch<'_>) -> Result<()> + Send,
) -> Result<f64> {
    let n = g.num_vertices();
    for (s, opts) in searches {
        super::super::check_args(g, *s, opts)?;
    }
    if n >= u32::MAX as usize - 64 {
        return Err(Error::TooLarge {
            what: "vertices for the multi-GPU BFS".into(),
            value: n as u64,
            limit: u32::MAX as u64 - 64,
        });
    }
    let start = Instant::now();
    let part = Partition::new(n, spec.world);
    // One process driving every GPU: each rank copies its part of the tree straight into
    // the host's arrays. Spread over processes: the parts go to rank 0 over NCCL first.
    let gather = !spec.is_whole();
    let dest = match spec.has_root() {
        true => {
            sized(&mut tree.depth, n, 0);
            sized(&mut tree.parent, n, 0);
            Some(Dest::of(tree))
        }
        false => None,
    };
    // The first local rank calls `visit`; gathering, it is rank 0 (or no rank writes).
    let visit: Visit<'_> = &mut visit;
    let mut inputs: Vec<(Option<Dest>, Option<Visit<'_>>)> = (0..spec.gpus.len())
        .map(|i| (dest.filter(|_| i == 0 || !gather), None))
        .collect();
    if let Some(first) = inputs.first_mut() {
        first.1 = Some(visit);
    }
    // Alike on every rank: made once for all of this process's.
    let never = never_reached(g.incoming(), part.words());
    let tuning = Tuning {
        list_cap: tuning.list_cap.min(LIST_CAP),
        host_arcs: tuning.host_arcs.min(LIST_CAP),
        ..tuning
    };
    let setup = team::run(spec, inputs, |m, (dest, mut visit)| {
        let mut state = RankState::new(m, g, part, &never, gather, tuning.host_arcs)?;
        state.list_cap = tuning.list_cap;
        state.whole_degree = tuning.whole_degree;
        state.fail_at = tuning.fail_at;
        if m.world == 1 && tuning.run_blocks > 0 {
            let most = m
                .gpu
                .resident_grid(&state.k.short_run, "mbfs_short_run", THREADS, 32)?;
            state.run_blocks = tuning.run_blocks.min(most);
            state.run_arcs = tuning.run_arcs;
        }
        let setup = start.elapsed().as_secs_f64();
        for (index, (s, opts)) in searches.iter().enumerate() {
            let run = state.search(m, g, *s, opts, dest.as_ref())?;
            if let Some(visit) = visit.as_mut() {
                // SAFETY: every rank of the team has copied its part of this search
                // (`search` returns after the all-reduce of every rank's times, which
                // each joins after its copy), and none writes the next search before
                // this rank joins its first all-reduce, after this call: no rank writes
                // the tree while `visit` reads it. Only this thread touches the tree's
                // `source`.
                let tree = dest.map(|d| unsafe { d.tree_after(*s) });
                visit(&TeamSearch {
                    index,
                    tree,
                    times: run.times,
                    levels: run.levels,
                })?;
            }
        }
        Ok(setup)
    })?;
    Ok(setup.into_iter().fold(0.0, f64::max))
}

/// The host's tree, shared by the ranks of one process: each writes its own range of
/// the depths and parents (rank 0 of a team spread over processes, all of them), and the
/// first rank hands the whole tree to `visit` once every rank has written.
#[derive(Debug, Clone, Copy)]
struct Dest {
    tree: *mut BfsTree,
    depth: *mut u32,
    parent: *mut u32,
    n: usize,
}

// SAFETY: the pointers are into a tree borrowed exclusively for the whole of
// `team_searches`; its ranks write disjoint ranges, and `visit` reads only between
// searches (see `team_searches`).
unsafe impl Send for Dest {}
unsafe impl Sync for Dest {}

impl Dest {
    /// `tree`, whose vectors hold one entry per vertex (`tree.depth.len()` of them), and
    /// are neither moved nor resized while the ranks use the pointers.
    fn of(tree: &mut BfsTree) -> Dest {
        Dest {
            n: tree.depth.len(),
            depth: tree.depth.as_mut_ptr(),
            parent: tree.parent.as_mut_ptr(),
            tree,
        }
    }

    /// The depths and parents of the vertices `r`.
    ///
    /// # Safety
    /// No other thread may read or write `r` of either until the slices are gone.
    unsafe fn range<'t>(self, r: std::ops::Range<usize>) -> (&'t mut [u32], &'t mut [u32]) {
        assert!(r.start <= r.end && r.end <= self.n, "a range of the tree");
        // SAFETY: in bounds (above) of vectors that live and stay put (`Dest::of`); the
        // caller keeps others out of the range.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.depth.add(r.start), r.len()),
                std::slice::from_raw_parts_mut(self.parent.add(r.start), r.len()),
            )
        }
    }

    /// The whole tree, its source set to `source`.
    ///
    /// # Safety
    /// No other thread may touch the tree until the reference is gone.
    unsafe fn tree_after<'t>(self, source: VertexId) -> &'t BfsTree {
        // SAFETY: the tree lives for the whole of `team_searches` and the caller keeps
        // every other thread off it.
        unsafe {
            (*self.tree).source = source;
            &*self.tree
        }
    }
}

/// One search as a rank saw it.
struct RankRun {
    times: RunTimes,
    levels: u32,
}

/// The compiled kernels.
struct Kernels {
    reset: CudaFunction,
    queue: CudaFunction,
    hub_queue: CudaFunction,
    top_down: CudaFunction,
    pack: CudaFunction,
    apply: CudaFunction,
    absorb: CudaFunction,
    short_run: CudaFunction,
    front: CudaFunction,
    merge: CudaFunction,
    bottom_up: CudaFunction,
    visit: CudaFunction,
    seed: CudaFunction,
}

/// A rank's part of the graph and its search state.
struct RankState {
    k: Kernels,
    part: Partition,
    rank: usize,
    /// First vertex and vertices of this rank.
    lo: u32,
    nl: u32,
    /// Rows of this rank: out-arcs, and in-arcs (the same for an undirected graph).
    out: (CudaSlice<u64>, CudaSlice<u32>),
    incoming: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    front: CudaSlice<u32>,
    visited: CudaSlice<u32>,
    /// The vertices no arc leads to, where `visited` starts ([`never_reached`]).
    never: CudaSlice<u32>,
    next: CudaSlice<u32>,
    /// Candidate parents of other ranks' vertices (every vertex; all ones when unused).
    cand: CudaSlice<u32>,
    /// (vertex, parent) pairs for each other rank and from each, and the buffers' device
    /// addresses for the kernels.
    outbox: Vec<CudaSlice<u32>>,
    outbox_at: CudaSlice<u64>,
    inbox: Vec<CudaSlice<u32>>,
    inbox_at: CudaSlice<u64>,
    /// A short top-down level's pairs, every rank's after the all-gather (this rank's are
    /// `counters.list`; a team of one swaps the two); every vertex's out-degree
    /// (saturated).
    lists: CudaSlice<u32>,
    /// With other ranks, the short level's lists before `lists` (kept while the level
    /// after is queued ahead, for mbfs_front should that level not be short).
    lists_prev: CudaSlice<u32>,
    deg: CudaSlice<u32>,
    /// Frontier arcs up to which a top-down level is short (at most [`LIST_CAP`]).
    list_cap: usize,
    own: CudaSlice<u32>,
    queue: CudaSlice<u32>,
    /// The pieces of the frontier's vertices of many arcs (vertex << 32 | piece; local
    /// in this rank's rows, global in the delegates').
    big: CudaSlice<u64>,
    /// After a short level, its part of the next frontier in pieces of [`SHORT_PIECE`]
    /// arcs (local vertex << 32 | piece), for the next level if it is short too (no queue
    /// made from the bitmap): two lists of [`LISTED_CAP`] entries, a level's by its
    /// parity.
    listed: CudaSlice<u64>,
    /// With other ranks, the delegates ([`Delegates`]) on the GPU.
    delegates: Option<DelegatesOnGpu>,
    /// A long top-down level's frontier mean out-degree from which every rank expands all
    /// of it (with other ranks).
    whole_degree: u64,
    /// A rank and the level at whose start it fails ([`bfs_team_failing`]).
    fail_at: Option<(usize, u32)>,
    /// A team of one's runs of short levels (mbfs_short_run): its blocks (0: none, the
    /// levels go one by one), its three sets of counters and its barrier's word.
    run_blocks: u32,
    /// The most frontier arcs of a level in a run ([`RUN_ARCS`]).
    run_arcs: u64,
    run: CudaSlice<u64>,
    run_bar: CudaSlice<u32>,
    depth: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    /// Whether the tree goes to rank 0 over NCCL (a team spread over processes), and
    /// there the depths and parents of each other rank.
    gather: bool,
    all: Vec<(CudaSlice<u32>, CudaSlice<u32>)>,
    /// Page-locked host memory the tree passes through (made on first use).
    stage: Option<PinnedHostSlice<u32>>,
    counters: Counters,
    /// Every rank's counts after a bitmap level, all-gathered with the bitmap (mbfs_visit
    /// posts their sums; an all-reduce took up to twice as long on 2 H200s).
    stats_all: CudaSlice<u64>,
    /// Every rank's `counters.sent` (rank p's for rank r at p * world + r).
    counts: CudaSlice<u32>,
    /// Where the kernels post what the host needs of a level (its counts, the numbers of
    /// pairs), the end of the last posting kernel (a fallback, should one not post), and
    /// mbfs_absorb's count of finished blocks.
    /// By the parity of the level that posts: a short level queued ahead posts while the
    /// host still reads the level before.
    mailbox: [Mailbox; 2],
    posted: [CudaEvent; 2],
    /// Whether each of the next two levels, by parity, is short (for a level queued ahead,
    /// mbfs_absorb's `ahead`), then the last short level's next frontier's arcs.
    ahead: CudaSlice<u64>,
    ticket: CudaSlice<u32>,
    /// The word of the all-reduce that starts every search on every rank at once.
    start: CudaSlice<u32>,
    /// A search's seconds and seconds of kernels, all-reduced when it ends (as bits).
    ends: CudaSlice<u64>,
    /// `WARPGRAPH_TRACE=2`: an event after each step of a level, printed with the level.
    steps: Option<Vec<(&'static str, CudaEvent)>>,
    /// The first levels, expanded by the host, and what they reached for the GPU.
    host: HostLevels,
    seeds: CudaSlice<u32>,
    blocks: u32,
    /// The bottom-up kernel's grid: every block resident at once ([`Gpu::resident_grid`]).
    bottom_up_blocks: u32,
}

/// The counters a level adds to (the kernels' COUNTERS), zero when a level starts
/// (mbfs_reset, mbfs_visit and mbfs_absorb clear them).
struct Counters {
    /// [`STATS`] values: the next frontier's vertices and out-arcs, a flag for a short
    /// level's list that overflowed (pairs lost: a bug, which fails the search), and after
    /// a bottom-up step the vertices it left unvisited.
    stats: CudaSlice<u64>,
    /// The lengths of the queue and of the list of big vertices.
    qlen: CudaSlice<u32>,
    blen: CudaSlice<u32>,
    /// How many pairs this rank packed for each rank in a long top-down level.
    sent: CudaSlice<u32>,
    /// A short top-down level's pairs from this rank, their number first.
    list: CudaSlice<u32>,
    /// The team's size (the length of `sent`).
    world: u32,
    /// The lengths of the two lists of [`RankState::listed`], then the arcs of each one's
    /// level (cleared at a search's start and by mbfs_visit; mbfs_absorb keeps them).
    listed_len: CudaSlice<u32>,
}

impl Counters {
    /// Adds them to a launch, in the order of COUNTERS.
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        let Counters {
            stats,
            qlen,
            blen,
            sent,
            list,
            world,
            listed_len,
        } = self;
        b.arg(stats)
            .arg(qlen)
            .arg(blen)
            .arg(sent)
            .arg(&*world)
            .arg(list)
            .arg(listed_len);
    }
}

impl RankState {
    fn new(
        m: &Member,
        g: &Graph,
        part: Partition,
        never: &[u32],
        gather: bool,
        host_arcs: usize,
    ) -> Result<RankState> {
        // Every rank checks and allocates, then all agree before the first collective.
        let made = Self::allocate(m, g, part, never, gather, host_arcs);
        if !m.agree(made.is_ok())? {
            return Err(made.err().unwrap_or_else(|| {
                Error::Nccl("another GPU of the team could not set up its part".into())
            }));
        }
        let (mut state, own_deg) = made?;
        // Every vertex's out-degree on every rank, from each rank's own.
        m.link.all_gather(&own_deg, &mut state.deg)?;
        state.warm_up(m)?;
        m.link.sync()?;
        Ok(state)
    }

    /// The next frontier from every rank's part (`own`) and every rank's counts
    /// (`stats`), on every rank: one group, so one launch. A team of one has them
    /// already, and swaps the buffers: `own` is written whole before it is read again, and
    /// mbfs_visit, which always follows, zeroes the new `stats`. (NCCL's all-gathers for
    /// one rank cost a group and kernels, copies a launch each: the team of one, the
    /// baseline of the strong scaling, took 0.81-0.84 ms with NCCL's at Kronecker 24 on
    /// an H200, 0.78-0.81 ms with copies.)
    fn gather_front(&mut self, m: &Member) -> Result<()> {
        if m.world == 1 {
            std::mem::swap(&mut self.own, &mut self.front);
            std::mem::swap(&mut self.counters.stats, &mut self.stats_all);
            return Ok(());
        }
        let mut group = m.link.group()?;
        group.all_gather(self.own.as_view(), self.front.as_view_mut())?;
        group.all_gather(self.counters.stats.as_view(), self.stats_all.as_view_mut())?;
        group.end()
    }

    /// Runs each kind of exchange a search makes once, small and large: NCCL connects
    /// peers on first use (the first send and receive between 2 H200s took 18-23 ms), and
    /// that belongs in the setup, not in the first search that needs it. What the
    /// buffers hold does not matter: every search starts from `mbfs_reset`.
    fn warm_up(&mut self, m: &Member) -> Result<()> {
        self.gather_front(m)?;
        m.link.all_gather(&self.counters.sent, &mut self.counts)?;
        let len = 1 + 2 * self.list_cap;
        for words in [3, len] {
            m.link.all_gather(
                &self.counters.list.slice(..words),
                &mut self.lists.slice_mut(..m.world * words),
            )?;
        }
        if m.world > 1 {
            let most = self.outbox[0].len();
            for words in [2, most.min(1 << 20)] {
                let mut group = m.link.group()?;
                let others = (0..m.world).filter(|&p| p != m.rank);
                for ((p, o), i) in others.zip(&self.outbox).zip(&mut self.inbox) {
                    group.send(o.slice(..words), p)?;
                    group.recv(i.slice_mut(..words), p)?;
                }
                group.end()?;
            }
        }
        Ok(())
    }

    /// The rank's state, and the out-degrees of its range (padded to `32 * seg`) for
    /// [`RankState::deg`].
    fn allocate(
        m: &Member,
        g: &Graph,
        part: Partition,
        never: &[u32],
        gather: bool,
        host_arcs: usize,
    ) -> Result<(RankState, CudaSlice<u32>)> {
        let gpu = &m.gpu;
        let r = part.range(m.rank);
        gpu.check_memory(
            || {
                format!(
                    "rank {} of {}: BFS on vertices {}..{} of {}",
                    m.rank, m.world, r.start, r.end, part.n
                )
            },
            bytes_needed(g, m.world, m.rank, gather),
        )?;
        let f = |name| gpu.function(&KERNELS, name);
        let k = Kernels {
            reset: f("mbfs_reset")?,
            queue: f("mbfs_queue")?,
            hub_queue: f("mbfs_hub_queue")?,
            top_down: f("mbfs_top_down")?,
            pack: f("mbfs_pack")?,
            apply: f("mbfs_apply")?,
            absorb: f("mbfs_absorb")?,
            short_run: f("mbfs_short_run")?,
            front: f("mbfs_front")?,
            merge: f("mbfs_merge")?,
            bottom_up: f("mbfs_bottom_up")?,
            visit: f("mbfs_visit")?,
            seed: f("mbfs_seed")?,
        };
        let bottom_up_blocks = gpu.resident_grid(&k.bottom_up, "mbfs_bottom_up", THREADS, 8)?;
        let rows = |c: &Csr| -> Result<(CudaSlice<u64>, CudaSlice<u32>)> {
            let off = &c.offsets()[r.start..=r.end];
            let base = off[0];
            let local: Vec<u64> = off.iter().map(|&o| o - base).collect();
            let tgt = &c.targets()[base as usize..off[off.len() - 1] as usize];
            Ok((gpu.upload(&local)?, gpu.upload(tgt)?))
        };
        let words = part.words();
        let local = 32 * part.seg;
        let peers = m.world - 1;
        // A peer's range holds at most `local` vertices: pairs never overflow.
        let boxes = || {
            (0..peers)
                .map(|_| gpu.zeros::<u32>(2 * local))
                .collect::<Result<Vec<_>>>()
        };
        let (outbox, inbox) = (boxes()?, boxes()?);
        let at = |b: &[CudaSlice<u32>]| {
            gpu.upload(
                &b.iter()
                    .map(|b| b.device_ptr(gpu.stream()).0)
                    .collect::<Vec<u64>>(),
            )
        };
        let cand = gpu.upload(&vec![u32::MAX; if peers > 0 { 32 * words } else { 1 }])?;
        let own_deg: Vec<u32> = (0..local)
            .into_par_iter()
            .map(|i| match r.start + i {
                v if v < r.end => u32::try_from(g.out().degree(v as VertexId)).unwrap_or(u32::MAX),
                _ => 0,
            })
            .collect();
        let list_words = 1 + 2 * LIST_CAP;
        let (delegates, big_len) = if peers > 0 {
            let d = Delegates::new(g.out(), r.clone());
            let pieces = d.pieces() as usize;
            let on_gpu = DelegatesOnGpu {
                hubs: gpu.upload(&d.hubs)?,
                off: gpu.upload(&d.off)?,
                tgt: gpu.upload(&d.tgt)?,
                count: d.hubs.len() as u32,
            };
            (Some(on_gpu), pieces.max(pieces_bound(g.out(), r.clone())))
        } else {
            (None, pieces_bound(g.out(), r.clone()))
        };
        let big_len = big_len.max(SHORT_PIECES as usize);
        // The mailboxes' values: every rank's numbers of pairs, or the counts and
        // mbfs_absorb's word on the next level, and mbfs_short_run's levels and arcs left.
        let values = (m.world * m.world).max(STATS + 3);
        let event = || {
            gpu.stream()
                .record_event(Some(
                    cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING,
                ))
                .map_err(gpu_err)
        };
        let state = RankState {
            part,
            rank: m.rank,
            lo: r.start as u32,
            nl: r.len() as u32,
            out: rows(g.out())?,
            incoming: if g.is_directed() {
                Some(rows(g.incoming())?)
            } else {
                None
            },
            front: gpu.zeros(words)?,
            visited: gpu.zeros(words)?,
            never: gpu.upload(never)?,
            next: gpu.zeros(words)?,
            cand,
            outbox_at: at(&outbox)?,
            outbox,
            inbox_at: at(&inbox)?,
            inbox,
            lists: gpu.zeros(m.world * list_words)?,
            lists_prev: gpu.zeros(if peers > 0 { m.world * list_words } else { 1 })?,
            deg: gpu.zeros(32 * words)?,
            own: gpu.zeros(part.seg)?,
            // With other ranks, a whole frontier's vertices.
            queue: gpu.zeros(if peers > 0 { 32 * words } else { local })?,
            big: gpu.zeros(big_len.max(1))?,
            listed: gpu.zeros(2 * LISTED_CAP as usize)?,
            delegates,
            whole_degree: WHOLE_DEGREE,
            fail_at: None,
            run_blocks: 0,
            run_arcs: RUN_ARCS,
            run: gpu.zeros(3 * RUN_SET)?,
            run_bar: gpu.zeros(1)?,
            depth: gpu.zeros(local)?,
            parent: gpu.zeros(local)?,
            gather,
            all: if gather && m.rank == 0 {
                (1..m.world)
                    .map(|_| Ok((gpu.zeros(local)?, gpu.zeros(local)?)))
                    .collect::<Result<Vec<_>>>()?
            } else {
                Vec::new()
            },
            stage: None,
            list_cap: LIST_CAP,
            stats_all: gpu.zeros(STATS * m.world)?,
            counters: Counters {
                stats: gpu.zeros(STATS)?,
                qlen: gpu.zeros(1)?,
                blen: gpu.zeros(1)?,
                sent: gpu.zeros(m.world)?,
                list: gpu.zeros(list_words)?,
                world: m.world as u32,
                listed_len: gpu.zeros(4)?,
            },
            counts: gpu.zeros(m.world * m.world)?,
            mailbox: [gpu.mailbox(values)?, gpu.mailbox(values)?],
            ahead: gpu.zeros(3)?,
            ticket: gpu.zeros(1)?,
            start: gpu.zeros(1)?,
            ends: gpu.zeros(2)?,
            steps: match std::env::var("WARPGRAPH_TRACE") {
                Ok(v) if v == "2" => Some(Vec::new()),
                _ => None,
            },
            host: HostLevels::new(host_arcs),
            // A vertex reached per arc at most.
            seeds: gpu.zeros(3 * host_arcs.max(1))?,
            posted: [event()?, event()?],
            blocks: gpu.info().multiprocessors * 8,
            bottom_up_blocks,
            k,
        };
        Ok((state, gpu.upload(&own_deg)?))
    }

    /// One search from `source`, every rank of the team calling it alike; the rank's part
    /// of the tree goes to its range of `dest` (gathering, rank 0 writes all of it). On
    /// return every rank has written its part, and the times are the slowest rank's.
    fn search(
        &mut self,
        m: &Member,
        g: &Graph,
        source: VertexId,
        opts: &BfsOptions,
        dest: Option<&Dest>,
    ) -> Result<RankRun> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let local = 32 * seg;
        let gather = self.gather;
        let cfg = launch_config(self.blocks, THREADS);
        // Start together, on the GPUs: a one-word all-reduce in the stream, then the timer's
        // first event. (With the host threads meeting instead, one thread's late wake-up
        // counted against the other GPU, whose first collective waited for it: 0.02-0.12
        // ms on 2 H200s.) A team of one has no one to wait for, and its link does nothing.
        // The GPU's wait there is left out of the wall-clock time as well: the first rank
        // of a process comes late by its caller's look at the last search's tree (the
        // bench's verifier: 2.7 s on 2 H200s at Kronecker 26, all of it counted in the
        // other rank's time, so the team's, before).
        let wait = gpu.wait_start()?;
        m.link.all_reduce_in_place(&mut self.start, Reduce::Max)?;
        let timer = gpu.timer_after(Some(wait))?;
        {
            let mut b = stream.launch_builder(&self.k.reset);
            b.arg(&mut self.front)
                .arg(&mut self.visited)
                .arg(&self.never)
                .arg(&words)
                .arg(&mut self.depth)
                .arg(&mut self.parent)
                .arg(&local)
                .arg(&source)
                .arg(&self.lo);
            self.counters.push(&mut b);
            // SAFETY: matches mbfs_reset; front, visited and never hold `words` words,
            // depth and parent `local` entries, sent `world` counts.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        let n = self.part.n as u64;
        let alpha = u64::from(opts.alpha.max(1));
        let beta = u64::from(opts.beta.max(1));
        let (mut nf, mut mf) = (1u64, g.out().degree(source));
        let mut unexplored = g.out().num_arcs();
        let mut bottom_up = opts.direction == Direction::BottomUp;
        let mut level = 0u32;
        // The frontier before this one (Beamer: back to top-down only while shrinking).
        let mut prev_nf = 0u64;
        let trace = std::env::var_os("WARPGRAPH_TRACE").is_some();
        // The levels traced, printed once the search is done (printing between levels
        // would hold the next one back).
        let mut traced: Vec<LevelMarks> = Vec::new();
        // The host expands the first top-down levels while they are small (the GPUs
        // clearing their arrays meanwhile), until `seeded` hands their result over.
        self.host.start(source);
        let mut seeded = false;
        // The level before, if it was short: its lists' bound. The frontier is then listed
        // in pieces ([`RankState::listed`]), and not in `front`.
        let mut last_short: Option<u32> = None;
        // The level queued ahead, if any: its lists' bound, its post, and the bound its
        // mbfs_absorb was given for the level after it.
        let mut ahead: Option<(u32, u64, u32)> = None;
        // After a short level, whether its mbfs_absorb found the next one short.
        let mut said_short: Option<bool> = None;
        // Whether the level before ended a team of one's run of short levels.
        let mut ran = false;
        let mut nothing_left = false;
        while nf > 0 && !nothing_left {
            if self.fail_at == Some((m.rank, level)) {
                return Err(Error::Gpu(format!(
                    "BFS team, rank {}: stopped at level {level}, as asked (a test of the \
                     team's stop)",
                    m.rank
                )));
            }
            bottom_up = match opts.direction {
                Direction::TopDown => false,
                Direction::BottomUp => true,
                Direction::Optimizing if !bottom_up => mf > unexplored / alpha,
                // Beamer's rule, but only into a short level: a long top-down level after
                // the bottom-up ones finds little and still pays all its steps, more than
                // another bottom-up step (Kronecker 24 on 2 H200s: 0.126 ms for 1,696
                // vertices; the bottom-up step before it 0.082 ms).
                Direction::Optimizing => {
                    !(nf < n / beta && nf < prev_nf && mf <= self.list_cap as u64)
                }
            };
            prev_nf = nf;
            unexplored = unexplored.saturating_sub(mf);
            let lt = Instant::now();
            if !seeded {
                if !bottom_up && self.host.take(mf) {
                    (nf, mf) = self.host.expand(g.out(), level + 1);
                    level += 1;
                    if trace {
                        traced.push(LevelMarks {
                            line: format!(
                                "level {level:>4} host      found {nf} vertices, {mf} arcs"
                            ),
                            host_ms: lt.elapsed().as_secs_f64() * 1e3,
                            events: None,
                            steps: Vec::new(),
                        });
                    }
                    continue;
                }
                self.seed(gpu, source, level)?;
                seeded = true;
            }
            let e0 = mark(gpu, trace)?;
            // A short level's lists hold at most a pair per frontier arc.
            let mut short = (!bottom_up && mf <= self.list_cap as u64).then_some(Short {
                cap: mf as u32,
                listed: last_short.is_some(),
                ahead: false,
            });
            // The level queued ahead runs if it is short and within the bound it was given
            // (mbfs_absorb found the same: checked below); if not, it did nothing, and the
            // level is queued now.
            let ahead_runs =
                ahead.is_some_and(|(cap, ..)| short.is_some_and(|s| s.listed && s.cap <= cap));
            if ahead.is_some() && said_short != Some(ahead_runs) {
                return Err(ahead_differs(m.rank, level, ahead_runs));
            }
            // A run ends where its GPU found the next level not short.
            if std::mem::take(&mut ran) && said_short != Some(short.is_some()) {
                return Err(ahead_differs(m.rank, level, short.is_some()));
            }
            let (queued, then) = match (ahead.take(), short) {
                (Some((cap, post, then)), Some(_)) if ahead_runs => {
                    short = Some(Short {
                        cap,
                        listed: true,
                        ahead: true,
                    });
                    (Some(post), Some(then))
                }
                (Some(_), _) => {
                    self.turn_lists(m.world);
                    (None, None)
                }
                (None, _) => (None, None),
            };
            // What mbfs_absorb needs to decide on the level after this one (see
            // `NextRule`), and whether that one is queued ahead: only inside a run of short
            // levels (this one short after a short one, so the next one most likely short
            // too), with no trace, and not where a test stops the team.
            let alpha_rule = match opts.direction {
                Direction::TopDown => 0,
                _ => alpha,
            };
            let go_ahead = short.is_some_and(|s| s.listed)
                && !trace
                && opts.direction != Direction::BottomUp
                && self.fail_at.map(|(_, l)| l) != Some(level + 1);
            // A team of one runs such levels of at most RUN_ARCS arcs in one launch instead,
            // on to the last whose next level is not (or to the level before the one a test
            // stops at), unless this level was queued ahead already (after one of more
            // arcs: its kernels have run, and the next is queued ahead as before).
            let run = go_ahead
                && queued.is_none()
                && m.world == 1
                && self.run_blocks > 0
                && mf <= self.run_arcs;
            let list_cap = self.list_cap as u64;
            let next_cap = |known: u64| -> u32 {
                // A team of one's list costs nothing to bound loosely; other ranks
                // all-gather the whole bound.
                match m.world {
                    1 => list_cap as u32,
                    _ => list_cap.min(2 * known + list_cap / AHEAD_SLACK) as u32,
                }
            };
            // The lists' bound of the next level if it is queued ahead (given to this
            // level's mbfs_absorb when it was queued, if it was).
            let then = then.unwrap_or_else(|| next_cap(mf));
            let mut e1 = None;
            let post = match queued {
                Some(post) => post,
                None => {
                    if let (None, Some(cap)) = (short, last_short) {
                        self.front_of_lists(gpu, m.world, cap)?;
                        step(&mut self.steps, gpu, "front")?;
                    }
                    e1 = if bottom_up {
                        self.bottom_up_step(gpu, level, lo_word, seg)?;
                        step(&mut self.steps, gpu, "bottom-up")?;
                        mark(gpu, trace)?
                    } else if run {
                        None
                    } else {
                        let how = match () {
                            _ if short.is_some() || m.world == 1 => Expand::Owners,
                            _ if mf >= self.whole_degree.saturating_mul(nf) => Expand::Whole,
                            _ => Expand::Hubs,
                        };
                        self.top_down_step(m, level, short, how, trace)?
                    };
                    // The post of this level's counts.
                    let box_ = level as usize & 1;
                    let post = self.mailbox[box_].next();
                    if run {
                        let last = match self.fail_at {
                            Some((_, l)) if l > level => l - 1,
                            _ => u32::MAX,
                        };
                        self.short_run(gpu, level, mf, unexplored, alpha_rule, last, post)?;
                        step(&mut self.steps, gpu, "run")?;
                    } else if let Some(short) = short {
                        // Every rank's list to every rank, which builds the next frontier
                        // from them, lists this rank's part of it, posts its counts,
                        // clears the counters and decides on the next level.
                        let rule = NextRule {
                            unexplored,
                            frontier_arcs: Some(0),
                            alpha: alpha_rule,
                            next_cap: then,
                        };
                        self.absorb_lists(m, short, level, rule, post)?;
                        step(&mut self.steps, gpu, "absorb")?;
                    } else {
                        // The next frontier and its counts on every rank (one group: one
                        // launch), then visited |= front.
                        self.gather_front(m)?;
                        step(&mut self.steps, gpu, "collective")?;
                        // The visit, which first posts the counts' sums, and clears the
                        // counters for the next level.
                        let mut b = stream.launch_builder(&self.k.visit);
                        b.arg(&self.front).arg(&mut self.visited).arg(&words);
                        self.counters.push(&mut b);
                        let dev = self.mailbox[box_].device();
                        b.arg(&self.stats_all).arg(&dev).arg(&post);
                        // SAFETY: matches mbfs_visit; both bitmaps hold `words` words, sent
                        // and stats_all `world` entries, the mailbox STATS values.
                        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
                        step(&mut self.steps, gpu, "visit")?;
                    }
                    self.posted[box_].record(&stream).map_err(gpu_err)?;
                    post
                }
            };
            last_short = short.map(|s| s.cap);
            if go_ahead && !run {
                // The next level, queued before this one's counts are in: its kernels do
                // nothing unless this level's mbfs_absorb found it short with at most
                // `cap` frontier arcs. (The arcs unexplored before it are known now; its
                // frontier's are this level's mbfs_absorb's count.)
                let next = level + 1;
                let s = Short {
                    cap: then,
                    listed: true,
                    ahead: true,
                };
                self.top_down_step(m, next, Some(s), Expand::Owners, false)?;
                let box_ = next as usize & 1;
                let post = self.mailbox[box_].next();
                let rule = NextRule {
                    unexplored,
                    frontier_arcs: None,
                    alpha: alpha_rule,
                    next_cap: next_cap(mf),
                };
                self.absorb_lists(m, s, next, rule, post)?;
                self.posted[box_].record(&stream).map_err(gpu_err)?;
                ahead = Some((then, post, next_cap(mf)));
            }
            let e2 = mark(gpu, trace)?;
            let mut counts = [0u64; STATS + 3];
            let box_ = level as usize & 1;
            self.mailbox[box_].wait(post, &self.posted[box_], &mut counts, |t| m.link.watch(t))?;
            if counts[2] != 0 {
                return Err(Error::Gpu(format!(
                    "BFS team, rank {}: a list of the vertices found at level {level} \
                     outgrew its bound of {} pairs (an internal error; the tree would be \
                     wrong)",
                    m.rank,
                    mf.min(self.list_cap as u64)
                )));
            }
            (nf, mf) = (counts[0], counts[1]);
            said_short = short.map(|_| counts[STATS] != 0);
            // A bottom-up step that left no vertex unvisited (but those no arc leads to)
            // ends the search: no level after it could find any.
            nothing_left = bottom_up && counts[3] == 0;
            level += match run {
                true => {
                    // The run's last level's list is the frontier, for mbfs_front (the
                    // run's levels alternate between the two lists, the first in
                    // `counters.list`).
                    let levels = counts[STATS + 1] as u32;
                    if levels % 2 == 1 {
                        self.turn_lists(1);
                    }
                    last_short = Some(self.list_cap as u32);
                    unexplored = counts[STATS + 2];
                    ran = true;
                    levels
                }
                false => 1,
            };
            if trace {
                traced.push(LevelMarks {
                    line: format!(
                        "level {level:>4} {} found {nf} vertices, {mf} arcs",
                        if bottom_up { "bottom-up" } else { "top-down " }
                    ),
                    host_ms: lt.elapsed().as_secs_f64() * 1e3,
                    events: Some([e0, e1, e2]),
                    steps: self.steps.as_mut().map(std::mem::take).unwrap_or_default(),
                });
            }
        }
        if ahead.is_some() {
            // The level queued ahead did nothing (the search is over).
            if said_short != Some(false) {
                return Err(ahead_differs(m.rank, level, false));
            }
            self.turn_lists(m.world);
        }
        if !seeded {
            // The host found the whole component.
            self.seed(gpu, source, level)?;
        }
        if gather {
            // Spread over processes: every part to rank 0's GPU first.
            let mut group = m.link.group()?;
            if m.rank == 0 {
                for (p, (d, pa)) in (1..m.world).zip(self.all.iter_mut()) {
                    group.recv(d.as_view_mut(), p)?;
                    group.recv(pa.as_view_mut(), p)?;
                }
            } else {
                group.send(self.depth.as_view(), 0)?;
                group.send(self.parent.as_view(), 0)?;
            }
            group.end()?;
        }
        let done = timer.kernels_done(gpu)?;
        m.link.wait_event(&done)?;
        if let Some(dest) = dest {
            // Gathering, rank 0 writes every part, its own first; else each rank its own.
            let parts = match gather {
                true => 0..m.world,
                false => m.rank..m.rank + 1,
            };
            for p in parts {
                let (d, pa) = match p == m.rank {
                    true => (&self.depth, &self.parent),
                    false => {
                        let (d, pa) = &self.all[p - 1];
                        (d, pa)
                    }
                };
                // SAFETY: ranks write disjoint ranges, and none is read before the
                // all-reduce below (see `team_searches`).
                let (dh, ph) = unsafe { dest.range(self.part.range(p)) };
                copy_out(gpu, d, dh, &mut self.stage)?;
                copy_out(gpu, pa, ph, &mut self.stage)?;
            }
        }
        let times = timer.finish(&done)?;
        // The slowest rank's times, on every rank, once every rank has written its part.
        // (Seconds as bits: for floats of one sign their order is the integers'.)
        let ends = [times.total_seconds, times.kernel_seconds].map(f64::to_bits);
        gpu.stream()
            .memcpy_htod(&ends, &mut self.ends)
            .map_err(gpu_err)?;
        m.link.all_reduce_in_place(&mut self.ends, Reduce::Max)?;
        m.link.sync()?;
        let mut ends = [0u64; 2];
        gpu.download_into(&self.ends, &mut ends)?;
        print_trace(m.rank, &traced)?;
        Ok(RankRun {
            times: RunTimes {
                seconds: f64::from_bits(ends[0]),
                kernel_seconds: Some(f64::from_bits(ends[1])),
            },
            levels: level,
        })
    }
    /// Hands the GPU what the host's first `levels` levels reached (nothing for none):
    /// their vertices into the visited set, the last level's as the frontier (in place of
    /// the source), this rank's own with their depths and parents.
    fn seed(&mut self, gpu: &Gpu, source: VertexId, levels: u32) -> Result<()> {
        let found = &self.host.found;
        if levels == 0 {
            return Ok(());
        }
        let stream = gpu.stream();
        if !found.is_empty() {
            stream
                .memcpy_htod(&found[..], &mut self.seeds.slice_mut(..found.len()))
                .map_err(gpu_err)?;
        }
        let count = (found.len() / 3) as u32;
        let mut b = stream.launch_builder(&self.k.seed);
        b.arg(&self.seeds)
            .arg(&count)
            .arg(&levels)
            .arg(&source)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&mut self.front)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent);
        // SAFETY: matches mbfs_seed; seeds holds `count` triples of vertices below n, the
        // bitmaps cover every vertex, depth and parent this rank's.
        unsafe {
            b.launch(launch_config(
                count.div_ceil(THREADS).clamp(1, self.blocks),
                THREADS,
            ))
        }
        .map_err(gpu_err)?;
        Ok(())
    }

    fn bottom_up_step(&mut self, gpu: &Gpu, level: u32, lo_word: u32, seg: u32) -> Result<()> {
        let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
        let same = u32::from(self.incoming.is_none());
        let mut b = gpu.stream().launch_builder(&self.k.bottom_up);
        b.arg(roff)
            .arg(rtgt)
            .arg(&self.nl)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&self.front)
            .arg(&self.visited)
            .arg(&mut self.own)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&same)
            .arg(&mut self.counters.stats);
        // SAFETY: matches mbfs_bottom_up; own holds seg words, depth and parent 32 * seg
        // entries, the bitmaps every word; targets are vertices below n; `same` says
        // whether roff is out.0.
        unsafe { b.launch(launch_config(self.bottom_up_blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// A top-down step, its frontier's vertices expanded as `how` says; returns the trace's
    /// event after the expansion. A `short` step ends with the expansion, which writes
    /// this rank's list (then [`RankState::absorb_lists`]); otherwise this rank's part of
    /// the next frontier is made in `own`, its counts in `stats`, and with
    /// [`Expand::Hubs`] the pairs for other ranks go to them first.
    fn top_down_step(
        &mut self,
        m: &Member,
        level: u32,
        short: Option<Short>,
        how: Expand,
        trace: bool,
    ) -> Result<Option<CudaEvent>> {
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let stream = m.gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let piece = if short.is_some() { SHORT_PIECE } else { PIECE } as u32;
        // Hubs and Whole come only with other ranks, so with the delegates.
        let delegates = self.delegates.as_ref().filter(|_| how != Expand::Owners);
        // The queue's words and rows: this rank's own, or every word and every vertex's
        // arcs into this rank's range.
        let (qword, qseg, qlo, qoff, qtgt) = match (how, delegates) {
            (Expand::Whole, Some(d)) => (0, self.part.words() as u32, 0, &d.off, &d.tgt),
            _ => (lo_word, seg, self.lo, &self.out.0, &self.out.1),
        };
        let delegate = u32::from(how == Expand::Hubs);
        let listed = short.is_some_and(|s| s.listed);
        if !listed {
            let mut b = stream.launch_builder(&self.k.queue);
            b.arg(&self.front)
                .arg(&qword)
                .arg(&qseg)
                .arg(qoff)
                .arg(&mut self.queue)
                .arg(&mut self.counters.qlen)
                .arg(&mut self.big)
                .arg(&mut self.counters.blen)
                .arg(&piece)
                .arg(&delegate);
            // SAFETY: matches mbfs_queue; the queue holds 32 * qseg entries (32 * words
            // with other ranks), enough for every vertex of the words, and big
            // pieces_bound's and the delegates' hub pieces, enough for every piece of them
            // (with delegates big holds every hub piece here, and this adds none), and
            // SHORT_PIECES, enough for a short level's.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        if let Some(d) = delegates.filter(|_| how == Expand::Hubs) {
            let mut b = stream.launch_builder(&self.k.hub_queue);
            b.arg(&d.hubs)
                .arg(&d.count)
                .arg(&d.off)
                .arg(&self.front)
                .arg(&mut self.big)
                .arg(&mut self.counters.blen)
                .arg(&piece);
            // SAFETY: matches mbfs_hub_queue; big holds every piece of every hub's row
            // here, hubs are vertices below n, the rows' offsets every vertex's.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        if !listed {
            step(&mut self.steps, &m.gpu, "queue")?;
        }
        // The listed frontier: no queue (the last level's mbfs_absorb cleared its length)
        // and the pieces in this level's list.
        let at = LISTED_CAP as usize * (level as usize & 1);
        let (big, blen) = match listed {
            true => (
                self.listed.slice(at..at + LISTED_CAP as usize),
                self.counters.listed_len.slice(level as usize & 1..),
            ),
            false => (self.big.slice(..), self.counters.blen.slice(..)),
        };
        let mut b = stream.launch_builder(&self.k.top_down);
        b.arg(qoff)
            .arg(qtgt)
            .arg(&qlo)
            .arg(&self.queue)
            .arg(&self.counters.qlen)
            .arg(&big)
            .arg(&blen)
            .arg(&piece)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&self.visited)
            .arg(&mut self.next)
            .arg(&mut self.parent)
            .arg(&mut self.cand);
        let none = 0u32;
        match delegates {
            Some(d) => b.arg(&d.off).arg(&d.tgt).arg(&none),
            None => b.arg(&self.out.0).arg(&self.out.1).arg(&self.lo),
        };
        let (null, cap) = (0u64, short.map_or(0, |s| s.cap));
        match short {
            Some(_) => b.arg(&mut self.counters.list),
            None => b.arg(&null),
        };
        // The first short level of a run clears `front` (for mbfs_front).
        let clear = if listed { 0 } else { words };
        b.arg(&cap).arg(&mut self.front).arg(&clear);
        // A level queued ahead: its flag.
        let flag = level as usize & 1;
        let gate = self.ahead.slice(flag..flag + 1);
        match short {
            Some(s) if s.ahead => b.arg(&gate),
            _ => b.arg(&null),
        };
        // SAFETY: matches mbfs_top_down; queued and big entries index rows of the arrays
        // passed with them (rows from vertex qlo and blo; a listed frontier's pieces this
        // rank's rows, at most LISTED_CAP of them), targets are below n, and cand covers
        // every vertex when there are other ranks (with none, every target is this rank's
        // and cand is not touched); a short level's list holds 1 + 2 * LIST_CAP entries
        // (cap <= LIST_CAP pairs), front `words` words; the gate is one of `ahead`'s flags.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, &m.gpu, "expand")?;
        let e1 = mark(&m.gpu, trace)?;
        if short.is_some() {
            return Ok(e1);
        }
        // The pairs for other ranks, and every rank's numbers of them, which the merge
        // of this rank's own finds posts first: the host sets up the exchange meanwhile.
        // (Expanding the whole frontier, each rank found only its own vertices.)
        let pairs = how == Expand::Hubs;
        let ncounts = if pairs {
            self.pack_pairs(m, seg)?;
            (m.world * m.world) as u32
        } else {
            0
        };
        let box_ = level as usize & 1;
        let post = self.mailbox[box_].next();
        let dev = self.mailbox[box_].device();
        let mut b = stream.launch_builder(&self.k.merge);
        b.arg(&mut self.next)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&self.nl)
            .arg(&self.visited)
            .arg(&mut self.own)
            .arg(&mut self.depth)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut self.counters.stats)
            .arg(&self.counts)
            .arg(&ncounts)
            .arg(&dev)
            .arg(&post);
        // SAFETY: matches mbfs_merge; own holds seg words, depth 32 * seg entries; counts
        // and the mailbox hold world * world entries.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        self.posted[box_].record(&stream).map_err(gpu_err)?;
        step(&mut self.steps, &m.gpu, "merge")?;
        if pairs {
            self.exchange_pairs(m, level, post)?;
        }
        Ok(e1)
    }

    /// Before a level that is not short, after a short one whose lists held at most `cap`
    /// pairs each: its frontier, in those lists, set in `front` (cleared at the first
    /// short level of the run).
    fn front_of_lists(&mut self, gpu: &Gpu, world: usize, cap: u32) -> Result<()> {
        let stride = 1 + 2 * cap;
        let world = world as u32;
        let mut b = gpu.stream().launch_builder(&self.k.front);
        b.arg(&self.lists)
            .arg(&stride)
            .arg(&cap)
            .arg(&world)
            .arg(&mut self.front);
        // SAFETY: matches mbfs_front; lists holds `world` lists of `stride` entries, each
        // at most `cap` pairs of vertices below n, front covers every vertex.
        unsafe { b.launch(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// A team of one's run of short levels from `level` (short, its frontier listed in
    /// pieces of `arcs` arcs in all; `unexplored` arcs in no frontier up to this one) in
    /// one cooperative launch of mbfs_short_run, up to the last level whose next one is
    /// not short (more arcs than the lists' bound or, with `alpha` not 0, than the arcs
    /// left over alpha) or has more than `run_arcs` arcs, or `last`. It posts `post`: the
    /// last level's counts, whether the next level is short, the levels run and the arcs
    /// still unexplored.
    #[allow(clippy::too_many_arguments)]
    fn short_run(
        &mut self,
        gpu: &Gpu,
        level: u32,
        arcs: u64,
        unexplored: u64,
        alpha: u64,
        last: u32,
        post: u64,
    ) -> Result<()> {
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let short_arcs = self.list_cap as u32;
        let dev = self.mailbox[level as usize & 1].device();
        let mut b = gpu.stream().launch_builder(&self.k.short_run);
        b.arg(&self.out.0)
            .arg(&self.out.1)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.deg)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs)
            .arg(&mut self.counters.listed_len)
            .arg(&mut self.counters.list)
            .arg(&mut self.lists)
            .arg(&mut self.run)
            .arg(&mut self.run_bar)
            .arg(&level)
            .arg(&last)
            .arg(&unexplored)
            .arg(&alpha)
            .arg(&arcs)
            .arg(&self.run_arcs)
            .arg(&dev)
            .arg(&post);
        // SAFETY: matches mbfs_short_run on a team of one (every vertex this rank's, its
        // rows every row); listed holds two lists of LISTED_CAP pieces of rows, listed_len
        // their lengths and arcs (four words); both lists hold 1 + 2 * LIST_CAP words
        // (short_arcs <= LIST_CAP pairs: a pair per frontier arc); run holds 3 * RUN_SET
        // words, the mailbox STATS + 3 values; every block is resident (run_blocks, at
        // most resident_grid's).
        unsafe { b.launch_cooperative(launch_config(self.run_blocks, THREADS)) }
            .map_err(gpu_err)?;
        Ok(())
    }

    /// The short level's lists move on: the level about to be absorbed gets the buffer
    /// of `lists`, the last one's are kept (in `lists_prev`; a team of one, whose list is
    /// every rank's, swaps it with `lists` instead of an all-gather, and mbfs_absorb
    /// zeroes the count of the one the next expansion writes). Twice, nothing moved: for
    /// a level queued ahead that was not short.
    fn turn_lists(&mut self, world: usize) {
        match world {
            1 => std::mem::swap(&mut self.counters.list, &mut self.lists),
            _ => std::mem::swap(&mut self.lists_prev, &mut self.lists),
        }
    }

    /// After a `short` top-down expansion at `level` (its lists hold at most `short.cap`
    /// pairs each): an all-gather gives every rank every list, and each builds the next
    /// frontier, the visited set and the counts from them, its own vertices' depths and
    /// parents and its list of their pieces too; it posts the counts (`post`), clears
    /// them, and decides by `rule` whether the level after is short.
    fn absorb_lists(
        &mut self,
        m: &Member,
        short: Short,
        level: u32,
        rule: NextRule,
        post: u64,
    ) -> Result<()> {
        let stream = m.gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let cap = short.cap;
        let len = 1 + 2 * cap as usize;
        self.turn_lists(m.world);
        if m.world > 1 {
            m.link.all_gather(
                &self.counters.list.slice(..len),
                &mut self.lists.slice_mut(..m.world * len),
            )?;
            step(&mut self.steps, &m.gpu, "all-gather")?;
        }
        let len32 = len as u32;
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let short_arcs = self.list_cap as u32;
        let mut b = stream.launch_builder(&self.k.absorb);
        b.arg(&self.lists)
            .arg(&len32)
            .arg(&cap)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level)
            .arg(&self.deg);
        self.counters.push(&mut b);
        let dev = self.mailbox[level as usize & 1].device();
        b.arg(&mut self.ticket)
            .arg(&dev)
            .arg(&post)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs);
        let gated = u32::from(short.ahead);
        let frontier_arcs = rule.frontier_arcs.unwrap_or(u64::MAX);
        let next_cap = u64::from(rule.next_cap);
        b.arg(&mut self.ahead)
            .arg(&gated)
            .arg(&rule.unexplored)
            .arg(&frontier_arcs)
            .arg(&rule.alpha)
            .arg(&next_cap);
        // SAFETY: matches mbfs_absorb; lists holds `world` lists of `len` entries, each
        // at most `cap` pairs of vertices below n; deg covers every vertex, sent `world`
        // counts, the mailbox STATS + 1 values, listed two lists of LISTED_CAP entries,
        // listed_len their lengths and arcs (four words), ahead three words.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        Ok(())
    }

    /// After a long top-down expansion: the vertices found for each other rank packed as
    /// (vertex, parent) pairs for it, and every rank's numbers of pairs all-gathered.
    fn pack_pairs(&mut self, m: &Member, seg: u32) -> Result<()> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let (world, rank) = (m.world as u32, m.rank as u32);
        let mut b = stream.launch_builder(&self.k.pack);
        b.arg(&mut self.next)
            .arg(&mut self.cand)
            .arg(&seg)
            .arg(&world)
            .arg(&rank)
            .arg(&self.outbox_at)
            .arg(&mut self.counters.sent);
        // SAFETY: matches mbfs_pack; each outbox buffer holds 2 * 32 * seg entries, room
        // for every vertex of a rank's range; sent holds `world` counts.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, gpu, "pack")?;
        m.link.all_gather(&self.counters.sent, &mut self.counts)?;
        step(&mut self.steps, gpu, "counts")
    }

    /// After [`RankState::pack_pairs`] and the merge of this rank's own finds: once the
    /// host has the numbers (posted by the merge as `post`), the pairs go to their ranks,
    /// and those found here by the others join this rank's part of the next frontier, its
    /// depths, parents and counts.
    fn exchange_pairs(&mut self, m: &Member, level: u32, post: u64) -> Result<()> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let (world, rank) = (m.world as u32, m.rank as u32);
        let mut counts = vec![0u64; m.world * m.world];
        let box_ = level as usize & 1;
        self.mailbox[box_].wait(post, &self.posted[box_], &mut counts, |t| m.link.watch(t))?;
        {
            let mut group = m.link.group()?;
            let others = (0..m.world).filter(|&p| p != m.rank);
            for ((p, o), i) in others.zip(&self.outbox).zip(&mut self.inbox) {
                // Both sides know each size, so an empty list is skipped on both.
                let sent = counts[m.rank * m.world + p] as usize;
                let got = counts[p * m.world + m.rank] as usize;
                if sent > 0 {
                    group.send(o.slice(..2 * sent), p)?;
                }
                if got > 0 {
                    group.recv(i.slice_mut(..2 * got), p)?;
                }
            }
            group.end()?;
        }
        step(&mut self.steps, gpu, "send-receive")?;
        let mut b = stream.launch_builder(&self.k.apply);
        b.arg(&self.inbox_at)
            .arg(&self.counts)
            .arg(&world)
            .arg(&rank)
            .arg(&self.lo)
            .arg(&self.visited)
            .arg(&mut self.own)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut self.counters.stats);
        // SAFETY: matches mbfs_apply; each inbox buffer holds the pairs of this rank's
        // vertices its sender counted in `counts`; own holds seg words, depth and parent
        // 32 * seg entries.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, gpu, "apply")?;
        Ok(())
    }
}

/// The error for a level queued ahead that the GPU ran where the host's rule says it is
/// not short, or the other way round: a bug, which would make the tree wrong.
fn ahead_differs(rank: usize, level: u32, host: bool) -> Error {
    Error::Gpu(format!(
        "BFS team, rank {rank}: the GPU and the host disagree on whether level {level} is a \
         short one (the host says {}; an internal error; the tree would be wrong)",
        if host { "yes" } else { "no" }
    ))
}

/// With other ranks, a short level queued ahead may have twice the last known frontier's
/// arcs and a 1 / AHEAD_SLACK of the short levels' bound more (1,024 arcs; their lists'
/// all-gather is that long). A longer one does nothing and is queued again once the
/// counts are in (which the tests' small bounds exercise).
const AHEAD_SLACK: u64 = 128;

/// Blocks of a team of one's run of short levels (mbfs_short_run, at most as many as are
/// resident at once): a level in one pass and one barrier on one word. A grid's levels
/// hold a few thousand arcs, a Kronecker graph's short ones up to [`LIST_CAP`].
pub const RUN_BLOCKS: u32 = 64;

/// Frontier arcs up to which a team of one's short levels go into a run
/// (`WARPGRAPH_BFS_RUN_ARCS`): every short level. A lower bound ends a run before a short
/// level of more arcs, which then takes the host's way, the whole grid's two launches:
/// on a road-like grid (1024 x 1024, 10% of the edges removed, 1,000 long arcs) on an
/// H100 a bound of 32,768 took 3.0-3.1 ms, none 2.6-2.8 ms.
pub const RUN_ARCS: u64 = LIST_CAP as u64;

/// Words of each of mbfs_short_run's three sets of counters (multi.cu's RUN_SET).
const RUN_SET: usize = 4;

/// Frontier out-arcs, over all the first levels, up to which the host expands them itself
/// (`HostLevels`). Small: each vertex a level finds costs the host a cache miss or two
/// for its degree (the vertices lie anywhere), so a level of a few thousand arcs costs it
/// as much as the GPUs' level it saves (measured on 2 H200s: 0.04-0.1 ms for 2,272
/// vertices; summed on every core, 0.1-0.7 ms).
pub const HOST_ARCS: usize = 256;

/// The first levels of a search, expanded on the host: a top-down level whose arcs keep
/// the total within the bound ([`HostLevels::take`]) costs a few microseconds here,
/// against a collective and a round trip on the GPUs. Parents follow the GPUs' rule: the
/// frontier is scanned in ascending order and the first arc to reach a vertex is its
/// parent's, so the least in-neighbour one level up.
struct HostLevels {
    /// Arcs the levels may still expand.
    budget: usize,
    /// Arcs the levels may expand in all.
    cap: usize,
    /// The vertices reached (open addressing, `EMPTY` for none), and which slots are used.
    slots: Vec<u32>,
    used: Vec<usize>,
    /// The frontier (ascending) and the one being made.
    front: Vec<u32>,
    next: Vec<u32>,
    /// (vertex, parent, depth) of every vertex reached but the source.
    found: Vec<u32>,
}

impl HostLevels {
    const EMPTY: u32 = u32::MAX;

    /// For levels of up to `cap` arcs in all.
    fn new(cap: usize) -> HostLevels {
        // The source and one vertex per arc at most: the table stays at most half full.
        let slots = (2 * (cap + 1)).next_power_of_two();
        HostLevels {
            budget: cap,
            cap,
            slots: vec![Self::EMPTY; slots],
            used: Vec::new(),
            front: Vec::new(),
            next: Vec::new(),
            found: Vec::new(),
        }
    }

    /// A new search from `source`: the source is reached, and the frontier.
    fn start(&mut self, source: VertexId) {
        for &i in &self.used {
            self.slots[i] = Self::EMPTY;
        }
        self.used.clear();
        self.found.clear();
        self.front.clear();
        self.budget = self.cap;
        self.insert(source);
        self.front.push(source);
    }

    /// Whether a level of `arcs` frontier arcs is the host's (then counted).
    fn take(&mut self, arcs: u64) -> bool {
        match usize::try_from(arcs) {
            Ok(a) if a <= self.budget => {
                self.budget -= a;
                true
            }
            _ => false,
        }
    }

    /// Marks `v` reached; whether it was not before.
    fn insert(&mut self, v: VertexId) -> bool {
        // Fibonacci hashing: the product's top bits pick the slot.
        let mask = self.slots.len() - 1;
        let bits = self.slots.len().trailing_zeros();
        let mut i = (u64::from(v).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
        loop {
            match self.slots[i] {
                Self::EMPTY => {
                    self.slots[i] = v;
                    self.used.push(i);
                    return true;
                }
                x if x == v => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Expands the frontier over `out`, its new vertices at `depth`; the next frontier's
    /// vertices and out-arcs.
    fn expand(&mut self, out: &Csr, depth: u32) -> (u64, u64) {
        let mut next = std::mem::take(&mut self.next);
        next.clear();
        for i in 0..self.front.len() {
            let u = self.front[i];
            for &t in out.neighbors(u) {
                if self.insert(t) {
                    next.push(t);
                    self.found.extend([t, u, depth]);
                }
            }
        }
        next.sort_unstable();
        self.next = std::mem::replace(&mut self.front, next);
        let arcs = self.front.iter().map(|&v| out.degree(v)).sum();
        (self.front.len() as u64, arcs)
    }
}

/// A top-down level whose frontier has at most this many out-arcs is short: each rank's
/// list of what it found holds no more (one pair per arc at most), so every list goes to
/// every rank in one all-gather of a size known beforehand (up to 1 MiB a rank).
pub const LIST_CAP: usize = 128 * 1024;

/// Copies the first `out.len()` entries of `buf` into `out` through the page-locked
/// buffer `stage` (made or grown as needed), the host's part in parallel.
fn copy_out(
    gpu: &Gpu,
    buf: &CudaSlice<u32>,
    out: &mut [u32],
    stage: &mut Option<PinnedHostSlice<u32>>,
) -> Result<()> {
    if stage.as_ref().is_none_or(|s| s.len() < out.len()) {
        *stage = Some(gpu.pinned(out.len())?);
    }
    let staged = gpu.read_pinned(buf, out.len(), stage.as_mut().expect("made above"))?;
    out.par_iter_mut()
        .zip(staged.par_iter())
        .for_each(|(o, s)| *o = *s);
    Ok(())
}

/// A level of a traced search (`WARPGRAPH_TRACE`), kept until the search is done.
struct LevelMarks {
    /// The level, its direction and what it found.
    line: String,
    /// The host's time for the level, from its decision to the counts.
    host_ms: f64,
    /// Events on the GPU's stream at the level's start, after its expansion and at its
    /// end (none for a level the host expanded).
    events: Option<[Option<CudaEvent>; 3]>,
    /// `WARPGRAPH_TRACE=2`: an event after each step of the level.
    steps: Vec<(&'static str, CudaEvent)>,
}

/// Prints a rank's traced levels on stderr: each level's GPU time of the step, of the
/// exchange, the host's, and the GPU's wait for the host before it (from the last
/// level's end); with `WARPGRAPH_TRACE=2` each step's time.
fn print_trace(rank: usize, levels: &[LevelMarks]) -> Result<()> {
    let mut ended: Option<&CudaEvent> = None;
    for l in levels {
        let Some([e0, e1, e2]) = &l.events else {
            eprintln!("rank {rank} {}; host {:.3} ms", l.line, l.host_ms);
            continue;
        };
        eprintln!(
            "rank {rank} {}; GPU {} ms, exchange {} ms, host {:.3} ms, GPU waiting before {} ms",
            l.line,
            between(e0.as_ref(), e1.as_ref())?,
            between(e1.as_ref(), e2.as_ref())?,
            l.host_ms,
            between(ended, e0.as_ref())?,
        );
        if !l.steps.is_empty() {
            let mut out = String::new();
            let mut last = e0.as_ref();
            for (name, e) in &l.steps {
                out += &format!(" {name} {}", between(last, Some(e))?);
                last = Some(e);
            }
            eprintln!("rank {rank} {}: steps{out}", l.line);
        }
        ended = e2.as_ref();
    }
    Ok(())
}

/// Marks the end of a level's step `name` in `steps` (`WARPGRAPH_TRACE=2`, else `None`).
fn step(
    steps: &mut Option<Vec<(&'static str, CudaEvent)>>,
    gpu: &Gpu,
    name: &'static str,
) -> Result<()> {
    if let Some(steps) = steps {
        steps.push((name, mark(gpu, true)?.expect("marked")));
    }
    Ok(())
}

/// An event on `gpu`'s stream when tracing.
fn mark(gpu: &Gpu, trace: bool) -> Result<Option<CudaEvent>> {
    if !trace {
        return Ok(None);
    }
    gpu.stream()
        .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
        .map(Some)
        .map_err(gpu_err)
}

/// Milliseconds between two trace events (once both are done).
fn between(a: Option<&CudaEvent>, b: Option<&CudaEvent>) -> Result<String> {
    match (a, b) {
        (Some(a), Some(b)) => {
            b.synchronize().map_err(gpu_err)?;
            Ok(format!("{:.3}", a.elapsed_ms(b).map_err(gpu_err)?))
        }
        _ => Ok("-".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{BfsOptions, UNREACHED};
    use crate::graph::testing::graph;
    use crate::graph::Weights;
    use proptest::prelude::*;

    /// A random graph of 1 to 199 vertices and up to 600 arcs, with self loops, parallel
    /// arcs and unreached vertices, directed or not: (n, its arcs, directed).
    fn random_graph() -> impl Strategy<Value = (u64, Vec<(u32, u32)>, bool)> {
        (
            1u64..200,
            prop::collection::vec((0u32..200, 0u32..200), 0..600),
            any::<bool>(),
        )
            .prop_map(|(n, edges, directed)| {
                let edges = edges
                    .into_iter()
                    .map(|(a, b)| (a % n as u32, b % n as u32))
                    .collect();
                (n, edges, directed)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The host's levels against the CPU's BFS, on random graphs with self loops,
        /// parallel arcs and unreached vertices: the same depths, and each parent the
        /// least in-neighbour one level up (the GPUs' rule), for searches reusing one
        /// table; within the bound, levels are taken while they fit.
        #[test]
        fn host_levels_match_the_cpu(
            (n, edges, directed) in random_graph(),
            picks in prop::collection::vec(any::<u32>(), 1..4),
        ) {
            let g = graph(n, &edges, directed);
            let mut host = HostLevels::new(g.num_arcs() as usize);
            for p in picks {
                let s = p % n as u32;
                let want = crate::bfs::bfs(&g, s, &BfsOptions::default()).unwrap().depth;
                host.start(s);
                let (mut nf, mut mf, mut level) = (1u64, g.out().degree(s), 0u32);
                while nf > 0 {
                    prop_assert!(host.take(mf), "every level fits the whole graph's arcs");
                    (nf, mf) = host.expand(g.out(), level + 1);
                    level += 1;
                }
                let mut depth = vec![UNREACHED; n as usize];
                let mut parent = vec![UNREACHED; n as usize];
                depth[s as usize] = 0;
                parent[s as usize] = s;
                for t in host.found.chunks(3) {
                    prop_assert_eq!(depth[t[0] as usize], UNREACHED, "reached twice");
                    depth[t[0] as usize] = t[2];
                    parent[t[0] as usize] = t[1];
                }
                prop_assert_eq!(&depth, &want);
                for v in 0..n as u32 {
                    let d = depth[v as usize];
                    if d == UNREACHED || d == 0 {
                        continue;
                    }
                    let least = g
                        .incoming()
                        .neighbors(v)
                        .iter()
                        .copied()
                        .filter(|&u| depth[u as usize] == d - 1)
                        .min();
                    prop_assert_eq!(Some(parent[v as usize]), least);
                }
            }
        }

        /// A vertex is in `never_reached` exactly when no arc's head is it (checked
        /// against the edge list itself), and no search from another source (of the first
        /// four) reaches it; the padding stays clear.
        #[test]
        fn never_reached_is_the_vertices_no_arc_enters(
            (n, edges, directed) in random_graph(),
            pad in 0usize..3,
        ) {
            let g = graph(n, &edges, directed);
            let words = (n as usize).div_ceil(32) + pad;
            let bits = never_reached(g.incoming(), words);
            prop_assert_eq!(bits.len(), words);
            for v in 0..32 * words {
                let set = bits[v / 32] >> (v % 32) & 1 == 1;
                let entered = edges
                    .iter()
                    .any(|&(a, b)| b as usize == v || (!directed && a as usize == v));
                prop_assert_eq!(set, v < n as usize && !entered, "vertex {}", v);
                if set {
                    for s in (0..n.min(4) as u32).filter(|&s| s as usize != v) {
                        let t = crate::bfs::bfs(&g, s, &BfsOptions::default()).unwrap();
                        prop_assert_eq!(t.depth[v], UNREACHED);
                    }
                }
            }
        }
    }

    #[test]
    fn host_levels_stop_at_their_bound() {
        let mut host = HostLevels::new(10);
        host.start(0);
        assert!(host.take(4));
        assert!(host.take(6));
        assert!(!host.take(1), "the bound is for all levels together");
        host.start(0);
        assert!(!host.take(11));
        assert!(host.take(10), "a new search starts with the whole bound");
        assert!(!HostLevels::new(0).take(1));
        assert!(HostLevels::new(0).take(0));
    }

    #[test]
    fn a_star_from_a_leaf() {
        // The hub, then every other leaf at once, its parent the hub.
        let leaves = 1000;
        let star: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
        let g = graph(u64::from(leaves) + 1, &star, false);
        let mut host = HostLevels::new(2 * leaves as usize);
        host.start(1);
        assert_eq!(host.expand(g.out(), 1), (1, u64::from(leaves)));
        let others = u64::from(leaves) - 1;
        assert_eq!(host.expand(g.out(), 2), (others, others));
        assert_eq!(host.found.len(), 3 * leaves as usize);
        assert!(host.found.chunks(3).skip(1).all(|t| t[1] == 0 && t[2] == 2));
    }

    /// A CSR whose vertex v has degrees[v] arcs (to vertex 0).
    fn with_degrees(degrees: &[u64]) -> Csr {
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        let targets = vec![0u32; *offsets.last().unwrap() as usize];
        Csr::from_raw(offsets.into(), targets.into(), Weights::None)
    }

    /// Each rank's delegates' rows are exactly every vertex's arcs into its range, the
    /// hubs those of PIECE arcs or more, and the sizes the memory estimate uses are theirs.
    #[test]
    fn delegates_hold_every_vertexs_arcs_into_the_range() {
        // Hubs 0 (700 arcs) and 1 (300); vertex 2 (255 arcs) is not one, 3 has 2 arcs.
        let mut pairs: Vec<(u32, u32)> = (3..703).map(|v| (0, v)).collect();
        pairs.extend((400..700).map(|v| (1, v)));
        pairs.extend((500..755).map(|v| (2, v)));
        pairs.extend([(3, 0), (3, 799)]);
        for directed in [true, false] {
            let g = graph(800, &pairs, directed);
            let c = g.out();
            for r in [0..800, 0..400, 400..800, 600..650, 750..800, 0..0] {
                let d = Delegates::new(c, r.clone());
                assert_eq!(d.off.len(), 801);
                let mut pieces = 0;
                for v in 0..800u32 {
                    let want: Vec<u32> = c
                        .neighbors(v)
                        .iter()
                        .copied()
                        .filter(|&t| r.contains(&(t as usize)))
                        .collect();
                    let (lo, hi) = (d.off[v as usize], d.off[v as usize + 1]);
                    assert_eq!(&d.tgt[lo as usize..hi as usize], &want[..]);
                    if c.degree(v) >= PIECE {
                        pieces += (want.len() as u64).div_ceil(PIECE);
                    }
                }
                let hubs: Vec<u32> = (0..800).filter(|&v| c.degree(v) >= PIECE).collect();
                assert_eq!(d.hubs, hubs);
                assert_eq!(d.pieces(), pieces);
                let sizes = Delegates::sizes(c, r);
                assert_eq!(sizes, (hubs.len() as u64, d.tgt.len() as u64, pieces));
            }
        }
    }

    #[test]
    fn every_piece_of_every_big_vertex_is_counted() {
        // Below PIECE arcs a vertex is no piece; at PIECE one; then one more per PIECE.
        let c = with_degrees(&[0, 1, 255, 256, 257, 512, 513, 70_000]);
        assert_eq!(pieces_bound(&c, 0..3), 0);
        assert_eq!(pieces_bound(&c, 3..4), 1);
        assert_eq!(pieces_bound(&c, 4..5), 2);
        assert_eq!(pieces_bound(&c, 5..6), 2);
        assert_eq!(pieces_bound(&c, 6..7), 3);
        assert_eq!(pieces_bound(&c, 7..8), 70_000usize.div_ceil(256));
        assert_eq!(pieces_bound(&c, 0..8), 1 + 2 + 2 + 3 + 274);
        assert_eq!(pieces_bound(&c, 4..4), 0);
    }
}
