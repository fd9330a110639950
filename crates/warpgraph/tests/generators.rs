//! Integration tests of the graph generators: determinism, sizes, structure, weights and
//! parameter validation.

use std::collections::VecDeque;
use std::sync::Mutex;

use warpgraph::generate::{
    default_max_clique, generate, generate_with, GenerateOptions, Generator, WeightSpec,
};
use warpgraph::{Duplicates, Error, Graph, Progress, SelfLoops, WeightType, MAX_VERTICES};

/// Keep every drawn edge: self loops and parallel edges included.
fn keep_all() -> GenerateOptions {
    GenerateOptions {
        self_loops: SelfLoops::Keep,
        duplicates: Duplicates::Keep,
        ..Default::default()
    }
}

fn kron(scale: u32, edge_factor: u32) -> Generator {
    Generator::Kronecker { scale, edge_factor }
}

fn rmat(scale: u32, edge_factor: u32, a: f64, b: f64, c: f64) -> Generator {
    Generator::Rmat {
        scale,
        edge_factor,
        a,
        b,
        c,
    }
}

fn grid(rows: u32, cols: u32, remove: f64, shortcuts: u64) -> Generator {
    Generator::Grid {
        rows,
        cols,
        remove,
        shortcuts,
    }
}

fn ssca2(scale: u32, max_clique: u32, inter_prob: f64) -> Generator {
    Generator::Ssca2 {
        scale,
        max_clique,
        inter_prob,
    }
}

fn all_generators() -> Vec<Generator> {
    vec![
        kron(12, 8),
        rmat(12, 8, 0.45, 0.2, 0.2),
        Generator::Uniform {
            vertices: 5000,
            edges: 200_000,
        },
        grid(150, 90, 0.2, 500),
        ssca2(12, 12, 0.3),
    ]
}

fn degrees(g: &Graph) -> Vec<u64> {
    (0..g.num_vertices() as u32)
        .map(|v| g.out().degree(v))
        .collect()
}

/// The weight of the first arc `u -> v`, as f64.
fn weight(g: &Graph, u: u32, v: u32) -> Option<f64> {
    let row = g.out().row(u);
    let k = g.neighbors(u).iter().position(|&x| x == v)?;
    g.out().weights().get_f64(row.start + k)
}

