//! How the ranks of a team exchange data: [`Link`], one per rank.
//!
//! Between GPUs a link is an NCCL communicator and every exchange is NCCL's, queued on the
//! rank's stream. Ranks that share one GPU cannot use NCCL (it refuses two ranks on one
//! device), and need not: their link copies on that GPU instead. A team of one is the usual
//! case (its all-gathers are single copies on the stream, its reductions nothing at all,
//! and it needs no NCCL library). The other is a team of several ranks on one GPU
//! ([`super::team::TeamSpec::on_one_gpu`]): the whole team's logic (partition, exchanges,
//! the direction switch across ranks) run where only one GPU is to be had, for tests. Its
//! exchanges meet at a barrier of the host threads: each rank waits for its stream, posts
//! where its data lie, and after the barrier copies what it receives from the others'
//! memory; a second barrier keeps anyone from overwriting what others still read. That is
//! slow, and correct for any order of exchanges that NCCL accepts in which every rank
//! enters every exchange, groups included.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaEvent, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr,
    ValidAsZeroBits,
};
use cudarc::nccl::NcclType;

pub use super::exchange::Reduce;

use super::exchange::DEPARTED;
use super::gpu_err;
use super::nccl::{self, Comm};
use crate::error::{Error, Result};

/// One rank's end of a team's exchanges.
pub struct Link {
    rank: usize,
    world: usize,
    stream: Arc<CudaStream>,
    way: Way,
}

enum Way {
    Nccl(Comm),
    Shared(Arc<Hub>),
}

/// Where the ranks sharing a GPU meet.
pub(crate) struct Hub {
    world: usize,
    meeting: Mutex<Meeting>,
    met: Condvar,
    posted: Mutex<Vec<Posted>>,
}

/// The state of the hub's barrier: ranks arrived at the current meeting, meetings held,
/// and whether a rank has left the team (ended, most likely on an error).
#[derive(Default)]
struct Meeting {
    arrived: usize,
    held: u64,
    left: bool,
}

impl Hub {
    pub(crate) fn new(world: usize) -> Arc<Hub> {
        Arc::new(Hub {
            world,
            meeting: Mutex::new(Meeting::default()),
            met: Condvar::new(),
            posted: Mutex::new(vec![Posted::default(); world]),
        })
    }

    /// Waits until every rank has come, as a barrier; an error, instead of waiting
    /// forever, once a rank has left the team.
    fn meet(&self) -> Result<()> {
        let mut m = self.meeting.lock().unwrap_or_else(|e| e.into_inner());
        if m.left {
            return Err(Error::Nccl(DEPARTED.into()));
        }
        m.arrived += 1;
        if m.arrived == self.world {
            m.arrived = 0;
            m.held += 1;
            self.met.notify_all();
            return Ok(());
        }
        let this = m.held;
        while m.held == this && !m.left {
            m = self.met.wait(m).unwrap_or_else(|e| e.into_inner());
        }
        if m.held == this {
            return Err(Error::Nccl(DEPARTED.into()));
        }
        Ok(())
    }

    /// A rank is done (its link dropped): those waiting for it, now or later, stop.
    /// After a team's last exchange nobody waits, so a rank that finishes disturbs no
    /// one.
    fn leave(&self) {
        let mut m = self.meeting.lock().unwrap_or_else(|e| e.into_inner());
        m.left = true;
        self.met.notify_all();
    }
}

/// A piece of device memory: its address and length in bytes.
#[derive(Debug, Clone, Copy)]
struct Piece {
    ptr: u64,
    bytes: usize,
}

/// What one rank offers the others in one exchange, in the order of its operations.
#[derive(Debug, Clone, Default)]
struct Posted {
    gathers: Vec<Piece>,
    sends: Vec<(usize, Piece)>,
    casts: Vec<Option<Piece>>,
}

