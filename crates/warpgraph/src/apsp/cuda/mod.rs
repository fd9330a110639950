//! All-pairs shortest paths on an NVIDIA GPU: Floyd-Warshall (after the GPU Floyd-Warshall
//! article) here, Johnson (after the GPU Johnson article) in [`johnson()`].
//!
//! **Computes** what [`crate::apsp::cpu::floyd_warshall()`] computes, rows streamed into a
//! [`RowSink`]. The CPU's plan picks the cell type, sentinels and bounds. On one GPU the
//! graph goes up and `fw_init` builds the working matrix there; every round runs; the rows
//! come back in blocks through two page-locked buffers while the host converts the block
//! before for the sink. A team builds the matrix on the host and splits it by rows. A
//! negative cycle is found on the GPU as a negative diagonal value and named by the CPU's
//! Bellman-Ford.
//!
//! **Method** (kernels in `fw.cu`), by [`FwVariant`]:
//! - `fw-naive`: one launch per pivot k, one thread per element (i, j), the grid sweeping
//!   a matrix larger than itself tile by tile (the article's naive version);
//! - `fw-blocked`: the three-phase blocked algorithm of Venkataraman et al. (the article's): per
//!   round, the diagonal 32 x 32 tile alone in shared memory, then the tiles of its row and
//!   column, then every other tile as a min-plus product with its cell in a register;
//! - `fw-tuned` (the default): the blocked rounds with a faster third phase for
//!   non-negative 32-bit cells (integer weights of no sign, sums below 2^31, no
//!   predecessors): 64 x 64 blocks, 4 x 4 cells per thread in registers, `min(c, a + b)`
//!   by one DPX instruction (`__viaddmin_u32`, native on Hopper, emulated before);
//!   elsewhere it is `fw-blocked`.
//!
//! Cells are `i32` or `i64` (integer weights, as the CPU's plan picks them) or `f64`;
//! weights that need the CPU's 128-bit sums are refused on the GPU. The matrix (and the
//! predecessors) must fit in GPU memory: a bigger one is refused with the bytes needed and
//! free (tiling through host memory is not done).

mod johnson;

pub use johnson::{johnson, johnson_bytes, johnson_table};

use std::sync::Arc;

use std::ops::Range;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchArgs, PushKernelArg, ValidAsZeroBits,
};
use cudarc::nccl::NcclType;

use super::cpu::floyd_warshall::{
    floyd_warshall_by, matrix_shape, needs_128_bits, Cell, Matrix, Plan, Rows, Work,
};
use super::{ApspOptions, RowSink};
use crate::cuda::link::Reduce;
use crate::cuda::team::{Member, TeamSpec};
use crate::cuda::{gpu_err, Gpu, KernelSource, ReadBack};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::progress::Progress;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "fw",
    source: include_str!("fw.cu"),
};

/// Every kernel file of the APSP (a test compiles each one).
pub const KERNEL_SOURCES: &[&KernelSource] = &[&KERNELS];

/// The tile edge of `fw-blocked` (`TILE` in `fw.cu`).
const TILE: u32 = 32;
/// The block edge of `fw-tuned`'s third phase (`TT` in `fw.cu`).
const TUNED_TILE: u32 = 64;
/// Rounds (pivot tile rows) a team's host queues ahead of its GPU at most.
const ROUNDS_AHEAD: usize = 4;

/// Which GPU Floyd-Warshall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FwVariant {
    /// One launch per pivot, a thread per element (the GPU Floyd-Warshall article's naive
    /// version).
    Naive,
    /// Three phases per 32 x 32 diagonal tile, in shared memory (the article's blocked one,
    /// after Venkataraman et al.).
    Blocked,
    /// The blocked rounds with a register-tiled DPX third phase where the cells allow it
    /// (non-negative 32-bit, no predecessors), else `Blocked`.
    #[default]
    Tuned,
}

crate::graph::named_enum!(
    FwVariant,
    "GPU Floyd-Warshall variant",
    FwVariant::Naive => "fw-naive",
    FwVariant::Blocked => "fw-blocked",
    FwVariant::Tuned => "fw-tuned"
);

