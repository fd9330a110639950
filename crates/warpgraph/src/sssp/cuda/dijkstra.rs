//! `dijkstra` on the GPU: the CUDA SSSP thesis's Dijkstra with a parallel ExtractMin (its
//! Algorithm 1), one cooperative launch of `dijkstra.cu`'s kernel settling one vertex per
//! iteration: ExtractMin by a parallel reduction over all unsettled vertices (threads per
//! block 128, 256, 512 or 1024: [`GpuSssp::set_extract_min_threads`]; the thesis found 512
//! best), then that vertex's arcs relaxed in parallel. Every iteration reads all n
//! distances, O(n^2 / threads) in all: the thesis's design, kept for the comparison, and
//! slow on big graphs.

use cudarc::driver::PushKernelArg;

use super::{GpuSssp, BLOCKS_PER_SM};
use crate::cuda::{gpu_err, launch_config};
use crate::error::{Error, Result};

/// The threads per block `dijkstra`'s ExtractMin may use (the CUDA SSSP thesis's Table 1).
pub const EXTRACT_MIN_THREADS: [u32; 4] = [128, 256, 512, 1024];

/// The default: the thesis's best.
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

impl GpuSssp {
    pub(super) fn launch_dijkstra(&mut self) -> Result<()> {
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
}
