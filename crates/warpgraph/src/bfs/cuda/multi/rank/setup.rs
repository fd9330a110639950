//! A rank's setup: its part of the graph and its buffers on its GPU, checked and
//! allocated on every rank before the first collective, and each exchange run once.

use std::ops::Range;

use cudarc::driver::{CudaSlice, DevicePtr};
use rayon::prelude::*;

use super::{Counters, RankState};
use crate::bfs::cuda::multi::delegates::{Delegates, DelegatesOnGpu};
use crate::bfs::cuda::multi::host_levels::HostLevels;
use crate::bfs::cuda::multi::kernels::Kernels;
use crate::bfs::cuda::multi::partition::{bytes_needed, Partition};
use crate::bfs::cuda::multi::pieces::pieces_bound;
use crate::bfs::cuda::multi::trace::print_threads_once;
use crate::bfs::cuda::multi::tuning::{
    TeamSetup, LISTED_CAP, LIST_CAP, RUN_ARCS, RUN_SET, SHORT_PIECES, STATS, THREADS, WHOLE_DEGREE,
};
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, Gpu};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId};
use crate::settings;

impl RankState {
    pub(crate) fn new(
        m: &Member,
        g: &Graph,
        part: Partition,
        never: &[u32],
        gather: bool,
        host_arcs: usize,
        setup: TeamSetup,
    ) -> Result<RankState> {
        let TeamSetup { solo, symmetric } = setup;
        // Solo only if every rank has the memory for it, with a sixteenth to spare.
        let fits = || -> Result<bool> {
            let needed = bytes_needed(g, m.world, m.rank, gather, true);
            Ok(needed.saturating_add(needed / 16) <= m.gpu.free_bytes()?)
        };
        let solo = solo && m.world > 1 && m.agree(fits().unwrap_or(false))?;
        // Every rank checks and allocates, then all agree before the first collective.
        let made = Self::allocate(m, g, part, never, gather, host_arcs, solo);
        if !m.agree(made.is_ok())? {
            return Err(made.err().unwrap_or_else(|| {
                Error::Nccl("another GPU of the team could not set up its part".into())
            }));
        }
        let (mut state, own_deg) = made?;
        if m.world > 1 && symmetric {
            state.exchange_in_symmetric(m)?;
        }
        // Every vertex's out-degree on every rank, from each rank's own.
        m.link.all_gather(&own_deg, &mut state.deg)?;
        state.warm_up(m)?;
        m.link.sync()?;
        print_threads_once();
        Ok(state)
    }

    /// Runs each kind of exchange a search makes once, small and large: NCCL connects
    /// peers on first use (the first send and receive between two GPUs takes many times a
    /// search of a small graph), and
    /// that belongs in the setup, not in the first search that needs it. What the
    /// buffers hold does not matter: every search starts from `mbfs_reset`.
    fn warm_up(&mut self, m: &Member) -> Result<()> {
        self.gather_front(m, true)?;
        m.link.all_gather(&self.counters.sent, &mut self.counts)?;
        let len = 1 + 2 * self.list_cap;
        for words in [3, len] {
            m.link.all_gather(
                &self.counters.list.slice(..words),
                &mut self.lists.slice_mut(..m.world * words),
            )?;
        }
        if m.world > 1 {
            let most = self.outbox[0].len();
            for words in [2, most.min(1 << 20)] {
                let mut group = m.link.group()?;
                let others = (0..m.world).filter(|&p| p != m.rank);
                for ((p, o), i) in others.zip(&self.outbox).zip(&mut self.inbox) {
                    group.send(o.slice(..words), p)?;
                    group.recv(i.slice_mut(..words), p)?;
                }
                group.end()?;
            }
        }
        Ok(())
    }