impl std::fmt::Display for FwVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Floyd-Warshall on `gpu`, the rows into `sink`; the seconds the kernels took (CUDA
/// events).
///
/// # Errors
/// As [`crate::apsp::cpu::floyd_warshall()`]; [`Error::OutOfMemory`] when the matrix does not
/// fit in GPU memory; [`Error::Unsupported`] for weights that need 128-bit sums;
/// [`Error::Gpu`] for a driver error.
pub fn floyd_warshall(
    gpu: &Arc<Gpu>,
    g: &Graph,
    opts: &ApspOptions,
    variant: FwVariant,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    run(Target::One(gpu), g, opts, variant, sink, progress)
}

/// Floyd-Warshall on a team of GPUs (NCCL): the matrix split into blocks of whole rows
/// (multiples of 64), one per GPU; each round the pivot rows are closed on their owner
/// and broadcast to the others, which finish their rows from the copy. The result is the
/// single GPU's, cell for cell; the kernel seconds are the slowest GPU's.
///
/// A team may span processes (and hosts; [`TeamSpec::from_env`]): every process builds
/// the matrix from the same graph and computes its GPUs' rows, which then go to rank 0
/// over NCCL. Only the process of rank 0 gets the rows in `sink`; the others' sinks get
/// none (not even `begin`). Every process gets the same negative cycle, if any.
///
/// # Errors
/// As [`floyd_warshall`]; [`Error::Unsupported`] for `fw-naive` (one GPU only);
/// [`Error::Nccl`] when NCCL is missing or fails.
pub fn floyd_warshall_team(
    spec: &TeamSpec,
    g: &Graph,
    opts: &ApspOptions,
    variant: FwVariant,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    if variant == FwVariant::Naive {
        return Err(Error::Unsupported(
            "fw-naive runs on one GPU: use fw-blocked or fw-tuned on a team".into(),
        ));
    }
    // Without rank 0, this process's rows go to rank 0's process; the matrix here is not
    // the result.
    let mut discard = super::Discard;
    let sink: &mut dyn RowSink = match spec.has_root() {
        true => sink,
        false => &mut discard,
    };
    run(Target::Team(spec), g, opts, variant, sink, progress)
}

/// One GPU or a team.
#[derive(Clone, Copy)]
enum Target<'a> {
    One(&'a Arc<Gpu>),
    Team(&'a TeamSpec),
}

fn run(
    target: Target<'_>,
    g: &Graph,
    opts: &ApspOptions,
    variant: FwVariant,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    let mut kernel_seconds = 0.0;
    let nonnegative = !super::cpu::has_negative_weight(g);
    let mut solve = |mut work: Work<'_>| -> Result<Option<usize>> {
        let variant = variant_for(variant, work.plan, nonnegative, work.pred);
        let (cycle, seconds) = match target {
            Target::One(gpu) => one_gpu(gpu, variant, &mut work),
            Target::Team(spec) => on_team(spec, variant, &mut work),
        }?;
        kernel_seconds = seconds;
        Ok(cycle)
    };
    progress.begin("floyd-warshall (GPU)", 1);
    let r = floyd_warshall_by(g, opts, sink, progress, &mut solve);
    progress.finish();
    r.map(|_| kernel_seconds)
}

/// The variant that runs on a plan's cells: `fw-tuned`'s third phase only for
/// non-negative 32-bit cells without predecessors, else `fw-blocked` in its place.
fn variant_for(variant: FwVariant, plan: Plan, nonnegative: bool, pred: bool) -> FwVariant {
    match plan {
        Plan::I32 { .. } if nonnegative && !pred => variant,
        _ => blocked(variant),
    }
}

/// A cell type of the GPU's matrix: its kernels' suffix and its rows for the sink.
trait GpuCell: Cell + DeviceRepr + ValidAsZeroBits + NcclType {
    const SUFFIX: &'static str;
    fn rows(d: &[Self]) -> Rows<'_>;
}

macro_rules! gpu_cell {
    ($t:ty, $suffix:literal, $variant:ident) => {
        impl GpuCell for $t {
            const SUFFIX: &'static str = $suffix;
            fn rows(d: &[Self]) -> Rows<'_> {
                Rows::$variant(d)
            }
        }
    };
}
gpu_cell!(i32, "i32", I32);
gpu_cell!(i64, "i64", I64);
gpu_cell!(f64, "f64", F64);

/// One GPU: the matrix built there from the graph, every round, and the rows back.
fn one_gpu(
    gpu: &Arc<Gpu>,
    variant: FwVariant,
    work: &mut Work<'_>,
) -> Result<(Option<usize>, f64)> {
    match work.plan {
        Plan::I32 { inf, thr } => one::<i32>(gpu, variant, (inf, thr), work),
        Plan::I64 { inf, thr } => one::<i64>(gpu, variant, (inf, thr), work),
        Plan::F64 => one::<f64>(gpu, variant, (f64::INFINITY, f64::INFINITY), work),
        Plan::I128 => Err(needs_128_bits()),
    }
}

