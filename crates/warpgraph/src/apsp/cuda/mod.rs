//! All-pairs shortest paths on an NVIDIA GPU: Floyd-Warshall (seed 001) here, Johnson
//! (seed 002) in [`johnson()`].
//!
//! **Computes** what [`crate::apsp::cpu::floyd_warshall()`] computes, rows streamed into a
//! [`RowSink`]: the CPU builds the working matrix (its cell type, sentinels and bounds), the
//! GPU does every round, and the CPU converts the rows and reports a negative cycle (found
//! on the GPU as a negative diagonal value, named by the CPU's Bellman-Ford).
//!
//! **Method** (kernels in `fw.cu`), by [`FwVariant`]:
//! - `fw-naive`: one launch per pivot k, one thread per element (i, j), the grid sweeping
//!   a matrix larger than itself tile by tile (seed 001's naive version);
//! - `fw-blocked`: the three-phase blocked algorithm of Venkataraman et al. (seed 001): per
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

pub use johnson::{johnson, johnson_bytes};

use std::sync::Arc;

use cudarc::driver::{CudaFunction, DeviceRepr, PushKernelArg, ValidAsZeroBits};

use super::cpu::floyd_warshall::{floyd_warshall_by, matrix_shape, Matrix, Work};
use super::{ApspOptions, RowSink};
use crate::cuda::{gpu_err, Gpu, KernelSource};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::progress::Progress;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "fw",
    source: include_str!("fw.cu"),
};

/// The tile edge of `fw-blocked` (`TILE` in `fw.cu`).
const TILE: u32 = 32;
/// The block edge of `fw-tuned`'s third phase (`TT` in `fw.cu`).
const TUNED_TILE: u32 = 64;

/// Which GPU Floyd-Warshall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FwVariant {
    /// One launch per pivot, a thread per element (seed 001's naive version).
    Naive,
    /// Three phases per 32 x 32 diagonal tile, in shared memory (seed 001's blocked one).
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
    let mut kernel_seconds = 0.0;
    let nonnegative = !super::cpu::has_negative_weight(g);
    let mut solve = |work: Work<'_>| -> Result<Option<usize>> {
        let (cycle, seconds) = match work.matrix {
            Matrix::I32 { d, thr } => {
                // fw-tuned's third phase: non-negative 32-bit cells, no predecessors.
                let variant = match variant {
                    FwVariant::Tuned if !nonnegative || work.pred.is_some() => FwVariant::Blocked,
                    v => v,
                };
                rounds(gpu, variant, "i32", d, thr, work.pred, (work.big, work.n))
            }
            Matrix::I64 { d, thr } => rounds(
                gpu,
                blocked(variant),
                "i64",
                d,
                thr,
                work.pred,
                (work.big, work.n),
            ),
            Matrix::F64 { d } => rounds(
                gpu,
                blocked(variant),
                "f64",
                d,
                f64::INFINITY,
                work.pred,
                (work.big, work.n),
            ),
            Matrix::I128 => Err(needs_128_bits()),
        }?;
        kernel_seconds = seconds;
        Ok(cycle)
    };
    progress.begin("floyd-warshall (GPU)", 1);
    let r = floyd_warshall_by(g, opts, sink, progress, Some(&mut solve));
    progress.finish();
    r.map(|_| kernel_seconds)
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

/// The refusal of weights whose sums need 128 bits.
fn needs_128_bits() -> Error {
    Error::Unsupported(
        "these weights need 128-bit sums, which the GPU Floyd-Warshall does not do: run it \
         on the CPU (--device cpu)"
            .into(),
    )
}

/// `fw-tuned` is `fw-blocked` where its third phase does not apply.
fn blocked(v: FwVariant) -> FwVariant {
    match v {
        FwVariant::Tuned => FwVariant::Blocked,
        v => v,
    }
}

