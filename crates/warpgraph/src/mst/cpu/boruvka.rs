//! Borůvka's minimum spanning forest, in parallel rounds.
//!
//! **Computes** the minimum spanning forest under the family's total order
//! `(weight, smaller endpoint, larger endpoint)`: the same edges as Kruskal.
//!
//! **Method** (Borůvka 1926; the data-parallel formulation of Vineet, Harish, Patidar and
//! Narayanan, "Fast minimum spanning tree for large graphs on the GPU", HPG 2009). Each
//! round, every component takes its lightest outgoing edge; under a
//! strict total order all of these belong to the forest (cut property), and the "my lightest
//! edge leads to" successor graph has no cycles but mutual pairs (two components choosing
//! the same edge), where the smaller id stays the root. The other components hook onto
//! their successors, pointer jumping (`c = parent[parent[c]]` until nothing changes) takes
//! every component to its root, and the roots are numbered densely (`0..k`, in increasing
//! order) so that the next round's arrays shrink with the component count. At least half
//! of the components that still have an outgoing edge merge each round, so there are at
//! most log2(n) rounds.
//! - **Round 1** is vertex-centric on the CSR: every vertex scans its own row for its
//!   lightest non-loop arc, with no atomics. Within one row the total order is just
//!   `(weight, neighbour)`, so no global key is needed yet.
//! - **Later rounds** are edge-centric on an explicit list of the edges between different
//!   components, `(component a, component b, key)`, each edge once, in blocks. Every entry
//!   lowers `best[a]` and `best[b]` with an atomic minimum on the 64-bit key (a load
//!   first, a compare-exchange only when smaller). After contraction each block is
//!   filtered in place, in the same pass as the next round's minima: edges now inside one
//!   component are dropped for good, so later rounds scan ever fewer edges.
//! - **Keys.** The total order becomes integers: an edge is named by its canonical arc
//!   `u -> v`, `u < v`, whose CSR index runs in `(u, v)` order (rows are sorted), and
//!   compares by (weight key, arc index). When the spread of the weight keys fits beside
//!   the arc index in 63 bits, one packed `u64` per edge does, `(weight key - smallest) <<
//!   bits(m) | arc`, and one atomic minimum per component finds the lightest edge. Wider
//!   weights (`f64`, large `i64`) keep both words and take two passes: the minimum weight
//!   key per component, then the minimum arc among the entries that reach it.
//! - **Directed graphs** are first symmetrised (every arc becomes an undirected edge,
//!   parallel edges kept, self loops dropped) and then handled as undirected.
//!
//! **Parallelisation**: every step is a rayon loop over vertices, components or edges;
//! the only shared writes are the atomic minima on `best` and pointer jumping on the
//! atomic parent array (a racy read sees either the old or the new ancestor, both on the
//! path to the root, so the result is the same).

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::super::order::{bits, with_arc_weights, ArcWeights, EdgeWeight};
use super::super::{assemble_sorted, symmetrise, ArcEnds, SpanningForest};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, NO_VERTEX};
use crate::memory;

/// "No arc" / "no key".
const NONE: u64 = u64::MAX;
/// Vertices per block of the first edge list.
const VERTEX_BLOCK: usize = 1024;