/// Hop distances from `s` (u64::MAX when unreachable).
fn bfs(g: &Graph, s: u32) -> Vec<u64> {
    let mut dist = vec![u64::MAX; g.num_vertices()];
    let mut queue = VecDeque::from([s]);
    dist[s as usize] = 0;
    while let Some(u) = queue.pop_front() {
        for &v in g.neighbors(u) {
            if dist[v as usize] == u64::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}

fn eccentricity(g: &Graph, s: u32) -> u64 {
    let d = bfs(g, s);
    assert!(d.iter().all(|&x| x != u64::MAX), "graph is not connected");
    d.into_iter().max().unwrap_or(0)
}

// ---------------------------------------------------------------- determinism

#[test]
fn same_seed_same_graph_different_seed_different_graph() {
    let weights = [
        WeightSpec::None,
        WeightSpec::Int { lo: 1, hi: 1000 },
        WeightSpec::Float,
    ];
    for gen in all_generators() {
        for w in weights {
            let opts = GenerateOptions {
                weights: w,
                ..Default::default()
            };
            let a = generate(&gen, &opts).unwrap();
            let b = generate(&gen, &opts).unwrap();
            assert_eq!(a, b, "{gen:?} {w:?}");
            let c = generate(
                &gen,
                &GenerateOptions {
                    seed: opts.seed + 1,
                    ..opts
                },
            )
            .unwrap();
            assert_ne!(a, c, "{gen:?} {w:?}: a new seed must give a new graph");
        }
    }
}

#[test]
fn thread_count_does_not_matter() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (one, two, three) = (pool(1), pool(2), pool(3));
    for gen in all_generators() {
        for undirected in [false, true] {
            let opts = GenerateOptions {
                weights: WeightSpec::Int { lo: -50, hi: 50 },
                undirected,
                ..keep_all()
            };
            let a = one.install(|| generate(&gen, &opts)).unwrap();
            let b = two.install(|| generate(&gen, &opts)).unwrap();
            let c = three.install(|| generate(&gen, &opts)).unwrap();
            assert_eq!(a, b, "{gen:?}");
            assert_eq!(a, c, "{gen:?}");
        }
    }
}

// ---------------------------------------------------------------- edge counts

#[test]
fn drawn_edge_counts_are_exact() {
    let cases = [
        (kron(11, 16), 16u64 << 11),
        (rmat(10, 5, 0.6, 0.1, 0.1), 5 << 10),
        (
            Generator::Uniform {
                vertices: 300,
                edges: 70_001,
            },
            70_001,
        ),
        // Spans two blocks of 2^16 edges.
        (kron(13, 9), 9 << 13),
    ];
    for (gen, m) in cases {
        let directed = generate(&gen, &keep_all()).unwrap();
        assert!(directed.is_directed());
        assert_eq!(directed.num_arcs(), m, "{gen:?}");
        let undirected = generate(
            &gen,
            &GenerateOptions {
                undirected: true,
                ..keep_all()
            },
        )
        .unwrap();
        assert!(!undirected.is_directed());
        let loops = undirected.count_self_loops();
        assert_eq!(loops, directed.count_self_loops(), "{gen:?}");
        assert_eq!(undirected.num_arcs(), 2 * m - loops, "{gen:?}");
        assert_eq!(undirected.num_edges(), m, "{gen:?}");
    }
    // Default options drop self loops and parallel edges.
    let g = generate(&kron(11, 16), &GenerateOptions::default()).unwrap();
    assert_eq!(g.count_self_loops(), 0);
    assert!(g.num_arcs() < 16 << 11);
    for v in 0..g.num_vertices() as u32 {
        assert!(g.neighbors(v).windows(2).all(|p| p[0] < p[1]));
    }
}

#[test]
fn zero_edges() {
    let g = generate(&kron(4, 0), &GenerateOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (16, 0));
    let g = generate(
        &Generator::Uniform {
            vertices: 7,
            edges: 0,
        },
        &GenerateOptions::default(),
    )
    .unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (7, 0));
    let g = generate(&kron(0, 3), &keep_all()).unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (1, 3));
    assert_eq!(g.neighbors(0), &[0, 0, 0]);
}

// ---------------------------------------------------------------- degree shapes

#[test]
fn kronecker_is_skewed_uniform_is_not() {
    let opts = GenerateOptions {
        undirected: true,
        ..keep_all()
    };
    let stats = |gen: &Generator| {
        let g = generate(gen, &opts).unwrap();
        let d = degrees(&g);
        let max = *d.iter().max().unwrap() as f64;
        let mean = g.num_arcs() as f64 / g.num_vertices() as f64;
        (g, max, mean)
    };
    let (_, kmax, kmean) = stats(&kron(14, 16));
    assert!(kmax > 20.0 * kmean, "Kronecker max {kmax} mean {kmean}");
    let (_, umax, umean) = stats(&Generator::Uniform {
        vertices: 1 << 14,
        edges: 16 << 14,
    });
    assert!(umax < 4.0 * umean, "uniform max {umax} mean {umean}");
    let (_, rmax, rmean) = stats(&rmat(14, 16, 0.25, 0.25, 0.25));
    assert!(rmax < 4.0 * rmean, "flat R-MAT max {rmax} mean {rmean}");

    // Unscrambled R-MAT with a dominant `a` puts the hub at vertex 0 ...
    let (g, rmax, _) = stats(&rmat(14, 16, 0.57, 0.19, 0.19));
    assert_eq!(g.out().degree(0) as f64, rmax);
    // ... while Kronecker's scrambling moves it away (for this seed).
    let (g, kmax, _) = stats(&kron(14, 16));
    assert!((g.out().degree(0) as f64) < kmax);
}

