//! Direction-optimising breadth-first search on every core.
//!
//! **Computes** the BFS tree of one source: every vertex's depth and a parent one level up.
//!
//! **Method** (Beamer, Asanovic and Patterson, "Direction-optimizing breadth-first search",
//! SC 2012; the structure follows GAPBS `bfs.cc`, Beamer, Asanovic and Patterson, "The GAP
//! benchmark suite", arXiv:1508.03619). The search advances one level per step, in one of
//! two directions:
//! - **top-down**: the frontier is a queue; each frontier vertex scans its out-arcs and
//!   claims every unvisited target with a compare-exchange on the target's parent, so each
//!   vertex is claimed exactly once. Cost: every arc leaving the frontier.
//! - **bottom-up**: the frontier is a bitmap; every unvisited vertex scans its *incoming*
//!   arcs ([`Graph::incoming`]: the same CSR for an undirected graph, the cached transpose
//!   for a directed one) and stops at the first one whose source is in the frontier. When
//!   the frontier is a large part of the graph, most vertices find a parent after a few
//!   arcs, so this scans far fewer arcs than top-down would.
//!
//! The switch (GAPBS's heuristic): go bottom-up when the arcs leaving the frontier (the
//! "scout count", summed over the vertices claimed in the last step) exceed the arcs not
//! yet explored divided by `alpha`; stay bottom-up while the frontier grows or holds more
//! than `n / beta` vertices, then convert the bitmap back into a queue and go top-down.
//!
//! **Encoding**: `parent[v] == NO_VERTEX` means "not visited yet" and is the only visited
//! test (one array read per arc); `depth[v]` is written by whoever claims `v`. Bitmaps hold
//! one bit per vertex in 64-bit words.
//!
//! **Parallelisation**: each run of consecutive top-down steps is worked by a *team*, one
//! long-lived task per pool thread (see [`TopDownRun`]). Each member appends the vertices
//! it claims to its own lane, the part of the next frontier that it works on first; it
//! takes chunks of up to 256 frontier vertices at a time through the lanes' atomic cursors,
//! so nothing needs a lock, and the last member to finish a step sets up the next.
//! Bottom-up splits the vertices into 64-vertex blocks, one next-frontier word per block,
//! so every vertex, its parent, its depth and its bitmap word are written by exactly one
//! task and need no atomics.

use std::cell::UnsafeCell;
use std::hint::spin_loop;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, SeqCst};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::super::{check_args, BfsOptions, BfsTree, Direction, UNREACHED};
use crate::error::Result;
use crate::graph::{Csr, Graph, VertexId, NO_VERTEX};
use crate::memory;
use crate::par::{premapped, Padded};

/// Frontier vertices per chunk a team member claims, at most (fewer when the frontier is
/// small, so that a handful of frontier vertices still spread over the threads).
const TD_CHUNK: usize = 256;
/// Arcs leaving a frontier, at least, before its step recruits the rest of the team: a
/// smaller step is over before a sleeping worker would wake up to help.
const TD_SHARE_ARCS: u64 = 1024;
/// How long a team member spins waiting for the next step before it goes to sleep, freeing
/// its core (for the member being waited for, should the machine be oversubscribed).
const SPIN_TIME: Duration = Duration::from_micros(200);
/// Bitmap words (64 vertices each) per bottom-up task, at least (GAPBS: 1024 vertices).
const BU_MIN_WORDS: usize = 16;
/// Bitmap words per task when a bitmap is turned into a queue.
const B2Q_WORDS: usize = 256;