/// [`one_gpu`] in cells `C` with the sentinel `inf` and threshold `thr`: the CSR and its
/// weights as cells go up, `fw_init` builds the matrix, the rounds run, and unless a
/// negative cycle showed up the rows come back through [`send_rows`].
fn one<C: GpuCell>(
    gpu: &Arc<Gpu>,
    variant: FwVariant,
    (inf, thr): (C, C),
    work: &mut Work<'_>,
) -> Result<(Option<usize>, f64)> {
    let (big, n) = (work.big, work.n);
    let csr = work.g.out();
    let arcs = csr.targets().len() as u64;
    let cell = std::mem::size_of::<C>() as u64;
    let graph = 8 * (n as u64 + 1) + (4 + cell) * arcs;
    gpu.check_memory(
        || format!("Floyd-Warshall's {big} x {big} matrix (and the graph) on the GPU"),
        matrix_bytes(big as u64, cell, work.pred).saturating_add(graph),
    )?;
    let big32 = big32(big)?;
    let w = work.arc_cells::<C>()?;
    let (off, tgt, wd) = (
        gpu.upload(csr.offsets())?,
        gpu.upload(csr.targets())?,
        gpu.upload(&w)?,
    );
    drop(w);
    let mut m = OnGpu::<C>::alloc(gpu, big, work.pred)?;
    let init = gpu.function(&KERNELS, &format!("fw_init_{}", C::SUFFIX))?;
    let n32 = n as u32;
    let mut b = gpu.stream().launch_builder(&init);
    b.arg(&off)
        .arg(&tgt)
        .arg(&wd)
        .arg(&n32)
        .arg(&big32)
        .arg(&inf)
        .arg(&mut m.dd)
        .arg(&mut m.pp)
        .arg(&m.has_pred);
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (big32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matches fw_init_*(off, tgt, w, n, big, inf, d, p, pred): block u < big
    // writes row u of d (big cells) and of p when pred is set (big^2 entries then), and
    // reads the arcs of u < n, whose targets are below n.
    unsafe { b.launch(cfg) }.map_err(gpu_err)?;
    let lay = Layout {
        big,
        rows: big,
        first_row: 0,
    };
    // The sink maps its memory while the GPU works.
    let seconds = rounds_on(
        gpu,
        variant,
        C::SUFFIX,
        &mut m,
        thr,
        (lay, n),
        None,
        &mut || work.prepare_sink(),
    )?;
    let mut c = [0u32];
    gpu.download_into(&m.cycle, &mut c)?;
    if c[0] != u32::MAX {
        return Ok((Some(c[0] as usize), seconds));
    }
    send_rows(gpu, &m, work)?;
    Ok((None, seconds))
}

/// Bytes of cells a block of rows coming back holds (at least one row).
const BACK_BYTES: usize = 16 << 20;

/// The rows `0..n` of the matrix `m` back to the host in blocks, through two page-locked
/// buffers ([`ReadBack`]): the host converts a block for the sink ([`Work::emit`]) while the
/// next crosses the bus.
fn send_rows<C: GpuCell>(gpu: &Gpu, m: &OnGpu<C>, work: &mut Work<'_>) -> Result<()> {
    let (big, n) = (work.big, work.n);
    let rows = (BACK_BYTES / (big * std::mem::size_of::<C>())).clamp(1, n.max(1));
    let blocks = n.div_ceil(rows);
    let range = |k: usize| k * rows * big..((k + 1) * rows).min(n) * big;
    let mut cells = ReadBack::<C>::new(gpu, rows * big)?;
    let mut preds = match work.pred {
        true => Some(ReadBack::<u32>::new(gpu, rows * big)?),
        false => None,
    };
    let queue =
        |k: usize, cells: &mut ReadBack<C>, preds: &mut Option<ReadBack<u32>>| -> Result<()> {
            cells.queue(gpu, k, &m.dd, range(k))?;
            match preds {
                Some(p) => p.queue(gpu, k, &m.pp, range(k)),
                None => Ok(()),
            }
        };
    queue(0, &mut cells, &mut preds)?;
    for k in 0..blocks {
        if k + 1 < blocks {
            queue(k + 1, &mut cells, &mut preds)?;
        }
        let d = cells.take(k)?;
        let p = match &mut preds {
            Some(p) => Some(p.take(k)?),
            None => None,
        };
        work.emit(k * rows, C::rows(d), p)?;
    }
    Ok(())
}

/// A team: the matrix built on the host, every rank's rows through [`on_target`], and the
/// rows to the sink.
fn on_team(
    spec: &TeamSpec,
    variant: FwVariant,
    work: &mut Work<'_>,
) -> Result<(Option<usize>, f64)> {
    let mut host = work.host_matrix()?;
    let dims = (work.big, work.n);
    let (matrix, pred) = host.parts();
    let (cycle, seconds) = match matrix {
        Matrix::I32 { d, thr } => on_target(spec, variant, "i32", d, thr, pred, dims),
        Matrix::I64 { d, thr } => on_target(spec, variant, "i64", d, thr, pred, dims),
        Matrix::F64 { d } => on_target(spec, variant, "f64", d, f64::INFINITY, pred, dims),
    }?;
    if cycle.is_none() {
        let (rows, p) = host.rows();
        work.emit(0, rows, p)?;
    }
    Ok((cycle, seconds))
}

/// The padded side as the kernels take it.
fn big32(big: usize) -> Result<u32> {
    u32::try_from(big).map_err(|_| Error::TooLarge {
        what: "vertices for the GPU Floyd-Warshall".into(),
        value: big as u64,
        limit: u64::from(u32::MAX),
    })
}

/// The rounds on every GPU of a team over its rows of `d`.
fn on_target<C: DeviceRepr + ValidAsZeroBits + Copy + NcclType + Send + Sync>(
    spec: &TeamSpec,
    variant: FwVariant,
    suffix: &str,
    d: &mut [C],
    thr: C,
    pred: Option<&mut [u32]>,
    (big, n): (usize, usize),
) -> Result<(Option<usize>, f64)> {
    // Whole blocks of 64 rows (fw-tuned's blocks) per rank.
    let units = big / TUNED_TILE as usize;
    let rows: Vec<Range<usize>> = (0..spec.world)
        .map(|r| {
            let u = crate::cuda::team::split(units, spec.world, r);
            u.start * TUNED_TILE as usize..u.end * TUNED_TILE as usize
        })
        .collect();
    // Every rank's host rows (of cells and predecessors). This process's ranks get their
    // own; in a team that spans processes rank 0 also gets those of the ranks of other
    // processes, to receive them into.
    let mut parts: Vec<Option<HostRows<'_, C>>> = Vec::with_capacity(spec.world);
    let (mut rest, mut prest) = (d, pred);
    for r in &rows {
        let (mine, tail) = rest.split_at_mut(r.len() * big);
        rest = tail;
        let pmine = match prest.take() {
            Some(p) => {
                let (a, b) = p.split_at_mut(r.len() * big);
                prest = Some(b);
                Some(a)
            }
            None => None,
        };
        parts.push(Some((r.clone(), mine, pmine)));
    }
    let local = spec.first_rank..spec.first_rank + spec.gpus.len();
    let spans = !spec.is_whole();
    let mut remote: Vec<(usize, HostRows<'_, C>)> = Vec::new();
    if spans && spec.has_root() {
        remote = (0..spec.world)
            .filter(|p| !local.contains(p))
            .filter_map(|p| parts[p].take().map(|h| (p, h)))
            .collect();
    }
    let mut inputs = Vec::with_capacity(spec.gpus.len());
    for rank in local.clone() {
        let (_, dm, pm) = parts[rank].take().expect("each rank's rows, once");
        let extra = if rank == 0 {
            std::mem::take(&mut remote)
        } else {
            Vec::new()
        };
        inputs.push((dm, pm, extra));
    }
    let results = crate::cuda::team::run(spec, inputs, |m, (dm, mut pm, extra)| {
        let share = Share {
            member: m,
            rows: &rows,
        };
        let (cycle, seconds) = rounds(
            &m.gpu,
            variant,
            suffix,
            dm,
            thr,
            pm.as_deref_mut(),
            (big, n),
            Some(share),
        )?;
        if !spans {
            return Ok((cycle, seconds));
        }
        gather_rows(m, !local.contains(&0), big, (&*dm, pm.as_deref()), extra)?;
        // Every process learns the least vertex on a negative cycle, and the slowest GPU.
        let mut c = m.gpu.upload(&[cycle.map_or(u64::MAX, |v| v as u64)])?;
        m.link.all_reduce_in_place(&mut c, Reduce::Min)?;
        let mut t = m.gpu.upload(&[seconds])?;
        m.link.all_reduce_in_place(&mut t, Reduce::Max)?;
        m.link.sync()?;
        let (mut cv, mut tv) = ([0u64], [0f64]);
        m.gpu.download_into(&c, &mut cv)?;
        m.gpu.download_into(&t, &mut tv)?;
        Ok(((cv[0] != u64::MAX).then_some(cv[0] as usize), tv[0]))
    })?;
    let cycle = results.iter().filter_map(|r| r.0).min();
    let seconds = results.iter().map(|r| r.1).fold(0.0, f64::max);
    Ok((cycle, seconds))
}

/// A rank's rows of the host matrix: their range, cells and predecessors.
type HostRows<'a, C> = (Range<usize>, &'a mut [C], Option<&'a mut [u32]>);

/// Rows a gather moves at once: one tile row of fw-tuned (ranks' rows are whole tile rows).
const GATHER_ROWS: usize = TUNED_TILE as usize;

/// In a team that spans processes, brings every rank's rows to rank 0's host matrix: each
/// rank of a process without rank 0 (`sends`) sends its rows (`mine`, cells and
/// predecessors, `big` cells a row), GATHER_ROWS at a time through a device buffer; rank 0
/// receives those of each rank in `remote` (rank, rows; in rank order) into their host
/// rows.
fn gather_rows<C: DeviceRepr + ValidAsZeroBits + Copy + NcclType>(
    m: &Member,
    sends: bool,
    big: usize,
    mine: (&[C], Option<&[u32]>),
    remote: Vec<(usize, HostRows<'_, C>)>,
) -> Result<()> {
    let gpu = &m.gpu;
    let chunk = GATHER_ROWS * big;
    let has_pred = mine.1.is_some();
    let mut cells = gpu.zeros::<C>(chunk)?;
    let mut preds = gpu.zeros::<u32>(if has_pred { chunk } else { 1 })?;
    if sends {
        for (i, block) in mine.0.chunks(chunk).enumerate() {
            send_block(m, block, &mut cells)?;
            if let Some(p) = mine.1 {
                send_block(m, &p[i * chunk..(i * chunk + block.len())], &mut preds)?;
            }
        }
        // The buffers may be freed only once the sends are done.
        m.link.sync()?;
    }
    if m.rank == 0 {
        for (from, (_, d, mut p)) in remote {
            for (i, block) in d.chunks_mut(chunk).enumerate() {
                let len = block.len();
                recv_block(m, from, &mut cells, block)?;
                if let Some(p) = p.as_deref_mut() {
                    recv_block(m, from, &mut preds, &mut p[i * chunk..(i * chunk + len)])?;
                }
            }
        }
        m.link.sync()?;
    }
    Ok(())
}

/// Sends `host` to rank 0 through the front of the device buffer `buf`.
fn send_block<T: DeviceRepr + NcclType>(
    m: &Member,
    host: &[T],
    buf: &mut CudaSlice<T>,
) -> Result<()> {
    let stream = m.gpu.stream();
    stream
        .memcpy_htod(host, &mut buf.slice_mut(..host.len()))
        .map_err(gpu_err)?;
    m.link.send(&buf.slice(..host.len()), 0)?;
    Ok(())
}

/// Receives `host.len()` values from rank `from` into `host`, through the front of the
/// device buffer `buf`.
fn recv_block<T: DeviceRepr + NcclType>(
    m: &Member,
    from: usize,
    buf: &mut CudaSlice<T>,
    host: &mut [T],
) -> Result<()> {
    m.link.recv(&mut buf.slice_mut(..host.len()), from)?;
    // The copy would wait for the receive unwatched.
    m.link.sync()?;
    m.gpu
        .stream()
        .memcpy_dtoh(&buf.slice(..host.len()), host)
        .map_err(gpu_err)?;
    Ok(())
}

/// Device bytes [`floyd_warshall`] allocates for `g` with `opts` (any variant): the
/// padded matrix in the CPU plan's cell type (the same plan the run follows), the
/// predecessors when asked for (else a one-word placeholder), and the cycle flag.
///
/// # Errors
/// [`Error::Unsupported`] for weights that need 128-bit sums; [`Error::Overflow`] as
/// [`floyd_warshall`].
///
/// ```
/// use warpgraph::apsp::{cuda::floyd_warshall_bytes, ApspOptions};
/// // 100 vertices pad to 128; unit weights fit i32 cells: 128^2 * 4 bytes, 4 + 4 more.
/// let g = warpgraph::Graph::empty(100, true);
/// assert_eq!(floyd_warshall_bytes(&g, &ApspOptions::default()).unwrap(), 128 * 128 * 4 + 8);
/// ```
pub fn floyd_warshall_bytes(g: &Graph, opts: &ApspOptions) -> Result<u64> {
    match matrix_shape(g)? {
        (_, 16) => Err(needs_128_bits()),
        (big, cell) => Ok(matrix_bytes(big, cell as u64, opts.predecessors)),
    }
}

/// Device bytes of a `big` x `big` matrix of `cell`-byte cells, its predecessors (`pred`;
/// else a placeholder word) and the cycle flag.
fn matrix_bytes(big: u64, cell: u64, pred: bool) -> u64 {
    let cells = big.saturating_mul(big);
    let pred = if pred { cells.saturating_mul(4) } else { 4 };
    cells
        .saturating_mul(cell)
        .saturating_add(pred)
        .saturating_add(4)
}

/// `fw-tuned` is `fw-blocked` where its third phase does not apply.
fn blocked(v: FwVariant) -> FwVariant {
    match v {
        FwVariant::Tuned => FwVariant::Blocked,
        v => v,
    }
}

/// A GPU's part of a team's Floyd-Warshall: the member, and every rank's rows.
#[derive(Clone, Copy)]
struct Share<'a> {
    member: &'a Member,
    rows: &'a [Range<usize>],
}

/// Every round on the GPU over the matrix `d` (`big` x `big` for `n` vertices, cells `thr`
/// and above unreachable) and predecessors `pred`, copied back in place: a vertex of
/// negative distance to itself, if any, and the kernel seconds.
///
/// In a team (`share`), `d` and `pred` are this rank's rows only; each round the owner
/// of the pivot rows closes them (phases 1 and 2 of the row) and broadcasts them, and every
/// rank does its column tiles and the rest from the broadcast copy.
#[allow(clippy::too_many_arguments)]
fn rounds<C: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync + NcclType>(
    gpu: &Arc<Gpu>,
    variant: FwVariant,
    suffix: &str,
    d: &mut [C],
    thr: C,
    pred: Option<&mut [u32]>,
    (big, n): (usize, usize),
    share: Option<Share<'_>>,
) -> Result<(Option<usize>, f64)> {
    let rows = d.len() / big.max(1);
    let first_row = share.map_or(0, |s| s.rows[s.member.rank].start);
    let lay = Layout {
        big,
        rows,
        first_row,
    };
    reserve(
        gpu,
        share,
        lay,
        std::mem::size_of::<C>() as u64,
        pred.is_some(),
    )?;
    let mut m = OnGpu::upload(gpu, d, pred.as_deref(), share.is_some(), big)?;
    let seconds = rounds_on(
        gpu,
        variant,
        suffix,
        &mut m,
        thr,
        (lay, n),
        share,
        &mut || Ok(()),
    )?;
    gpu.download_into(&m.dd, d)?;
    if let Some(p) = pred {
        gpu.download_into(&m.pp, p)?;
    }
    let mut c = [0u32];
    gpu.download_into(&m.cycle, &mut c)?;
    Ok(((c[0] != u32::MAX).then_some(c[0] as usize), seconds))
}

/// Every round of `variant` on the matrix `m` (cells of type `suffix`, laid out as `lay`,
/// `n` real vertices), in a team with `share`, with `meanwhile` run on the host once they
/// are queued: the kernels' seconds (CUDA events).
#[allow(clippy::too_many_arguments)]
fn rounds_on<C: DeviceRepr + ValidAsZeroBits + Copy + NcclType>(
    gpu: &Arc<Gpu>,
    variant: FwVariant,
    suffix: &str,
    m: &mut OnGpu<C>,
    thr: C,
    (lay, n): (Layout, usize),
    share: Option<Share<'_>>,
    meanwhile: &mut dyn FnMut() -> Result<()>,
) -> Result<f64> {
    let f = |name: &str| -> Result<CudaFunction> {
        gpu.function(&KERNELS, &format!("{name}_{suffix}"))
    };
    let big32 = big32(lay.big)?;
    let stream = gpu.stream().clone();
    let timer = gpu.timer()?;
    match variant {
        FwVariant::Naive => naive_rounds(&stream, &f("fw_naive")?, m, (big32, n), thr)?,
        FwVariant::Blocked | FwVariant::Tuned => {
            let (p1, p2, p3) = (f("fw_phase1")?, f("fw_phase2")?, f("fw_phase3")?);
            let p3_tuned = match variant == FwVariant::Tuned {
                true => Some(gpu.function(&KERNELS, "fw_tuned_phase3_u32")?),
                false => None,
            };
            let kernels = BlockedKernels {
                p1,
                p2,
                p3,
                p3_tuned,
            };
            blocked_rounds(&stream, &kernels, m, (lay, big32), thr, share)?;
        }
    }
    let done = timer.kernels_done(gpu)?;
    meanwhile()?;
    if let Some(s) = share {
        s.member.link.wait_event(&done)?;
    }
    Ok(timer.finish(&done)?.kernel_seconds)
}

/// Where a GPU's rows lie in the padded `big` x `big` matrix: `rows` rows from
/// `first_row` (all of them on one GPU).
#[derive(Clone, Copy)]
struct Layout {
    big: usize,
    rows: usize,
    first_row: usize,
}

/// Checks that this GPU can hold its part of the matrix (`cell` bytes a cell, with
/// predecessors or not) and, in a team, that every GPU can: no rank may wait in a
/// broadcast for one that could not allocate.
fn reserve(
    gpu: &Gpu,
    share: Option<Share<'_>>,
    Layout {
        big,
        rows,
        first_row,
    }: Layout,
    cell: u64,
    has_pred: bool,
) -> Result<()> {
    let needed = match share {
        None => matrix_bytes(big as u64, cell, has_pred),
        // This rank's rows and the broadcast pivot rows (cells and predecessors).
        Some(_) => {
            let per = cell + if has_pred { 4 } else { 0 };
            (rows as u64 + TILE as u64) * big as u64 * per + 8
        }
    };
    let made = gpu.check_memory(
        || match share {
            None => format!("Floyd-Warshall's {big} x {big} matrix on the GPU"),
            Some(s) => format!(
                "rank {} of {}: rows {}..{} of Floyd-Warshall's {big} x {big} matrix",
                s.member.rank,
                s.member.world,
                first_row,
                first_row + rows
            ),
        },
        needed,
    );
    if let Some(s) = share {
        if !s.member.agree(made.is_ok())? {
            made?;
            return Err(Error::Nccl(
                "another GPU of the team cannot hold its rows of the matrix".into(),
            ));
        }
    }
    made
}

/// The matrix on the GPU: its cells, its predecessors (else one placeholder word), a
/// team's broadcast pivot rows (cells and predecessors) and the cycle flag.
struct OnGpu<C> {
    dd: CudaSlice<C>,
    pp: CudaSlice<u32>,
    has_pred: u32,
    piv: Option<(CudaSlice<C>, CudaSlice<u32>)>,
    cycle: CudaSlice<u32>,
}

impl<C: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync> OnGpu<C> {
    /// Uploads the cells `d` and predecessors `pred`, and allocates a team's (`team`) pivot
    /// rows of `big` cells each and the cycle flag (no cycle yet).
    fn upload(gpu: &Gpu, d: &[C], pred: Option<&[u32]>, team: bool, big: usize) -> Result<Self> {
        let dd = gpu.upload(d)?;
        let pp = match pred {
            Some(p) => gpu.upload(p)?,
            None => gpu.zeros::<u32>(1)?,
        };
        Self::around(gpu, (dd, pp), pred.is_some(), team, big)
    }

    /// A `big` x `big` matrix (with predecessors: `pred`) for `fw_init` to fill, on one GPU.
    fn alloc(gpu: &Gpu, big: usize, pred: bool) -> Result<Self> {
        let dd = gpu.zeros::<C>(big * big)?;
        let pp = gpu.zeros::<u32>(if pred { big * big } else { 1 })?;
        Self::around(gpu, (dd, pp), pred, false, big)
    }

    /// The matrix of cells `dd` and predecessors `pp`, with the rest (see [`OnGpu::upload`]).
    fn around(
        gpu: &Gpu,
        (dd, pp): (CudaSlice<C>, CudaSlice<u32>),
        pred: bool,
        team: bool,
        big: usize,
    ) -> Result<Self> {
        let has_pred = u32::from(pred);
        let piv = match team {
            true => Some((
                gpu.zeros::<C>(TILE as usize * big)?,
                gpu.zeros::<u32>(if pred { TILE as usize * big } else { 1 })?,
            )),
            false => None,
        };
        let cycle = gpu.upload(&[u32::MAX])?;
        Ok(OnGpu {
            dd,
            pp,
            has_pred,
            piv,
            cycle,
        })
    }
}

/// `fw-naive`'s rounds: one launch of `k_fn` per pivot `k < n`, a thread per cell of the
/// `big32` x `big32` matrix.
fn naive_rounds<C: DeviceRepr + Copy>(
    stream: &Arc<CudaStream>,
    k_fn: &CudaFunction,
    m: &mut OnGpu<C>,
    (big32, n): (u32, usize),
    thr: C,
) -> Result<()> {
    // 16 x 16 threads a block; at most 1024 x 1024 blocks, which sweep bigger
    // matrices in tiles.
    let blocks = big32.div_ceil(16).min(1024);
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (blocks, blocks, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    // The padding vertices are isolated: pivoting on them changes nothing.
    for k in 0..n as u32 {
        let at = Pivot {
            has_pred: m.has_pred,
            big: big32,
            k,
            thr,
        };
        let mut b = stream.launch_builder(k_fn);
        at.push(&mut b, &mut m.dd, &mut m.pp);
        b.arg(&mut m.cycle);
        // SAFETY: matches fw_naive_*(d, p, pred, big, k, thr, cycle): d holds big^2
        // cells, p big^2 when pred is set (else one, never read), cycle one.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
    }
    Ok(())
}

/// The blocked variants' kernels for the cell type: phases 1, 2 and 3, and `fw-tuned`'s
/// third phase where it applies.
struct BlockedKernels {
    p1: CudaFunction,
    p2: CudaFunction,
    p3: CudaFunction,
    p3_tuned: Option<CudaFunction>,
}

/// `fw-blocked`'s and `fw-tuned`'s rounds, one per diagonal tile of the `big32`-wide
/// matrix laid out as `lay`: phase 1 and the pivot rows' phase 2 on the GPU that owns
/// them, then (one GPU) phase 2's column tiles with them and phase 3 over the matrix, or
/// (a team, [`team_round`]) the rest from the broadcast pivot rows.
fn blocked_rounds<C: DeviceRepr + Copy + NcclType>(
    stream: &Arc<CudaStream>,
    k: &BlockedKernels,
    m: &mut OnGpu<C>,
    (lay, big32): (Layout, u32),
    thr: C,
    share: Option<Share<'_>>,
) -> Result<()> {
    let tiles = big32 / TILE;
    let local_tiles = (lay.rows / TILE as usize) as u32;
    let t0 = (lay.first_row / TILE as usize) as u32;
    let mut ahead = std::collections::VecDeque::new();
    for kb in 0..tiles {
        if let Some(s) = share {
            // A team queues at most ROUNDS_AHEAD rounds ahead of its GPU, so that
            // every wait for the team is short and watched (Link::wait_event).
            ahead.push_back(
                stream
                    .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                    .map_err(gpu_err)?,
            );
            if ahead.len() > ROUNDS_AHEAD {
                let due = ahead.pop_front().expect("more than none");
                s.member.link.wait_event(&due)?;
            }
        }
        let pivot_row = (kb * TILE) as usize;
        let owner = share.map(|s| {
            s.rows
                .iter()
                .position(|r| r.contains(&pivot_row))
                .expect("the ranks' rows cover the matrix")
        });
        let mine = match (share, owner) {
            (Some(s), Some(o)) => o == s.member.rank,
            _ => true,
        };
        let at = Pivot {
            has_pred: m.has_pred,
            big: big32,
            k: kb,
            thr,
        };
        if mine {
            let mut b = stream.launch_builder(&k.p1);
            at.push(&mut b, &mut m.dd, &mut m.pp);
            b.arg(&mut m.cycle).arg(&t0);
            // SAFETY: matches fw_phase1_*; the diagonal tile's rows are this
            // GPU's (kb >= t0), and big a multiple of TILE, so it lies inside d.
            unsafe { b.launch(tile_grid(1, 1)) }.map_err(gpu_err)?;
        }
        // Phase 2: the pivot rows' tiles on their owner (with the column tiles
        // in the same launch on one GPU).
        if mine {
            let parts = if share.is_none() { 2 } else { 1 };
            launch_tiles(
                stream,
                &k.p2,
                (&mut m.dd, &mut m.pp),
                (&at, t0),
                Some(0),
                None,
                (tiles, parts),
            )?;
        }
        let Some(s) = share else {
            // One GPU: phase 3 over the whole matrix.
            phase3(
                stream,
                (&k.p3, k.p3_tuned.as_ref()),
                (&mut m.dd, &mut m.pp),
                (&at, t0),
                None,
                (tiles, local_tiles),
            )?;
            continue;
        };
        let root = owner.expect("a team has an owner");
        team_round(
            stream,
            k,
            m,
            (&at, t0),
            (s, root, mine),
            lay,
            (tiles, local_tiles),
        )?;
    }
    Ok(())
}

/// A team's rest of round `at.k` once the owner (`root`; `mine`: this GPU) has closed the
/// pivot rows: the owner broadcasts them (cells, then predecessors) to every rank, and
/// each rank with rows does its column tiles (phase 2) and the rest (phase 3) from the
/// copy.
#[allow(clippy::type_complexity)]
fn team_round<C: DeviceRepr + NcclType>(
    stream: &Arc<CudaStream>,
    k: &BlockedKernels,
    m: &mut OnGpu<C>,
    (at, t0): (&Pivot<C>, u32),
    (s, root, mine): (Share<'_>, usize, bool),
    lay: Layout,
    (tiles, local_tiles): (u32, u32),
) -> Result<()> {
    let (pc, pq) = m.piv.as_mut().expect("a team has pivot buffers");
    let pivot_row = (at.k * TILE) as usize;
    let off = pivot_row.saturating_sub(lay.first_row) * lay.big;
    let span = TILE as usize * lay.big;
    let link = &s.member.link;
    // The owner's pivot rows (cells, then predecessors) to every rank.
    link.broadcast(mine.then(|| m.dd.slice(off..off + span)).as_ref(), pc, root)?;
    if m.has_pred == 1 {
        link.broadcast(mine.then(|| m.pp.slice(off..off + span)).as_ref(), pq, root)?;
    }
    if local_tiles == 0 {
        return Ok(());
    }
    launch_tiles(
        stream,
        &k.p2,
        (&mut m.dd, &mut m.pp),
        (at, t0),
        Some(1),
        Some((&*pc, &*pq)),
        (local_tiles, 1),
    )?;
    phase3(
        stream,
        (&k.p3, k.p3_tuned.as_ref()),
        (&mut m.dd, &mut m.pp),
        (at, t0),
        Some((&*pc, &*pq)),
        (tiles, local_tiles),
    )
}

/// What each kernel over the matrix's cells (and predecessors) takes first, fw.cu's `(d,
/// p, pred, big, k, thr)`: whether there are predecessors, the padded side, the pivot (the
/// pivot tile, blocked) and the threshold below which a diagonal cell is a negative cycle.
struct Pivot<C> {
    has_pred: u32,
    big: u32,
    k: u32,
    thr: C,
}

impl<C: DeviceRepr> Pivot<C> {
    fn push<'a>(
        &'a self,
        b: &mut LaunchArgs<'a>,
        dd: &'a mut CudaSlice<C>,
        pp: &'a mut CudaSlice<u32>,
    ) {
        b.arg(dd)
            .arg(pp)
            .arg(&self.has_pred)
            .arg(&self.big)
            .arg(&self.k)
            .arg(&self.thr);
    }
}

/// A team's broadcast pivot rows (cells, predecessors) for a launch, or two null pointers
/// on one GPU, where the kernels read the matrix's own.
fn push_pivot_rows<'a, C: DeviceRepr>(
    b: &mut LaunchArgs<'a>,
    piv: Option<(&'a CudaSlice<C>, &'a CudaSlice<u32>)>,
    null: &'a u64,
) {
    match piv {
        Some((pc, pq)) => b.arg(pc).arg(pq),
        None => b.arg(null).arg(null),
    };
}

/// `x` x `y` blocks of TILE x TILE threads, a thread a cell of a tile.
fn tile_grid(x: u32, y: u32) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (x, y, 1),
        block_dim: (TILE, TILE, 1),
        shared_mem_bytes: 0,
    }
}