#[test]
fn rmat_degenerate_initiators() {
    // a = 1: every edge is 0 -> 0.
    let g = generate(&rmat(6, 2, 1.0, 0.0, 0.0), &keep_all()).unwrap();
    assert_eq!(g.neighbors(0), vec![0u32; 128].as_slice());
    assert_eq!(g.num_arcs(), 128);
    // b = 1: every edge is 0 -> n-1.
    let g = generate(&rmat(6, 1, 0.0, 1.0, 0.0), &keep_all()).unwrap();
    assert_eq!(g.neighbors(0), vec![63u32; 64].as_slice());
    // c = 1: every edge is n-1 -> 0.
    let g = generate(&rmat(3, 1, 0.0, 0.0, 1.0), &keep_all()).unwrap();
    assert_eq!(g.neighbors(7), &[0u32; 8]);
}

// ---------------------------------------------------------------- grid

#[test]
fn tiny_grid_golden() {
    // 0 - 1 - 2
    // |   |   |
    // 3 - 4 - 5
    let g = generate(&grid(2, 3, 0.0, 0), &GenerateOptions::default()).unwrap();
    assert!(g.is_directed());
    assert_eq!(g.out().offsets(), &[0, 2, 5, 7, 9, 12, 14]);
    assert_eq!(
        g.out().targets(),
        &[1, 3, 0, 2, 4, 1, 5, 0, 4, 1, 3, 5, 2, 4]
    );
    // Undirected: the same arcs, stored by the builder.
    let u = generate(
        &grid(2, 3, 0.0, 0),
        &GenerateOptions {
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(!u.is_directed());
    assert_eq!(u.out().targets(), g.out().targets());
    assert_eq!(u.num_edges(), 7);
    // One row, one column, a single vertex.
    let g = generate(&grid(1, 5, 0.0, 0), &GenerateOptions::default()).unwrap();
    assert_eq!(g.num_arcs(), 8);
    assert_eq!(g.neighbors(4), &[3]);
    let g = generate(&grid(1, 1, 0.0, 0), &GenerateOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (1, 0));
}

#[test]
fn grid_shape() {
    for (rows, cols) in [(37u32, 53u32), (300, 250), (1, 40), (64, 1)] {
        let g = generate(&grid(rows, cols, 0.0, 0), &GenerateOptions::default()).unwrap();
        let (r, c) = (rows as u64, cols as u64);
        assert_eq!(g.num_vertices() as u64, r * c);
        let lattice = r * (c - 1) + (r - 1) * c;
        assert_eq!(g.num_arcs(), 2 * lattice);
        assert!(degrees(&g).iter().all(|&d| d <= 4));
        // Interior vertices have all four neighbours.
        if rows > 2 && cols > 2 {
            let v = cols + 1;
            assert_eq!(g.neighbors(v), &[1, cols, cols + 2, 2 * cols + 1]);
        }
        let diameter = r + c - 2;
        assert_eq!(eccentricity(&g, 0), diameter);
        assert_eq!(eccentricity(&g, (r * c - 1) as u32), diameter);
    }
}

#[test]
fn grid_removal_and_shortcuts() {
    let full = generate(&grid(200, 200, 0.0, 0), &keep_all()).unwrap();
    let lattice = 2 * 200 * 199;
    assert_eq!(full.num_arcs(), 2 * lattice);

    // Removing 30%: about 70% of the arcs stay, still both ways, degree <= 4.
    let thin = generate(&grid(200, 200, 0.3, 0), &keep_all()).unwrap();
    let kept = thin.num_arcs() as f64 / full.num_arcs() as f64;
    assert!((0.68..0.72).contains(&kept), "kept {kept}");
    assert!(degrees(&thin).iter().all(|&d| d <= 4));
    for u in (0..40_000u32).step_by(97) {
        for &v in thin.neighbors(u) {
            assert!(thin.neighbors(v).contains(&u), "{u}->{v} has no way back");
        }
    }
    // Removed edges are the same whatever the shortcuts.
    let both = generate(&grid(200, 200, 0.3, 1000), &keep_all()).unwrap();
    assert_eq!(both.num_arcs(), thin.num_arcs() + 2000);

    // Shortcuts: exactly two arcs each (kept all), never loops, and they shrink the
    // diameter.
    let sc = generate(&grid(200, 200, 0.0, 5000), &keep_all()).unwrap();
    assert_eq!(sc.num_arcs(), 2 * lattice + 2 * 5000);
    assert_eq!(sc.count_self_loops(), 0);
    assert!(degrees(&sc).iter().any(|&d| d > 4));
    assert!(eccentricity(&sc, 0) < 398);
    let undirected = generate(
        &grid(200, 200, 0.0, 5000),
        &GenerateOptions {
            undirected: true,
            ..keep_all()
        },
    )
    .unwrap();
    assert_eq!(undirected.num_arcs(), sc.num_arcs());
    assert_eq!(undirected.num_edges(), lattice + 5000);
}

#[test]
fn grid_two_way_arcs_share_weights() {
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: 1, hi: 1 << 20 },
        ..keep_all()
    };
    let g = generate(&grid(60, 70, 0.1, 300), &opts).unwrap();
    assert_eq!(g.weight_type(), WeightType::I32);
    let w = g.out().weights().as_slice::<i32>().unwrap();
    let mut distinct = std::collections::HashSet::new();
    for u in 0..g.num_vertices() as u32 {
        let row = g.out().row(u);
        for (k, &v) in g.neighbors(u).iter().enumerate() {
            let back = weight(&g, v, u).unwrap();
            // With parallel shortcuts the first back arc may differ; check the multiset
            // of u<->v weights matches instead when there are several.
            let there: Vec<f64> = g
                .neighbors(u)
                .iter()
                .zip(&w[row.clone()])
                .filter(|p| *p.0 == v)
                .map(|p| f64::from(*p.1))
                .collect();
            let back_row = g.out().row(v);
            let mut back_all: Vec<f64> = g
                .neighbors(v)
                .iter()
                .zip(&w[back_row])
                .filter(|p| *p.0 == u)
                .map(|p| f64::from(*p.1))
                .collect();
            let mut there_sorted = there.clone();
            there_sorted.sort_by(f64::total_cmp);
            back_all.sort_by(f64::total_cmp);
            assert_eq!(there_sorted, back_all, "{u} <-> {v}");
            if there.len() == 1 {
                assert_eq!(back, f64::from(w[row.start + k]));
            }
            distinct.insert(w[row.start + k]);
        }
    }
    assert!(distinct.len() > 1000, "weights are random");
}

