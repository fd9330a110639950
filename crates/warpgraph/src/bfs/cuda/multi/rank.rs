//! A rank's part of the graph on its GPU, and its steps of a search.

use super::*;
use crate::settings;

/// Who expands a top-down level's frontier vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expand {
    /// Each its owner, from its rows: on one GPU, and on a short level.
    Owners,
    /// The hubs by every rank, each into its own range (from the delegates' rows); the
    /// other vertices by their owners, who send what they find for other ranks to them as
    /// (vertex, parent) pairs.
    Hubs,
    /// Every vertex by every rank, each into its own range: no pairs.
    Whole,
}

/// A short top-down level: its frontier's arcs (each rank's list holds at most a pair
/// each), and whether the frontier is listed in pieces by the short level before
/// ([`RankState::listed`]), so that no queue is made from the bitmap.
#[derive(Clone, Copy)]
struct Short {
    cap: u32,
    listed: bool,
    /// Queued by mbfs_seed from the host's last level ([`RankState::seed`]): no queue is
    /// made from the bitmap either.
    seeded: bool,
    /// Its queue does the level before's visit (visited |= front, as it reads every word
    /// of `front`): see [`RankState::host_counts`].
    visits: bool,
    /// Queued ahead, before the counts of the level before: its kernels do nothing unless
    /// mbfs_absorb found it short ([`RankState::ahead`]).
    ahead: bool,
}

/// What mbfs_absorb needs to decide whether the level after its own is short, for one
/// queued ahead (see multi.cu): the arcs unexplored before the frontier it absorbs; that
/// frontier's vertices, and its arcs still counted in `unexplored` (`None`: as the last
/// mbfs_absorb counted them, for a level queued before they were known); the switch's
/// alpha (0: top-down only) and the next level's lists' bound. (Whether the graph is
/// undirected, for [`spent`], the rank knows.)
#[derive(Clone, Copy)]
struct NextRule {
    unexplored: u64,
    frontier: Option<(u64, u64)>,
    alpha: u64,
    next_cap: u32,
}

/// Whether the frontier of `level`, `nf` vertices with `mf` out-arcs in all, can find no
/// vertex, so that the search ends without expanding it: it has no arcs, or (past the
/// source, in an undirected graph) each of its vertices has one arc, the one back to its
/// parent. On a power-law graph the last level often is such (Kronecker 24: 35 vertices
/// of 35 arcs), and on several GPUs a level costs an exchange however small.
/// mbfs_absorb and mbfs_short_run apply the same rule to the level after theirs.
fn spent(level: u32, nf: u64, mf: u64, undirected: bool) -> bool {
    mf == 0 || (level > 0 && undirected && mf == nf)
}

/// One search as a rank saw it.
pub(super) struct RankRun {
    pub(super) times: RunTimes,
    pub(super) levels: u32,
}

/// The compiled kernels.
pub(super) struct Kernels {
    reset: CudaFunction,
    queue: CudaFunction,
    hub_queue: CudaFunction,
    top_down: CudaFunction,
    pack: CudaFunction,
    apply: CudaFunction,
    absorb: CudaFunction,
    pub(super) short_run: CudaFunction,
    front: CudaFunction,
    merge: CudaFunction,
    bottom_up: CudaFunction,
    visit: CudaFunction,
    post: CudaFunction,
    seed: CudaFunction,
}