/// Borůvka's minimum spanning forest, in parallel rounds: every component takes its
/// lightest outgoing edge (a scan of each vertex's row in round 1, then atomic minima over
/// a list of the edges between components, filtered as components merge), components hook
/// onto their choices and are contracted by pointer jumping. The source file's module
/// comment gives the details.
///
/// # Arguments
/// - `g`: any graph (directed graphs are read as undirected, unweighted ones weigh 1 per
///   edge, self loops are ignored).
///
/// # Returns
/// The [`SpanningForest`], identical to [`kruskal`](super::kruskal)'s.
///
/// # Errors
/// [`Error::Overflow`] when the total does not fit;
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the edge list (16 bytes per
/// edge, 24 for wide weights; filtered in place) or, for a directed graph, its
/// symmetrised copy does not fit.
///
/// # Complexity
/// O(m) work per round, at most log2(n) rounds, in parallel; in practice the edge list
/// shrinks quickly. O(n + m) memory.
///
/// # Example
/// ```
/// use warpgraph::mst::cpu;
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // Two triangles joined by the edge 2 -- 3 of weight 9; 4 -- 5 has a parallel copy.
/// let g = EdgeList::new(6,
///     vec![0, 1, 0, 2, 3, 4, 3, 4],
///     vec![1, 2, 2, 3, 4, 5, 5, 5],
///     Weights::I32(vec![1, 1, 5, 9, -2, 7, 6, 3].into())).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let forest = cpu::boruvka(&g).unwrap();
/// assert_eq!(forest.edges, vec![(3, 4), (0, 1), (1, 2), (4, 5), (2, 3)]);
/// assert_eq!(forest.weights, Weights::I32(vec![-2, 1, 1, 3, 9].into()));
/// ```
pub fn boruvka(g: &Graph) -> Result<SpanningForest> {
    if g.is_directed() {
        let view = symmetrise(g)?;
        return boruvka(&view);
    }
    // Run on a pool thread: the rounds fork many parallel loops, and forking them from a
    // worker saves handing each one over from the calling thread and waiting for it.
    with_arc_weights!(g.out().weights(), w => rayon::scope(|_| run(g, w)))
}

/// An edge's place in the total order, as the edge-centric rounds compare it.
trait OrderKey: Copy + Send + Sync {
    /// Whether the minimum takes a second pass over `lo` (the key needs two words).
    const TWO_PASS: bool;
    /// The word compared first (the only one when `TWO_PASS` is false).
    fn hi(self) -> u64;
    /// The word compared among keys with equal `hi`: the canonical arc index.
    fn lo(self) -> u64;
    /// The canonical arc of the minimum whose words are `hi` and `lo`.
    fn arc(hi: u64, lo: u64, shift: u32) -> usize;
    /// A key for the unused slots of the edge list (never read).
    fn filler() -> Self;
}

/// `(weight key - smallest) << shift | arc`, below 2^63 (so never [`NONE`]).
#[derive(Debug, Clone, Copy)]
struct Packed(u64);

impl OrderKey for Packed {
    const TWO_PASS: bool = false;
    fn hi(self) -> u64 {
        self.0
    }
    fn lo(self) -> u64 {
        0
    }
    fn arc(hi: u64, _: u64, shift: u32) -> usize {
        (hi & mask(shift)) as usize
    }
    fn filler() -> Self {
        Packed(NONE)
    }
}

/// The weight key and the arc, for weights too wide to pack.
#[derive(Debug, Clone, Copy)]
struct Wide {
    weight: u64,
    arc: u64,
}

impl OrderKey for Wide {
    const TWO_PASS: bool = true;
    fn hi(self) -> u64 {
        self.weight
    }
    fn lo(self) -> u64 {
        self.arc
    }
    fn arc(_: u64, lo: u64, _: u32) -> usize {
        lo as usize
    }
    fn filler() -> Self {
        Wide {
            weight: NONE,
            arc: NONE,
        }
    }
}

/// One edge between two different components, for the edge-centric rounds.
#[derive(Debug, Clone, Copy)]
struct Entry<K> {
    /// The edge's place in the total order.
    key: K,
    /// The components of its ends.
    a: u32,
    b: u32,
}

/// Every component's lightest outgoing edge, as the words of its key. A component without
/// one has `lo == NONE` in two-pass mode and `hi == NONE` otherwise.
struct Best {
    hi: Vec<AtomicU64>,
    lo: Vec<AtomicU64>,
}

impl Best {
    fn new(k: usize, two_pass: bool) -> Best {
        let fresh = |len: usize| {
            (0..len)
                .into_par_iter()
                .map(|_| AtomicU64::new(NONE))
                .collect()
        };
        Best {
            hi: fresh(k),
            lo: fresh(if two_pass { k } else { 0 }),
        }
    }

    /// Clears the first `k` components (the first pass's words only).
    fn reset_hi(&self, k: usize) {
        self.hi[..k].par_iter().for_each(|x| x.store(NONE, Relaxed));
    }

    /// First pass: lowers both ends' `hi` to this entry's.
    #[inline]
    fn offer<K: OrderKey>(&self, e: &Entry<K>) {
        lower(&self.hi[e.a as usize], e.key.hi());
        lower(&self.hi[e.b as usize], e.key.hi());
    }

    /// Second pass (two-pass keys only): among the entries whose `hi` is the minimum,
    /// the smallest arc.
    fn second_pass<K: OrderKey>(&self, edges: &mut EdgeBlocks<K>, k: usize) {
        if !K::TWO_PASS {
            return;
        }
        self.lo[..k].par_iter().for_each(|x| x.store(NONE, Relaxed));
        edges.blocks().into_par_iter().for_each(|(block, len)| {
            for e in &block[..*len] {
                for c in [e.a, e.b] {
                    if self.hi[c as usize].load(Relaxed) == e.key.hi() {
                        lower(&self.lo[c as usize], e.key.lo());
                    }
                }
            }
        });
    }

    /// The canonical arc component `c` chose, if it has an outgoing edge.
    fn chosen<K: OrderKey>(&self, c: usize, shift: u32) -> Option<usize> {
        let hi = self.hi[c].load(Relaxed);
        if K::TWO_PASS {
            let lo = self.lo[c].load(Relaxed);
            (lo != NONE).then(|| K::arc(hi, lo, shift))
        } else {
            (hi != NONE).then(|| K::arc(hi, 0, shift))
        }
    }
}

/// Borůvka on an undirected graph.
fn run<A: ArcWeights>(g: &Graph, w: A) -> Result<SpanningForest> {
    let n = g.num_vertices();
    let out = g.out();
    let targets = out.targets();
    let mut forest: Vec<(VertexId, VertexId, A::W)> = Vec::new();

    // Round 1, vertex-centric: each vertex's lightest arc by (weight, neighbour), as
    // (weight key, neighbour), and the range of the weight keys on the way.
    let mut choice = vec![(0u64, NO_VERTEX); n];
    let (lo, hi) = choice
        .par_iter_mut()
        .enumerate()
        .map(|(u, slot)| {
            let u = u as u32;
            let row = out.row(u);
            let (mut lo, mut hi) = (NONE, 0);
            for (arc, &v) in row.clone().zip(&targets[row]) {
                if v != u {
                    let k = w.at(arc).key();
                    (lo, hi) = (lo.min(k), hi.max(k));
                    // Rows are sorted by neighbour, so on equal weights the first arc wins.
                    if slot.1 == NO_VERTEX || k < slot.0 {
                        *slot = (k, v);
                    }
                }
            }
            (lo, hi)
        })
        .reduce(|| (NONE, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let succ: Vec<u32> = choice
        .par_iter()
        .enumerate()
        .map(|(u, &(_, v))| if v == NO_VERTEX { u as u32 } else { v })
        .collect();
    let parent = hook(&succ, &mut forest, |u| {
        let (key, v) = choice[u];
        (u as u32, v, A::W::from_key(key))
    });
    drop((choice, succ));
    let (label, k) = contract(parent)?;

    // Later rounds, edge-centric on the edges between different components.
    let shift = bits(targets.len().saturating_sub(1) as u64);
    if packs(lo, hi, shift) {
        let min = lo.min(hi);
        let key = |arc: usize| {
            Packed((w.at(arc).key() - min).checked_shl(shift).unwrap_or(0) | arc as u64)
        };
        later_rounds(g, w, &mut forest, label, k, shift, key)?;
    } else {
        let key = |arc: usize| Wide {
            weight: w.at(arc).key(),
            arc: arc as u64,
        };
        later_rounds(g, w, &mut forest, label, k, shift, key)?;
    }

    assemble_sorted(n, forest)
}

/// The edge-centric rounds, after round 1 left the components `label` (`k` of them):
/// appends the forest edges they find to `forest`. `key(arc)` is the canonical arc's key.
fn later_rounds<A: ArcWeights, K: OrderKey>(
    g: &Graph,
    w: A,
    forest: &mut Vec<(VertexId, VertexId, A::W)>,
    mut label: Vec<u32>,
    mut k: usize,
    shift: u32,
    key: impl Fn(usize) -> K + Sync,
) -> Result<()> {
    let ends = ArcEnds::new(g);
    let edge = |arc: usize| ends.edge(w, arc);
    let best = Best::new(k, K::TWO_PASS);
    let mut edges = first_entries(g, &label, &best, key)?;
    best.second_pass(&mut edges, k);
    while edges.live() > 0 {
        // Every component's successor: the other end of its lightest outgoing edge.
        let succ: Vec<u32> = (0..k)
            .into_par_iter()
            .map(|c| match best.chosen::<K>(c, shift) {
                None => c as u32,
                Some(arc) => {
                    let (u, v, _) = edge(arc);
                    let (a, b) = (label[u as usize], label[v as usize]);
                    if a as usize == c {
                        b
                    } else {
                        a
                    }
                }
            })
            .collect();
        let parent = hook(&succ, forest, |c| {
            // A hooking component has a choice (its successor is another component).
            edge(best.chosen::<K>(c, shift).unwrap_or_default())
        });
        let (relabel, k2) = contract(parent)?;
        label.par_iter_mut().for_each(|l| *l = relabel[*l as usize]);

        // Drop the edges now inside one component and, in the same pass, start on the
        // next round's lightest edges.
        best.reset_hi(k2);
        edges.blocks().into_par_iter().for_each(|(block, len)| {
            let mut kept = 0;
            for i in 0..*len {
                let e = block[i];
                let (a, b) = (relabel[e.a as usize], relabel[e.b as usize]);
                if a != b {
                    let e = Entry { key: e.key, a, b };
                    block[kept] = e;
                    kept += 1;
                    best.offer(&e);
                }
            }
            *len = kept;
        });
        best.second_pass(&mut edges, k2);
        k = k2;
    }
    Ok(())
}

/// The edges between different components, in blocks filtered in place: block `i` is the
/// next `caps[i]` entries of `data`, of which the first `lens[i]` are live.
struct EdgeBlocks<K> {
    data: Vec<Entry<K>>,
    caps: Vec<usize>,
    lens: Vec<usize>,
}

impl<K: OrderKey> EdgeBlocks<K> {
    /// Fills blocks of the given capacities in parallel: `fill(i, slots)` writes block
    /// `i`'s entries into the front of `slots` (at most `caps[i]` of them) and returns
    /// how many it wrote.
    fn build(
        caps: Vec<usize>,
        fill: impl Fn(usize, &mut [MaybeUninit<Entry<K>>]) -> usize + Sync,
        filler: K,
    ) -> Result<EdgeBlocks<K>> {
        let total: usize = caps.iter().sum();
        memory::check(
            || format!("Borůvka's list of {total} edges"),
            memory::bytes_for(total as u64, std::mem::size_of::<Entry<K>>()),
        )?;
        let mut data: Vec<Entry<K>> = Vec::with_capacity(total);
        let mut lens = vec![0; caps.len()];
        let mut slots = Vec::with_capacity(caps.len());
        let mut rest = &mut data.spare_capacity_mut()[..total];
        for &cap in &caps {
            let (head, tail) = rest.split_at_mut(cap);
            slots.push(head);
            rest = tail;
        }
        slots
            .into_par_iter()
            .zip(lens.par_iter_mut())
            .enumerate()
            .for_each(|(i, (block, len))| {
                *len = fill(i, block).min(block.len());
                for slot in &mut block[*len..] {
                    slot.write(Entry {
                        key: filler,
                        a: 0,
                        b: 0,
                    });
                }
            });
        // SAFETY: the blocks cover data[..total] (their capacities sum to `total`, which
        // the allocation holds), and every slot of every block was written above: the
        // first `len` by `fill`, the rest with a filler entry.
        unsafe { data.set_len(total) };
        Ok(EdgeBlocks { data, caps, lens })
    }

    /// The blocks with their live lengths, to process in parallel.
    fn blocks(&mut self) -> Vec<(&mut [Entry<K>], &mut usize)> {
        let mut out = Vec::with_capacity(self.caps.len());
        let mut rest = &mut self.data[..];
        for (&cap, len) in self.caps.iter().zip(self.lens.iter_mut()) {
            let (head, tail) = rest.split_at_mut(cap.min(rest.len()));
            *len = (*len).min(head.len());
            out.push((head, len));
            rest = tail;
        }
        out
    }

    /// The number of live entries.
    fn live(&self) -> usize {
        self.lens.iter().sum()
    }
}

/// Makes every component with a successor other than itself hook onto it, except the
/// smaller of a mutual pair, which stays a root. Appends the hooked edges
/// (`edge(c)` = the `(u, v, weight)` that component `c` chose, in any orientation) to
/// `forest` as `(min, max, weight)` and returns the parent array.
fn hook<W: Send>(
    succ: &[u32],
    forest: &mut Vec<(VertexId, VertexId, W)>,
    edge: impl Fn(usize) -> (VertexId, VertexId, W) + Sync,
) -> Vec<u32> {
    let hooks = |c: usize| {
        let s = succ[c] as usize;
        s != c && !(succ[s] as usize == c && c < s)
    };
    forest.par_extend(
        (0..succ.len())
            .into_par_iter()
            .filter(|&c| hooks(c))
            .map(|c| {
                let (u, v, w) = edge(c);
                (u.min(v), u.max(v), w)
            }),
    );
    (0..succ.len())
        .into_par_iter()
        .map(|c| if hooks(c) { succ[c] } else { c as u32 })
        .collect()
}

/// Pointer jumping to the roots, then dense numbering of the roots in increasing order.
/// Returns every element's new number and the number of roots.
fn contract(mut parent: Vec<u32>) -> Result<(Vec<u32>, usize)> {
    {
        let p = as_atomic(&mut parent);
        // A hook forest of any depth below 2^32 needs at most 33 passes.
        let mut passes = 0;
        while p
            .par_iter()
            .map(|x| {
                let up = x.load(Relaxed);
                let upup = p[up as usize].load(Relaxed);
                if upup != up {
                    x.store(upup, Relaxed);
                }
                upup != up
            })
            .reduce(|| false, |a, b| a || b)
        {
            passes += 1;
            if passes > 64 {
                return Err(Error::VerificationFailed(
                    "MST: Borůvka's hooks formed a cycle (a bug in warpgraph)".into(),
                ));
            }
        }
    }
    let roots: Vec<u32> = (0..parent.len() as u32)
        .into_par_iter()
        .filter(|&c| parent[c as usize] == c)
        .collect();
    let mut number = vec![0u32; parent.len()];
    {
        let num = as_atomic(&mut number);
        roots
            .par_iter()
            .enumerate()
            .for_each(|(i, &r)| num[r as usize].store(i as u32, Relaxed));
    }
    parent.par_iter_mut().for_each(|x| *x = number[*x as usize]);
    Ok((parent, roots.len()))
}

/// Lowers `slot` to `key` if `key` is smaller.
#[inline]
fn lower(slot: &AtomicU64, key: u64) {
    let mut cur = slot.load(Relaxed);
    while key < cur {
        match slot.compare_exchange_weak(cur, key, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(now) => cur = now,
        }
    }
}

/// Whether weight keys in `lo..=hi` (none when `lo > hi`) and arc indices of `shift` bits
/// pack into keys below 2^63.
fn packs(lo: u64, hi: u64, shift: u32) -> bool {
    lo > hi || bits(hi - lo) + shift < 64
}

/// The low `bits` bits set.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The canonical arcs (one per undirected edge, `u < v`) as `(u, arc range)`.
fn canonical(g: &Graph, u: VertexId) -> std::ops::Range<usize> {
    let row = g.out().row(u);
    let skip = g.out().neighbors(u).partition_point(|&v| v <= u);
    row.start + skip..row.end
}

/// The edge list after round 1: every canonical arc whose ends are in different
/// components, in blocks of [`VERTEX_BLOCK`] vertices. On the way, offers every entry to
/// `best` (the first pass of the next round's minimum).
fn first_entries<K: OrderKey>(
    g: &Graph,
    label: &[u32],
    best: &Best,
    key: impl Fn(usize) -> K + Sync,
) -> Result<EdgeBlocks<K>> {
    let n = g.num_vertices();
    let targets = g.out().targets();
    let key = &key;
    let vertices = |i: usize| (i * VERTEX_BLOCK) as u32..((i + 1) * VERTEX_BLOCK).min(n) as u32;
    let caps = (0..n.div_ceil(VERTEX_BLOCK))
        .into_par_iter()
        .map(|i| vertices(i).map(|u| canonical(g, u).len()).sum())
        .collect();
    EdgeBlocks::build(
        caps,
        |i, slots| {
            let entries = vertices(i).flat_map(|u| {
                let a = label[u as usize];
                canonical(g, u).filter_map(move |arc| {
                    let b = label[targets[arc] as usize];
                    (a != b).then(|| Entry {
                        key: key(arc),
                        a,
                        b,
                    })
                })
            });
            let mut written = 0;
            for (slot, e) in slots.iter_mut().zip(entries) {
                best.offer(&e);
                slot.write(e);
                written += 1;
            }
            written
        },
        K::filler(),
    )
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
    use crate::graph::{BuildOptions, EdgeList, Weights};

    fn triangle(weights: Weights) -> Graph {
        EdgeList::new(3, vec![0, 1, 0], vec![1, 2, 2], weights)
            .and_then(|e| {
                e.build(&BuildOptions {
                    directed: false,
                    ..Default::default()
                })
            })
            .unwrap()
    }

    #[test]
    fn narrow_weights_pack_and_wide_weights_take_two_passes() {
        // i32 keys span at most 32 bits: they pack beside up to 2^31 arcs.
        assert!(packs(i32::MIN.key(), i32::MAX.key(), 31));
        assert!(!packs(i32::MIN.key(), i32::MAX.key(), 32));
        assert!(packs(NONE, 0, 64), "no edges");
        // f64 keys of opposite signs span about 2^63.
        assert!(!packs((-0.5f64).key(), 2.0f64.key(), 3));
        // Both modes give the same forest: the triangle's two lightest edges.
        for w in [
            Weights::I32(vec![5, -7, 5].into()),
            Weights::F64(vec![5.0, -7.0, 5.0].into()),
            Weights::I64(vec![i64::MAX / 2, i64::MIN / 2, i64::MAX / 2].into()),
        ] {
            let f = boruvka(&triangle(w)).unwrap();
            assert_eq!(f.edges, vec![(1, 2), (0, 1)]);
        }
        // A weight whose key is u64::MAX (i64::MAX) is still found.
        let f = boruvka(&triangle(Weights::I64(
            vec![i64::MAX, i64::MIN, i64::MAX].into(),
        )));
        assert_eq!(f.unwrap().edges, vec![(1, 2), (0, 1)]);
    }

    #[test]
    fn contraction_numbers_roots_in_order() {
        // 0 <- 1 <- 2, 3 alone, 4 -> 3.
        let (label, k) = contract(vec![0, 0, 1, 3, 3]).unwrap();
        assert_eq!((label, k), (vec![0, 0, 0, 1, 1], 2));
        assert_eq!(contract(Vec::new()).unwrap(), (Vec::new(), 0));
    }
}
