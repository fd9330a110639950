//! Minimum spanning forests on an NVIDIA GPU.
//!
//! **Computes** the same [`SpanningForest`] as the CPU backend, edge for edge: the
//! minimum spanning forest under the family's total order `(weight, smaller endpoint,
//! larger endpoint)` (see the [family docs](super)).
//!
//! **Method**: Borůvka built from data-parallel primitives, after Vineet, Harish, Patidar
//! and Narayanan, "Fast minimum spanning tree for large graphs on the GPU" (HPG 2009),
//! with its rebuild replaced by filtering (kernels in `boruvka.cu`):
//! - **Keys.** Every arc's place in the order is one 64-bit word, `weight key << s | arc`
//!   (`s` = the bits of the largest arc index; the weight key is the weight's 32-bit
//!   order-preserving image, or its rank among the distinct weights when their spread is
//!   wider, computed on the host). Within a row arcs run in neighbour order and the
//!   canonical arcs `u -> v`, `u < v`, run in `(u, v)` order, so one 64-bit minimum is the
//!   paper's segmented minimum over `(weight, edge)`.
//! - **Round 1** is the paper's vertex-centric step: every vertex's lightest arc (a thread
//!   per row of at most 16 arcs, a warp per row up to 4,096, a block per longer row), then
//!   the successor graph: each vertex hooks onto its choice, and of a pair that chose each
//!   other (the paper's 2-cycles, `S(S(u)) = u`) the smaller id stays the root. Every
//!   hooking vertex's arc is a forest edge.
//! - **Pointer doubling** takes every vertex to its representative (`p = p[p]` until it
//!   stops changing; each thread doubles up to 8 steps per launch and raises a flag if it
//!   must go on, so a long chain costs a few more launches, never a wrong root).
//! - **Later rounds** are edge-centric, in place of the paper's relabelling and rebuild:
//!   a list of the edges between different components `(key, root a, root b)`, each
//!   undirected edge once. Each round offers every entry to both roots' minima (64-bit
//!   atomic minimum), hooks each root onto its chosen edge's other end (of a mutual pair the
//!   larger onto the smaller), pointer-jumps the roots of the round (a list kept without
//!   duplicates by a per-vertex round stamp) and filters the list: entries now inside one
//!   component are dropped for good, the others renamed to their roots, which is the
//!   paper's "remove self edges; keep the lightest of duplicate edges" done lazily. The
//!   loop ends when the list is empty.
//! - The forest is gathered as the keys of its edges' canonical arcs (a round-1 choice
//!   `u -> v`, `u > v`, looks up `v -> u` by binary search in `v`'s row); sorted, they are
//!   the documented order, and each names its edge's ends and weight. Both happen on the
//!   GPU too (`forest`: a radix sort, then a kernel that writes the ends
//!   and weights), and the host copies the result's arrays straight into its vectors.
//!
//! Directed graphs are symmetrised on the host first, as on the CPU. A graph of more than
//! 2^31 arcs is refused (the key packs the arc index in 31 bits).

mod forest;

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, LaunchArgs, PinnedHostSlice, PushKernelArg,
};
use rayon::prelude::*;

use super::order::{bits, with_arc_weights, ArcWeights, EdgeWeight};
use super::{symmetrise, SpanningForest};
use crate::cuda::{gpu_err, grid_for, launch_config, Gpu, GpuTimes, KernelSource};
use crate::error::{Error, Result};
use crate::graph::Graph;
use forest::ForestStage;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "mst",
    source: include_str!("boruvka.cu"),
};

/// Every kernel file of the MST (a test compiles each one).
pub const KERNEL_SOURCES: &[&KernelSource] = &[&KERNELS, &forest::KERNELS];

/// Threads per block of every kernel.
const THREADS: u32 = 256;
/// Rows of at most this many arcs are scanned by one thread (`THREAD_MAX` of the kernels).
const THREAD_MAX: u64 = 16;
/// Rows of at most this many arcs are scanned by one warp (`WARP_MAX` of the kernels).
const WARP_MAX: u64 = 4096;
/// Pointer-jumping launches between two looks at the flag.
const JUMPS_PER_CHECK: usize = 2;
/// The control words (`CTL_*` of the kernels).
const CTL_FLAG: usize = 0;
const CTL_FOREST: usize = 1;
const CTL_EDGES: usize = 2;
const CTL_ROOTS: usize = 4;
const CTL_WORDS: usize = 6;

