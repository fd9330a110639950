//! Parents from a breadth-first search over tight arcs, on the GPU: what `search.rs`
//! runs when the parents pass finds a tight arc of weight 0 or less (the directly chosen
//! parents could then form a cycle). The CPU backend's rule (`sssp/cpu/parents.rs`' tight
//! search: `v` on level L + 1 takes the smallest tight in-neighbour on level L), so both
//! backends give the same tree, without the distances going to the host first.
//!
//! `parents.cu`'s kernels: one launch sets the levels (the search's stamps, free once it
//! has ended) and the parents, then a launch per level over its frontier (the near-far
//! lists, free too); the host reads each next frontier's size and stops at an empty one.

use cudarc::driver::PushKernelArg;

use super::device::DeviceWeights;
use super::{kernels, GpuSssp, THREADS};
use crate::cuda::{gpu_err, grid_for, launch_config};
use crate::error::Result;

/// The kernel that sets the levels and parents (`parents.cu`).
const INIT: &str = "sssp_tight_init";

/// The per-level kernel, before its weight type's suffix (`parents.cu`).
const LEVEL: &str = "sssp_tight_level";

impl GpuSssp {
    /// Replaces the parents on the GPU by those of the breadth-first search over tight arcs
    /// from `source` (the distances final, no negative cycle); returns the levels it ran.
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] for a driver error.
    pub(super) fn tight_parents(&mut self, source: u32) -> Result<u32> {
        let suffix = match self.w {
            DeviceWeights::I32(_) => "i32",
            DeviceWeights::I64(_) => "i64",
            DeviceWeights::F32(_) => "f32",
            DeviceWeights::F64(_) => "f64",
        };
        let module = kernels(suffix);
        let init = self.gpu.function(module, INIT)?;
        let level = self.gpu.function(module, &format!("{LEVEL}_{suffix}"))?;
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let mut b = stream.launch_builder(&init);
        b.arg(&mut self.stamp)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&mut self.qa);
        // SAFETY: matches sssp_tight_init; stamp, parent and qa hold n (at least one)
        // entries, source < n.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        let (mut count, mut depth) = (1u32, 0u32);
        while count > 0 {
            stream.memset_zeros(&mut self.changed).map_err(gpu_err)?;
            let (blocks, threads) = grid_for(u64::from(count), THREADS);
            let mut b = stream.launch_builder(&level);
            b.arg(&self.off).arg(&self.tgt);
            self.w.push_to(&mut b);
            b.arg(&self.dist)
                .arg(&self.qa)
                .arg(&count)
                .arg(&depth)
                .arg(&source)
                .arg(&mut self.stamp)
                .arg(&mut self.parent)
                .arg(&mut self.qb)
                .arg(&mut self.changed);
            // SAFETY: matches sssp_tight_level_*; qa holds the frontier's count entries
            // (at most n), qb room for n (a vertex joins one frontier: its level is
            // claimed once), stamp and parent n, changed one (zeroed above).
            unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            count = self
                .gpu
                .read_pinned(&self.changed, 1, &mut self.changed_host)?[0];
            std::mem::swap(&mut self.qa, &mut self.qb);
            depth += 1;
        }
        Ok(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::super::KERNEL_SOURCES;
    use super::{INIT, LEVEL};

    /// Every weight type's module holds both kernels under the names loaded above.
    #[test]
    fn every_module_holds_the_tight_search() {
        for k in KERNEL_SOURCES {
            assert!(k.source.contains(&format!("void {INIT}(")), "{}", k.name);
            assert!(k.source.contains(&format!("void {LEVEL}_##SUFFIX(")));
            assert!(k.source.contains("SSSP_INSTANTIATE(TIGHT_KERNELS)"));
        }
    }
}