/// Direction-optimising BFS from `source` (Beamer, Asanovic and Patterson, SC 2012, as in
/// GAPBS): top-down steps while the frontier is small, the frontier's vertices claiming
/// their unvisited out-neighbours with compare-exchanges; bottom-up steps while it is
/// large, every unvisited vertex scanning its in-neighbours for one in the frontier bitmap.
/// The source file's module comment gives the details.
///
/// # Arguments
/// - `g`: any graph (directed: along arcs; weights ignored).
/// - `source`: internal id of the start vertex.
/// - `opts`: [`Direction`] and the switching parameters `alpha` and `beta`.
///
/// # Returns
/// The [`BfsTree`]. Depths do not depend on the options or the thread count; parents may.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a source out of range or
/// `alpha` or `beta` of 0; [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the
/// search state does not fit.
///
/// # Complexity
/// O(n + m) work, O(n) memory (parent and depth arrays, two queues, two bitmaps), plus the
/// transpose of a directed graph the first time a bottom-up step needs it.
///
/// # Example
/// ```
/// use warpgraph::bfs::{cpu, BfsOptions, Direction};
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // A star around 0, and 4 hanging off leaf 3.
/// let g = EdgeList::new(5, vec![0, 0, 0, 3], vec![1, 2, 3, 4], Weights::None).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let opts = BfsOptions { direction: Direction::BottomUp, ..Default::default() };
/// let tree = cpu::direction_optimizing(&g, 4, &opts).unwrap();
/// assert_eq!(tree.depth, vec![2, 3, 3, 1, 0]);
/// assert_eq!(tree.parent, vec![3, 0, 0, 4, 4]);
/// ```
pub fn direction_optimizing(g: &Graph, source: VertexId, opts: &BfsOptions) -> Result<BfsTree> {
    let mut tree = BfsTree::default();
    direction_optimizing_into(g, source, opts, &mut tree)?;
    Ok(tree)
}

/// [`direction_optimizing`] into `tree`, whose vectors are reused when they hold one
/// entry per vertex (else replaced): a series of searches then writes over the same
/// pages instead of asking the system for fresh ones each time.
///
/// # Errors
/// As [`direction_optimizing`]; `tree` is then unchanged.
pub fn direction_optimizing_into(
    g: &Graph,
    source: VertexId,
    opts: &BfsOptions,
    tree: &mut BfsTree,
) -> Result<()> {
    check_args(g, source, opts)?;
    let n = g.num_vertices();
    // parent, depth, two queues of up to n vertices, two bitmaps.
    memory::check(
        || format!("BFS state for {n} vertices"),
        memory::bytes_for(n as u64, 16).saturating_add(memory::bytes_for(n as u64, 2) / 8),
    )?;

    // Run on a pool thread: a search forks many short parallel steps, and forking them from
    // a worker saves handing each one over from the calling thread and waiting for it.
    rayon::scope(|_| run(g, source, opts, &mut tree.parent, &mut tree.depth));
    tree.source = source;
    Ok(())
}

/// The search itself, into the parent and depth arrays.
fn run(
    g: &Graph,
    source: VertexId,
    opts: &BfsOptions,
    parent: &mut Vec<u32>,
    depth: &mut Vec<u32>,
) {
    let n = g.num_vertices();
    rayon::join(|| fill(parent, n, NO_VERTEX), || fill(depth, n, UNREACHED));
    let s = source as usize;
    parent[s] = source;
    depth[s] = 0;

    let mut search = Search {
        g,
        n,
        parent,
        depth,
        queue: vec![source],
        queue_arcs: None,
        front: Vec::new(),
        next: Vec::new(),
        level: 0,
    };
    match opts.direction {
        Direction::TopDown => {
            search.top_down_run(None, &mut 0);
        }
        Direction::BottomUp => {
            search.queue_to_bitmap();
            while search.bottom_up_step() > 0 {}
        }
        Direction::Optimizing => search.optimizing(opts),
    }
}