/// The compiled kernels.
struct Kernels {
    choose: [CudaFunction; 3],
    first_hook: CudaFunction,
    jump: CudaFunction,
    edges: [CudaFunction; 3],
    hook: CudaFunction,
    filter: CudaFunction,
}

/// What one GPU run did beside the forest.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MstStats {
    /// Kernel and end-to-end times (graph upload excluded).
    pub times: GpuTimes,
    /// Borůvka rounds, the vertex-centric first one included.
    pub rounds: u32,
    /// Pointer-jumping launches in all.
    pub jumps: u32,
    /// Seconds of GPU time (CUDA events) that sorting and naming the forest's edges took
    /// after the rounds: part of `times.kernel_seconds`.
    pub forest_seconds: f64,
    /// Seconds from the last kernel's end (waited for) until the forest was on the host
    /// (for float weights the host's sum of the total runs meanwhile).
    pub copy_seconds: f64,
    /// Seconds the host then took to finish the result (its share of the call after the
    /// copies).
    pub host_seconds: f64,
}

/// Device memory Borůvka needs for `g`, in bytes (the graph, the weight keys, the
/// per-vertex arrays and two lists of the canonical edges at 16 bytes each; the weights
/// themselves and the sort's counts, for the forest's last steps). A directed graph counts
/// as its symmetrised copy would (each arc in both rows).
pub fn bytes_needed(g: &Graph) -> u64 {
    let n = g.num_vertices() as u64;
    let arcs = g.out().num_arcs() * if g.is_directed() { 2 } else { 1 };
    let weight_bytes = g.weight_type().size() as u64;
    let weighted = u64::from(weight_bytes > 0);
    8 * (n + 1)
        + 4 * arcs
        + 4 * arcs * weighted
        + 9 * 4 * n
        + 2 * 16 * (arcs / 2 + 1)
        + 64
        + forest::bytes_needed(n, arcs, weight_bytes)
}

/// The graph on the GPU as the row kernels read it.
struct DeviceRows {
    n: u32,
    shift: u32,
    weighted: u32,
    off: CudaSlice<u64>,
    tgt: CudaSlice<u32>,
    keys: CudaSlice<u32>,
    /// The rows of more than `THREAD_MAX` arcs (warp) and of more than `WARP_MAX` (block).
    warp_rows: (CudaSlice<u32>, u32),
    block_rows: (CudaSlice<u32>, u32),
}

