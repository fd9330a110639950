//! The host's fast ways to hear from a GPU: a [`Mailbox`] of page-locked words that a
//! kernel posts into, and the [`Spin`] with which a host thread waits on such memory.

use std::time::Instant;

use cudarc::driver::{sys, CudaEvent, PinnedHostSlice};

use super::context::Gpu;
use super::driver::gpu_err;
use crate::error::{Error, Result};

impl Gpu {
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
    /// [`Link::watch`](super::link::Link::watch): its error ends the wait).
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
/// team's [`Board`](super::team::Board)): each turn a pause, and every [`Spin::YIELD`]
/// turns the core given to any other thread waiting for it. Without the yield a thread
/// woken onto the spinning core (one that waited for a lock in the driver, woken by the
/// spinner) would wait for the scheduler's tick, a few milliseconds added to a wait that
/// should take microseconds.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::team;
    use crate::cuda::{launch_config, test_gpu, KernelSource};
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
