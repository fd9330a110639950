//! Johnson's algorithm on the GPU, after the GPU Johnson article: all-pairs shortest paths
//! for sparse graphs.
//!
//! **Computes** what [`crate::apsp::cpu::johnson()`] computes (distances only: predecessors
//! are refused), rows streamed into a [`RowSink`] batch by batch, so the n x n result
//! never has to exist whole on the GPU or the host.
//!
//! **Method**: an unweighted graph of 8 or more arcs a vertex goes to the GPU's
//! multi-source BFS ([`crate::apsp::by_multi_source_bfs`], [`multi_source::hops`]), up
//! to 1,024 sources a pass. Otherwise, with a negative weight, the GPU's work-list
//! Bellman-Ford from a virtual source joined to every vertex ([`GpuSssp::potentials`]; a
//! negative cycle it proves is named by the CPU's, as the CPU backend names it) gives the
//! potentials, and the host reweights every arc to `w + h(u) - h(v) >= 0` (checked, in
//! parallel); the reweighted graph goes to the GPU once; then batches of
//! sources run at once, one block per source, label-correcting (kernels in
//! `sssp/cuda/sssp.cu`). Where the reweighted weights are integers whose every path sum
//! fits 32 bits and a row of 32-bit distances with two frontier bitmaps fits a block's
//! shared memory (`4n + n/4` bytes: n up to about 53,000 on Hopper), the whole search of a
//! source lives in shared memory (`sssp_batch_shared_u32`: the cheap shared-memory atomics
//! are what make it fast); otherwise rows live in device memory (`sssp_batch_*`: near-far
//! buckets per source, a group of lanes per frontier vertex), in 32-bit cells where the
//! path sums fit, else 64-bit ones. A table of named targets stops each search once
//! every target is settled, and only the targets' columns are gathered to come back.
//! Batches are as large as 7/8 of the free device memory holds, so that a table's
//! thousand sources run in one wave. Each batch's rows come back through two page-locked
//! buffers while the GPU searches from the next batch, and the host widens and
//! un-reweights them (`d - h(s) + h(t)`, checked) in one pass before the sink takes them;
//! a batch's rows take at most 512 MiB on the host.

use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{
    CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use rayon::prelude::*;

use crate::apsp::cpu::johnson::{reweighted, Reweighted, Unweight};
use crate::apsp::{
    by_multi_source_bfs, ApspOptions, DistType, Dists, RowBlock, RowSink, RowsInfo, Selection,
};
use crate::bfs::cuda::multi_source;
use crate::cuda::{
    gpu_err, lanes_per_vertex, launch_config, sources_at_once, Gpu, KernelSource, ReadBack,
};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId};
use crate::progress::Progress;
use crate::sssp::cpu::DistKey;
use crate::sssp::cuda::{kernels, GpuSssp};
use crate::sssp::Potentials;

/// Threads per source (the general kernel).
const THREADS: u32 = 256;
/// Threads per source (rows in shared memory).
const SHARED_THREADS: u32 = 512;
/// The most sources searched at once.
const MAX_BATCH: usize = 4096;
/// Bytes of 64-bit distances a batch's rows may take on the host: they come back through
/// two page-locked buffers and are finished in a third, so the host holds about three
/// times this much.
const HOST_BATCH_BYTES: u64 = 512 << 20;

/// Johnson on `gpu`, the rows into `sink`; the seconds its kernels took (CUDA events).
///
/// # Errors
/// As [`crate::apsp::cpu::johnson()`]; [`Error::Unsupported`] for predecessors (not on the
/// GPU); [`Error::OutOfMemory`] when the graph and one source's search state do not
/// fit on the GPU; [`Error::Gpu`] for a driver error.
pub fn johnson(
    gpu: &Arc<Gpu>,
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    let all = Selection::all(g.num_vertices());
    johnson_table(gpu, g, &all, opts, sink, progress)
}

/// Johnson's searches on `gpu` from the sources of `sel` only, the rows cut down to its
/// targets on the GPU before they come back (see [`crate::apsp::distances_on`]); the
/// seconds its kernels took. With named targets, a search on rows in device memory stops
/// once it has settled all of them (the shared-memory search, on small graphs, runs to
/// its end).
///
/// # Errors
/// As [`johnson`]; [`Error::InvalidArgument`] for a source or target that is not a vertex.
pub fn johnson_table(
    gpu: &Arc<Gpu>,
    g: &Graph,
    sel: &Selection,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    check_options(opts)?;
    sel.check(g.num_vertices())?;
    if by_multi_source_bfs(g) {
        return hops(gpu, g, sel, sink, progress);
    }
    let (r, potentials_seconds) = reweighted_on(gpu, g)?;
    let searches = match r {
        Reweighted::I64(w, h) => {
            let cells = cells_for(gpu, g.num_vertices(), &w)?;
            let narrow = (cells != Cells::Wide).then(|| w.par_iter().map(|&x| x as u32).collect());
            let weights = Weights {
                w: &w,
                narrow,
                cells,
            };
            rows(gpu, g, sel, weights, h.as_deref(), "i64", sink, progress)
        }
        Reweighted::F64(w, h) => {
            let weights = Weights {
                w: &w,
                narrow: None,
                cells: Cells::Wide,
            };
            rows(gpu, g, sel, weights, h.as_deref(), "f64", sink, progress)
        }
    }?;
    Ok(potentials_seconds + searches)
}

