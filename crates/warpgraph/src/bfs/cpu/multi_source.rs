//! Multi-source BFS: the hop distances from up to 64 sources in one pass over the graph.
//!
//! # What it computes
//! For each of at most 64 sources, the number of arcs on a shortest path to each vertex
//! (unweighted), handed out as each vertex is reached.
//!
//! # Method
//! M. Then, M. Kaufmann, F. Chirigati, T.-A. Hoang-Vu, K. Pham, A. Kemper, T. Neumann and
//! H. T. Vo, "The More the Merrier: Efficient Multi-Source Graph Traversal", PVLDB 8(4)
//! (2014): source `i` is bit `i` of a 64-bit word per vertex. `seen[v]` holds the sources
//! that have reached `v`, `front[v]` those that reached it on the last level. A level takes
//! every vertex of the frontier (any bit of `front` set) once and ORs its `front` into
//! `next[w]` of each out-neighbour `w` (masked by `seen[w]`), so that sources whose
//! searches meet share the visit of a vertex and its arcs: on a small-world graph the 64
//! searches cross the same vertices within a few levels of one another, and the whole
//! batch costs a few passes over the arcs instead of 64. The frontier's vertices are
//! taken in parallel (rayon), `next` by atomic OR, and a vertex joins the next frontier
//! list once, when its word first turns non-zero.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::graph::{Csr, VertexId};

/// The most sources one pass takes: the bits of a word.
pub const WIDTH: usize = 64;

/// Calls `reached(v, bits, level)` for every vertex `v` the `sources` (at most [`WIDTH`];
/// bit `i` for `sources[i]`) reach over `csr`'s arcs: `bits` are the sources whose
/// shortest paths to `v` have `level` arcs; each source reaches each vertex once. Calls
/// come from every rayon thread, a level at a time, in increasing level.
///
/// # Panics
/// When there are more than [`WIDTH`] sources or a source is not a vertex.
pub fn multi_source_bfs(
    csr: &Csr,
    sources: &[VertexId],
    reached: impl Fn(VertexId, u64, u32) + Sync,
) {
    multi_source_bfs_until(csr, sources, reached, || false);
}

/// As [`multi_source_bfs`], stopping after the first level at whose end `done()` holds
/// (for a table, once every source has reached every target).
///
/// # Panics
/// As [`multi_source_bfs`].
pub fn multi_source_bfs_until(
    csr: &Csr,
    sources: &[VertexId],
    reached: impl Fn(VertexId, u64, u32) + Sync,
    done: impl Fn() -> bool,
) {
    assert!(sources.len() <= WIDTH, "at most {WIDTH} sources a pass");
    let n = csr.num_vertices();
    let seen: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let next: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let mut front: Vec<u64> = vec![0; n];
    let mut list: Vec<VertexId> = Vec::new();
    for (i, &s) in sources.iter().enumerate() {
        let bit = 1u64 << i;
        if seen[s as usize].fetch_or(bit, Relaxed) == 0 {
            list.push(s);
        }
        front[s as usize] |= bit;
    }
    list.iter().for_each(|&s| reached(s, front[s as usize], 0));
    let targets = csr.targets();
    let mut level = 0u32;
    while !list.is_empty() && !done() {
        level += 1;
        let front_ref = &front;
        // Expand: OR each frontier vertex's word into its neighbours' next words.
        let joined: Vec<VertexId> = list
            .par_iter()
            .with_min_len(64)
            .fold(Vec::new, |mut out, &u| {
                let f = front_ref[u as usize];
                for &w in &targets[csr.row(u)] {
                    let add = f & !seen[w as usize].load(Relaxed);
                    if add != 0 && next[w as usize].fetch_or(add, Relaxed) == 0 {
                        out.push(w);
                    }
                }
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        // The last level's frontier is done with.
        for &u in &list {
            front[u as usize] = 0;
        }
        // Settle: the new bits of each joined vertex are its frontier word.
        let fresh: Vec<(VertexId, u64)> = joined
            .par_iter()
            .with_min_len(64)
            .map(|&w| {
                let add = next[w as usize].swap(0, Relaxed) & !seen[w as usize].load(Relaxed);
                seen[w as usize].fetch_or(add, Relaxed);
                reached(w, add, level);
                (w, add)
            })
            .collect();
        list.clear();
        for (w, add) in fresh {
            if add != 0 {
                front[w as usize] = add;
                list.push(w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, EdgeList, Weights};
    use std::sync::Mutex;

    /// Hop distances from each source by a plain queue, one source at a time.
    fn one_at_a_time(csr: &Csr, s: VertexId) -> Vec<Option<u32>> {
        let mut d = vec![None; csr.num_vertices()];
        let mut q = std::collections::VecDeque::from([s]);
        d[s as usize] = Some(0);
        while let Some(u) = q.pop_front() {
            for &w in &csr.targets()[csr.row(u)] {
                if d[w as usize].is_none() {
                    d[w as usize] = Some(d[u as usize].unwrap() + 1);
                    q.push_back(w);
                }
            }
        }
        d
    }

    #[test]
    fn matches_single_searches_with_repeated_and_many_sources() {
        let mut rng = crate::generate::rng::Rng::new(3);
        let n = 500u64;
        let (src, dst): (Vec<u32>, Vec<u32>) = (0..1500)
            .map(|_| (rng.below(n) as u32, rng.below(n) as u32))
            .unzip();
        let g = EdgeList::new(n, src, dst, Weights::None)
            .unwrap()
            .build(&BuildOptions::default())
            .unwrap();
        let csr = g.out();
        let mut sources: Vec<VertexId> = (0..63).map(|_| rng.below(n) as u32).collect();
        sources.push(sources[0]); // a repeat
        let got = Mutex::new(vec![vec![None; n as usize]; sources.len()]);
        multi_source_bfs(csr, &sources, |v, bits, level| {
            let mut got = got.lock().unwrap();
            for i in 0..sources.len() {
                if bits >> i & 1 == 1 {
                    assert!(got[i][v as usize].is_none(), "source {i} reached {v} twice");
                    got[i][v as usize] = Some(level);
                }
            }
        });
        let got = got.into_inner().unwrap();
        for (i, &s) in sources.iter().enumerate() {
            assert_eq!(got[i], one_at_a_time(csr, s), "source {s}");
        }
        multi_source_bfs(csr, &[], |_, _, _| panic!("no source reaches anything"));
    }

    #[test]
    fn stops_after_the_level_that_is_done() {
        // A path 0 - 1 - ... - 99 from both ends: done once vertex 3 is reached (level 3
        // from 0), so no vertex beyond level 3 is handed out.
        let n = 100u64;
        let g = EdgeList::new(n, (0..99).collect(), (1..100).collect(), Weights::None)
            .unwrap()
            .build(&BuildOptions {
                directed: false,
                ..Default::default()
            })
            .unwrap();
        let (deepest, three) = (AtomicU64::new(0), AtomicU64::new(0));
        let reached = |v: VertexId, _: u64, level: u32| {
            deepest.fetch_max(u64::from(level), Relaxed);
            if v == 3 {
                three.store(1, Relaxed);
            }
        };
        multi_source_bfs_until(g.out(), &[0, 99], reached, || three.load(Relaxed) == 1);
        assert_eq!(deepest.load(Relaxed), 3);
    }
}
