//! A rank's steps of a level: the host's first levels handed over, a top-down
//! expansion, a bottom-up step, and the visit of a level split by owner.

use cudarc::driver::{CudaEvent, PushKernelArg};

use super::{Expand, RankState, Short};
use crate::bfs::cuda::multi::trace::{mark, step};
use crate::bfs::cuda::multi::tuning::{LISTED_CAP, PIECE, SHORT_PIECE, THREADS};
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, launch_config, Gpu};
use crate::error::Result;
use crate::graph::VertexId;

impl RankState {
    /// Hands the GPU what the host's first `levels` levels reached (nothing for none):
    /// their vertices into the visited set, the last level's as the frontier (in place of
    /// the source), this rank's own with their depths and parents.
    ///
    /// With `queue`, the next level is short: the last level's vertices go straight into
    /// its queue (those [`RankState::top_down_step`] would list from `front`), and `front`
    /// stays empty. Returns whether they did.
    pub(super) fn seed(
        &mut self,
        gpu: &Gpu,
        source: VertexId,
        levels: u32,
        queue: bool,
    ) -> Result<bool> {
        let found = &self.host.found;
        if levels == 0 {
            return Ok(false);
        }
        let stream = gpu.stream();
        // Not waiting for the stream (the start's all-reduce, the other ranks): the
        // levels after it are queued at once.
        gpu.write_pinned(found, &mut self.seeds, &mut self.seeds_host)?;
        let count = (found.len() / 3) as u32;
        let dlo = self.dlo();
        let (qlo, qn) = self.short_range();
        let piece = SHORT_PIECE as u32;
        let mut b = stream.launch_builder(&self.k.seed);
        let mut depth = self.depth.slice_mut(dlo..);
        let mut parent = self.parent.slice_mut(dlo..);
        b.arg(&self.seeds)
            .arg(&count)
            .arg(&levels)
            .arg(&source)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&mut *self.front)
            .arg(&mut self.visited)
            .arg(&mut depth)
            .arg(&mut parent)
            .arg(&qlo)
            .arg(&qn);
        let null = 0u64;
        match queue {
            true => b
                .arg(&self.solo.as_ref().unwrap_or(&self.out).0)
                .arg(&mut self.queue)
                .arg(&mut self.counters.qlen)
                .arg(&mut self.big)
                .arg(&mut self.counters.blen),
            false => b.arg(&null).arg(&null).arg(&null).arg(&null).arg(&null),
        };
        b.arg(&piece);
        // SAFETY: matches mbfs_seed; seeds holds `count` triples of vertices below n, the
        // bitmaps cover every vertex, depth and parent this rank's (from dlo). With the
        // queue: the rows are the short level's (every vertex's solo, else this rank's,
        // from qlo), the queue holds an entry for each of their vertices, big SHORT_PIECES
        // (a short level's frontier has at most LIST_CAP arcs, as the host's had), and the
        // counters were zeroed by mbfs_reset.
        unsafe {
            b.launch(launch_config(
                count.div_ceil(THREADS).clamp(1, self.blocks),
                THREADS,
            ))
        }
        .map_err(gpu_err)?;
        Ok(queue)
    }

    /// A level split by owner's visit: visited |= front, the counters cleared; with
    /// `sums` (the mailbox's address and the post) first the sums of every rank's counts
    /// (all-gathered into stats_all) posted.
    pub(super) fn visit(&mut self, gpu: &Gpu, sums: Option<(u64, u64)>) -> Result<()> {
        let words = self.part.words() as u32;
        let (dev, post) = sums.unwrap_or((0, 0));
        let sums = u32::from(sums.is_some());
        let mut b = gpu.stream().launch_builder(&self.k.visit);
        b.arg(&*self.front).arg(&mut self.visited).arg(&words);
        self.counters.push(&mut b);
        b.arg(&*self.stats_all).arg(&dev).arg(&post).arg(&sums);
        // SAFETY: matches mbfs_visit; both bitmaps hold `words` words, sent and stats_all
        // `world` entries, the mailbox (read only with sums) STATS values.
        unsafe { b.launch(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        step(&mut self.steps, gpu, "visit")
    }

    /// `fold`: the step does the level before's visit ([`RankState::host_counts`]).
    pub(super) fn bottom_up_step(
        &mut self,
        gpu: &Gpu,
        level: u32,
        lo_word: u32,
        seg: u32,
        fold: bool,
    ) -> Result<()> {
        let (fold, words) = (u32::from(fold), self.part.words() as u32);
        let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
        let same = self.undirected();
        let dlo = self.dlo();
        let mut depth = self.depth.slice_mut(dlo..);
        let mut parent = self.parent.slice_mut(dlo..);
        let mut b = gpu.stream().launch_builder(&self.k.bottom_up);
        b.arg(roff)
            .arg(rtgt)
            .arg(&self.nl)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&*self.front)
            .arg(&self.visited)
            .arg(&mut *self.own)
            .arg(&mut depth)
            .arg(&mut parent)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&same)
            .arg(&mut *self.counters.stats)
            .arg(&fold)
            .arg(&words);
        // SAFETY: matches mbfs_bottom_up; own holds seg words, depth and parent 32 * seg
        // entries from dlo, the bitmaps `words` words; targets are vertices below n; `same`
        // says whether roff is out.0.
        unsafe { b.launch(launch_config(self.bottom_up_blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// A top-down step, its frontier's vertices expanded as `how` says; returns the trace's
    /// event after the expansion. A `short` step ends with the expansion, which writes
    /// this rank's list (then [`RankState::absorb_lists`]); otherwise this rank's part of
    /// the next frontier is made in `own`, its counts in `stats`, and with
    /// [`Expand::Hubs`] the pairs for other ranks go to them first.
    pub(super) fn top_down_step(
        &mut self,
        m: &Member,
        level: u32,
        short: Option<Short>,
        how: Expand,
        trace: bool,
    ) -> Result<Option<CudaEvent>> {
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let stream = m.gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let piece = if short.is_some() { SHORT_PIECE } else { PIECE } as u32;
        // Hubs and Whole come only with other ranks, so with the delegates.
        let delegates = self.delegates.as_ref().filter(|_| how != Expand::Owners);
        // The queue's words and rows: this rank's own, or every word and every vertex's
        // arcs into this rank's range, or solo on a short level every word and every row.
        let short_lo = self.short_range().0;
        let short_rows = self.solo.as_ref().unwrap_or(&self.out);
        let (qword, qseg, qlo, qoff, qtgt) = match (how, delegates) {
            (Expand::Whole, Some(d)) => (0, words, 0, &d.off, &d.tgt),
            _ if short.is_some() && self.solo.is_some() => {
                (0, words, 0, &short_rows.0, &short_rows.1)
            }
            _ => (lo_word, seg, self.lo, &self.out.0, &self.out.1),
        };
        // A level split by owner lowers this rank's parents; a short one writes only its
        // list.
        let dlo = self.dlo();
        let mut parent = self.parent.slice_mut(dlo..);
        let delegate = u32::from(how == Expand::Hubs);
        let listed = short.is_some_and(|s| s.listed);
        // A short level's queue clears the words it reads (`front` is made again from the
        // lists where a level that is not short needs it); the expansion clears the rest.
        let cleared = u32::from(short.is_some() && !listed);
        if !listed && !short.is_some_and(|s| s.seeded) {
            let mut b = stream.launch_builder(&self.k.queue);
            b.arg(&mut *self.front)
                .arg(&qword)
                .arg(&qseg)
                .arg(qoff)
                .arg(&mut self.queue)
                .arg(&mut self.counters.qlen)
                .arg(&mut self.big)
                .arg(&mut self.counters.blen)
                .arg(&piece)
                .arg(&delegate)
                .arg(&cleared);
            match short.is_some_and(|s| s.visits) {
                true => b.arg(&mut self.visited),
                false => b.arg(&0u64),
            };
            // SAFETY: matches mbfs_queue; the queue holds 32 * qseg entries (32 * words
            // with other ranks), enough for every vertex of the words, and big
            // pieces_bound's and the delegates' hub pieces, enough for every piece of them
            // (with delegates big holds every hub piece here, and this adds none), and
            // SHORT_PIECES, enough for a short level's; visited, where given, every word
            // (the queue's: solo).
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        if let Some(d) = delegates.filter(|_| how == Expand::Hubs) {
            let mut b = stream.launch_builder(&self.k.hub_queue);
            b.arg(&d.hubs)
                .arg(&d.count)
                .arg(&d.off)
                .arg(&*self.front)
                .arg(&mut self.big)
                .arg(&mut self.counters.blen)
                .arg(&piece);
            // SAFETY: matches mbfs_hub_queue; big holds every piece of every hub's row
            // here, hubs are vertices below n, the rows' offsets every vertex's.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        if !listed {
            step(&mut self.steps, &m.gpu, "queue")?;
        }
        // The listed frontier: no queue (the last level's mbfs_absorb cleared its length)
        // and the pieces in this level's list.
        let at = LISTED_CAP as usize * (level as usize & 1);
        let (big, blen) = match listed {
            true => (
                self.listed.slice(at..at + LISTED_CAP as usize),
                self.counters.listed_len.slice(level as usize & 1..),
            ),
            false => (self.big.slice(..), self.counters.blen.slice(..)),
        };
        let mut b = stream.launch_builder(&self.k.top_down);
        b.arg(qoff)
            .arg(qtgt)
            .arg(&qlo)
            .arg(&self.queue)
            .arg(&self.counters.qlen)
            .arg(&big)
            .arg(&blen)
            .arg(&piece)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&self.visited)
            .arg(&mut self.next)
            .arg(&mut parent)
            .arg(&mut self.cand);
        let none = 0u32;
        match delegates {
            Some(d) => b.arg(&d.off).arg(&d.tgt).arg(&none),
            None => b.arg(&short_rows.0).arg(&short_rows.1).arg(&short_lo),
        };
        let (null, cap) = (0u64, short.map_or(0, |s| s.cap));
        match short {
            Some(_) => b.arg(&mut self.counters.list),
            None => b.arg(&null),
        };
        // The first short level of a run clears `front` (for mbfs_front), but for the
        // words its queue cleared (none left where it cleared them all: solo).
        let (keep, kept) = if cleared == 1 { (qword, qseg) } else { (0, 0) };
        let clear = if listed || kept == words { 0 } else { words };
        b.arg(&cap)
            .arg(&mut *self.front)
            .arg(&clear)
            .arg(&keep)
            .arg(&kept);
        // A level queued ahead: its flag.
        let flag = level as usize & 1;
        let gate = self.ahead.slice(flag..flag + 1);
        match short {
            Some(s) if s.ahead => b.arg(&gate),
            _ => b.arg(&null),
        };
        // SAFETY: matches mbfs_top_down; queued and big entries index rows of the arrays
        // passed with them (rows from vertex qlo and blo; a listed frontier's pieces this
        // rank's rows, solo every vertex's, at most LISTED_CAP of them), parent holds
        // this rank's from dlo, targets are below n, and cand covers every vertex when
        // there are other ranks (with none, every target is this rank's and cand is not
        // touched); a short level's list holds 1 + 2 * LIST_CAP entries (cap <= LIST_CAP
        // pairs), front `words` words; the gate is one of `ahead`'s flags.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        step(&mut self.steps, &m.gpu, "expand")?;
        let e1 = mark(&m.gpu, trace)?;
        if short.is_none() {
            self.merge_own(m, level, how)?;
        }
        Ok(e1)
    }

    /// After a long top-down expansion at `level`: this rank's own finds merged into its
    /// part of the next frontier, depths and counts, and with [`Expand::Hubs`] the pairs
    /// for other ranks packed and sent, and theirs applied.
    fn merge_own(&mut self, m: &Member, level: u32, how: Expand) -> Result<()> {
        let seg = self.part.seg as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let stream = m.gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        let dlo = self.dlo();
        // The pairs for other ranks, and every rank's numbers of them, which the merge
        // of this rank's own finds posts first: the host sets up the exchange meanwhile.
        // (Expanding the whole frontier, each rank found only its own vertices.)
        let pairs = how == Expand::Hubs;
        let ncounts = if pairs {
            self.pack_pairs(m, seg)?;
            (m.world * m.world) as u32
        } else {
            0
        };
        let box_ = level as usize & 1;
        let post = self.mailbox[box_].next();
        let dev = self.mailbox[box_].device();
        let mut depth = self.depth.slice_mut(dlo..);
        let mut b = stream.launch_builder(&self.k.merge);
        b.arg(&mut self.next)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&self.nl)
            .arg(&self.visited)
            .arg(&mut *self.own)
            .arg(&mut depth)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut *self.counters.stats)
            .arg(&self.counts)
            .arg(&ncounts)
            .arg(&dev)
            .arg(&post);
        // SAFETY: matches mbfs_merge; own holds seg words, depth 32 * seg entries from dlo;
        // counts and the mailbox hold world * world entries.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        self.posted[box_].record(&stream).map_err(gpu_err)?;
        step(&mut self.steps, &m.gpu, "merge")?;
        if pairs {
            self.exchange_pairs(m, level, post)?;
        }
        Ok(())
    }
}
