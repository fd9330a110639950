//! One rank's NCCL communicator, made so that no rank waits for its team forever.
//!
//! NCCL's plain `ncclCommInitRank` (what cudarc's `Comm::from_rank` calls) waits as long
//! as any rank is missing: a process that never started, or a host that is down, hangs
//! every other one. [`Comm::join`] joins non-blocking instead (`ncclCommInitRankConfig`
//! with `blocking = 0`), polls `ncclCommGetAsyncError`, and aborts once the team's
//! patience ([`Watch`]) runs out. When every rank has joined, it splits a blocking
//! communicator off that one for the exchanges: in non-blocking mode NCCL 2.28 hands every
//! group (every exchange) to a new host thread, a cost that an exchange per level of a
//! level-synchronous search cannot carry.
//!
//! While the GPU runs an exchange, the host waits through [`Comm::watch`], which fails
//! (and aborts the communicator, whose kernels then end) when NCCL reports an error of its
//! own (a peer's connection lost), when another rank of this process stopped, or when the
//! wait outlasts the patience (a peer in another process gone silent).

use std::ffi::{c_int, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop};
use cudarc::nccl::sys::{self, ncclComm_t, ncclResult_t};
use cudarc::nccl::{Id, NcclType};

use super::driver_err;
use super::exchange::{Reduce, DEPARTED};
use crate::error::{Error, Result};

/// How long a rank of a team waits for the others, and a flag by which the ranks of one
/// process tell each other that one of them stopped.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    patience: Duration,
    stop: Arc<AtomicBool>,
}

