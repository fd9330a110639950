//! Betweenness centrality on the GPU.
//!
//! **Computes** the sums [`super::betweenness`] rescales, for unweighted graphs (or with
//! [`super::Weighting::Unit`]): Brandes' dependencies of every vertex added over the
//! sources (with the endpoints' terms when asked for), and each source's fingerprint for
//! the verifier, as the CPU's worker adds them (up to the order of floating-point
//! additions).
//!
//! **Method**: U. Brandes, "A faster algorithm for betweenness centrality" (2001), from
//! many sources at once (`brandes.cu`): a block per source, up to thousands at once, each
//! with its own levels, path counts (later coefficients) and order of discovery in device
//! memory (24 bytes a vertex; a vertex's level and value in one 16-byte cell, so that an
//! arc costs one random access); a level-synchronous breadth-first search that counts
//! shortest paths, then the dependencies pulled level by level from the deepest up, added
//! into one array of sums by atomic addition. The frontier's vertices take a group of
//! lanes sized to the mean degree, as the batched searches of distance tables do. The
//! batches are as large as 7/8 of the free device memory holds.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use crate::cuda::{gpu_err, lanes_per_vertex, launch_config, sources_at_once, Gpu, KernelSource};
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use crate::progress::Progress;

/// The kernels.
pub const KERNELS: KernelSource = KernelSource {
    name: "centrality",
    source: include_str!("brandes.cu"),
};

/// Every kernel file of this module (for the tests that compile them all).
pub const KERNEL_SOURCES: &[&KernelSource] = &[&KERNELS];

/// Threads per source.
const THREADS: u32 = 256;
/// The most sources searched at once.
const MAX_BATCH: usize = 4096;

/// What [`sums`] returns: the unscaled sums, one per vertex; each source's fingerprint, in
/// the order of the sources; and the seconds the kernels took.
pub(crate) type Sums = (Vec<f64>, Vec<f64>, f64);

/// Brandes' dependencies from each of `sources` (distinct vertices of `csr`, every arc
/// of weight 1) added up on `gpu`, with the endpoints' terms when `endpoints`.
///
/// # Errors
/// [`crate::Error::OutOfMemory`] when the graph and one source's state do not fit on the
/// GPU (bytes needed and free); [`crate::Error::Gpu`] for a driver error.
pub(crate) fn sums(
    gpu: &Arc<Gpu>,
    csr: &Csr,
    sources: &[VertexId],
    endpoints: bool,
    progress: &dyn Progress,
) -> Result<Sums> {
    let n = csr.num_vertices();
    let k = sources.len();
    let plan = Plan::new(n, csr.num_arcs(), k, gpu.free_bytes()?);
    gpu.check_memory(
        || format!("betweenness on {n} vertices (the graph and one source's state)"),
        plan.least(),
    )?;
    if n == 0 || k == 0 {
        return Ok((vec![0.0; n], vec![0.0; k], 0.0));
    }
    let batch = plan.batch;
    let f = gpu.function(&KERNELS, "brandes_batch")?;
    let off = gpu.upload(csr.offsets())?;
    let tgt = gpu.upload(csr.targets())?;
    let src = gpu.upload(sources)?;
    let mut state = State {
        cells: gpu.zeros::<u64>(2 * batch * n)?,
        order: gpu.zeros::<u32>(batch * n)?,
        bounds: gpu.zeros::<u32>(batch * (n + 1))?,
        bc: gpu.zeros::<f64>(n)?,
        fps: gpu.zeros::<f64>(k)?,
    };
    let group = lanes_per_vertex(n as u64, csr.num_arcs());
    let (n32, ends) = (n as u32, u32::from(endpoints));
    progress.begin("betweenness (GPU)", k as u64);
    let mut seconds = 0.0;
    for first in (0..k).step_by(batch) {
        let rows = batch.min(k - first);
        let timer = gpu.timer()?;
        let first32 = first as u32;
        let mut b = gpu.stream().launch_builder(&f);
        b.arg(&off)
            .arg(&tgt)
            .arg(&n32)
            .arg(&src)
            .arg(&first32)
            .arg(&group)
            .arg(&ends)
            .arg(&mut state.cells)
            .arg(&mut state.order)
            .arg(&mut state.bounds)
            .arg(&mut state.bc)
            .arg(&mut state.fps);
        // SAFETY: matches brandes_batch(off, tgt, n, sources, first, group, endpoints,
        // cells, order, bounds, bc, fps): block b < rows takes sources[first + b] (first +
        // rows <= k, the sources uploaded) and slice b of the state (n 16-byte cells, as
        // two u64 each from a 256-byte aligned start, n values of order, n + 1 bounds),
        // all sized for `batch >= rows` blocks; it
        // adds into bc (n) and writes fps[first + b] (k).
        unsafe { b.launch(launch_config(rows as u32, THREADS)) }.map_err(gpu_err)?;
        // (Each batch waits for its kernel, so that the progress is the GPU's.)
        seconds += timer.finish(&gpu.mark()?)?.kernel_seconds;
        progress.advance(rows as u64);
    }
    progress.finish();
    let mut bc = vec![0.0; n];
    gpu.download_into(&state.bc, &mut bc)?;
    let mut fps = vec![0.0; k];
    gpu.download_into(&state.fps, &mut fps)?;
    Ok((bc, fps, seconds))
}

