//! A rank's exchanges with the others: the bitmap's all-gather (in NCCL's symmetric
//! memory where it delivers), and a long top-down level's (vertex, parent) pairs.

use cudarc::driver::PushKernelArg;
use rayon::prelude::*;

use super::RankState;
use crate::bfs::cuda::multi::trace::step;
use crate::bfs::cuda::multi::tuning::{STATS, THREADS};
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, launch_config, Buffer};
use crate::error::Result;
use crate::settings;

impl RankState {
    /// The next frontier from every rank's part (`own`) and every rank's counts
    /// (`stats`), on every rank: one group, so one launch (in symmetric memory two
    /// collectives, see below). A team of one has them already, and swaps the buffers:
    /// `own` is written whole before it is read again, and mbfs_visit, which always
    /// follows, zeroes the new `stats`. (NCCL's all-gathers for one rank would cost a
    /// group and kernels, and the team of one is the baseline of the strong scaling.)
    pub(super) fn gather_front(&mut self, m: &Member, counts: bool) -> Result<()> {
        if m.world == 1 {
            // (Host counts, the only caller without `counts`, need several ranks.)
            std::mem::swap(&mut self.own, &mut self.front);
            std::mem::swap(&mut self.counters.stats, &mut self.stats_all);
            return Ok(());
        }
        if self.symmetric {
            // A rank of the team that never starts this search (its caller's look at the
            // last tree failed, between searches) must be seen gone before anything in
            // symmetric memory is queued: NCCL's abort (2.28.3) ends the start's
            // all-reduce, but a symmetric all-gather queued behind it ran on, waiting for
            // that rank forever (the GPU busy, the host stuck in the next free). Most
            // often long done by now: the levels before are queued meanwhile.
            if std::mem::take(&mut self.unstarted) {
                m.link.wait_event(&self.started)?;
            }
            // Not grouped: NCCL 2.28.3's symmetric kernels, given a group of these two
            // all-gathers, delivered the bitmap wrong from 32 KiB a rank on (2 and 4
            // H200s; alone, each was right at every size).
            m.link.all_gather(&*self.own, &mut *self.front)?;
            if !counts {
                return Ok(());
            }
            return m
                .link
                .all_gather(&*self.counters.stats, &mut *self.stats_all);
        }
        if !counts {
            return m.link.all_gather(&*self.own, &mut *self.front);
        }
        let mut group = m.link.group()?;
        group.all_gather(self.own.as_view(), self.front.as_view_mut())?;
        group.all_gather(self.counters.stats.as_view(), self.stats_all.as_view_mut())?;
        group.end()
    }

    /// Moves the buffers of the bitmap's all-gather (`own` into `front`, the counts into
    /// `stats_all`) into NCCL's symmetric memory, one window of every rank's (see
    /// [`SYMMETRIC`]), if every rank's first all-gather there delivers what it should;
    /// else (or with an NCCL before 2.27) they stay where they are. A collective: every
    /// rank calls it.
    pub(super) fn exchange_in_symmetric(&mut self, m: &Member) -> Result<()> {
        let lens = [
            self.front.num_bytes(),
            self.own.num_bytes(),
            self.stats_all.num_bytes(),
            self.counters.stats.num_bytes(),
        ];
        // Each at a 256-byte boundary, as a CUDA allocation is.
        let mut at = [0usize; 4];
        let mut bytes = 0;
        for (a, len) in at.iter_mut().zip(lens) {
            *a = bytes;
            bytes += len.next_multiple_of(256);
        }
        let base = m.link.symmetric(bytes, |ok| m.agree(ok));
        // No rank's collective runs while another still registers (NVIDIA/nccl#2184:
        // registration beside a running collective can deadlock); every rank of the
        // process comes here, registered or not.
        m.meet_here();
        let Some(base) = base? else {
            return Ok(());
        };
        let gpu = &m.gpu;
        let p = |i: usize| base + at[i] as u64;
        // SAFETY: each lies within the zeroed window of `bytes`, apart from the others,
        // and the window's memory lives as long as the link, which outlives this state.
        let mut other = unsafe {
            (
                gpu.buffer_at(p(0), self.front.len()),
                gpu.buffer_at(p(1), self.own.len()),
                gpu.buffer_at(p(2), self.stats_all.len()),
                gpu.buffer_at(p(3), self.counters.stats.len()),
            )
        };
        self.swap_exchange(&mut other);
        let delivered = self.gather_delivers(m);
        if !m.agree(delivered.as_ref().is_ok_and(|&d| d))? {
            // Back to the buffers of their own (the window stays the link's, unused).
            self.swap_exchange(&mut other);
            self.symmetric_wrong = true;
            if settings::get().trace >= 1 {
                let why = delivered.map_or_else(|e| e.to_string(), |_| "data wrong".into());
                eprintln!("rank {}: no all-gather in symmetric memory: {why}", m.rank);
            }
        }
        Ok(())
    }

