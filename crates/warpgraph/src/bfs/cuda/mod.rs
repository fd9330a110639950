//! Breadth-first search on an NVIDIA GPU: Enterprise, every technique switchable.
//!
//! **Computes** the same [`BfsTree`] as the CPU backend: identical depths, one valid parent
//! per reached vertex.
//!
//! **Method**: Enterprise (Liu and Huang, "Enterprise: breadth-first graph traversal on
//! GPUs", SC'15; seed 003), level-synchronous, kernels in `bfs.cu`. Each technique is a
//! switch in [`GpuBfsOptions`], and [`Variant`] names the cumulative steps of the paper's
//! ablation (its Fig. 13):
//! - `baseline`: a status array (depth per vertex) and one thread per vertex each level.
//! - `scheduling` (+ streamlined thread scheduling): each level first builds the frontier
//!   queue from the status array in two passes (count per block, exclusive scan, write)
//!   with no atomics and no duplicates, then gives a thread to each queued vertex.
//! - `balancing` (+ workload balancing): the queue is split by out-degree into four
//!   classes, below 32 arcs, 32-255, 256-65,536 and above, expanded by a thread, a warp,
//!   a block and the whole grid per vertex; one launch runs all four side by side.
//! - `direction` (+ direction optimisation): bottom-up steps once the frontier holds more
//!   than `gamma` (30%) of the graph's hub vertices, Enterprise's switch; back to top-down
//!   for the tail, when the frontier shrinks below `n / beta` (Beamer's rule). The first
//!   bottom-up queue (the unvisited vertices) comes from a scan of the status array in
//!   contiguous ranges, so it is sorted; each later one is the previous one less the
//!   vertices it just visited, compacted by the same count-scan-write passes.
//! - `enterprise` (+ hub cache): bottom-up steps first look an in-neighbour up in a
//!   shared-memory table of the frontier's hubs before reading its depth.
//!
//! Hubs are the vertices of out-degree above `tau`, the degree of the 4096th best
//! connected vertex, so that every hub fits the cache; a graph with no vertex above that
//! (a grid) has no hubs and stays top-down.
//!
//! The graph is uploaded once ([`GpuBfs::new`], which sizes everything first and refuses
//! what the GPU cannot hold) and every [`GpuBfs::run`] resets the state for its source.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{check_args, BfsOptions, BfsTree, Direction, UNREACHED};
use crate::cuda::{gpu_err, grid_for, Gpu, GpuTimes, KernelSource};
use crate::error::{Error, Result};
use crate::graph::{named_enum, Csr, Graph, VertexId};

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs",
    source: include_str!("bfs.cu"),
};

/// Entries of the bottom-up hub cache (`HUB_CACHE` in `bfs.cu`).
const HUB_CACHE: usize = 4096;
/// Threads per block of the per-vertex kernels.
const THREADS: u32 = 256;
/// Most blocks of a queue-generation pass (`bfs_scan` handles two per thread of 1024).
const MAX_CLASSIFY_BLOCKS: u32 = 2048;
/// Classes of a queue-generation pass (`NCLASS` in `bfs.cu`).
const NCLASS: usize = 5;

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
    /// bottom-up steps (needs `scheduling`).
    pub hub_cache: bool,
    /// Go bottom-up when the frontier holds more than this share of all hubs (0.3).
    pub gamma: f64,
    /// Back to top-down when the frontier, shrinking, holds fewer than `n / beta`
    /// vertices (18).
    pub beta: u32,
}

impl Default for GpuBfsOptions {
    fn default() -> Self {
        Variant::Enterprise.options()
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
    /// + the bottom-up hub cache: everything.
    #[default]
    Enterprise,
}

named_enum!(
    Variant,
    "GPU BFS variant",
    Variant::Baseline => "baseline",
    Variant::Scheduling => "scheduling",
    Variant::Balancing => "balancing",
    Variant::Direction => "direction",
    Variant::Enterprise => "enterprise"
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
            gamma: 0.3,
            beta: 18,
        }
    }
}

/// The compiled kernels.
struct Kernels {
    reset: CudaFunction,
    td_baseline: CudaFunction,
    bu_baseline: CudaFunction,
    classify: CudaFunction,
    scan: CudaFunction,
    td_expand: CudaFunction,
    bu_queue: CudaFunction,
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
    /// Queues: `qa`, `qb` (classified frontier or bottom-up queues), `hubs`.
    qa: CudaSlice<u32>,
    qb: CudaSlice<u32>,
    hubs: CudaSlice<u32>,
    /// Per-class, per-block counts of a queue-generation pass, then the totals.
    counts: CudaSlice<u32>,
    totals: CudaSlice<u32>,
    /// The baseline's "anything found" flag.
    flag: CudaSlice<u32>,
    /// Hubs have out-degree above this; `hubs_total` of them.
    tau: u64,
    hubs_total: u64,
    upload_seconds: f64,
}

