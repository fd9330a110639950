use super::delegates::Delegates;
use super::host_levels::HostLevels;
use super::partition::Partition;
use super::pieces::pieces_bound;
use super::tuning::{TeamTuning, LIST_CAP, PIECE};
use crate::bfs::cuda::never_reached;
use crate::bfs::{BfsOptions, UNREACHED};
use crate::graph::testing::graph;
use crate::graph::Csr;
use crate::graph::Weights;
use proptest::prelude::*;

/// A random graph of 1 to 199 vertices and up to 600 arcs, with self loops, parallel
/// arcs and unreached vertices, directed or not: (n, its arcs, directed).
fn random_graph() -> impl Strategy<Value = (u64, Vec<(u32, u32)>, bool)> {
    (
        1u64..200,
        prop::collection::vec((0u32..200, 0u32..200), 0..600),
        any::<bool>(),
    )
        .prop_map(|(n, edges, directed)| {
            let edges = edges
                .into_iter()
                .map(|(a, b)| (a % n as u32, b % n as u32))
                .collect();
            (n, edges, directed)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The host's levels against the CPU's BFS, on random graphs with self loops,
    /// parallel arcs and unreached vertices: the same depths, and each parent the
    /// least in-neighbour one level up (the GPUs' rule), for searches reusing one
    /// table; within the bound, levels are taken while they fit.
    #[test]
    fn host_levels_match_the_cpu(
        (n, edges, directed) in random_graph(),
        picks in prop::collection::vec(any::<u32>(), 1..4),
    ) {
        let g = graph(n, &edges, directed);
        let mut host = HostLevels::new(g.num_arcs() as usize);
        for p in picks {
            let s = p % n as u32;
            let want = crate::bfs::bfs(&g, s, &BfsOptions::default()).unwrap().depth;
            host.start(s);
            let (mut nf, mut mf, mut level) = (1u64, g.out().degree(s), 0u32);
            while nf > 0 {
                prop_assert!(host.take(mf), "every level fits the whole graph's arcs");
                (nf, mf) = host.expand(g.out(), level + 1);
                level += 1;
            }
            let mut depth = vec![UNREACHED; n as usize];
            let mut parent = vec![UNREACHED; n as usize];
            depth[s as usize] = 0;
            parent[s as usize] = s;
            for t in host.found.chunks(3) {
                prop_assert_eq!(depth[t[0] as usize], UNREACHED, "reached twice");
                depth[t[0] as usize] = t[2];
                parent[t[0] as usize] = t[1];
            }
            prop_assert_eq!(&depth, &want);
            for v in 0..n as u32 {
                let d = depth[v as usize];
                if d == UNREACHED || d == 0 {
                    continue;
                }
                let least = g
                    .incoming()
                    .neighbors(v)
                    .iter()
                    .copied()
                    .filter(|&u| depth[u as usize] == d - 1)
                    .min();
                prop_assert_eq!(Some(parent[v as usize]), least);
            }
        }
    }

    /// A vertex is in `never_reached` exactly when no arc's head is it (checked
    /// against the edge list itself), and no search from another source (of the first
    /// four) reaches it; the padding stays clear.
    #[test]
    fn never_reached_is_the_vertices_no_arc_enters(
        (n, edges, directed) in random_graph(),
        pad in 0usize..3,
    ) {
        let g = graph(n, &edges, directed);
        let words = (n as usize).div_ceil(32) + pad;
        let bits = never_reached(g.incoming(), words);
        prop_assert_eq!(bits.len(), words);
        for v in 0..32 * words {
            let set = bits[v / 32] >> (v % 32) & 1 == 1;
            let entered = edges
                .iter()
                .any(|&(a, b)| b as usize == v || (!directed && a as usize == v));
            prop_assert_eq!(set, v < n as usize && !entered, "vertex {}", v);
            if set {
                for s in (0..n.min(4) as u32).filter(|&s| s as usize != v) {
                    let t = crate::bfs::bfs(&g, s, &BfsOptions::default()).unwrap();
                    prop_assert_eq!(t.depth[v], UNREACHED);
                }
            }
        }
    }
}

#[test]
fn host_levels_stop_at_their_bound() {
    let mut host = HostLevels::new(10);
    host.start(0);
    assert!(host.take(4));
    assert!(host.take(6));
    assert!(!host.take(1), "the bound is for all levels together");
    host.start(0);
    assert!(!host.take(11));
    assert!(host.take(10), "a new search starts with the whole bound");
    assert!(!HostLevels::new(0).take(1));
    assert!(HostLevels::new(0).take(0));
}

#[test]
fn a_star_from_a_leaf() {
    // The hub, then every other leaf at once, its parent the hub.
    let leaves = 1000;
    let star: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let g = graph(u64::from(leaves) + 1, &star, false);
    let mut host = HostLevels::new(2 * leaves as usize);
    host.start(1);
    assert_eq!(host.expand(g.out(), 1), (1, u64::from(leaves)));
    let others = u64::from(leaves) - 1;
    assert_eq!(host.expand(g.out(), 2), (others, others));
    assert_eq!(host.found.len(), 3 * leaves as usize);
    assert!(host.found.chunks(3).skip(1).all(|t| t[1] == 0 && t[2] == 2));
}

/// A CSR whose vertex v has degrees[v] arcs (to vertex 0).
fn with_degrees(degrees: &[u64]) -> Csr {
    let mut offsets = vec![0u64];
    for d in degrees {
        offsets.push(offsets.last().unwrap() + d);
    }
    let targets = vec![0u32; *offsets.last().unwrap() as usize];
    Csr::from_raw(offsets.into(), targets.into(), Weights::None)
}

/// Each rank's delegates' rows are exactly every vertex's arcs into its range, the
/// hubs those of PIECE arcs or more, and the sizes the memory estimate uses are theirs.
#[test]
fn delegates_hold_every_vertexs_arcs_into_the_range() {
    // Hubs 0 (700 arcs) and 1 (300); vertex 2 (255 arcs) is not one, 3 has 2 arcs.
    let mut pairs: Vec<(u32, u32)> = (3..703).map(|v| (0, v)).collect();
    pairs.extend((400..700).map(|v| (1, v)));
    pairs.extend((500..755).map(|v| (2, v)));
    pairs.extend([(3, 0), (3, 799)]);
    for directed in [true, false] {
        let g = graph(800, &pairs, directed);
        let c = g.out();
        for r in [0..800, 0..400, 400..800, 600..650, 750..800, 0..0] {
            let d = Delegates::new(c, r.clone());
            assert_eq!(d.off.len(), 801);
            let mut pieces = 0;
            for v in 0..800u32 {
                let want: Vec<u32> = c
                    .neighbors(v)
                    .iter()
                    .copied()
                    .filter(|&t| r.contains(&(t as usize)))
                    .collect();
                let (lo, hi) = (d.off[v as usize], d.off[v as usize + 1]);
                assert_eq!(&d.tgt[lo as usize..hi as usize], &want[..]);
                if c.degree(v) >= PIECE {
                    pieces += (want.len() as u64).div_ceil(PIECE);
                }
            }
            let hubs: Vec<u32> = (0..800).filter(|&v| c.degree(v) >= PIECE).collect();
            assert_eq!(d.hubs, hubs);
            assert_eq!(d.pieces(), pieces);
            let sizes = Delegates::sizes(c, r);
            assert_eq!(sizes, (hubs.len() as u64, d.tgt.len() as u64, pieces));
        }
    }
}

#[test]
fn every_piece_of_every_big_vertex_is_counted() {
    // Below PIECE arcs a vertex is no piece; at PIECE one; then one more per PIECE.
    let c = with_degrees(&[0, 1, 255, 256, 257, 512, 513, 70_000]);
    assert_eq!(pieces_bound(&c, 0..3), 0);
    assert_eq!(pieces_bound(&c, 3..4), 1);
    assert_eq!(pieces_bound(&c, 4..5), 2);
    assert_eq!(pieces_bound(&c, 5..6), 2);
    assert_eq!(pieces_bound(&c, 6..7), 3);
    assert_eq!(pieces_bound(&c, 7..8), 70_000usize.div_ceil(256));
    assert_eq!(pieces_bound(&c, 0..8), 1 + 2 + 2 + 3 + 274);
    assert_eq!(pieces_bound(&c, 4..4), 0);
}

/// A team's ranges split the vertices in order, without gaps or overlaps, and in a team
/// of several each rank's part of a bitmap is a whole number of 16-byte units (NCCL's
/// all-gather in symmetric memory); a team of one keeps the bitmap's own length.
#[test]
fn ranges_cover_the_vertices_in_16_byte_parts() {
    for n in [
        0usize,
        1,
        31,
        32,
        33,
        1000,
        60_000,
        70_002,
        300 * 200,
        1 << 20,
    ] {
        for world in 1..=8 {
            let p = Partition::new(n, world);
            let words = n.div_ceil(32).max(1);
            if world == 1 {
                assert_eq!(p.seg, words);
            } else {
                assert_eq!(p.seg % 4, 0, "n {n}, world {world}: seg {}", p.seg);
                assert!(p.seg < words.div_ceil(world) + 4);
            }
            assert!(p.words() >= words);
            let mut next = 0;
            for r in 0..world {
                let range = p.range(r);
                assert_eq!(range.start, next, "n {n}, world {world}, rank {r}");
                assert!(range.end >= range.start);
                assert!(range.len() <= 32 * p.seg);
                next = range.end;
            }
            assert_eq!(next, n, "n {n}, world {world}");
        }
    }
}

/// A team's tuning: the defaults pass; a bound out of its range is refused, the error
/// naming the field, its value and the range (`list_cap` 0 is refused: no level could be
/// short).
#[test]
fn tunings_are_checked_against_their_ranges() {
    assert!(TeamTuning::default().check().is_ok());
    let cap = LIST_CAP;
    let ok = [
        TeamTuning {
            list_cap: 1,
            ..TeamTuning::default()
        },
        TeamTuning {
            host_arcs: 0,
            run_blocks: 0,
            run_arcs: 0,
            ..TeamTuning::default()
        },
        TeamTuning {
            whole_degree: u64::MAX,
            ..TeamTuning::default()
        },
    ];
    for t in ok {
        assert!(t.check().is_ok(), "{t:?}");
    }
    let bad = [
        (
            TeamTuning {
                list_cap: 0,
                ..TeamTuning::default()
            },
            "list_cap = 0",
            "1 to 131072",
        ),
        (
            TeamTuning {
                list_cap: cap + 1,
                ..TeamTuning::default()
            },
            "list_cap = 131073",
            "1 to 131072",
        ),
        (
            TeamTuning {
                host_arcs: cap + 1,
                ..TeamTuning::default()
            },
            "host_arcs",
            "0 to 131072",
        ),
        (
            TeamTuning {
                run_blocks: 1 << 17,
                ..TeamTuning::default()
            },
            "run_blocks",
            "0 to 65536",
        ),
        (
            TeamTuning {
                run_arcs: cap as u64 + 1,
                ..TeamTuning::default()
            },
            "run_arcs",
            "0 to 131072",
        ),
    ];
    for (t, field, range) in bad {
        let e = t.check().unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(range), "{t:?}: {e}");
    }
}
