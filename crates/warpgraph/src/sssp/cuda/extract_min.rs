//! The CUDA SSSP thesis's ExtractMin on the GPU, alone: the least of n keys and its position by a
//! parallel reduction (`extract_min_pass` in `dijkstra.cu`, the same block reduction as the
//! GPU `dijkstra`'s), for the ExtractMin study ([`crate::sssp::extract_min`]).
//!
//! **Method**: passes of one kernel; each block of T threads reduces 2T entries to one,
//! so n keys take ceil(log_2T n) passes (n = 10^7 at T = 512: 9,766, then 10, then 1
//! entries), ping-ponging between two buffers of partial results.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, PinnedHostSlice, PushKernelArg};

use super::{check_extract_min_threads, KERNELS_I32};
use crate::cuda::{gpu_err, launch_config, Gpu};
use crate::error::{Error, Result};

/// Keys on the GPU, ready for timed ExtractMins.
pub struct GpuExtractMin {
    gpu: Arc<Gpu>,
    pass: CudaFunction,
    n: u32,
    keys: CudaSlice<i64>,
    /// Partial results: keys and positions, twice (ping-pong).
    part: [(CudaSlice<i64>, CudaSlice<u32>); 2],
    key_host: PinnedHostSlice<i64>,
    pos_host: PinnedHostSlice<u32>,
}

impl GpuExtractMin {
    /// Uploads `keys` (at least one, fewer than 2^32) to `gpu`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no keys or too many; [`Error::OutOfMemory`] when they
    /// do not fit; [`Error::Gpu`] for a driver error.
    pub fn new(gpu: &Arc<Gpu>, keys: &[i64]) -> Result<GpuExtractMin> {
        let n = u32::try_from(keys.len())
            .ok()
            .filter(|&n| n > 0 && n < u32::MAX)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "ExtractMin takes 1 to 2^32 - 2 keys, not {}",
                    keys.len()
                ))
            })?;
        // The first pass's output is the largest: n / 256 entries at 128 threads a block.
        let part_len = keys.len().div_ceil(256);
        gpu.check_memory(
            || format!("ExtractMin over {n} keys"),
            8 * keys.len() as u64 + 2 * 12 * part_len as u64,
        )?;
        let part = |_| -> Result<_> { Ok((gpu.zeros(part_len)?, gpu.zeros(part_len)?)) };
        Ok(GpuExtractMin {
            // (Every weight type's module holds it, as every kernel that takes no weights.)
            pass: gpu.function(&KERNELS_I32, "extract_min_pass")?,
            n,
            keys: gpu.upload(keys)?,
            part: [part(0)?, part(1)?],
            key_host: gpu.pinned(1)?,
            pos_host: gpu.pinned(1)?,
            gpu: gpu.clone(),
        })
    }

    /// Queues one ExtractMin with `threads` per block; the index of the partial-result
    /// buffer whose entry 0 will hold the answer.
    fn launch(&mut self, threads: u32) -> Result<usize> {
        let stream = self.gpu.stream().clone();
        let mut len = self.n;
        let mut out = 0;
        let mut first = true;
        while first || len > 1 {
            let blocks = len.div_ceil(2 * threads);
            let [a, b] = &mut self.part;
            let (src, dst) = if out == 0 { (&*b, a) } else { (&*a, b) };
            let mut l = stream.launch_builder(&self.pass);
            match first {
                true => l.arg(&self.keys).arg(&src.1),
                false => l.arg(&src.0).arg(&src.1),
            };
            let flag = u32::from(first);
            l.arg(&len).arg(&flag).arg(&mut dst.0).arg(&mut dst.1);
            // SAFETY: matches extract_min_pass(keys, idx, n, first, out_key, out_idx): the
            // input holds len entries (idx is not read on the first pass), the outputs
            // blocks <= n / 256 + 1 entries, and src and dst are distinct buffers.
            unsafe { l.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            len = blocks;
            first = false;
            out = 1 - out;
        }
        Ok(1 - out)
    }

    /// Runs `reps` ExtractMins back to back with `threads` per block (one of
    /// [`super::EXTRACT_MIN_THREADS`]): the least key with its position (the first on
    /// ties), and the mean seconds of one, by CUDA events.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another block size or no repetition; [`Error::Gpu`].
    pub fn time(&mut self, threads: u32, reps: usize) -> Result<((i64, usize), f64)> {
        check_extract_min_threads(threads)?;
        if reps == 0 {
            return Err(Error::InvalidArgument("no ExtractMin to time".into()));
        }
        let timer = self.gpu.timer()?;
        let mut at = 0;
        for _ in 0..reps {
            at = self.launch(threads)?;
        }
        let done = timer.kernels_done(&self.gpu)?;
        let seconds = timer.finish(&done)?.kernel_seconds / reps as f64;
        let key = self
            .gpu
            .read_pinned(&self.part[at].0, 1, &mut self.key_host)?[0];
        let pos = self
            .gpu
            .read_pinned(&self.part[at].1, 1, &mut self.pos_host)?[0];
        Ok(((key, pos as usize), seconds))
    }
}
