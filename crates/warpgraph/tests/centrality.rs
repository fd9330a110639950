//! Centrality: every measure against a serial oracle on random small graphs, hand-checked
//! values from NetworkX's documentation and tests, sampling, the verifier against broken
//! results, and the error cases.
//!
//! The oracle is written here from scratch and shares nothing with Brandes' method: from
//! every source it enumerates every simple path (as a list of arcs of the edge list, not
//! of the CSR), keeps the least weight `D` and the fewest arcs `H` among the lightest
//! paths to each vertex, counts as shortest the paths whose every arc `u -> x` of weight
//! `c` has `D(u) + c = D(x)` and (`c > 0` or `H(u) < H(x)`) (the library's rule for arcs
//! of weight zero), and gives each such path `1 / (number of them)` for the vertices and
//! arcs on it. Float weights are multiples of 1/4, so sums are exact and ties are ties.

use proptest::prelude::*;
use warpgraph::centrality::{
    betweenness, closeness, closeness_on, edge_betweenness, edge_values, harmonic, harmonic_on,
    verify_betweenness, verify_closeness, verify_edge_betweenness, verify_harmonic,
    BetweennessOptions, ClosenessOptions, EdgeBetweennessOptions, HarmonicOptions, Sources,
    Weighting,
};
use warpgraph::{Error, Graph, NoProgress, Weights};

mod common;

/// A drawn graph: `edges` with weights in quarter units for floats (`w / 4`), units for
/// integers, ignored when unweighted.
#[derive(Debug, Clone)]
struct Case {
    n: usize,
    directed: bool,
    edges: Vec<(u32, u32, i64)>,
    wt: u8, // 0 none, 1 i32, 2 i64, 3 f32, 4 f64
}

impl Case {
    fn graph(&self) -> Graph {
        let w = &self.edges;
        let weights = match self.wt {
            0 => Weights::None,
            1 => Weights::from(w.iter().map(|e| e.2 as i32).collect::<Vec<_>>()),
            2 => Weights::from(w.iter().map(|e| e.2).collect::<Vec<_>>()),
            3 => Weights::from(w.iter().map(|e| e.2 as f32 / 4.0).collect::<Vec<_>>()),
            _ => Weights::from(w.iter().map(|e| e.2 as f64 / 4.0).collect::<Vec<_>>()),
        };
        let pairs: Vec<(u32, u32)> = w.iter().map(|e| (e.0, e.1)).collect();
        common::graph(self.n as u64, &pairs, weights, self.directed)
    }

    /// The arcs `(u, v, weight, edge index)`: an undirected edge both ways, a self loop
    /// once.
    fn arcs(&self) -> Vec<(usize, usize, i64, usize)> {
        let mut a = Vec::new();
        for (i, &(u, v, w)) in self.edges.iter().enumerate() {
            let w = if self.wt == 0 { 1 } else { w };
            a.push((u as usize, v as usize, w, i));
            if !self.directed && u != v {
                a.push((v as usize, u as usize, w, i));
            }
        }
        a
    }
}

fn arb_case(max_n: usize) -> impl Strategy<Value = Case> {
    (0..=max_n, any::<bool>(), 0u8..5).prop_flat_map(|(n, directed, wt)| {
        let edge = (0..n.max(1) as u32, 0..n.max(1) as u32, 0i64..4);
        let edges = prop::collection::vec(edge, 0..if n == 0 { 1 } else { 11 });
        edges.prop_map(move |edges| Case {
            n,
            directed,
            edges,
            wt,
        })
    })
}

/// What the oracle finds from every source.
struct Oracle {
    /// `dist[s][t]`: the least weight from `s` to `t`.
    dist: Vec<Vec<Option<i64>>>,
    /// `through[s][x]`: the sum over targets `t` of the share of shortest `s`-`t` paths
    /// through vertex `x`, endpoints included.
    through: Vec<Vec<f64>>,
    /// `on_arc[s][i]`: the same for the arcs of the edge list, summed per edge.
    on_edge: Vec<Vec<f64>>,
}