/// A rank's part of the graph and its search state.
pub(super) struct RankState {
    pub(super) k: Kernels,
    part: Partition,
    rank: usize,
    /// First vertex and vertices of this rank.
    lo: u32,
    nl: u32,
    /// Rows of this rank: out-arcs, and in-arcs (the same for an undirected graph).
    out: (CudaSlice<u64>, CudaSlice<u32>),
    incoming: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    /// Solo (with other ranks, where every GPU of the team has the memory): every
    /// vertex's out-rows. The rank then takes every short top-down level alone, as a team
    /// of one, the whole frontier on its own copy of the graph, its runs of short levels
    /// in one launch: no list crosses GPUs, and a road network's thousands of short
    /// levels cost no collective. Its depths and parents are every vertex's
    /// ([`RankState::dlo`]); the levels that are not short are still split by owner.
    solo: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    /// Whether `front`, `own`, `stats_all` and `counters.stats` lie in NCCL's symmetric
    /// memory ([`RankState::exchange_in_symmetric`]).
    symmetric: bool,
    /// Whether NCCL's all-gather in symmetric memory delivered wrong data when checked,
    /// so that the buffers stayed the rank's own.
    symmetric_wrong: bool,
    front: Buffer<u32>,
    visited: CudaSlice<u32>,
    /// The vertices no arc leads to, where `visited` starts ([`never_reached`]).
    never: CudaSlice<u32>,
    next: CudaSlice<u32>,
    /// Candidate parents of other ranks' vertices (every vertex; all ones when unused).
    cand: CudaSlice<u32>,
    /// (vertex, parent) pairs for each other rank and from each, and the buffers' device
    /// addresses for the kernels.
    outbox: Vec<CudaSlice<u32>>,
    outbox_at: CudaSlice<u64>,
    inbox: Vec<CudaSlice<u32>>,
    inbox_at: CudaSlice<u64>,
    /// A short top-down level's pairs, every rank's after the all-gather (this rank's are
    /// `counters.list`; a team of one swaps the two); every vertex's out-degree
    /// (saturated).
    lists: CudaSlice<u32>,
    /// With other ranks, the short level's lists before `lists` (kept while the level
    /// after is queued ahead, for mbfs_front should that level not be short).
    lists_prev: CudaSlice<u32>,
    deg: CudaSlice<u32>,
    /// Frontier arcs up to which a top-down level is short (at most [`LIST_CAP`]).
    pub(super) list_cap: usize,
    own: Buffer<u32>,
    queue: CudaSlice<u32>,
    /// The pieces of the frontier's vertices of many arcs (vertex << 32 | piece; local
    /// in this rank's rows, global in the delegates').
    big: CudaSlice<u64>,
    /// After a short level, its part of the next frontier in pieces of [`SHORT_PIECE`]
    /// arcs (local vertex << 32 | piece), for the next level if it is short too (no queue
    /// made from the bitmap): two lists of [`LISTED_CAP`] entries, a level's by its
    /// parity.
    listed: CudaSlice<u64>,
    /// With other ranks, the delegates ([`Delegates`]) on the GPU.
    delegates: Option<DelegatesOnGpu>,
    /// A long top-down level's frontier mean out-degree from which every rank expands all
    /// of it (with other ranks).
    pub(super) whole_degree: u64,
    /// A rank and the level at whose start it fails ([`bfs_team_failing`]).
    pub(super) fail_at: Option<(usize, u32)>,
    /// A team of one's runs of short levels (mbfs_short_run): its blocks (0: none, the
    /// levels go one by one), its three sets of counters and its barrier's word.
    pub(super) run_blocks: u32,
    /// The most frontier arcs of a level in a run ([`RUN_ARCS`]).
    pub(super) run_arcs: u64,
    run: CudaSlice<u64>,
    run_bar: CudaSlice<u32>,
    /// Depths and parents: of this rank's range (`32 * seg` entries), or solo of every
    /// vertex (`32 * words`), this rank's range from [`RankState::dlo`].
    depth: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    /// Whether the tree goes to rank 0 over NCCL (a team spread over processes), and
    /// there the depths and parents of each other rank.
    gather: bool,
    all: Vec<(CudaSlice<u32>, CudaSlice<u32>)>,
    /// Page-locked host memory the tree passes through (made on first use).
    stage: Option<PinnedHostSlice<u32>>,
    counters: Counters,
    /// Every rank's counts after a bitmap level, all-gathered with the bitmap (mbfs_visit
    /// posts their sums; an all-reduce took up to twice as long on 2 H200s).
    stats_all: Buffer<u64>,
    /// Every rank's `counters.sent` (rank p's for rank r at p * world + r).
    counts: CudaSlice<u32>,
    /// Where the kernels post what the host needs of a level (its counts, the numbers of
    /// pairs), the end of the last posting kernel (a fallback, should one not post), and
    /// mbfs_absorb's count of finished blocks.
    /// By the parity of the level that posts: a short level queued ahead posts while the
    /// host still reads the level before.
    mailbox: [Mailbox; 2],
    posted: [CudaEvent; 2],
    /// Whether a level split by owner sums the ranks' counts on the hosts ([`Board`],
    /// where this process drives every rank), and the board's last round (a team of one
    /// has its counts already, and posts them from mbfs_visit). The host threads sum
    /// them and queue the next level while the bitmap crosses, with no all-gather of the
    /// counts. Such a level then leaves its visit (mbfs_visit, visited |= front) to the
    /// next level: a bottom-up step does it itself, as does a solo short level's queue
    /// (which reads every word of `front`), which spares a launch between the bitmap's
    /// all-gather and them; any other kind of level has it first.
    host_counts: bool,
    round: u64,
    /// Whether each of the next two levels, by parity, is short (for a level queued ahead,
    /// mbfs_absorb's `ahead`), then the last short level's next frontier's arcs and
    /// vertices.
    ahead: CudaSlice<u64>,
    ticket: CudaSlice<u32>,
    /// The word of the all-reduce that starts every search on every rank at once.
    start: CudaSlice<u32>,
    /// Recorded after that all-reduce; `unstarted` while this rank has not yet seen it
    /// done. In symmetric memory a rank's first exchange of a search waits for it
    /// ([`RankState::gather_front`]).
    started: CudaEvent,
    unstarted: bool,
    /// A search's seconds and seconds of kernels, all-reduced when it ends (as bits).
    ends: CudaSlice<u64>,
    /// `WARPGRAPH_TRACE=2`: an event after each step of a level, printed with the level.
    steps: Option<Vec<(&'static str, CudaEvent)>>,
    /// The first levels, expanded by the host, and what they reached for the GPU.
    pub(super) host: HostLevels,
    seeds: CudaSlice<u32>,
    /// Page-locked: their copy does not wait for the stream ([`Gpu::write_pinned`]).
    seeds_host: PinnedHostSlice<u32>,
    blocks: u32,
    /// The bottom-up kernel's grid: every block resident at once ([`Gpu::resident_grid`]).
    bottom_up_blocks: u32,
}

/// The counters a level adds to (the kernels' COUNTERS), zero when a level starts
/// (mbfs_reset, mbfs_post or mbfs_visit at a level split by owner's end, and mbfs_absorb
/// clear them).
pub(super) struct Counters {
    /// [`STATS`] values: the next frontier's vertices and out-arcs, a flag for a short
    /// level's list that overflowed (pairs lost: a bug, which fails the search), and after
    /// a bottom-up step the vertices it left unvisited.
    stats: Buffer<u64>,
    /// The lengths of the queue and of the list of big vertices.
    qlen: CudaSlice<u32>,
    blen: CudaSlice<u32>,
    /// How many pairs this rank packed for each rank in a long top-down level.
    sent: CudaSlice<u32>,
    /// A short top-down level's pairs from this rank, their number first.
    list: CudaSlice<u32>,
    /// The team's size (the length of `sent`).
    world: u32,
    /// The lengths of the two lists of [`RankState::listed`], then the arcs of each one's
    /// level (cleared at a search's start and by mbfs_post or mbfs_visit; mbfs_absorb keeps
    /// them).
    listed_len: CudaSlice<u32>,
}

impl Counters {
    /// Adds them to a launch, in the order of COUNTERS.
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        self.push_for(b, false);
    }

