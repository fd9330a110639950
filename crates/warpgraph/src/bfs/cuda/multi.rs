//! Breadth-first search over several GPUs by 1-D partition (seed 003's two-GPU
//! Enterprise), the GPUs talking through NCCL.
//!
//! **Computes** the same [`BfsTree`] as one GPU or the CPU: identical depths, and a
//! parent that does not depend on the number of GPUs (the first in-neighbour one level up,
//! in arc order).
//!
//! **Method** (kernels in `multi.cu`, ranks as in [`crate::cuda::team`]): the vertices
//! are split into equal ranges of whole 32-bit bitmap words, one per GPU, and each GPU
//! holds only its range's rows (out-arcs, and in-arcs for a directed graph). The frontier
//! and the visited set are bitmaps of the whole graph, the same on every GPU. Each level
//! is either
//! - top-down: every GPU queues its own frontier vertices (a prefix sum per warp), expands
//!   them a warp each (those of 2048 arcs or more by the whole grid, one after the other)
//!   and sets the bits of the unvisited targets wherever they live; then
//!   every GPU sends each other GPU the words of that GPU's range (NCCL send/receive in
//!   one group) and ORs what it received into its own part of the next frontier; or
//! - bottom-up: every unvisited vertex of a GPU's range looks for an in-neighbour in the
//!   frontier bitmap, a warp per bitmap word, the word written from the warp's ballot (the
//!   paper's compression), so nothing but the all-gather crosses GPUs.
//!
//! Then an all-gather of the parts makes the next frontier on every GPU, and an
//! all-reduce sums its vertices and out-arcs for the direction switch, which every GPU
//! takes alike: Beamer's rule ([`BfsOptions::alpha`], [`BfsOptions::beta`]) on the whole
//! graph's counts. After the last level an all-gather of the depths lets every GPU find
//! the parents of its range (a lane per vertex, a warp for one of more than 32 in-arcs;
//! depth 1 needs no search: its parent is the source), and an all-gather of the parents
//! brings the tree to rank 0.
//!
//! Each level costs a few kernels, two or three collectives and one wait of the host for
//! the counts; the graph is uploaded once for any number of sources.

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, PushKernelArg};
use cudarc::nccl::ReduceOp;

use super::super::{BfsOptions, BfsTree, Direction};
use crate::cuda::team::{self, nccl_err, Member, TeamSpec};
use crate::cuda::{gpu_err, launch_config, Gpu, KernelSource};
use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId};

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs_multi",
    source: include_str!("multi.cu"),
};

/// Threads per block of every kernel.
const THREADS: u32 = 256;

/// What a team search returns.
#[derive(Debug, Clone)]
pub struct TeamRuns {
    /// One tree per source, on the process that drives rank 0 (`None` elsewhere).
    pub trees: Vec<Option<BfsTree>>,
    /// One time per source: `seconds` from the start to the tree on rank 0's host,
    /// `kernel_seconds` to the tree in rank 0's GPU memory (kernels and collectives,
    /// CUDA events).
    pub times: Vec<RunTimes>,
    /// Levels of each search.
    pub levels: Vec<u32>,
    /// Seconds to set the team up: communicators, partition and upload.
    pub setup_seconds: f64,
}

/// How a graph is split: ranks own ranges of `seg` bitmap words.
#[derive(Debug, Clone, Copy)]
struct Partition {
    n: usize,
    world: usize,
    /// Bitmap words per rank.
    seg: usize,
}

impl Partition {
    fn new(n: usize, world: usize) -> Partition {
        let words = n.div_ceil(32).max(1);
        Partition {
            n,
            world,
            seg: words.div_ceil(world),
        }
    }

    /// Words of a whole bitmap (every rank's range, padded).
    fn words(&self) -> usize {
        self.seg * self.world
    }

    /// The vertices of `rank`.
    fn range(&self, rank: usize) -> std::ops::Range<usize> {
        let lo = (rank * self.seg * 32).min(self.n);
        lo..((rank + 1) * self.seg * 32).min(self.n)
    }
}

