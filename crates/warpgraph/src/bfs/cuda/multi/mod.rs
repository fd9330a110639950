//! Breadth-first search over several GPUs by 1-D partition, the GPUs talking through
//! NCCL: the multi-GPU Enterprise (Liu and Huang, "Enterprise: breadth-first graph
//! traversal on GPUs", SC'15), with Beamer's direction optimisation ("Direction-optimizing
//! breadth-first search", SC'12) and delegates for the hubs (Pearce et al., IPDPS 2013).
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
//!   level that is not short needs it. **Solo** (where every GPU has the memory for it),
//!   each GPU also holds every vertex's out-arcs and
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
//! left, and the search would go bottom-up and back at every level), and back to top-down
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
//! Where one process drives every rank, a level split by owner posts each rank's own
//! counts before the bitmap's all-gather, the host threads sum them
//! (`cuda::team::Board`) and queue the next level while the bitmap crosses, and there is
//! no all-gather of the counts; such a level's visit (`visited |= front`) then waits for
//! the next level's direction, and a bottom-up step, or a solo short level's queue, does
//! it itself. The host's last level goes straight into the GPUs' first queue where that
//! level is short, with no bitmap to scan.
//! Inside a run of short levels the
//! host does not wait for them before it queues the next level: that level's kernels do
//! nothing unless the last kernel of the level before, applying the host's own rule to
//! the counts, found it short (and within the lists' bound it was given); the host
//! checks that it finds the same, and queues the right level after one that did nothing.
//! A team of one (or a solo team) goes further: it runs such a run of short levels in one
//! cooperative launch (`mbfs_short_run`, [`TeamTuning::run_blocks`] blocks; 0: none), a
//! level in one pass and one barrier, its vertices claimed by a compare-and-swap of their
//! depths, up to the level whose next one is not short (or has more than
//! [`TeamTuning::run_arcs`] arcs); it posts the counts once, where a level at a time would
//! post them every level. The graph is uploaded once for any number of
//! sources. The first levels cost none of that: while their frontiers have
//! [`TeamTuning::host_arcs`] out-arcs in all, the host expands them itself (every process alike, from its copy of
//! the graph, with the same rule for parents) while the GPUs clear their arrays, and
//! hands the GPUs what they reached in one copy and one kernel (0 leaves every level to
//! the GPUs). Nor does a last level that can find
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
//! lone search starts on idle GPUs (clocked down), so trace warm ones:
//! `WARPGRAPH_TRACE=2 warpgraph bench bfs FILE --gpus 2 --trials 2` traces every search
//! of the bench, its warm-up first.
//!
//! The bounds that choose each level's way ([`LIST_CAP`], [`HOST_ARCS`],
//! [`WHOLE_DEGREE`], [`RUN_BLOCKS`], [`RUN_ARCS`]) are the defaults of [`TeamTuning`],
//! which [`bfs_team_each`] and [`bfs_team_visit`] take.
//!
//! **Files**: this one, the team's entry points; `team.rs`, the team's searches (each
//! rank's thread, the tree shared by the ranks of a process: `dest.rs`); `tuning.rs`, the
//! bounds and constants; `rank/`, a rank's state on its GPU (`rank/mod.rs`), its setup
//! (`setup.rs`), the level loop (`search.rs`, `walk.rs`), the steps of a level
//! (`steps.rs`: top-down, bottom-up), short levels (`lists.rs`), the collectives
//! (`exchange.rs`) and a search's end (`end.rs`); `partition.rs`, the split and each
//! rank's device memory; `delegates.rs`, every vertex's arcs into a rank's range;
//! `pieces.rs`, hubs cut into pieces; `host_levels.rs`, the first levels on the host;
//! `trace.rs`, `WARPGRAPH_TRACE`; `kernels.rs` and `multi.cu`, the kernels; `tests.rs`,
//! the host side's unit tests (the GPU's are in `tests/gpu_multi_bfs.rs`).

mod delegates;
mod dest;
mod host_levels;
mod kernels;
mod partition;
mod pieces;
mod rank;
mod team;
#[cfg(test)]
mod tests;
mod trace;
mod tuning;

pub use kernels::KERNELS;
pub use partition::bytes_needed;
pub use team::{TeamRuns, TeamSearch};
pub use tuning::{
    TeamSetup, TeamTuning, HOST_ARCS, LIST_CAP, RUN_ARCS, RUN_BLOCKS, SYMMETRIC, WHOLE_DEGREE,
};

use crate::bfs::{BfsOptions, BfsTree};
use crate::cuda::team::TeamSpec;
use crate::error::Result;
use crate::graph::{Graph, VertexId};
use team::{every_tree, team_searches, Tuning};

/// Breadth-first searches of `g` from every one of `sources` on the team `spec` (this
/// process's part of it); `opts` gives the direction and Beamer's switch. Every tree is
/// kept until the end: for many searches of a big graph, [`bfs_team_visit`] reuses one.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a source out of range or bad switch values;
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when a GPU cannot hold its part (on every rank, so none is left
/// waiting); [`Error::Nccl`](crate::Error::Nccl) when NCCL is missing or fails; [`Error::Gpu`](crate::Error::Gpu) for a driver
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
