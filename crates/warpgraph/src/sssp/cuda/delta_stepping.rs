//! `delta-stepping` on the GPU: Meyer and Sanders' delta-stepping as the CUDA SSSP thesis
//! lays it out for a GPU (its Algorithm 3), one cooperative launch of
//! `delta_stepping.cu`'s kernel. A bucket index per vertex makes insert, move and remove
//! one write; light phases run while the least bucket refills and one heavy phase after,
//! light and heavy arcs told apart inside the relaxation; request lists are laid out by a
//! prefix sum over the taken vertices' degrees, with one thread per request. The width is
//! given, or by the thesis's three rules (`--delta-heuristic`), or by default the GPU's
//! automatic width (`search`).

use cudarc::driver::PushKernelArg;

use super::device::DeviceDelta;
use super::{GpuSssp, THREADS};
use crate::cuda::{gpu_err, launch_config};
use crate::error::{Error, Result};

/// Device bytes of delta-stepping's request layout for `n` vertices.
pub(super) fn requests_bytes(n: u64) -> u64 {
    8 * (n + 1)
}

impl GpuSssp {
    /// Checks that every distance has a bucket number below 2^32 - 1 at this width, and
    /// allocates the request layout.
    pub(super) fn prepare_buckets(&mut self, width: f64) -> Result<()> {
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

    pub(super) fn launch_buckets(&mut self, delta: DeviceDelta) -> Result<()> {
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
}