/// Phase 2 (`first`: its first part, 0 for the pivot rows' tiles, 1 for the column tiles
/// of this GPU's rows) or the plain phase 3 (`None`) of round `at.k` on a `grid` of tiles
/// (phase 2: tiles by parts; phase 3: tiles by this GPU's tile rows), from tile row `t0`,
/// this GPU's first; `piv` is the broadcast pivot rows of a team (`None`: read from the
/// matrix).
#[allow(clippy::type_complexity)]
fn launch_tiles<C: DeviceRepr>(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    (dd, pp): (&mut CudaSlice<C>, &mut CudaSlice<u32>),
    (at, t0): (&Pivot<C>, u32),
    first: Option<u32>,
    piv: Option<(&CudaSlice<C>, &CudaSlice<u32>)>,
    (x, y): (u32, u32),
) -> Result<()> {
    let null = 0u64;
    let mut b = stream.launch_builder(kernel);
    at.push(&mut b, dd, pp);
    b.arg(&t0);
    if let Some(first) = &first {
        b.arg(first);
    }
    push_pivot_rows(&mut b, piv, &null);
    // SAFETY: matches fw_phase2_*(d, p, pred, big, kb, thr, t0, ybase, piv, ppiv) with
    // `first` (ybase), fw_phase3_*(d, p, pred, big, kb, thr, t0, piv, ppiv) without: the
    // tiles lie inside this GPU's rows (the pivot rows' on their owner); the pivot rows,
    // d's own when null, hold TILE x big cells (and predecessors).
    unsafe { b.launch(tile_grid(x, y)) }.map_err(gpu_err)?;
    Ok(())
}

