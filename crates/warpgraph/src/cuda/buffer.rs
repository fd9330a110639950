//! Device and page-locked host memory of a GPU: [`Buffer`]s, uploads and zeroed
//! allocations, copies back through page-locked staging buffers (or straight into host
//! memory page-locked in place, [`Registered`]).

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaSlice, CudaView, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};

use super::context::Gpu;
use super::driver::gpu_err;
use crate::error::Result;

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

/// Uploads of at least this many bytes go through page-locked buffers ([`Gpu::upload`]).
const STAGED_BYTES: usize = 64 << 20;
/// Bytes of each of the two page-locked buffers a large upload goes through.
const STAGE_BYTES: usize = 16 << 20;

impl Gpu {
    /// Copies `data` to a new device buffer; from [`STAGED_BYTES`] on, through two
    /// page-locked buffers filled on every core while the other one crosses the bus (a
    /// copy from pageable memory runs at a fraction of the bus's speed).
    pub(crate) fn upload<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
        &self,
        data: &[T],
    ) -> Result<CudaSlice<T>> {
        if data.is_empty() {
            // A zero-length allocation is an error for the driver: keep one element.
            // SAFETY: the element is never read (every length this buffer stands for is 0).
            return unsafe { self.stream.alloc::<T>(1) }.map_err(gpu_err);
        }
        if std::mem::size_of_val(data) < STAGED_BYTES {
            return self.stream.clone_htod(data).map_err(gpu_err);
        }
        // SAFETY: every element is written by the copies below before any kernel reads it
        // (the stream orders them).
        let mut buf = unsafe { self.stream.alloc::<T>(data.len()) }.map_err(gpu_err)?;
        let per = (STAGE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        let mut stages = [self.pinned::<T>(per)?, self.pinned::<T>(per)?];
        let mut done: [Option<cudarc::driver::CudaEvent>; 2] = [None, None];
        for (k, chunk) in data.chunks(per).enumerate() {
            let slot = k % 2;
            // The buffer's last copy must have left it before it is filled again.
            if let Some(e) = done[slot].take() {
                e.synchronize().map_err(gpu_err)?;
            }
            let host = &mut stages[slot].as_mut_slice().map_err(gpu_err)?[..chunk.len()];
            crate::par::copy(host, chunk);
            let mut dst = buf.slice_mut(k * per..k * per + chunk.len());
            self.stream.memcpy_htod(&*host, &mut dst).map_err(gpu_err)?;
            done[slot] = Some(self.mark()?);
        }
        // The page-locked buffers are freed on return: their copies must be done.
        self.stream.synchronize().map_err(gpu_err)?;
        Ok(buf)
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
    pub(crate) fn read_pinned_meanwhile<T: DeviceRepr + ValidAsZeroBits, R>(
        &self,
        copies: &mut [(CudaView<'_, T>, &mut PinnedHostSlice<T>)],
        len: usize,
        meanwhile: impl FnOnce() -> R,
    ) -> Result<R> {
        for (buf, staging) in copies.iter_mut() {
            assert!(len <= staging.len() && len <= buf.len());
            if len > 0 {
                // Into the staging's first `len` elements: a copy takes its length from its
                // destination.
                let dst = &mut staging.as_mut_slice().map_err(gpu_err)?[..len];
                self.stream
                    .memcpy_dtoh(&buf.slice(..len), dst)
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
    /// holding the host back from queuing what follows: a team's rank whose search is
    /// queued behind the start's all-reduce would launch its first level only once the
    /// other ranks had come, and the team would wait for it at the first collective.
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

/// Results copied back in blocks through two page-locked buffers, so that one block
/// crosses the bus (and the GPU computes the next) while the host works on the one
/// before:
///
/// ```text
/// read.queue(gpu, 0, src, range_0)?;
/// for k in 0..blocks {
///     if k + 1 < blocks { /* queue block k+1's kernels */ read.queue(gpu, k + 1, src, range)?; }
///     consume(read.take(k)?);
/// }
/// ```
///
/// Block `k` lands in buffer `k % 2`: block `k + 1` may be queued while block `k` is
/// read, and block `k + 2` only once it has been.
pub(crate) struct ReadBack<T> {
    bufs: [PinnedHostSlice<T>; 2],
    done: [Option<cudarc::driver::CudaEvent>; 2],
    lens: [usize; 2],
}

impl<T: DeviceRepr + ValidAsZeroBits> ReadBack<T> {
    /// Two buffers of `cap` elements each.
    pub(crate) fn new(gpu: &Gpu, cap: usize) -> Result<ReadBack<T>> {
        Ok(ReadBack {
            bufs: [gpu.pinned(cap)?, gpu.pinned(cap)?],
            done: [None, None],
            lens: [0, 0],
        })
    }

    /// Queues the copy of `src[range]` (at most `cap` elements) as block `k`, after all
    /// work queued before.
    pub(crate) fn queue(
        &mut self,
        gpu: &Gpu,
        k: usize,
        src: &CudaSlice<T>,
        range: std::ops::Range<usize>,
    ) -> Result<()> {
        let slot = k % 2;
        let len = range.len();
        assert!(len <= self.bufs[slot].len() && self.done[slot].is_none());
        if len > 0 {
            let dst = &mut self.bufs[slot].as_mut_slice().map_err(gpu_err)?[..len];
            gpu.stream
                .memcpy_dtoh(&src.slice(range), dst)
                .map_err(gpu_err)?;
        }
        self.done[slot] = Some(gpu.mark()?);
        self.lens[slot] = len;
        Ok(())
    }

    /// Block `k`, once its copy (and all work queued before it) has finished.
    pub(crate) fn take(&mut self, k: usize) -> Result<&[T]> {
        let slot = k % 2;
        let done = self.done[slot].take().expect("block k was queued");
        done.synchronize().map_err(gpu_err)?;
        Ok(&self.bufs[slot].as_slice().map_err(gpu_err)?[..self.lens[slot]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An upload through the page-locked buffers (several rounds of both, the last one
    /// partial) arrives whole, and so does a small one copied straight.
    #[test]
    fn uploads_arrive_whole() {
        let Some(gpu) = crate::cuda::test_gpu() else {
            return;
        };
        for n in [1000, 2 * STAGED_BYTES / 4 + 12_345] {
            let data: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let buf = gpu.upload(&data).unwrap();
            let mut back = vec![0u32; n];
            gpu.download_into(&buf, &mut back).unwrap();
            assert!(back == data, "{n} words");
        }
    }
}
