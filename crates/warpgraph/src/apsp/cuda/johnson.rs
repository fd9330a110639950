//! Johnson's algorithm on the GPU (seed 002): all-pairs shortest paths for sparse graphs.
//!
//! **Computes** what [`crate::apsp::cpu::johnson()`] computes (distances; not yet
//! predecessors), rows streamed into a [`RowSink`] batch by batch, so the n x n result
//! never has to exist whole on the GPU or the host.
//!
//! **Method**: the CPU's Bellman-Ford from a virtual source gives the potentials (and
//! names a negative cycle) and reweights every arc to `w + h(u) - h(v) >= 0` (skipped
//! without a negative weight); the reweighted graph goes to the GPU once; then batches of
//! sources run at once, one block per source (`sssp_batch_*` in `sssp/cuda/sssp.cu`: a
//! label-correcting search, a warp per frontier vertex); each batch of rows comes back and
//! is un-reweighted on the host (`d - h(s) + h(t)`, checked) while the sink takes it.

use std::sync::Arc;

use cudarc::driver::{DeviceRepr, PushKernelArg, ValidAsZeroBits};
use rayon::prelude::*;

use crate::apsp::cpu::johnson::{reweighted, Reweighted, Unweight};
use crate::apsp::{ApspOptions, DistType, RowBlock, RowSink, RowsInfo};
use crate::cuda::{gpu_err, launch_config, Gpu};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId};
use crate::progress::Progress;
use crate::sssp::cuda::KERNELS;

/// Threads per source.
const THREADS: u32 = 256;
/// The most sources searched at once.
const MAX_BATCH: usize = 4096;

/// Johnson on `gpu`, the rows into `sink`; the seconds its kernels took (CUDA events).
///
/// # Errors
/// As [`crate::apsp::cpu::johnson()`]; [`Error::Unsupported`] for predecessors (not yet on
/// the GPU); [`Error::OutOfMemory`] when the graph and one source's search state do not
/// fit on the GPU; [`Error::Gpu`] for a driver error.
pub fn johnson(
    gpu: &Arc<Gpu>,
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64> {
    if opts.predecessors {
        return Err(Error::Unsupported(
            "predecessors from the GPU's johnson are not done yet: use floyd-warshall on the \
             GPU, or --device cpu"
                .into(),
        ));
    }
    match reweighted(g.out())? {
        Reweighted::I64(w, h) => rows(gpu, g, &w, h.as_deref(), "i64", sink, progress),
        Reweighted::F64(w, h) => rows(gpu, g, &w, h.as_deref(), "f64", sink, progress),
    }
}

/// The batched searches over weights `w` (non-negative), un-reweighted with `h`.
fn rows<D>(
    gpu: &Arc<Gpu>,
    g: &Graph,
    w: &[D],
    h: Option<&[D]>,
    suffix: &str,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<f64>
where
    D: DeviceRepr + ValidAsZeroBits + Unweight + Copy + Send + Sync,
{
    let csr = g.out();
    let n = csr.num_vertices();
    let m = csr.targets().len() as u64;
    let info = RowsInfo {
        num_vertices: n,
        dist_type: DistType::of(g.weight_type()),
        predecessors: false,
    };
    let graph_bytes = 8 * (n as u64 + 1) + 12 * m + 4;
    // Per source: its distances (8n), two lists (8n) and stamps (4n).
    let per_source = 20 * n as u64;
    gpu.check_memory(
        || format!("johnson on {n} vertices (the graph and one source's search)"),
        graph_bytes + per_source,
    )?;
    sink.begin(&info)?;
    if n == 0 {
        sink.finish()?;
        return Ok(0.0);
    }
    let free = gpu.free_bytes()?.saturating_sub(graph_bytes) / 2;
    let batch = ((free / per_source.max(1)) as usize).clamp(1, MAX_BATCH.min(n));
    let f = gpu.function(&KERNELS, &format!("sssp_batch_{suffix}"))?;
    let off = gpu.upload(csr.offsets())?;
    let tgt = gpu.upload(csr.targets())?;
    let wd = gpu.upload(w)?;
    let mut dist = gpu.zeros::<D>(batch * n)?;
    let mut lists = gpu.zeros::<u32>(2 * batch * n)?;
    let mut stamps = gpu.zeros::<u32>(batch * n)?;
    let mut flags = gpu.zeros::<u32>(3)?;
    let n32 = n as u32;
    let mut host: Vec<D> = vec![D::INFINITY; batch * n];
    let mut kernel_seconds = 0.0;
    progress.begin("johnson (GPU)", n as u64);
    for first in (0..n).step_by(batch) {
        let rows = batch.min(n - first);
        let first32 = first as u32;
        let timer = gpu.timer()?;
        let mut b = gpu.stream().launch_builder(&f);
        b.arg(&off)
            .arg(&tgt)
            .arg(&wd)
            .arg(&n32)
            .arg(&first32)
            .arg(&mut dist)
            .arg(&mut lists)
            .arg(&mut stamps)
            .arg(&mut flags);
        // SAFETY: matches sssp_batch_*(off, tgt, wt, n, first, dist_all, lists, stamps,
        // flags) with the weights in the distance type (the suffix): block b < rows uses
        // row b of dist (n), 2n list entries and n stamps, all within the batch's buffers.
        unsafe { b.launch(launch_config(rows as u32, THREADS)) }.map_err(gpu_err)?;
        let done = timer.kernels_done(gpu)?;
        kernel_seconds += timer.finish(&done)?.kernel_seconds;
        let out = &mut host[..rows * n];
        gpu.download_into(&dist, out)?;
        let mut flag = [0u32];
        gpu.download_into(&flags, &mut flag)?;
        if flag[0] != 0 {
            return Err(Error::Overflow(
                "a path sum left the distance range on the GPU".into(),
            ));
        }
        if let Some(h) = h {
            out.par_chunks_mut(n).enumerate().try_for_each(|(i, row)| {
                let s = first + i;
                for (t, d) in row.iter_mut().enumerate() {
                    if *d != D::INFINITY {
                        *d = D::unweight(*d, h[s], h[t]).ok_or_else(|| {
                            Error::Overflow(format!(
                                "the distance from vertex {s} to vertex {t} leaves the distance range"
                            ))
                        })?;
                    }
                }
                Ok::<(), Error>(())
            })?;
        }
        sink.rows(&RowBlock {
            first: first as VertexId,
            num_vertices: n,
            dist: D::dists(out),
            pred: None,
        })?;
        progress.advance(rows as u64);
    }
    progress.finish();
    sink.finish()?;
    Ok(kernel_seconds)
}