// ---------------------------------------------------------------- SSCA#2

#[test]
fn ssca2_cliques_are_complete_and_disjoint() {
    let g = generate(&ssca2(12, 15, 0.0), &keep_all()).unwrap();
    let n = g.num_vertices() as u32;
    assert_eq!(n, 4096);
    let mut v = 0;
    let mut sizes = Vec::new();
    while v < n {
        // v's clique is v itself plus its neighbours: a consecutive range starting at v.
        let nb = g.neighbors(v);
        let size = nb.len() as u32 + 1;
        assert!((1..=15).contains(&size) || v + size == n);
        let expected: Vec<u32> = (v + 1..v + size).collect();
        assert_eq!(nb, expected.as_slice(), "clique at {v}");
        for u in v..v + size {
            let others: Vec<u32> = (v..v + size).filter(|&x| x != u).collect();
            assert_eq!(g.neighbors(u), others.as_slice(), "vertex {u}");
        }
        sizes.push(size);
        v += size;
    }
    // Sizes look uniform in 1..=15 (mean 8).
    let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
    assert!((7.0..9.0).contains(&mean), "mean clique size {mean}");
    assert!(sizes.contains(&1) && sizes.contains(&15));
    let arcs: u64 = sizes.iter().map(|&s| s as u64 * (s as u64 - 1)).sum();
    assert_eq!(g.num_arcs(), arcs);
}