/// One operation of an exchange on a shared GPU.
enum Op {
    Gather {
        src: Piece,
        dst: u64,
    },
    Send {
        to: usize,
        src: Piece,
    },
    Recv {
        from: usize,
        dst: Piece,
    },
    Cast {
        root: usize,
        src: Option<Piece>,
        dst: Piece,
    },
}

impl Posted {
    fn of(ops: &[Op]) -> Posted {
        let mut p = Posted::default();
        for op in ops {
            match *op {
                Op::Gather { src, .. } => p.gathers.push(src),
                Op::Send { to, src } => p.sends.push((to, src)),
                Op::Recv { .. } => {}
                Op::Cast { src, .. } => p.casts.push(src),
            }
        }
        p
    }
}

fn piece<T>(s: &impl DevicePtr<T>, stream: &CudaStream) -> Piece {
    let (ptr, _sync) = s.device_ptr(stream);
    Piece {
        ptr,
        bytes: s.num_bytes(),
    }
}

fn piece_mut<T>(s: &mut impl DevicePtrMut<T>, stream: &CudaStream) -> Piece {
    let bytes = s.num_bytes();
    let (ptr, _sync) = s.device_ptr_mut(stream);
    Piece { ptr, bytes }
}

fn mismatch(what: &str) -> Error {
    Error::Nccl(format!(
        "the ranks sharing a GPU disagree on {what} (their exchanges are out of step)"
    ))
}

impl Link {
    /// `bytes` of zeroed device memory that NCCL's symmetric kernels reach on every rank
    /// (see `nccl::Comm::symmetric`, and `agree` there), living as long as this link;
    /// `None` on a GPU shared by the ranks (no NCCL), or where some rank's NCCL has no
    /// windows (before 2.27) or could not allocate it. A collective: every rank calls it
    /// alike.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL cannot register it.
    pub(crate) fn symmetric(
        &self,
        bytes: usize,
        agree: impl FnOnce(bool) -> Result<bool>,
    ) -> Result<Option<u64>> {
        match &self.way {
            Way::Nccl(c) => c.symmetric(bytes, agree),
            Way::Shared(_) => Ok(None),
        }
    }

    /// Rank `rank` of `comm`'s team, its exchanges on `stream` (`comm`'s).
    pub(crate) fn nccl(comm: Comm, rank: usize, world: usize, stream: Arc<CudaStream>) -> Link {
        Link {
            rank,
            world,
            stream,
            way: Way::Nccl(comm),
        }
    }

    /// Waits for everything queued on this rank's stream so far, exchanges included. Over
    /// NCCL the wait is watched (see [`Link::watch`]); on a shared GPU nothing queued
    /// waits for another rank.
    ///
    /// # Errors
    /// [`Error::Driver`] when the GPU fails; [`Error::Nccl`] as [`Link::watch`] says.
    pub fn sync(&self) -> Result<()> {
        match &self.way {
            Way::Shared(_) => self.stream.synchronize().map_err(gpu_err),
            Way::Nccl(_) => {
                let mark = self
                    .stream
                    .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                    .map_err(gpu_err)?;
                self.wait_event(&mark)
            }
        }
    }

