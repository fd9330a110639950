//! Breadth-first search on an NVIDIA GPU: Enterprise, every technique switchable.
//!
//! **Computes** the same [`BfsTree`] as the CPU backend: identical depths, one valid parent
//! per reached vertex.
//!
//! **Method**: Enterprise (Liu and Huang, "Enterprise: breadth-first graph traversal on
//! GPUs", SC'15), level-synchronous, kernels in `bfs_queues.cu`, `bfs_steps.cu` and
//! `bfs_search.cu` (one source). Each technique is a switch in [`GpuBfsOptions`], and
//! [`Variant`] names the cumulative steps of the paper's ablation (its Fig. 13):
//! - `baseline`: a status array (depth per vertex) and one thread per vertex each level,
//!   one kernel launch per level, the host checking after each whether anything changed.
//! - `scheduling` (+ streamlined thread scheduling): each level first builds the frontier
//!   queue from the status array in two passes (count per block; every block placed by
//!   an exclusive sum of the counts before it; write in vertex order) with no atomics and
//!   no duplicates, then gives a thread to each queued vertex.
//! - `balancing` (+ workload balancing): the queue is split by out-degree into four
//!   classes, below 32 arcs, 32-255, 256-65,536 and above, expanded by a thread, a warp,
//!   a block and the whole grid per vertex, all four in the same phase (a block done with
//!   one class goes on to the next while others still work).
//! - `direction` (+ direction optimisation): bottom-up steps once the frontier holds more
//!   than `gamma` (30%; 20% with `tuned`) of the graph's hub vertices, Enterprise's
//!   switch; back to top-down for the tail, when the frontier shrinks below `n / beta`
//!   (Beamer's rule). The first bottom-up queue (the unvisited vertices) comes from a
//!   scan of the status array in contiguous ranges, so it is sorted; each later one is
//!   the previous one less the vertices it just visited, compacted by the same
//!   count-scan-write passes (the count half fused into the bottom-up step itself).
//! - `enterprise` (+ hub cache): bottom-up steps first look an in-neighbour up in a
//!   shared-memory table of the frontier's hubs before reading its depth.
//! - `tuned` (beyond the paper; the default). Sparse frontiers: top-down expansions
//!   claim each vertex with a compare-and-swap and append it to a list (one atomic add
//!   per warp), and a small next frontier (at most n / 16 vertices) is classified from
//!   that list rather than from a scan of all n statuses, which long-diameter graphs
//!   (roads, meshes) pay thousands of times; the first frontier is the list holding the
//!   source. Bottom-up steps run on bitmaps instead of queues: a warp takes 32
//!   vertices (one word of the visited bitmap, a word of vertices all visited costing one
//!   load shared with 31 others), and each unvisited vertex looks its in-neighbours up in
//!   the frontier's bitmap, which stays in L2 (4 MiB at 2^25 vertices) where the status
//!   array (32 bits a vertex) does not; the vertices without an in-arc, which no search
//!   reaches (43% of a Kronecker graph's vertices are isolated), count as visited from
//!   the switch on. The same step as the teams' of [`multi`]. And the frontier's
//!   vertices of 256 arcs or more (when at most 4096) are expanded as one flat range of
//!   arcs that the whole grid shares evenly (each block sums their degrees in shared
//!   memory and every thread finds its arcs' vertex by binary search), where the paper
//!   gives each a block or the grid in turn, leaving one block alone with up to 65,536
//!   arcs. Every block counts the frontier's hubs itself from the list of the graph's
//!   hubs, so the level that switches to bottom-up skips its top-down classification.
//!   It switches at 20% of the hubs rather than 30%, and also on Beamer's rule: a listed
//!   frontier of at most 16,384 vertices holding more than a fifteenth of all arcs (every
//!   block sums them alike; a Kronecker graph has roots whose second level holds millions
//!   of arcs but few of the hubs). Once back from bottom-up it never switches again.
//!   On a graph whose out-degrees are all at most 32 (a grid, a road network, a mesh),
//!   crossed in thousands of levels, a listed frontier is expanded from its list, a thread
//!   per vertex, with one barrier a level, while no switch to bottom-up is possible (it
//!   holds at most a fifteenth of all arcs): one of at most 8,192 vertices by 32 blocks
//!   alone, which meet at a barrier of their own level after level while the other blocks
//!   wait ("solo levels"), a bigger one by every block without the queue's
//!   classification, pointless where every vertex has fewer than 32 arcs ("wide
//!   levels").
//!
//! Every expansion and bottom-up step issues the loads of four arcs before it uses any
//! (memory-level parallelism; a thread per arc would otherwise wait out one miss at a time),
//! and a thread's four claims go out together, followed by one atomic add per warp for all
//! their slots in the list, so that no claim waits for the one before it and its append.
//! A solo level makes its claims alone (no read of a target's depth first), and its
//! barrier is of release and acquire operations instead of full fences.
//!
//! Hubs are the vertices of out-degree above `tau`, the degree of the 4096th best
//! connected vertex, so that every hub fits the cache; a graph with no vertex above that
//! (a grid) has no hubs and stays top-down.
//!
//! Beyond the paper, every queued variant runs the whole traversal as **one cooperative
//! kernel launch**: the blocks (all resident) meet at grid-wide barriers between phases
//! and take the direction decisions themselves from the counts every block computes
//! alike, so no level waits for a round trip to the host, which would otherwise cost as
//! much as a level of a Kronecker graph, and more than one of a long-diameter graph.
//! `tuned` splits it where that pays: its bottom-up steps are kernels of their own
//! (`bfs_bu_bits`, 32 registers, every warp a multiprocessor holds waiting on memory,
//! where the cooperative kernel's 128 registers leave it a quarter of them). The host
//! queues, at once, the cooperative launch up to the switch, three bottom-up steps (each
//! a no-op once the phase is over; the last block of each takes the next direction
//! decision) and the cooperative launch again for the rest: still no round trip to the
//! host. A step launched on its own reads the frontier's bitmap through L1 as well (the
//! cooperative kernel's own steps cannot: it wrote that bitmap in the same launch).
//! `WARPGRAPH_TRACE=1` prints each level's queue sizes and GPU time on stderr.
//!
//! The graph is uploaded once ([`GpuBfs::new`], which sizes everything first and refuses
//! what the GPU cannot hold) and every search resets the state for its source.
//! [`GpuBfs::search`] lends the tree it keeps in host memory page-locked in place, where
//! the copy from the GPU lands straight; [`GpuBfs::run_into`] then copies it into the
//! caller's vectors (a copy on the host that costs more than the search's kernels),
//! [`GpuBfs::run`] into fresh ones.