/// The state of one search.
struct Search<'a> {
    g: &'a Graph,
    n: usize,
    parent: &'a mut [u32],
    depth: &'a mut [u32],
    /// The frontier as a queue (top-down), exactly the vertices of depth `level`.
    queue: Vec<u32>,
    /// The arcs leaving the queue's vertices, when known (a top-down step counted them).
    queue_arcs: Option<u64>,
    /// The frontier as a bitmap (bottom-up), vertices of depth `level`.
    front: Vec<AtomicU64>,
    /// The next frontier's bitmap.
    next: Vec<AtomicU64>,
    /// The depth of the current frontier.
    level: u32,
}

impl Search<'_> {
    /// Beamer's direction switching (GAPBS `DOBFS`).
    fn optimizing(&mut self, opts: &BfsOptions) {
        let out = self.g.out();
        let alpha = u64::from(opts.alpha.max(1));
        let beta = opts.beta.max(1) as u64;
        let mut edges_to_check = out.num_arcs();
        let mut scout_count = self.queue.iter().map(|&v| out.degree(v)).sum::<u64>();
        self.queue_arcs = Some(scout_count);
        while !self.queue.is_empty() {
            if scout_count > edges_to_check / alpha {
                let mut awake = self.queue.len() as u64;
                self.queue_to_bitmap();
                loop {
                    let old = awake;
                    awake = self.bottom_up_step();
                    if awake == 0 || (awake < old && awake <= self.n as u64 / beta) {
                        break;
                    }
                }
                self.bitmap_to_queue();
                scout_count = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                scout_count = self.top_down_run(Some(alpha), &mut edges_to_check);
            }
        }
    }

    /// Top-down steps, one after another, until the frontier is empty or (with `alpha`)
    /// until Beamer's test picks bottom-up: the scout count exceeds `edges_to_check /
    /// alpha`; while it picks top-down, each step's scout count is taken off
    /// `edges_to_check`, as in [`Search::optimizing`]. Returns the last step's scout count:
    /// the number of arcs leaving the new frontier.
    fn top_down_run(&mut self, alpha: Option<u64>, edges_to_check: &mut u64) -> u64 {
        let team = rayon::current_num_threads().max(1);
        let len = self.queue.len();
        let mut lanes: Vec<Padded<Lane>> = (0..team).map(|_| Padded(Lane::default())).collect();
        // The frontier starts in the leader's lane.
        *lanes[0].0.bufs[0].get_mut() = std::mem::take(&mut self.queue);
        let run = TopDownRun {
            out: self.g.out(),
            parent: as_atomic(self.parent),
            depth: as_atomic(self.depth),
            alpha,
            state: Padded(AtomicU64::new(0)),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            step: Padded(Step {
                len: AtomicUsize::new(len),
                arcs: AtomicU64::new(self.queue_arcs.unwrap_or(u64::MAX)),
                chunk: AtomicUsize::new(chunk_size(len, team)),
                level: AtomicU32::new(self.level),
                edges_to_check: AtomicU64::new(*edges_to_check),
                scout: AtomicU64::new(0),
                lanes: AtomicUsize::new(1),
            }),
            lanes,
        };
        // The calling thread leads; the helpers it recruits are tasks of this scope.
        let end = rayon::scope(|scope| {
            let run = &run;
            run.work(
                0,
                Some(|| {
                    for _ in 1..team {
                        scope.spawn(move |_| run.help());
                    }
                }),
            )
        });

        let f = &run.step;
        let arcs = f.arcs.load(Relaxed);
        self.level = f.level.load(Relaxed);
        *edges_to_check = f.edges_to_check.load(Relaxed);
        self.queue_arcs = Some(arcs);
        // The new frontier: the lanes' parts, one after another.
        let parity = step_parity(end);
        let mut parts = run.lanes.into_iter().map(|lane| {
            let [even, odd] = lane.0.bufs.map(UnsafeCell::into_inner);
            if parity == 0 {
                even
            } else {
                odd
            }
        });
        self.queue = parts.next().unwrap_or_default();
        for part in parts {
            self.queue.extend_from_slice(&part);
        }
        arcs
    }

    /// One bottom-up step: every unvisited vertex takes the first in-neighbour it finds in
    /// the frontier bitmap as its parent. Returns the number of vertices claimed.
    fn bottom_up_step(&mut self) -> u64 {
        let inc = self.g.incoming();
        // Plain slices, taken once: reaching them through the graph's buffers (owned or
        // mapped, a branch and a few loads each time) per vertex made a whole search 4%
        // slower (Kronecker 18, 2 threads).
        let (offsets, targets) = (inc.offsets(), inc.targets());
        let next_depth = self.level + 1;
        let front = &self.front[..];
        let awake = self
            .next
            .par_iter()
            .zip(self.parent.par_chunks_mut(64))
            .zip(self.depth.par_chunks_mut(64))
            .enumerate()
            .with_min_len(BU_MIN_WORDS)
            .map(|(w, ((word, parents), depths))| {
                let base = (w * 64) as u32;
                let mut bits = 0u64;
                for (i, (p, d)) in parents.iter_mut().zip(depths.iter_mut()).enumerate() {
                    if *p != NO_VERTEX {
                        continue;
                    }
                    let v = base as usize + i;
                    let arcs = offsets[v] as usize..offsets[v + 1] as usize;
                    if let Some(u) = first_in_frontier(&targets[arcs], front) {
                        *p = u;
                        *d = next_depth;
                        bits |= 1 << i;
                    }
                }
                word.store(bits, Relaxed);
                u64::from(bits.count_ones())
            })
            .sum();
        std::mem::swap(&mut self.front, &mut self.next);
        self.level = next_depth;
        awake
    }

    /// Makes the bitmap frontier from the queue. The front bitmap is all zeros here: fresh,
    /// or cleared by [`Search::bitmap_to_queue`]. (The next bitmap needs no clearing: a
    /// bottom-up step writes every word.)
    fn queue_to_bitmap(&mut self) {
        let words = self.n.div_ceil(64);
        if self.front.len() != words {
            self.front = (0..words).map(|_| AtomicU64::new(0)).collect();
            self.next = (0..words).map(|_| AtomicU64::new(0)).collect();
        }
        let front = &self.front;
        self.queue.par_iter().with_min_len(1024).for_each(|&v| {
            front[v as usize / 64].fetch_or(1 << (v % 64), Relaxed);
        });
    }

    /// Makes the queue frontier from the bitmap, in increasing vertex order, and clears
    /// the bitmap: each task counts the bits of its words, a prefix sum places the tasks,
    /// then each writes its vertices.
    fn bitmap_to_queue(&mut self) {
        let front = &self.front[..];
        let counts: Vec<usize> = front
            .par_chunks(B2Q_WORDS)
            .map(|c| {
                c.iter()
                    .map(|w| w.load(Relaxed).count_ones() as usize)
                    .sum()
            })
            .collect();
        let total: usize = counts.iter().sum();
        self.queue.clear();
        self.queue.reserve(total);
        let mut rest = &mut self.queue.spare_capacity_mut()[..total];
        let mut parts = Vec::with_capacity(counts.len());
        for &c in &counts {
            let (head, tail) = rest.split_at_mut(c);
            parts.push(head);
            rest = tail;
        }
        parts
            .into_par_iter()
            .zip(front.par_chunks(B2Q_WORDS))
            .enumerate()
            .for_each(|(i, (part, words))| {
                let vertices = words.iter().enumerate().flat_map(|(j, word)| {
                    let base = ((i * B2Q_WORDS + j) * 64) as u32;
                    let mut bits = word.load(Relaxed);
                    std::iter::from_fn(move || {
                        (bits != 0).then(|| {
                            let b = bits.trailing_zeros();
                            bits &= bits - 1;
                            base + b
                        })
                    })
                });
                for (slot, v) in part.iter_mut().zip(vertices) {
                    slot.write(v);
                }
                for word in words {
                    word.store(0, Relaxed);
                }
            });
        // SAFETY: the parts tile queue[..total] and part i received exactly counts[i]
        // vertices: the bits its words held when counted (nothing else writes the bitmap
        // meanwhile, and a task clears its words only after reading them).
        unsafe { self.queue.set_len(total) };
        self.queue_arcs = None;
    }
}

