//! Timing GPU work: CUDA events on the stream for the kernels' time, the host's clock for
//! the whole call ([`Timer`], [`GpuTimes`]).

use std::time::Instant;

use cudarc::driver::{sys, CudaEvent};
use serde::Serialize;

use super::context::Gpu;
use super::driver::gpu_err;
use crate::error::Result;

impl Gpu {
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
