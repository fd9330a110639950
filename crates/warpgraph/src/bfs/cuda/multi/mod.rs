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
//! - top-down: every GPU queues its own frontier vertices (a prefix sum per block), expands
//!   them a warp each (those of 256 arcs or more cut into pieces of 256, a warp each;
//!   on a short level a lane each, those of 32 or more cut into pieces of 32, a warp each)
//!   and, for each unvisited target, sets its bit and lowers its parent to the expanding
//!   vertex by an atomic min, wherever the target lives. While the frontier has at most
//!   131,072 out-arcs (a short level), the expansion instead writes a (vertex, parent)
//!   pair for every arc into an unvisited vertex into one list per GPU, an all-gather of
//!   that known size gives every GPU every list, and each builds the visited set and the
//!   counts from them alike (the owner keeping the least parent), and lists its own new
//!   vertices in pieces of 32 arcs: a short level after a short one expands that list, so
//!   it is two kernels and one collective (a road network or a grid is crossed in
//!   thousands of them), and the frontier's bitmap is made from the lists only where a
//!   level that is not short needs it. **Solo** (where every GPU has the memory for it,
//!   unless `WARPGRAPH_BFS_SOLO=0`), each GPU also holds every vertex's out-arcs and
//!   takes every short level alone, the whole frontier on its own copy, as a team of one
//!   does (runs of short levels in one launch included): no list crosses GPUs, and
//!   a road network's thousands of short levels cost no collective; only the levels
//!   that are not short are split by owner. Beyond, each GPU
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
//! vertices and out-arcs (with NCCL 2.27 or later both in its symmetric memory, where
//! NCCL's kernels write straight into the peers' buffers, and two collectives, not a
//! group: see [`SYMMETRIC`]), whose sums the host reads for the direction switch, which
//! every GPU takes alike: Beamer's rule ([`BfsOptions::alpha`], [`BfsOptions::beta`]) on
//! the whole graph's counts, but to bottom-up only from a frontier that is not shrinking
//! (past a road network's widest level its frontier can hold a fifteenth of the arcs
//! left, and the search went bottom-up and back at every level), and back to top-down
//! only into a short level (a long one after the bottom-up levels finds little, and costs
//! more than a bottom-up step). When
//! the frontier is empty, or a bottom-up step left no vertex unvisited (a fourth count;
//! the vertices no arc leads to aside), every GPU holds the depths and parents of its
//! range: in one process each copies them straight into the host's tree, which the
//! team page-locks in place for all its searches (a small tree, or one the driver will
//! not lock, goes through a page-locked buffer of each rank); a team spread over
//! processes sends them to rank 0 first.
//!
//! Each level costs a few kernels, one collective (group) and one wait of the host for
//! the counts (three and two for a top-down level that sends pairs; a team of one GPU
//! swaps buffers in place of its collectives, which NCCL would run as kernels). A kernel
//! posts the counts straight into page-locked host memory (a `cuda::Mailbox`), which the
//! host spins on (yielding its core now and then): no copy, no wait for the kernel's end.
//! Where one process drives every rank (unless `WARPGRAPH_BFS_HOST_COUNTS=0`), a level
//! split by owner posts each rank's own counts before the bitmap's all-gather, the host
//! threads sum them (`cuda::team::Board`) and queue the next level while the bitmap
//! crosses, and there is no all-gather of the counts (Kronecker 24 on 4 H200s: the team
//! of 2 0.02 ms a search faster, the team of 4 0.02-0.03 ms); such a level's visit
//! (`visited |= front`) then waits for the next level's direction, and a bottom-up step,
//! or a solo short level's queue, does it itself (`WARPGRAPH_BFS_FOLD_VISIT=0` turns it
//! off). The host's last level goes straight into the GPUs' first queue where that level
//! is short, with no bitmap to scan (`WARPGRAPH_BFS_SEED_QUEUE=0`); the two together
//! made a search of the teams of 2 and 4 at Kronecker 24 0.012 ms faster (4 H200s).
//! Inside a run of short levels the
//! host does not wait for them before it queues the next level: that level's kernels do
//! nothing unless the last kernel of the level before, applying the host's own rule to
//! the counts, found it short (and within the lists' bound it was given); the host
//! checks that it finds the same, and queues the right level after one that did nothing.
//! A team of one (or a solo team) goes further: it runs such a run of short levels in one
//! cooperative launch (`mbfs_short_run`, [`RUN_BLOCKS`] blocks,
//! `WARPGRAPH_BFS_RUN_BLOCKS`; 0: none), a level in one pass and one barrier, its
//! vertices claimed by a compare-and-swap of their depths, up to the level whose next one
//! is not short (or has more than [`RUN_ARCS`] arcs); it posts the counts once (a 1024 x 1024 grid on an H100: 7.2 ms,
//! against 24-26 ms a level at a time). The graph is uploaded once for any number of
//! sources. The first levels cost none of that: while their frontiers have [`HOST_ARCS`]
//! out-arcs in all, the host expands them itself (every process alike, from its copy of
//! the graph, with the same rule for parents) while the GPUs clear their arrays, and
//! hands the GPUs what they reached in one copy and one kernel (`WARPGRAPH_BFS_HOST_ARCS`
//! sets the bound; 0 leaves every level to the GPUs). Nor does a last level that can find
//! nothing: a frontier without arcs, or in an undirected graph one whose vertices each
//! have just the arc to their parent (a power-law graph's last level is often such), ends
//! the search unexpanded.
//!
//! `WARPGRAPH_TRACE=1` prints each rank's levels once its search is done (events on the
//! stream, read afterwards: the levels run as untraced, but for the queueing ahead and a
//! team of one's runs, which a trace turns off): the GPU time of the step, of the
//! exchange, the host's, and the GPU's wait for the host before the level, then the
//! search's end (when the host saw the kernels end, the copies into the tree, the bus's
//! and the host's parts, and the all-reduce of the ranks' times), with host counts each
//! split level's wait for the other ranks' counts, and once a process, after the first
//! team's setup, every thread's name and the CPUs it may run on;
//! `WARPGRAPH_TRACE=2` also the GPU time of each kernel and collective of the level. A
//! lone search starts on idle GPUs (an H200 idles at 345 MHz, not 1,980), so trace warm
//! ones: `WARPGRAPH_TRACE=2 warpgraph bench bfs FILE --gpus 2 --trials 2` traces every
//! search of the bench, its warm-up first. `WARPGRAPH_TRACE_SLOW=MS` traces without
//! events: each rank notes the host's moments of a search (its levels queued, its counts
//! in, the other ranks' summed) and prints them only where the search's kernels took
//! more than MS milliseconds (a rare slow search, as it ran). `WARPGRAPH_BFS_WHOLE_DEGREE` sets
//! [`WHOLE_DEGREE`] (0: always; 18446744073709551615: never).
//!
//! **Files**: this one, the team's searches (the API, the settings, each rank's thread);
//! `rank.rs`, a rank's state on its GPU and the steps of a level; `partition.rs`, the
//! split and each rank's device memory; `delegates.rs`, every vertex's arcs into a rank's
//! range; `host_levels.rs`, the first levels on the host; `trace.rs`, `WARPGRAPH_TRACE`;
//! `sweep.rs`, `WARPGRAPH_NCCL_SWEEP` (NCCL's all-gather timed by size); `multi.cu`, the
//! kernels; `tests.rs`, the host side's unit tests (the GPU's are in
//! `tests/gpu_multi_bfs.rs`).