/// A run of consecutive top-down steps, worked by a team of the pool's threads.
///
/// Why a team: a road network's search is thousands of top-down steps of a few
/// microseconds each. Forked as rayon tasks step by step, they left the other workers
/// asleep (rayon parks an idle worker quickly, and waking one takes tens of microseconds),
/// so one thread did all the work. The team's threads stay for the whole run instead and
/// spin between steps, as OpenMP's do between GAPBS's parallel regions.
///
/// The thread that starts the run leads: it works every step and, at the first step with
/// enough work to share, recruits the rest of the pool as helpers (rayon tasks). A member
/// joins a step (counting itself busy in `state`), claims chunks of the frontier until
/// none is left, and leaves the step; the last member to leave closes it, sets up the next
/// step and opens that. A step therefore waits only for the members that joined it, all of
/// which are working on it: a helper that starts late, never (every thread busy elsewhere)
/// or after the run, or that the operating system preempts between steps, holds nobody up,
/// and nothing can deadlock. (Members call nothing that blocks on rayon tasks.)
///
/// Each member has a [`Lane`]: the vertices it claims in one step become its lane's part
/// of the next frontier, and it works through its own part first, before helping with the
/// others'. (In a step of parity `p`, the members read the lanes' `bufs[p]` and each
/// appends to its own lane's `bufs[p ^ 1]`; between steps only the member setting up the
/// next one touches the lanes.) So a thread mostly stays with the same region of the graph, whose cache lines
/// stay in its core's caches. (With one shared queue, where the regions changed hands at
/// random every step, the road network's search took a quarter longer on two threads.)
struct TopDownRun<'a> {
    out: &'a Csr,
    parent: &'a [AtomicU32],
    depth: &'a [AtomicU32],
    /// `alpha` of Beamer's test, or `None` for top-down to the end.
    alpha: Option<u64>,
    /// The step counter, the step's state and its busy members: see [`BUSY`].
    state: Padded<AtomicU64>,
    /// Members asleep, waiting for `wake` (see [`TopDownRun::wait_for_step_after`]).
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    step: Padded<Step>,
    /// One lane per member, as many as the pool has threads; the leader's is the first.
    lanes: Vec<Padded<Lane>>,
}