    /// The rank's state (`solo`: [`RankState::solo`]), and the out-degrees of its range
    /// (padded to `32 * seg`) for [`RankState::deg`].
    fn allocate(
        m: &Member,
        g: &Graph,
        part: Partition,
        never: &[u32],
        gather: bool,
        host_arcs: usize,
        solo: bool,
    ) -> Result<(RankState, CudaSlice<u32>)> {
        let gpu = &m.gpu;
        let r = part.range(m.rank);
        gpu.check_memory(
            || {
                format!(
                    "rank {} of {}: BFS on vertices {}..{} of {}",
                    m.rank, m.world, r.start, r.end, part.n
                )
            },
            bytes_needed(g, m.world, m.rank, gather, solo),
        )?;
        let k = Kernels::load(gpu)?;
        let bottom_up_blocks = gpu.resident_grid(&k.bottom_up, "mbfs_bottom_up", THREADS, 8)?;
        let rows = |c: &Csr| rows_of(gpu, c, r.clone());
        let words = part.words();
        let local = 32 * part.seg;
        let peers = m.world - 1;
        // Solo: depths and parents of every vertex.
        let tree_len = if solo { 32 * words } else { local };
        // A peer's range holds at most `local` vertices: pairs never overflow.
        let boxes = || {
            (0..peers)
                .map(|_| gpu.zeros::<u32>(2 * local))
                .collect::<Result<Vec<_>>>()
        };
        let (outbox, inbox) = (boxes()?, boxes()?);
        let at = |b: &[CudaSlice<u32>]| {
            gpu.upload(
                &b.iter()
                    .map(|b| b.device_ptr(gpu.stream()).0)
                    .collect::<Vec<u64>>(),
            )
        };
        let cand = gpu.upload(&vec![u32::MAX; if peers > 0 { 32 * words } else { 1 }])?;
        let own_deg = own_degrees(g, r.clone(), local);
        let list_words = 1 + 2 * LIST_CAP;
        let (delegates, big_len) = delegates_on(gpu, g, r.clone(), peers)?;
        let big_len = big_len.max(SHORT_PIECES as usize);
        // The mailboxes' values: every rank's numbers of pairs, or the counts and
        // mbfs_absorb's word on the next level, and mbfs_short_run's levels, arcs left and
        // its last level's frontier.
        let values = (m.world * m.world).max(STATS + 4);
        let event = || {
            gpu.stream()
                .record_event(Some(
                    cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING,
                ))
                .map_err(gpu_err)
        };
        let state = RankState {
            part,
            rank: m.rank,
            lo: r.start as u32,
            nl: r.len() as u32,
            out: rows(g.out())?,
            incoming: if g.is_directed() {
                Some(rows(g.incoming())?)
            } else {
                None
            },
            solo: match solo {
                true => Some((
                    gpu.upload(g.out().offsets())?,
                    gpu.upload(g.out().targets())?,
                )),
                false => None,
            },
            symmetric: false,
            symmetric_wrong: false,
            front: gpu.buffer(words)?,
            visited: gpu.zeros(words)?,
            never: gpu.upload(never)?,
            next: gpu.zeros(words)?,
            cand,
            outbox_at: at(&outbox)?,
            outbox,
            inbox_at: at(&inbox)?,
            inbox,
            lists: gpu.zeros(m.world * list_words)?,
            lists_prev: gpu.zeros(if peers > 0 { m.world * list_words } else { 1 })?,
            deg: gpu.zeros(32 * words)?,
            own: gpu.buffer(part.seg)?,
            // With other ranks, a whole frontier's vertices.
            queue: gpu.zeros(if peers > 0 { 32 * words } else { local })?,
            big: gpu.zeros(big_len.max(1))?,
            listed: gpu.zeros(2 * LISTED_CAP as usize)?,
            delegates,
            whole_degree: WHOLE_DEGREE,
            fail_at: None,
            run_blocks: 0,
            run_arcs: RUN_ARCS,
            run: gpu.zeros(3 * RUN_SET)?,
            run_bar: gpu.zeros(1)?,
            depth: gpu.zeros(tree_len)?,
            parent: gpu.zeros(tree_len)?,
            gather,
            all: if gather && m.rank == 0 {
                (1..m.world)
                    .map(|_| Ok((gpu.zeros(local)?, gpu.zeros(local)?)))
                    .collect::<Result<Vec<_>>>()?
            } else {
                Vec::new()
            },
            stage: None,
            list_cap: LIST_CAP,
            stats_all: gpu.buffer(STATS * m.world)?,
            counters: Counters {
                stats: gpu.buffer(STATS)?,
                qlen: gpu.zeros(1)?,
                blen: gpu.zeros(1)?,
                sent: gpu.zeros(m.world)?,
                list: gpu.zeros(list_words)?,
                world: m.world as u32,
                listed_len: gpu.zeros(4)?,
            },
            counts: gpu.zeros(m.world * m.world)?,
            mailbox: [gpu.mailbox(values)?, gpu.mailbox(values)?],
            ahead: gpu.zeros(4)?,
            ticket: gpu.zeros(1)?,
            start: gpu.zeros(1)?,
            started: event()?,
            unstarted: false,
            ends: gpu.zeros(2)?,
            steps: (settings::get().trace == 2).then(Vec::new),
            host: HostLevels::new(host_arcs),
            // A vertex reached per arc at most.
            seeds: gpu.zeros(3 * host_arcs.max(1))?,
            seeds_host: gpu.pinned(3 * host_arcs.max(1))?,
            posted: [event()?, event()?],
            // Where one process drives every rank, each level's counts are summed on
            // the hosts.
            host_counts: m.world > 1 && m.board().is_some(),
            round: 0,
            blocks: gpu.info().multiprocessors * 8,
            bottom_up_blocks,
            k,
        };
        Ok((state, gpu.upload(&own_deg)?))
    }
}

/// With other ranks (`peers`), every vertex's arcs into the range `r` on the GPU
/// ([`Delegates`]); and the entries the list of big vertices' pieces needs.
fn delegates_on(
    gpu: &Gpu,
    g: &Graph,
    r: Range<usize>,
    peers: usize,
) -> Result<(Option<DelegatesOnGpu>, usize)> {
    Ok(if peers > 0 {
        let d = Delegates::new(g.out(), r.clone());
        let pieces = d.pieces() as usize;
        let on_gpu = DelegatesOnGpu {
            hubs: gpu.upload(&d.hubs)?,
            off: gpu.upload(&d.off)?,
            tgt: gpu.upload(&d.tgt)?,
            count: d.hubs.len() as u32,
        };
        (Some(on_gpu), pieces.max(pieces_bound(g.out(), r.clone())))
    } else {
        (None, pieces_bound(g.out(), r.clone()))
    })
}

/// The rows of the vertices `r` of `c` on the GPU: their offsets (from the first row's)
/// and their targets.
fn rows_of(gpu: &Gpu, c: &Csr, r: Range<usize>) -> Result<(CudaSlice<u64>, CudaSlice<u32>)> {
    let off = &c.offsets()[r.start..=r.end];
    let base = off[0];
    let local: Vec<u64> = off.iter().map(|&o| o - base).collect();
    let tgt = &c.targets()[base as usize..off[off.len() - 1] as usize];
    Ok((gpu.upload(&local)?, gpu.upload(tgt)?))
}

/// The out-degrees (saturated) of the vertices `r` of `g`, padded with zeros to `local`.
fn own_degrees(g: &Graph, r: Range<usize>, local: usize) -> Vec<u32> {
    (0..local)
        .into_par_iter()
        .map(|i| match r.start + i {
            v if v < r.end => u32::try_from(g.out().degree(v as VertexId)).unwrap_or(u32::MAX),
            _ => 0,
        })
        .collect()
}