#[test]
fn ssca2_inter_clique_rate_follows_probability() {
    let scale = 12;
    let base = generate(&ssca2(scale, 10, 0.0), &keep_all()).unwrap();
    let in_clique = |u: u32, v: u32| u == v || base.neighbors(u).binary_search(&v).is_ok();
    let inter = |p: f64| {
        let g = generate(&ssca2(scale, 10, p), &keep_all()).unwrap();
        // Same seed, same cliques: every clique arc is still there.
        let mut count = 0u64;
        for u in 0..g.num_vertices() as u32 {
            for &v in base.neighbors(u) {
                assert!(g.neighbors(u).contains(&v));
            }
            count += g.neighbors(u).iter().filter(|&&v| !in_clique(u, v)).count() as u64;
        }
        assert_eq!(g.num_arcs(), base.num_arcs() + count);
        count
    };
    let (c0, c1, c5, c10) = (inter(0.0), inter(0.1), inter(0.5), inter(1.0));
    assert_eq!(c0, 0);
    // Candidates: pairs (u, k) whose target t = (u + 2^k) mod n lies in another clique.
    let n = base.num_vertices() as u32;
    let candidates = (0..n)
        .flat_map(|u| (0..scale).map(move |k| (u, (u + (1 << k)) % n)))
        .filter(|&(u, t)| !in_clique(u, t))
        .count() as u64;
    // With probability 1 every candidate gets its edge; otherwise about p of them.
    assert_eq!(c10, candidates);
    let rate = |c: u64| c as f64 / candidates as f64;
    assert!((0.09..0.11).contains(&rate(c1)), "{}", rate(c1));
    assert!((0.48..0.52).contains(&rate(c5)), "{}", rate(c5));
    assert!(c1 < c5 && c5 < c10);
}

#[test]
fn ssca2_undirected_and_defaults() {
    let opts = GenerateOptions {
        undirected: true,
        ..keep_all()
    };
    let g = generate(&ssca2(10, 8, 0.2), &opts).unwrap();
    assert!(!g.is_directed());
    let d = generate(&ssca2(10, 8, 0.0), &keep_all()).unwrap();
    let u = generate(&ssca2(10, 8, 0.0), &opts).unwrap();
    // Undirected cliques store the same arcs as directed ones.
    assert_eq!(u.out().targets(), d.out().targets());
    assert_eq!(default_max_clique(12), 16);
    assert_eq!(default_max_clique(1), 1);
    // max_clique larger than n is capped: one clique of everything at most.
    let g = generate(&ssca2(3, 1000, 0.0), &keep_all()).unwrap();
    assert!(g.num_arcs() <= 56);
}

// ---------------------------------------------------------------- weights

#[test]
fn integer_weights_in_range() {
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: -7, hi: 3 },
        ..keep_all()
    };
    let g = generate(&kron(10, 16), &opts).unwrap();
    assert_eq!(g.weight_type(), WeightType::I32);
    let w = g.out().weights().as_slice::<i32>().unwrap();
    assert_eq!(w.len() as u64, g.num_arcs());
    assert!(w.iter().all(|x| (-7..=3).contains(x)));
    let mut seen = [0u32; 11];
    for &x in w {
        seen[(x + 7) as usize] += 1;
    }
    // 16384 draws over 11 values: each about 1489.
    assert!(seen.iter().all(|&c| (1300..1700).contains(&c)), "{seen:?}");

    let opts = GenerateOptions {
        weights: WeightSpec::Int {
            lo: -(1 << 40),
            hi: 1 << 40,
        },
        ..keep_all()
    };
    let g = generate(&grid(30, 30, 0.0, 0), &opts).unwrap();
    assert_eq!(g.weight_type(), WeightType::I64);
    let w = g.out().weights().as_slice::<i64>().unwrap();
    assert!(w.iter().all(|x| (-(1 << 40)..=1 << 40).contains(x)));
    assert!(w.iter().any(|&x| x < -(1 << 31)) && w.iter().any(|&x| x > 1 << 31));

    // A single value.
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: 5, hi: 5 },
        ..keep_all()
    };
    let g = generate(&ssca2(8, 5, 0.3), &opts).unwrap();
    let w = g.out().weights().as_slice::<i32>().unwrap();
    assert!(!w.is_empty() && w.iter().all(|&x| x == 5));
}