/// The current step of a [`TopDownRun`]: written only while no step is open, by the member
/// that closed the last step (Relaxed atomics, ordered by its release of `state`), except
/// `scout` and `lanes`.
struct Step {
    /// Frontier vertices, in all lanes.
    len: AtomicUsize,
    /// Arcs leaving them (`u64::MAX` when not counted).
    arcs: AtomicU64,
    /// Frontier vertices per claim.
    chunk: AtomicUsize,
    /// Their depth.
    level: AtomicU32,
    /// Beamer's `edges_to_check`.
    edges_to_check: AtomicU64,
    /// The arcs leaving the vertices claimed so far.
    scout: AtomicU64,
    /// Lanes taken by members.
    lanes: AtomicUsize,
}

/// A member's share of the queues of a [`TopDownRun`]. In step `k`, `bufs[k % 2]` holds
/// the lane's part of the frontier (what its member claimed in step `k - 1`), and the
/// member appends what it claims to `bufs[(k + 1) % 2]`, which the member that set up the
/// step emptied.
#[derive(Default)]
struct Lane {
    bufs: [UnsafeCell<Vec<u32>>; 2],
    /// The position in the lane's part of the frontier of the next chunk to claim.
    cursor: AtomicUsize,
}

// SAFETY: the buffers are only reached through `part` and `output`, whose callers keep
// shared and exclusive references to a buffer apart.
unsafe impl Sync for Lane {}