    /// Waits for `event` (on this rank's stream), watched as [`Link::sync`].
    ///
    /// # Errors
    /// As [`Link::sync`].
    pub fn wait_event(&self, event: &CudaEvent) -> Result<()> {
        if let Way::Shared(_) = self.way {
            return event.synchronize().map_err(gpu_err);
        }
        let since = Instant::now();
        while !event.try_is_complete().map_err(gpu_err)? {
            self.watch(since)?;
            // Keen for a millisecond (a level's exchange), then easy on the host.
            if since.elapsed() < Duration::from_millis(1) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(100));
            }
        }
        Ok(())
    }

    /// During a wait for the team that began at `since`: over NCCL, an error (this rank's
    /// communicator then aborted, its kernels ended) when NCCL reports one, another rank of
    /// this process stopped, or the wait has outlasted the team's patience
    /// (`WARPGRAPH_NCCL_TIMEOUT`). On a shared GPU, nothing.
    ///
    /// # Errors
    /// [`Error::Nccl`] saying which.
    pub fn watch(&self, since: Instant) -> Result<()> {
        match &self.way {
            Way::Nccl(c) => c.watch(since),
            Way::Shared(_) => Ok(()),
        }
    }

    /// Rank `rank` of `hub`'s team, all of whose ranks use the GPU of `stream`.
    pub(crate) fn shared(
        hub: Arc<Hub>,
        rank: usize,
        world: usize,
        stream: Arc<CudaStream>,
    ) -> Link {
        Link {
            rank,
            world,
            stream,
            way: Way::Shared(hub),
        }
    }

    /// Every rank's `send` in rank order in `recv` (`world` times as long), on every rank.
    ///
    /// # Errors
    /// [`Error::Nccl`] when the exchange fails.
    pub fn all_gather<T: NcclType, S: DevicePtr<T>, R: DevicePtrMut<T>>(
        &self,
        send: &S,
        recv: &mut R,
    ) -> Result<()> {
        match &self.way {
            Way::Nccl(c) => c.all_gather(send, recv),
            Way::Shared(_) => {
                let src = piece(send, &self.stream);
                let dst = piece_mut(recv, &self.stream);
                if dst.bytes < src.bytes * self.world {
                    return Err(mismatch("an all-gather's length"));
                }
                self.exchange(vec![Op::Gather { src, dst: dst.ptr }])
            }
        }
    }

    /// `root`'s `send` (`None` elsewhere) in `recv`, on every rank.
    ///
    /// # Errors
    /// [`Error::Nccl`] when the exchange fails.
    pub fn broadcast<T: NcclType, S: DevicePtr<T>, R: DevicePtrMut<T>>(
        &self,
        send: Option<&S>,
        recv: &mut R,
        root: usize,
    ) -> Result<()> {
        match &self.way {
            Way::Nccl(c) => c.broadcast(send, recv, root),
            Way::Shared(_) => {
                let src = send.map(|s| piece(s, &self.stream));
                let dst = piece_mut(recv, &self.stream);
                self.exchange(vec![Op::Cast { root, src, dst }])
            }
        }
    }

    /// `buf` reduced over the ranks by `op`, element by element, on every rank.
    ///
    /// # Errors
    /// [`Error::Nccl`] or [`Error::Driver`] when the exchange fails.
    pub fn all_reduce_in_place<T>(&self, buf: &mut CudaSlice<T>, op: Reduce) -> Result<()>
    where
        T: NcclType + DeviceRepr + ValidAsZeroBits + Copy + PartialOrd,
    {
        match &self.way {
            Way::Nccl(c) => c.all_reduce_in_place(buf, op),
            Way::Shared(_) if self.world == 1 => Ok(()),
            Way::Shared(_) => {
                // Everyone's values here, then the reduction on the host.
                let len = buf.len();
                let mut all = self
                    .stream
                    .alloc_zeros::<T>(len * self.world)
                    .map_err(gpu_err)?;
                self.all_gather(buf, &mut all)?;
                let all = self.stream.clone_dtoh(&all).map_err(gpu_err)?;
                self.stream.synchronize().map_err(gpu_err)?;
                let mut out = all[..len].to_vec();
                for rank in all.chunks(len).skip(1) {
                    for (o, &v) in out.iter_mut().zip(rank) {
                        let better = match op {
                            Reduce::Min => v < *o,
                            Reduce::Max => v > *o,
                        };
                        if better {
                            *o = v;
                        }
                    }
                }
                self.stream.memcpy_htod(&out, buf).map_err(gpu_err)?;
                self.stream.synchronize().map_err(gpu_err)
            }
        }
    }

    /// `data` to rank `peer`, which must call [`Link::recv`] (a team over processes
    /// gathering its results; ranks sharing a GPU exchange in groups only).
    ///
    /// # Errors
    /// [`Error::Nccl`] when the send fails, or on a shared GPU.
    pub fn send<T: NcclType, S: DevicePtr<T>>(&self, data: &S, peer: usize) -> Result<()> {
        match &self.way {
            Way::Nccl(c) => c.send(data, peer),
            Way::Shared(_) => Err(Self::alone()),
        }
    }

    /// What rank `peer` sends with [`Link::send`], into `buf`.
    ///
    /// # Errors
    /// [`Error::Nccl`] when the receive fails, or on a shared GPU.
    pub fn recv<T: NcclType, R: DevicePtrMut<T>>(&self, buf: &mut R, peer: usize) -> Result<()> {
        match &self.way {
            Way::Nccl(c) => c.recv(buf, peer),
            Way::Shared(_) => Err(Self::alone()),
        }
    }

    fn alone() -> Error {
        Error::Nccl("ranks sharing a GPU send to each other only in groups".into())
    }

    /// Several exchanges as one: NCCL's group (one launch), or one meeting of the ranks
    /// sharing a GPU. Every rank must start and end every group, even one with nothing to
    /// send. The exchanges happen at [`Group::end`] (or when the group is dropped).
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL cannot start a group.
    pub fn group(&self) -> Result<Group<'_>> {
        Ok(Group {
            link: self,
            nccl: match &self.way {
                Way::Nccl(c) => Some(c.group()?),
                Way::Shared(_) => None,
            },
            ops: Vec::new(),
            ended: false,
        })
    }

    /// Runs `ops` on a shared GPU.
    fn exchange(&self, ops: Vec<Op>) -> Result<()> {
        let Way::Shared(hub) = &self.way else {
            unreachable!("exchange is the shared GPU's way")
        };
        if self.world == 1 {
            // No one else: an all-gather or a broadcast is a copy, at most, in the
            // stream's order.
            return self.copy_planned(&ops, &[Posted::of(&ops)]);
        }
        // Post what this rank offers once its stream has written it; after the barrier
        // every post is there to read. Every rank reaches both barriers, failed or not.
        let ready = self.stream.synchronize().map_err(gpu_err);
        hub.posted.lock().unwrap_or_else(|e| e.into_inner())[self.rank] = Posted::of(&ops);
        hub.meet()?;
        let all = hub.posted.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let copied = ready.and_then(|()| self.copy_planned(&ops, &all));
        let done = self.stream.synchronize().map_err(gpu_err);
        hub.meet()?;
        copied.and(done)
    }

    /// This rank's part of an exchange on a shared GPU, given every rank's posts: the
    /// copies [`plan`] finds, on this rank's stream.
    fn copy_planned(&self, ops: &[Op], all: &[Posted]) -> Result<()> {
        plan(self.rank, ops, all)?
            .into_iter()
            .try_for_each(|(dst, src)| self.copy(dst, src))
    }

    /// Copies `src` to `dst` on this rank's stream.
    fn copy(&self, dst: u64, src: Piece) -> Result<()> {
        // SAFETY: both pieces lie in live allocations on this GPU for the whole exchange:
        // borrowed by their operations (or groups) until it ends, which waits for the
        // copies on a shared GPU; a team of one copies in its stream's order.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                dst,
                src.ptr,
                src.bytes,
                self.stream.cu_stream(),
            )
        }
        .map_err(gpu_err)
    }
}