/// The table of an unweighted small-world graph by multi-source BFS
/// ([`multi_source::hops`]): up to 1,024 sources a pass, each pass's rows of levels
/// (over the distinct targets) widened into the table's columns.
fn hops(
    gpu: &Arc<Gpu>,
    g: &Graph,
    sel: &Selection,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    let n = g.num_vertices();
    let info = sel.info(n, DistType::of(g.weight_type()), false);
    let (k, c) = (info.rows.len(), info.cols.len());
    sink.begin(&info)?;
    if k == 0 || c == 0 {
        sink.finish()?;
        return Ok(0.0);
    }
    let (index, want) = match info.cols.list() {
        Some(cols) => target_index(cols, n),
        None => ((0..n as u32).collect(), n as u32),
    };
    let at: Vec<usize> = (0..c)
        .map(|j| index[info.cols.vertex(j) as usize] as usize)
        .collect();
    let sources: Vec<VertexId> = (0..k).map(|i| info.rows.vertex(i)).collect();
    let mut table: Vec<i64> = Vec::new();
    let mut each = |first: usize, levels: &[u32]| {
        table.resize(levels.len() / want as usize * c, 0);
        table
            .par_chunks_mut(c)
            .zip(levels.par_chunks(want as usize))
            .for_each(|(row, got)| {
                for (d, &j) in row.iter_mut().zip(&at) {
                    *d = match got[j] {
                        u32::MAX => i64::MAX,
                        x => i64::from(x),
                    };
                }
            });
        sink.rows(&RowBlock {
            first,
            row_len: c,
            dist: Dists::I64(&table),
            pred: None,
        })
    };
    let targets = (&index[..], want);
    let seconds = multi_source::hops(
        gpu,
        g.out(),
        &sources,
        targets,
        HOST_BATCH_BYTES,
        progress,
        &mut each,
    )?;
    sink.finish()?;
    Ok(seconds)
}

/// The (non-negative) weights the searches run on, the same as 32-bit weights when the
/// searches' cells are 32-bit, and those cells.
struct Weights<'a, D> {
    w: &'a [D],
    narrow: Option<Vec<u32>>,
    cells: Cells,
}

/// The cells of the searches' distances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cells {
    /// 32-bit, a source's whole row in its block's shared memory.
    Shared,
    /// 32-bit, in device memory.
    Narrow,
    /// The distance type's (64-bit), in device memory.
    Wide,
}

/// The weights the searches run on ([`reweighted`]), the potentials (with a negative
/// weight) from the GPU's Bellman-Ford ([`GpuSssp::potentials`]: the original graph goes
/// up, and its memory is freed before the searches' graph goes up); and the seconds that
/// Bellman-Ford's kernels took.
fn reweighted_on(gpu: &Arc<Gpu>, g: &Graph) -> Result<(Reweighted, f64)> {
    let mut seconds = 0.0;
    let mut from = || -> Result<Potentials> {
        let mut search = GpuSssp::new(gpu, g)?;
        let (h, times) = search.potentials(g)?;
        seconds = times.kernel_seconds;
        Ok(h)
    };
    let r = reweighted(g.out(), &mut from)?;
    Ok((r, seconds))
}

/// Device bytes [`johnson`] allocates for `g` on `gpu` now, at its peak: the reweighted
/// graph and as many sources' searches at once as 7/8 of the free memory holds (at most
/// 4,096, at most n), by the plan the run itself follows (so it depends on the free memory
/// at the call); or, if more, Bellman-Ford's for the potentials (with a negative weight;
/// it runs first, so this call runs it too).
///
/// # Errors
/// As [`johnson`] before its searches: a negative cycle, an overflow, predecessors;
/// [`Error::Gpu`] for a driver error.
pub fn johnson_bytes(gpu: &Arc<Gpu>, g: &Graph, opts: &ApspOptions) -> Result<u64> {
    check_options(opts)?;
    let n = g.num_vertices();
    if by_multi_source_bfs(g) {
        let shape = ((n, g.num_arcs()), (n, n));
        return Ok(multi_source::hops_bytes(
            shape.0,
            shape.1,
            HOST_BATCH_BYTES,
            gpu.free_bytes()?,
        ));
    }
    let (cells, negative) = match reweighted_on(gpu, g)?.0 {
        Reweighted::I64(w, h) => (cells_for(gpu, n, &w)?, h.is_some()),
        Reweighted::F64(_, h) => (Cells::Wide, h.is_some()),
    };
    let shape = (n, n, None);
    let searches = Plan::new(shape, g.out().num_arcs(), cells, gpu.free_bytes()?).bytes();
    // Bellman-Ford's memory is freed before the searches allocate theirs.
    Ok(match negative {
        true => searches.max(crate::sssp::cuda::bytes_needed(g)),
        false => searches,
    })
}