#[cfg(test)]
mod kernel_names;
pub mod multi;
pub(crate) mod multi_source;

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaEvent, CudaFunction, CudaSlice, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;

use super::{check_args, BfsOptions, BfsTree, Direction, UNREACHED};
use crate::cuda::{
    gpu_err, grid_for, launch_config, Gpu, GpuTimes, KernelSource, Registered, Timer,
};
use crate::error::{Error, Result};
use crate::graph::{named_enum, Csr, Graph, VertexId};
use crate::par::{copy, premapped, sized};

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs",
    source: concat!(
        include_str!("bfs_queues.cu"),
        include_str!("bfs_steps.cu"),
        include_str!("bfs_search.cu"),
    ),
};

/// Every kernel file of the BFS family: the single GPU's, the teams' and the
/// multi-source search's.
pub const KERNEL_SOURCES: &[&KernelSource] = &[&KERNELS, &multi::KERNELS, &multi_source::KERNELS];

/// Entries of the bottom-up hub cache (`HUB_CACHE` in `bfs_queues.cu`).
const HUB_CACHE: usize = 4096;
/// Threads per block of the per-vertex kernels.
const THREADS: u32 = 256;
/// Most resident blocks per multiprocessor for the cooperative launch (eight of 256
/// threads fill an SM, which the latency-bound scans of the status array need).
const BLOCKS_PER_SM: u32 = 4;
/// Blocks per multiprocessor of `bfs_bu_bits` (its `__launch_bounds__(256, 8)`).
const BU_BLOCKS_PER_SM: u32 = 8;
/// The largest out-degree of a graph whose listed levels go solo or wide
/// (`NARROW_DEGREE` in `bfs_search.cu`).
const NARROW_DEGREE: u64 = 32;
/// Words of the barrier buffer (`bar` of `bfs_enterprise`: 8 + BARRIER_FANIN).
const BARRIER_WORDS: usize = 8 + 16;
/// Trace lines kept per search (`WARPGRAPH_TRACE`).
const TRACE_LINES: usize = 4096;
/// Classes of a queue-generation pass (`NCLASS` in `bfs_queues.cu`).
const NCLASS: usize = 5;
/// Words of the control block of a split search (`CTL_WORDS` in `bfs_search.cu`) and the index
/// of its count of trace lines (`CTL_LINES`).
const CTL_WORDS: usize = 8;
const CTL_LINES: usize = 4;
/// Bottom-up steps a split search queues as launches of their own (`bfs_bu_bits`) between
/// its two cooperative launches; a longer bottom-up phase goes on in the second one.
/// Kronecker graphs take three (the last finding a few of the vertices left), uniform
/// random ones two (of degree 16, the second leaving none unvisited). A fourth would
/// cost a launch that does nothing on most graphs.
const BU_LAUNCHES: usize = 3;

