//! `bellman-ford` on the GPU: rounds over all vertices, one cooperative launch of
//! `bellman_ford.cu`'s kernel. In each round the vertices changed in the previous one
//! relax their arcs; a round that changes nothing ends the search, and n rounds that all
//! change something prove a negative cycle.

use cudarc::driver::PushKernelArg;

use super::{GpuSssp, THREADS};
use crate::cuda::{gpu_err, launch_config};
use crate::error::Result;

impl GpuSssp {
    pub(super) fn launch_rounds(&mut self, source: u32) -> Result<()> {
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
