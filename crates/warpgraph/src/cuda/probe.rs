//! Finding GPUs: what [`probe`] sees (the driver's version; each GPU's name, memory and
//! compute capability), whether any GPU can be used and, where none can, why.

use std::sync::Arc;

use cudarc::driver::sys;
use serde::Serialize;

use super::context::{Gpu, GpuInfo};
use super::driver::{count_gpus, gpu_err};
use crate::error::{Error, Result};

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inventory {
    /// The CUDA version the driver supports, e.g. (13, 0).
    pub driver_version: (i32, i32),
    /// Every GPU, by ordinal.
    pub gpus: Vec<GpuInfo>,
}

/// Finds the GPUs: name, memory and compute capability of each, and the driver version.
///
/// # Errors
/// [`Error::NoGpu`] saying why none can be used: no driver library, or no device.
pub fn probe() -> Result<Inventory> {
    let n = count_gpus()?;
    let mut version = 0;
    // SAFETY: the driver library is present (count_gpus checked) and `version` is a valid
    // out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(gpu_err)?;
    let gpus = (0..n)
        .map(|i| Gpu::open(i).map(|g| g.info().clone()))
        .collect::<Result<_>>()?;
    Ok(Inventory {
        driver_version: (version / 1000, version % 1000 / 10),
        gpus,
    })
}

/// Whether at least one GPU can be used (no error when not).
pub fn available() -> bool {
    count_gpus().is_ok()
}

/// Why no GPU can be used, or `None` when one can.
pub fn unavailable_reason() -> Option<String> {
    count_gpus().err().map(|e| match e {
        Error::NoGpu(why) => why,
        e => e.to_string(),
    })
}

/// GPU 0 for a GPU test, or `None` (the test then skips, saying so) where there is none.
/// With `WARPGRAPH_REQUIRE_GPU=1` a missing GPU fails the test instead: on the GPU
/// machine a skipped GPU test must never pass for a run one.
///
/// # Panics
/// Where no GPU can be used and `WARPGRAPH_REQUIRE_GPU=1`, or GPU 0 does not open.
#[doc(hidden)]
pub fn test_gpu() -> Option<Arc<Gpu>> {
    match unavailable_reason() {
        None => Some(Gpu::open(0).expect("opening GPU 0")),
        Some(why) => {
            assert!(
                !crate::settings::get().require_gpu,
                "WARPGRAPH_REQUIRE_GPU=1 but no GPU can be used: {why}"
            );
            eprintln!("skipped: no GPU ({why})");
            None
        }
    }
}