/// The techniques of one GPU search (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuBfsOptions {
    /// Frontier queues by count-scan-write ("streamlined thread scheduling"); without
    /// it, every level gives a thread to every vertex.
    pub scheduling: bool,
    /// Split the frontier into four queues by out-degree (needs `scheduling`).
    pub balancing: bool,
    /// The kinds of steps. [`Direction::Optimizing`] needs `scheduling` (the switch reads
    /// the hub counts the queues provide).
    pub direction: Direction,
    /// Look in-neighbours up in a shared-memory table of the frontier's hubs in
    /// bottom-up steps (needs `scheduling`). Only the queued bottom-up steps use it:
    /// with `tuned`, the frontier's bitmap stays in L2 and there is no table.
    pub hub_cache: bool,
    /// The improvements beyond the paper (the `tuned` variant; needs `scheduling`):
    /// sparse frontiers (top-down expansions claim vertices with compare-and-swap and
    /// append them to a list, and a level whose frontier holds at most n / 16 vertices is
    /// classified from that list instead of a scan of the whole status array; the first
    /// frontier is the list of the source), bottom-up steps on bitmaps instead of
    /// queues (on a graph with hubs, kernels of their own between two cooperative
    /// launches), the vertices of 256 arcs or more expanded as one flat range of arcs
    /// shared by the whole grid, and the switch to bottom-up also on Beamer's arc rule
    /// (a listed frontier of more than a fifteenth of all arcs), at most once a search.
    pub tuned: bool,
    /// Go bottom-up when the frontier holds more than this share of all hubs (0.3 as
    /// in the paper; 0.2 with `tuned`).
    pub gamma: f64,
    /// Back to top-down when the frontier, shrinking, holds fewer than `n / beta`
    /// vertices (18).
    pub beta: u32,
}

impl Default for GpuBfsOptions {
    fn default() -> Self {
        Variant::default().options()
    }
}

/// The cumulative steps of the paper's ablation, each adding one technique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Status array, one thread per vertex, top-down only.
    Baseline,
    /// + frontier queues by prefix sum.
    Scheduling,
    /// + four queues by degree (thread / warp / block / grid).
    Balancing,
    /// + direction optimisation (Enterprise's hub-ratio switch).
    Direction,
    /// + the bottom-up hub cache: the paper's whole design.
    Enterprise,
    /// The paper's design and the improvements beyond it (sparse frontiers, flat
    /// expansion of big vertices): the fastest, and the default.
    #[default]
    Tuned,
}

named_enum!(
    Variant,
    "GPU BFS variant",
    Variant::Baseline => "baseline",
    Variant::Scheduling => "scheduling",
    Variant::Balancing => "balancing",
    Variant::Direction => "direction",
    Variant::Enterprise => "enterprise",
    Variant::Tuned => "tuned"
);

impl Variant {
    /// The options this step of the ablation stands for.
    pub fn options(self) -> GpuBfsOptions {
        let at_least = |v: Variant| self as u8 >= v as u8;
        GpuBfsOptions {
            scheduling: at_least(Variant::Scheduling),
            balancing: at_least(Variant::Balancing),
            direction: if at_least(Variant::Direction) {
                Direction::Optimizing
            } else {
                Direction::TopDown
            },
            hub_cache: at_least(Variant::Enterprise),
            tuned: at_least(Variant::Tuned),
            // Enterprise's 30%; `tuned` switches earlier, at 20%: at 30% some roots expand
            // a frontier of tens of millions of arcs top-down where a bottom-up step
            // costs a third of that.
            gamma: if at_least(Variant::Tuned) { 0.2 } else { 0.3 },
            beta: 18,
        }
    }
}

/// The compiled kernels.
struct Kernels {
    reset: CudaFunction,
    td_baseline: CudaFunction,
    bu_baseline: CudaFunction,
    enterprise: CudaFunction,
    bu_bits: CudaFunction,
}

/// A graph on the GPU, ready for searches from any number of sources.
pub struct GpuBfs {
    gpu: Arc<Gpu>,
    k: Kernels,
    n: u32,
    /// Out-arcs (offsets, targets).
    out: (CudaSlice<u64>, CudaSlice<u32>),
    /// In-arcs for bottom-up steps of a directed graph (an undirected one uses `out`).
    incoming: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    depth: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    /// The bitmaps of `tuned`'s bottom-up steps (visited, this level's frontier, the
    /// next one: `words` words each) and the vertices no arc leads to ([`never_reached`]).
    bits: CudaSlice<u32>,
    never: CudaSlice<u32>,
    /// Queues: `qa`, `qb` (classified frontier or bottom-up queues), `hubs`.
    qa: CudaSlice<u32>,
    qb: CudaSlice<u32>,
    hubs: CudaSlice<u32>,
    /// Per-class, per-block counts of the queue-generation passes (two sets).
    counts: CudaSlice<u32>,
    /// The grid-wide barrier of the cooperative launch.
    barrier: CudaSlice<u32>,
    /// Blocks of the cooperative launch (all resident at once), and of `bfs_bu_bits` (as
    /// many as fit at once at full occupancy).
    blocks: u32,
    bu_blocks: u32,
    /// Words a warp of `bfs_bu_bits` takes at once ([`bottom_up_batch`]).
    bu_batch: u32,
    /// The control words of a split search (`ctl` in `bfs_search.cu`).
    ctl: CudaSlice<u32>,
    /// Trace lines of the last search (their number in `ctl`).
    log: CudaSlice<u32>,
    /// The baseline's "anything found" flag.
    flag: CudaSlice<u32>,
    /// A page-locked host copy of the baseline's flag (read every level).
    flag_host: PinnedHostSlice<u32>,
    /// The last search's tree ([`GpuBfs::search`]), page-locked in place where the
    /// driver agrees (`_locked`, held, not read): the copies from the GPU land in it
    /// straight. Else they go through `staging` (page-locked buffers of the depths and
    /// the parents) and are moved in. `_locked` is declared first, so dropped first: the
    /// tree is unlocked before it is freed; and the tree is never resized, so it stays
    /// where it was locked.
    _locked: Vec<Registered>,
    staging: Option<[PinnedHostSlice<u32>; 2]>,
    result: BfsTree,
    /// Hubs have out-degree above this; `hubs_total` of them, listed in `hub_all`.
    tau: u64,
    hubs_total: u64,
    hub_all: CudaSlice<u32>,
    /// The graph's largest out-degree when it is at most [`NARROW_DEGREE`] (`tuned`'s
    /// listed levels then go solo or wide), else 0.
    narrow: u32,
    upload_seconds: f64,
}

