//! Single-source shortest paths on an NVIDIA GPU.
//!
//! **Computes** the same [`SsspResult`] as the CPU backend: distances (`i64` for integer
//! and unweighted graphs, `f64` for float weights) and a shortest-path tree.
//!
//! **Method** (kernels in `sssp.cu`, each one cooperative launch for the whole search):
//! - `delta-stepping`: seed 000's Algorithm 3 as it describes it: a bucket index per
//!   vertex (insert, move and remove are one write), light phases while the least bucket
//!   refills and one heavy phase after, light and heavy told apart inside the relaxation,
//!   and request lists laid out by a prefix sum over the taken vertices' degrees with one
//!   thread per request. The width by the seed's three rules (`--delta-heuristic`) or
//!   given; by default the automatic width below.
//! - `dijkstra-parallel`, `auto` (non-negative weights): near-far buckets, our design. Vertices are settled bucket by bucket (width delta, Meyer and Sanders'
//!   order; Davidson et al.'s near/far split): the bucket's list is expanded, the vertices
//!   it lowers below the bucket's end forming the next list (each once, by a per-vertex
//!   stamp), until the list is empty; a scan of all distances then collects the next
//!   non-empty bucket. A thread relaxes four arcs at once, their atomic operations sent
//!   together step by step (the four minima, then the stamps of those lowered, then one
//!   atomic add per warp for all their list slots) rather than arc after arc: on an H100
//!   Kronecker 22 8.3 to 7.4 ms, uniform 2^22 11.3 to 10.4 ms. Lists are built by
//!   warp-aggregated appends; a vertex of fewer than
//!   32 arcs is expanded by a thread, up to 1,023 by a warp, and bigger ones as one flat
//!   range of arcs shared by the whole grid. `dijkstra-parallel` is seed 002's rule: a
//!   bucket as wide as the smallest arc weight settles every vertex within that width
//!   of the minimum at once (Crauser et al.).
//! - `auto` on road-like graphs ([`road_like`]: small degrees, arcs mostly between
//!   vertices of close numbers, as on a grid numbered row by row): owner-local near-far,
//!   our design. The same buckets, but each block (one per multiprocessor) owns a range
//!   of vertices and alone expands them, asynchronously within a bucket: local passes
//!   over its own list with block barriers only, a lowered vertex of another block sent
//!   to that block's inbox (a ring it takes in at its next local pass), a global count of
//!   listed and sent vertices telling every block when the bucket is done. Where the
//!   strips' distances fit in shared memory, a send is only an atomic minimum on the
//!   global copy of the distances, and each block polls its exposed vertices (those with
//!   an arc from another strip) in every pass; the bucket's closing scan catches what no
//!   poll saw. On a grid a wave crosses into another block's strip without waiting for a
//!   grid barrier.
//! - `bellman-ford-queue` (and `auto` with negative weights, and Johnson's potentials): the
//!   same kernel with one bucket of infinite width: a work-list of the vertices changed by
//!   the last pass, without duplicates, ordered in the spirit of SLF/LLL (our design):
//!   for its first min(n, 2^16) passes each pass first finds the list's mean and least
//!   distance, expands only the vertices at most max(mean, least) and carries the others
//!   to the next list unexpanded (small labels first, large ones last). A list always
//!   holds every vertex lowered and not expanded since, so a list still non-empty n
//!   passes after the last ordered one proves a negative cycle.
//! - `bellman-ford`: rounds over all vertices; those changed in the previous round relax
//!   their arcs; a round that changes nothing ends it, and n rounds that all change
//!   something prove a negative cycle.
//! - `dijkstra`: seed 000's Algorithm 1, one vertex settled per iteration: ExtractMin by a
//!   parallel reduction over all unsettled vertices (threads per block 128, 256, 512 or
//!   1024: [`GpuSssp::set_extract_min_threads`]; the seed found 512 best), then its arcs
//!   relaxed in parallel. Every iteration reads all n distances, O(n^2 / threads) in all:
//!   the seed's design, kept for the comparison, and slow on big graphs.
//! - `spmv-csr`, `spmv-ell`: seed 000's SpMV Bellman-Ford, a (min, +) product of the
//!   incoming-arc matrix with the distance vector per launch until one changes nothing;
//!   ELL is column-major, padded to the longest row, refused where that padding would
//!   exceed four times the arcs.
//!
//! With `WARPGRAPH_TRACE=1` ([`crate::settings`]) each search prints near-far's passes,
//! buckets and vertex expansions, and the host's time to copy and take apart the result,
//! to stderr; `=2` adds where the time goes: near-far's passes by list length,
//! owner-local's clocks per block.
//!
//! Distances are lowered with atomic minimum. Where every weight is a positive integer and
//! every distance fits 31 bits (weights 1..255 up to 8 million vertices), the near-far
//! kernel keeps each vertex's distance and parent in one 64-bit word lowered by one atomic
//! minimum: the parent comes out as the smallest u of a tight arc u -> v, the CPU
//! backend's rule, with no pass of its own. Otherwise parents are chosen from the final
//! distances on the GPU by that rule, so both backends give the same tree. When a chosen arc weighs 0 or less the
//! parents could form a cycle, and the host's breadth-first search over tight arcs (the
//! CPU backend's code) decides instead. A negative cycle is detected on the GPU; the cycle reported is then found by the
//! CPU's Bellman-Ford, so that it is the same one the CPU backend gives. A sum that does
//! not fit the distance type is an overflow error, never a wrong distance.
//!
//! `extract_min` holds seed 000's ExtractMin study (its Table 1) on the same reduction.

pub mod extract_min;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{sys, CudaFunction, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;

use super::cpu::{self, ArcWeights, Unit};
use super::{Algorithm, Delta, Potentials, ShortestPaths, SsspResult};
use crate::cuda::{gpu_err, grid_for, launch_config, Gpu, GpuTimes, KernelSource};
use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, Graph, VertexId, Weights};
use crate::par::premapped;

/// The kernels of `sssp.cu` for one weight type (`SSSP_ONLY_<suffix>` picks its
/// instantiation), and those that take no weights.
macro_rules! sssp_kernels {
    ($suffix:literal) => {
        KernelSource {
            name: concat!("sssp_", $suffix),
            source: concat!(
                "#define SSSP_ONLY_",
                $suffix,
                "\n#line 1 \"sssp.cu\"\n",
                include_str!("sssp.cu")
            ),
        }
    };
}

/// The kernels of this module, one module per weight type, so that a search compiles and
/// loads only its own: with all four types in one module, the driver's first compile of
/// it (PTX to machine code, once per machine) made a first `bench sssp` on a small graph
/// take 21.5-23.1 s on an H100's host; with one type, 5.1-6.2 s. Each also holds the
/// kernels that take no weights.
pub const KERNELS_I32: KernelSource = sssp_kernels!("i32");
/// See [`KERNELS_I32`].
pub const KERNELS_I64: KernelSource = sssp_kernels!("i64");
/// See [`KERNELS_I32`].
pub const KERNELS_F32: KernelSource = sssp_kernels!("f32");
/// See [`KERNELS_I32`].
pub const KERNELS_F64: KernelSource = sssp_kernels!("f64");

/// The kernels for the weight type `suffix` names (`i32`, `i64`, `f32` or `f64`, as the
/// kernels' names end).
pub(crate) fn kernels(suffix: &str) -> &'static KernelSource {
    match suffix {
        "i64" => &KERNELS_I64,
        "f32" => &KERNELS_F32,
        "f64" => &KERNELS_F64,
        _ => &KERNELS_I32,
    }
}

/// Threads per block of every kernel.
const THREADS: u32 = 256;
/// Resident blocks per multiprocessor for the cooperative launches.
const BLOCKS_PER_SM: u32 = 4;
/// Words of the barrier buffer (8 + BARRIER_FANIN of `common.cuh`).
const BARRIER_WORDS: usize = 8 + 16;

/// The weights on the GPU, and the suffix of the kernels for their type.
enum DeviceWeights {
    I32(CudaSlice<i32>),
    I64(CudaSlice<i64>),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
}