use std::time::Instant;

use cudarc::driver::{
    CudaEvent, CudaFunction, CudaSlice, DevicePtr, LaunchArgs, PinnedHostSlice, PushKernelArg,
};
use rayon::prelude::*;

use super::super::{BfsOptions, BfsTree, Direction};
use super::never_reached;
use crate::cuda::link::Reduce;
use crate::cuda::team::{self, Member, TeamSpec};
use crate::cuda::{gpu_err, launch_config, Buffer, Gpu, KernelSource, Mailbox, Registered};
use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId};
use crate::par::sized;

mod delegates;
mod host_levels;
mod partition;
mod rank;
#[cfg(test)]
mod tests;
mod trace;

use delegates::{Delegates, DelegatesOnGpu};
use host_levels::HostLevels;
pub use partition::bytes_needed;
use partition::{pieces_bound, pieces_of, Partition};
use rank::RankState;
use trace::{mark, print_threads_once, print_trace, step, LevelMarks};

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
    /// Levels each search expanded, the host's first ones included (a level that can find
    /// nothing is not expanded, so this may be the tree's depth, not its depth + 1).
    pub levels: Vec<u32>,
    /// Whether the team took its short levels solo (as [`TeamSearch::solo`]).
    pub solo: bool,
    /// Whether the team exchanged its bitmaps in NCCL's symmetric memory (as
    /// [`TeamSearch::symmetric`]).
    pub symmetric: bool,
    /// Whether NCCL's all-gather in symmetric memory failed the team's check (as
    /// [`TeamSearch::symmetric_wrong`]).
    pub symmetric_wrong: bool,
    /// Seconds to set the team up: communicators, partition and upload.
    pub setup_seconds: f64,
}

