//! The CUDA backend's common ground: finding GPUs, one context and one cache of compiled
//! kernels per GPU, device memory sized before it is allocated, and kernel timing.
//!
//! The driver and NVRTC libraries are opened at run time (cudarc's dynamic loading), so the
//! same binary builds and runs on machines without CUDA: there [`probe`] says why no GPU can
//! be used, and asking for one is an [`Error::NoGpu`], never a crash.
//!
//! Kernels are CUDA C in `.cu` files beside the algorithm they serve (for example
//! `bfs/cuda/bfs.cu`). [`Gpu::module`] compiles a file with NVRTC for the GPU's own
//! architecture the first time it is needed and keeps the module for the life of the
//! process; a compile error carries NVRTC's log. [`KERNELS`] lists every file, so that a
//! test can compile them all.
//!
//! ```no_run
//! // Which GPUs are there?
//! match warpgraph::cuda::probe() {
//!     Ok(inv) => for g in &inv.gpus { println!("{}", g.describe()) },
//!     Err(why) => println!("{why}"),
//! }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, CudaView,
    DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits,
};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};
use serde::Serialize;

use crate::error::{fmt_bytes, Error, Result};

mod cache;
pub mod link;
mod nccl;
pub mod team;

/// One `.cu` file of kernels.
#[derive(Debug)]
pub struct KernelSource {
    /// A short name for messages and the module cache (`bfs`).
    pub name: &'static str,
    /// The CUDA C source.
    pub source: &'static str,
}

/// Device code compiled in front of every kernel file: types, the grid-wide barrier of
/// cooperative launches, block scans, warp-aggregated appends.
const COMMON: &str = include_str!("common.cuh");

/// Every kernel file of the backend (a test compiles each one).
pub const KERNELS: &[&KernelSource] = &[
    &crate::bfs::cuda::KERNELS,
    &crate::bfs::cuda::multi::KERNELS,
    &crate::sssp::cuda::KERNELS_I32,
    &crate::sssp::cuda::KERNELS_I64,
    &crate::sssp::cuda::KERNELS_F32,
    &crate::sssp::cuda::KERNELS_F64,
    &crate::apsp::cuda::KERNELS,
    &crate::mst::cuda::KERNELS,
];

/// A GPU as [`probe`] describes it.
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

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inventory {
    /// The CUDA version the driver supports, e.g. (13, 0).
    pub driver_version: (i32, i32),
    /// Every GPU, by ordinal.
    pub gpus: Vec<GpuInfo>,
}

/// Whether the CUDA driver library can be opened (checked once per process).
fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the shared library by its usual names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Whether the NVRTC library can be opened (checked once per process).
fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as above.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// The number of GPUs, with the reason when there are none.
fn count_gpus() -> Result<usize> {
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

/// A kernel's device buffer, a [`CudaSlice`] (which it dereferences to): one that frees
/// its memory when dropped ([`Gpu::buffer`]), or one in memory that another owner frees
/// ([`Gpu::buffer_at`]: NCCL's symmetric memory, which lives as long as the team's
/// communicator).
pub(crate) struct Buffer<T> {
    slice: std::mem::ManuallyDrop<CudaSlice<T>>,
    owned: bool,
}

impl<T> std::ops::Deref for Buffer<T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> std::ops::DerefMut for Buffer<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the field is not used again.
        let slice = unsafe { std::mem::ManuallyDrop::take(&mut self.slice) };
        match self.owned {
            true => drop(slice),
            // The owner frees the memory; the slice's own events go.
            false => {
                slice.leak();
            }
        }
    }
}

/// One GPU, opened: its context, the stream warpgraph works on, and the kernels compiled
/// for it so far. Shared (one per ordinal per process) through [`Gpu::open`].
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: GpuInfo,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).finish()
    }
}