impl Watch {
    pub(crate) fn new(patience: Duration) -> Watch {
        Watch {
            patience,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Tells the other ranks of this process that this one stopped (on an error).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// One rank's communicator (blocking, for the exchanges), aborted when dropped.
pub(crate) struct Comm {
    /// Null once aborted.
    raw: AtomicPtr<sys::ncclComm>,
    /// The non-blocking communicator it was split from, kept (idle) until this one ends:
    /// other ranks may still be splitting through it when this one is ready.
    _parent: Owned,
    stream: Arc<CudaStream>,
    rank: usize,
    world: usize,
    watch: Watch,
    /// Memory registered as windows of this communicator ([`Comm::symmetric`]), freed
    /// after it (a field drops after `Drop::drop`, whose abort releases the windows).
    windows: std::sync::Mutex<Vec<SymmetricMemory>>,
}

/// `ncclMemAlloc`'d device memory, freed by `ncclMemFree` when dropped.
struct SymmetricMemory(*mut std::ffi::c_void);

// SAFETY: a device address; freed once, by whichever thread drops it.
unsafe impl Send for SymmetricMemory {}

impl Drop for SymmetricMemory {
    fn drop(&mut self) {
        // SAFETY: memory ncclMemAlloc gave, freed once, after its window's communicator
        // was aborted (see `Comm::windows`).
        unsafe { sys::ncclMemFree(self.0) };
    }
}

/// `NCCL_WIN_COLL_SYMMETRIC`: a window of the same size on every rank, which NCCL's
/// symmetric kernels reach directly.
const WIN_COLL_SYMMETRIC: c_int = 0x01;

/// The first NCCL with windows and symmetric kernels (2.27).
const SYMMETRIC_VERSION: c_int = 22_700;

// SAFETY: the handle is used by the thread that owns the rank; NCCL's calls on one
// communicator may come from any thread, one at a time.
unsafe impl Send for Comm {}
// SAFETY: as above: a rank's exchanges are made by its own thread only.
unsafe impl Sync for Comm {}

/// NCCL 2.28's version number, as `ncclConfig_t` carries it.
const CONFIG_VERSION: u32 = 22_800;
/// `NCCL_CONFIG_UNDEF_INT`: the field is NCCL's to choose.
const UNDEF: c_int = c_int::MIN;

/// `NCCL_CONFIG_INITIALIZER`, blocking or not. NCCL copies no more of it than `size` says
/// (nor more than its own struct holds), so older and newer libraries read it alike.
fn config(blocking: bool) -> sys::ncclConfig_t {
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        version: CONFIG_VERSION,
        blocking: c_int::from(blocking),
        cgaClusterSize: UNDEF,
        minCTAs: UNDEF,
        maxCTAs: UNDEF,
        netName: null(),
        splitShare: UNDEF,
        trafficClass: UNDEF,
        commName: null(),
        collnetEnable: UNDEF,
        CTAPolicy: UNDEF,
        shrinkShare: UNDEF,
        nvlsCTAs: UNDEF,
        nChannelsPerNetPeer: UNDEF,
        nvlinkCentricSched: UNDEF,
    }
}

/// An NCCL result as the library's error: NCCL's words for the code, and its last message
/// for `comm` (or the process) where it has one.
pub(crate) fn error(code: ncclResult_t, comm: ncclComm_t, what: &str) -> Error {
    // SAFETY: both return static or library-owned C strings (or null), read at once.
    let text = |p: *const std::ffi::c_char| {
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    let words = text(unsafe { sys::ncclGetErrorString(code) }).unwrap_or_default();
    let last = text(unsafe { sys::ncclGetLastError(comm) }).filter(|s| !s.is_empty());
    Error::Nccl(match last {
        Some(last) => format!("{what}: {code:?} ({words}): {last}"),
        None => format!("{what}: {code:?} ({words})"),
    })
}

/// Ok for success and for work still in progress, the error otherwise.
fn check(code: ncclResult_t, comm: ncclComm_t, what: &str) -> Result<()> {
    match code {
        ncclResult_t::ncclSuccess | ncclResult_t::ncclInProgress => Ok(()),
        code => Err(error(code, comm, what)),
    }
}

/// A communicator handle that is aborted if dropped (before it is handed on).
struct Owned(ncclComm_t);

impl Owned {
    fn into_raw(self) -> ncclComm_t {
        let raw = self.0;
        std::mem::forget(self);
        raw
    }

    /// `ncclCommGetAsyncError`: `Ok(true)` once ready, `Ok(false)` while in progress.
    fn ready(&self, what: &str) -> Result<bool> {
        let mut state = ncclResult_t::ncclInProgress;
        // SAFETY: a live handle, and a place for the answer.
        let code = unsafe { sys::ncclCommGetAsyncError(self.0, &mut state) };
        check(code, self.0, what)?;
        match state {
            ncclResult_t::ncclSuccess => Ok(true),
            ncclResult_t::ncclInProgress => Ok(false),
            state => Err(error(state, self.0, what)),
        }
    }

    /// Waits until ready, at most until `watch`'s patience from `start` has passed.
    fn settle(&self, watch: &Watch, start: Instant, what: &str) -> Result<()> {
        while !self.ready(what)? {
            if watch.stopped() {
                return Err(Error::Nccl(DEPARTED.into()));
            }
            if start.elapsed() > watch.patience {
                return Err(Error::Nccl(format!(
                    "{what}: not every rank came within {} s (WARPGRAPH_NCCL_TIMEOUT): is \
                     every process of the team running, with the same WARPGRAPH_NCCL_WORLD \
                     and id file, and can it reach this host?",
                    watch.patience.as_secs_f64()
                )));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: a live handle, dropped once; abort ends whatever it still runs.
            unsafe { sys::ncclCommAbort(self.0) };
        }
    }
}

impl Comm {
    /// Rank `rank` of a team of `world` that meets through `id`, its exchanges on `stream`
    /// (whose GPU is current on this thread). Waits for the other ranks at most
    /// `watch`'s patience.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL refuses, when the patience runs out before every rank
    /// has joined (saying so), or when another rank of this process stopped meanwhile.
    pub(crate) fn join(
        stream: Arc<CudaStream>,
        rank: usize,
        world: usize,
        id: &Id,
        watch: Watch,
    ) -> Result<Comm> {
        let unique = sys::ncclUniqueId {
            internal: *id.internal(),
        };
        let (r, w) = (rank as c_int, world as c_int);
        let what = format!("rank {rank} of {world} joining its team over NCCL");
        let mut raw = null_mut();
        let mut nonblocking = config(false);
        // SAFETY: a place for the handle and a config that outlives the call.
        let code = unsafe { sys::ncclCommInitRankConfig(&mut raw, w, unique, r, &mut nonblocking) };
        let parent = Owned(raw);
        check(code, raw, &what)?;
        let start = Instant::now();
        parent.settle(&watch, start, &what)?;
        // Every rank is here: the blocking communicator the exchanges use. The split runs
        // as the parent's work (non-blocking): NCCL writes the child's handle once the
        // parent is ready again.
        // On the heap, leaked should the wait end first: NCCL's thread may write it later.
        let mut slot: Box<ncclComm_t> = Box::new(null_mut());
        let mut blocking = config(true);
        // SAFETY: a ready parent, a place for the child that lives until NCCL has written
        // it, and a config read during the call.
        let code = unsafe { sys::ncclCommSplit(parent.0, 0, r, &mut *slot, &mut blocking) };
        check(code, parent.0, &what)?;
        if let Err(e) = parent.settle(&watch, start, &what) {
            std::mem::forget(slot);
            return Err(e);
        }
        // SAFETY: NCCL's thread wrote it before the parent was ready again.
        let child = Owned(unsafe { std::ptr::read_volatile(&*slot) });
        if child.0.is_null() {
            return Err(Error::Nccl(format!(
                "{what}: NCCL's split gave no communicator"
            )));
        }
        child.settle(&watch, start, &what)?;
        Ok(Comm {
            raw: AtomicPtr::new(child.into_raw()),
            _parent: parent,
            stream,
            rank,
            world,
            watch,
            windows: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// `bytes` of zeroed device memory in a window of this communicator that every rank
    /// registers alike (a collective: every rank calls it, with the same size), so that
    /// NCCL's symmetric kernels serve collectives whose buffers lie there: one kernel
    /// writing straight into the peers' memory over NVLink, not a ring of copies through
    /// NCCL's own buffers. The memory lives as long as the communicator.
    ///
    /// `agree` (a collective of the team: whether every rank's argument was true) runs
    /// between the allocation and the registration, so that no rank waits in the
    /// registration for one that has no memory. `None` where some rank has none, or an
    /// NCCL older than 2.27 (without windows).
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL cannot register it, or `agree`'s error.
    pub(crate) fn symmetric(
        &self,
        bytes: usize,
        agree: impl FnOnce(bool) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let what = format!("rank {} of {}: symmetric memory", self.rank, self.world);
        let memory = self.symmetric_memory(bytes, &what);
        if !agree(matches!(memory, Ok(Some(_))))? {
            if crate::settings::get().trace > 0 {
                let why = match &memory {
                    Ok(Some(_)) => "another rank has none".to_string(),
                    Ok(None) => "NCCL before 2.27".to_string(),
                    Err(e) => e.to_string(),
                };
                eprintln!("{what}: none ({bytes} bytes): {why}");
            }
            return Ok(None);
        }
        let Ok(Some(memory)) = memory else {
            unreachable!("every rank agreed it has its memory");
        };
        let raw = self.raw()?;
        let mut win: sys::ncclWindow_t = null_mut();
        // SAFETY: ncclMemAlloc's memory of `bytes`, kept until after the communicator.
        let code = unsafe {
            sys::ncclCommWindowRegister(raw, memory.0, bytes, &mut win, WIN_COLL_SYMMETRIC)
        };
        let ptr = memory.0 as u64;
        self.windows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(memory);
        check(code, raw, &what)?;
        Ok(Some(ptr))
    }

    /// `bytes` of zeroed memory from `ncclMemAlloc` on this rank's GPU; `None` with an
    /// NCCL older than 2.27.
    fn symmetric_memory(&self, bytes: usize, what: &str) -> Result<Option<SymmetricMemory>> {
        let mut version: c_int = 0;
        // SAFETY: a place for the number.
        check(
            unsafe { sys::ncclGetVersion(&mut version) },
            null_mut(),
            what,
        )?;
        if version < SYMMETRIC_VERSION {
            return Ok(None);
        }
        let raw = self.raw()?;
        // ncclMemAlloc allocates on the calling thread's current device.
        self.stream
            .context()
            .bind_to_thread()
            .map_err(driver_err(what))?;
        let mut ptr = null_mut();
        // SAFETY: a place for the address; this thread's current GPU is the stream's.
        check(unsafe { sys::ncclMemAlloc(&mut ptr, bytes) }, raw, what)?;
        let memory = SymmetricMemory(ptr);
        // SAFETY: `bytes` of this GPU's memory at `ptr`, zeroed on this stream.
        unsafe {
            cudarc::driver::result::memset_d8_async(ptr as u64, 0, bytes, self.stream.cu_stream())
        }
        .map_err(driver_err(what))?;
        Ok(Some(memory))
    }

    /// The handle, or an error once aborted.
    fn raw(&self) -> Result<ncclComm_t> {
        let raw = self.raw.load(Ordering::Acquire);
        if raw.is_null() {
            return Err(Error::Nccl(format!(
                "rank {} of {}: its NCCL communicator was aborted",
                self.rank, self.world
            )));
        }
        Ok(raw)
    }

    /// Ends this rank's exchanges: NCCL stops their kernels, and every later call fails.
    pub(crate) fn abort(&self) {
        let raw = self.raw.swap(null_mut(), Ordering::AcqRel);
        drop(Owned(raw));
    }

    /// During a wait that began at `since`: an error (after aborting) when NCCL reports
    /// one, another rank of this process stopped, or the wait has outlasted the patience.
    ///
    /// # Errors
    /// [`Error::Nccl`] saying which.
    pub(crate) fn watch(&self, since: Instant) -> Result<()> {
        let raw = self.raw()?;
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live handle, and a place for the answer.
        let code = unsafe { sys::ncclCommGetAsyncError(raw, &mut state) };
        let fine =
            |r: ncclResult_t| matches!(r, ncclResult_t::ncclSuccess | ncclResult_t::ncclInProgress);
        // Asked often (a mailbox's wait): words only once something is wrong.
        if fine(code)
            && fine(state)
            && !self.watch.stopped()
            && since.elapsed() <= self.watch.patience
        {
            return Ok(());
        }
        let what = format!("rank {} of {}", self.rank, self.world);
        let e = if !fine(code) {
            error(code, raw, &what)
        } else if !fine(state) {
            error(state, raw, &what)
        } else if self.watch.stopped() {
            Error::Nccl(DEPARTED.into())
        } else {
            Error::Nccl(format!(
                "{what}: an exchange with the other ranks has not ended after {} s \
                 (WARPGRAPH_NCCL_TIMEOUT): another rank has most likely stopped",
                self.watch.patience.as_secs_f64()
            ))
        };
        self.abort();
        Err(e)
    }

    /// Calls `f` with the handle and the stream, and turns its result into ours.
    fn call(
        &self,
        what: &str,
        f: impl FnOnce(ncclComm_t, sys::cudaStream_t) -> ncclResult_t,
    ) -> Result<()> {
        let raw = self.raw()?;
        let code = f(raw, self.stream.cu_stream() as sys::cudaStream_t);
        check(code, raw, what)
    }

    /// `ncclAllGather` of `len` elements a rank, from `src` into `dst`.
    ///
    /// # Safety
    /// Both live on this stream's GPU until the work is done, `dst` `world` times as long
    /// as `src` (NCCL checks no lengths).
    unsafe fn all_gather_at<T: NcclType>(&self, src: u64, dst: u64, len: usize) -> Result<()> {
        self.call("all-gather", |c, s| unsafe {
            sys::ncclAllGather(src as _, dst as _, len, T::as_nccl_type(), c, s)
        })
    }

    /// `ncclSend` of `len` elements at `src` to `peer`.
    ///
    /// # Safety
    /// `src` lives on this stream's GPU until the work is done.
    unsafe fn send_at<T: NcclType>(&self, src: u64, len: usize, peer: usize) -> Result<()> {
        self.call("send", |c, s| unsafe {
            sys::ncclSend(src as _, len, T::as_nccl_type(), peer as c_int, c, s)
        })
    }

    /// `ncclRecv` of `len` elements from `peer` into `dst`.
    ///
    /// # Safety
    /// `dst` lives on this stream's GPU until the work is done.
    unsafe fn recv_at<T: NcclType>(&self, dst: u64, len: usize, peer: usize) -> Result<()> {
        self.call("receive", |c, s| unsafe {
            sys::ncclRecv(dst as _, len, T::as_nccl_type(), peer as c_int, c, s)
        })
    }

    /// Every rank's `send` in rank order in `recv`.
    pub(crate) fn all_gather<T: NcclType, S: DevicePtr<T>, R: DevicePtrMut<T>>(
        &self,
        send: &S,
        recv: &mut R,
    ) -> Result<()> {
        let (src, _src) = send.device_ptr(&self.stream);
        let (dst, _dst) = recv.device_ptr_mut(&self.stream);
        // SAFETY: both are this stream's buffers, marked in use by the guards; the callers
        // make recv world times send's length.
        unsafe { self.all_gather_at::<T>(src, dst, send.len()) }
    }

    /// `root`'s `send` (`None` elsewhere) into `recv`.
    pub(crate) fn broadcast<T: NcclType, S: DevicePtr<T>, R: DevicePtrMut<T>>(
        &self,
        send: Option<&S>,
        recv: &mut R,
        root: usize,
    ) -> Result<()> {
        let len = recv.len();
        let (src, _src) = send.map(|s| s.device_ptr(&self.stream)).unzip();
        let (dst, _dst) = recv.device_ptr_mut(&self.stream);
        let src = src.map_or(null(), |p| p as *const std::ffi::c_void);
        // SAFETY: live buffers of `len` elements on this stream's GPU.
        self.call("broadcast", |c, s| unsafe {
            sys::ncclBroadcast(src, dst as _, len, T::as_nccl_type(), root as c_int, c, s)
        })
    }

    /// `buf` reduced over the ranks by `op`, in place.
    pub(crate) fn all_reduce_in_place<T: NcclType, R: DevicePtrMut<T>>(
        &self,
        buf: &mut R,
        op: Reduce,
    ) -> Result<()> {
        let len = buf.len();
        let op = match op {
            Reduce::Max => sys::ncclRedOp_t::ncclMax,
            Reduce::Min => sys::ncclRedOp_t::ncclMin,
        };
        let (ptr, _rec) = buf.device_ptr_mut(&self.stream);
        // SAFETY: a live buffer of `len` elements on this stream's GPU.
        self.call("all-reduce", |c, s| unsafe {
            sys::ncclAllReduce(ptr as _, ptr as _, len, T::as_nccl_type(), op, c, s)
        })
    }

    /// `data` to `peer`.
    pub(crate) fn send<T: NcclType, S: DevicePtr<T>>(&self, data: &S, peer: usize) -> Result<()> {
        let (src, _rec) = data.device_ptr(&self.stream);
        // SAFETY: this stream's buffer, marked in use by the guard.
        unsafe { self.send_at::<T>(src, data.len(), peer) }
    }

    /// What `peer` sends, into `buf`.
    pub(crate) fn recv<T: NcclType, R: DevicePtrMut<T>>(
        &self,
        buf: &mut R,
        peer: usize,
    ) -> Result<()> {
        let len = buf.len();
        let (dst, _rec) = buf.device_ptr_mut(&self.stream);
        // SAFETY: this stream's buffer, marked in use by the guard.
        unsafe { self.recv_at::<T>(dst, len, peer) }
    }

    /// Starts a group of exchanges, made as one at [`Group::end`].
    pub(crate) fn group(&self) -> Result<Group<'_>> {
        // SAFETY: no arguments; paired with the group's end.
        check(unsafe { sys::ncclGroupStart() }, null_mut(), "group start")?;
        Ok(Group {
            comm: self,
            syncs: Vec::new(),
            ended: false,
        })
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // The exchanges' communicator first; `_parent` goes after, as a field.
        self.abort();
    }
}

/// Exchanges of one rank made as one NCCL group; the views they use are marked in use on
/// the stream until the group ends.
pub(crate) struct Group<'g> {
    comm: &'g Comm,
    syncs: Vec<SyncOnDrop<'g>>,
    ended: bool,
}

impl<'g> Group<'g> {
    /// `data` to `peer`.
    pub(crate) fn send<'s: 'g, T: NcclType>(
        &mut self,
        data: CudaView<'s, T>,
        peer: usize,
    ) -> Result<()> {
        let len = data.len();
        let (src, rec) = data.view_ptr(&self.comm.stream);
        self.syncs.push(rec);
        // SAFETY: a live view on this stream's GPU, kept until the group ends.
        unsafe { self.comm.send_at::<T>(src, len, peer) }
    }

    /// What `peer` sends, into `buf`.
    pub(crate) fn recv<'r: 'g, T: NcclType>(
        &mut self,
        buf: CudaViewMut<'r, T>,
        peer: usize,
    ) -> Result<()> {
        let len = buf.len();
        let (dst, rec) = buf.view_ptr_mut(&self.comm.stream);
        self.syncs.push(rec);
        // SAFETY: a live view on this stream's GPU, kept until the group ends.
        unsafe { self.comm.recv_at::<T>(dst, len, peer) }
    }

    /// Every rank's `send` in rank order in `recv`.
    pub(crate) fn all_gather<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        send: CudaView<'s, T>,
        recv: CudaViewMut<'r, T>,
    ) -> Result<()> {
        let len = send.len();
        let (src, rec_src) = send.view_ptr(&self.comm.stream);
        let (dst, rec_dst) = recv.view_ptr_mut(&self.comm.stream);
        self.syncs.extend([rec_src, rec_dst]);
        // SAFETY: live views on this stream's GPU, kept until the group ends.
        unsafe { self.comm.all_gather_at::<T>(src, dst, len) }
    }

    /// Makes the group's exchanges.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL fails them.
    pub(crate) fn end(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.ended, true) {
            return Ok(());
        }
        // SAFETY: ends the group this one started.
        let code = unsafe { sys::ncclGroupEnd() };
        let done = check(code, self.comm.raw.load(Ordering::Acquire), "group end");
        self.syncs.clear();
        done
    }
}

impl Drop for Group<'_> {
    fn drop(&mut self) {
        // A group left on an error must still end, or NCCL's next call on this thread
        // would be part of it.
        let _ = self.finish();
    }
}