/// Device bytes a search of `g` needs: the CSR (twice for a directed graph), depth and
/// parent, three queues of n vertices, four bitmaps, the list of hubs, and the counters.
pub fn bytes_needed(g: &Graph) -> u64 {
    let n = g.num_vertices() as u64;
    let csr = |c: &Csr| 8 * (c.num_vertices() as u64 + 1) + 4 * c.num_arcs();
    let graph = csr(g.out()) * if g.is_directed() { 2 } else { 1 };
    graph
        + 4 * n * 5
        + 4 * 4 * n.div_ceil(32)
        + 4 * HUB_CACHE as u64
        + 4 * (2 * (NCLASS as u64 + 1) * 4096 + 10 * TRACE_LINES as u64 + 8 + CTL_WORDS as u64)
}

impl GpuBfs {
    /// Uploads `g` to `gpu` and allocates the search state, after checking that it fits.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (needed vs free device memory) when it does not fit;
    /// [`Error::Gpu`] for a driver or compile error.
    pub fn new(gpu: &Arc<Gpu>, g: &Graph) -> Result<GpuBfs> {
        let n = g.num_vertices();
        gpu.check_memory(
            || {
                format!(
                    "BFS on a graph of {n} vertices and {} arcs",
                    g.out().num_arcs()
                )
            },
            bytes_needed(g),
        )?;
        let f = |name| gpu.function(&KERNELS, name);
        let k = Kernels {
            reset: f("bfs_reset")?,
            td_baseline: f("bfs_td_baseline")?,
            bu_baseline: f("bfs_bu_baseline")?,
            enterprise: f("bfs_enterprise")?,
            bu_bits: f("bfs_bu_bits")?,
        };
        let start = Instant::now();
        let upload =
            |c: &Csr| -> Result<_> { Ok((gpu.upload(c.offsets())?, gpu.upload(c.targets())?)) };
        let out = upload(g.out())?;
        let incoming = if g.is_directed() {
            Some(upload(g.incoming())?)
        } else {
            None
        };
        let blocks = gpu.resident_grid(&k.enterprise, "bfs_enterprise", THREADS, BLOCKS_PER_SM)?;
        let bu_blocks = gpu.resident_grid(&k.bu_bits, "bfs_bu_bits", THREADS, BU_BLOCKS_PER_SM)?;
        let words = n.div_ceil(32);
        let never = never_reached(g.incoming(), words);
        let tau = hub_threshold(g.out());
        let hub_all: Vec<u32> = (0..n as u32).filter(|&v| g.out().degree(v) > tau).collect();
        let widest = g.out().max_degree();
        let (result, locked, staging) = result_tree(gpu, n)?;
        let bfs = GpuBfs {
            k,
            n: n as u32,
            out,
            incoming,
            depth: gpu.zeros(n)?,
            parent: gpu.zeros(n)?,
            qa: gpu.zeros(n)?,
            qb: gpu.zeros(n)?,
            hubs: gpu.zeros(n)?,
            bits: gpu.zeros(3 * words)?,
            never: gpu.upload(&never)?,
            counts: gpu.zeros(2 * (NCLASS + 1) * blocks.max(bu_blocks) as usize)?,
            barrier: gpu.zeros(BARRIER_WORDS)?,
            blocks,
            bu_blocks,
            bu_batch: bottom_up_batch(words, bu_blocks * THREADS / 32),
            ctl: gpu.zeros(CTL_WORDS)?,
            log: gpu.zeros(10 * TRACE_LINES)?,
            flag: gpu.zeros(1)?,
            flag_host: gpu.pinned(1)?,
            _locked: locked,
            staging,
            result,
            tau,
            hubs_total: hub_all.len() as u64,
            hub_all: gpu.upload(&hub_all)?,
            narrow: if widest <= NARROW_DEGREE {
                widest as u32
            } else {
                0
            },
            upload_seconds: 0.0,
            gpu: gpu.clone(),
        };
        gpu.stream().synchronize().map_err(gpu_err)?;
        Ok(GpuBfs {
            upload_seconds: start.elapsed().as_secs_f64(),
            ..bfs
        })
    }