/// The device state of a batch of sources.
struct State {
    /// Each vertex's level and value (`Cell` in `brandes.cu`), two words each.
    cells: CudaSlice<u64>,
    order: CudaSlice<u32>,
    bounds: CudaSlice<u32>,
    bc: CudaSlice<f64>,
    fps: CudaSlice<f64>,
}

/// How the batches use the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// Bytes of the graph (offsets and targets), the sources, the sums (8 a vertex) and
    /// the fingerprints (8 a source).
    fixed: u64,
    /// Bytes per source searched at once: cells, order and level starts (24 a vertex
    /// and 4).
    per_source: u64,
    /// Sources at once: as many as [`sources_at_once`] of the free memory left holds, 1
    /// to [`MAX_BATCH`] and at most `k`.
    batch: usize,
}

impl Plan {
    /// The plan for `n` vertices, `m` arcs and `k` sources with `free` device bytes.
    fn new(n: usize, m: u64, k: usize, free: u64) -> Plan {
        let (n64, k64) = (n as u64, k as u64);
        let fixed = 8 * (n64 + 1) + 4 * m + 4 * k64 + 8 * n64 + 8 * k64;
        let per_source = 24 * n64 + 4;
        Plan {
            fixed,
            per_source,
            batch: sources_at_once(free.saturating_sub(fixed), per_source, MAX_BATCH.min(k)),
        }
    }

    /// The least that must fit: the graph and one source's state.
    fn least(&self) -> u64 {
        self.fixed + self.per_source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_by_hand() {
        // A million vertices, 32 million arcs, 1,024 sources: the graph 8 MB + 128 MB, the
        // sources 4 KB, the sums 8 MB, the fingerprints 8 KB; 24 MB a source.
        let p = Plan::new(1 << 20, 32 << 20, 1024, 100 << 30);
        assert_eq!(
            p.fixed,
            8 * ((1 << 20) + 1) + (128 << 20) + 4096 + (8 << 20) + 8192
        );
        assert_eq!(p.per_source, 24 << 20 | 4);
        assert_eq!(p.batch, 1024);
        // 1 GiB free: 7/8 of (2^30 - fixed) / per_source sources at once.
        let q = Plan::new(1 << 20, 32 << 20, 1024, 1 << 30);
        assert_eq!(q.batch as u64, ((1 << 30) - q.fixed) / 8 * 7 / q.per_source);
        // Nothing free: one at a time.
        assert_eq!(Plan::new(100, 400, 7, 0).batch, 1);
        assert_eq!(lanes_per_vertex(1 << 20, 32 << 20), 32);
    }
}