impl Lane {
    /// The lane's part of the frontier of a step of parity `parity`: `bufs[parity]`.
    ///
    /// # Safety
    /// No `output(parity ^ 1)` (the same buffer) lives meanwhile.
    unsafe fn part(&self, parity: usize) -> &[u32] {
        &*self.bufs[parity].get()
    }

    /// The lane's output in a step of parity `parity`: `bufs[parity ^ 1]`.
    ///
    /// # Safety
    /// No other reference to the same buffer (`part(parity ^ 1)` or another
    /// `output(parity)`) lives meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn output(&self, parity: usize) -> &mut Vec<u32> {
        &mut *self.bufs[parity ^ 1].get()
    }
}

// The state word of a run: bits 0..32 count the members busy with the current step, bit 32
// says that the step is closed (its work done, the next one being set up), bit 33 that the
// run is over, and bits 34..64 number the steps (modulo 2^30: only changes and parity
// matter).
const BUSY: u64 = 1;
const CLOSED: u64 = 1 << 32;
const OVER: u64 = 1 << 33;
const STEP: u64 = 1 << 34;

fn busy(state: u64) -> u64 {
    state & (CLOSED - 1)
}

fn step_parity(state: u64) -> usize {
    (state / STEP) as usize & 1
}

impl TopDownRun<'_> {
    /// Works the run as a helper in a lane of its own, unless the run is over.
    fn help(&self) {
        if self.state.load(Relaxed) & OVER == 0 {
            let lane = self.step.lanes.fetch_add(1, Relaxed);
            self.work(lane, None::<fn()>);
        }
    }

    /// Works steps as the member of lane `lane` until the run is over; `recruit` (the
    /// leader's) is called at the first step with enough work to share. Returns the final
    /// state word.
    fn work(&self, lane: usize, mut recruit: Option<impl FnOnce()>) -> u64 {
        let mut state = self.state.load(Acquire);
        while state & OVER == 0 {
            if state & CLOSED != 0 {
                state = self.wait_for_step_after(state);
            } else if let Err(now) =
                self.state
                    .compare_exchange_weak(state, state + BUSY, Acquire, Relaxed)
            {
                state = now;
            } else {
                let f = &self.step;
                if f.len.load(Relaxed) > f.chunk.load(Relaxed)
                    && f.arcs.load(Relaxed) >= TD_SHARE_ARCS
                {
                    if let Some(recruit) = recruit.take() {
                        recruit();
                    }
                }
                let scout = self.expand(step_parity(state), lane);
                f.scout.fetch_add(scout, Relaxed);
                state = self.leave(state + BUSY);
            }
        }
        state
    }

    /// Claims chunks of the frontier of the step this member is busy with (`parity`),
    /// starting with its own lane's part, until none is left: the chunks' vertices claim
    /// their unvisited out-neighbours, which go to the lane's output. Returns the number of
    /// arcs leaving the vertices claimed.
    fn expand(&self, parity: usize, lane: usize) -> u64 {
        let f = &self.step;
        let chunk = f.chunk.load(Relaxed);
        let next_depth = f.level.load(Relaxed) + 1;
        let lanes = &self.lanes[..f.lanes.load(Relaxed).min(self.lanes.len())];
        // SAFETY: this member is the lane's only one, and while it is busy with the step
        // nobody sets up the next; `part` below reads the other parity.
        let out = unsafe { self.lanes[lane].output(parity) };
        // Plain slices in locals, which the compiler keeps in registers across the atomics.
        let (offsets, targets) = (self.out.offsets(), self.out.targets());
        let (parent, depth) = (self.parent, self.depth);
        let mut scout = 0;
        for victim in lanes[lane..].iter().chain(&lanes[..lane]) {
            // SAFETY: the step is open and this member busy with it: nobody sets up the
            // next step, and the members' outputs have the other parity.
            let part = unsafe { victim.part(parity) };
            // (A load first, which leaves the cursor's line shared once the part is done.)
            while victim.cursor.load(Relaxed) < part.len() {
                let start = victim.cursor.fetch_add(chunk, Relaxed);
                if start >= part.len() {
                    break;
                }
                for &u in &part[start..part.len().min(start + chunk)] {
                    let arcs = offsets[u as usize] as usize..offsets[u as usize + 1] as usize;
                    for &v in &targets[arcs] {
                        let p = &parent[v as usize];
                        if p.load(Relaxed) == NO_VERTEX
                            && p.compare_exchange(NO_VERTEX, u, Relaxed, Relaxed).is_ok()
                        {
                            depth[v as usize].store(next_depth, Relaxed);
                            scout += offsets[v as usize + 1] - offsets[v as usize];
                            out.push(v);
                        }
                    }
                }
            }
        }
        scout
    }

    /// Leaves the step this member is busy with (`state`: a recent state word). The last
    /// member to leave closes the step and opens the next one; the others wait for that.
    /// Returns the state word of the next step.
    fn leave(&self, mut state: u64) -> u64 {
        loop {
            let last = busy(state) == 1;
            let left = if last {
                state - BUSY + CLOSED
            } else {
                state - BUSY
            };
            // AcqRel: releases this member's work on the step; the last member acquires
            // everybody's.
            match self
                .state
                .compare_exchange_weak(state, left, AcqRel, Relaxed)
            {
                Ok(_) if last => return self.open_next_step(left),
                Ok(_) => return self.wait_for_step_after(left),
                Err(now) => state = now,
            }
        }
    }

    /// With the step closed (`closed`: the state word): makes the lanes' outputs the next
    /// frontier, decides whether the run goes on, and publishes the outcome. Returns the
    /// new state word: the next step open, or the run over.
    fn open_next_step(&self, closed: u64) -> u64 {
        let f = &self.step;
        let parity = step_parity(closed);
        let mut len = 0;
        for lane in &self.lanes[..f.lanes.load(Relaxed).min(self.lanes.len())] {
            // SAFETY: the step is closed: no member uses the lanes until the next opens,
            // and the closing member acquired everything they wrote.
            len += unsafe { lane.part(parity ^ 1) }.len();
            // SAFETY: as above; the output of the next step is this step's part.
            unsafe { lane.output(parity ^ 1) }.clear();
            lane.cursor.store(0, Relaxed);
        }
        let arcs = f.scout.swap(0, Relaxed);
        f.len.store(len, Relaxed);
        f.arcs.store(arcs, Relaxed);
        f.chunk.store(chunk_size(len, self.lanes.len()), Relaxed);
        f.level.fetch_add(1, Relaxed);
        let mut go_on = len > 0;
        if let (true, Some(alpha)) = (go_on, self.alpha) {
            let edges = f.edges_to_check.load(Relaxed);
            go_on = arcs <= edges / alpha;
            if go_on {
                f.edges_to_check.store(edges - arcs, Relaxed);
            }
        }

        let next = (closed - CLOSED).wrapping_add(STEP) | if go_on { 0 } else { OVER };
        self.state.store(next, SeqCst);
        if self.sleepers.load(SeqCst) > 0 {
            // Taking the lock waits until every sleeper is really waiting.
            let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.wake.notify_all();
        }
        next
    }

    /// Waits until the step counter of the state word has moved past that of `old` (or
    /// the run is over), spinning for [`SPIN_TIME`], then asleep. Returns the new state
    /// word.
    fn wait_for_step_after(&self, old: u64) -> u64 {
        let moved = |state: u64| state / STEP != old / STEP || state & OVER != 0;
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                let state = self.state.load(Acquire);
                if moved(state) {
                    return state;
                }
                spin_loop();
            }
            if start.elapsed() > SPIN_TIME {
                break;
            }
        }
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // SeqCst, here and in `open_next_step`: either the member opening the next step
        // sees this sleeper, or this sleeper sees the new step.
        self.sleepers.fetch_add(1, SeqCst);
        loop {
            let state = self.state.load(SeqCst);
            if moved(state) {
                self.sleepers.fetch_sub(1, Relaxed);
                return state;
            }
            guard = self
                .wake
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Frontier vertices per claim for a frontier of `len` vertices and a team of `team`
/// threads: [`TD_CHUNK`], or fewer so that every thread gets a few chunks.
fn chunk_size(len: usize, team: usize) -> usize {
    (len / (4 * team)).clamp(1, TD_CHUNK)
}

/// The first of the in-neighbours `sources` (of one vertex) that is in the frontier bitmap.
#[inline]
fn first_in_frontier(sources: &[u32], front: &[AtomicU64]) -> Option<u32> {
    // Every source is < n (a CSR invariant) and the bitmap has n bits.
    sources
        .iter()
        .copied()
        .find(|&u| front[u as usize / 64].load(Relaxed) & (1 << (u % 64)) != 0)
}

/// Makes `v` `n` copies of `value`, written in parallel: over its own entries when it
/// has `n`, else a fresh vector ([`premapped`]).
fn fill(v: &mut Vec<u32>, n: usize, value: u32) {
    if v.len() == n {
        v.par_iter_mut().for_each(|x| *x = value);
    } else {
        *v = premapped(n, value);
    }
}

const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());