impl Gpu {
    /// Opens GPU `ordinal` (the same [`Gpu`] for every call in a process).
    ///
    /// # Errors
    /// [`Error::NoGpu`] when there is no such GPU (with the reason), [`Error::Gpu`] when
    /// the driver fails to create a context.
    pub fn open(ordinal: usize) -> Result<Arc<Gpu>> {
        static OPEN: OnceLock<Mutex<HashMap<usize, Arc<Gpu>>>> = OnceLock::new();
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
        let mut open = OPEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
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

    /// What [`probe`] says about this GPU (free memory as when it was opened).
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

    /// The compiled module of `kernels`: compiled by NVRTC for this GPU's architecture on
    /// first use, then cached for the life of the process.
    pub fn module(&self, kernels: &KernelSource) -> Result<Arc<CudaModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(kernels.name) {
            return Ok(m.clone());
        }
        let cc = self.info.compute_capability;
        // The kernel cache's file for this source, these options and this NVRTC.
        let kept = cache::dir().filter(|_| nvrtc_present()).map(|dir| {
            let version = nvrtc_version();
            let source = full_source(kernels);
            let options = compile_options(cc).join(" ");
            let parts: [&[u8]; 4] = [
                source.as_bytes(),
                options.as_bytes(),
                &version,
                env!("CARGO_PKG_VERSION").as_bytes(),
            ];
            cache::path(&dir, kernels.name, &parts)
        });
        let from_cache = kept
            .as_deref()
            .and_then(cache::load)
            .and_then(|ptx| self.ctx.load_module(Ptx::from_src(ptx)).ok());
        let module = match from_cache {
            Some(m) => m,
            None => {
                let ptx = compile(kernels, cc)?;
                if let Some(path) = &kept {
                    // (A file the driver refused is replaced here.)
                    cache::forget(path);
                    cache::store(path, &ptx.to_src());
                }
                self.ctx.load_module(ptx).map_err(gpu_err)?
            }
        };
        modules.insert(kernels.name, module.clone());
        Ok(module)
    }

    /// A kernel of `kernels` by its `extern "C"` name.
    pub(crate) fn function(&self, kernels: &KernelSource, name: &str) -> Result<CudaFunction> {
        self.module(kernels)?
            .load_function(name)
            .map_err(|e| Error::Gpu(format!("kernel {name} of {}.cu: {e}", kernels.name)))
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

    /// Copies `data` to a new device buffer.
    pub(crate) fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        if data.is_empty() {
            // A zero-length allocation is an error for the driver: keep one element.
            // SAFETY: the element is never read (every length this buffer stands for is 0).
            return unsafe { self.stream.alloc::<T>(1) }.map_err(gpu_err);
        }
        self.stream.clone_htod(data).map_err(gpu_err)
    }