/// Every simple path from `s`: `(target, weight, arcs used)`.
fn paths(c: &Case, s: usize) -> Vec<(usize, i64, Vec<usize>)> {
    let arcs = c.arcs();
    let mut out = vec![(s, 0, Vec::new())];
    let mut stack = vec![(s, 0i64, Vec::<usize>::new(), vec![s])];
    while let Some((u, w, used, seen)) = stack.pop() {
        for (i, a) in arcs.iter().enumerate() {
            if a.0 == u && !seen.contains(&a.1) {
                let (mut used, mut seen) = (used.clone(), seen.clone());
                used.push(i);
                seen.push(a.1);
                out.push((a.1, w + a.2, used.clone()));
                stack.push((a.1, w + a.2, used, seen));
            }
        }
    }
    out
}

fn oracle(c: &Case) -> Oracle {
    let arcs = c.arcs();
    let mut o = Oracle {
        dist: Vec::new(),
        through: Vec::new(),
        on_edge: Vec::new(),
    };
    for s in 0..c.n {
        let all = paths(c, s);
        let mut d: Vec<Option<i64>> = vec![None; c.n];
        for p in &all {
            d[p.0] = Some(d[p.0].map_or(p.1, |x: i64| x.min(p.1)));
        }
        let mut h: Vec<usize> = vec![usize::MAX; c.n];
        for p in all.iter().filter(|p| Some(p.1) == d[p.0]) {
            h[p.0] = h[p.0].min(p.2.len());
        }
        let counted: Vec<&(usize, i64, Vec<usize>)> = all
            .iter()
            .filter(|p| p.0 != s)
            .filter(|p| {
                p.2.iter().all(|&i| {
                    let (u, x, w, _) = arcs[i];
                    d[u].unwrap() + w == d[x].unwrap() && (w > 0 || h[u] < h[x])
                })
            })
            .collect();
        let mut through = vec![0.0; c.n];
        let mut on_edge = vec![0.0; c.edges.len()];
        for t in 0..c.n {
            let to_t: Vec<_> = counted.iter().filter(|p| p.0 == t).collect();
            let share = 1.0 / to_t.len() as f64;
            for p in &to_t {
                through[s] += share;
                for &i in &p.2 {
                    through[arcs[i].1] += share;
                    on_edge[arcs[i].3] += share;
                }
            }
        }
        o.dist.push(d);
        o.through.push(through);
        o.on_edge.push(on_edge);
    }
    o
}

/// NetworkX's `_rescale` factor of vertex `v`.
fn nx_scale(
    n: usize,
    k: Option<&[u32]>,
    v: usize,
    normalized: bool,
    directed: bool,
    endpoints: bool,
) -> f64 {
    let nn = if endpoints { n as f64 } else { n as f64 - 1.0 };
    if nn < 2.0 {
        return 1.0;
    }
    let corr = if directed { 1.0 } else { 2.0 };
    let ks = k.map_or(nn, |k| k.len() as f64);
    let is_source = k.is_some_and(|k| k.contains(&(v as u32)));
    let ks = if k.is_some() && !endpoints && is_source {
        ks - 1.0
    } else {
        ks
    };
    if normalized {
        1.0 / (ks * (nn - 1.0))
    } else {
        nn / (ks * corr)
    }
}

/// The oracle's betweenness from `sources`.
fn oracle_betweenness(
    c: &Case,
    o: &Oracle,
    sources: Option<&[u32]>,
    e: bool,
    norm: bool,
) -> Vec<f64> {
    let all: Vec<u32> = (0..c.n as u32).collect();
    let list = sources.unwrap_or(&all);
    (0..c.n)
        .map(|v| {
            let mut sum = 0.0;
            for &s in list {
                let s = s as usize;
                sum += if e {
                    o.through[s][v]
                } else if v == s {
                    0.0
                } else {
                    // Endpoints excluded: remove the paths ending at v.
                    let ends = if o.dist[s][v].is_some() { 1.0 } else { 0.0 };
                    o.through[s][v] - ends
                };
            }
            sum * nx_scale(c.n, sources, v, norm, c.directed, e)
        })
        .collect()
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0) || (a.is_nan() && b.is_nan())
}

fn assert_near(got: &[f64], want: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        prop_assert!(near(*a, *b), "at {}: got {:?}, want {:?}", i, got, want);
    }
    Ok(())
}