/// Refuses what the GPU's Johnson does not do (predecessors).
fn check_options(opts: &ApspOptions) -> Result<()> {
    if opts.predecessors {
        return Err(Error::Unsupported(
            "predecessors from the GPU's johnson are not done yet: use floyd-warshall on the \
             GPU, or --device cpu"
                .into(),
        ));
    }
    Ok(())
}

/// Bytes of shared memory a block needs to hold a row of `n` 32-bit distances and two
/// frontier bitmaps (`sssp_batch_shared_u32`).
fn shared_bytes(n: usize) -> u64 {
    4 * n as u64 + 8 * n.div_ceil(32) as u64
}

/// The cells the searches can hold the distances of the reweighted (non-negative)
/// weights `w` in: 32-bit when every path sum stays below `u32::MAX` (`(n - 1) * max
/// weight`), in shared memory when a row and its bitmaps also fit a block's.
fn cells_for(gpu: &Gpu, n: usize, w: &[i64]) -> Result<Cells> {
    let max = w.par_iter().copied().max().unwrap_or(0);
    let narrow = n > 0
        && (0..=i64::from(u32::MAX)).contains(&max)
        && (max as u128) * (n as u128 - 1) < u128::from(u32::MAX);
    // (a kilobyte left for the kernel's own static shared memory)
    let shared = shared_bytes(n) + 1024 <= gpu.max_shared_per_block()?;
    Ok(match (narrow, shared) {
        (true, true) => Cells::Shared,
        (true, false) => Cells::Narrow,
        (false, _) => Cells::Wide,
    })
}

/// The width of the general kernel's buckets for weights `w` on `n` vertices: 0 (one
/// bucket, label-correcting) on graphs of 8 or more arcs a vertex, where few rounds reach
/// everything; else the mean weight (of an evenly spaced sample; at least 1 for integer
/// distances), so that a road-like graph's long paths are settled in order instead of
/// being lowered many times over.
fn bucket_width<D: Unweight + Copy>(w: &[D], n: usize) -> D {
    let m = w.len();
    if m >= 8 * n.max(1) || m == 0 {
        return D::ZERO;
    }
    let k = m.min(4096);
    let mean = (0..k).map(|j| w[j * (m / k)].as_f64()).sum::<f64>() / k as f64;
    let width = D::from_f64(mean);
    match width > D::ZERO {
        true => width,
        false => D::from_f64(1.0),
    }
}

/// How the batched searches use the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// Bytes of the graph: offsets, targets, weights (32-bit with 32-bit cells, else the
    /// 64-bit distance type), for the bucketed kernels three flags, the sources (4 each),
    /// and for a table of named targets their columns (4 each) and, for the early stop,
    /// their index (4 a vertex).
    graph: u64,
    /// Bytes per source searched at once: its distances (4n or 8n), four lists (16n),
    /// stamps and far marks (8n); with rows in shared memory, only the 32-bit row that
    /// comes back (4n); and for a table of named targets its gathered columns (4 or 8
    /// each) and its bits of the targets reached.
    per_source: u64,
    /// Sources searched at once: as many as [`sources_at_once`] of the free memory left
    /// by the graph holds and [`HOST_BATCH_BYTES`] of rows allow, at least 1, at most
    /// [`MAX_BATCH`] and the number of rows.
    batch: usize,
}

impl Plan {
    /// The plan for `n` vertices, `rows` sources and, for a table of named targets,
    /// `gathered` columns (else rows of all `n`), `m` arcs, the searches' `cells`, `free`
    /// device bytes free before the graph goes up.
    fn new(
        (n, rows, gathered): (usize, usize, Option<usize>),
        m: u64,
        cells: Cells,
        free: u64,
    ) -> Plan {
        let n64 = n as u64;
        let c64 = gathered.unwrap_or(n) as u64;
        let (cell, row) = match cells {
            Cells::Shared => (4, 4),
            Cells::Narrow => (4, 28),
            Cells::Wide => (8, 32),
        };
        let (stop, bits) = match (gathered, cells) {
            (Some(c), Cells::Narrow | Cells::Wide) => (4 * n64, 4 * c.div_ceil(32) as u64),
            _ => (0, 0),
        };
        let gathered = gathered.map_or(0, |c| c as u64);
        let flags = if cells == Cells::Shared { 0 } else { 12 };
        let graph = 8 * (n64 + 1) + (4 + cell) * m + flags + 4 * rows as u64 + 4 * gathered + stop;
        let per_source = row * n64 + cell * gathered + bits;
        let most = (HOST_BATCH_BYTES / (8 * c64).max(1)) as usize;
        let batch = sources_at_once(free.saturating_sub(graph), per_source, most);
        Plan {
            graph,
            per_source,
            batch: batch.clamp(1, MAX_BATCH.min(rows).max(1)),
        }
    }