/// Device bytes a search of `g` needs: the CSR (twice for a directed graph), depth and
/// parent, three queues of n vertices, and the counters.
pub fn bytes_needed(g: &Graph) -> u64 {
    let n = g.num_vertices() as u64;
    let csr = |c: &Csr| 8 * (c.num_vertices() as u64 + 1) + 4 * c.num_arcs();
    let graph = csr(g.out()) * if g.is_directed() { 2 } else { 1 };
    graph + 4 * n * 5 + 4 * (NCLASS as u64 * u64::from(MAX_CLASSIFY_BLOCKS) + 8)
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
            classify: f("bfs_classify")?,
            scan: f("bfs_scan")?,
            td_expand: f("bfs_td_expand")?,
            bu_queue: f("bfs_bu_queue")?,
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
        let tau = hub_threshold(g.out());
        let hubs_total = (0..n as u32).filter(|&v| g.out().degree(v) > tau).count() as u64;
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
            counts: gpu.zeros(NCLASS * MAX_CLASSIFY_BLOCKS as usize)?,
            totals: gpu.zeros(8)?,
            flag: gpu.zeros(1)?,
            tau,
            hubs_total,
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
    /// [`Error::InvalidArgument`] for a source out of range, `beta` of 0, or a technique
    /// without the `scheduling` it needs; [`Error::Gpu`] for a driver error.
    pub fn run(&mut self, source: VertexId, opts: &GpuBfsOptions) -> Result<(BfsTree, GpuTimes)> {
        if source >= self.n {
            return Err(Error::InvalidArgument(format!(
                "BFS source {source} is not a vertex: the graph has {} vertices",
                self.n
            )));
        }
        if opts.beta == 0 {
            return Err(Error::InvalidArgument("BFS beta must be at least 1".into()));
        }
        if !opts.scheduling
            && (opts.balancing || opts.hub_cache || opts.direction == Direction::Optimizing)
        {
            return Err(Error::InvalidArgument(
                "GPU BFS: workload balancing, the hub cache and direction optimisation \
                 need the frontier queues (scheduling)"
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
        let n = self.n as usize;
        let depth = self.gpu.download(&self.depth, n)?;
        let parent = self.gpu.download(&self.parent, n)?;
        let times = timer.finish(&done)?;
        Ok((
            BfsTree {
                source,
                depth,
                parent,
            },
            times,
        ))
    }

    fn launch_reset(&mut self, source: u32) -> Result<()> {
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let mut b = self.gpu.stream().launch_builder(&self.k.reset);
        b.arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source);
        // SAFETY: the arguments match bfs_reset's parameters; depth and parent hold n
        // elements (at least one).
        unsafe { b.launch(cfg(blocks, threads)) }.map_err(gpu_err)?;
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
            unsafe { b.launch(cfg(blocks, threads)) }.map_err(gpu_err)?;
            if self.gpu.download(&self.flag, 1)?[0] == 0 {
                break;
            }
        }
        Ok(())
    }

    /// One queue-generation pass (count, scan, write) over `len` items: the vertices
    /// 0..len when `list` is `None`, else the queue `list` (`qa`, read while `qb` is
    /// written). Returns the totals: classes 0-4, then classes 0-3 together.
    fn classify(
        &mut self,
        mode: u32,
        from_qa: bool,
        len: u32,
        level: u32,
        balance: bool,
    ) -> Result<[u32; 6]> {
        if len == 0 {
            return Ok([0; 6]);
        }
        let stream = self.gpu.stream().clone();
        let blocks = len.div_ceil(THREADS).min(MAX_CLASSIFY_BLOCKS);
        let chunk = len.div_ceil(blocks).div_ceil(THREADS) * THREADS;
        let blocks = len.div_ceil(chunk);
        let use_list = u32::from(from_qa);
        let balance = u32::from(balance);
        for write in [0u32, 1] {
            let (list, out) = if from_qa {
                (&self.qa, &mut self.qb)
            } else {
                // Reading qb is harmless here: use_list == 0 means it is never read.
                (&self.qb, &mut self.qa)
            };
            let mut b = stream.launch_builder(&self.k.classify);
            b.arg(&mode)
                .arg(&write)
                .arg(list)
                .arg(&use_list)
                .arg(&len)
                .arg(&chunk)
                .arg(&self.depth)
                .arg(&self.out.0)
                .arg(&level)
                .arg(&self.tau)
                .arg(&balance)
                .arg(&mut self.counts)
                .arg(out)
                .arg(&mut self.hubs);
            // SAFETY: the arguments match bfs_classify. `blocks * NCLASS` counts fit
            // (blocks <= MAX_CLASSIFY_BLOCKS); items are vertices < n; every output list
            // holds n entries and no vertex is written twice to one list.
            unsafe { b.launch(cfg(blocks, THREADS)) }.map_err(gpu_err)?;
            if write == 0 {
                let mut s = stream.launch_builder(&self.k.scan);
                s.arg(&mut self.counts).arg(&blocks).arg(&mut self.totals);
                // SAFETY: the arguments match bfs_scan, launched with 1024 threads as it
                // expects; counts holds NCLASS * blocks entries, totals 8.
                unsafe { s.launch(cfg(1, 1024)) }.map_err(gpu_err)?;
            }
        }
        let t = self.gpu.download(&self.totals, 6)?;
        Ok([t[0], t[1], t[2], t[3], t[4], t[5]])
    }

    /// Search with frontier queues: top-down steps over classified queues, and (with
    /// direction optimisation or forced bottom-up) bottom-up steps over the queue of
    /// unvisited vertices.
    fn search_queued(&mut self, opts: &GpuBfsOptions) -> Result<()> {
        let n = self.n;
        let mut level = 0u32;
        let mut bottom_up = false;
        // The bottom-up queue (in qa) and its length; the frontier's hubs (in hubs).
        let mut pending = 0u32;
        let mut frontier_hubs = 0u32;
        let mut awake = 0u64;
        if opts.direction == Direction::BottomUp {
            let t = self.classify(1, false, n, level, false)?;
            (pending, frontier_hubs, bottom_up) = (t[0], t[4], true);
        }
        loop {
            if !bottom_up {
                let t = self.classify(0, false, n, level, opts.balancing)?;
                if t[5] == 0 {
                    break;
                }
                let gamma = if self.hubs_total == 0 {
                    0.0
                } else {
                    f64::from(t[4]) / self.hubs_total as f64
                };
                if opts.direction == Direction::Optimizing && gamma > opts.gamma {
                    // The explosion level: the unvisited vertices, in order, and the
                    // frontier's hubs, from one contiguous scan of the status array.
                    let frontier = u64::from(t[5]);
                    let t = self.classify(1, false, n, level, false)?;
                    (pending, frontier_hubs, bottom_up) = (t[0], t[4], true);
                    awake = frontier;
                    continue;
                }
                self.launch_td_expand([t[0], t[1], t[2], t[3]], level)?;
                level += 1;
            } else {
                if pending == 0 {
                    break;
                }
                self.launch_bu(pending, frontier_hubs, opts.hub_cache, level)?;
                level += 1;
                // The new queue: the old one less what this step visited; and the hubs
                // it visited (the next frontier's).
                let t = self.classify(1, true, pending, level, false)?;
                let found = u64::from(pending - t[0]);
                std::mem::swap(&mut self.qa, &mut self.qb);
                (pending, frontier_hubs) = (t[0], t[4]);
                if found == 0 {
                    break;
                }
                let shrinking = found < awake;
                awake = found;
                if opts.direction == Direction::Optimizing
                    && shrinking
                    && found < u64::from(n / opts.beta)
                {
                    bottom_up = false;
                }
            }
        }
        Ok(())
    }

    /// The fused top-down expansion of a classified frontier (sizes per class).
    fn launch_td_expand(&mut self, c: [u32; 4], level: u32) -> Result<()> {
        let warps_per_block = THREADS / 32;
        let b1 = c[0].div_ceil(THREADS);
        let b2 = b1 + c[1].div_ceil(warps_per_block);
        let b3 = b2 + c[2];
        let grid_blocks = if c[3] > 0 {
            4 * self.gpu.info().multiprocessors
        } else {
            0
        };
        let blocks = b3 + grid_blocks;
        if blocks == 0 {
            return Ok(());
        }
        let stream = self.gpu.stream().clone();
        let mut b = stream.launch_builder(&self.k.td_expand);
        b.arg(&self.qa)
            .arg(&c[0])
            .arg(&c[1])
            .arg(&c[2])
            .arg(&c[3])
            .arg(&b1)
            .arg(&b2)
            .arg(&b3)
            .arg(&self.out.0)
            .arg(&self.out.1)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level);
        // SAFETY: the arguments match bfs_td_expand; qa holds the c[0] + .. + c[3] queued
        // frontier vertices that the last classify wrote.
        unsafe { b.launch(cfg(blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// One bottom-up step over the `len` unvisited vertices in qa.
    fn launch_bu(&mut self, len: u32, hubs: u32, cache: bool, level: u32) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(len), THREADS);
        // Enough blocks to fill the GPU, few enough that loading the cache stays cheap.
        let blocks = blocks.min(8 * self.gpu.info().multiprocessors);
        let cache = u32::from(cache);
        let (roff, rtgt) = match &self.incoming {
            Some(inc) => inc,
            None => &self.out,
        };
        let mut b = stream.launch_builder(&self.k.bu_queue);
        b.arg(&self.qa)
            .arg(&len)
            .arg(&self.hubs)
            .arg(&hubs)
            .arg(&cache)
            .arg(roff)
            .arg(rtgt)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level);
        // SAFETY: the arguments match bfs_bu_queue; qa holds len vertices, hubs holds
        // `hubs` vertices.
        unsafe { b.launch(cfg(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
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

fn cfg(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
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