/// Closeness (with `wf` the correction) and harmonic centrality (from the sources `pick`'s
/// bits name) of `c` on `gpu` (the CPU when `None`) against the oracle; both verify.
fn distance_measures(
    c: &Case,
    wf: bool,
    pick: u64,
    gpu: Option<&std::sync::Arc<warpgraph::cuda::Gpu>>,
) -> Result<(), TestCaseError> {
    let g = c.graph();
    let o = oracle(c);
    let n = c.n;
    let od = &o.dist;
    let into = |v: usize| (0..n).filter_map(move |u| od[u][v].map(|d| (u, d)));
    let unit = if c.wt >= 3 { 4.0 } else { 1.0 };
    let want_c: Vec<f64> = (0..n)
        .map(|v| {
            let r = into(v).count() as f64;
            let tot: f64 = into(v).map(|(_, d)| d as f64 / unit).sum();
            if tot > 0.0 && n > 1 {
                let x = (r - 1.0) / tot;
                if wf {
                    x * (r - 1.0) / (n as f64 - 1.0)
                } else {
                    x
                }
            } else {
                0.0
            }
        })
        .collect();
    let opts = ClosenessOptions {
        wf_improved: wf,
        ..Default::default()
    };
    let r = closeness_on(&g, &opts, gpu, &NoProgress).unwrap();
    assert_near(&r.values, &want_c)?;
    prop_assert_eq!(r.kernel_seconds.is_some(), gpu.is_some() && n > 0);
    verify_closeness(&g, &opts, &r, usize::MAX, 4).unwrap();

    let sources: Vec<u32> = (0..n as u32).filter(|v| pick >> v & 1 == 1).collect();
    let want_h: Vec<f64> = (0..n)
        .map(|v| {
            into(v)
                .filter(|&(u, d)| d > 0 && sources.contains(&(u as u32)))
                .map(|(_, d)| unit / d as f64)
                .sum()
        })
        .collect();
    let opts = HarmonicOptions {
        sources: Some(sources.clone()),
        ..Default::default()
    };
    let r = harmonic_on(&g, &opts, gpu, &NoProgress).unwrap();
    assert_near(&r.values, &want_h)?;
    verify_harmonic(&g, &opts, &r, usize::MAX, 5).unwrap();
    Ok(())
}