    /// The least that must fit: the graph and one source's search.
    fn least(&self) -> u64 {
        self.graph + self.per_source
    }

    /// What the run allocates: the graph and a batch's searches.
    fn bytes(&self) -> u64 {
        self.graph + self.batch as u64 * self.per_source
    }
}

/// How the batches search: rows in shared memory with 32-bit distances, or in buckets
/// with rows of 32-bit or of the distance type's cells in device memory; and, for a table
/// of named targets, how their columns are picked out of the rows.
enum Search<D: DeviceRepr> {
    Shared {
        f: CudaFunction,
        wt: CudaSlice<u32>,
        out: CudaSlice<u32>,
        bytes: u32,
        pick: Option<Pick<u32>>,
    },
    Narrow(Buckets<u32>),
    Wide(Buckets<D>),
}

/// The columns of a table's targets, gathered from a batch's whole rows
/// (`sssp_gather_*`) so that only they come back.
struct Pick<T> {
    f: CudaFunction,
    cols: CudaSlice<u32>,
    out: CudaSlice<T>,
}

impl<T: DeviceRepr> Pick<T> {
    /// The gather `name` of the targets `cols` for `batch` rows.
    fn new(
        gpu: &Gpu,
        kernels: &KernelSource,
        name: &str,
        cols: &[VertexId],
        batch: usize,
    ) -> Result<Self>
    where
        T: ValidAsZeroBits,
    {
        Ok(Pick {
            f: gpu.function(kernels, name)?,
            cols: gpu.upload(cols)?,
            out: gpu.zeros::<T>(batch * cols.len())?,
        })
    }

    /// Gathers the columns of the first `rows` rows of `n` values of `from`.
    fn launch(&mut self, gpu: &Gpu, from: &CudaSlice<T>, n: u32, rows: usize) -> Result<()> {
        let c = self.cols.len() as u32;
        let total = rows as u64 * u64::from(c);
        let blocks = total.div_ceil(256).clamp(1, 1 << 16) as u32;
        let k = rows as u32;
        let mut b = gpu.stream().launch_builder(&self.f);
        b.arg(from)
            .arg(&n)
            .arg(&self.cols)
            .arg(&c)
            .arg(&k)
            .arg(&mut self.out);
        // SAFETY: matches sssp_gather_*(rows, n, cols, c, k, out): it reads k rows of n
        // values of `from` (a batch's rows, k at most the batch) at columns below n (the
        // targets were checked to be vertices) and writes k * c values of `out`, sized
        // for a whole batch.
        unsafe { b.launch(launch_config(blocks, 256)) }.map_err(gpu_err)?;
        Ok(())
    }
}

