//! The CUDA backend's common ground: finding GPUs, one context and one cache of compiled
//! kernels per GPU, device memory sized before it is allocated, and kernel timing.
//!
//! The driver and NVRTC libraries are opened at run time (cudarc's dynamic loading), so the
//! same binary builds and runs on machines without CUDA: there [`probe`] says why no GPU can
//! be used, and asking for one is an [`Error::NoGpu`](crate::Error::NoGpu), never a crash.
//!
//! Kernels are CUDA C in `.cu` files beside the algorithm they serve (for example
//! `bfs/cuda/bfs_search.cu`). [`Gpu::module`] loads a file's CUBIN the first time it is
//! needed and keeps the module for the life of the process: the one the crate carries for
//! the GPU's architecture (`prebuilt`: sm_80 and sm_90, made from today's sources), else
//! the one NVRTC made on an earlier run (the kernel cache), else it compiles the file with
//! NVRTC for the GPU's own architecture; a compile error carries NVRTC's log. Each algorithm lists its files in its own
//! `KERNEL_SOURCES` (for example `bfs::cuda::KERNEL_SOURCES`), so that a test can compile
//! them all; this module knows no algorithm.
//!
//! The parts, each in a file of its own: `driver` (the libraries, the GPU count, the
//! driver's errors), `probe` (what GPUs there are), `context` (an opened [`Gpu`], its
//! modules and memory checks), `prebuilt` (the CUBINs the crate carries), `compile`
//! and `cache` (NVRTC and the kernel cache on disk), `buffer` (device and page-locked memory), `timer`, `mailbox` (posts from a
//! kernel to the host), `launch` (launch geometry); and for teams of GPUs, [`team`],
//! [`link`], `nccl` and `exchange` (what both ways of exchanging share).
//!
//! ```no_run
//! // Which GPUs are there?
//! match warpgraph::cuda::probe() {
//!     Ok(inv) => for g in &inv.gpus { println!("{}", g.describe()) },
//!     Err(why) => println!("{why}"),
//! }
//! ```

mod buffer;
mod cache;
mod compile;
mod context;
mod driver;
mod exchange;
mod launch;
pub mod link;
mod mailbox;
mod nccl;
mod prebuilt;
mod probe;
pub mod team;
mod timer;

pub use compile::{compile, KernelSource};
pub use context::{Gpu, GpuInfo};
pub use prebuilt::{is_current as prebuilt_is_current, source_key, PREBUILT_ARCHS};
pub use probe::{available, probe, test_gpu, unavailable_reason, Inventory};
pub use timer::GpuTimes;

pub(crate) use buffer::{Buffer, ReadBack, Registered};
pub(crate) use driver::{driver_err, gpu_err};
pub(crate) use launch::{grid_for, lanes_per_vertex, launch_config, sources_at_once};
pub(crate) use mailbox::{Mailbox, Spin};
pub(crate) use timer::Timer;
