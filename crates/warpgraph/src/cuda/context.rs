//! One GPU, opened: its context and stream, the kernels compiled for it (NVRTC on first
//! use, then kept for the life of the process), and the checks of its memory made before
//! anything is allocated.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;
use serde::Serialize;

use super::compile::{cache_file, compile, KernelSource};
use super::driver::{count_gpus, driver_err, gpu_err};
use super::{cache, prebuilt};
use crate::error::{fmt_bytes, Error, Result};

/// A GPU as [`probe`](super::probe) describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuInfo {
    /// The CUDA device ordinal (`cuda:N`).
    pub ordinal: usize,
    /// The marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Total device memory in bytes.
    pub total_bytes: u64,
    /// Free device memory in bytes when probed.
    pub free_bytes: u64,
    /// Compute capability (major, minor), e.g. (9, 0) for Hopper.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
}

impl GpuInfo {
    /// One line: `cuda:0  NVIDIA H100 80GB HBM3, compute 9.0, 132 SMs, 79.2 GiB (78.6 GiB free)`.
    pub fn describe(&self) -> String {
        format!(
            "cuda:{}  {}, compute {}.{}, {} SMs, {} ({} free)",
            self.ordinal,
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            fmt_bytes(self.total_bytes),
            fmt_bytes(self.free_bytes)
        )
    }
}

/// One GPU, opened: its context, the stream warpgraph works on, and the kernels compiled
/// for it so far. Shared (one per ordinal per process) through [`Gpu::open`].
pub struct Gpu {
    pub(super) ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    info: GpuInfo,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).finish()
    }
}

/// The GPUs this process has opened, by ordinal.
fn opened() -> std::sync::MutexGuard<'static, HashMap<usize, Arc<Gpu>>> {
    static OPEN: OnceLock<Mutex<HashMap<usize, Arc<Gpu>>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

impl Gpu {
    /// Opens GPU `ordinal` (the same [`Gpu`] for every call in a process).
    ///
    /// # Errors
    /// [`Error::NoGpu`] when there is no such GPU (with the reason), [`Error::Driver`] when
    /// the driver fails to create a context.
    pub fn open(ordinal: usize) -> Result<Arc<Gpu>> {
        let n = count_gpus()?;
        if ordinal >= n {
            return Err(Error::NoGpu(format!(
                "cuda:{ordinal} does not exist: this machine has {n} GPU{} (cuda:0{})",
                if n == 1 { "" } else { "s" },
                if n > 1 {
                    format!("..cuda:{}", n - 1)
                } else {
                    String::new()
                }
            )));
        }
        let mut open = opened();
        if let Some(g) = open.get(&ordinal) {
            return Ok(g.clone());
        }
        let ctx = CudaContext::new(ordinal).map_err(gpu_err)?;
        // One stream, used by one thread at a time: cudarc's per-buffer event tracking
        // (for buffers shared between streams) would only add work to every launch.
        // SAFETY: every buffer warpgraph allocates is used on `stream` alone.
        unsafe { ctx.disable_event_tracking() };
        // Level-synchronous algorithms wait for the GPU many times per run: spin rather than
        // sleep while waiting (a hint; a driver that refuses it only makes waits slower).
        let _ = ctx.set_flags(sys::CUctx_flags::CU_CTX_SCHED_SPIN);
        let stream = ctx.default_stream();
        let (free, total) = ctx.mem_get_info().map_err(gpu_err)?;
        let info = GpuInfo {
            ordinal,
            name: ctx.name().map_err(gpu_err)?,
            total_bytes: total as u64,
            free_bytes: free as u64,
            compute_capability: ctx.compute_capability().map_err(gpu_err)?,
            multiprocessors: ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(gpu_err)? as u32,
        };
        let gpu = Arc::new(Gpu {
            ctx,
            stream,
            info,
            modules: Mutex::new(HashMap::new()),
        });
        open.insert(ordinal, gpu.clone());
        Ok(gpu)
    }

    /// Whether GPU `ordinal` is open in this process already (a run there pays no start).
    pub fn is_open(ordinal: usize) -> bool {
        opened().contains_key(&ordinal)
    }

    /// What [`probe`](super::probe) says about this GPU (free memory as when it was opened).
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// The GPU in a few words: `cuda:0 (NVIDIA H100 80GB HBM3)`.
    pub fn describe(&self) -> String {
        format!("cuda:{} ({})", self.info.ordinal, self.info.name)
    }