    /// Seconds the upload and allocation took.
    pub fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// The GPU this search runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Searches from `source` (an internal id).
    ///
    /// # Returns
    /// The tree (copied back to the host) and the times: kernels by CUDA events, and the
    /// whole call.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a source out of range, `beta` of 0, `gamma` negative
    /// or not finite, or a technique
    /// without the `scheduling` it needs; [`Error::Gpu`] for a driver error.
    pub fn run(&mut self, source: VertexId, opts: &GpuBfsOptions) -> Result<(BfsTree, GpuTimes)> {
        let mut tree = BfsTree::default();
        let times = self.run_into(source, opts, &mut tree)?;
        Ok((tree, times))
    }

    /// Searches from `source` and lends the tree, which this search keeps (in page-locked
    /// host memory where the driver agrees) until the next: the copy from the GPU lands in
    /// it straight, with no copy on the host after it, so the whole call takes the
    /// kernels and one copy across the bus. For many searches whose trees are read, not
    /// kept (a benchmark, a verifier, a front end copying it elsewhere).
    ///
    /// # Returns
    /// The tree and the times, as [`GpuBfs::run`].
    ///
    /// # Errors
    /// As [`GpuBfs::run`].
    pub fn search(
        &mut self,
        source: VertexId,
        opts: &GpuBfsOptions,
    ) -> Result<(&BfsTree, GpuTimes)> {
        let (timer, done) = self.start(source, opts)?;
        self.read_result()?;
        self.result.source = source;
        Ok((&self.result, timer.finish(&done)?))
    }

    /// Searches from `source` into `tree`, whose vectors are reused when they already
    /// hold one entry per vertex (as after an earlier search of this graph), else
    /// replaced. For many searches one after another: a fresh result's pages cost the
    /// host more than a fast search's kernels, and a reused one has them already.
    ///
    /// # Returns
    /// The times, as [`GpuBfs::run`]; `tree` holds the result.
    ///
    /// # Errors
    /// As [`GpuBfs::run`]; `tree` is then left with its vectors but not a valid tree.
    pub fn run_into(
        &mut self,
        source: VertexId,
        opts: &GpuBfsOptions,
        tree: &mut BfsTree,
    ) -> Result<GpuTimes> {
        let (timer, done) = self.start(source, opts)?;
        // While the GPU finishes: a vector not of n entries replaced by a fresh one, its
        // pages mapped.
        let n = self.n as usize;
        sized(&mut tree.depth, n, 0);
        sized(&mut tree.parent, n, 0);
        self.read_result()?;
        tree.source = source;
        copy(&mut tree.depth, &self.result.depth);
        copy(&mut tree.parent, &self.result.parent);
        timer.finish(&done)
    }