/// Views an exclusively borrowed `u32` slice as atomics (what the unstable
/// `AtomicU32::from_mut_slice` does).
fn as_atomic(s: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the size and bit validity of u32, and the same alignment (the
    // assertion above); the exclusive borrow guarantees that no non-atomic access happens
    // while the atomic view lives.
    unsafe { &*(s as *mut [u32] as *const [AtomicU32]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::verify;
    use crate::generate::{generate, GenerateOptions, Generator};

    /// The team in pools of 1 to 8 threads (more than this machine may have cores), called
    /// from outside the pool, from inside its tasks (teams nested in busy workers) and from
    /// several threads at once: every tree verifies, with the depths of one thread's.
    #[test]
    fn teams_in_every_setting() {
        let graphs = [
            // Long runs of top-down steps with enough work to recruit helpers.
            Generator::Grid {
                rows: 300,
                cols: 200,
                remove: 0.1,
                shortcuts: 3,
            },
            // Short runs between bottom-up steps.
            Generator::Kronecker {
                scale: 12,
                edge_factor: 16,
            },
        ];
        let pool = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        };
        let one = pool(1);
        for gen in graphs {
            let g = generate(&gen, &GenerateOptions::default()).unwrap();
            let sources: Vec<u32> = (0..6).map(|i| i * 1237 % g.num_vertices() as u32).collect();
            let options = [
                BfsOptions::default(),
                BfsOptions {
                    direction: Direction::TopDown,
                    ..Default::default()
                },
            ];
            for opts in &options {
                let search = |s: u32| {
                    let tree = direction_optimizing(&g, s, opts).unwrap();
                    verify(&g, &tree).unwrap();
                    tree.depth
                };
                let expected: Vec<Vec<u32>> =
                    sources.iter().map(|&s| one.install(|| search(s))).collect();
                for threads in [2, 3, 8] {
                    let pool = pool(threads);
                    for (&s, depth) in sources.iter().zip(&expected) {
                        assert_eq!(&pool.install(|| search(s)), depth);
                    }
                    pool.install(|| {
                        sources.par_iter().zip(&expected).for_each(|(&s, depth)| {
                            assert_eq!(&search(s), depth);
                        })
                    });
                    std::thread::scope(|scope| {
                        for (&s, depth) in sources.iter().zip(&expected) {
                            let (pool, search) = (&pool, &search);
                            scope.spawn(move || assert_eq!(&pool.install(|| search(s)), depth));
                        }
                    });
                }
            }
        }
    }
}