/// Out-arcs a warp expands at once of a frontier vertex with at least as many (multi.cu's
/// `piece`): the hubs of a skewed graph are cut into pieces that the whole grid shares.
const PIECE: u64 = 256;

/// Vertices from which a team page-locks the host's tree in place (a smaller one is
/// copied through a page-locked buffer in microseconds).
const LOCK_VERTICES: usize = 1 << 16;

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

/// Whether a team of several GPUs over NCCL keeps the buffers of each level's bitmap
/// all-gather in NCCL's symmetric memory (`ncclMemAlloc`, a window registered by every
/// rank; NCCL 2.27 or later), so that NCCL's symmetric kernels make it, writing straight
/// into the peers' memory, in place of its ring through its own buffers
/// (`WARPGRAPH_BFS_SYMMETRIC=0`: not). The team first checks that an all-gather there
/// delivers, and keeps its own buffers if not. On 4 H200s at Kronecker 25 a team of 4
/// took 0.520 ms so, 0.579 ms without (the all-gather of 1 MiB a rank 0.016 ms in place
/// of 0.036, NCCL 2.28).
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
/// `WARPGRAPH_BFS_LIST_CAP` lowers the bound (1 to this): a level of more arcs is then
/// split by owner (a team's) or expanded into the bitmap (a team of one's).
pub const LIST_CAP: usize = 128 * 1024;

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
    bfs_team_each(spec, g, &searches, &TeamTuning::default())
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
    tuning: &TeamTuning,
) -> Result<TeamRuns> {
    tuning.check()?;
    let tuning = Tuning::of(tuning, TeamSetup::default());
    let mut runs = every_tree(spec, g, searches, &[tuning])?;
    Ok(runs.remove(0))
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
    /// Levels the search expanded (as [`TeamRuns::levels`]).
    pub levels: u32,
    /// Whether the team took its short levels solo: each GPU the whole level alone, on
    /// its own copy of the graph, no collective. A team of several GPUs does so where
    /// every GPU has the memory for the whole graph's out-arcs beside its part (unless
    /// `WARPGRAPH_BFS_SOLO=0`); a team of one always works alone, and says no.
    pub solo: bool,
    /// Whether the team exchanged its bitmaps in NCCL's symmetric memory ([`SYMMETRIC`]):
    /// a team of several GPUs over NCCL 2.27 or later does, where the check of its first
    /// all-gather there passed (unless `WARPGRAPH_BFS_SYMMETRIC=0`).
    pub symmetric: bool,
    /// Whether the team had NCCL's symmetric memory, but its check found the all-gather
    /// there delivering wrong data, so it kept its own buffers (the trees stay right).
    /// NCCL 2.28.3 on 4 H200s did so where a rank's part of the bitmap was not a whole
    /// number of 16 bytes, which the split now rules out.
    pub symmetric_wrong: bool,
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
/// use warpgraph::bfs::cuda::multi::{bfs_team_visit, TeamTuning};
/// use warpgraph::bfs::{self, BfsOptions, BfsTree};
/// use warpgraph::cuda::team::TeamSpec;
/// use warpgraph::generate::{generate, GenerateOptions, Generator};
/// # fn main() -> warpgraph::Result<()> {
/// let kron = Generator::Kronecker { scale: 20, edge_factor: 16 };
/// let g = generate(&kron, &GenerateOptions::default())?;
/// let searches: Vec<_> = (0..64).map(|s| (s, BfsOptions::default())).collect();
/// let mut tree = BfsTree::default();
/// let tuning = TeamTuning::default();
/// bfs_team_visit(&TeamSpec::local(2), &g, &searches, &tuning, &mut tree, |s| {
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
    tuning: &TeamTuning,
    tree: &mut BfsTree,
    visit: impl FnMut(&TeamSearch<'_>) -> Result<()> + Send,
) -> Result<f64> {
    tuning.check()?;
    let tuning = Tuning::of(tuning, TeamSetup::default());
    team_searches(spec, g, searches, &[tuning], tree, visit)
}

/// As [`bfs_team_each`], with top-down levels short up to `list_cap` frontier arcs (at
/// most [`LIST_CAP`]), the host's first levels up to `host_arcs` arcs (at most
/// [`LIST_CAP`]), and a team expanding the whole frontier of a long top-down level on
/// every GPU from a mean out-degree of `whole_degree` (0: always; `u64::MAX`: never, the
/// hubs only), and a team of several ranks set up as `setup` says (short levels solo
/// where the memory allows, bitmaps in symmetric memory where NCCL has it, or not): for
/// tests, to take every way on small graphs. Runs of short levels take levels of up to
/// `list_cap / 2` arcs.
#[doc(hidden)]
pub fn bfs_team_lists(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    ways: (usize, usize, u64),
    setup: TeamSetup,
) -> Result<TeamRuns> {
    let mut runs = bfs_team_ways(spec, g, searches, &[ways], setup)?;
    Ok(runs.remove(0))
}

/// As [`bfs_team_lists`] for each of `ways` in turn, all on one setup of the team (a
/// join of NCCL each costs more than a search of a small graph): one [`TeamRuns`] per
/// way, each with the setup's seconds.
#[doc(hidden)]
pub fn bfs_team_ways(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    ways: &[(usize, usize, u64)],
    setup: TeamSetup,
) -> Result<Vec<TeamRuns>> {
    let tunings: Vec<Tuning> = ways
        .iter()
        .map(|&(list_cap, host_arcs, whole_degree)| Tuning {
            list_cap,
            host_arcs,
            whole_degree,
            fail_at: None,
            run_blocks: RUN_BLOCKS,
            // Half the bound: some runs end before a short level, which then takes the
            // host's way.
            run_arcs: list_cap as u64 / 2,
            setup,
        })
        .collect();
    every_tree(spec, g, searches, &tunings)
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
        setup: TeamSetup::default(),
    };
    let mut runs = every_tree(spec, g, searches, &[tuning])?;
    Ok(runs.remove(0))
}