impl DeviceWeights {
    /// Uploads the weights `w` of `arcs` arcs (1 on each when unweighted), or with `pick`
    /// the weights of those arcs (an arc number each) in that order; and the kernels'
    /// suffix for the type.
    fn upload(
        gpu: &Gpu,
        w: &Weights,
        arcs: usize,
        pick: Option<&[u64]>,
    ) -> Result<(DeviceWeights, &'static str)> {
        // The weights as they are, or those picked (a copy).
        fn put<T: cudarc::driver::DeviceRepr + Copy + Default>(
            gpu: &Gpu,
            w: &[T],
            pick: Option<&[u64]>,
        ) -> Result<CudaSlice<T>> {
            match pick {
                None => gpu.upload(w),
                Some(p) => {
                    let picked: Vec<T> = p
                        .iter()
                        .map(|&a| w.get(a as usize).copied().unwrap_or_default())
                        .collect();
                    gpu.upload(&picked)
                }
            }
        }
        Ok(match w {
            Weights::None => {
                let len = pick.map_or(arcs, <[u64]>::len);
                (DeviceWeights::I32(gpu.upload(&vec![1i32; len])?), "i32")
            }
            Weights::I32(w) => (DeviceWeights::I32(put(gpu, w, pick)?), "i32"),
            Weights::I64(w) => (DeviceWeights::I64(put(gpu, w, pick)?), "i64"),
            Weights::F32(w) => (DeviceWeights::F32(put(gpu, w, pick)?), "f32"),
            Weights::F64(w) => (DeviceWeights::F64(put(gpu, w, pick)?), "f64"),
        })
    }

    /// Adds the weights to a kernel launch's arguments.
    fn push_to<'a>(&'a self, b: &mut cudarc::driver::LaunchArgs<'a>) {
        match self {
            DeviceWeights::I32(w) => b.arg(w),
            DeviceWeights::I64(w) => b.arg(w),
            DeviceWeights::F32(w) => b.arg(w),
            DeviceWeights::F64(w) => b.arg(w),
        };
    }
}

/// The kernels for one weight type.
struct Kernels {
    reset: CudaFunction,
    near_far: CudaFunction,
    rounds: CudaFunction,
    parents: CudaFunction,
    parents_init: CudaFunction,
    spmv_csr: CudaFunction,
    spmv_ell: CudaFunction,
    dijkstra: CudaFunction,
    buckets: CudaFunction,
    owned: CudaFunction,
    owned_shared: CudaFunction,
}

/// How a search runs.
#[derive(Clone, Copy)]
enum Method {
    /// Near-far buckets of this width (0: the work-list).
    NearFar(f64),
    /// Bellman-Ford rounds.
    Rounds,
    /// (min, +) products, over ELL when true.
    Spmv(bool),
    /// Seed 000's Dijkstra.
    Dijkstra,
    /// Seed 000's delta-stepping, buckets of this width.
    Buckets(f64),
    /// Owner-local near-far buckets of this width (road-like graphs).
    Owned(f64),
}

/// Owner-local near-far's state (sssp.cu's `owned`), allocated when first needed.
struct OwnedState {
    /// Its blocks: one per multiprocessor, OWNED_THREADS threads each.
    blocks: u32,
    istamp: CudaSlice<u32>,
    la: CudaSlice<u32>,
    lb: CudaSlice<u32>,
    inbox: CudaSlice<u32>,
    ictr: CudaSlice<u32>,
    /// The variant with each block's distances in shared memory (sssp.cu's
    /// `owned_shared`), where they fit with SHARED_HEAD list entries and the distances
    /// allow it.
    shared: Option<SharedStrips>,
}

/// Owner-local near-far's shared variant's own state.
struct SharedStrips {
    /// Bytes of dynamic shared memory before its lists' first entries.
    bytes: u32,
    /// Its exposed vertices and each block's offset into them (see [`exposed_vertices`]).
    exposed: CudaSlice<u32>,
    exposed_off: CudaSlice<u32>,
}

/// Threads per block of owner-local near-far.
const OWNED_THREADS: u32 = 1024;
/// The most blocks owner-local near-far runs (its lists are sized for them).
const OWNED_BLOCKS_MAX: u32 = 1024;
/// The list entries each block of owner-local near-far's shared variant keeps in shared
/// memory (the kernel takes the number from its shared memory's size).
const SHARED_HEAD: u32 = 1024;
/// Shared memory per such entry: a vertex in each of the two lists.
const HEAD_ENTRY_BYTES: u64 = 8;
/// Parts of the locality test of [`road_like`].
const ROAD_PARTS: usize = 128;

/// A CSR on the GPU: offsets, targets, weights.
type DeviceCsr = (CudaSlice<u64>, CudaSlice<u32>, DeviceWeights);

/// A graph on the GPU, ready for shortest-path searches from any number of sources.
pub struct GpuSssp {
    gpu: Arc<Gpu>,
    k: Kernels,
    n: u32,
    off: CudaSlice<u64>,
    tgt: CudaSlice<u32>,
    w: DeviceWeights,
    /// Distances, as the bits of `i64` or `f64`.
    dist: CudaSlice<u64>,
    /// List stamps (near-far) or round marks (rounds), per vertex.
    stamp: CudaSlice<u32>,
    qa: CudaSlice<u32>,
    qb: CudaSlice<u32>,
    big: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    barrier: CudaSlice<u32>,
    gmin: CudaSlice<u64>,
    flags: CudaSlice<u32>,
    passes: CudaSlice<u32>,
    blocks: u32,
    /// Dijkstra's per-block minima (distance bits and vertices), BLOCKS_PER_SM per
    /// multiprocessor, and its threads per block.
    block_key: CudaSlice<u64>,
    block_vertex: CudaSlice<u32>,
    extract_min_threads: u32,
    /// Seed 000's delta-stepping: its request layout (n + 1 entries, allocated when first
    /// needed) and its counters.
    reqidx: Option<CudaSlice<u64>>,
    words: CudaSlice<u32>,
    /// The largest arc weight (1 when unweighted).
    max_weight: f64,
    /// The smallest arc weight and whether some arc is negative.
    min_weight: Option<f64>,
    negative: bool,
    /// Whether near-far may keep (distance, parent) words: positive integer weights and
    /// every distance below 2^31 - 1.
    packable: bool,
    /// The second vector of the SpMV products.
    dist2: CudaSlice<u64>,
    changed: CudaSlice<u32>,
    changed_host: PinnedHostSlice<u32>,
    /// The incoming arcs of a directed graph and the ELL layout (indices, weights,
    /// width), uploaded when an SpMV variant first needs them.
    incoming: Option<DeviceCsr>,
    ell: Option<(CudaSlice<u32>, DeviceWeights, u32)>,
    owned: Option<OwnedState>,
    /// Whether owner-local near-far may keep each block's distances in shared memory, and
    /// whether the last search did.
    shared_strips: bool,
    ran_shared: bool,
    /// See [`GpuSssp::set_shared_head`].
    shared_head: u32,
    /// Whether `auto` runs owner-local near-far: forced, or (None) where [`road_like`]
    /// (worked out when `auto` first asks).
    owner_local: Option<bool>,
    road_like: Option<bool>,
    dist_host: PinnedHostSlice<u64>,
    parent_host: PinnedHostSlice<u32>,
    flags_host: PinnedHostSlice<u32>,
    upload_seconds: f64,
}