    /// The stream all of warpgraph's work on this GPU goes to.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Makes this GPU's context the calling thread's current one (NCCL, which reads the
    /// current device, needs it).
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(gpu_err)
    }

    /// Device memory free now, in bytes, capped by [`crate::memory::gpu_limit`]
    /// (`WARPGRAPH_GPU_MEMORY_LIMIT`).
    pub fn free_bytes(&self) -> Result<u64> {
        let (free, _) = self.ctx.mem_get_info().map_err(gpu_err)?;
        let limit = crate::memory::gpu_limit().unwrap_or(u64::MAX);
        Ok((free as u64).min(limit))
    }

    /// Refuses with [`Error::OutOfMemory`] (needed vs free) when `needed` bytes of device
    /// memory are not free.
    pub fn check_memory(&self, what: impl FnOnce() -> String, needed: u64) -> Result<()> {
        let available = self.free_bytes()?;
        if needed > available {
            return Err(Error::OutOfMemory {
                what: format!("{} on {}", what(), self.describe()),
                needed,
                available,
            });
        }
        Ok(())
    }

    /// The most shared memory one block may use (opting in beyond the default 48 KiB), in
    /// bytes.
    pub(crate) fn max_shared_per_block(&self) -> Result<u64> {
        let attr = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
        Ok(self.ctx.attribute(attr).map_err(gpu_err)? as u64)
    }

    /// The compiled module of `kernels`, loaded on first use, then kept for the life of the
    /// process: the CUBIN the crate carries for this GPU's architecture, else the kernel
    /// cache's, else one NVRTC compiles now (and the cache keeps).
    ///
    /// # Errors
    /// As [`compile`](super::compile) (NVRTC's log where the file does not compile);
    /// [`Error::Driver`] when the driver refuses the compiled module.
    pub fn module(&self, kernels: &KernelSource) -> Result<Arc<CudaModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(kernels.name) {
            return Ok(m.clone());
        }
        let cc = self.info.compute_capability;
        let load = |cubin: Vec<u8>| self.ctx.load_module(Ptx::from_binary(cubin));
        let carried = prebuilt::find(kernels, cc).and_then(|c| load(c.to_vec()).ok());
        let module = match carried {
            Some(m) => m,
            None => self.module_compiled(kernels, cc)?,
        };
        modules.insert(kernels.name, module.clone());
        Ok(module)
    }

    /// The module of `kernels` from the kernel cache, or compiled by NVRTC now.
    fn module_compiled(&self, kernels: &KernelSource, cc: (i32, i32)) -> Result<Arc<CudaModule>> {
        let load = |cubin: Vec<u8>| self.ctx.load_module(Ptx::from_binary(cubin));
        let kept = cache_file(kernels, cc);
        if let Some(m) = kept
            .as_deref()
            .and_then(cache::load)
            .and_then(|c| load(c).ok())
        {
            return Ok(m);
        }
        let cubin = compile(kernels, cc)?;
        if let Some(path) = &kept {
            // (A file the driver refused is replaced here.)
            cache::forget(path);
            cache::store(path, &cubin);
        }
        load(cubin).map_err(gpu_err)
    }

    /// A kernel of `kernels` by its `extern "C"` name.
    pub(crate) fn function(&self, kernels: &KernelSource, name: &str) -> Result<CudaFunction> {
        self.module(kernels)?
            .load_function(name)
            .map_err(driver_err(format!("kernel {name} of {}.cu", kernels.name)))
    }

    /// A grid of `f` (`name` in errors) whose blocks of `threads` threads are all resident
    /// at once: as many per multiprocessor as fit, at most `cap`, on every multiprocessor
    /// (a block left for a second wave would double its warps' share of a grid-stride
    /// loop's time, and a grid barrier would never be passed).
    ///
    /// # Errors
    /// [`Error::Gpu`] where no block fits a multiprocessor.
    pub(crate) fn resident_grid(
        &self,
        f: &CudaFunction,
        name: &str,
        threads: u32,
        cap: u32,
    ) -> Result<u32> {
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(threads, 0, None)
            .map_err(gpu_err)?
            .min(cap);
        if per_sm == 0 {
            return Err(Error::Gpu(format!(
                "{name} cannot run on this GPU: no block of {threads} threads fits a multiprocessor"
            )));
        }
        Ok(per_sm * self.info.multiprocessors)
    }
}