/// The batched searches from the sources of `sel` over `weights`, un-reweighted with
/// `h`, the rows cut down to the targets of `sel` when it names them.
#[allow(clippy::too_many_arguments)]
fn rows<D>(
    gpu: &Arc<Gpu>,
    g: &Graph,
    sel: &Selection,
    weights: Weights<'_, D>,
    h: Option<&[D]>,
    suffix: &str,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64>
where
    D: DeviceRepr + ValidAsZeroBits + Unweight + Copy + Send + Sync + From<u32>,
{
    let csr = g.out();
    let n = csr.num_vertices();
    let m = csr.targets().len() as u64;
    let info = sel.info(n, DistType::of(g.weight_type()), false);
    let (k, c) = (info.rows.len(), info.cols.len());
    let picked = info.cols.list();
    let shape = (n, k, picked.map(<[VertexId]>::len));
    let plan = Plan::new(shape, m, weights.cells, gpu.free_bytes()?);
    gpu.check_memory(
        || format!("johnson on {n} vertices (the graph and one source's search)"),
        plan.least(),
    )?;
    sink.begin(&info)?;
    if k == 0 || c == 0 {
        sink.finish()?;
        return Ok(0.0);
    }
    let batch = plan.batch;
    let off = gpu.upload(csr.offsets())?;
    let tgt = gpu.upload(csr.targets())?;
    let sources: Vec<u32> = (0..k).map(|i| info.rows.vertex(i)).collect();
    let sources = gpu.upload(&sources)?;
    let mut search = Search::new(gpu, weights, suffix, (batch, n), picked)?;
    let mut back = search.read_back(gpu, batch * c)?;
    let rows_of = |b: usize| b * batch..((b + 1) * batch).min(k);
    let blocks = k.div_ceil(batch);
    let mut timers = Vec::with_capacity(blocks);
    // Batch b's searches and the copy of its rows, queued behind the work before.
    let mut queue = |b: usize, search: &mut Search<D>, back: &mut Back<D>| -> Result<()> {
        let r = rows_of(b);
        let timer = gpu.timer()?;
        search.launch(
            gpu,
            (&off, &tgt, &sources),
            (n as u32, r.start as u32),
            r.len(),
        )?;
        timers.push((timer, gpu.mark()?));
        search.queue_back(gpu, b, r.len() * c, back)
    };
    progress.begin("johnson (GPU)", k as u64);
    queue(0, &mut search, &mut back)?;
    // The host maps its memory (and the sink's) while the first batch runs.
    let mut host: Vec<D> = crate::par::premapped(batch * c, D::INFINITY);
    sink.prepare()?;
    for b in 0..blocks {
        // The next batch runs on the GPU while the host finishes this one.
        if b + 1 < blocks {
            queue(b + 1, &mut search, &mut back)?;
        }
        let r = rows_of(b);
        let out = &mut host[..r.len() * c];
        back.take_into(b, out, (&info, r.start), h)?;
        sink.rows(&RowBlock {
            first: r.start,
            row_len: c,
            dist: D::dists(out),
            pred: None,
        })?;
        progress.advance(r.len() as u64);
    }
    progress.finish();
    search.check_range(gpu)?;
    let mut kernel_seconds = 0.0;
    for (timer, done) in timers {
        kernel_seconds += timer.finish(&done)?.kernel_seconds;
    }
    sink.finish()?;
    Ok(kernel_seconds)
}

/// Rows coming back: 32-bit distances from the shared-memory search, or distances of the
/// type `D`.
enum Back<D> {
    Narrow(ReadBack<u32>),
    Wide(ReadBack<D>),
}

impl<D: DeviceRepr + ValidAsZeroBits + Unweight + Copy + Send + Sync + From<u32>> Back<D> {
    /// Batch `b`'s rows into `out` (rows of `info.cols`, the first row `first` of
    /// `info.rows`), once they are back: widened to `D` (the 32-bit "unreachable" to
    /// infinity) and, with potentials `h`, un-reweighted (`d - h(s) + h(t)`, checked).
    fn take_into(
        &mut self,
        b: usize,
        out: &mut [D],
        at: (&RowsInfo, usize),
        h: Option<&[D]>,
    ) -> Result<()> {
        match self {
            Back::Narrow(r) => finish_rows(r.take(b)?, out, at, h, |x| match x {
                u32::MAX => D::INFINITY,
                x => D::from(x),
            }),
            Back::Wide(r) => finish_rows(r.take(b)?, out, at, h, |x| x),
        }
    }
}

/// `out[i] = widen(got[i])`, un-reweighted with `h` when given, row by row on every core;
/// the rows are those of `info` from row `first` on.
fn finish_rows<D, X>(
    got: &[X],
    out: &mut [D],
    (info, first): (&RowsInfo, usize),
    h: Option<&[D]>,
    widen: impl Fn(X) -> D + Sync,
) -> Result<()>
where
    D: Unweight + Copy + Send + Sync,
    X: Copy + Sync,
{
    let c = info.cols.len();
    out.par_chunks_mut(c)
        .zip(got.par_chunks(c))
        .enumerate()
        .try_for_each(|(i, (row, got))| {
            let s = info.rows.vertex(first + i) as usize;
            for (j, (d, &x)) in row.iter_mut().zip(got).enumerate() {
                *d = widen(x);
                if let (Some(h), true) = (h, *d != D::INFINITY) {
                    let t = info.cols.vertex(j) as usize;
                    *d = D::unweight(*d, h[s], h[t]).ok_or_else(|| {
                        Error::Overflow(format!(
                            "the distance from vertex {s} to vertex {t} leaves the distance range"
                        ))
                    })?;
                }
            }
            Ok::<(), Error>(())
        })
}

impl<D: DeviceRepr + ValidAsZeroBits + Unweight + Copy + Send + Sync + From<u32>> Search<D> {
    /// The search over `weights` (with 32-bit weights, rows in shared memory or 32-bit
    /// rows in device memory), its kernels for the distance type `suffix`, its buffers for
    /// `batch` sources of `n` vertices, and the gathering of the columns `picked`, when
    /// named.
    fn new(
        gpu: &Gpu,
        weights: Weights<'_, D>,
        suffix: &str,
        (batch, n): (usize, usize),
        picked: Option<&[VertexId]>,
    ) -> Result<Search<D>> {
        let names = kernels(suffix);
        let width = bucket_width(weights.w, n);
        Ok(match (weights.cells, weights.narrow) {
            (Cells::Shared, Some(w32)) => {
                let f = gpu.function(names, "sssp_batch_shared_u32")?;
                let bytes = shared_bytes(n) as u32;
                // The function is shared by every thread of the process: allow it the GPU's
                // whole opt-in shared memory (a run's own size could race with another's
                // smaller one and fail its launch), and launch with what this n needs.
                let fixed = f
                    .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                    .map_err(gpu_err)?;
                let most = gpu.max_shared_per_block()?.min(i32::MAX as u64) as i32 - fixed;
                f.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    most,
                )
                .map_err(gpu_err)?;
                let pick = picked
                    .map(|cols| Pick::new(gpu, names, "sssp_gather_u32", cols, batch))
                    .transpose()?;
                Search::Shared {
                    f,
                    wt: gpu.upload(&w32)?,
                    out: gpu.zeros::<u32>(batch * n)?,
                    bytes,
                    pick,
                }
            }
            (Cells::Narrow, Some(w32)) => {
                // (An integer width below 2^32: it is at most the largest weight.)
                let width = width.as_f64() as u32;
                let kernel = ("sssp_batch_u32", "sssp_gather_u32");
                Search::Narrow(Buckets::new(
                    gpu,
                    names,
                    kernel,
                    &w32,
                    width,
                    (batch, n),
                    picked,
                )?)
            }
            _ => {
                let kernel = (
                    &*format!("sssp_batch_{suffix}"),
                    &*format!("sssp_gather_{suffix}"),
                );
                Search::Wide(Buckets::new(
                    gpu,
                    names,
                    kernel,
                    weights.w,
                    width,
                    (batch, n),
                    picked,
                )?)
            }
        })
    }

    /// Launches the searches from `sources[first..first + rows]` over the graph `(off,
    /// tgt)` of `n` vertices, then the gathering of their targets' columns.
    fn launch(
        &mut self,
        gpu: &Gpu,
        (off, tgt, sources): (&CudaSlice<u64>, &CudaSlice<u32>, &CudaSlice<u32>),
        (n32, first32): (u32, u32),
        rows: usize,
    ) -> Result<()> {
        match self {
            Search::Shared {
                f,
                wt,
                out: dev,
                bytes,
                pick,
            } => {
                let mut b = gpu.stream().launch_builder(f);
                b.arg(off)
                    .arg(tgt)
                    .arg(&*wt)
                    .arg(&n32)
                    .arg(sources)
                    .arg(&first32)
                    .arg(&mut *dev);
                let cfg = LaunchConfig {
                    grid_dim: (rows as u32, 1, 1),
                    block_dim: (SHARED_THREADS, 1, 1),
                    shared_mem_bytes: *bytes,
                };
                // SAFETY: matches sssp_batch_shared_u32(off, tgt, wt, n, sources, first,
                // out): block b < rows searches from sources[first + b] (within the
                // uploaded sources), writes row b of out (n entries, within the batch's
                // buffer) and uses `bytes` of dynamic shared memory, which the attribute
                // above allows.
                unsafe { b.launch(cfg) }.map_err(gpu_err)?;
                if let Some(p) = pick {
                    p.launch(gpu, dev, n32, rows)?;
                }
                Ok(())
            }
            Search::Narrow(s) => s.launch(gpu, (off, tgt, sources), (n32, first32), rows),
            Search::Wide(s) => s.launch(gpu, (off, tgt, sources), (n32, first32), rows),
        }
    }

    /// Two page-locked buffers of `len` distances as the searches leave them.
    fn read_back(&self, gpu: &Gpu, len: usize) -> Result<Back<D>> {
        Ok(match self {
            Search::Shared { .. } | Search::Narrow(_) => Back::Narrow(ReadBack::new(gpu, len)?),
            Search::Wide(_) => Back::Wide(ReadBack::new(gpu, len)?),
        })
    }

    /// Queues the copy of the first `len` distances of the batch just launched (its
    /// gathered columns, for a table of named targets), as block `k` of `back`.
    fn queue_back(&self, gpu: &Gpu, k: usize, len: usize, back: &mut Back<D>) -> Result<()> {
        match (self, back) {
            (Search::Shared { pick: Some(p), .. }, Back::Narrow(r)) => {
                r.queue(gpu, k, &p.out, 0..len)
            }
            (Search::Shared { out, .. }, Back::Narrow(r)) => r.queue(gpu, k, out, 0..len),
            (Search::Narrow(s), Back::Narrow(r)) => r.queue(gpu, k, s.rows(), 0..len),
            (Search::Wide(s), Back::Wide(r)) => r.queue(gpu, k, s.rows(), 0..len),
            _ => unreachable!("read_back made the buffers for this search"),
        }
    }

    /// An error where a path sum left the distance range on the GPU in any batch.
    fn check_range(&self, gpu: &Gpu) -> Result<()> {
        let flags = match self {
            Search::Shared { .. } => return Ok(()),
            Search::Narrow(s) => &s.flags,
            Search::Wide(s) => &s.flags,
        };
        let mut flag = [0u32];
        gpu.download_into(flags, &mut flag)?;
        match flag[0] {
            0 => Ok(()),
            _ => Err(Error::Overflow(
                "a path sum left the distance range on the GPU".into(),
            )),
        }
    }
}