/// Device bytes a search of `g` needs: the CSR with its weights, two distance vectors,
/// stamps, parents, three lists of n vertices, the counters and Dijkstra's block minima
/// (12 bytes for each of up to 1,024 blocks). What [`GpuSssp::new`] checks against the free
/// memory before it allocates; the SpMV variants and delta-stepping add to it
/// ([`bytes_needed_for`]).
///
/// ```
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 3 vertices, 2 arcs with i32 weights: the CSR 8 * 4 + 8 * 2, the per-vertex state
/// // 36 * 3, the counters 256 and the block minima 12 * 1024.
/// let e = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::I32(vec![5, 7].into())).unwrap();
/// let g = e.build(&BuildOptions::default()).unwrap();
/// assert_eq!(warpgraph::sssp::cuda::bytes_needed(&g), 48 + 108 + 256 + 12 * 1024);
/// ```
pub fn bytes_needed(g: &Graph) -> u64 {
    let n = g.num_vertices() as u64;
    csr_bytes(g.out()) + 16 * n + 4 * n * 5 + 4 * 64 + 12 * 1024
}

/// Device bytes a search of `g` by `algorithm` holds once it ran: [`bytes_needed`], plus
/// delta-stepping's request layout (8 bytes for each of n + 1 vertices), plus for the SpMV
/// variants the incoming arcs of a directed graph and, for `spmv-ell`, the padded ELL
/// layout. The same figures the search checks against the free memory before it
/// allocates them.
///
/// # Errors
/// [`Error::InvalidArgument`] where `spmv-ell` refuses the graph (its padding explodes).
pub fn bytes_needed_for(g: &Graph, algorithm: &Algorithm) -> Result<u64> {
    let extra = match algorithm {
        Algorithm::DeltaStepping(_) => requests_bytes(g.num_vertices() as u64),
        Algorithm::SpmvCsr => incoming_bytes(g),
        Algorithm::SpmvEll => incoming_bytes(g) + ell_bytes(g)?,
        Algorithm::Auto if road_like(g.out()) => owned_bytes(g.num_vertices() as u64),
        _ => 0,
    };
    Ok(bytes_needed(g) + extra)
}

/// Bytes of one arc's weight on the device (4 for unweighted graphs: a placeholder array).
fn weight_bytes(w: &Weights) -> u64 {
    match w {
        Weights::None | Weights::I32(_) | Weights::F32(_) => 4,
        Weights::I64(_) | Weights::F64(_) => 8,
    }
}

/// Device bytes of `csr` uploaded: offsets, targets and weights.
fn csr_bytes(csr: &Csr) -> u64 {
    8 * (csr.num_vertices() as u64 + 1) + (4 + weight_bytes(csr.weights())) * csr.num_arcs()
}

/// Device bytes of the incoming arcs the SpMV variants upload for a directed graph (an
/// undirected one uses its out-arcs: none).
fn incoming_bytes(g: &Graph) -> u64 {
    if g.is_directed() {
        csr_bytes(g.incoming())
    } else {
        0
    }
}

/// Device bytes of `spmv-ell`'s layout of the incoming arcs (an index and a weight per
/// entry, padding included), or its refusal.
fn ell_bytes(g: &Graph) -> Result<u64> {
    let inc = g.incoming();
    Ok((4 + weight_bytes(inc.weights())) * cpu::ell_plan(inc)? as u64)
}

/// Device bytes of owner-local near-far's state for `n` vertices: a second stamp per
/// vertex, two local lists (n plus a block's worth each), the inbox rings (twice that)
/// and their tails; and the shared variant's exposed vertices (at most n) and their
/// offsets.
fn owned_bytes(n: u64) -> u64 {
    8 * n + 16 * (n + u64::from(OWNED_BLOCKS_MAX)) + 8 * (u64::from(OWNED_BLOCKS_MAX) + 1)
}

/// Each strip's exposed vertices for owner-local near-far's shared variant (sssp.cu's
/// `owned_shared`): those with an arc from another strip (strips of `chunk` vertices), strip
/// by strip in order, with the offsets where each strip's start (`strips + 1`).
fn exposed_vertices(csr: &Csr, chunk: usize, strips: usize) -> (Vec<u32>, Vec<u32>) {
    let n = csr.num_vertices();
    let off = csr.offsets();
    let tgt = csr.targets();
    let exposed: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    (0..n).into_par_iter().for_each(|u| {
        for &v in &tgt[off[u] as usize..off[u + 1] as usize] {
            if v as usize / chunk != u / chunk {
                exposed[v as usize].store(true, Ordering::Relaxed);
            }
        }
    });
    let list: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .filter(|&v| exposed[v as usize].load(Ordering::Relaxed))
        .collect();
    // list is sorted: strip s's entries start at the first vertex of s or beyond.
    let offsets = (0..=strips)
        .map(|s| list.partition_point(|&v| (v as usize) < (s * chunk).min(n)) as u32)
        .collect();
    (list, offsets)
}

