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
//! **Parallelisation**: top-down splits the frontier queue into chunks of up to 64 vertices;
//! each task buffers the vertices it claims in a local array and appends them to the next
//! queue with one atomic fetch-add per 1024 (GAPBS's `QueueBuffer`), so the queue needs no
//! lock. Bottom-up splits the vertices into 64-vertex blocks, one next-frontier word per
//! block, so every vertex, its parent, its depth and its bitmap word are written by exactly
//! one task and need no atomics.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use rayon::prelude::*;

use super::super::{check_args, BfsOptions, BfsTree, Direction, UNREACHED};
use crate::error::Result;
use crate::graph::{Csr, Graph, VertexId, NO_VERTEX};
use crate::memory;
use crate::par::SharedMut;

/// Frontier vertices per top-down task, at most (fewer when the frontier is small, so that
/// a handful of frontier vertices still spread over the threads).
const TD_CHUNK: usize = 64;
/// Claimed vertices a top-down task buffers before appending them to the next queue.
const TD_BUFFER: usize = 1024;
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
    check_args(g, source, opts)?;
    let n = g.num_vertices();
    // parent, depth, two queues of up to n vertices, two bitmaps.
    memory::check(
        || format!("BFS state for {n} vertices"),
        memory::bytes_for(n as u64, 16).saturating_add(memory::bytes_for(n as u64, 2) / 8),
    )?;

    // Run on a pool thread: a search forks many short parallel steps, and forking them from
    // a worker saves handing each one over from the calling thread and waiting for it.
    let (parent, depth) = rayon::scope(|_| run(g, source, opts));
    Ok(BfsTree {
        source,
        depth,
        parent,
    })
}

/// The search itself: returns the parent and depth arrays.
fn run(g: &Graph, source: VertexId, opts: &BfsOptions) -> (Vec<u32>, Vec<u32>) {
    let n = g.num_vertices();
    let (mut parent, mut depth) = rayon::join(|| filled(n, NO_VERTEX), || filled(n, UNREACHED));
    let s = source as usize;
    parent[s] = source;
    depth[s] = 0;

    let mut search = Search {
        g,
        n,
        parent: &mut parent,
        depth: &mut depth,
        queue: vec![source],
        spare: Vec::new(),
        front: Vec::new(),
        next: Vec::new(),
        level: 0,
    };
    match opts.direction {
        Direction::TopDown => {
            while !search.queue.is_empty() {
                search.top_down_step();
            }
        }
        Direction::BottomUp => {
            search.queue_to_bitmap();
            while search.bottom_up_step() > 0 {}
        }
        Direction::Optimizing => search.optimizing(opts),
    }
    (parent, depth)
}

/// The state of one search.
struct Search<'a> {
    g: &'a Graph,
    n: usize,
    parent: &'a mut [u32],
    depth: &'a mut [u32],
    /// The frontier as a queue (top-down), exactly the vertices of depth `level`.
    queue: Vec<u32>,
    /// The buffer the next queue is written into (its capacity is kept between steps).
    spare: Vec<u32>,
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
                scout_count = self.top_down_step();
            }
        }
    }

    /// One top-down step: the queue's vertices claim their unvisited out-neighbours, which
    /// become the next queue. Returns the number of arcs leaving the new frontier.
    fn top_down_step(&mut self) -> u64 {
        let out = self.g.out();
        let next_depth = self.level + 1;
        let parent = as_atomic(self.parent);
        let depth = as_atomic(self.depth);

        // Each vertex is claimed at most once, so n slots always suffice.
        self.spare.clear();
        self.spare.reserve(self.n);
        let slots = self.spare.spare_capacity_mut();
        let capacity = slots.len();
        let dst = SharedMut::new(slots);
        let tail = AtomicUsize::new(0);
        let chunk = (self.queue.len() / (4 * rayon::current_num_threads())).clamp(1, TD_CHUNK);

        let scout_count: u64 = self
            .queue
            .par_chunks(chunk)
            .map(|chunk| {
                let mut buf = [0u32; TD_BUFFER];
                let mut len = 0;
                let mut scout = 0u64;
                let flush = |buf: &[u32]| {
                    let start = tail.fetch_add(buf.len(), Relaxed);
                    debug_assert!(start + buf.len() <= capacity);
                    for (i, &v) in buf.iter().enumerate() {
                        // SAFETY: fetch_add hands every task a disjoint range of slots;
                        // the claims of one step are distinct unvisited vertices, so
                        // start + buf.len() <= n <= capacity; `slots` outlives the loop.
                        unsafe { dst.write(start + i, MaybeUninit::new(v)) };
                    }
                };
                for &u in chunk {
                    for &v in out.neighbors(u) {
                        let p = &parent[v as usize];
                        if p.load(Relaxed) == NO_VERTEX
                            && p.compare_exchange(NO_VERTEX, u, Relaxed, Relaxed).is_ok()
                        {
                            depth[v as usize].store(next_depth, Relaxed);
                            scout += out.degree(v);
                            buf[len] = v;
                            len += 1;
                            if len == TD_BUFFER {
                                flush(&buf);
                                len = 0;
                            }
                        }
                    }
                }
                flush(&buf[..len]);
                scout
            })
            .sum();

        let claimed = tail.into_inner();
        // SAFETY: slots 0..claimed were all written above (each reservation is filled by
        // the task that made it before the parallel loop returns) and claimed <= capacity.
        unsafe { self.spare.set_len(claimed.min(capacity)) };
        std::mem::swap(&mut self.queue, &mut self.spare);
        self.level = next_depth;
        scout_count
    }

    /// One bottom-up step: every unvisited vertex takes the first in-neighbour it finds in
    /// the frontier bitmap as its parent. Returns the number of vertices claimed.
    fn bottom_up_step(&mut self) -> u64 {
        let inc = self.g.incoming();
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
                    if let Some(u) = first_in_frontier(inc, base + i as u32, front) {
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
    }
}

/// The first in-neighbour of `v` that is in the frontier bitmap.
#[inline]
fn first_in_frontier(inc: &Csr, v: VertexId, front: &[AtomicU64]) -> Option<u32> {
    // Every target is < n (a CSR invariant) and the bitmap has n bits.
    inc.neighbors(v)
        .iter()
        .copied()
        .find(|&u| front[u as usize / 64].load(Relaxed) & (1 << (u % 64)) != 0)
}

/// A vector of `n` copies of `value`, written in parallel.
fn filled(n: usize, value: u32) -> Vec<u32> {
    let mut v = Vec::with_capacity(n);
    v.par_extend(rayon::iter::repeat_n(value, n));
    v
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