/// The bucketed searches with rows of `T` in device memory (`sssp_batch_*`).
struct Buckets<T> {
    f: CudaFunction,
    wt: CudaSlice<T>,
    /// The buckets' width ([`bucket_width`]).
    width: T,
    dist: CudaSlice<T>,
    lists: CudaSlice<u32>,
    stamps: CudaSlice<u32>,
    flags: CudaSlice<u32>,
    stop: Stop,
    pick: Option<Pick<T>>,
}

impl<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync> Buckets<T> {
    /// The searches by the kernels `(search, gather)` of `names` over the weights `w`,
    /// in buckets of `width`, for `batch` sources of `n` vertices, stopping early at
    /// the targets `picked` and gathering their columns, when named.
    fn new(
        gpu: &Gpu,
        names: &KernelSource,
        (search, gather): (&str, &str),
        w: &[T],
        width: T,
        (batch, n): (usize, usize),
        picked: Option<&[VertexId]>,
    ) -> Result<Self> {
        Ok(Buckets {
            f: gpu.function(names, search)?,
            wt: gpu.upload(w)?,
            width,
            dist: gpu.zeros::<T>(batch * n)?,
            lists: gpu.zeros::<u32>(4 * batch * n)?,
            stamps: gpu.zeros::<u32>(2 * batch * n)?,
            flags: gpu.zeros::<u32>(3)?,
            stop: Stop::new(gpu, picked, n, batch)?,
            pick: picked
                .map(|cols| Pick::new(gpu, names, gather, cols, batch))
                .transpose()?,
        })
    }