/// The copies that make rank `rank`'s part of an exchange on a shared GPU (`ops`, given
/// every rank's posts `all`): (destination, source) pairs, none for data already in place.
///
/// # Errors
/// [`Error::Nccl`] where the ranks' operations do not match.
fn plan(rank: usize, ops: &[Op], all: &[Posted]) -> Result<Vec<(u64, Piece)>> {
    let mut copies = Vec::new();
    let mut push = |dst: u64, src: Piece| {
        if src.bytes > 0 && dst != src.ptr {
            copies.push((dst, src));
        }
    };
    let (mut gather, mut cast) = (0, 0);
    let mut from_each = vec![0usize; all.len()];
    for op in ops {
        match *op {
            Op::Gather { src, dst } => {
                for (q, posted) in all.iter().enumerate() {
                    let from = *posted
                        .gathers
                        .get(gather)
                        .ok_or_else(|| mismatch("the number of all-gathers"))?;
                    if from.bytes != src.bytes {
                        return Err(mismatch("an all-gather's length"));
                    }
                    push(dst + (q * src.bytes) as u64, from);
                }
                gather += 1;
            }
            Op::Send { to, .. } if to >= all.len() => return Err(mismatch("a peer")),
            Op::Send { .. } => {}
            Op::Recv { from, dst } => {
                let nth = from_each
                    .get_mut(from)
                    .map(|n| std::mem::replace(n, *n + 1))
                    .ok_or_else(|| mismatch("a peer"))?;
                let (_, sent) = all[from]
                    .sends
                    .iter()
                    .filter(|(to, _)| *to == rank)
                    .nth(nth)
                    .copied()
                    .ok_or_else(|| mismatch("who sends what"))?;
                if sent.bytes != dst.bytes {
                    return Err(mismatch("a send's length"));
                }
                push(dst.ptr, sent);
            }
            Op::Cast { root, dst, .. } => {
                let from = all
                    .get(root)
                    .ok_or_else(|| mismatch("a broadcast's root"))?
                    .casts
                    .get(cast)
                    .copied()
                    .flatten()
                    .ok_or_else(|| mismatch("a broadcast's root"))?;
                if from.bytes != dst.bytes {
                    return Err(mismatch("a broadcast's length"));
                }
                push(dst.ptr, from);
                cast += 1;
            }
        }
    }
    Ok(copies)
}