    /// As [`Counters::push`], for a team of one with `alone` (COUNTERS' `world` 1: a solo
    /// rank's short level, whose list is every rank's).
    fn push_for<'a>(&'a mut self, b: &mut LaunchArgs<'a>, alone: bool) {
        // COUNTERS' `world` for a team of one (a reference that outlives the launch).
        static ONE: u32 = 1;
        let Counters {
            stats,
            qlen,
            blen,
            sent,
            list,
            world,
            listed_len,
        } = self;
        b.arg(&mut **stats)
            .arg(qlen)
            .arg(blen)
            .arg(sent)
            .arg(if alone { &ONE } else { &*world })
            .arg(list)
            .arg(listed_len);
    }
}

impl RankState {
    pub(super) fn new(
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

    /// The next frontier from every rank's part (`own`) and every rank's counts
    /// (`stats`), on every rank: one group, so one launch (in symmetric memory two
    /// collectives, see below). A team of one has them
    /// already, and swaps the buffers: `own` is written whole before it is read again, and
    /// mbfs_visit, which always follows, zeroes the new `stats`. (NCCL's all-gathers for
    /// one rank cost a group and kernels, copies a launch each: the team of one, the
    /// baseline of the strong scaling, took 0.81-0.84 ms with NCCL's at Kronecker 24 on
    /// an H200, 0.78-0.81 ms with copies.)
    fn gather_front(&mut self, m: &Member, counts: bool) -> Result<()> {
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
    fn exchange_in_symmetric(&mut self, m: &Member) -> Result<()> {
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

    /// Runs each kind of exchange a search makes once, small and large: NCCL connects
    /// peers on first use (the first send and receive between 2 H200s took 18-23 ms), and
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
        let f = |name| gpu.function(&KERNELS, name);
        let k = Kernels {
            reset: f("mbfs_reset")?,
            queue: f("mbfs_queue")?,
            hub_queue: f("mbfs_hub_queue")?,
            top_down: f("mbfs_top_down")?,
            pack: f("mbfs_pack")?,
            apply: f("mbfs_apply")?,
            absorb: f("mbfs_absorb")?,
            short_run: f("mbfs_short_run")?,
            front: f("mbfs_front")?,
            merge: f("mbfs_merge")?,
            bottom_up: f("mbfs_bottom_up")?,
            visit: f("mbfs_visit")?,
            post: f("mbfs_post")?,
            seed: f("mbfs_seed")?,
        };
        let bottom_up_blocks = gpu.resident_grid(&k.bottom_up, "mbfs_bottom_up", THREADS, 8)?;
        let rows = |c: &Csr| -> Result<(CudaSlice<u64>, CudaSlice<u32>)> {
            let off = &c.offsets()[r.start..=r.end];
            let base = off[0];
            let local: Vec<u64> = off.iter().map(|&o| o - base).collect();
            let tgt = &c.targets()[base as usize..off[off.len() - 1] as usize];
            Ok((gpu.upload(&local)?, gpu.upload(tgt)?))
        };
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
        let own_deg: Vec<u32> = (0..local)
            .into_par_iter()
            .map(|i| match r.start + i {
                v if v < r.end => u32::try_from(g.out().degree(v as VertexId)).unwrap_or(u32::MAX),
                _ => 0,
            })
            .collect();
        let list_words = 1 + 2 * LIST_CAP;
        let (delegates, big_len) = if peers > 0 {
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
        };
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

    /// One search from `source`, every rank of the team calling it alike; the rank's part
    /// of the tree goes to its range of `dest` (gathering, rank 0 writes all of it). On
    /// return every rank has written its part, and the times are the slowest rank's.
    pub(super) fn search(
        &mut self,
        m: &Member,
        g: &Graph,
        source: VertexId,
        opts: &BfsOptions,
        dest: Option<&Dest>,
    ) -> Result<RankRun> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let local = 32 * seg;
        let gather = self.gather;
        let cfg = launch_config(self.blocks, THREADS);
        // Start together, on the GPUs: a one-word all-reduce in the stream, then the timer's
        // first event. (With the host threads meeting instead, one thread's late wake-up
        // counted against the other GPU, whose first collective waited for it: 0.02-0.12
        // ms on 2 H200s.) A team of one has no one to wait for, and its link does nothing.
        // The GPU's wait there is left out of the wall-clock time as well: the first rank
        // of a process comes late by its caller's look at the last search's tree (the
        // bench's verifier: 2.7 s on 2 H200s at Kronecker 26, all of it counted in the
        // other rank's time, so the team's, before).
        let wait = gpu.wait_start()?;
        let begun = Instant::now();
        m.link.all_reduce_in_place(&mut self.start, Reduce::Max)?;
        // Only the exchange in symmetric memory waits for it (`gather_front`).
        if self.symmetric {
            self.started.record(&stream).map_err(gpu_err)?;
            self.unstarted = true;
        }
        let timer = gpu.timer_after(Some(wait))?;
        let dlo = self.dlo();
        {
            let mut b = stream.launch_builder(&self.k.reset);
            let mut depth = self.depth.slice_mut(dlo..);
            let mut parent = self.parent.slice_mut(dlo..);
            b.arg(&mut *self.front)
                .arg(&mut self.visited)
                .arg(&self.never)
                .arg(&words)
                .arg(&mut depth)
                .arg(&mut parent)
                .arg(&local)
                .arg(&source)
                .arg(&self.lo);
            self.counters.push(&mut b);
            // SAFETY: matches mbfs_reset; front, visited and never hold `words` words,
            // depth and parent `local` entries from dlo, sent `world` counts.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        let n = self.part.n as u64;
        let alpha = u64::from(opts.alpha.max(1));
        let beta = u64::from(opts.beta.max(1));
        let (mut nf, mut mf) = (1u64, g.out().degree(source));
        let mut unexplored = g.out().num_arcs();
        let mut bottom_up = opts.direction == Direction::BottomUp;
        let mut level = 0u32;
        // The frontier before this one (Beamer: back to top-down only while shrinking).
        let mut prev_nf = 0u64;
        let trace = settings::get().trace >= 1;
        // The levels traced, printed once the search is done (printing between levels
        // would hold the next one back).
        let mut traced: Vec<LevelMarks> = Vec::new();
        // The host expands the first top-down levels while they are small (the GPUs
        // clearing their arrays meanwhile), until `seeded` hands their result over.
        self.host.start(source);
        let mut seeded = false;
        // Whether mbfs_seed queued the first level the GPUs expand.
        let mut seeded_queue = false;
        // The level before, if it was short: its lists' bound. The frontier is then listed
        // in pieces ([`RankState::listed`]), and not in `front`.
        let mut last_short: Option<u32> = None;
        // The level queued ahead, if any: its lists' bound, its post, and the bound its
        // mbfs_absorb was given for the level after it.
        let mut ahead: Option<(u32, u64, u32)> = None;
        // After a short level, whether its mbfs_absorb found the next one short.
        let mut said_short: Option<bool> = None;
        // Whether the level before ended a team of one's run of short levels.
        let mut ran = false;
        let mut nothing_left = false;
        // Whether this level's counts are this rank's own, to be summed on the hosts, and
        // the host's wait for the other ranks' (traced).
        let mut split_round = false;
        let mut board_ms = None;
        // Whether the level before's mbfs_visit is yet to come (see `host_counts`).
        let mut unvisited = false;
        let undirected = self.undirected();
        while nf > 0 && !nothing_left && !spent(level, nf, mf, undirected == 1) {
            if self.fail_at == Some((m.rank, level)) {
                return Err(Error::Gpu(format!(
                    "BFS team, rank {}: stopped at level {level}, as asked (a test of the \
                     team's stop)",
                    m.rank
                )));
            }
            bottom_up = match opts.direction {
                Direction::TopDown => false,
                Direction::BottomUp => true,
                // Beamer's rule, but only from a frontier that is not shrinking: past its
                // widest level a road network's frontier holds a fifteenth of the arcs
                // left, and the search went bottom-up and back at every level (a road-like
                // 1024 x 1024 grid: 57 levels of 20-50 us in place of short ones of 5-8).
                Direction::Optimizing if !bottom_up => mf > unexplored / alpha && nf >= prev_nf,
                // Beamer's rule, but only into a short level: a long top-down level after
                // the bottom-up ones finds little and still pays all its steps, more than
                // another bottom-up step (Kronecker 24 on 2 H200s: 0.126 ms for 1,696
                // vertices; the bottom-up step before it 0.082 ms).
                Direction::Optimizing => {
                    !(nf < n / beta && nf < prev_nf && mf <= self.list_cap as u64)
                }
            };
            prev_nf = nf;
            unexplored = unexplored.saturating_sub(mf);
            let lt = Instant::now();
            let is_short = !bottom_up && mf <= self.list_cap as u64;
            if !seeded {
                if !bottom_up && self.host.take(mf) {
                    (nf, mf) = self.host.expand(g.out(), level + 1);
                    level += 1;
                    if trace {
                        traced.push(LevelMarks {
                            line: format!(
                                "level {level:>4} host      found {nf} vertices, {mf} arcs"
                            ),
                            host_ms: lt.elapsed().as_secs_f64() * 1e3,
                            events: None,
                            steps: Vec::new(),
                        });
                    }
                    continue;
                }
                seeded_queue = self.seed(gpu, source, level, is_short)?;
                seeded = true;
            }
            // The level before's visit (see `host_counts`): this level's bottom-up step's,
            // or a short level's queue's where it reads every word (solo; the level
            // before was not short, so the frontier is not listed), else a launch first.
            let pending = std::mem::take(&mut unvisited);
            let fold = pending && (bottom_up || (is_short && self.solo.is_some()));
            if pending && !fold {
                self.visit(gpu, None)?;
            }
            let e0 = mark(gpu, trace)?;
            // A short level's lists hold at most a pair per frontier arc.
            let mut short = is_short.then_some(Short {
                cap: mf as u32,
                listed: last_short.is_some(),
                seeded: std::mem::take(&mut seeded_queue),
                visits: fold,
                ahead: false,
            });
            // The level queued ahead runs if it is short and within the bound it was given
            // (mbfs_absorb found the same: checked below); if not, it did nothing, and the
            // level is queued now.
            let ahead_runs =
                ahead.is_some_and(|(cap, ..)| short.is_some_and(|s| s.listed && s.cap <= cap));
            if ahead.is_some() && said_short != Some(ahead_runs) {
                return Err(ahead_differs(m.rank, level, ahead_runs));
            }
            // A run ends where its GPU found the next level not short.
            if std::mem::take(&mut ran) && said_short != Some(short.is_some()) {
                return Err(ahead_differs(m.rank, level, short.is_some()));
            }
            let (queued, then) = match (ahead.take(), short) {
                (Some((cap, post, then)), Some(_)) if ahead_runs => {
                    short = Some(Short {
                        cap,
                        listed: true,
                        seeded: false,
                        visits: false,
                        ahead: true,
                    });
                    (Some(post), Some(then))
                }
                (Some(_), _) => {
                    self.turn_lists(self.short_world(m));
                    (None, None)
                }
                (None, _) => (None, None),
            };
            // What mbfs_absorb needs to decide on the level after this one (see
            // `NextRule`), and whether that one is queued ahead: only inside a run of short
            // levels (this one short after a short one, so the next one most likely short
            // too), with no trace, and not where a test stops the team.
            let alpha_rule = match opts.direction {
                Direction::TopDown => 0,
                _ => alpha,
            };
            let go_ahead = short.is_some_and(|s| s.listed)
                && !trace
                && opts.direction != Direction::BottomUp
                && self.fail_at.map(|(_, l)| l) != Some(level + 1);
            // A team of one runs such levels of at most RUN_ARCS arcs in one launch instead,
            // on to the last whose next level is not (or to the level before the one a test
            // stops at), unless this level was queued ahead already (after one of more
            // arcs: its kernels have run, and the next is queued ahead as before).
            let run = go_ahead
                && queued.is_none()
                && self.short_world(m) == 1
                && self.run_blocks > 0
                && mf <= self.run_arcs;
            let list_cap = self.list_cap as u64;
            let short_world = self.short_world(m);
            let next_cap = |known: u64| -> u32 {
                // A team of one's list costs nothing to bound loosely (nor a solo rank's);
                // other ranks all-gather the whole bound.
                match short_world {
                    1 => list_cap as u32,
                    _ => list_cap.min(2 * known + list_cap / AHEAD_SLACK) as u32,
                }
            };
            // The lists' bound of the next level if it is queued ahead (given to this
            // level's mbfs_absorb when it was queued, if it was).
            let then = then.unwrap_or_else(|| next_cap(mf));
            let mut e1 = None;
            let post = match queued {
                Some(post) => post,
                None => {
                    if let (None, Some(cap)) = (short, last_short) {
                        self.front_of_lists(gpu, short_world, cap)?;
                        step(&mut self.steps, gpu, "front")?;
                    }
                    e1 = if bottom_up {
                        self.bottom_up_step(gpu, level, lo_word, seg, fold)?;
                        step(&mut self.steps, gpu, "bottom-up")?;
                        mark(gpu, trace)?
                    } else if run {
                        None
                    } else {
                        let how = match () {
                            _ if short.is_some() || m.world == 1 => Expand::Owners,
                            _ if mf >= self.whole_degree.saturating_mul(nf) => Expand::Whole,
                            _ => Expand::Hubs,
                        };
                        self.top_down_step(m, level, short, how, trace)?
                    };
                    // The post of this level's counts.
                    let box_ = level as usize & 1;
                    let post = self.mailbox[box_].next();
                    if run {
                        let last = match self.fail_at {
                            Some((_, l)) if l > level => l - 1,
                            _ => u32::MAX,
                        };
                        let frontier = (nf, mf);
                        self.short_run(gpu, level, frontier, unexplored, alpha_rule, last, post)?;
                        step(&mut self.steps, gpu, "run")?;
                    } else if let Some(short) = short {
                        // Every rank's list to every rank, which builds the next frontier
                        // from them, lists this rank's part of it, posts its counts,
                        // clears the counters and decides on the next level.
                        let rule = NextRule {
                            unexplored,
                            frontier: Some((nf, 0)),
                            alpha: alpha_rule,
                            next_cap: then,
                        };
                        self.absorb_lists(m, short, level, rule, post)?;
                        step(&mut self.steps, gpu, "absorb")?;
                    } else {
                        // A level split by owner.
                        let dev = self.mailbox[box_].device();
                        // With host counts, this rank's own go to its host first, which
                        // sums every rank's (below) while the bitmap crosses.
                        if self.host_counts {
                            let mut b = stream.launch_builder(&self.k.post);
                            b.arg(&dev).arg(&post);
                            self.counters.push(&mut b);
                            // SAFETY: matches mbfs_post; stats holds STATS values, sent
                            // `world`, the mailbox STATS values.
                            unsafe { b.launch(launch_config(1, 1)) }.map_err(gpu_err)?;
                            step(&mut self.steps, gpu, "post")?;
                            split_round = true;
                        }
                        // The next frontier (and without host counts, the counts: one
                        // group, one launch) on every rank, then visited |= front.
                        self.gather_front(m, !self.host_counts)?;
                        step(&mut self.steps, gpu, "collective")?;
                        // With host counts the visit waits for the next level's direction
                        // (see `host_counts`).
                        match self.host_counts {
                            true => unvisited = true,
                            false => self.visit(gpu, Some((dev, post)))?,
                        }
                    }
                    self.posted[box_].record(&stream).map_err(gpu_err)?;
                    post
                }
            };
            last_short = short.map(|s| s.cap);
            if go_ahead && !run {
                // The next level, queued before this one's counts are in: its kernels do
                // nothing unless this level's mbfs_absorb found it short with at most
                // `cap` frontier arcs. (The arcs unexplored before it are known now; its
                // frontier's are this level's mbfs_absorb's count.)
                let next = level + 1;
                let s = Short {
                    cap: then,
                    listed: true,
                    seeded: false,
                    visits: false,
                    ahead: true,
                };
                self.top_down_step(m, next, Some(s), Expand::Owners, false)?;
                let box_ = next as usize & 1;
                let post = self.mailbox[box_].next();
                let rule = NextRule {
                    unexplored,
                    frontier: None,
                    alpha: alpha_rule,
                    next_cap: next_cap(mf),
                };
                self.absorb_lists(m, s, next, rule, post)?;
                self.posted[box_].record(&stream).map_err(gpu_err)?;
                ahead = Some((then, post, next_cap(mf)));
            }
            let e2 = mark(gpu, trace)?;
            let mut counts = [0u64; STATS + 4];
            let box_ = level as usize & 1;
            self.mailbox[box_].wait(post, &self.posted[box_], &mut counts, |t| m.link.watch(t))?;
            if std::mem::take(&mut split_round) {
                // This rank's counts of a level split by owner: the team's are their sums
                // (every rank sums every such level, so the rounds agree).
                let board = m.board().ok_or_else(|| {
                    Error::Gpu("BFS team: host counts without a board (an internal error)".into())
                })?;
                self.round += 1;
                let waited = Instant::now();
                board.sum(m.rank, self.round, &mut counts[..STATS], |t| {
                    m.link.watch(t)
                })?;
                board_ms = Some(waited.elapsed().as_secs_f64() * 1e3);
            }
            if counts[2] != 0 {
                return Err(Error::Gpu(format!(
                    "BFS team, rank {}: a list of the vertices found at level {level} \
                     outgrew its bound of {} pairs (an internal error; the tree would be \
                     wrong)",
                    m.rank,
                    mf.min(self.list_cap as u64)
                )));
            }
            (nf, mf) = (counts[0], counts[1]);
            said_short = short.map(|_| counts[STATS] != 0);
            // A bottom-up step that left no vertex unvisited (but those no arc leads to)
            // ends the search: no level after it could find any.
            nothing_left = bottom_up && counts[3] == 0;
            level += match run {
                true => {
                    // The run's last level's list is the frontier, for mbfs_front (the
                    // run's levels alternate between the two lists, the first in
                    // `counters.list`).
                    let levels = counts[STATS + 1] as u32;
                    if levels % 2 == 1 {
                        self.turn_lists(1);
                    }
                    last_short = Some(self.list_cap as u32);
                    unexplored = counts[STATS + 2];
                    prev_nf = counts[STATS + 3];
                    ran = true;
                    levels
                }
                false => 1,
            };
            if trace {
                traced.push(LevelMarks {
                    line: format!(
                        "level {level:>4} {} found {nf} vertices, {mf} arcs{}",
                        if bottom_up { "bottom-up" } else { "top-down " },
                        match board_ms.take() {
                            Some(ms) => format!(" (the other ranks' counts waited {ms:.3} ms)"),
                            None => String::new(),
                        }
                    ),
                    host_ms: lt.elapsed().as_secs_f64() * 1e3,
                    events: Some([e0, e1, e2]),
                    steps: self.steps.as_mut().map(std::mem::take).unwrap_or_default(),
                });
            }
        }
        if ahead.is_some() {
            // The level queued ahead did nothing (the search is over).
            if said_short != Some(false) {
                return Err(ahead_differs(m.rank, level, false));
            }
            self.turn_lists(self.short_world(m));
        }
        if !seeded {
            // The host found the whole component.
            self.seed(gpu, source, level, false)?;
        }
        if gather {
            // Spread over processes: every part to rank 0's GPU first.
            let mut group = m.link.group()?;
            if m.rank == 0 {
                for (p, (d, pa)) in (1..m.world).zip(self.all.iter_mut()) {
                    group.recv(d.as_view_mut(), p)?;
                    group.recv(pa.as_view_mut(), p)?;
                }
            } else {
                group.send(self.depth.slice(dlo..dlo + local as usize), 0)?;
                group.send(self.parent.slice(dlo..dlo + local as usize), 0)?;
            }
            group.end()?;
        }
        let done = timer.kernels_done(gpu)?;
        m.link.wait_event(&done)?;
        let seen = Instant::now();
        // Seconds copying to page-locked memory, and from there into the tree.
        let mut copies = (0.0, 0.0);
        if let Some(dest) = dest {
            // Gathering, rank 0 writes every part, its own first; else each rank its own.
            let parts = match gather {
                true => 0..m.world,
                false => m.rank..m.rank + 1,
            };
            for p in parts {
                let (d, pa, at) = match p == m.rank {
                    true => (&self.depth, &self.parent, dlo),
                    false => {
                        let (d, pa) = &self.all[p - 1];
                        (d, pa, 0)
                    }
                };
                // SAFETY: ranks write disjoint ranges, and none is read before the
                // all-reduce below (see `team_searches`).
                let (dh, ph) = unsafe { dest.range(self.part.range(p)) };
                for ((buf, out), locked) in [(d, dh), (pa, ph)].into_iter().zip(dest.locked) {
                    let (bus, host) = copy_out(gpu, buf, at, out, locked, &mut self.stage)?;
                    copies = (copies.0 + bus, copies.1 + host);
                }
            }
        }
        let copied = Instant::now();
        let times = timer.finish(&done)?;
        // The slowest rank's times, on every rank, once every rank has written its part.
        // (Seconds as bits: for floats of one sign their order is the integers'.)
        let ends = [times.total_seconds, times.kernel_seconds].map(f64::to_bits);
        gpu.stream()
            .memcpy_htod(&ends, &mut self.ends)
            .map_err(gpu_err)?;
        m.link.all_reduce_in_place(&mut self.ends, Reduce::Max)?;
        m.link.sync()?;
        let mut ends = [0u64; 2];
        gpu.download_into(&self.ends, &mut ends)?;
        print_trace(m.rank, &traced)?;
        if trace {
            let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
            eprintln!(
                "rank {} end: the kernels' end seen {:.3} ms after the start (kernels {:.3} \
                 ms), copies {:.3} ms (to page-locked {:.3}, into the tree {:.3}), the \
                 times' all-reduce {:.3} ms; this rank {:.3} ms, the team {:.3} ms",
                m.rank,
                ms(begun, seen),
                times.kernel_seconds * 1e3,
                ms(seen, copied),
                copies.0 * 1e3,
                copies.1 * 1e3,
                ms(copied, Instant::now()),
                times.total_seconds * 1e3,
                f64::from_bits(ends[0]) * 1e3,
            );
        }
        Ok(RankRun {
            times: RunTimes {
                seconds: f64::from_bits(ends[0]),
                kernel_seconds: Some(f64::from_bits(ends[1])),
            },
            levels: level,
        })
    }
    /// Hands the GPU what the host's first `levels` levels reached (nothing for none):
    /// their vertices into the visited set, the last level's as the frontier (in place of
    /// the source), this rank's own with their depths and parents.
    ///
    /// With `queue`, the next level is short: the last level's vertices go straight into
    /// its queue (those [`RankState::top_down_step`] would list from `front`), and `front`
    /// stays empty. Returns whether they did.
    fn seed(&mut self, gpu: &Gpu, source: VertexId, levels: u32, queue: bool) -> Result<bool> {
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

    /// 1 if the graph is undirected (its in-arcs are its out-arcs, not kept twice), else 0:
    /// as the kernels take it.
    fn undirected(&self) -> u32 {
        u32::from(self.incoming.is_none())
    }

    /// Whether the rank exchanges its bitmaps in NCCL's symmetric memory
    /// ([`RankState::exchange_in_symmetric`]).
    pub(super) fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    /// Whether NCCL's all-gather in symmetric memory failed its check
    /// ([`RankState::exchange_in_symmetric`]), the buffers staying the rank's own.
    pub(super) fn symmetric_was_wrong(&self) -> bool {
        self.symmetric_wrong
    }

    /// Whether the rank takes its short levels solo ([`RankState::solo`]).
    pub(super) fn is_solo(&self) -> bool {
        self.solo.is_some()
    }

    /// Where this rank's range starts in its depths and parents: its first vertex solo
    /// (they hold every vertex's), else 0.
    fn dlo(&self) -> usize {
        match self.solo {
            Some(_) => self.lo as usize,
            None => 0,
        }
    }

    /// The ranks a short level's lists come from: solo (every rank takes the whole level
    /// alone) or in a team of one, 1.
    pub(super) fn short_world(&self, m: &Member) -> usize {
        match self.solo {
            Some(_) => 1,
            None => m.world,
        }
    }

    /// The first vertex and the vertices whose depths and parents a short level writes:
    /// solo every vertex, else this rank's.
    fn short_range(&self) -> (u32, u32) {
        match self.solo {
            Some(_) => (0, self.part.n as u32),
            None => (self.lo, self.nl),
        }
    }

    /// A level split by owner's visit: visited |= front, the counters cleared; with
    /// `sums` (the mailbox's address and the post) first the sums of every rank's counts
    /// (all-gathered into stats_all) posted.
    fn visit(&mut self, gpu: &Gpu, sums: Option<(u64, u64)>) -> Result<()> {
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
    fn bottom_up_step(
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
    fn top_down_step(
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
        if short.is_some() {
            return Ok(e1);
        }
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
        Ok(e1)
    }

    /// Before a level that is not short, after a short one whose lists held at most `cap`
    /// pairs each: its frontier, in those lists, set in `front` (cleared at the first
    /// short level of the run).
    fn front_of_lists(&mut self, gpu: &Gpu, world: usize, cap: u32) -> Result<()> {
        let stride = 1 + 2 * cap;
        let world = world as u32;
        let mut b = gpu.stream().launch_builder(&self.k.front);
        b.arg(&self.lists)
            .arg(&stride)
            .arg(&cap)
            .arg(&world)
            .arg(&mut *self.front);
        // A thread a pair of each list.
        let blocks = cap.div_ceil(THREADS).clamp(1, self.blocks);
        // SAFETY: matches mbfs_front; lists holds `world` lists of `stride` entries, each
        // at most `cap` pairs of vertices below n, front covers every vertex.
        unsafe { b.launch(launch_config(blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// A team of one's run of short levels from `level` (short, its frontier of
    /// `frontier.0` vertices listed in pieces of `frontier.1` arcs in all; `unexplored`
    /// arcs in no frontier up to this one) in one cooperative launch of mbfs_short_run, up
    /// to the last level whose next one is not short (more arcs than the lists' bound or,
    /// with `alpha` not 0, than the arcs left over alpha, from a frontier not smaller than
    /// its own; or [`spent`]) or has more than `run_arcs` arcs, or `last`. It posts `post`:
    /// the last level's counts, whether the next level is short, the levels run, the arcs
    /// still unexplored and the last level's frontier's vertices.
    #[allow(clippy::too_many_arguments)]
    fn short_run(
        &mut self,
        gpu: &Gpu,
        level: u32,
        frontier: (u64, u64),
        unexplored: u64,
        alpha: u64,
        last: u32,
        post: u64,
    ) -> Result<()> {
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let undirected = self.undirected();
        let short_arcs = self.list_cap as u32;
        let dev = self.mailbox[level as usize & 1].device();
        let rows = self.solo.as_ref().unwrap_or(&self.out);
        let mut b = gpu.stream().launch_builder(&self.k.short_run);
        b.arg(&rows.0)
            .arg(&rows.1)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&self.deg)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs)
            .arg(&mut self.counters.listed_len)
            .arg(&mut self.counters.list)
            .arg(&mut self.lists)
            .arg(&mut self.run)
            .arg(&mut self.run_bar)
            .arg(&level)
            .arg(&last)
            .arg(&unexplored)
            .arg(&alpha)
            .arg(&undirected)
            .arg(&frontier.0)
            .arg(&frontier.1)
            .arg(&self.run_arcs)
            .arg(&dev)
            .arg(&post);
        // SAFETY: matches mbfs_short_run on a team of one or solo (every vertex's rows,
        // depths and parents); listed holds two lists of LISTED_CAP pieces of rows,
        // listed_len their lengths and arcs (four words); both lists hold 1 + 2 * LIST_CAP words
        // (short_arcs <= LIST_CAP pairs: a pair per frontier arc); run holds 3 * RUN_SET
        // words, the mailbox STATS + 4 values; every block is resident (run_blocks, at
        // most resident_grid's).
        unsafe { b.launch_cooperative(launch_config(self.run_blocks, THREADS)) }
            .map_err(gpu_err)?;
        Ok(())
    }

    /// The short level's lists move on: the level about to be absorbed gets the buffer
    /// of `lists`, the last one's are kept (in `lists_prev`; a team of one, whose list is
    /// every rank's, swaps it with `lists` instead of an all-gather, and mbfs_absorb
    /// zeroes the count of the one the next expansion writes). Twice, nothing moved: for
    /// a level queued ahead that was not short.
    fn turn_lists(&mut self, world: usize) {
        match world {
            1 => std::mem::swap(&mut self.counters.list, &mut self.lists),
            _ => std::mem::swap(&mut self.lists_prev, &mut self.lists),
        }
    }

    /// After a `short` top-down expansion at `level` (its lists hold at most `short.cap`
    /// pairs each): an all-gather gives every rank every list, and each builds the next
    /// frontier, the visited set and the counts from them, its own vertices' depths and
    /// parents and its list of their pieces too; it posts the counts (`post`), clears
    /// them, and decides by `rule` whether the level after is short.
    fn absorb_lists(
        &mut self,
        m: &Member,
        short: Short,
        level: u32,
        rule: NextRule,
        post: u64,
    ) -> Result<()> {
        let stream = m.gpu.stream().clone();
        let cap = short.cap;
        // A thread a pair of each list (a level's last ones hold a few hundred: a full
        // grid's blocks each taking the ticket cost them 0.01 ms).
        let blocks = cap.div_ceil(THREADS).clamp(1, self.blocks);
        let cfg = launch_config(blocks, THREADS);
        let len = 1 + 2 * cap as usize;
        let alone = self.short_world(m) == 1;
        self.turn_lists(self.short_world(m));
        if !alone {
            m.link.all_gather(
                &self.counters.list.slice(..len),
                &mut self.lists.slice_mut(..m.world * len),
            )?;
            step(&mut self.steps, &m.gpu, "all-gather")?;
        }
        let len32 = len as u32;
        let undirected = self.undirected();
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let short_arcs = self.list_cap as u32;
        let (lo, nl) = self.short_range();
        let mut b = stream.launch_builder(&self.k.absorb);
        b.arg(&self.lists)
            .arg(&len32)
            .arg(&cap)
            .arg(&lo)
            .arg(&nl)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level)
            .arg(&self.deg);
        self.counters.push_for(&mut b, alone);
        let dev = self.mailbox[level as usize & 1].device();
        b.arg(&mut self.ticket)
            .arg(&dev)
            .arg(&post)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs);
        let gated = u32::from(short.ahead);
        let (frontier_vertices, frontier_arcs) = rule.frontier.unwrap_or((u64::MAX, u64::MAX));
        let next_cap = u64::from(rule.next_cap);
        b.arg(&mut self.ahead)
            .arg(&gated)
            .arg(&rule.unexplored)
            .arg(&frontier_vertices)
            .arg(&frontier_arcs)
            .arg(&rule.alpha)
            .arg(&next_cap)
            .arg(&undirected);
        // SAFETY: matches mbfs_absorb; lists holds `world` lists of `len` entries, each
        // at most `cap` pairs of vertices below n; deg covers every vertex, sent `world`
        // counts, the mailbox STATS + 1 values, listed two lists of LISTED_CAP entries,
        // listed_len their lengths and arcs (four words), ahead four words.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        Ok(())
    }

    /// After a long top-down expansion: the vertices found for each other rank packed as
    /// (vertex, parent) pairs for it, and every rank's numbers of pairs all-gathered.
    fn pack_pairs(&mut self, m: &Member, seg: u32) -> Result<()> {
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
    fn exchange_pairs(&mut self, m: &Member, level: u32, post: u64) -> Result<()> {
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

/// The error for a level queued ahead that the GPU ran where the host's rule says it is
/// not short, or the other way round: a bug, which would make the tree wrong.
fn ahead_differs(rank: usize, level: u32, host: bool) -> Error {
    Error::Gpu(format!(
        "BFS team, rank {rank}: the GPU and the host disagree on whether level {level} is a \
         short one (the host says {}; an internal error; the tree would be wrong)",
        if host { "yes" } else { "no" }
    ))
}

/// Copies `out.len()` entries of `buf` from `at` into `out`: straight where `out` is
/// page-locked (`locked`), else through the page-locked buffer `stage` (made or grown as
/// needed), the host's part in parallel; returns the seconds of each half (for
/// `WARPGRAPH_TRACE`).
fn copy_out(
    gpu: &Gpu,
    buf: &CudaSlice<u32>,
    at: usize,
    out: &mut [u32],
    locked: bool,
    stage: &mut Option<PinnedHostSlice<u32>>,
) -> Result<(f64, f64)> {
    let t = Instant::now();
    if locked {
        gpu.download_from(buf, at, out)?;
        return Ok((t.elapsed().as_secs_f64(), 0.0));
    }
    if stage.as_ref().is_none_or(|s| s.len() < out.len()) {
        *stage = Some(gpu.pinned(out.len())?);
    }
    let stage = stage.as_mut().expect("made above");
    let staged = gpu.read_pinned_from(buf, at, out.len(), stage)?;
    let bus = t.elapsed().as_secs_f64();
    out.par_iter_mut()
        .zip(staged.par_iter())
        .for_each(|(o, s)| *o = *s);
    Ok((bus, t.elapsed().as_secs_f64() - bus))
}