    /// A new device buffer of `len` zeroed elements (at least one).
    pub(crate) fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros::<T>(len.max(1)).map_err(gpu_err)
    }

    /// A new [`Buffer`] of `len` zeroed elements (at least one), its own memory.
    pub(crate) fn buffer<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<Buffer<T>> {
        Ok(Buffer {
            slice: std::mem::ManuallyDrop::new(self.zeros(len)?),
            owned: true,
        })
    }

    /// A [`Buffer`] of the `len` elements at `ptr`, memory that another owner frees.
    ///
    /// # Safety
    /// `ptr` holds `len` initialised elements of this GPU's memory, and outlives the
    /// buffer.
    pub(crate) unsafe fn buffer_at<T>(&self, ptr: u64, len: usize) -> Buffer<T> {
        Buffer {
            // SAFETY: as the caller promises.
            slice: std::mem::ManuallyDrop::new(unsafe { self.stream.upgrade_device_ptr(ptr, len) }),
            owned: false,
        }
    }

    /// A page-locked host buffer of `len` elements (at least one), for fast copies back.
    ///
    /// Cached, not write-combined (cudarc's `alloc_pinned`): the host reads these buffers,
    /// and a read of write-combined memory bypasses the caches.
    pub(crate) fn pinned<T: DeviceRepr>(&self, len: usize) -> Result<PinnedHostSlice<T>> {
        // SAFETY: the buffer's contents are only read after a copy from the device has
        // filled the part that is read and the stream has been waited for
        // (`read_pinned`, `read_pinned_meanwhile`).
        unsafe { self.ctx.alloc_pinned_with_flags::<T>(len.max(1), 0) }.map_err(gpu_err)
    }

    /// A [`Mailbox`] for `values` words.
    pub(crate) fn mailbox(&self, values: usize) -> Result<Mailbox> {
        // SAFETY: every word is zeroed below, before anything reads it.
        let mut host = unsafe {
            self.ctx
                .alloc_pinned_with_flags::<u64>(values + 1, sys::CU_MEMHOSTALLOC_DEVICEMAP)
        }
        .map_err(gpu_err)?;
        let ptr = host.as_mut_ptr().map_err(gpu_err)?;
        // SAFETY: `ptr` points to values + 1 words of page-locked memory, not yet shared.
        unsafe { std::ptr::write_bytes(ptr, 0, values + 1) };
        let mut dev: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` was allocated with CU_MEMHOSTALLOC_DEVICEMAP in this context.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dev, ptr.cast(), 0) }
            .result()
            .map_err(gpu_err)?;
        Ok(Mailbox {
            addr: ptr as usize,
            _host: host,
            dev,
            values,
            seq: 0,
        })
    }

    /// Copies the first `len` elements of `buf` into `staging` and returns them, once the
    /// copy (and all work queued before it) has finished.
    pub(crate) fn read_pinned<'a, T: DeviceRepr + ValidAsZeroBits>(
        &self,
        buf: &CudaSlice<T>,
        len: usize,
        staging: &'a mut PinnedHostSlice<T>,
    ) -> Result<&'a [T]> {
        self.read_pinned_from(buf, 0, len, staging)
    }

    /// As [`Gpu::read_pinned`], the `len` elements of `buf` from `at`.
    pub(crate) fn read_pinned_from<'a, T: DeviceRepr + ValidAsZeroBits>(
        &self,
        buf: &CudaSlice<T>,
        at: usize,
        len: usize,
        staging: &'a mut PinnedHostSlice<T>,
    ) -> Result<&'a [T]> {
        if len == 0 {
            return Ok(&[]);
        }
        self.read_pinned_meanwhile(&mut [(buf.slice(at..at + len), &mut *staging)], len, || ())?;
        Ok(&staging.as_slice().map_err(gpu_err)?[..len])
    }

    /// Queues a copy of the first `len` elements of each buffer into its page-locked
    /// partner, after all work queued before; runs `meanwhile` on the host while the GPU
    /// finishes and the copies cross the bus; then waits for the copies and returns what
    /// `meanwhile` returned. (The stream's own wait, not the buffers': with cudarc's event
    /// tracking off, a page-locked buffer's `as_slice` does not wait for a copy into it.)
    pub(crate) fn read_pinned_meanwhile<T: DeviceRepr, R>(
        &self,
        copies: &mut [(CudaView<'_, T>, &mut PinnedHostSlice<T>)],
        len: usize,
        meanwhile: impl FnOnce() -> R,
    ) -> Result<R> {
        for (buf, staging) in copies.iter_mut() {
            assert!(len <= staging.len() && len <= buf.len());
            if len > 0 {
                self.stream
                    .memcpy_dtoh(&buf.slice(..len), *staging)
                    .map_err(gpu_err)?;
            }
        }
        let r = meanwhile();
        self.stream.synchronize().map_err(gpu_err)?;
        Ok(r)
    }

    /// Queues a copy of `data` into the start of `buf` through the page-locked `staging`
    /// (at least as long), and returns at once. A copy straight from pageable memory
    /// would first wait for all the work queued before it (the driver syncs the stream),
    /// holding the host back from queuing what follows: a team's rank whose search was
    /// queued behind the start's all-reduce then launched its first level only once the
    /// other ranks had come, and the team waited for it at the first collective.
    ///
    /// `staging` must not be written again (by this or anything else) until the stream
    /// has been waited for.
    pub(crate) fn write_pinned<T: DeviceRepr + ValidAsZeroBits + Copy>(
        &self,
        data: &[T],
        buf: &mut CudaSlice<T>,
        staging: &mut PinnedHostSlice<T>,
    ) -> Result<()> {
        assert!(data.len() <= staging.len() && data.len() <= buf.len());
        if data.is_empty() {
            return Ok(());
        }
        let host = &mut staging.as_mut_slice().map_err(gpu_err)?[..data.len()];
        host.copy_from_slice(data);
        self.ctx.bind_to_thread().map_err(gpu_err)?;
        let (dst, _record) = cudarc::driver::DevicePtrMut::device_ptr_mut(buf, &self.stream);
        // SAFETY: `host` is page-locked memory of `data.len()` elements, `buf` holds as
        // many; the caller leaves `staging` alone until the stream has been waited for.
        unsafe { cudarc::driver::result::memcpy_htod_async(dst, host, self.stream.cu_stream()) }
            .map_err(gpu_err)
    }

    /// Copies `buf` into `out` (as many elements as `out` holds) once all work queued
    /// before has finished.
    pub(crate) fn download_into<T: DeviceRepr>(
        &self,
        buf: &CudaSlice<T>,
        out: &mut [T],
    ) -> Result<()> {
        self.download_from(buf, 0, out)
    }

    /// As [`Gpu::download_into`], from element `at` of `buf`. Into memory
    /// [`Gpu::register`] page-locked, the copy lands straight in `out`.
    pub(crate) fn download_from<T: DeviceRepr>(
        &self,
        buf: &CudaSlice<T>,
        at: usize,
        out: &mut [T],
    ) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        self.stream
            .memcpy_dtoh(&buf.slice(at..at + out.len()), out)
            .map_err(gpu_err)?;
        self.stream.synchronize().map_err(gpu_err)
    }

    /// Page-locks the `len` elements from `ptr` in place, for every GPU of this process,
    /// until the result is dropped: a copy from a GPU then lands in them straight, with
    /// no page-locked buffer between (and no copy out of it). `None` where the driver
    /// refuses (a page already locked by another range, a limit on locked memory): the
    /// caller then copies through a buffer of its own.
    ///
    /// # Safety
    /// The memory must stay allocated, where it is, until the result is dropped.
    pub(crate) unsafe fn register<T>(&self, ptr: *mut T, len: usize) -> Option<Registered> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        if bytes == 0 {
            return None;
        }
        self.ctx.bind_to_thread().ok()?;
        // SAFETY: `bytes` from `ptr` are the caller's allocation, which outlives the
        // registration (the caller's promise).
        let code = unsafe {
            sys::cuMemHostRegister_v2(ptr.cast(), bytes, sys::CU_MEMHOSTREGISTER_PORTABLE)
        };
        (code == sys::CUresult::CUDA_SUCCESS).then(|| Registered {
            ptr: ptr.cast(),
            ctx: self.ctx.clone(),
        })
    }

    /// Starts timing the work queued from now on (see [`Timer`]).
    pub(crate) fn timer(&self) -> Result<Timer> {
        self.timer_after(None)
    }

    /// A timing event on the stream.
    pub(crate) fn mark(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(gpu_err)
    }

    /// Where a wait about to be queued on the stream begins, on the host and on the GPU,
    /// for [`Gpu::timer_after`].
    pub(crate) fn wait_start(&self) -> Result<WaitStart> {
        let wall = Instant::now();
        Ok(WaitStart {
            event: self.mark()?,
            wall,
        })
    }

    /// As [`Gpu::timer`], after a wait queued on the stream since `wait` (from
    /// [`Gpu::wait_start`], with the stream idle then): the time the GPU spent from there
    /// to the timer's start is left out of the wall-clock time, which starts at `wait`
    /// (so a host that blocked in the wait is left out with it). A team's ranks meet so
    /// before each search; one rank may come late, busy with the last search's tree.
    pub(crate) fn timer_after(&self, wait: Option<WaitStart>) -> Result<Timer> {
        let (wall, before) = match wait {
            Some(w) => (w.wall, Some(w.event)),
            None => (Instant::now(), None),
        };
        Ok(Timer {
            start: self.mark()?,
            wall,
            before,
        })
    }
}

/// Host memory page-locked in place by [`Gpu::register`], until dropped.
pub(crate) struct Registered {
    ptr: *mut std::ffi::c_void,
    ctx: Arc<CudaContext>,
}

// SAFETY: the address is only handed back to the driver, once, on drop.
unsafe impl Send for Registered {}
unsafe impl Sync for Registered {}

impl Drop for Registered {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: registered by `Gpu::register`, and unregistered only here.
        let _ = unsafe { sys::cuMemHostUnregister(self.ptr) };
    }
}

/// See [`Gpu::wait_start`].
pub(crate) struct WaitStart {
    event: CudaEvent,
    wall: Instant,
}

/// Times GPU work two ways: kernel time between two CUDA events on the stream, and the
/// wall-clock time of the whole call on the host.
pub(crate) struct Timer {
    start: CudaEvent,
    wall: Instant,
    /// An event before a wait that ends at `start`, left out of the wall-clock time
    /// (which starts before it).
    before: Option<CudaEvent>,
}

impl Timer {
    /// Marks the end of the kernels (call after the last launch, before copying results).
    pub(crate) fn kernels_done(&self, gpu: &Gpu) -> Result<CudaEvent> {
        gpu.mark()
    }

    /// The times, once `end` (from [`Timer::kernels_done`]) has completed.
    pub(crate) fn finish(self, end: &CudaEvent) -> Result<GpuTimes> {
        end.synchronize().map_err(gpu_err)?;
        let ms = self.start.elapsed_ms(end).map_err(gpu_err)?;
        let waited = match &self.before {
            Some(before) => f64::from(before.elapsed_ms(&self.start).map_err(gpu_err)?) / 1e3,
            None => 0.0,
        };
        let kernel_seconds = f64::from(ms) / 1e3;
        Ok(GpuTimes {
            kernel_seconds,
            // Never below the kernels' time, whatever the two clocks' skew.
            total_seconds: (self.wall.elapsed().as_secs_f64() - waited).max(kernel_seconds),
        })
    }
}

/// How long one run on a GPU took.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct GpuTimes {
    /// From the first kernel to the last, measured with CUDA events (graph upload and
    /// result download excluded).
    pub kernel_seconds: f64,
    /// The whole call on the host: kernels, the host's decisions between them, and
    /// copying the result back (graph upload excluded: it happens once, before).
    pub total_seconds: f64,
}

/// Compiles a kernel file for compute capability `cc` (e.g. (9, 0) gives `sm_90`).
///
/// # Errors
/// [`Error::NoGpu`] when NVRTC is not installed; [`Error::Gpu`] with NVRTC's log when the
/// source does not compile.
pub fn compile(kernels: &KernelSource, cc: (i32, i32)) -> Result<Ptx> {
    if !nvrtc_present() {
        return Err(Error::NoGpu(
            "the NVRTC library (libnvrtc.so), which compiles warpgraph's kernels, was not found"
                .into(),
        ));
    }
    let opts = CompileOptions {
        options: compile_options(cc),
        name: Some(format!("{}.cu", kernels.name)),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(full_source(kernels), opts).map_err(|e| match e {
        CompileError::CompileError { log, .. } => Error::Gpu(format!(
            "{}.cu did not compile for sm_{}{}:\n{}",
            kernels.name,
            cc.0,
            cc.1,
            log.to_string_lossy()
        )),
        e => Error::Gpu(format!("NVRTC failed on {}.cu: {e:?}", kernels.name)),
    })
}

/// NVRTC's options for compute capability `cc`.
fn compile_options(cc: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", cc.0, cc.1),
        "--std=c++17".into(),
    ]
}

/// What NVRTC compiles of a kernel file: the shared device code first, then the file
/// (`#line` keeps NVRTC's line numbers those of the file).
fn full_source(kernels: &KernelSource) -> String {
    format!(
        "{COMMON}\n#line 1 \"{}.cu\"\n{}",
        kernels.name, kernels.source
    )
}

/// NVRTC's version, as bytes for the kernel cache's key (zeros where it cannot say).
fn nvrtc_version() -> [u8; 8] {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loaded (callers check `nvrtc_present`); the call writes two ints.
    let _ = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    let mut v = [0u8; 8];
    v[..4].copy_from_slice(&major.to_le_bytes());
    v[4..].copy_from_slice(&minor.to_le_bytes());
    v
}

/// A few 64-bit words of page-locked host memory mapped into a GPU's address space, which a
/// kernel writes straight into (`post` in `common.cuh`): the values, a system-wide fence,
/// then word 0, a sequence number. The host spins on that word, so it has a level's counts
/// as soon as they land: no copy queued behind the kernel, no wait for its end.
pub(crate) struct Mailbox {
    /// The host's address of the words (kept by `_host`).
    addr: usize,
    _host: PinnedHostSlice<u64>,
    /// The GPU's address of the same words.
    dev: sys::CUdeviceptr,
    values: usize,
    /// The last sequence number handed out.
    seq: u64,
}

impl Mailbox {
    /// The GPU's address, for the posting kernel.
    pub(crate) fn device(&self) -> u64 {
        self.dev
    }

    /// The sequence number for the next post (never 0, the words' first value).
    pub(crate) fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Waits for post `seq` and copies its first `out.len()` values into `out`. `done` is
    /// an event after the posting kernel: once it is complete the post must be there, and a
    /// missing one (a kernel that failed, or a bug) is an error rather than a hang. Now and
    /// then `watch` is asked, with the wait's start, whether to go on waiting (a team's
    /// [`link::Link::watch`]: its error ends the wait).
    pub(crate) fn wait(
        &self,
        seq: u64,
        done: &CudaEvent,
        out: &mut [u64],
        watch: impl Fn(Instant) -> Result<()>,
    ) -> Result<()> {
        assert!(out.len() <= self.values);
        let word = |i: usize| {
            // SAFETY: `addr` holds values + 1 words for the life of `_host`; the GPU may
            // write them meanwhile, so each is read as volatile.
            unsafe { std::ptr::read_volatile((self.addr as *const u64).add(i)) }
        };
        let mut spin = Spin::default();
        let since = Instant::now();
        while word(0) != seq {
            // Now and then the driver is asked (only then: it may take a lock other GPUs'
            // threads need).
            if spin.turn().yielded() {
                if done.try_is_complete().map_err(gpu_err)? && word(0) != seq {
                    return Err(Error::Gpu(format!(
                        "a kernel ended without posting its counts (post {seq}, found {})",
                        word(0)
                    )));
                }
                if spin.watch_due() {
                    watch(since)?;
                }
            }
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        for (i, o) in out.iter_mut().enumerate() {
            *o = word(i + 1);
        }
        Ok(())
    }
}

/// A host thread's spin on memory that a GPU or another thread writes (a [`Mailbox`], a
/// team's [`team::Board`]): each turn a pause, and every [`Spin::YIELD`] turns the core
/// given to any other thread waiting for it. Without the yield a thread woken onto the
/// spinning core (one that waited for a lock in the driver, woken by the spinner) waited
/// for the scheduler's tick: on 4 H200s some searches of a BFS team of 4 took 16-22 ms,
/// each level's wait a multiple of 4 ms (BENCHMARKS.md, fiftieth session).
#[derive(Default)]
pub(crate) struct Spin {
    turns: u32,
}

impl Spin {
    /// Turns between two yields.
    const YIELD: u32 = 256;
    /// Turns between two looks at whether to go on waiting ([`Spin::watch_due`]): a turn
    /// that yielded too.
    const WATCH: u32 = 16 * Self::YIELD;

    /// One turn of the wait.
    pub(crate) fn turn(&mut self) -> &mut Spin {
        self.turns = self.turns.wrapping_add(1);
        if self.yielded() {
            std::thread::yield_now();
        }
        std::hint::spin_loop();
        self
    }

    /// Whether the last turn yielded the core: a moment for a costlier look.
    pub(crate) fn yielded(&self) -> bool {
        self.turns % Self::YIELD == 0
    }

    /// Whether the last turn is one at which to ask whether to go on waiting.
    pub(crate) fn watch_due(&self) -> bool {
        self.turns % Self::WATCH == 0
    }
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

/// A driver error as a warpgraph error.
pub(crate) fn gpu_err(e: DriverError) -> Error {
    Error::Gpu(e.to_string())
}

/// A launch of `blocks` blocks (at least one) of `threads` threads, no dynamic shared
/// memory.
pub(crate) fn launch_config(blocks: u32, threads: u32) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launch geometry: `(blocks, threads)` for one thread per item, at least one block.
pub(crate) fn grid_for(items: u64, threads: u32) -> (u32, u32) {
    let blocks = items
        .div_ceil(u64::from(threads))
        .clamp(1, u64::from(u32::MAX));
    (blocks as u32, threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::PushKernelArg;

    const POSTER: KernelSource = KernelSource {
        name: "mailbox_test",
        source: r#"
extern "C" __global__ void poster(u64* box, u64 seq) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        post_value(box, 0, 42);
        post_value(box, 1, seq * 3);
        post(box, seq);
    }
}
"#,
    };

    const SPINNER: KernelSource = KernelSource {
        name: "spin_test",
        source: r#"
extern "C" __global__ void spin(const volatile u64* box) {
    while (box[1] == 0) {}
}
"#,
    };

    /// A team over NCCL whose GPU work never ends (a kernel that waits for the host, as an
    /// exchange would wait for a lost rank): the wait is an error once the patience has
    /// passed, and the team's communicator is aborted; a plain synchronize would wait
    /// forever.
    #[test]
    fn a_wait_for_work_that_never_ends_is_an_error_after_the_patience() {
        if !team::test_nccl() {
            return;
        }
        let spec = team::TeamSpec {
            over_nccl: true,
            patience: std::time::Duration::from_secs(1),
            ..team::TeamSpec::local(1)
        };
        let e = team::run(&spec, vec![()], |m, ()| {
            let f = m.gpu.function(&SPINNER, "spin")?;
            let mailbox = m.gpu.mailbox(1)?;
            let dev = mailbox.device();
            let mut b = m.gpu.stream().launch_builder(&f);
            b.arg(&dev);
            // SAFETY: matches spin; the mailbox holds one value after its sequence word.
            unsafe { b.launch(launch_config(1, 32)) }.map_err(gpu_err)?;
            // The kernel is let go after 3 s: NCCL's abort, after the wait's error at 1 s,
            // waits for the GPU, where NCCL's own kernels (not this one) would end at once.
            let addr = mailbox.addr;
            let waited = std::thread::scope(|s| {
                s.spawn(move || {
                    std::thread::sleep(std::time::Duration::from_secs(3));
                    // SAFETY: word 1 of the mailbox's two, which the kernel only reads; the
                    // mailbox outlives this thread.
                    unsafe { std::ptr::write_volatile((addr as *mut u64).add(1), 1) };
                });
                m.link.sync()
            });
            m.gpu.stream().synchronize().map_err(gpu_err)?;
            waited
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("has not ended after 1 s"), "{e}");
    }

    /// A kernel's posts reach the host in order, each with its values; a post that no
    /// kernel makes is an error once the event after the work is complete, not a hang.
    #[test]
    fn a_mailbox_gets_each_post_and_reports_a_missing_one() {
        let Some(gpu) = test_gpu() else { return };
        let f = gpu.function(&POSTER, "poster").unwrap();
        let mut mailbox = gpu.mailbox(2).unwrap();
        let done = gpu
            .stream()
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .unwrap();
        for _ in 0..3 {
            let seq = mailbox.next();
            let dev = mailbox.device();
            let mut b = gpu.stream().launch_builder(&f);
            b.arg(&dev).arg(&seq);
            // SAFETY: matches poster; the mailbox holds two values.
            unsafe { b.launch(launch_config(2, 64)) }.unwrap();
            done.record(gpu.stream()).unwrap();
            let mut out = [0u64; 2];
            mailbox.wait(seq, &done, &mut out, |_| Ok(())).unwrap();
            assert_eq!(out, [42, seq * 3]);
        }
        let missing = mailbox.next();
        done.record(gpu.stream()).unwrap();
        let e = mailbox
            .wait(missing, &done, &mut [0u64; 2], |_| Ok(()))
            .unwrap_err();
        assert!(e.to_string().contains("without posting"), "{e}");
    }
}
