//! A rank of a team: its part of the graph on its GPU and its search state. The steps
//! are in the files below: `setup.rs` (allocation), `search.rs` (the level loop),
//! `steps.rs` (top-down, bottom-up), `lists.rs` (short levels), `exchange.rs` (the
//! collectives).

use cudarc::driver::{CudaEvent, CudaSlice, LaunchArgs, PinnedHostSlice, PushKernelArg};

use super::delegates::DelegatesOnGpu;
use super::host_levels::HostLevels;
use super::kernels::Kernels;
use super::partition::Partition;
use crate::cuda::team::Member;
use crate::cuda::{Buffer, Mailbox};
use crate::device::RunTimes;
use crate::error::Error;

mod end;
mod exchange;
mod lists;
mod search;
mod setup;
mod steps;
mod walk;

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
/// parent. On a power-law graph the last level often is such, and on several GPUs a
/// level costs an exchange however small.
/// mbfs_absorb and mbfs_short_run apply the same rule to the level after theirs.
fn spent(level: u32, nf: u64, mf: u64, undirected: bool) -> bool {
    mf == 0 || (level > 0 && undirected && mf == nf)
}

/// One search as a rank saw it.
pub(super) struct RankRun {
    pub(super) times: RunTimes,
    pub(super) levels: u32,
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
    /// posts their sums; an all-reduce would take longer).
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
    /// 1 if the graph is undirected (its in-arcs are its out-arcs, not kept twice), else 0:
    /// as the kernels take it.
    fn undirected(&self) -> u32 {
        u32::from(self.incoming.is_none())
    }

    /// Whether the rank exchanges its bitmaps in NCCL's symmetric memory
    /// ([`RankState::exchange_in_symmetric`]).
    pub(crate) fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    /// Whether NCCL's all-gather in symmetric memory failed its check
    /// ([`RankState::exchange_in_symmetric`]), the buffers staying the rank's own.
    pub(crate) fn symmetric_was_wrong(&self) -> bool {
        self.symmetric_wrong
    }

    /// Whether the rank takes its short levels solo ([`RankState::solo`]).
    pub(crate) fn is_solo(&self) -> bool {
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
    pub(crate) fn short_world(&self, m: &Member) -> usize {
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