impl Drop for Link {
    fn drop(&mut self) {
        if let Way::Shared(hub) = &self.way {
            hub.leave();
        }
    }
}

/// Several exchanges of a team as one; see [`Link::group`].
pub struct Group<'g> {
    link: &'g Link,
    nccl: Option<nccl::Group<'g>>,
    ops: Vec<Op>,
    ended: bool,
}

impl<'g> Group<'g> {
    /// `data` to rank `peer` (which receives it in a group of its own).
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL refuses it.
    pub fn send<'s: 'g, T: NcclType>(&mut self, data: CudaView<'s, T>, peer: usize) -> Result<()> {
        match &mut self.nccl {
            Some(g) => g.send(data, peer),
            None => {
                let src = piece(&data, &self.link.stream);
                self.ops.push(Op::Send { to: peer, src });
                Ok(())
            }
        }
    }

    /// What rank `peer` sends this rank in its group, into `buf`.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL refuses it.
    pub fn recv<'r: 'g, T: NcclType>(
        &mut self,
        mut buf: CudaViewMut<'r, T>,
        peer: usize,
    ) -> Result<()> {
        match &mut self.nccl {
            Some(g) => g.recv(buf, peer),
            None => {
                let dst = piece_mut(&mut buf, &self.link.stream);
                self.ops.push(Op::Recv { from: peer, dst });
                Ok(())
            }
        }
    }

    /// As [`Link::all_gather`], in the group.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL refuses it.
    pub fn all_gather<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        send: CudaView<'s, T>,
        mut recv: CudaViewMut<'r, T>,
    ) -> Result<()> {
        match &mut self.nccl {
            Some(g) => g.all_gather(send, recv),
            None => {
                let src = piece(&send, &self.link.stream);
                let dst = piece_mut(&mut recv, &self.link.stream);
                if dst.bytes < src.bytes * self.link.world {
                    return Err(mismatch("an all-gather's length"));
                }
                self.ops.push(Op::Gather { src, dst: dst.ptr });
                Ok(())
            }
        }
    }

    /// Makes the group's exchanges.
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL fails them; [`Error::Driver`] when the copies on a shared
    /// GPU fail.
    pub fn end(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.ended, true) {
            return Ok(());
        }
        match self.nccl.take() {
            Some(g) => g.end(),
            None => self.link.exchange(std::mem::take(&mut self.ops)),
        }
    }
}