    /// Checks the arguments, resets the state for `source` and queues the search; returns
    /// the timer and the event that ends its kernels.
    fn start(&mut self, source: VertexId, opts: &GpuBfsOptions) -> Result<(Timer, CudaEvent)> {
        if source >= self.n {
            return Err(Error::InvalidArgument(format!(
                "BFS source {source} is not a vertex: the graph has {} vertices",
                self.n
            )));
        }
        if opts.beta == 0 {
            return Err(Error::InvalidArgument("BFS beta must be at least 1".into()));
        }
        if !(opts.gamma >= 0.0 && opts.gamma.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "BFS gamma (a share of the hub vertices) must be a number of at least 0, not {}",
                opts.gamma
            )));
        }
        if !opts.scheduling
            && (opts.balancing
                || opts.hub_cache
                || opts.tuned
                || opts.direction == Direction::Optimizing)
        {
            return Err(Error::InvalidArgument(
                "GPU BFS: workload balancing, the hub cache, sparse frontiers and direction \
                 optimisation need the frontier queues (scheduling)"
                    .into(),
            ));
        }
        let timer = self.gpu.timer()?;
        self.launch_reset(source)?;
        if opts.scheduling {
            self.search_queued(opts)?;
        } else {
            self.search_baseline(opts.direction)?;
        }
        let done = timer.kernels_done(&self.gpu)?;
        // (After the timer's end, so that printing is not counted as the kernels' time.)
        if opts.scheduling && crate::settings::get().trace >= 1 {
            self.print_trace()?;
        }
        Ok((timer, done))
    }

    fn launch_reset(&mut self, source: u32) -> Result<()> {
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let mut b = self.gpu.stream().launch_builder(&self.k.reset);
        b.arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&mut self.qb)
            .arg(&mut self.barrier);
        // SAFETY: the arguments match bfs_reset's parameters; depth, parent and qb hold n
        // elements (at least one), the barrier BARRIER_WORDS.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// Baseline: one thread per vertex per level, until a level finds nothing.
    fn search_baseline(&mut self, direction: Direction) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let bottom_up = direction == Direction::BottomUp;
        let (off, tgt) = match &self.incoming {
            Some(inc) if bottom_up => inc,
            _ => &self.out,
        };
        let kernel = if bottom_up {
            &self.k.bu_baseline
        } else {
            &self.k.td_baseline
        };
        for level in 0u32.. {
            stream.memset_zeros(&mut self.flag).map_err(gpu_err)?;
            let mut b = stream.launch_builder(kernel);
            b.arg(off)
                .arg(tgt)
                .arg(&mut self.depth)
                .arg(&mut self.parent)
                .arg(&self.n)
                .arg(&level)
                .arg(&mut self.flag);
            // SAFETY: the arguments match bfs_td_baseline / bfs_bu_baseline; the CSR has
            // n + 1 offsets and targets below n.
            unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            if self.gpu.read_pinned(&self.flag, 1, &mut self.flag_host)?[0] == 0 {
                break;
            }
        }
        Ok(())
    }

    /// Search with frontier queues: the whole traversal is one cooperative launch of
    /// `bfs_enterprise`, its blocks meeting at grid-wide barriers (see `bfs_search.cu`); with
    /// `tuned` and bottom-up steps, split in three: the cooperative launch up to the
    /// switch, [`BU_LAUNCHES`] bottom-up steps of `bfs_bu_bits` (each doing nothing once
    /// the phase is over), the cooperative launch again for the rest. All are queued at
    /// once: no launch waits for the host.
    fn search_queued(&mut self, opts: &GpuBfsOptions) -> Result<()> {
        // (Without hubs the search never switches on its own.)
        let split = opts.tuned
            && match opts.direction {
                Direction::Optimizing => self.hubs_total > 0,
                Direction::TopDown => false,
                Direction::BottomUp => true,
            };
        self.launch_enterprise(opts, split, false)?;
        if split {
            for _ in 0..BU_LAUNCHES {
                self.launch_bu_bits(opts)?;
            }
            self.launch_enterprise(opts, false, true)?;
        }
        Ok(())
    }

    /// One cooperative launch of `bfs_enterprise`: the search from its start (stopping at
    /// the switch to bottom-up with `split`), or, with `resume`, from where the last
    /// launch of a split search left it.
    fn launch_enterprise(&mut self, opts: &GpuBfsOptions, split: bool, resume: bool) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let direction = direction_code(opts.direction);
        let balance = u32::from(opts.balancing);
        let cache = u32::from(opts.hub_cache);
        let tuned = u32::from(opts.tuned);
        let gamma = opts.gamma as f32;
        let hubs_total = self.hubs_total as u32;
        let log_cap = TRACE_LINES as u32;
        let (split, resume) = (u32::from(split), u32::from(resume));
        let narrow = if opts.tuned { self.narrow } else { 0 };
        let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
        let mut b = stream.launch_builder(&self.k.enterprise);
        b.arg(&self.out.0)
            .arg(&self.out.1)
            .arg(roff)
            .arg(rtgt)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&mut self.qa)
            .arg(&mut self.qb)
            .arg(&mut self.hubs)
            .arg(&mut self.counts)
            .arg(&mut self.barrier)
            .arg(&self.tau)
            .arg(&hubs_total)
            .arg(&balance)
            .arg(&direction)
            .arg(&cache)
            .arg(&gamma)
            .arg(&opts.beta)
            .arg(&tuned)
            .arg(&mut self.bits)
            .arg(&self.never)
            .arg(&self.hub_all)
            .arg(&mut self.log)
            .arg(&log_cap)
            .arg(&mut self.ctl)
            .arg(&split)
            .arg(&resume)
            .arg(&narrow);
        // SAFETY: the arguments match bfs_enterprise's parameters; the queues hold n
        // entries, bits 3 * ceil(n / 32) words and never ceil(n / 32), counts
        // 2 * (NCLASS + 1) * blocks, the barrier BARRIER_WORDS (zeroed,
        // and left with its counts, ticket and append counters at 0), the log
        // TRACE_LINES lines, ctl CTL_WORDS (written by the launches before a resumed one).
        // The cooperative launch makes every block resident, which the grid-wide barrier
        // needs; `blocks` is within the occupancy the driver reported.
        unsafe { b.launch_cooperative(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// One bottom-up step of a split search (`bfs_bu_bits`).
    fn launch_bu_bits(&mut self, opts: &GpuBfsOptions) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let direction = direction_code(opts.direction);
        let log_cap = TRACE_LINES as u32;
        let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
        let mut b = stream.launch_builder(&self.k.bu_bits);
        b.arg(roff)
            .arg(rtgt)
            .arg(&self.n)
            .arg(&mut self.bits)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&mut self.counts)
            .arg(&mut self.barrier)
            .arg(&mut self.ctl)
            .arg(&direction)
            .arg(&opts.beta)
            .arg(&mut self.log)
            .arg(&log_cap)
            .arg(&self.bu_batch);
        // SAFETY: the arguments match bfs_bu_bits's parameters; bits holds 3 * ceil(n /
        // 32) words, counts (NCLASS + 1) * bu_blocks at least, the barrier's ticket is
        // zero between passes, ctl CTL_WORDS words set by the cooperative launch before.
        unsafe { b.launch(launch_config(self.bu_blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// Prints the trace lines of the last search on stderr (`WARPGRAPH_TRACE`).
    fn print_trace(&mut self) -> Result<()> {
        let mut ctl = self.gpu.pinned::<u32>(CTL_WORDS)?;
        let lines = self.gpu.read_pinned(&self.ctl, CTL_WORDS, &mut ctl)?[CTL_LINES] as usize;
        let shown = lines.min(TRACE_LINES);
        let mut staging = self.gpu.pinned::<u32>(10 * shown)?;
        let log = self.gpu.read_pinned(&self.log, 10 * shown, &mut staging)?;
        let time = |l: &[u32]| u64::from(l[8]) | (u64::from(l[9]) << 32);
        let mut last = log.get(8..10).map_or(0, |_| time(&log[..10]));
        for l in log.chunks_exact(10) {
            let kind = [
                "top-down queue",
                "explosion",
                "bottom-up step",
                "small frontier",
                "solo level",
                "wide level",
            ][l[1] as usize];
            eprintln!(
                "level {:>5} {kind:<15} classes {:?} hubs {:>7} {:>9.1} us",
                l[0],
                &l[2..6],
                l[6],
                (time(l) - last) as f64 / 1e3
            );
            last = time(l);
        }
        if lines > shown {
            eprintln!("({} more levels not traced)", lines - shown);
        }
        Ok(())
    }

    /// Copies the depths and parents into `result`: straight where it is page-locked,
    /// else through `staging` (both copies queued at once, then moved in).
    fn read_result(&mut self) -> Result<()> {
        let n = self.n as usize;
        let t0 = Instant::now();
        let stream = self.gpu.stream();
        match &mut self.staging {
            None => {
                if n > 0 {
                    stream
                        .memcpy_dtoh(&self.depth, &mut self.result.depth[..])
                        .map_err(gpu_err)?;
                    stream
                        .memcpy_dtoh(&self.parent, &mut self.result.parent[..])
                        .map_err(gpu_err)?;
                }
                stream.synchronize().map_err(gpu_err)?;
            }
            Some([depth, parent]) => {
                self.gpu.read_pinned_meanwhile(
                    &mut [
                        (self.depth.as_view(), depth),
                        (self.parent.as_view(), parent),
                    ],
                    n,
                    || (),
                )?;
                copy(
                    &mut self.result.depth,
                    &depth.as_slice().map_err(gpu_err)?[..n],
                );
                copy(
                    &mut self.result.parent,
                    &parent.as_slice().map_err(gpu_err)?[..n],
                );
            }
        }
        if crate::settings::get().trace >= 1 {
            eprintln!(
                "host: {:.3} ms waiting for the GPU and copying the result back ({})",
                t0.elapsed().as_secs_f64() * 1e3,
                match self.staging {
                    None => "straight into page-locked memory",
                    Some(_) => "through a page-locked buffer",
                }
            );
        }
        Ok(())
    }
}

/// The tree [`GpuBfs::search`] lends: n entries, page-locked in place where the driver
/// agrees (the locks returned), else with page-locked buffers for the copies to go
/// through.
#[allow(clippy::type_complexity)]
fn result_tree(
    gpu: &Gpu,
    n: usize,
) -> Result<(BfsTree, Vec<Registered>, Option<[PinnedHostSlice<u32>; 2]>)> {
    let mut tree = BfsTree {
        source: 0,
        depth: premapped(n, UNREACHED),
        parent: premapped(n, 0),
    };
    let mut locked = Vec::new();
    for p in [tree.depth.as_mut_ptr(), tree.parent.as_mut_ptr()] {
        // SAFETY: the vectors are neither freed nor resized while the locks are held: the
        // caller keeps both in its `GpuBfs`, the locks dropped first.
        locked.extend(unsafe { gpu.register(p, n) });
    }
    if locked.len() == 2 {
        return Ok((tree, locked, None));
    }
    Ok((tree, Vec::new(), Some([gpu.pinned(n)?, gpu.pinned(n)?])))
}

/// Words of the bitmaps a warp of a bottom-up step takes at once (`batch` of
/// `bu_bits_step`): 32, one load each for its lanes, unless there are too few words for
/// every one of the `warps` to get two batches; then the largest power of two that gives
/// them that, at least 1: a small graph's words spread over every warp, a big graph's
/// loaded 32 at once.
fn bottom_up_batch(words: usize, warps: u32) -> u32 {
    let mut batch = 32u32;
    while batch > 1 && words / (batch as usize) < 2 * warps as usize {
        batch /= 2;
    }
    batch
}

/// `direction` of the kernels: 0 optimizing, 1 top-down, 2 bottom-up.
fn direction_code(d: Direction) -> u32 {
    match d {
        Direction::Optimizing => 0,
        Direction::TopDown => 1,
        Direction::BottomUp => 2,
    }
}

/// The hub threshold: the out-degree of the [`HUB_CACHE`]-th best connected vertex, so
/// that at most that many vertices lie above it.
fn hub_threshold(out: &Csr) -> u64 {
    let mut degrees: Vec<u64> = (0..out.num_vertices() as u32)
        .map(|v| out.degree(v))
        .collect();
    if degrees.len() <= HUB_CACHE {
        return 0;
    }
    let k = degrees.len() - HUB_CACHE;
    *degrees.select_nth_unstable(k).1
}

/// A bitmap of `words` words (a bit per vertex, padding clear) of the vertices without an
/// arc in `incoming` (the in-arcs; for an undirected graph every arc): no search from
/// another vertex reaches them, so a search may count them visited from its start. A
/// Kronecker graph of scale 25 has 49% of them, which every bottom-up step would otherwise
/// scan, each a read of its row's bounds.
fn never_reached(incoming: &Csr, words: usize) -> Vec<u32> {
    let n = incoming.num_vertices();
    (0..words)
        .into_par_iter()
        .map(|w| {
            (0..32).fold(0u32, |bits, b| {
                let v = w * 32 + b;
                if v < n && incoming.degree(v as VertexId) == 0 {
                    bits | 1 << b
                } else {
                    bits
                }
            })
        })
        .collect()
}

/// Breadth-first search from `source` on `gpu`: uploads `g`, searches, and returns the
/// tree with the times. To search from many sources, keep a [`GpuBfs`] instead.
///
/// # Errors
/// As [`GpuBfs::new`] and [`GpuBfs::run`], and [`Error::InvalidArgument`] for bad CPU
/// options.
pub fn bfs(
    gpu: &Arc<Gpu>,
    g: &Graph,
    source: VertexId,
    opts: &GpuBfsOptions,
) -> Result<(BfsTree, GpuTimes)> {
    check_args(g, source, &BfsOptions::default())?;
    GpuBfs::new(gpu, g)?.run(source, opts)
}

const _: () = assert!(UNREACHED == u32::MAX && crate::graph::NO_VERTEX == u32::MAX);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions, Generator};

    /// `search` lends a tree equal to the CPU's depths and valid by the verifier, root
    /// after root (each search's copy must land, not the last one's), both where the
    /// tree is page-locked in place and through the page-locked buffers (forced here, as
    /// where the driver refuses the lock); `run_into` gives the same depths.
    #[test]
    fn searches_lend_their_tree_locked_or_staged() {
        let Some(gpu) = crate::cuda::test_gpu() else {
            return;
        };
        let gen = Generator::Kronecker {
            scale: 13,
            edge_factor: 8,
        };
        // Kronecker leaves vertices isolated: unreached from every root.
        let g = generate(&gen, &GenerateOptions::default()).unwrap();
        let n = g.num_vertices();
        let opts = GpuBfsOptions::default();
        let mut locked = GpuBfs::new(&gpu, &g).unwrap();
        assert!(
            locked.staging.is_none(),
            "the driver refused to lock the tree (a test of the staged path alone)"
        );
        let mut staged = GpuBfs::new(&gpu, &g).unwrap();
        staged._locked.clear();
        staged.staging = Some([gpu.pinned(n).unwrap(), gpu.pinned(n).unwrap()]);
        let roots = crate::bench::pick_sources(&g, 4, 5);
        let mut last = None;
        let mut into = BfsTree::default();
        for &s in &roots {
            let want = crate::bfs::bfs(&g, s, &BfsOptions::default()).unwrap();
            assert_ne!(
                last.as_ref(),
                Some(&want.depth),
                "two roots, the same depths"
            );
            for search in [&mut locked, &mut staged] {
                let (tree, times) = search.search(s, &opts).unwrap();
                assert_eq!(tree.source, s);
                assert_eq!(tree.depth, want.depth, "root {s}");
                crate::bfs::verify(&g, tree).unwrap_or_else(|e| panic!("root {s}: {e}"));
                assert!(times.total_seconds >= times.kernel_seconds);
                search.run_into(s, &opts, &mut into).unwrap();
                assert_eq!(into.depth, want.depth, "root {s}, run_into");
            }
            last = Some(want.depth);
        }
    }

    #[test]
    fn bottom_up_batches_leave_no_warp_idle() {
        // An H100's 8,448 warps: Kronecker 25, 22, and graphs smaller still.
        assert_eq!(bottom_up_batch(1 << 20, 8448), 32);
        assert_eq!(bottom_up_batch(1 << 17, 8448), 4);
        assert_eq!(bottom_up_batch(2 * 8448, 8448), 1);
        assert_eq!(bottom_up_batch(1, 8448), 1);
        assert_eq!(bottom_up_batch(0, 8448), 1);
        // Every batch it gives is a power of two up to 32 that still gives each warp two.
        for words in [1usize, 100, 40_000, 1 << 22] {
            let b = bottom_up_batch(words, 1000);
            assert!(b.is_power_of_two() && b <= 32);
            assert!(b == 1 || words / b as usize >= 2000);
        }
    }
}