/// Every round on the GPU over the matrix `d` (`big` x `big` for `n` vertices, cells `thr`
/// and above unreachable) and predecessors `pred`, copied back in place: a vertex of
/// negative distance to itself, if any, and the kernel seconds.
fn rounds<C: DeviceRepr + ValidAsZeroBits + Copy>(
    gpu: &Arc<Gpu>,
    variant: FwVariant,
    suffix: &str,
    d: &mut [C],
    thr: C,
    pred: Option<&mut [u32]>,
    (big, n): (usize, usize),
) -> Result<(Option<usize>, f64)> {
    let cell = std::mem::size_of::<C>() as u64;
    gpu.check_memory(
        || format!("Floyd-Warshall's {big} x {big} matrix on the GPU"),
        matrix_bytes(big as u64, cell, pred.is_some()),
    )?;
    let f = |name: &str| -> Result<CudaFunction> {
        gpu.function(&KERNELS, &format!("{name}_{suffix}"))
    };
    let mut dd = gpu.upload(d)?;
    let has_pred = u32::from(pred.is_some());
    let mut pp = match &pred {
        Some(p) => gpu.upload(p)?,
        None => gpu.zeros::<u32>(1)?,
    };
    let mut cycle = gpu.upload(&[u32::MAX])?;
    let big32 = u32::try_from(big).map_err(|_| Error::TooLarge {
        what: "vertices for the GPU Floyd-Warshall".into(),
        value: big as u64,
        limit: u64::from(u32::MAX),
    })?;
    let stream = gpu.stream().clone();
    let timer = gpu.timer()?;
    match variant {
        FwVariant::Naive => {
            let k_fn = f("fw_naive")?;
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
                let mut b = stream.launch_builder(&k_fn);
                b.arg(&mut dd)
                    .arg(&mut pp)
                    .arg(&has_pred)
                    .arg(&big32)
                    .arg(&k)
                    .arg(&thr)
                    .arg(&mut cycle);
                // SAFETY: matches fw_naive_*(d, p, pred, big, k, thr, cycle): d holds big^2
                // cells, p big^2 when pred is set (else one, never read), cycle one.
                unsafe { b.launch(cfg) }.map_err(gpu_err)?;
            }
        }
        FwVariant::Blocked | FwVariant::Tuned => {
            let (p1, p2, p3) = (f("fw_phase1")?, f("fw_phase2")?, f("fw_phase3")?);
            let p3_tuned = match variant == FwVariant::Tuned {
                true => Some(gpu.function(&KERNELS, "fw_tuned_phase3_u32")?),
                false => None,
            };
            let tiles = big32 / TILE;
            let cfg = |x: u32, y: u32| cudarc::driver::LaunchConfig {
                grid_dim: (x, y, 1),
                block_dim: (TILE, TILE, 1),
                shared_mem_bytes: 0,
            };
            for kb in 0..tiles {
                let mut b = stream.launch_builder(&p1);
                b.arg(&mut dd)
                    .arg(&mut pp)
                    .arg(&has_pred)
                    .arg(&big32)
                    .arg(&kb)
                    .arg(&thr)
                    .arg(&mut cycle);
                // SAFETY: matches fw_phase1_*; big is a multiple of TILE (64 divides it),
                // so every tile lies inside the matrix.
                unsafe { b.launch(cfg(1, 1)) }.map_err(gpu_err)?;
                // Phase 2, then phase 3 (tuned or not).
                let plain_p3 = p3_tuned.is_none().then_some((&p3, (tiles, tiles)));
                for (k, grid) in std::iter::once((&p2, (tiles, 2))).chain(plain_p3) {
                    let mut b = stream.launch_builder(k);
                    b.arg(&mut dd)
                        .arg(&mut pp)
                        .arg(&has_pred)
                        .arg(&big32)
                        .arg(&kb)
                        .arg(&thr);
                    // SAFETY: matches fw_phase2_* and fw_phase3_*, as above.
                    unsafe { b.launch(cfg(grid.0, grid.1)) }.map_err(gpu_err)?;
                }
                if let Some(k) = &p3_tuned {
                    let mut b = stream.launch_builder(k);
                    b.arg(&mut dd).arg(&big32).arg(&kb);
                    let wide = big32 / TUNED_TILE;
                    let cfg3 = cudarc::driver::LaunchConfig {
                        grid_dim: (wide, wide, 1),
                        block_dim: (256, 1, 1),
                        shared_mem_bytes: 0,
                    };
                    // SAFETY: matches fw_tuned_phase3_u32(d, big, kb): the cells are
                    // non-negative i32 (read as u32), big a multiple of 64 so every 64 x 64
                    // block and its 16-byte loads lie inside the matrix.
                    unsafe { b.launch(cfg3) }.map_err(gpu_err)?;
                }
            }
        }
    }
    let done = timer.kernels_done(gpu)?;
    let seconds = timer.finish(&done)?.kernel_seconds;
    gpu.download_into(&dd, d)?;
    if let Some(p) = pred {
        gpu.download_into(&pp, p)?;
    }
    let mut c = [0u32];
    gpu.download_into(&cycle, &mut c)?;
    Ok(((c[0] != u32::MAX).then_some(c[0] as usize), seconds))
}