    /// What comes back: the gathered columns of a table of named targets, else the rows.
    fn rows(&self) -> &CudaSlice<T> {
        self.pick.as_ref().map_or(&self.dist, |p| &p.out)
    }

    /// As [`Search::launch`].
    fn launch(
        &mut self,
        gpu: &Gpu,
        (off, tgt, sources): (&CudaSlice<u64>, &CudaSlice<u32>, &CudaSlice<u32>),
        (n32, first32): (u32, u32),
        rows: usize,
    ) -> Result<()> {
        let group = lanes_per_vertex(off.len() as u64 - 1, tgt.len() as u64);
        let mut b = gpu.stream().launch_builder(&self.f);
        b.arg(off)
            .arg(tgt)
            .arg(&self.wt)
            .arg(&n32)
            .arg(sources)
            .arg(&first32)
            .arg(&group)
            .arg(&self.width)
            .arg(&self.stop.tindex)
            .arg(&self.stop.want)
            .arg(&mut self.dist)
            .arg(&mut self.lists)
            .arg(&mut self.stamps)
            .arg(&mut self.stop.got)
            .arg(&mut self.flags);
        // SAFETY: matches sssp_batch_*(off, tgt, wt, n, sources, first, group, width,
        // tindex, want, dist_all, lists, stamps, got_all, flags) with the weights and the
        // width in the row type: block b < rows searches from sources[first + b] (within
        // the uploaded sources) and uses row b of dist (n), 4n list entries, 2n stamps and
        // marks and ceil(want / 32) words of got, all within the batch's buffers; tindex
        // holds n entries below want whenever want > 0.
        unsafe { b.launch(launch_config(rows as u32, THREADS)) }.map_err(gpu_err)?;
        if let Some(p) = &mut self.pick {
            p.launch(gpu, &self.dist, n32, rows)?;
        }
        Ok(())
    }
}

/// The early stop of a table's searches: each target's index among the distinct targets
/// (`u32::MAX` for other vertices), their number, and each source's bits of the targets
/// it has reached. Without named targets, `want` is 0 and nothing stops early.
struct Stop {
    tindex: CudaSlice<u32>,
    want: u32,
    got: CudaSlice<u32>,
}

impl Stop {
    /// The stop at the targets `picked` (if named) on `n` vertices, for `batch` sources.
    fn new(gpu: &Gpu, picked: Option<&[VertexId]>, n: usize, batch: usize) -> Result<Stop> {
        let Some(cols) = picked else {
            return Ok(Stop {
                tindex: gpu.zeros::<u32>(1)?,
                want: 0,
                got: gpu.zeros::<u32>(1)?,
            });
        };
        let (tindex, want) = target_index(cols, n);
        Ok(Stop {
            tindex: gpu.upload(&tindex)?,
            want,
            got: gpu.zeros::<u32>((batch * stop_words(want)).max(1))?,
        })
    }
}