impl DeviceRows {
    /// Launches the row kernel `kernel` for row class `class` (0: a thread, 1: a warp, 2:
    /// a block per row; nothing when the class has no rows): the graph's arguments, the
    /// class's list for the warp and block kernels, then those `rest` pushes.
    fn launch_class<'a>(
        &'a self,
        stream: &'a CudaStream,
        kernel: &'a CudaFunction,
        class: usize,
        rest: impl FnOnce(&mut LaunchArgs<'a>),
    ) -> Result<()> {
        let (blocks, list) = match class {
            0 => (grid_for(u64::from(self.n), THREADS).0, None),
            1 => (
                grid_for(32 * u64::from(self.warp_rows.1), THREADS).0,
                Some(&self.warp_rows),
            ),
            _ => (self.block_rows.1, Some(&self.block_rows)),
        };
        if list.map_or(self.n, |l| l.1) == 0 {
            return Ok(());
        }
        let mut b = stream.launch_builder(kernel);
        b.arg(&self.off)
            .arg(&self.tgt)
            .arg(&self.keys)
            .arg(&self.weighted)
            .arg(&self.shift)
            .arg(&self.n);
        if let Some((list, count)) = list {
            b.arg(list).arg(count);
        }
        rest(&mut b);
        // SAFETY: the graph's arguments and the list match the parameters every row kernel
        // (mst_choose_*, mst_edges_*) starts with, and `rest` pushes the others; every index
        // a kernel uses is below the lengths allocated in `GpuMst::new`.
        unsafe { b.launch(launch_config(blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }
}

/// A graph uploaded for Borůvka on one GPU, with its working memory, to run many times.
pub struct GpuMst<'g> {
    gpu: Arc<Gpu>,
    k: Kernels,
    /// The graph it was made for (everything the runs read is on the GPU).
    graph: std::marker::PhantomData<&'g Graph>,
    rows: DeviceRows,
    best: CudaSlice<u64>,
    parent: CudaSlice<u32>,
    stamp: CudaSlice<u32>,
    roots: [CudaSlice<u32>; 2],
    /// Entries of 16 bytes (two words each), two lists.
    edges: [CudaSlice<u64>; 2],
    /// The forest's edges as the keys of their canonical arcs.
    forest: CudaSlice<u64>,
    /// The forest's sort and naming.
    stage: ForestStage,
    ctl: CudaSlice<u32>,
    ctl_host: PinnedHostSlice<u32>,
    upload_seconds: f64,
}

impl<'g> GpuMst<'g> {
    /// Prepares `g` on `gpu`: the weight keys (on the host), the row classes, the upload
    /// and the working memory, after checking that it fits.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (needed vs free device memory) when it does not fit;
    /// [`Error::Unsupported`] for more than 2^31 arcs; [`Error::Gpu`] for a driver or
    /// compile error.
    pub fn new(gpu: &Arc<Gpu>, g: &'g Graph) -> Result<GpuMst<'g>> {
        let start = Instant::now();
        gpu.check_memory(
            || {
                format!(
                    "Borůvka on a graph of {} vertices and {} arcs",
                    g.num_vertices(),
                    g.out().num_arcs()
                )
            },
            bytes_needed(g),
        )?;
        let symmetric = if g.is_directed() {
            Some(symmetrise(g)?)
        } else {
            None
        };
        let h = symmetric.as_ref().unwrap_or(g);
        let out = h.out();
        let (n, arcs) = (h.num_vertices(), out.num_arcs());
        if arcs > 1 << 31 {
            return Err(Error::Unsupported(format!(
                "MST on the GPU handles at most 2^31 arcs; this graph has {arcs}: use --device cpu"
            )));
        }
        let shift = bits(arcs.saturating_sub(1));
        let keys = with_arc_weights!(out.weights(), w => weight_keys(w, arcs as usize));
        let top = keys.as_ref().and_then(|k| k.par_iter().max().copied());
        let key_bits = shift + bits(top.map_or(0, u64::from));
        let f = |name| gpu.function(&KERNELS, name);
        let k = Kernels {
            choose: [
                f("mst_choose_thread")?,
                f("mst_choose_warp")?,
                f("mst_choose_block")?,
            ],
            first_hook: f("mst_first_hook")?,
            jump: f("mst_jump")?,
            edges: [
                f("mst_edges_thread")?,
                f("mst_edges_warp")?,
                f("mst_edges_block")?,
            ],
            hook: f("mst_hook")?,
            filter: f("mst_filter")?,
        };
        let rows = |lo: u64, hi: u64| -> Vec<u32> {
            (0..n as u32)
                .into_par_iter()
                .filter(|&u| (lo + 1..=hi).contains(&(out.degree(u) as u64)))
                .collect()
        };
        let (warp_rows, block_rows) = (rows(THREAD_MAX, WARP_MAX), rows(WARP_MAX, u64::MAX));
        let list = |len: usize| gpu.zeros::<u32>(len);
        let canonical = arcs / 2 + 1;
        let mst = GpuMst {
            k,
            graph: std::marker::PhantomData,
            rows: DeviceRows {
                n: n as u32,
                shift,
                weighted: u32::from(keys.is_some()),
                off: gpu.upload(out.offsets())?,
                tgt: gpu.upload(out.targets())?,
                keys: gpu.upload(keys.as_deref().unwrap_or(&[0]))?,
                warp_rows: (gpu.upload(&warp_rows)?, warp_rows.len() as u32),
                block_rows: (gpu.upload(&block_rows)?, block_rows.len() as u32),
            },
            best: gpu.zeros(n)?,
            parent: list(n)?,
            stamp: list(n)?,
            roots: [list(n)?, list(n)?],
            edges: [
                gpu.zeros(2 * canonical as usize)?,
                gpu.zeros(2 * canonical as usize)?,
            ],
            forest: gpu.zeros(n)?,
            stage: ForestStage::new(gpu, out.weights(), n, key_bits)?,
            ctl: list(CTL_WORDS)?,
            ctl_host: gpu.pinned(CTL_WORDS)?,
            upload_seconds: 0.0,
            gpu: gpu.clone(),
        };
        gpu.stream().synchronize().map_err(gpu_err)?;
        Ok(GpuMst {
            upload_seconds: start.elapsed().as_secs_f64(),
            ..mst
        })
    }

    /// Seconds the preparation (keys, classes, upload, allocation) took.
    pub fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// The GPU this runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Runs Borůvka and returns the forest, identical to the CPU backend's, with the
    /// times and round counts.
    ///
    /// # Errors
    /// [`Error::Gpu`] for a driver error; [`Error::Overflow`] when the total does not fit;
    /// [`Error::VerificationFailed`] if the rounds do not end (a bug).
    pub fn run(&mut self) -> Result<(SpanningForest, MstStats)> {
        let timer = self.gpu.timer()?;
        let stream = self.gpu.stream().clone();
        let n = self.rows.n;
        stream.memset_zeros(&mut self.ctl).map_err(gpu_err)?;
        stream.memset_zeros(&mut self.stamp).map_err(gpu_err)?;
        let mut stats = MstStats {
            rounds: 1,
            ..Default::default()
        };

        // Round 1: every vertex's lightest arc, the hooks, the first jump to the roots.
        for (class, kernel) in self.k.choose.iter().enumerate() {
            self.rows.launch_class(&stream, kernel, class, |b| {
                b.arg(&mut self.best);
            })?;
        }
        {
            let (blocks, threads) = grid_for(u64::from(n), THREADS);
            let r = &self.rows;
            let mut b = stream.launch_builder(&self.k.first_hook);
            b.arg(&r.off)
                .arg(&r.tgt)
                .arg(&r.keys)
                .arg(&r.weighted)
                .arg(&self.best)
                .arg(&n)
                .arg(&r.shift)
                .arg(&mut self.parent)
                .arg(&mut self.forest)
                .arg(&mut self.ctl);
            // SAFETY: as above, for mst_first_hook.
            unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        }
        stats.jumps += self.jump(None, n)?;
        for (class, kernel) in self.k.edges.iter().enumerate() {
            // The list holds every canonical arc.
            self.rows.launch_class(&stream, kernel, class, |b| {
                b.arg(&self.parent)
                    .arg(&mut self.edges[0])
                    .arg(&mut self.best)
                    .arg(&mut self.stamp)
                    .arg(&mut self.roots[0])
                    .arg(&mut self.ctl);
            })?;
        }
        let mut counts = self.counts(0)?;

        // Later rounds, edge-centric, until no edge joins two components.
        let mut cur = 0;
        while counts.0 > 0 {
            stats.rounds += 1;
            if stats.rounds > 64 {
                return Err(Error::VerificationFailed(
                    "MST: Borůvka on the GPU did not finish in 64 rounds (a bug in warpgraph)"
                        .into(),
                ));
            }
            let next = 1 - cur;
            let (edges, count) = (counts.0, counts.1);
            let (blocks, threads) = grid_for(u64::from(edges), THREADS);
            let next32 = next as u32;
            {
                let mut b = stream.launch_builder(&self.k.hook);
                b.arg(&self.edges[cur])
                    .arg(&edges)
                    .arg(&self.best)
                    .arg(&mut self.parent)
                    .arg(&mut self.forest)
                    .arg(&mut self.ctl)
                    .arg(&next32);
                // SAFETY: as above, for mst_hook; `edges` entries are live in list `cur`.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            }
            stats.jumps += self.jump(Some(cur), count)?;
            {
                let round = stats.rounds;
                let [e0, e1] = &mut self.edges;
                let (from, to) = if cur == 0 { (&*e0, e1) } else { (&*e1, e0) };
                let mut b = stream.launch_builder(&self.k.filter);
                b.arg(from)
                    .arg(&edges)
                    .arg(&self.parent)
                    .arg(to)
                    .arg(&mut self.best)
                    .arg(&mut self.stamp)
                    .arg(&round)
                    .arg(&mut self.roots[next])
                    .arg(&mut self.ctl)
                    .arg(&next32);
                // SAFETY: as above, for mst_filter; the output list holds as many entries
                // as the input.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            }
            counts = self.counts(next)?;
            cur = next;
        }
        // The forest's edges, sorted and named on the GPU, then copied into the result.
        let forest_start = self.gpu.mark()?;
        let taken = counts.2;
        let [spare, out] = &mut self.edges;
        self.stage
            .queue(&self.gpu, &self.rows, &mut self.forest, spare, out, taken)?;
        let end = timer.kernels_done(&self.gpu)?;
        end.synchronize().map_err(gpu_err)?;
        stats.forest_seconds = f64::from(forest_start.elapsed_ms(&end).map_err(gpu_err)?) / 1e3;
        let host = Instant::now();
        let n = self.rows.n as usize;
        let (forest, copy) = self
            .stage
            .fetch(&self.gpu, &self.edges[1], taken as usize, n)?;
        stats.copy_seconds = copy;
        stats.host_seconds = host.elapsed().as_secs_f64() - copy;
        stats.times = timer.finish(&end)?;
        Ok((forest, stats))
    }

    /// Pointer-jumps the roots of list `list` (`count` of them; every vertex when `None`)
    /// until every one points at its representative. Returns the launches it took.
    fn jump(&mut self, list: Option<usize>, count: u32) -> Result<u32> {
        let stream = self.gpu.stream().clone();
        let all = u32::from(list.is_none());
        let (blocks, threads) = grid_for(u64::from(count), THREADS);
        let mut launches = 0;
        loop {
            for _ in 0..JUMPS_PER_CHECK {
                let mut b = stream.launch_builder(&self.k.jump);
                b.arg(&self.roots[list.unwrap_or(0)])
                    .arg(&count)
                    .arg(&all)
                    .arg(&mut self.parent)
                    .arg(&mut self.best)
                    .arg(&mut self.ctl);
                // SAFETY: as above, for mst_jump; the list holds `count` vertices.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
                launches += 1;
            }
            let flag = self
                .gpu
                .read_pinned(&self.ctl, CTL_WORDS, &mut self.ctl_host)?[CTL_FLAG];
            if flag == 0 {
                return Ok(launches);
            }
            if launches > 64 * JUMPS_PER_CHECK as u32 {
                return Err(Error::VerificationFailed(
                    "MST: pointer jumping on the GPU did not end (a bug in warpgraph)".into(),
                ));
            }
            stream
                .memset_zeros(&mut self.ctl.slice_mut(CTL_FLAG..CTL_FLAG + 1))
                .map_err(gpu_err)?;
        }
    }

    /// The lengths of edge list `slot`, of its root list and of the forest so far.
    fn counts(&mut self, slot: usize) -> Result<(u32, u32, u32)> {
        let ctl = self
            .gpu
            .read_pinned(&self.ctl, CTL_WORDS, &mut self.ctl_host)?;
        Ok((
            ctl[CTL_EDGES + slot],
            ctl[CTL_ROOTS + slot],
            ctl[CTL_FOREST],
        ))
    }
}

/// Every arc's 32-bit weight key (its order among the weights), or `None` when all arcs
/// weigh the same (the arc index alone then orders them).
fn weight_keys<A: ArcWeights>(w: A, arcs: usize) -> Option<Vec<u32>> {
    let (lo, hi) = (0..arcs)
        .into_par_iter()
        .map(|a| {
            let k = w.at(a).key();
            (k, k)
        })
        .reduce(|| (u64::MAX, 0), |x, y| (x.0.min(y.0), x.1.max(y.1)));
    if arcs == 0 || lo == hi {
        return None;
    }
    if hi - lo <= u64::from(u32::MAX) {
        return Some(
            (0..arcs)
                .into_par_iter()
                .map(|a| (w.at(a).key() - lo) as u32)
                .collect(),
        );
    }
    // Too wide to shift down: the rank among the distinct keys (fewer than 2^31).
    let mut distinct: Vec<u64> = (0..arcs).into_par_iter().map(|a| w.at(a).key()).collect();
    distinct.par_sort_unstable();
    distinct.dedup();
    Some(
        (0..arcs)
            .into_par_iter()
            .map(|a| distinct.partition_point(|&k| k < w.at(a).key()) as u32)
            .collect(),
    )
}

/// Borůvka's minimum spanning forest of `g` on `gpu`: uploads, runs, and returns the
/// forest (identical to [`cpu::boruvka`](super::cpu::boruvka)'s) with its statistics. To
/// run many times on one graph, keep a [`GpuMst`].
///
/// # Errors
/// As [`GpuMst::new`] and [`GpuMst::run`].
///
/// # Example
/// ```no_run
/// use warpgraph::mst::cuda;
/// use warpgraph::generate::{generate, GenerateOptions, Generator};
/// let g = generate(&Generator::Grid { rows: 512, cols: 512, remove: 0.0, shortcuts: 0 },
///     &GenerateOptions::default()).unwrap();
/// let gpu = warpgraph::cuda::Gpu::open(0).unwrap();
/// let (forest, stats) = cuda::boruvka(&gpu, &g).unwrap();
/// println!("{} edges in {} rounds, {:.3} ms", forest.edges.len(), stats.rounds,
///     stats.times.kernel_seconds * 1e3);
/// ```
pub fn boruvka(gpu: &Arc<Gpu>, g: &Graph) -> Result<(SpanningForest, MstStats)> {
    if g.num_vertices() == 0 {
        return crate::mst::cpu::boruvka(g).map(|f| (f, MstStats::default()));
    }
    GpuMst::new(gpu, g)?.run()
}