    /// Swaps the bitmap's and the counts' exchange buffers (`front`, `own`, `stats_all`,
    /// `counters.stats`) with `other`'s, in and out of symmetric memory.
    fn swap_exchange(&mut self, other: &mut (Buffer<u32>, Buffer<u32>, Buffer<u64>, Buffer<u64>)) {
        std::mem::swap(&mut other.0, &mut self.front);
        std::mem::swap(&mut other.1, &mut self.own);
        std::mem::swap(&mut other.2, &mut self.stats_all);
        std::mem::swap(&mut other.3, &mut self.counters.stats);
        self.symmetric = !self.symmetric;
    }

    /// Whether [`RankState::gather_front`] gives every rank what every rank sent: each
    /// rank's part of a known pattern of the whole bitmap, and its counts.
    fn gather_delivers(&mut self, m: &Member) -> Result<bool> {
        let gpu = &m.gpu;
        let seg = self.own.len();
        let pattern = |i: usize| (i as u32).wrapping_mul(0x9E37_79B1) ^ 0x5BD1_E995;
        let count = |r: usize, k: usize| (r * STATS + k + 1) as u64;
        let mine: Vec<u32> = (m.rank * seg..(m.rank + 1) * seg).map(pattern).collect();
        let stats: Vec<u64> = (0..STATS).map(|k| count(m.rank, k)).collect();
        let stream = gpu.stream();
        stream.memcpy_htod(&mine, &mut *self.own).map_err(gpu_err)?;
        stream
            .memcpy_htod(&stats, &mut *self.counters.stats)
            .map_err(gpu_err)?;
        self.gather_front(m, true)?;
        let mut front = vec![0u32; self.front.len()];
        gpu.download_into(&self.front, &mut front)?;
        let mut all = vec![0u64; self.stats_all.len()];
        gpu.download_into(&self.stats_all, &mut all)?;
        let bits = front.par_iter().enumerate().all(|(i, &w)| w == pattern(i));
        let counts = (0..all.len()).all(|i| all[i] == count(i / STATS, i % STATS));
        Ok(bits && counts)
    }

    /// After a long top-down expansion: the vertices found for each other rank packed as
    /// (vertex, parent) pairs for it, and every rank's numbers of pairs all-gathered.
    pub(super) fn pack_pairs(&mut self, m: &Member, seg: u32) -> Result<()> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let (world, rank) = (m.world as u32, m.rank as u32);
        let mut b = stream.launch_builder(&self.k.pack);
        b.arg(&mut self.next)
            .arg(&mut self.cand)
            .arg(&seg)
            .arg(&world)
            .arg(&rank)
            .arg(&self.outbox_at)
            .arg(&mut self.counters.sent);
        // SAFETY: matches mbfs_pack; each outbox buffer holds 2 * 32 * seg entries, room
        // for every vertex of a rank's range; sent holds `world` counts.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, gpu, "pack")?;
        m.link.all_gather(&self.counters.sent, &mut self.counts)?;
        step(&mut self.steps, gpu, "counts")
    }

    /// After [`RankState::pack_pairs`] and the merge of this rank's own finds: once the
    /// host has the numbers (posted by the merge as `post`), the pairs go to their ranks,
    /// and those found here by the others join this rank's part of the next frontier, its
    /// depths, parents and counts.
    pub(super) fn exchange_pairs(&mut self, m: &Member, level: u32, post: u64) -> Result<()> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let (world, rank) = (m.world as u32, m.rank as u32);
        let mut counts = vec![0u64; m.world * m.world];
        let box_ = level as usize & 1;
        self.mailbox[box_].wait(post, &self.posted[box_], &mut counts, |t| m.link.watch(t))?;
        {
            let mut group = m.link.group()?;
            let others = (0..m.world).filter(|&p| p != m.rank);
            for ((p, o), i) in others.zip(&self.outbox).zip(&mut self.inbox) {
                // Both sides know each size, so an empty list is skipped on both.
                let sent = counts[m.rank * m.world + p] as usize;
                let got = counts[p * m.world + m.rank] as usize;
                if sent > 0 {
                    group.send(o.slice(..2 * sent), p)?;
                }
                if got > 0 {
                    group.recv(i.slice_mut(..2 * got), p)?;
                }
            }
            group.end()?;
        }
        step(&mut self.steps, gpu, "send-receive")?;
        let dlo = self.dlo();
        let mut depth = self.depth.slice_mut(dlo..);
        let mut parent = self.parent.slice_mut(dlo..);
        let mut b = stream.launch_builder(&self.k.apply);
        b.arg(&self.inbox_at)
            .arg(&self.counts)
            .arg(&world)
            .arg(&rank)
            .arg(&self.lo)
            .arg(&self.visited)
            .arg(&mut *self.own)
            .arg(&mut depth)
            .arg(&mut parent)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut *self.counters.stats);
        // SAFETY: matches mbfs_apply; each inbox buffer holds the pairs of this rank's
        // vertices its sender counted in `counts`; own holds seg words, depth and parent
        // 32 * seg entries from dlo.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, gpu, "apply")?;
        Ok(())
    }
}