/// The searches of [`team_searches`] with each of `tunings` (at least one), every tree
/// kept: one [`TeamRuns`] per tuning.
fn every_tree(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tunings: &[Tuning],
) -> Result<Vec<TeamRuns>> {
    let k = searches.len();
    let mut runs = vec![
        TeamRuns {
            trees: vec![None; k],
            times: vec![RunTimes::default(); k],
            levels: vec![0; k],
            solo: false,
            symmetric: false,
            symmetric_wrong: false,
            setup_seconds: 0.0,
        };
        tunings.len()
    ];
    let mut tree = BfsTree::default();
    let setup = team_searches(spec, g, searches, tunings, &mut tree, |s| {
        let r = &mut runs[s.index / k];
        let i = s.index % k;
        r.trees[i] = s.tree.cloned();
        r.times[i] = s.times;
        r.levels[i] = s.levels;
        r.solo = s.solo;
        r.symmetric = s.symmetric;
        r.symmetric_wrong = s.symmetric_wrong;
        Ok(())
    })?;
    for r in &mut runs {
        r.setup_seconds = setup;
    }
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
    /// Solo short levels, bitmaps in symmetric memory.
    setup: TeamSetup,
}

impl Tuning {
    /// A search of the team's own: `tuning`'s bounds, set up as `setup`.
    fn of(tuning: &TeamTuning, setup: TeamSetup) -> Tuning {
        Tuning {
            list_cap: tuning.list_cap,
            host_arcs: tuning.host_arcs,
            whole_degree: tuning.whole_degree,
            fail_at: None,
            run_blocks: tuning.run_blocks,
            run_arcs: tuning.run_arcs,
            setup,
        }
    }
}