/// Device bytes rank `rank` of `world` needs to search `g`: its rows (twice for a
/// directed graph), three whole bitmaps and the received words, its queue, depths and
/// parents, and every vertex's depth and parent for the last step.
pub fn bytes_needed(g: &Graph, world: usize, rank: usize) -> u64 {
    let p = Partition::new(g.num_vertices(), world);
    let r = p.range(rank);
    let rows = |c: &Csr| 8 * (r.len() as u64 + 1) + 4 * (c.offsets()[r.end] - c.offsets()[r.start]);
    let graph = rows(g.out())
        + if g.is_directed() {
            rows(g.incoming())
        } else {
            0
        };
    let words = p.words() as u64;
    let local = 32 * p.seg as u64;
    graph
        + 4 * (3 * words + (world as u64 - 1) * p.seg as u64 + p.seg as u64)
        + 4 * 4 * local
        + 4 * 2 * 32 * words
        + 64
}

/// Breadth-first searches of `g` from every one of `sources` on the team `spec` (this
/// process's part of it); `opts` gives the direction and Beamer's switch.
///
/// # Errors
/// [`Error::InvalidArgument`] for a source out of range or bad switch values;
/// [`Error::OutOfMemory`] when a GPU cannot hold its part (on every rank, so none is left
/// waiting); [`Error::Nccl`] when NCCL is missing or fails; [`Error::Gpu`] for a driver
/// error.
pub fn bfs_team(
    spec: &TeamSpec,
    g: &Graph,
    sources: &[VertexId],
    opts: &BfsOptions,
) -> Result<TeamRuns> {
    let searches: Vec<(VertexId, BfsOptions)> = sources.iter().map(|&s| (s, *opts)).collect();
    bfs_team_each(spec, g, &searches)
}

/// As [`bfs_team`], each search with its own options, all on one setup of the team
/// (communicators and upload, which take much longer than a search of a small graph).
///
/// # Errors
/// As [`bfs_team`].
pub fn bfs_team_each(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
) -> Result<TeamRuns> {
    let n = g.num_vertices();
    for (s, opts) in searches {
        super::super::check_args(g, *s, opts)?;
    }
    if n >= u32::MAX as usize - 64 {
        return Err(Error::TooLarge {
            what: "vertices for the multi-GPU BFS".into(),
            value: n as u64,
            limit: u32::MAX as u64 - 64,
        });
    }
    let start = Instant::now();
    let part = Partition::new(n, spec.world);
    let ranks: Vec<usize> = (0..spec.gpus.len()).map(|i| spec.first_rank + i).collect();
    let per_rank = team::run(spec, ranks, |m, _| {
        let mut state = RankState::new(m, g, part)?;
        let setup = start.elapsed().as_secs_f64();
        let mut out = Vec::with_capacity(searches.len());
        for (s, opts) in searches {
            out.push(state.search(m, g, *s, opts)?);
        }
        Ok((setup, out))
    })?;
    let setup_seconds = per_rank.iter().map(|r| r.0).fold(0.0, f64::max);
    let mut runs = TeamRuns {
        trees: Vec::new(),
        times: Vec::new(),
        levels: Vec::new(),
        setup_seconds,
    };
    // Rank 0 holds the trees; the time of a search is the slowest local rank's.
    let mut per_rank = per_rank.into_iter().map(|r| r.1).collect::<Vec<_>>();
    for i in 0..searches.len() {
        let mut t = RunTimes::default();
        let mut kernel: f64 = 0.0;
        for r in &per_rank {
            t.seconds = t.seconds.max(r[i].times.seconds);
            kernel = kernel.max(r[i].times.kernel_seconds.unwrap_or(0.0));
        }
        t.kernel_seconds = Some(kernel);
        runs.times.push(t);
        runs.levels.push(per_rank[0][i].levels);
        runs.trees.push(per_rank[0][i].tree.take());
    }
    Ok(runs)
}

/// One search as a rank saw it.
struct RankRun {
    tree: Option<BfsTree>,
    times: RunTimes,
    levels: u32,
}

