//! The team's kernels (`multi.cu`), compiled by NVRTC and loaded by name.

use cudarc::driver::CudaFunction;

use crate::cuda::{Gpu, KernelSource};
use crate::error::Result;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs_multi",
    source: include_str!("multi.cu"),
};

/// The compiled kernels.
pub(super) struct Kernels {
    pub(super) reset: CudaFunction,
    pub(super) queue: CudaFunction,
    pub(super) hub_queue: CudaFunction,
    pub(super) top_down: CudaFunction,
    pub(super) pack: CudaFunction,
    pub(super) apply: CudaFunction,
    pub(super) absorb: CudaFunction,
    pub(super) short_run: CudaFunction,
    pub(super) front: CudaFunction,
    pub(super) merge: CudaFunction,
    pub(super) bottom_up: CudaFunction,
    pub(super) visit: CudaFunction,
    pub(super) post: CudaFunction,
    pub(super) seed: CudaFunction,
}

impl Kernels {
    /// The kernels, compiled for `gpu` (or taken from the cache).
    pub(super) fn load(gpu: &Gpu) -> Result<Kernels> {
        let f = |name| gpu.function(&KERNELS, name);
        Ok(Kernels {
            reset: f("mbfs_reset")?,
            queue: f("mbfs_queue")?,
            hub_queue: f("mbfs_hub_queue")?,
            top_down: f("mbfs_top_down")?,
            pack: f("mbfs_pack")?,
            apply: f("mbfs_apply")?,
            absorb: f("mbfs_absorb")?,
            short_run: f("mbfs_short_run")?,
            front: f("mbfs_front")?,
            merge: f("mbfs_merge")?,
            bottom_up: f("mbfs_bottom_up")?,
            visit: f("mbfs_visit")?,
            post: f("mbfs_post")?,
            seed: f("mbfs_seed")?,
        })
    }
}