/// The caller's `visit`, as the first rank of the process holds it.
type Visit<'v> = &'v mut (dyn FnMut(&TeamSearch<'_>) -> Result<()> + Send);

/// The searches of [`bfs_team_visit`], their ways bounded by each of `tunings` in turn
/// (at least one; all of one `setup`), all on one setup of the team: `visit` sees search
/// `i` of tuning `t` as index `t * searches.len() + i`.
fn team_searches(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tunings: &[Tuning],
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
    let mut dest = match spec.has_root() {
        true => {
            sized(&mut tree.depth, n, 0);
            sized(&mut tree.parent, n, 0);
            Some(Dest::of(tree))
        }
        false => None,
    };
    // The tree page-locked in place for all the searches: each rank's copies land in it
    // straight (at Kronecker 24 on 4 H200s, copying through a page-locked buffer and on
    // into the tree took 5-13 ms a search, the second copy most of it). Where the driver
    // refuses, or for a small tree, through each rank's own page-locked buffer.
    let _locked = match (dest.as_mut(), spec.gpus.first()) {
        (Some(d), Some(&ordinal)) if n >= LOCK_VERTICES => match Gpu::open(ordinal) {
            // SAFETY: the tree's vectors are neither freed nor moved before the end of
            // this function (`Dest::of`), and `_locked` is dropped before then.
            Ok(gpu) => unsafe { d.lock(&gpu) },
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
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
    let tunings: Vec<Tuning> = tunings
        .iter()
        .map(|t| Tuning {
            list_cap: t.list_cap.min(LIST_CAP),
            host_arcs: t.host_arcs.min(LIST_CAP),
            ..*t
        })
        .collect();
    let (first, setup) = match tunings.first() {
        Some(t) if tunings.iter().all(|u| u.setup == t.setup) => (*t, t.setup),
        _ => unreachable!("team_searches takes at least one tuning, all of one `setup`"),
    };
    // The host's table and the GPUs' seeds for the most arcs any tuning hands them.
    let host_arcs = tunings.iter().map(|t| t.host_arcs).max().unwrap_or(0);
    let setup = team::run(spec, inputs, |m, (dest, mut visit)| {
        let mut state = RankState::new(m, g, part, &never, gather, host_arcs, setup)?;
        let most = match state.short_world(m) == 1 && first.run_blocks > 0 {
            true => m
                .gpu
                .resident_grid(&state.k.short_run, "mbfs_short_run", THREADS, 32)?,
            false => 0,
        };
        let setup = start.elapsed().as_secs_f64();
        let each = tunings
            .iter()
            .flat_map(|t| searches.iter().map(move |s| (t, s)));
        for (index, (tuning, (s, opts))) in each.enumerate() {
            state.list_cap = tuning.list_cap;
            state.whole_degree = tuning.whole_degree;
            state.fail_at = tuning.fail_at;
            state.host.cap = tuning.host_arcs;
            if most > 0 {
                state.run_blocks = tuning.run_blocks.min(most);
                state.run_arcs = tuning.run_arcs;
            }
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
                    solo: state.is_solo(),
                    symmetric: state.is_symmetric(),
                    symmetric_wrong: state.symmetric_was_wrong(),
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
    /// Whether the depths and the parents are page-locked in place ([`Dest::lock`]).
    locked: [bool; 2],
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
            locked: [false; 2],
        }
    }

    /// Page-locks the depths and the parents in place (each where the driver agrees:
    /// `locked`) until the result is dropped.
    ///
    /// # Safety
    /// The tree's vectors must stay allocated, where they are, until the result is
    /// dropped.
    unsafe fn lock(&mut self, gpu: &Gpu) -> Vec<Registered> {
        let mut held = Vec::new();
        for (i, ptr) in [self.depth, self.parent].into_iter().enumerate() {
            // SAFETY: `n` entries from `ptr`, which stay put (the caller's promise).
            if let Some(r) = unsafe { gpu.register(ptr, self.n) } {
                held.push(r);
                self.locked[i] = true;
            }
        }
        held
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