/// Each vertex's index among the distinct targets `cols` (in order of first naming;
/// `u32::MAX` for a vertex that is not one), and their number.
fn target_index(cols: &[VertexId], n: usize) -> (Vec<u32>, u32) {
    let mut index = vec![u32::MAX; n];
    let mut want = 0;
    for &t in cols {
        if index[t as usize] == u32::MAX {
            index[t as usize] = want;
            want += 1;
        }
    }
    (index, want)
}

/// Words of a source's bits of `want` targets reached.
fn stop_words(want: u32) -> usize {
    want.div_ceil(32) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_by_hand() {
        // 1,000 vertices, 16,000 arcs, rows in device memory: offsets 8 * 1,001, targets
        // 4 * 16,000, 64-bit weights 8 * 16,000, three flags, 1,000 sources 4 each; 32
        // bytes a vertex a source. A GiB free holds more than n sources at once: all 1,000.
        let p = Plan::new((1000, 1000, None), 16_000, Cells::Wide, 1 << 30);
        assert_eq!((p.graph, p.per_source, p.batch), (204_020, 32_000, 1000));
        assert_eq!(p.bytes(), 204_020 + 1000 * 32_000);
        assert_eq!(p.least(), 236_020);
        // 10 MB free: 7/8 of what the graph leaves, (10,000,000 - 204,020) / 8 * 7 / 32,000.
        let p = Plan::new((1000, 1000, None), 16_000, Cells::Wide, 10_000_000);
        assert_eq!(p.batch, 267);
        // Rows in shared memory: 32-bit weights, 4 bytes a vertex a source; 2 MB free
        // holds (2,000,000 - 140,008) / 8 * 7 / 4,000 = 406 sources.
        let p = Plan::new((1000, 1000, None), 16_000, Cells::Shared, 2_000_000);
        assert_eq!((p.graph, p.per_source, p.batch), (140_008, 4000, 406));
        assert_eq!(p.bytes(), 140_008 + 406 * 4000);
        // A table of 10 sources and 50 targets: the targets go up too (4 each) with the
        // early stop's index (4 a vertex); a source's 50 gathered columns take 8 bytes
        // each and its bits of targets reached two words; there are 10 rows in all.
        let p = Plan::new((1000, 10, Some(50)), 16_000, Cells::Wide, 1 << 30);
        assert_eq!((p.graph, p.per_source, p.batch), (204_260, 32_408, 10));
        // With 32-bit cells: 32-bit weights, 28 bytes a vertex, 4 a gathered column.
        let p = Plan::new((1000, 10, Some(50)), 16_000, Cells::Narrow, 1 << 30);
        assert_eq!((p.graph, p.per_source), (140_260, 28_208));
        // Rows of 1,000 columns fit the host's 512 MiB 65,536 at a time: the cap of
        // 4,096 rules.
        let p = Plan::new(
            (1 << 20, 100_000, Some(1000)),
            16 << 20,
            Cells::Shared,
            100 << 30,
        );
        assert_eq!(p.batch, 4096);
        // A million vertices: the host's 512 MiB of 8-byte rows hold 64 sources at once.
        let p = Plan::new((1 << 20, 1 << 20, None), 16 << 20, Cells::Shared, 100 << 30);
        assert_eq!(p.batch, 64);
        // Buckets as wide as the mean weight on a sparse graph, one bucket on a dense one.
        let w: Vec<i64> = (0..3000).map(|i| [100, 156][i % 2]).collect();
        assert_eq!(bucket_width(&w, 1000), 128);
        assert_eq!(bucket_width(&w, 300), 0);
        assert_eq!(bucket_width(&[0.25f64, 0.75], 1), 0.5);
        assert_eq!(bucket_width(&[0i64; 4], 2), 1);
        // Lanes per frontier vertex follow the mean degree.
        assert_eq!(lanes_per_vertex(4 << 20, 15 << 20), 4);
        assert_eq!(lanes_per_vertex(1 << 20, 64 << 20), 32);
        assert_eq!((lanes_per_vertex(10, 0), lanes_per_vertex(0, 0)), (1, 1));
        // Nothing free: one source at a time; no vertex: no panic.
        assert_eq!(
            Plan::new((1000, 1000, None), 16_000, Cells::Wide, 0).batch,
            1
        );
        assert_eq!(Plan::new((0, 0, None), 0, Cells::Narrow, 1 << 30).batch, 1);
        // The early stop's index of distinct targets, in order of first naming.
        assert_eq!(
            target_index(&[3, 1, 3], 5),
            (vec![u32::MAX, 1, u32::MAX, 0, u32::MAX], 2)
        );
        assert_eq!((stop_words(0), stop_words(32), stop_words(33)), (0, 1, 2));
    }
}
