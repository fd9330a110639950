//! Kernels compiled ahead of time: the CUBIN of every kernel file for the architectures
//! most GPUs in use have (`sm_80`: Ampere, which also runs on compute capability 8.6 and
//! 8.9; `sm_90`: Hopper), made by NVRTC and kept in the crate's `cubin/` folder, so that a
//! first run on such a GPU loads its kernels at once instead of compiling them.
//!
//! Each CUBIN is kept with the key of what it was compiled from ([`source_key`]: the
//! source with `common.cuh`, and NVRTC's options): one is used only while the source it
//! came from is still the source of the kernel file, so an edited kernel is compiled by
//! NVRTC until the CUBINs are made again (`scripts/cubins`). A test fails while any kernel
//! file's CUBIN is missing or stale.

use super::compile::{compile_options, full_source, KernelSource};

/// The architectures warpgraph carries CUBINs for.
pub const PREBUILT_ARCHS: [(i32, i32); 2] = [(8, 0), (9, 0)];

/// One prebuilt CUBIN.
struct Prebuilt {
    cc: (i32, i32),
    name: &'static str,
    key: u64,
    cubin: &'static [u8],
}

/// Every prebuilt CUBIN (`build.rs` makes the table from `cubin/keys.txt`).
const PREBUILT: &[Prebuilt] = include!(concat!(env!("OUT_DIR"), "/prebuilt.rs"));

/// The CUBIN of `kernels` for a GPU of compute capability `cc`, where one compiled from
/// today's source is carried: made for the same major version and a minor version at
/// most the GPU's (machine code runs on later minor versions of its architecture), the
/// closest such.
pub(super) fn find(kernels: &KernelSource, cc: (i32, i32)) -> Option<&'static [u8]> {
    let best = PREBUILT
        .iter()
        .filter(|p| p.name == kernels.name && p.cc.0 == cc.0 && p.cc.1 <= cc.1)
        .max_by_key(|p| p.cc.1)?;
    (best.key == source_key(kernels, best.cc)).then_some(best.cubin)
}

/// Whether a CUBIN of `kernels` for exactly `cc`, compiled from today's source, is
/// carried.
pub fn is_current(kernels: &KernelSource, cc: (i32, i32)) -> bool {
    PREBUILT
        .iter()
        .any(|p| p.name == kernels.name && p.cc == cc && p.key == source_key(kernels, cc))
}

/// The key of what a CUBIN of `kernels` for `cc` is compiled from: a hash of the source
/// NVRTC sees and its options.
pub fn source_key(kernels: &KernelSource, cc: (i32, i32)) -> u64 {
    let options = compile_options(cc).join(" ");
    super::cache::fnv1a(&[full_source(kernels).as_bytes(), options.as_bytes()])
}