#[test]
fn float_weights_in_unit_interval() {
    let opts = GenerateOptions {
        weights: WeightSpec::Float,
        ..keep_all()
    };
    let g = generate(
        &Generator::Uniform {
            vertices: 1000,
            edges: 100_000,
        },
        &opts,
    )
    .unwrap();
    assert_eq!(g.weight_type(), WeightType::F64);
    let w = g.out().weights().as_slice::<f64>().unwrap();
    assert_eq!(w.len(), 100_000);
    assert!(w.iter().all(|x| (0.0..1.0).contains(x)));
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    assert!((0.49..0.51).contains(&mean), "mean {mean}");
    let none = generate(&kron(5, 2), &GenerateOptions::default()).unwrap();
    assert_eq!(none.weight_type(), WeightType::None);
}

#[test]
fn keep_lightest_uses_generated_weights() {
    // Default options collapse parallel edges to the lightest.
    let gen = Generator::Uniform {
        vertices: 20,
        edges: 5000,
    };
    let w = WeightSpec::Int { lo: 0, hi: 1000 };
    let all = generate(
        &gen,
        &GenerateOptions {
            weights: w,
            ..keep_all()
        },
    )
    .unwrap();
    let light = generate(
        &gen,
        &GenerateOptions {
            weights: w,
            ..Default::default()
        },
    )
    .unwrap();
    for u in 0..20u32 {
        for &v in light.neighbors(u) {
            let row = all.out().row(u);
            let ws = all.out().weights().as_slice::<i32>().unwrap();
            let min = all
                .neighbors(u)
                .iter()
                .zip(&ws[row])
                .filter(|p| *p.0 == v)
                .map(|p| *p.1)
                .min()
                .unwrap();
            assert_eq!(weight(&light, u, v), Some(f64::from(min)));
        }
    }
}

// ---------------------------------------------------------------- validation

#[test]
fn bad_parameters_are_errors() {
    let opts = GenerateOptions::default();
    let invalid = |gen: Generator, opts: &GenerateOptions| {
        let r = generate(&gen, opts);
        assert!(
            matches!(r, Err(Error::InvalidArgument(_))),
            "{gen:?}: {r:?}"
        );
    };
    invalid(rmat(5, 4, 1.2, 0.0, 0.0), &opts);
    invalid(rmat(5, 4, -0.1, 0.5, 0.2), &opts);
    invalid(rmat(5, 4, 0.5, 0.3, 0.3), &opts);
    invalid(rmat(5, 4, f64::NAN, 0.1, 0.1), &opts);
    invalid(grid(10, 10, 1.0, 0), &opts);
    invalid(grid(10, 10, -0.5, 0), &opts);
    invalid(grid(10, 10, f64::NAN, 0), &opts);
    invalid(grid(0, 10, 0.0, 0), &opts);
    invalid(grid(1, 1, 0.0, 3), &opts);
    invalid(ssca2(5, 0, 0.1), &opts);
    invalid(ssca2(5, 4, 1.5), &opts);
    invalid(ssca2(5, 4, -0.1), &opts);
    invalid(
        Generator::Uniform {
            vertices: 0,
            edges: 1,
        },
        &opts,
    );
    let lo_hi = GenerateOptions {
        weights: WeightSpec::Int { lo: 10, hi: 9 },
        ..opts
    };
    invalid(kron(3, 2), &lo_hi);
    let msg = generate(&kron(3, 2), &lo_hi).unwrap_err().to_string();
    assert!(msg.contains("10..=9"), "{msg}");

    let too_large = |gen: Generator| {
        let r = generate(&gen, &opts);
        assert!(matches!(r, Err(Error::TooLarge { .. })), "{gen:?}: {r:?}");
    };
    too_large(kron(32, 1));
    too_large(kron(40, 16));
    too_large(kron(u32::MAX, 16));
    too_large(rmat(33, 1, 0.25, 0.25, 0.25));
    too_large(ssca2(32, 4, 0.1));
    too_large(Generator::Uniform {
        vertices: MAX_VERTICES + 1,
        edges: 1,
    });
    too_large(grid(u32::MAX, 2, 0.0, 0));
    let msg = generate(&kron(32, 1), &opts).unwrap_err().to_string();
    assert!(msg.contains("2^32"), "{msg}");

    // Sizes that fit the id space but not memory are refused before allocating.
    let oom = |gen: Generator| {
        let r = generate(&gen, &opts);
        assert!(
            matches!(r, Err(Error::OutOfMemory { .. })),
            "{gen:?}: {r:?}"
        );
    };
    oom(Generator::Uniform {
        vertices: 10,
        edges: u64::MAX,
    });
    oom(kron(31, u32::MAX));
    oom(grid(10, 10, 0.5, u64::MAX / 2));
    oom(ssca2(31, 1 << 30, 0.0));
}