impl Drop for Group<'_> {
    fn drop(&mut self) {
        // A group left early (an error on the way) still meets the other ranks, who would
        // wait for it forever; the error that left it is the one reported.
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::exchange::departed;
    use crate::cuda::team::{self, TeamSpec};

    fn at(ptr: u64, bytes: usize) -> Piece {
        Piece { ptr, bytes }
    }

    /// An all-gather lands each rank's piece at its offset, skipping the rank's own
    /// where it is already there; a receive takes the nth piece the peer sent to this
    /// rank, whatever it sent to others in between; a broadcast takes the root's.
    #[test]
    fn plan_finds_each_piece() {
        let all = [
            Posted {
                gathers: vec![at(1000, 8)],
                sends: vec![(2, at(50, 4)), (1, at(60, 4)), (1, at(70, 2))],
                casts: vec![None],
            },
            Posted {
                gathers: vec![at(2008, 8)],
                sends: vec![],
                casts: vec![Some(at(300, 16))],
            },
            Posted {
                gathers: vec![at(3000, 8)],
                sends: vec![],
                casts: vec![None],
            },
        ];
        let ops = [
            Op::Gather {
                src: at(2008, 8),
                dst: 2000,
            },
            Op::Recv {
                from: 0,
                dst: at(90, 4),
            },
            Op::Recv {
                from: 0,
                dst: at(95, 2),
            },
            Op::Cast {
                root: 1,
                src: Some(at(300, 16)),
                dst: at(300, 16),
            },
        ];
        let got: Vec<(u64, u64, usize)> = plan(1, &ops, &all)
            .unwrap()
            .into_iter()
            .map(|(d, p)| (d, p.ptr, p.bytes))
            .collect();
        assert_eq!(
            got,
            [(2000, 1000, 8), (2016, 3000, 8), (90, 60, 4), (95, 70, 2)]
        );

        // The root's own broadcast in place is no copy; elsewhere it is.
        let ops = [Op::Cast {
            root: 1,
            src: None,
            dst: at(400, 16),
        }];
        let got = plan(2, &ops, &all).unwrap();
        assert_eq!((got[0].0, got[0].1.ptr), (400, 300));
        // Empty pieces need no copy.
        let empty = [Posted {
            gathers: vec![at(5, 0)],
            ..Posted::default()
        }];
        let ops = [Op::Gather {
            src: at(5, 0),
            dst: 9,
        }];
        assert!(plan(0, &ops, &empty).unwrap().is_empty());
    }

    /// Exchanges that do not match between ranks are errors, never a wrong copy.
    #[test]
    fn plan_refuses_mismatches() {
        let one = |p: Posted| vec![p.clone(), p];
        let gathered = one(Posted {
            gathers: vec![at(0, 8)],
            ..Posted::default()
        });
        let refused = |ops: &[Op], all: &[Posted], what: &str| {
            let e = plan(0, ops, all).unwrap_err().to_string();
            assert!(e.contains(what), "{e} lacks {what}");
        };
        let gather = |bytes| Op::Gather {
            src: at(0, bytes),
            dst: 100,
        };
        refused(&[gather(4)], &gathered, "an all-gather's length");
        refused(
            &[gather(8), gather(8)],
            &gathered,
            "the number of all-gathers",
        );
        let recv = |from, bytes| Op::Recv {
            from,
            dst: at(0, bytes),
        };
        refused(&[recv(1, 4)], &gathered, "who sends what");
        refused(&[recv(5, 4)], &gathered, "a peer");
        refused(
            &[Op::Send {
                to: 2,
                src: at(0, 4),
            }],
            &gathered,
            "a peer",
        );
        let sent = one(Posted {
            sends: vec![(0, at(0, 8))],
            ..Posted::default()
        });
        refused(&[recv(1, 4)], &sent, "a send's length");
        let cast = |root, bytes| Op::Cast {
            root,
            src: None,
            dst: at(0, bytes),
        };
        let cast_by_1 = vec![
            Posted {
                casts: vec![None],
                ..Posted::default()
            },
            Posted {
                casts: vec![Some(at(0, 8))],
                ..Posted::default()
            },
        ];
        refused(&[cast(1, 4)], &cast_by_1, "a broadcast's length");
        refused(&[cast(0, 8)], &cast_by_1, "a broadcast's root");
        refused(&[cast(3, 8)], &cast_by_1, "a broadcast's root");
    }

    /// Runs rank `r`'s part (`part(hub, r)`) for each of 3 ranks on one hub, each on its
    /// own thread, and returns what each ended with; a rank still waiting after 20 s fails
    /// the test rather than hanging it.
    fn three_ranks<T: Send + 'static>(part: fn(&Hub, usize) -> T) -> Vec<T> {
        let hub = Hub::new(3);
        let (tx, rx) = std::sync::mpsc::channel();
        for r in 0..3 {
            let (hub, tx) = (hub.clone(), tx.clone());
            std::thread::spawn(move || tx.send((r, part(&hub, r))));
        }
        let mut got: Vec<Option<T>> = (0..3).map(|_| None).collect();
        for _ in 0..3 {
            let (r, t) = rx
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("a rank still waits at the hub after 20 s");
            got[r] = Some(t);
        }
        got.into_iter().flatten().collect()
    }

    /// The hub's barrier holds meeting after meeting; once a rank leaves, those waiting
    /// for it, and those who come later, hear so instead of waiting forever; a rank that
    /// leaves after the last meeting disturbs no one.
    #[test]
    fn hub_meets_and_hears_who_left() {
        let all = three_ranks(|hub, _| {
            let met = (0..200).all(|_| hub.meet().is_ok());
            hub.leave();
            met
        });
        assert_eq!(all, [true; 3]);
        // Rank 2 stops after two meetings; the others try for ten.
        let heard = three_ranks(|hub, r| {
            for _ in 0..if r == 2 { 2 } else { 10 } {
                if let Err(e) = hub.meet() {
                    assert!(departed(&e), "{e}");
                    return Err(e);
                }
            }
            hub.leave();
            Ok(r)
        });
        assert!(heard[0].is_err() && heard[1].is_err(), "{heard:?}");
        assert_eq!(heard[2].as_ref().ok(), Some(&2));
    }

    /// A rank that fails before an exchange: the ranks sharing its GPU stop instead of
    /// waiting for it, and the team reports the failed rank's own error.
    #[test]
    fn a_shared_team_reports_the_rank_that_failed() {
        if crate::cuda::test_gpu().is_none() {
            return;
        }
        let spec = TeamSpec::on_one_gpu(0, 3);
        let got = team::run(&spec, (0..3).collect(), |m, r: usize| {
            if r == 1 {
                return Err(Error::InvalidArgument("rank 1 gives up".into()));
            }
            let mine = m.gpu.upload(&[r as u32])?;
            let mut all = m.gpu.zeros::<u32>(3)?;
            m.link.all_gather(&mine, &mut all)?;
            Ok(r)
        });
        match got {
            Err(Error::InvalidArgument(m)) => assert_eq!(m, "rank 1 gives up"),
            other => panic!("{other:?}"),
        }
    }

    /// What each rank `r` of a team of `w` must hold after the exchanges of
    /// `shared_links_exchange_like_nccl`, worked out on the host.
    fn expected(r: usize, w: usize) -> Vec<u64> {
        let mut out = Vec::new();
        for q in 0..w as u64 {
            out.extend([q * 10, q * 10 + 1]);
        }
        out.extend([7 + (w as u64 - 1); 3]);
        out.extend([(w - 1) as u64, 0, 5]);
        if w > 1 {
            let prev = (r + w - 1) % w;
            out.extend((0..=prev as u64).map(|i| 100 * prev as u64 + i));
            out.extend(0..w as u64);
        }
        out
    }

    /// Ranks sharing GPU 0 (and a team of one, with copies and over NCCL itself) gather,
    /// broadcast, reduce and pass a ring of sends in a group, with every length its own;
    /// each rank's results against the host's.
    #[test]
    fn shared_links_exchange_like_nccl() {
        if crate::cuda::test_gpu().is_none() {
            return;
        }
        let over_nccl = TeamSpec {
            over_nccl: true,
            ..TeamSpec::local(1)
        };
        let nccl = team::test_nccl().then_some(over_nccl);
        let specs = [1, 3, 4].map(|w| TeamSpec::on_one_gpu(0, w));
        for spec in nccl.into_iter().chain(specs) {
            let w = spec.world;
            let got = team::run(&spec, (0..w).collect(), |m, r: usize| {
                let (gpu, link) = (&m.gpu, &m.link);
                let mut out = Vec::new();
                let mine = gpu.upload(&[r as u32 * 10, r as u32 * 10 + 1])?;
                let mut all = gpu.zeros::<u32>(2 * w)?;
                link.all_gather(&mine, &mut all)?;
                let mut h = vec![0u32; 2 * w];
                gpu.download_into(&all, &mut h)?;
                out.extend(h.iter().map(|&v| u64::from(v)));

                let root = w - 1;
                let src = gpu.upload(&[7 + r as u64; 3])?;
                let mut cast = gpu.zeros::<u64>(3)?;
                link.broadcast((r == root).then_some(&src), &mut cast, root)?;
                let mut h = [0u64; 3];
                gpu.download_into(&cast, &mut h)?;
                out.extend(h);

                let mut most = gpu.upload(&[r as f64, -(r as f64)])?;
                link.all_reduce_in_place(&mut most, Reduce::Max)?;
                let mut least = gpu.upload(&[r as u64 + 5])?;
                link.all_reduce_in_place(&mut least, Reduce::Min)?;
                let (mut a, mut b) = ([0f64; 2], [0u64]);
                gpu.download_into(&most, &mut a)?;
                gpu.download_into(&least, &mut b)?;
                out.extend([a[0] as u64, a[1] as u64, b[0]]);

                if w > 1 {
                    // Rank r sends r + 1 values to the next; an all-gather rides along.
                    let prev = (r + w - 1) % w;
                    let send: Vec<u32> = (0..=r as u32).map(|i| 100 * r as u32 + i).collect();
                    let send = gpu.upload(&send)?;
                    let mut recv = gpu.zeros::<u32>(prev + 1)?;
                    let one = gpu.upload(&[r as u32])?;
                    let mut ranks = gpu.zeros::<u32>(w)?;
                    let mut group = link.group()?;
                    group.recv(recv.slice_mut(..prev + 1), prev)?;
                    group.all_gather(one.slice(..), ranks.slice_mut(..))?;
                    group.send(send.slice(..), (r + 1) % w)?;
                    group.end()?;
                    let mut h = vec![0u32; prev + 1];
                    gpu.download_into(&recv, &mut h)?;
                    out.extend(h.iter().map(|&v| u64::from(v)));
                    let mut h = vec![0u32; w];
                    gpu.download_into(&ranks, &mut h)?;
                    out.extend(h.iter().map(|&v| u64::from(v)));
                }
                Ok(out)
            })
            .unwrap();
            for (r, g) in got.iter().enumerate() {
                assert_eq!(*g, expected(r, w), "rank {r} of {w}");
            }
        }
    }
}