/// Edge values per (u, v) pair, sorted, for comparing parallel edges as a multiset.
fn by_pair(mut v: Vec<(u32, u32, f64)>) -> Vec<(u32, u32, f64)> {
    v.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Vertex betweenness, every option, matches the oracle and verifies.
    #[test]
    fn betweenness_matches_oracle(c in arb_case(6), e in any::<bool>(), norm in any::<bool>()) {
        let g = c.graph();
        let o = oracle(&c);
        let opts = BetweennessOptions { endpoints: e, normalized: norm, ..Default::default() };
        let r = betweenness(&g, &opts, &NoProgress).unwrap();
        assert_near(&r.values, &oracle_betweenness(&c, &o, None, e, norm))?;
        verify_betweenness(&g, &opts, &r, usize::MAX, 1).unwrap();
    }

    /// Betweenness from a list of sources, scaled as NetworkX scales a sample.
    #[test]
    fn listed_sources_match_oracle(
        c in arb_case(6), e in any::<bool>(), norm in any::<bool>(), pick in any::<u64>()
    ) {
        prop_assume!(c.n > 0);
        let first = (pick % c.n as u64) as u32;
        let list: Vec<u32> =
            (0..c.n as u32).filter(|&v| v == first || pick >> (v + 8) & 1 == 1).collect();
        let g = c.graph();
        let o = oracle(&c);
        let opts = BetweennessOptions {
            sources: Sources::List(list.clone()), endpoints: e, normalized: norm,
            ..Default::default()
        };
        let r = betweenness(&g, &opts, &NoProgress).unwrap();
        assert_near(&r.values, &oracle_betweenness(&c, &o, Some(&list), e, norm))?;
        verify_betweenness(&g, &opts, &r, usize::MAX, 2).unwrap();
    }

    /// Edge betweenness per edge matches the oracle and verifies.
    #[test]
    fn edge_betweenness_matches_oracle(c in arb_case(6), norm in any::<bool>()) {
        let g = c.graph();
        let o = oracle(&c);
        let opts = EdgeBetweennessOptions { normalized: norm, ..Default::default() };
        let r = edge_betweenness(&g, &opts, &NoProgress).unwrap();
        verify_edge_betweenness(&g, &opts, &r, usize::MAX, 3).unwrap();
        let got = by_pair(edge_values(&g, &r.values));
        let mut want = Vec::new();
        for (i, &(u, v, _)) in c.edges.iter().enumerate() {
            let sum: f64 = o.on_edge.iter().map(|row| row[i]).sum();
            let s = nx_scale(c.n, None, 0, norm, c.directed, true);
            let (a, b) = if c.directed { (u, v) } else { (u.min(v), u.max(v)) };
            want.push((a, b, sum * s));
        }
        let want = by_pair(want);
        prop_assert_eq!(got.len(), want.len());
        for (x, y) in got.iter().zip(&want) {
            prop_assert!(x.0 == y.0 && x.1 == y.1 && near(x.2, y.2), "got {:?} want {:?}", got, want);
        }
    }

    /// Closeness (both corrections) and harmonic centrality (all sources or some) match
    /// the oracle and verify.
    #[test]
    fn distance_measures_match_oracle(c in arb_case(6), wf in any::<bool>(), pick in any::<u64>()) {
        distance_measures(&c, wf, pick, None)?;
    }

    /// A sample of all n sources is the exact measure; the same seed draws the same
    /// sources and gives the same values, bit for bit.
    #[test]
    fn sampling_is_exact_at_n_and_reproducible(c in arb_case(6), e in any::<bool>(), seed in any::<u64>()) {
        prop_assume!(c.n > 0);
        let g = c.graph();
        let exact = betweenness(&g, &BetweennessOptions { endpoints: e, normalized: true, ..Default::default() }, &NoProgress).unwrap();
        let opts = |k| BetweennessOptions {
            sources: Sources::Sample { k, seed }, endpoints: e, normalized: true,
            ..Default::default()
        };
        let all = betweenness(&g, &opts(c.n), &NoProgress).unwrap();
        assert_near(&all.values, &exact.values)?;
        let k = c.n.div_ceil(2);
        let a = betweenness(&g, &opts(k), &NoProgress).unwrap();
        let b = betweenness(&g, &opts(k), &NoProgress).unwrap();
        prop_assert_eq!(a.sources.len(), k);
        prop_assert_eq!(&a.sources, &b.sources);
        prop_assert_eq!(
            a.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            b.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

/// The undirected graph of `edges` on `n` vertices, unweighted.
fn undirected(n: u64, edges: &[(u32, u32)]) -> Graph {
    common::graph(n, edges, Weights::None, false)
}

fn path(n: u32) -> Graph {
    let e: Vec<(u32, u32)> = (1..n).map(|v| (v - 1, v)).collect();
    undirected(n as u64, &e)
}

fn exact(normalized: bool) -> BetweennessOptions {
    BetweennessOptions {
        normalized,
        ..Default::default()
    }
}

#[test]
fn networkx_path_and_star_values() {
    // NetworkX: betweenness_centrality(path_graph(5), normalized=False) = 0, 3, 4, 3, 0.
    let b = betweenness(&path(5), &exact(false), &NoProgress).unwrap();
    assert_eq!(b.values, vec![0.0, 3.0, 4.0, 3.0, 0.0]);
    // P3 normalized: 0, 1, 0 (NetworkX's test_P3_normalized).
    let b = betweenness(&path(3), &exact(true), &NoProgress).unwrap();
    assert_eq!(b.values, vec![0.0, 1.0, 0.0]);
    // star_graph(4): the centre lies on every path between leaves.
    let star = undirected(5, &[(0, 1), (0, 2), (0, 3), (0, 4)]);
    let b = betweenness(&star, &exact(true), &NoProgress).unwrap();
    assert_eq!(b.values, vec![1.0, 0.0, 0.0, 0.0, 0.0]);
    // Edge betweenness of P4, normalized: 0.5, 2/3, 0.5; unnormalized: 3, 4, 3.
    let g = path(4);
    let opts = EdgeBetweennessOptions {
        normalized: true,
        ..Default::default()
    };
    let r = edge_betweenness(&g, &opts, &NoProgress).unwrap();
    let e: Vec<f64> = edge_values(&g, &r.values).iter().map(|x| x.2).collect();
    assert_eq!(e, vec![0.5, 8.0 / 12.0, 0.5]);
    let opts = EdgeBetweennessOptions {
        normalized: false,
        ..Default::default()
    };
    let r = edge_betweenness(&g, &opts, &NoProgress).unwrap();
    let e: Vec<f64> = edge_values(&g, &r.values).iter().map(|x| x.2).collect();
    assert_eq!(e, vec![3.0, 4.0, 3.0]);
    // Closeness of P3 (NetworkX's test_p3_closeness): 2/3, 1, 2/3.
    let c = closeness(&path(3), &ClosenessOptions::default(), &NoProgress).unwrap();
    assert_eq!(c.values, vec![2.0 / 3.0, 1.0, 2.0 / 3.0]);
    // Harmonic of P4: 1 + 1/2 + 1/3 at the ends, 1 + 1 + 1/2 inside.
    let h = harmonic(&path(4), &HarmonicOptions::default(), &NoProgress).unwrap();
    assert_eq!(
        h.values,
        vec![1.0 + 0.5 + 1.0 / 3.0, 2.5, 2.5, 1.0 + 0.5 + 1.0 / 3.0]
    );
}

#[test]
fn empty_and_single_vertex_graphs() {
    for n in [0u64, 1] {
        let g = undirected(n, &[]);
        let b = betweenness(&g, &exact(true), &NoProgress).unwrap();
        assert_eq!(b.values, vec![0.0; n as usize]);
        let c = closeness(&g, &ClosenessOptions::default(), &NoProgress).unwrap();
        assert_eq!(c.values, vec![0.0; n as usize]);
        let h = harmonic(&g, &HarmonicOptions::default(), &NoProgress).unwrap();
        assert_eq!(h.values, vec![0.0; n as usize]);
    }
}

#[test]
fn negative_weight_is_refused_naming_the_arc() {
    let g = common::graph(3, &[(0, 1), (1, 2)], Weights::from(vec![1i32, -2]), true);
    for r in [
        betweenness(&g, &exact(true), &NoProgress).map(|_| ()),
        closeness(&g, &ClosenessOptions::default(), &NoProgress).map(|_| ()),
    ] {
        match r {
            Err(Error::NegativeWeight {
                from, to, weight, ..
            }) => {
                assert_eq!((from, to, weight.as_str()), (1, 2, "-2"));
            }
            other => panic!("expected a negative-weight error, got {other:?}"),
        }
    }
    // Unit weights ignore the graph's own.
    let opts = BetweennessOptions {
        weighting: Weighting::Unit,
        ..exact(false)
    };
    let b = betweenness(&g, &opts, &NoProgress).unwrap();
    assert_eq!(b.values, vec![0.0, 1.0, 0.0]);
}

#[test]
fn bad_sources_are_refused() {
    let g = path(4);
    for sources in [
        Sources::Sample { k: 5, seed: 1 },
        Sources::Sample { k: 0, seed: 1 },
        Sources::List(vec![1, 1]),
        Sources::List(vec![4]),
    ] {
        let opts = BetweennessOptions {
            sources,
            ..exact(true)
        };
        let r = betweenness(&g, &opts, &NoProgress);
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
}

#[test]
fn verifier_catches_broken_results() {
    let g = undirected(6, &[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3), (3, 5)]);
    let opts = exact(true);
    let good = betweenness(&g, &opts, &NoProgress).unwrap();
    verify_betweenness(&g, &opts, &good, 6, 1).unwrap();
    // A wrong value.
    let mut r = good.clone();
    r.values[2] += 1e-3;
    assert!(matches!(
        verify_betweenness(&g, &opts, &r, 0, 1),
        Err(Error::VerificationFailed(_))
    ));
    // A source's contribution lost (value and fingerprint agree; the recomputation does not).
    let mut r = good.clone();
    let lost = r.fingerprints[3];
    r.fingerprints[3] = 0.0;
    r.fingerprints[0] += lost;
    let e = verify_betweenness(&g, &opts, &r, 6, 1);
    assert!(matches!(e, Err(Error::VerificationFailed(_))), "{e:?}");
    // A result of another graph, consistent in itself: caught by the recomputation.
    let other = undirected(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]);
    let r = betweenness(&other, &opts, &NoProgress).unwrap();
    assert!(verify_betweenness(&g, &opts, &r, 0, 1).is_ok());
    assert!(matches!(
        verify_betweenness(&g, &opts, &r, 2, 1),
        Err(Error::VerificationFailed(_))
    ));
    // Edge betweenness, closeness, harmonic.
    let eopts = EdgeBetweennessOptions::default();
    let mut r = edge_betweenness(&g, &eopts, &NoProgress).unwrap();
    r.values[0] *= 2.0;
    assert!(verify_edge_betweenness(&g, &eopts, &r, 1, 1).is_err());
    let copts = ClosenessOptions::default();
    let mut r = closeness(&g, &copts, &NoProgress).unwrap();
    verify_closeness(&g, &copts, &r, 6, 1).unwrap();
    r.values[5] = 0.5;
    assert!(verify_closeness(&g, &copts, &r, 6, 1).is_err());
    let hopts = HarmonicOptions::default();
    let mut r = harmonic(&g, &hopts, &NoProgress).unwrap();
    verify_harmonic(&g, &hopts, &r, 6, 1).unwrap();
    r.values[0] += 0.25;
    assert!(verify_harmonic(&g, &hopts, &r, 6, 1).is_err());
}

#[test]
fn zero_weight_ties_count_fewest_arcs() {
    // 0 -1-> 1 -0-> 3 and 0 -1-> 2 -0-> 3: two shortest paths to 3, one through 1 and
    // one through 2. The zero arc 3 -> 1 back is no step of a shortest path (1 is one
    // arc from 0, 3 two), nor is 1 -> 3 from source 2... which cannot reach 1 at all.
    let g = common::graph(
        4,
        &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)],
        Weights::from(vec![1i64, 1, 0, 0, 0]),
        true,
    );
    let b = betweenness(&g, &exact(false), &NoProgress).unwrap();
    // Pair (0, 3): half through 1, half through 2; pair (2, 1): through 3.
    assert_eq!(b.values, vec![0.0, 0.5, 0.5, 1.0]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Betweenness on the GPU (arcs counted, not weighed), exact or from listed sources,
    /// with and without endpoints: the oracle's values on the graph without its weights,
    /// and the verifier passes them. Where no GPU can be used this checks nothing (and
    /// fails with `WARPGRAPH_REQUIRE_GPU=1`).
    #[test]
    fn gpu_betweenness_matches_oracle(
        c in arb_case(6), e in any::<bool>(), norm in any::<bool>(), pick in any::<u64>(),
        listed in any::<bool>(),
    ) {
        let Some(gpu) = common::gpu() else { return Ok(()); };
        let c = Case { wt: 0, ..c };
        let g = c.graph();
        let o = oracle(&c);
        let list: Option<Vec<u32>> = (listed && c.n > 0).then(|| {
            let first = (pick % c.n as u64) as u32;
            (0..c.n as u32).filter(|&v| v == first || pick >> (v + 8) & 1 == 1).collect()
        });
        let opts = BetweennessOptions {
            sources: list.clone().map_or(Sources::All, Sources::List),
            endpoints: e, normalized: norm, ..Default::default()
        };
        let r = warpgraph::centrality::betweenness_on(&g, &opts, Some(&gpu), &NoProgress)
            .unwrap();
        assert_near(&r.values, &oracle_betweenness(&c, &o, list.as_deref(), e, norm))?;
        verify_betweenness(&g, &opts, &r, usize::MAX, 3).unwrap();
    }

    /// Closeness and harmonic centrality on the GPU (the rows of a distance table), every
    /// weight type, directed and undirected: the oracle's values, and they verify.
    #[test]
    fn gpu_distance_measures_match_oracle(c in arb_case(6), wf in any::<bool>(), pick in any::<u64>()) {
        let Some(gpu) = common::gpu() else { return Ok(()); };
        distance_measures(&c, wf, pick, Some(&gpu))?;
    }
}

/// Bigger graphs on the GPU: a Kronecker graph (hubs, many levels' worth of ties) and a
/// road-like grid (thousands of levels), sampled sources in several batches' worth, with
/// and without endpoints, against the CPU; a weighted graph is refused unless its arcs
/// are counted.
#[test]
fn gpu_betweenness_matches_the_cpu_on_generated_graphs() {
    use warpgraph::generate::{generate, GenerateOptions};
    let Some(gpu) = common::gpu() else {
        return;
    };
    for spec in kron_and_grid() {
        let g = generate(&spec, &GenerateOptions::default()).unwrap();
        for endpoints in [false, true] {
            let opts = BetweennessOptions {
                sources: Sources::Sample { k: 300, seed: 5 },
                endpoints,
                weighting: Weighting::Unit,
                ..Default::default()
            };
            let cpu = betweenness(&g, &opts, &NoProgress).unwrap();
            let on_gpu =
                warpgraph::centrality::betweenness_on(&g, &opts, Some(&gpu), &NoProgress).unwrap();
            assert!(on_gpu.kernel_seconds.is_some());
            for (v, (a, b)) in on_gpu.values.iter().zip(&cpu.values).enumerate() {
                assert!(
                    near(*a, *b),
                    "{spec:?} endpoints {endpoints}: vertex {v}: {a} vs {b}"
                );
            }
            verify_betweenness(&g, &opts, &on_gpu, 16, 4).unwrap();
        }
    }
    let weighted = common::graph(3, &[(0, 1), (1, 2)], Weights::from(vec![2i32, 3]), false);
    let r = warpgraph::centrality::betweenness_on(
        &weighted,
        &BetweennessOptions::default(),
        Some(&gpu),
        &NoProgress,
    );
    assert!(matches!(r, Err(Error::Unsupported(_))), "{r:?}");
}

/// Closeness and harmonic centrality on the GPU against the CPU on bigger graphs, each
/// reaching a different table search: Kronecker unweighted and undirected (multi-source
/// BFS), a weighted road-like grid (buckets, rows in device memory), a directed graph of
/// float weights (its reversed arcs), and the grid's arcs counted (its weights dropped);
/// some vertices measured, from some sources.
#[test]
fn gpu_closeness_and_harmonic_match_the_cpu_on_generated_graphs() {
    use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
    let Some(gpu) = common::gpu() else {
        return;
    };
    let [kron, grid] = kron_and_grid();
    let urand = Generator::Uniform {
        vertices: 2048,
        edges: 16384,
    };
    let int = WeightSpec::Int { lo: 1, hi: 255 };
    let cases = [
        (kron, WeightSpec::None, true, Weighting::Graph),
        (grid.clone(), int, true, Weighting::Graph),
        (urand, WeightSpec::Float, false, Weighting::Graph),
        (grid, int, true, Weighting::Unit),
    ];
    for (spec, weights, undirected, weighting) in cases {
        let gen = GenerateOptions {
            weights,
            undirected,
            ..Default::default()
        };
        let g = generate(&spec, &gen).unwrap();
        let n = g.num_vertices() as u32;
        let some: Vec<u32> = (0..n).step_by(7).collect();
        let opts = ClosenessOptions {
            weighting,
            vertices: Some(some.clone()),
            ..Default::default()
        };
        let cpu = closeness(&g, &opts, &NoProgress).unwrap();
        let on_gpu = closeness_on(&g, &opts, Some(&gpu), &NoProgress).unwrap();
        assert!(on_gpu.kernel_seconds.is_some());
        assert_eq!(on_gpu.vertices, some);
        assert_all_near(&on_gpu.values, &cpu.values, &format!("{spec:?} closeness"));
        verify_closeness(&g, &opts, &on_gpu, 16, 4).unwrap();
        let opts = HarmonicOptions {
            weighting,
            sources: Some((0..n).step_by(3).collect()),
            ..Default::default()
        };
        let cpu = harmonic(&g, &opts, &NoProgress).unwrap();
        let on_gpu = harmonic_on(&g, &opts, Some(&gpu), &NoProgress).unwrap();
        assert_all_near(&on_gpu.values, &cpu.values, &format!("{spec:?} harmonic"));
        verify_harmonic(&g, &opts, &on_gpu, 16, 4).unwrap();
    }
}

/// The GPU tests' bigger graphs: Kronecker 12 (hubs, many levels' worth of ties) and a
/// road-like grid 60 x 80 (many levels).
fn kron_and_grid() -> [warpgraph::generate::Generator; 2] {
    use warpgraph::generate::Generator;
    let kron = Generator::Kronecker {
        scale: 12,
        edge_factor: 16,
    };
    let grid = Generator::Grid {
        rows: 60,
        cols: 80,
        remove: 0.1,
        shortcuts: 10,
    };
    [kron, grid]
}

/// `got` and `want` agree value for value, up to the order of floating-point additions.
fn assert_all_near(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(near(*a, *b), "{what}: {v}: {a} vs {b}");
    }
}