/// Phase 3 of round `at.k` over this GPU's `local_tiles` tile rows (of `tiles` tiles a
/// row, from tile row `t0`): the tuned kernel when given, else the plain one; `piv` is the
/// broadcast pivot rows of a team (`None`: read from the matrix).
#[allow(clippy::type_complexity)]
fn phase3<C: DeviceRepr>(
    stream: &Arc<CudaStream>,
    (plain, tuned): (&CudaFunction, Option<&CudaFunction>),
    (dd, pp): (&mut CudaSlice<C>, &mut CudaSlice<u32>),
    (at, t0): (&Pivot<C>, u32),
    piv: Option<(&CudaSlice<C>, &CudaSlice<u32>)>,
    (tiles, local_tiles): (u32, u32),
) -> Result<()> {
    let Some(k) = tuned else {
        return launch_tiles(
            stream,
            plain,
            (dd, pp),
            (at, t0),
            None,
            piv,
            (tiles, local_tiles),
        );
    };
    let null = 0u64;
    let mut b = stream.launch_builder(k);
    b.arg(dd).arg(&at.big).arg(&at.k).arg(&t0);
    match piv {
        Some((pc, _)) => b.arg(pc),
        None => b.arg(&null),
    };
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (at.big / TUNED_TILE, local_tiles * TILE / TUNED_TILE, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matches fw_tuned_phase3_u32(d, big, kb, t0, piv): the cells are non-negative
    // i32 (read as u32); the local rows and big are multiples of 64, so every 64 x 64 block
    // and its 16-byte loads lie inside the matrix; the pivot rows hold TILE x big cells.
    unsafe { b.launch(cfg) }.map_err(gpu_err)?;
    Ok(())
}
