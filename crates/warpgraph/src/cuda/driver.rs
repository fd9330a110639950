//! The CUDA libraries as the rest of the backend meets them: whether the driver and NVRTC
//! can be opened (cudarc loads both at run time, so a machine without CUDA only lacks
//! them), how many GPUs the driver sees, and the driver's errors as warpgraph's.

use std::sync::OnceLock;

use cudarc::driver::{sys, CudaContext, DriverError};

use crate::error::{Error, Result};

/// Whether the CUDA driver library can be opened (checked once per process).
pub(super) fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the shared library by its usual names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Whether the NVRTC library can be opened (checked once per process).
pub(super) fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as above.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// The number of GPUs, with the reason when there are none.
pub(super) fn count_gpus() -> Result<usize> {
    if !driver_present() {
        return Err(Error::NoGpu(
            "the NVIDIA driver library (libcuda.so) was not found on this machine".into(),
        ));
    }
    let n = CudaContext::device_count()
        .map_err(|e| Error::NoGpu(format!("the CUDA driver found no usable device ({e})")))?;
    if n <= 0 {
        return Err(Error::NoGpu(
            "the CUDA driver is installed but reports no device".into(),
        ));
    }
    Ok(n as usize)
}

/// A driver error as a warpgraph error ([`Error::Driver`], the driver's error its source).
pub(crate) fn gpu_err(e: DriverError) -> Error {
    Error::Driver {
        context: String::new(),
        source: e,
    }
}

/// As [`gpu_err`], saying what was being done (`context`, e.g. the kernel being loaded).
pub(crate) fn driver_err(context: impl Into<String>) -> impl FnOnce(DriverError) -> Error {
    move |e| Error::Driver {
        context: context.into(),
        source: e,
    }
}