// ---------------------------------------------------------------- progress

#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<(String, u64)>>,
    advanced: Mutex<u64>,
}

impl Progress for Recorder {
    fn begin(&self, phase: &str, total: u64) {
        self.events.lock().unwrap().push((phase.to_string(), total));
    }
    fn advance(&self, units: u64) {
        *self.advanced.lock().unwrap() += units;
    }
    fn finish(&self) {
        self.events.lock().unwrap().push(("finish".into(), 0));
    }
}

#[test]
fn progress_counts_generated_edges() {
    for (gen, total) in [
        (kron(14, 8), 8u64 << 14),
        (grid(100, 100, 0.0, 10), 2 * (2 * 100 * 99 + 10)),
    ] {
        let p = Recorder::default();
        generate_with(&gen, &GenerateOptions::default(), &p).unwrap();
        let events = p.events.into_inner().unwrap();
        assert_eq!(
            events,
            vec![
                ("generating".to_string(), total),
                ("finish".to_string(), 0),
                ("building the graph".to_string(), 0),
                ("finish".to_string(), 0),
            ]
        );
        assert_eq!(p.advanced.into_inner().unwrap(), total);
    }
}

// ---------------------------------------------------------------- timing

/// Run with `cargo test --release -p warpgraph --test generators -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing_kronecker_scale_20() {
    for (name, opts) in [
        (
            "default (drop loops, keep lightest)",
            GenerateOptions::default(),
        ),
        (
            "int weights",
            GenerateOptions {
                weights: WeightSpec::Int { lo: 1, hi: 255 },
                ..Default::default()
            },
        ),
        (
            "undirected",
            GenerateOptions {
                undirected: true,
                ..Default::default()
            },
        ),
    ] {
        let t = std::time::Instant::now();
        let g = generate(&kron(20, 16), &opts).unwrap();
        eprintln!(
            "Kronecker scale 20, edge factor 16, {name}: {:.2} s, {} arcs",
            t.elapsed().as_secs_f64(),
            g.num_arcs()
        );
    }
    let p = Timer::default();
    generate_with(&kron(20, 16), &GenerateOptions::default(), &p).unwrap();
}

#[derive(Default)]
struct Timer {
    start: Mutex<Option<(String, std::time::Instant)>>,
}

impl Progress for Timer {
    fn begin(&self, phase: &str, _total: u64) {
        *self.start.lock().unwrap() = Some((phase.to_string(), std::time::Instant::now()));
    }
    fn advance(&self, _units: u64) {}
    fn finish(&self) {
        if let Some((phase, t)) = self.start.lock().unwrap().take() {
            eprintln!("  {phase}: {:.2} s", t.elapsed().as_secs_f64());
        }
    }
}