/// Whether `csr` is road-like, where `auto` runs owner-local near-far: non-negative
/// weights (the caller checks), at most 8 arcs per vertex on average and 64 at most, and
/// at least 3 in 4 arcs inside one of ROAD_PARTS equal ranges of vertex numbers (a grid
/// numbered row by row: 97% in 128 strips; Kronecker and uniform graphs: about 1%).
pub fn road_like(csr: &Csr) -> bool {
    let n = csr.num_vertices();
    let m = csr.num_arcs();
    if n == 0 || m > 8 * n as u64 {
        return false;
    }
    let off = csr.offsets();
    let tgt = csr.targets();
    let chunk = n.div_ceil(ROAD_PARTS);
    let (inside, widest) = (0..n)
        .into_par_iter()
        .map(|u| {
            let arcs = &tgt[off[u] as usize..off[u + 1] as usize];
            let inside = arcs
                .iter()
                .filter(|&&v| v as usize / chunk == u / chunk)
                .count();
            (inside as u64, arcs.len())
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    widest <= 64 && 4 * inside >= 3 * m
}

/// Device bytes of delta-stepping's request layout for `n` vertices.
fn requests_bytes(n: u64) -> u64 {
    8 * (n + 1)
}

impl GpuSssp {
    /// Uploads `g` to `gpu` and allocates the search state, after checking that it fits.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (needed vs free device memory) when it does not fit;
    /// [`Error::Gpu`] for a driver or compile error.
    pub fn new(gpu: &Arc<Gpu>, g: &Graph) -> Result<GpuSssp> {
        let n = g.num_vertices();
        let csr = g.out();
        gpu.check_memory(
            || {
                format!(
                    "shortest paths on a graph of {n} vertices and {} arcs",
                    csr.num_arcs()
                )
            },
            bytes_needed(g),
        )?;
        let start = Instant::now();
        let (w, suffix) = DeviceWeights::upload(gpu, csr.weights(), csr.targets().len(), None)?;
        let range = csr.weights().range_f64();
        let min_weight = range.map(|r| r.0);
        // The longest simple path weighs at most (n - 1) times the largest weight.
        let packable = match (csr.weights(), range) {
            (Weights::F32(_) | Weights::F64(_), _) => false,
            (_, Some((lo, hi))) => lo >= 1.0 && (n.max(1) - 1) as f64 * hi < PACKED_LIMIT,
            (_, None) => ((n.max(1) - 1) as f64) < PACKED_LIMIT,
        };
        let kernels = kernels(suffix);
        let f = |name: &str| gpu.function(kernels, &format!("{name}_{suffix}"));
        let k = Kernels {
            reset: f("sssp_reset")?,
            near_far: f("sssp_near_far")?,
            rounds: f("sssp_rounds")?,
            parents: f("sssp_parents")?,
            parents_init: gpu.function(kernels, "sssp_parents_init")?,
            spmv_csr: f("sssp_spmv_csr")?,
            spmv_ell: f("sssp_spmv_ell")?,
            dijkstra: f("sssp_dijkstra")?,
            buckets: f("sssp_buckets")?,
            owned: f("sssp_owned")?,
            owned_shared: f("sssp_owned_shared")?,
        };
        let per_sm = [&k.near_far, &k.rounds, &k.buckets]
            .iter()
            .map(|f| f.occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None))
            .try_fold(BLOCKS_PER_SM, |a, r| r.map(|b| a.min(b)))
            .map_err(gpu_err)?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "the SSSP kernels cannot run on this GPU: no block fits a multiprocessor".into(),
            ));
        }
        let s = GpuSssp {
            k,
            n: n as u32,
            off: gpu.upload(csr.offsets())?,
            tgt: gpu.upload(csr.targets())?,
            w,
            dist: gpu.zeros(n)?,
            stamp: gpu.zeros(n)?,
            qa: gpu.zeros(n)?,
            qb: gpu.zeros(n)?,
            big: gpu.zeros(n)?,
            parent: gpu.zeros(n)?,
            barrier: gpu.zeros(BARRIER_WORDS)?,
            gmin: gpu.zeros(4)?,
            flags: gpu.zeros(3)?,
            passes: gpu.zeros(3)?,
            blocks: per_sm * gpu.info().multiprocessors,
            block_key: gpu.zeros((BLOCKS_PER_SM * gpu.info().multiprocessors) as usize)?,
            block_vertex: gpu.zeros((BLOCKS_PER_SM * gpu.info().multiprocessors) as usize)?,
            extract_min_threads: EXTRACT_MIN_THREADS_DEFAULT,
            reqidx: None,
            words: gpu.zeros(8)?,
            max_weight: range.map_or(1.0, |r| r.1),
            negative: min_weight.is_some_and(|x| x < 0.0),
            min_weight,
            packable,
            dist2: gpu.zeros(n)?,
            changed: gpu.zeros(1)?,
            changed_host: gpu.pinned(1)?,
            incoming: None,
            ell: None,
            owned: None,
            shared_strips: true,
            shared_head: SHARED_HEAD,
            ran_shared: false,
            owner_local: None,
            road_like: None,
            dist_host: gpu.pinned(n.max(1))?,
            parent_host: gpu.pinned(n.max(1))?,
            flags_host: gpu.pinned(3)?,
            upload_seconds: 0.0,
            gpu: gpu.clone(),
        };
        gpu.stream().synchronize().map_err(gpu_err)?;
        Ok(GpuSssp {
            upload_seconds: start.elapsed().as_secs_f64(),
            ..s
        })
    }

    /// Seconds the upload and allocation took.
    pub fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// Sets the threads per block of `dijkstra`'s ExtractMin reduction: one of
    /// [`EXTRACT_MIN_THREADS`] (default 512, the seed's best).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another number.
    pub fn set_extract_min_threads(&mut self, threads: u32) -> Result<()> {
        check_extract_min_threads(threads)?;
        self.extract_min_threads = threads;
        Ok(())
    }

    /// For tests: whether `auto` (non-negative weights) runs owner-local near-far. `None`
    /// (the default, and what every search outside the tests gets) runs it where the graph
    /// is [`road_like`]; `Some` forces it on or off, so that graphs too small to be
    /// road-like cover its kernels.
    #[doc(hidden)]
    pub fn set_owner_local(&mut self, owner_local: Option<bool>) {
        self.owner_local = owner_local;
    }

    /// For tests: whether owner-local near-far may keep each block's distances in its
    /// shared memory. By default (`true`) it does wherever they fit (about 50,000 vertices
    /// a block, so graphs of up to 6 to 7 million vertices on an H100 or H200) and every
    /// distance fits 31 bits with positive integer weights, and keeps them in global memory
    /// elsewhere; `false` makes a small graph cover the global-memory kernel. The result is
    /// the same either way.
    #[doc(hidden)]
    pub fn set_shared_strips(&mut self, on: bool) {
        self.shared_strips = on;
    }

    /// How many of each list's entries owner-local near-far's shared variant keeps in
    /// shared memory (at least 1, at most the default of 1,024; the others are in global
    /// memory). For tests: fewer make them cover both places.
    #[doc(hidden)]
    pub fn set_shared_head(&mut self, entries: u32) {
        self.shared_head = entries.clamp(1, SHARED_HEAD);
    }

    /// Whether the last search ran owner-local near-far with its distances in shared
    /// memory (for tests).
    #[doc(hidden)]
    pub fn ran_shared_strips(&self) -> bool {
        self.ran_shared
    }

    /// Shortest paths from `source` (an internal id) of `g` (the graph given to
    /// [`GpuSssp::new`]) by `algorithm`.
    ///
    /// # Errors
    /// As [`crate::sssp::sssp`]; and [`Error::InvalidArgument`] for a method without GPU
    /// code (`dijkstra`), [`Error::Gpu`] for a driver error.
    pub fn run(
        &mut self,
        g: &Graph,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(SsspResult, GpuTimes)> {
        cpu::check_inputs(g.out(), None, Some(source))?;
        let csr = g.out();
        macro_rules! typed {
            ($w:expr, $wrap:path) => {
                self.typed(g, $w, source, algorithm)
                    .map(|(p, t)| ($wrap(p), t))
            };
        }
        match csr.weights() {
            Weights::None => typed!(&Unit, SsspResult::Int),
            Weights::I32(w) => typed!(&w[..], SsspResult::Int),
            Weights::I64(w) => typed!(&w[..], SsspResult::Int),
            Weights::F32(w) => typed!(&w[..], SsspResult::Float),
            Weights::F64(w) => typed!(&w[..], SsspResult::Float),
        }
    }

    /// Johnson's potentials of `g` (the graph given to [`GpuSssp::new`]): the work-list
    /// Bellman-Ford (`bellman-ford-queue`'s kernel) from a virtual source joined to every
    /// vertex by an arc of weight 0, so it starts with every distance 0 and every vertex
    /// in the list. The same values as [`cpu::bellman_ford_potentials`] (shortest
    /// distances are unique).
    ///
    /// # Errors
    /// [`Error::NegativeCycle`] when the GPU proves one (the CPU's Bellman-Ford then names
    /// it, as the CPU backend would); [`Error::Overflow`] when a potential does not fit;
    /// [`Error::Gpu`] for a driver error.
    pub fn potentials(&mut self, g: &Graph) -> Result<(Potentials, GpuTimes)> {
        cpu::check_inputs(g.out(), None, None)?;
        macro_rules! typed {
            ($w:expr, $wrap:path) => {
                self.potentials_typed(g, $w).map(|(h, t)| ($wrap(h), t))
            };
        }
        match g.out().weights() {
            Weights::None => typed!(&Unit, Potentials::Int),
            Weights::I32(w) => typed!(&w[..], Potentials::Int),
            Weights::I64(w) => typed!(&w[..], Potentials::Int),
            Weights::F32(w) => typed!(&w[..], Potentials::Float),
            Weights::F64(w) => typed!(&w[..], Potentials::Float),
        }
    }

    fn potentials_typed<A: ArcWeights + ?Sized>(
        &mut self,
        g: &Graph,
        w: &A,
    ) -> Result<(Vec<A::D>, GpuTimes)>
    where
        A::D: GpuDistance,
    {
        let csr = g.out();
        let n = self.n as usize;
        if n == 0 {
            return Ok((Vec::new(), GpuTimes::default()));
        }
        let start = Instant::now();
        let timer = self.gpu.timer()?;
        self.launch_reset(EVERYWHERE, false)?;
        self.launch_near_far(A::D::device_delta(0.0), false, self.n)?;
        let done = timer.kernels_done(&self.gpu)?;
        let flags = self.gpu.read_pinned(&self.flags, 3, &mut self.flags_host)?;
        if flags[1] != 0 {
            // The GPU proved a cycle; the CPU's Bellman-Ford names it.
            return Err(cycle_named_by(cpu::potentials_with(csr, w)));
        }
        let bits = self.gpu.read_pinned(&self.dist, n, &mut self.dist_host)?;
        let h: Vec<A::D> = bits.par_iter().map(|&b| A::D::from_bits(b)).collect();
        if flags[0] != 0 {
            cpu::check_unrepresentable(csr, &h)?;
        }
        let mut times = timer.finish(&done)?;
        times.total_seconds = start.elapsed().as_secs_f64();
        Ok((h, times))
    }

    fn typed<A: ArcWeights + ?Sized>(
        &mut self,
        g: &Graph,
        w: &A,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(ShortestPaths<A::D>, GpuTimes)>
    where
        A::D: GpuDistance,
    {
        let csr = g.out();
        let refuse_negative = |name: &str| -> Result<()> {
            match self.negative {
                true => Err(cpu::first_negative(csr, w, name).unwrap_or_else(|| {
                    Error::InvalidArgument(format!("{name} needs non-negative weights"))
                })),
                false => Ok(()),
            }
        };
        let method = match algorithm {
            Algorithm::Dijkstra => {
                refuse_negative("dijkstra")?;
                Method::Dijkstra
            }
            Algorithm::DeltaStepping(delta) => {
                refuse_negative("delta-stepping")?;
                Method::Buckets(self.width(csr, w, *delta, AUTO_WIDTH)?)
            }
            Algorithm::DijkstraParallel => {
                refuse_negative("dijkstra-parallel")?;
                let width = super::parallel_width(self.min_weight);
                Method::NearFar(self.width(csr, w, Delta::Fixed(width), AUTO_WIDTH)?)
            }
            Algorithm::Auto if !self.negative => {
                let owned = match self.owner_local {
                    Some(x) => x,
                    None => *self.road_like.get_or_insert_with(|| road_like(csr)),
                };
                match owned {
                    true => {
                        // Prepared here (the only place that picks it), for its own width
                        // where the distances will be in shared memory.
                        self.prepare_owned(csr)?;
                        let factor = match self.shared_strip_bytes() {
                            Some(_) => OWNED_WIDTH,
                            None => AUTO_WIDTH,
                        };
                        Method::Owned(self.width(csr, w, Delta::Auto, factor)?)
                    }
                    false => Method::NearFar(self.width(csr, w, Delta::Auto, AUTO_WIDTH)?),
                }
            }
            Algorithm::Auto | Algorithm::BellmanFordQueue => Method::NearFar(0.0),
            Algorithm::BellmanFord => Method::Rounds,
            Algorithm::SpmvCsr => Method::Spmv(false),
            Algorithm::SpmvEll => Method::Spmv(true),
        };
        if let Method::Spmv(ell) = method {
            self.prepare_spmv(g, ell)?;
        }
        if let Method::Buckets(width) = method {
            self.prepare_buckets(width)?;
        }
        let shared = match method {
            Method::Owned(_) => self.shared_strip_bytes(),
            _ => None,
        };
        self.ran_shared = shared.is_some();
        let packed = self.packable && matches!(method, Method::NearFar(_) | Method::Owned(_));
        let start = Instant::now();
        let timer = self.gpu.timer()?;
        self.launch_reset(source, packed)?;
        let spmv_cycle = match method {
            Method::NearFar(width) => self
                .launch_near_far(A::D::device_delta(width), packed, 1)
                .map(|_| false)?,
            Method::Rounds => self.launch_rounds(source).map(|_| false)?,
            Method::Spmv(ell) => self.run_spmv(ell)?,
            Method::Dijkstra => self.launch_dijkstra().map(|_| false)?,
            Method::Buckets(width) => self
                .launch_buckets(A::D::device_delta(width))
                .map(|_| false)?,
            Method::Owned(width) => self
                .launch_owned(
                    A::D::device_delta(width),
                    packed,
                    source,
                    shared,
                    !g.is_directed(),
                )
                .map(|_| false)?,
        };
        // Parents on the GPU (meaningless, and ignored, when the search failed), unless
        // the words hold them.
        if !packed {
            self.launch_parents(source, !g.is_directed())?;
        }
        let done = timer.kernels_done(&self.gpu)?;
        // While the GPU works: the result's memory written once, in parallel, so that its
        // pages are mapped (a fresh allocation faults on first touch, which for 2^22
        // vertices cost the host more than the copy) before the words arrive.
        let n = self.n as usize;
        let mut dist = premapped(n, A::D::from_bits(0));
        let mut parent = premapped(n, 0u32);
        let flags = self.gpu.read_pinned(&self.flags, 3, &mut self.flags_host)?;
        let (overflow, cycle, cyclic_parents) =
            (flags[0] != 0, flags[1] != 0 || spmv_cycle, flags[2] != 0);
        let copied = Instant::now();
        let bits = self.gpu.read_pinned(&self.dist, n, &mut self.dist_host)?;
        let unpacked = Instant::now();
        match packed {
            true => dist
                .par_iter_mut()
                .zip(parent.par_iter_mut())
                .zip(bits.par_iter())
                .for_each(|((d, p), &b)| (*d, *p) = A::D::from_word(b)),
            false => dist
                .par_iter_mut()
                .zip(bits.par_iter())
                .for_each(|(d, &b)| *d = A::D::from_bits(b)),
        }
        if crate::settings::get().trace > 0 {
            eprintln!(
                "host: {:.3} ms from the start to the kernels' end (the result's memory \
                 mapped meanwhile), {:.3} ms copying the distances, {:.3} ms taking them apart",
                (copied - start).as_secs_f64() * 1e3,
                (unpacked - copied).as_secs_f64() * 1e3,
                unpacked.elapsed().as_secs_f64() * 1e3
            );
        }
        if cycle {
            // The GPU proved a cycle; the CPU's Bellman-Ford names it.
            return Err(cycle_named_by(cpu::bellman_ford_with(
                csr,
                w,
                !g.is_directed(),
                source,
            )));
        }
        if overflow {
            // A sum that did not fit was dropped: harmless unless a distance does not fit.
            cpu::check_unrepresentable(csr, &dist)?;
        }
        // A chosen arc of weight <= 0 could close a cycle of parents: then the host's
        // breadth-first search over tight arcs decides.
        // (Packed words held the parents.)
        if !packed && cyclic_parents {
            parent = cpu::derive_parents(csr, w, !g.is_directed(), &dist, source)?;
        } else if !packed {
            let p = self
                .gpu
                .read_pinned(&self.parent, n, &mut self.parent_host)?;
            crate::par::copy(&mut parent, p);
        }
        let mut times = timer.finish(&done)?;
        times.total_seconds = start.elapsed().as_secs_f64();
        Ok((
            ShortestPaths {
                source,
                dist,
                parent,
            },
            times,
        ))
    }

    /// The dynamic shared memory of owner-local near-far's shared variant, where it runs
    /// (after prepare_owned: where the strips fit and the words are packed, unless turned
    /// off).
    fn shared_strip_bytes(&self) -> Option<u32> {
        let strips = self.owned.as_ref()?.shared.as_ref()?.bytes;
        self.shared_strips
            .then(|| strips + HEAD_ENTRY_BYTES as u32 * self.shared_head)
    }

    /// The bucket width for `delta` on the GPU. The rules of seed 000 are the CPU's; the
    /// automatic one is the GPU's own: a GPU wants buckets far wider than 16 threads do.
    fn width<A: ArcWeights + ?Sized>(
        &self,
        csr: &crate::graph::Csr,
        w: &A,
        delta: Delta,
        factor: f64,
    ) -> Result<f64> {
        let delta = match delta {
            Delta::Auto => {
                let mean = cpu::resolve_delta(csr, w, Delta::Mean)?;
                let n = csr.num_vertices().max(1) as f64;
                let degree = (csr.targets().len() as f64 / n).max(1.0);
                let x = factor * mean / (degree * degree);
                // As a fixed width: integer distances round it (to at least 1).
                Delta::Fixed(x.max(f64::MIN_POSITIVE))
            }
            d => d,
        };
        cpu::resolve_delta(csr, w, delta)
    }

    fn launch_reset(&mut self, source: u32, packed: bool) -> Result<()> {
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let packed = u32::from(packed);
        let mut b = self.gpu.stream().launch_builder(&self.k.reset);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&self.n)
            .arg(&source)
            .arg(&packed)
            .arg(&mut self.qa)
            .arg(&mut self.barrier)
            .arg(&mut self.flags)
            .arg(&mut self.gmin);
        // SAFETY: the arguments match sssp_reset_*'s parameters: dist, stamp and qa hold
        // n (at least one) entries, the barrier BARRIER_WORDS, flags three, gmin four.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// The near-far kernel from the first `first` vertices of `qa` (as reset left them).
    fn launch_near_far(&mut self, delta: DeviceDelta, packed: bool, first: u32) -> Result<()> {
        let packed = u32::from(packed);
        let trace = crate::settings::get().trace;
        let stream = self.gpu.stream().clone();
        if trace > 0 {
            stream.memset_zeros(&mut self.passes).map_err(gpu_err)?;
        }
        // Trace level 2: each pass's clock and list length (see sssp.cu's near_far).
        let timeline: Option<CudaSlice<u64>> = match trace >= 2 {
            true => Some(self.gpu.zeros(2 + 2 * TIMELINE_CAP as usize)?),
            false => None,
        };
        let (null, cap) = (0u64, if timeline.is_some() { TIMELINE_CAP } else { 0 });
        let mut b = stream.launch_builder(&self.k.near_far);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist).arg(&mut self.stamp).arg(&self.n);
        match &delta {
            DeviceDelta::Int(x) => b.arg(x),
            DeviceDelta::Float(x) => b.arg(x),
        };
        b.arg(&packed)
            .arg(&first)
            .arg(&mut self.qa)
            .arg(&mut self.qb)
            .arg(&mut self.big)
            .arg(&mut self.barrier)
            .arg(&mut self.gmin)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        match &timeline {
            Some(t) => b.arg(t),
            None => b.arg(&null),
        };
        b.arg(&cap);
        // SAFETY: the arguments match sssp_near_far_*'s parameters (the weight and delta
        // types are the kernel's suffix); the lists hold n entries, the barrier
        // BARRIER_WORDS zeroed counters (reset zeroes the list counters). The cooperative
        // launch keeps every block resident for the grid barrier, within the occupancy
        // the driver reported.
        unsafe { b.launch_cooperative(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        if let Some(t) = &timeline {
            print_timeline(&stream.clone_dtoh(t).map_err(gpu_err)?);
        }
        if trace > 0 {
            let s = stream.clone_dtoh(&self.passes).map_err(gpu_err)?;
            eprintln!(
                "near-far: {} passes, {} buckets, {} expansions ({:.2} per vertex)",
                s[0],
                s[1],
                s[2],
                f64::from(s[2]) / f64::from(self.n.max(1)),
            );
        }
        Ok(())
    }

    /// Uploads what the SpMV variants need beyond the graph: the incoming arcs of a
    /// directed graph; with `ell`, the ELL layout (refused where the padding explodes).
    fn prepare_spmv(&mut self, g: &Graph, ell: bool) -> Result<()> {
        let inc = g.incoming();
        if g.is_directed() && self.incoming.is_none() {
            let m = inc.num_arcs();
            self.gpu.check_memory(
                || format!("the incoming arcs ({m}) for the SpMV products"),
                incoming_bytes(g),
            )?;
            let (w, _) =
                DeviceWeights::upload(&self.gpu, inc.weights(), inc.targets().len(), None)?;
            self.incoming = Some((
                self.gpu.upload(inc.offsets())?,
                self.gpu.upload(inc.targets())?,
                w,
            ));
        }
        if ell && self.ell.is_none() {
            self.gpu.check_memory(
                || "the ELL layout of the incoming arcs".into(),
                ell_bytes(g)?,
            )?;
            let layout = cpu::ell(inc)?;
            let (w, _) = DeviceWeights::upload(&self.gpu, inc.weights(), 0, Some(&layout.arc))?;
            self.ell = Some((self.gpu.upload(&layout.idx)?, w, layout.width as u32));
        }
        Ok(())
    }

    /// (min, +) products until one changes nothing, leaving the distances in `dist`;
    /// true when the n-th still changed something (a negative cycle).
    fn run_spmv(&mut self, ell: bool) -> Result<bool> {
        let mut cycle = false;
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        stream
            .memcpy_dtod(&self.dist, &mut self.dist2)
            .map_err(gpu_err)?;
        let mut in_first = true;
        for round in 1u64.. {
            stream.memset_zeros(&mut self.changed).map_err(gpu_err)?;
            let (din, dout) = if in_first {
                (&self.dist, &mut self.dist2)
            } else {
                (&self.dist2, &mut self.dist)
            };
            if ell {
                let (idx, w, width) = self.ell.as_ref().expect("prepared");
                let mut b = stream.launch_builder(&self.k.spmv_ell);
                b.arg(idx);
                w.push_to(&mut b);
                b.arg(width)
                    .arg(din)
                    .arg(dout)
                    .arg(&self.n)
                    .arg(&mut self.changed)
                    .arg(&mut self.flags);
                // SAFETY: matches sssp_spmv_ell_*; idx and w hold width * n entries, din
                // and dout n.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            } else {
                let (off, tgt, w) = match &self.incoming {
                    Some((o, t, w)) => (o, t, w),
                    None => (&self.off, &self.tgt, &self.w),
                };
                let mut b = stream.launch_builder(&self.k.spmv_csr);
                b.arg(off).arg(tgt);
                w.push_to(&mut b);
                b.arg(din)
                    .arg(dout)
                    .arg(&self.n)
                    .arg(&mut self.changed)
                    .arg(&mut self.flags);
                // SAFETY: matches sssp_spmv_csr_*; the CSR has n + 1 offsets, din and dout
                // n entries.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            }
            in_first = !in_first;
            let changed = self
                .gpu
                .read_pinned(&self.changed, 1, &mut self.changed_host)?[0];
            if changed == 0 {
                break;
            }
            if round >= u64::from(self.n) {
                cycle = true;
                break;
            }
        }
        if !in_first {
            // The last product wrote dist2.
            stream
                .memcpy_dtod(&self.dist2, &mut self.dist)
                .map_err(gpu_err)?;
        }
        Ok(cycle)
    }

    fn launch_parents(&mut self, source: u32, symmetric: bool) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let mut b = stream.launch_builder(&self.k.parents_init);
        b.arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&mut self.flags);
        // SAFETY: matches sssp_parents_init; parent holds n entries, flags three.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        let symmetric = u32::from(symmetric);
        let mut b = stream.launch_builder(&self.k.parents);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&self.dist)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&symmetric)
            .arg(&mut self.flags);
        // SAFETY: matches sssp_parents_*; dist and parent hold n entries (dist final).
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    fn launch_dijkstra(&mut self) -> Result<()> {
        let threads = self.extract_min_threads;
        let blocks =
            self.gpu
                .resident_grid(&self.k.dijkstra, "dijkstra", threads, BLOCKS_PER_SM)?;
        let stream = self.gpu.stream().clone();
        let mut b = stream.launch_builder(&self.k.dijkstra);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&self.n)
            .arg(&mut self.block_key)
            .arg(&mut self.block_vertex)
            .arg(&mut self.barrier)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        // SAFETY: the arguments match sssp_dijkstra_*'s parameters; stamp holds n zeroes
        // (reset), block_key and block_vertex BLOCKS_PER_SM entries per multiprocessor (at
        // least `blocks`), the barrier BARRIER_WORDS. Cooperative, within the occupancy the
        // driver reported for this block size.
        unsafe { b.launch_cooperative(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// Checks that every distance has a bucket number below 2^32 - 1 at this width, and
    /// allocates the request layout.
    fn prepare_buckets(&mut self, width: f64) -> Result<()> {
        let n = u64::from(self.n);
        let most = (n.max(1) - 1) as f64 * self.max_weight / width;
        if most >= f64::from(u32::MAX - 1) {
            return Err(Error::InvalidArgument(format!(
                "delta-stepping with width {width} could need {most:.3e} buckets, more than \
                 its bucket numbers hold (2^32 - 1): give a wider --delta, or use auto"
            )));
        }
        if self.reqidx.is_none() {
            self.gpu.check_memory(
                || format!("delta-stepping's request layout ({} entries)", n + 1),
                requests_bytes(n),
            )?;
            self.reqidx = Some(self.gpu.zeros(self.n as usize + 1)?);
        }
        Ok(())
    }

    fn launch_buckets(&mut self, delta: DeviceDelta) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let reqidx = self.reqidx.as_mut().expect("prepare_buckets allocated it");
        let mut b = stream.launch_builder(&self.k.buckets);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&mut self.big)
            .arg(&self.n);
        match &delta {
            DeviceDelta::Int(x) => b.arg(x),
            DeviceDelta::Float(x) => b.arg(x),
        };
        b.arg(&mut self.qa)
            .arg(&mut self.qb)
            .arg(reqidx)
            .arg(&mut self.block_key)
            .arg(&mut self.barrier)
            .arg(&mut self.words)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        // SAFETY: the arguments match sssp_buckets_*'s parameters (the weight and delta
        // types are the kernel's suffix): big (the bucket numbers), qa and qb (F and R)
        // hold n entries, reqidx n + 1, block_key at least `blocks`, words 8, the barrier
        // BARRIER_WORDS; stamp is zeroed and dist set by reset. Cooperative, as near_far.
        unsafe { b.launch_cooperative(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    fn prepare_owned(&mut self, csr: &Csr) -> Result<()> {
        if self.owned.is_some() {
            return Ok(());
        }
        let n = u64::from(self.n);
        self.gpu.check_memory(
            || format!("owner-local near-far's lists for {n} vertices"),
            owned_bytes(n),
        )?;
        let fits = self
            .k
            .owned
            .occupancy_max_active_blocks_per_multiprocessor(OWNED_THREADS, 0, None)
            .map_err(gpu_err)?;
        if fits == 0 {
            return Err(Error::Gpu(
                "owner-local near-far cannot run on this GPU: no block fits a multiprocessor"
                    .into(),
            ));
        }
        let blocks = self.gpu.info().multiprocessors.min(OWNED_BLOCKS_MAX);
        let list = self.n as usize + OWNED_BLOCKS_MAX as usize;
        self.owned = Some(OwnedState {
            blocks,
            istamp: self.gpu.zeros(self.n.max(1) as usize)?,
            la: self.gpu.zeros(list)?,
            lb: self.gpu.zeros(list)?,
            inbox: self.gpu.zeros(2 * list)?,
            ictr: self.gpu.zeros(OWNED_BLOCKS_MAX as usize)?,
            shared: None,
        });
        // The shared-memory variant: a block's distances (u32), two bitmaps of them and
        // its lists' first entries, below the block's limit less what the kernel declares
        // itself.
        let chunk = u64::from(self.n.div_ceil(blocks));
        let strips = 4 * (chunk + 2 * chunk.div_ceil(32));
        let bytes = strips + HEAD_ENTRY_BYTES * u64::from(SHARED_HEAD);
        let room = self.gpu.max_shared_per_block()?.saturating_sub(1024);
        if self.packable && bytes <= room {
            // The function is shared by every search of the process: always the same (most)
            // bytes allowed, so that no other graph's setting can undercut this one's.
            let f = &self.k.owned_shared;
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                room.min(i32::MAX as u64) as i32,
            )
            .map_err(gpu_err)?;
            let fits = f
                .occupancy_max_active_blocks_per_multiprocessor(OWNED_THREADS, bytes as usize, None)
                .map_err(gpu_err)?;
            if fits > 0 {
                let (list, offsets) = exposed_vertices(csr, chunk as usize, blocks as usize);
                let shared = SharedStrips {
                    bytes: strips as u32,
                    exposed: self.gpu.upload(&list)?,
                    exposed_off: self.gpu.upload(&offsets)?,
                };
                self.owned.as_mut().expect("made above").shared = Some(shared);
            }
        }
        Ok(())
    }

    fn launch_owned(
        &mut self,
        delta: DeviceDelta,
        packed: bool,
        source: u32,
        shared: Option<u32>,
        symmetric: bool,
    ) -> Result<()> {
        // (The shared variant always packs; in that place it takes whether the graph is
        // symmetric, to pull the parents.)
        let packed = match shared {
            Some(_) => u32::from(symmetric),
            None => u32::from(packed),
        };
        let level = crate::settings::get().trace;
        let trace = level > 0;
        let stream = self.gpu.stream().clone();
        if trace {
            stream.memset_zeros(&mut self.passes).map_err(gpu_err)?;
        }
        let o = self.owned.as_mut().expect("prepare_owned ran");
        // Trace level 2: each block's profile (see sssp.cu's owned).
        let prof: Option<CudaSlice<u64>> = match level >= 2 {
            true => Some(self.gpu.zeros(PROF_SLOTS * o.blocks as usize)?),
            false => None,
        };
        let null = 0u64;
        let mut b = stream.launch_builder(match shared {
            Some(_) => &self.k.owned_shared,
            None => &self.k.owned,
        });
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&mut o.istamp)
            .arg(&self.n);
        // The shared variant's distances are u32: a width beyond them is all one bucket.
        let delta = match (delta, shared) {
            (DeviceDelta::Int(x), Some(_)) => DeviceDelta::Int(x.clamp(1, i64::from(i32::MAX))),
            (d, _) => d,
        };
        match &delta {
            DeviceDelta::Int(x) => b.arg(x),
            DeviceDelta::Float(x) => b.arg(x),
        };
        b.arg(&packed).arg(&source).arg(&mut o.la).arg(&mut o.lb);
        match (&shared, &o.shared) {
            (Some(_), Some(s)) => b.arg(&s.exposed).arg(&s.exposed_off),
            _ => b.arg(&mut o.inbox).arg(&mut o.ictr),
        };
        b.arg(&mut self.barrier)
            .arg(&mut self.words)
            .arg(&mut self.gmin)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        match &prof {
            Some(p) => b.arg(p),
            None => b.arg(&null),
        };
        let cfg = LaunchConfig {
            shared_mem_bytes: shared.unwrap_or(0),
            ..launch_config(o.blocks, OWNED_THREADS)
        };
        // SAFETY: the arguments match sssp_owned_*'s and sssp_owned_shared_*'s parameters
        // (the weight and delta types are the kernel's suffix): stamps of n entries, lists
        // of n + OWNED_BLOCKS_MAX (at least blocks * ceil(n / blocks)), inbox rings twice
        // that, OWNED_BLOCKS_MAX tails, words 8, gmin 2 (reset made it infinite).
        // Cooperative: one block per multiprocessor, which the occupancy check in
        // prepare_owned allowed. owned_shared: `shared` bytes of dynamic shared memory,
        // which prepare_owned allowed (attribute) and checked (occupancy), its lists' first
        // entries (at least one: set_shared_head) past the strips, the kernel taking their
        // number from that size; its distances fit u32 (only where packable); in the
        // inbox's and tails' places its exposed vertices and blocks + 1 offsets into them
        // (prepare_owned made both for these blocks).
        unsafe { b.launch_cooperative(cfg) }.map_err(gpu_err)?;
        if trace {
            let s = stream.clone_dtoh(&self.passes).map_err(gpu_err)?;
            eprintln!(
                "owner-local near-far: {} local passes in block 0, {} buckets, {} expansions ({:.2} per vertex)",
                s[0],
                s[1],
                s[2],
                f64::from(s[2]) / f64::from(self.n.max(1)),
            );
        }
        if let Some(p) = &prof {
            let p = stream.clone_dtoh(p).map_err(gpu_err)?;
            let rows: Vec<&[u64]> = p.chunks(PROF_SLOTS).collect();
            let mean = |k: usize| rows.iter().map(|r| r[k] as f64).sum::<f64>() / rows.len() as f64;
            let max = |k: usize| rows.iter().map(|r| r[k]).max().unwrap_or(0);
            eprintln!(
                "owner-local profile (clocks, mean/max over blocks): local {:.0}/{} in {:.0}/{} local passes ({:.0} per pass), idle {:.0}/{}, scans {:.0}/{}",
                mean(0), max(0), mean(1), max(1), mean(0) / mean(1).max(1.0), mean(2), max(2), mean(3), max(3)
            );
            if shared.is_some() {
                eprintln!(
                    "owner-local (shared) pass: expansions done at {:.0}, polls at {:.0} clocks (mean of passes); {:.0} of {:.0} passes send ({:.0} clocks each, {:.0} without); idle laps {:.0}/{}, {:.0} of them polled work",
                    mean(4) / mean(1).max(1.0),
                    mean(5) / mean(1).max(1.0),
                    mean(6),
                    mean(1),
                    mean(7) / mean(6).max(1.0),
                    mean(10) / (mean(1) - mean(6)).max(1.0),
                    mean(8),
                    max(8),
                    mean(9)
                );
            }
        }
        Ok(())
    }

    fn launch_rounds(&mut self, source: u32) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let mut b = stream.launch_builder(&self.k.rounds);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&self.n)
            .arg(&source)
            .arg(&mut self.barrier)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        // SAFETY: the arguments match sssp_rounds_*'s parameters; stamp holds n entries
        // (the round marks), the barrier BARRIER_WORDS. Cooperative, as above.
        unsafe { b.launch_cooperative(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }
}

/// The threads per block `dijkstra`'s ExtractMin may use (seed 000's Table 1).
pub const EXTRACT_MIN_THREADS: [u32; 4] = [128, 256, 512, 1024];
/// The default: the seed's best.
pub const EXTRACT_MIN_THREADS_DEFAULT: u32 = 512;

/// Ok when `threads` is one of [`EXTRACT_MIN_THREADS`].
pub(crate) fn check_extract_min_threads(threads: u32) -> Result<()> {
    match EXTRACT_MIN_THREADS.contains(&threads) {
        true => Ok(()),
        false => Err(Error::InvalidArgument(format!(
            "{threads} threads per block: ExtractMin takes 128, 256, 512 or 1024"
        ))),
    }
}

/// The automatic GPU bucket width is `AUTO_WIDTH * mean weight / mean degree^2`: the
/// CPU's rule (`4 t w / d^2`) with the GPU's parallelism in place of `4 t`. Fitted on the
/// H200 (BENCHMARKS.md): best near 8 on Kronecker 22 with weights 1..255 (degree 31),
/// 2048 and more on a 2048 x 2048 grid (degree 4).
const AUTO_WIDTH: f64 = 256.0;
/// The same factor for `auto`'s owner-local near-far with its distances in shared memory
/// (road-like graphs), fitted at the code of 2026-11-22 (H200, grids of 2048 x 2048 and
/// 1024 x 1024: 192 against 128, 160, 224 and 256).
const OWNED_WIDTH: f64 = 192.0;

/// Profile slots a block of the owner-local kernels (sssp.cu's PROF_SLOTS).
const PROF_SLOTS: usize = 12;

/// Passes a near-far timeline records (`WARPGRAPH_TRACE=2`).
const TIMELINE_CAP: u32 = 1 << 17;

/// Prints a near-far timeline (sssp.cu's near_far): the passes by list length, with their
/// count, total and mean time, and the scans.
fn print_timeline(t: &[u64]) {
    let clocks: Vec<(u64, u64)> = t[2..].chunks(2).map(|c| (c[0], c[1])).collect();
    let used = clocks
        .iter()
        .position(|&(c, _)| c == 0)
        .unwrap_or(clocks.len());
    if used < 2 {
        return;
    }
    let span = clocks[used - 1].0.saturating_sub(clocks[0].0).max(1) as f64;
    let ns_per_clock = t[1].saturating_sub(t[0]) as f64 / span;
    let classes = ["scan", "1-15", "16-255", "256-4095", "4096-65535", "65536+"];
    let mut sum = [(0u64, 0f64); 6];
    for w in clocks[..used].windows(2) {
        let (c, what) = w[0];
        let ns = w[1].0.saturating_sub(c) as f64 * ns_per_clock;
        let k = match what {
            x if x >> 63 == 1 => 0,
            0..=15 => 1,
            16..=255 => 2,
            256..=4095 => 3,
            4096..=65535 => 4,
            _ => 5,
        };
        sum[k].0 += 1;
        sum[k].1 += ns;
    }
    eprintln!(
        "near-far timeline: {:.3} ms in all ({} passes recorded)",
        t[1].saturating_sub(t[0]) as f64 * 1e-6,
        used - 1
    );
    for (name, (count, ns)) in classes.iter().zip(sum) {
        if count > 0 {
            eprintln!(
                "  list {name:>10}: {count:>6} passes, {:>8.3} ms, {:>7.2} us each",
                ns * 1e-6,
                ns * 1e-3 / count as f64
            );
        }
    }
}

/// The error for a negative cycle the GPU proved: the one `cpu` (the CPU's Bellman-Ford on
/// the same graph) names, as the CPU backend reports it.
fn cycle_named_by<T>(cpu: Result<T>) -> Error {
    match cpu {
        Err(e) => e,
        Ok(_) => Error::Gpu(
            "the GPU found a negative cycle that the CPU's Bellman-Ford does not: please \
             report this"
                .into(),
        ),
    }
}

/// The source of a reset that starts from every vertex at distance 0 (`EVERYWHERE` of
/// `sssp.cu`): Johnson's virtual source.
const EVERYWHERE: u32 = u32::MAX;

/// Distances of packed words stay below this (2^31 - 1: the distance of INT64_MAX, the
/// kernels' infinity, as a word).
const PACKED_LIMIT: f64 = 2_147_483_647.0;

/// A bucket width as the kernel takes it.
enum DeviceDelta {
    Int(i64),
    Float(f64),
}

/// Distances as the GPU keeps them (`i64` or `f64` bits).
trait GpuDistance: Distance {
    /// The distance of these bits.
    fn from_bits(b: u64) -> Self;
    /// The distance and parent of a packed word (`i64` distances only: float weights are
    /// never packed).
    fn from_word(word: u64) -> (Self, u32);
    /// A width as the kernel of this distance type takes it.
    fn device_delta(width: f64) -> DeviceDelta;
}

impl GpuDistance for i64 {
    fn from_bits(b: u64) -> i64 {
        b as i64
    }
    fn from_word(word: u64) -> (i64, u32) {
        match word as i64 {
            i64::MAX => (i64::MAX, crate::graph::NO_VERTEX),
            w => (w >> 32, w as u32),
        }
    }
    fn device_delta(width: f64) -> DeviceDelta {
        DeviceDelta::Int(width as i64)
    }
}

impl GpuDistance for f64 {
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
    fn from_word(word: u64) -> (f64, u32) {
        (f64::from_bits(word), crate::graph::NO_VERTEX)
    }
    fn device_delta(width: f64) -> DeviceDelta {
        DeviceDelta::Float(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::testing::graph;

    /// exposed_vertices against a serial scan, strip by strip, on a random directed graph
    /// (self loops and repeated arcs included), for every strip size and with more strips
    /// than vertices.
    #[test]
    fn exposed_vertices_match_a_serial_scan() {
        let n = 50u32;
        let mut x = 12345u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u32 % n
        };
        let arcs: Vec<(u32, u32)> = (0..200).map(|_| (next(), next())).collect();
        let g = graph(u64::from(n), &arcs, true);
        let csr = g.out();
        let (off, tgt) = (csr.offsets(), csr.targets());
        for chunk in 1..=13usize {
            for strips in [
                (n as usize).div_ceil(chunk),
                (n as usize).div_ceil(chunk) + 2,
            ] {
                let (list, offsets) = exposed_vertices(csr, chunk, strips);
                assert_eq!(offsets.len(), strips + 1);
                for s in 0..strips {
                    let want: Vec<u32> = (0..n)
                        .filter(|&v| v as usize / chunk == s)
                        .filter(|&v| {
                            (0..n as usize).any(|u| {
                                u / chunk != s
                                    && tgt[off[u] as usize..off[u + 1] as usize].contains(&v)
                            })
                        })
                        .collect();
                    let got = &list[offsets[s] as usize..offsets[s + 1] as usize];
                    assert_eq!(got, &want[..], "chunk {chunk}, strip {s}");
                }
            }
        }
    }
}