/// The compiled kernels.
struct Kernels {
    reset: CudaFunction,
    queue: CudaFunction,
    top_down: CudaFunction,
    top_down_big: CudaFunction,
    merge: CudaFunction,
    bottom_up: CudaFunction,
    visit: CudaFunction,
    parents: CudaFunction,
}

/// A rank's part of the graph and its search state.
struct RankState {
    k: Kernels,
    part: Partition,
    rank: usize,
    /// First vertex and vertices of this rank.
    lo: u32,
    nl: u32,
    /// Rows of this rank: out-arcs, and in-arcs (the same for an undirected graph).
    out: (CudaSlice<u64>, CudaSlice<u32>),
    incoming: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    front: CudaSlice<u32>,
    visited: CudaSlice<u32>,
    next: CudaSlice<u32>,
    /// What the other ranks found for this one (a buffer of seg words each), and the
    /// buffers' device addresses for the merge kernel.
    inbox: Vec<CudaSlice<u32>>,
    inbox_at: CudaSlice<u64>,
    own: CudaSlice<u32>,
    queue: CudaSlice<u32>,
    qlen: CudaSlice<u32>,
    /// The frontier's vertices of many arcs (expanded by the whole grid), and their number.
    big: CudaSlice<u32>,
    blen: CudaSlice<u32>,
    depth: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    all_depth: CudaSlice<u32>,
    all_parent: CudaSlice<u32>,
    stats: CudaSlice<u64>,
    blocks: u32,
}

impl RankState {
    fn new(m: &Member, g: &Graph, part: Partition) -> Result<RankState> {
        let gpu = &m.gpu;
        // Every rank checks and allocates, then all agree before the first collective.
        let made = Self::allocate(m, g, part);
        if !m.agree(made.is_ok())? {
            return Err(made.err().unwrap_or_else(|| {
                Error::Nccl("another GPU of the team could not set up its part".into())
            }));
        }
        let state = made?;
        gpu.stream().synchronize().map_err(gpu_err)?;
        Ok(state)
    }

    fn allocate(m: &Member, g: &Graph, part: Partition) -> Result<RankState> {
        let gpu = &m.gpu;
        let r = part.range(m.rank);
        gpu.check_memory(
            || {
                format!(
                    "rank {} of {}: BFS on vertices {}..{} of {}",
                    m.rank, m.world, r.start, r.end, part.n
                )
            },
            bytes_needed(g, m.world, m.rank),
        )?;
        let f = |name| gpu.function(&KERNELS, name);
        let k = Kernels {
            reset: f("mbfs_reset")?,
            queue: f("mbfs_queue")?,
            top_down: f("mbfs_top_down")?,
            top_down_big: f("mbfs_top_down_big")?,
            merge: f("mbfs_merge")?,
            bottom_up: f("mbfs_bottom_up")?,
            visit: f("mbfs_visit")?,
            parents: f("mbfs_parents")?,
        };
        let rows = |c: &Csr| -> Result<(CudaSlice<u64>, CudaSlice<u32>)> {
            let off = &c.offsets()[r.start..=r.end];
            let base = off[0];
            let local: Vec<u64> = off.iter().map(|&o| o - base).collect();
            let tgt = &c.targets()[base as usize..off[off.len() - 1] as usize];
            Ok((gpu.upload(&local)?, gpu.upload(tgt)?))
        };
        let words = part.words();
        let local = 32 * part.seg;
        let inbox = (1..m.world)
            .map(|_| gpu.zeros::<u32>(part.seg))
            .collect::<Result<Vec<_>>>()?;
        Ok(RankState {
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
            front: gpu.zeros(words)?,
            visited: gpu.zeros(words)?,
            next: gpu.zeros(words)?,
            inbox_at: gpu.upload(
                &inbox
                    .iter()
                    .map(|b| b.device_ptr(gpu.stream()).0)
                    .collect::<Vec<u64>>(),
            )?,
            inbox,
            own: gpu.zeros(part.seg)?,
            queue: gpu.zeros(local)?,
            qlen: gpu.zeros(1)?,
            big: gpu.zeros(local)?,
            blen: gpu.zeros(1)?,
            depth: gpu.zeros(local)?,
            parent: gpu.zeros(local)?,
            all_depth: gpu.zeros(32 * words)?,
            all_parent: gpu.zeros(32 * words)?,
            stats: gpu.zeros(2)?,
            blocks: gpu.info().multiprocessors * 8,
            k,
        })
    }

    /// One search from `source`, every rank of the team calling it alike.
    fn search(
        &mut self,
        m: &Member,
        g: &Graph,
        source: VertexId,
        opts: &BfsOptions,
    ) -> Result<RankRun> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let local = 32 * seg;
        let peers = (m.world - 1) as u32;
        let cfg = launch_config(self.blocks, THREADS);
        // Start together: the counts of a collective tell nothing, it only waits.
        m.agree(true)?;
        let timer = gpu.timer()?;
        {
            let mut b = stream.launch_builder(&self.k.reset);
            b.arg(&mut self.front)
                .arg(&mut self.visited)
                .arg(&words)
                .arg(&mut self.depth)
                .arg(&local)
                .arg(&source)
                .arg(&self.lo);
            // SAFETY: matches mbfs_reset; front and visited hold `words` words, depth
            // `local` entries.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        let n = self.part.n as u64;
        let alpha = u64::from(opts.alpha.max(1));
        let beta = u64::from(opts.beta.max(1));
        let (mut nf, mut mf) = (1u64, g.out().degree(source));
        let mut unexplored = g.out().num_arcs();
        let mut bottom_up = opts.direction == Direction::BottomUp;
        let mut level = 0u32;
        let mut counts = [0u64; 2];
        // The frontier before this one (Beamer: back to top-down only while shrinking).
        let mut prev_nf = 0u64;
        let trace = m.rank == 0 && std::env::var_os("WARPGRAPH_TRACE").is_some();
        while nf > 0 {
            bottom_up = match opts.direction {
                Direction::TopDown => false,
                Direction::BottomUp => true,
                Direction::Optimizing if !bottom_up => mf > unexplored / alpha,
                Direction::Optimizing => !(nf < n / beta && nf < prev_nf),
            };
            prev_nf = nf;
            unexplored = unexplored.saturating_sub(mf);
            stream.memset_zeros(&mut self.stats).map_err(gpu_err)?;
            if bottom_up {
                self.bottom_up_step(gpu, level, lo_word, seg)?;
            } else {
                self.top_down_step(m, level, lo_word, seg, peers)?;
            }
            // The next frontier on every rank, then visited |= front.
            m.comm
                .all_gather(&self.own, &mut self.front)
                .map_err(nccl_err)?;
            let mut b = stream.launch_builder(&self.k.visit);
            b.arg(&self.front).arg(&mut self.visited).arg(&words);
            // SAFETY: matches mbfs_visit; both bitmaps hold `words` words.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
            m.comm
                .all_reduce_in_place(&mut self.stats, &ReduceOp::Sum)
                .map_err(nccl_err)?;
            gpu.download_into(&self.stats, &mut counts)?;
            (nf, mf) = (counts[0], counts[1]);
            level += 1;
            if trace {
                eprintln!(
                    "level {level:>4} {} found {nf} vertices, {mf} arcs",
                    if bottom_up { "bottom-up" } else { "top-down " }
                );
            }
        }
        // Every depth on every rank, then each rank's parents, then every parent.
        m.comm
            .all_gather(&self.depth, &mut self.all_depth)
            .map_err(nccl_err)?;
        {
            let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
            let mut b = stream.launch_builder(&self.k.parents);
            b.arg(roff)
                .arg(rtgt)
                .arg(&self.nl)
                .arg(&local)
                .arg(&self.lo)
                .arg(&self.all_depth)
                .arg(&mut self.parent)
                .arg(&source);
            // SAFETY: matches mbfs_parents; the rows are this rank's nl vertices, parent
            // holds `local` entries, all_depth 32 * words (every vertex).
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        m.comm
            .all_gather(&self.parent, &mut self.all_parent)
            .map_err(nccl_err)?;
        let done = timer.kernels_done(gpu)?;
        let tree = if m.rank == 0 {
            let mut depth = vec![0u32; self.part.n];
            let mut parent = vec![0u32; self.part.n];
            gpu.download_into(&self.all_depth, &mut depth)?;
            gpu.download_into(&self.all_parent, &mut parent)?;
            Some(BfsTree {
                source,
                depth,
                parent,
            })
        } else {
            None
        };
        let times = timer.finish(&done)?;
        Ok(RankRun {
            tree,
            times: RunTimes {
                seconds: times.total_seconds,
                kernel_seconds: Some(times.kernel_seconds),
            },
            levels: level,
        })
    }

    fn bottom_up_step(&mut self, gpu: &Gpu, level: u32, lo_word: u32, seg: u32) -> Result<()> {
        let (roff, rtgt) = self.incoming.as_ref().unwrap_or(&self.out);
        let mut b = gpu.stream().launch_builder(&self.k.bottom_up);
        b.arg(roff)
            .arg(rtgt)
            .arg(&self.nl)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&self.front)
            .arg(&self.visited)
            .arg(&mut self.own)
            .arg(&mut self.depth)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut self.stats);
        // SAFETY: matches mbfs_bottom_up; own holds seg words, depth 32 * seg entries,
        // the bitmaps every word; targets are vertices below n.
        unsafe { b.launch(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    fn top_down_step(
        &mut self,
        m: &Member,
        level: u32,
        lo_word: u32,
        seg: u32,
        peers: u32,
    ) -> Result<()> {
        let stream = m.gpu.stream().clone();
        let cfg = launch_config(self.blocks, THREADS);
        stream.memset_zeros(&mut self.next).map_err(gpu_err)?;
        stream.memset_zeros(&mut self.qlen).map_err(gpu_err)?;
        stream.memset_zeros(&mut self.blen).map_err(gpu_err)?;
        let mut b = stream.launch_builder(&self.k.queue);
        b.arg(&self.front)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&self.out.0)
            .arg(&mut self.queue)
            .arg(&mut self.qlen)
            .arg(&mut self.big)
            .arg(&mut self.blen);
        // SAFETY: matches mbfs_queue; the queue holds 32 * seg entries, enough for every
        // vertex of the range.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        let mut b = stream.launch_builder(&self.k.top_down);
        b.arg(&self.out.0)
            .arg(&self.out.1)
            .arg(&self.queue)
            .arg(&self.qlen)
            .arg(&self.visited)
            .arg(&mut self.next);
        // SAFETY: matches mbfs_top_down; queued ids are local vertices of the rows.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        let mut b = stream.launch_builder(&self.k.top_down_big);
        b.arg(&self.out.0)
            .arg(&self.out.1)
            .arg(&self.big)
            .arg(&self.blen)
            .arg(&self.visited)
            .arg(&mut self.next);
        // SAFETY: matches mbfs_top_down_big; as above for the big list.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        if peers > 0 {
            // Each rank's words to that rank, in one group of sends and receives.
            let seg = seg as usize;
            let mut group = m.comm.group();
            let others = (0..m.world).filter(|&p| p != m.rank);
            for (p, slot) in others.zip(self.inbox.iter_mut()) {
                group
                    .send(self.next.slice(p * seg..(p + 1) * seg), p as i32)
                    .map_err(nccl_err)?;
                group.recv(slot.as_view_mut(), p as i32).map_err(nccl_err)?;
            }
            drop(group);
        }
        let mut b = stream.launch_builder(&self.k.merge);
        let nl = self.nl;
        b.arg(&self.next)
            .arg(&self.inbox_at)
            .arg(&peers)
            .arg(&lo_word)
            .arg(&seg)
            .arg(&nl)
            .arg(&self.visited)
            .arg(&mut self.own)
            .arg(&mut self.depth)
            .arg(&level)
            .arg(&self.out.0)
            .arg(&mut self.stats);
        // SAFETY: matches mbfs_merge; inbox_at holds the addresses of `peers` buffers of
        // seg words, own seg words.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        Ok(())
    }
}
