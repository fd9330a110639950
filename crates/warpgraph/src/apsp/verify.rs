//! Verifying all-pairs results without trusting the algorithms that produced them.
//!
//! A row `d = D[s]` (with optional predecessors `p`) passes [`verify_row`] when it satisfies
//! the single-source shortest-path certificate on the graph:
//! 1. `d[s] == 0`;
//! 2. for every arc `u -> v` of weight `w` with `d[u]` finite: `d[v]` is finite and
//!    `d[v] <= d[u] + w` (no arc can improve a distance, so `d` is at most the true
//!    distance, and everything reachable is reached);
//! 3. every finite `d[v]` is reached from `s` along *tight* arcs (`d[u] + w == d[v]`), so
//!    each `d[v]` is the length of a real path and at least the true distance; this also
//!    rules out a zero-weight cycle of tight arcs detached from `s`;
//! 4. with predecessors: `p[s] == s`, `p[v] == NO_VERTEX` exactly when `d[v]` is infinite,
//!    otherwise `p[v] -> v` is a tight arc, and following `p` from any vertex ends at `s`.
//!
//! Together 1-3 prove `d` equal to the true distances when the graph has no negative cycle
//! (and no row can pass 2 when a negative cycle is reachable from `s`). Integer distances
//! are compared exactly (in `i128`, so the checks themselves cannot overflow); float ones
//! within `64 * eps * (n + 1) * n * max|w|`, a bound on the rounding of any order of
//! summation.
//!
//! [`verify_matrix`] and [`VerifyingSink`] check a fixed sample of rows: every row when
//! `n <= 64`, otherwise 64 sources drawn with a fixed seed plus the first and last. On small
//! graphs (`n * m <= 2^24`) each sampled row is also compared with a plain serial
//! Bellman-Ford oracle (O(n m) per source). Every row's diagonal entry is checked.
//!
//! This follows GAPBS's verifiers (Beamer, Asanovic and Patterson, "The GAP benchmark
//! suite", 2015): check properties that any correct answer has, plus a serial oracle.

use super::{Axis, DistMatrix, DistType, Dists, RowBlock, RowSink, RowsInfo};
use crate::error::{Error, Result};
use crate::generate::rng::Rng;
use crate::graph::{Graph, VertexId, Weight, WeightType, NO_VERTEX};
use crate::with_weights;

/// Rows checked when `n` is larger than this: `SAMPLE` random ones plus the first and last.
const SAMPLE: usize = 64;
/// The seed of the sample.
const SEED: u64 = 0x5eed_a959;
/// Largest `n * m` for which sampled rows are also compared with the oracle.
const ORACLE_WORK: u64 = 1 << 24;

fn fail(msg: String) -> Error {
    Error::VerificationFailed(msg)
}

/// The sources checked on an `n`-vertex graph, sorted.
fn sample_sources(n: usize) -> Vec<VertexId> {
    if n <= SAMPLE {
        return (0..n as VertexId).collect();
    }
    let mut rng = Rng::new(SEED);
    let mut s: Vec<VertexId> = (0..SAMPLE)
        .map(|_| rng.below(n as u64) as VertexId)
        .collect();
    s.push(0);
    s.push((n - 1) as VertexId);
    s.sort_unstable();
    s.dedup();
    s
}

/// Distance arithmetic for the checks: exact for integers, with tolerance for floats.
trait VDist: Copy + PartialEq + std::fmt::Display {
    fn finite(self) -> bool;
    /// `a + w` compared with `b`: `Less` when `b < a + w` beyond tolerance, etc.
    fn cmp_sum(a: Self, w: Self, b: Self, tol: f64) -> std::cmp::Ordering;
    fn is_zero(self) -> bool;
    /// `a + w` (for the oracle), `None` on overflow.
    fn add(a: Self, w: Self) -> Option<Self>;
    fn less(a: Self, b: Self) -> bool;
    fn close(a: Self, b: Self, tol: f64) -> bool;
    const INF: Self;
    const ZERO: Self;
}

impl VDist for i64 {
    fn finite(self) -> bool {
        self != i64::MAX
    }
    fn cmp_sum(a: i64, w: i64, b: i64, _tol: f64) -> std::cmp::Ordering {
        (i128::from(b)).cmp(&(i128::from(a) + i128::from(w)))
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn add(a: i64, w: i64) -> Option<i64> {
        a.checked_add(w).filter(|&x| x != i64::MAX)
    }
    fn less(a: i64, b: i64) -> bool {
        a < b
    }
    fn close(a: i64, b: i64, _tol: f64) -> bool {
        a == b
    }
    const INF: i64 = i64::MAX;
    const ZERO: i64 = 0;
}

impl VDist for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn cmp_sum(a: f64, w: f64, b: f64, tol: f64) -> std::cmp::Ordering {
        let diff = b - (a + w);
        if diff > tol {
            std::cmp::Ordering::Greater
        } else if diff < -tol {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn add(a: f64, w: f64) -> Option<f64> {
        Some(a + w).filter(|x| x.is_finite())
    }
    fn less(a: f64, b: f64) -> bool {
        a < b
    }
    fn close(a: f64, b: f64, tol: f64) -> bool {
        a == b || (a - b).abs() <= tol
    }
    const INF: f64 = f64::INFINITY;
    const ZERO: f64 = 0.0;
}

/// The graph's arcs with weights of distance type `D`, for the checks.
struct Arcs<'g, D> {
    g: &'g Graph,
    w: Vec<D>,
    tol: f64,
}

impl<'g, D: VDist> Arcs<'g, D> {
    fn weight(&self, i: usize) -> D {
        self.w.get(i).copied().unwrap_or(D::INF)
    }

    fn targets(&self, u: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let csr = self.g.out();
        let range = csr.row(u as VertexId);
        csr.targets()[range.clone()]
            .iter()
            .zip(range)
            .map(|(&v, i)| (v as usize, i))
    }
}

fn int_arcs(g: &Graph) -> Arcs<'_, i64> {
    let w: Vec<i64> = with_weights!(g.out().weights(),
        ws => ws.iter().map(|x| x.to_i64().unwrap_or(0)).collect(),
        none => vec![1; g.num_arcs() as usize]);
    Arcs { g, w, tol: 0.0 }
}

fn float_arcs(g: &Graph) -> Arcs<'_, f64> {
    let w: Vec<f64> = with_weights!(g.out().weights(),
        ws => ws.iter().map(|x| x.to_f64()).collect(),
        none => vec![1.0; g.num_arcs() as usize]);
    let wmax = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let n = g.num_vertices() as f64;
    let tol = 64.0 * f64::EPSILON * (n + 1.0) * n * wmax;
    Arcs { g, w, tol }
}

/// Checks one row of an all-pairs result against the shortest-path certificate (see the
/// [module docs](self)).
///
/// # Arguments
/// * `g` - the graph the row was computed on.
/// * `source` - the row's source.
/// * `dist` - its `n` distances (`i64` for integer or unweighted graphs, `f64` for float
///   weights).
/// * `pred` - its `n` predecessors, if computed.
///
/// # Returns
/// `()` when the row is correct.
///
/// # Errors
/// [`Error::VerificationFailed`] naming the first violated property.
///
/// # Complexity
/// O(n + m).
///
/// ```
/// use warpgraph::apsp::{verify_row, Dists};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --2--> 1 --3--> 2
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::from(vec![2, 3])).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// verify_row(&g, 0, Dists::I64(&[0, 2, 5]), None).unwrap();
/// assert!(verify_row(&g, 0, Dists::I64(&[0, 2, 4]), None).is_err()); // too short
/// assert!(verify_row(&g, 0, Dists::I64(&[0, 2, 6]), None).is_err()); // too long
/// ```
pub fn verify_row(
    g: &Graph,
    source: VertexId,
    dist: Dists<'_>,
    pred: Option<&[VertexId]>,
) -> Result<()> {
    check_type(g, dist.dist_type())?;
    match dist {
        Dists::I64(d) => row_checks(&int_arcs(g), source, d, pred, false),
        Dists::F64(d) => row_checks(&float_arcs(g), source, d, pred, false),
    }
}

fn check_type(g: &Graph, t: DistType) -> Result<()> {
    let want = DistType::of(g.weight_type());
    if want != t {
        return Err(fail(format!(
            "the graph's {} weights give {} distances, the result has {}",
            g.weight_type(),
            want.name(),
            t.name()
        )));
    }
    Ok(())
}

fn row_checks<D: VDist>(
    arcs: &Arcs<'_, D>,
    s: VertexId,
    d: &[D],
    pred: Option<&[VertexId]>,
    oracle: bool,
) -> Result<()> {
    let g = arcs.g;
    let n = g.num_vertices();
    let su = s as usize;
    if su >= n {
        return Err(fail(format!("source {s} is not a vertex (n = {n})")));
    }
    if d.len() != n || pred.is_some_and(|p| p.len() != n) {
        return Err(fail(format!(
            "row {s} has {} values for {n} vertices",
            d.len()
        )));
    }
    let tol = arcs.tol;
    // 1. d[s] == 0.
    if !d[su].is_zero() {
        return Err(fail(format!("distance from {s} to itself is {}", d[su])));
    }
    // 2. No arc improves a distance; finite sets are closed under arcs.
    for u in 0..n {
        if !d[u].finite() {
            continue;
        }
        for (v, i) in arcs.targets(u) {
            let w = arcs.weight(i);
            let dv = d.get(v).copied().unwrap_or(D::INF);
            if !dv.finite() {
                return Err(fail(format!(
                    "row {s}: vertex {v} is unreachable but arc {u} -> {v} leaves reached vertex {u}"
                )));
            }
            if D::cmp_sum(d[u], w, dv, tol) == std::cmp::Ordering::Greater {
                return Err(fail(format!(
                    "row {s}: arc {u} -> {v} of weight {w} improves d({v}) = {dv} to {} + {w}",
                    d[u]
                )));
            }
        }
    }
    // 3. Every finite distance is reached from s along tight arcs.
    let mut seen = vec![false; n];
    seen[su] = true;
    let mut stack = vec![su];
    while let Some(u) = stack.pop() {
        for (v, i) in arcs.targets(u) {
            if v < n
                && !seen[v]
                && d[v].finite()
                && D::cmp_sum(d[u], arcs.weight(i), d[v], tol) == std::cmp::Ordering::Equal
            {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    if let Some(v) = (0..n).find(|&v| d[v].finite() && !seen[v]) {
        return Err(fail(format!(
            "row {s}: d({v}) = {} is not the length of any path from {s} (no tight arcs lead there)",
            d[v]
        )));
    }
    // 4. Predecessors form a tree of tight arcs rooted at s.
    if let Some(p) = pred {
        check_preds(arcs, s, d, p)?;
    }
    if oracle {
        let truth = bellman_ford(arcs, su)?;
        if let Some(v) = (0..n).find(|&v| {
            let (a, b) = (d[v], truth[v]);
            a.finite() != b.finite() || (a.finite() && !D::close(a, b, tol))
        }) {
            return Err(fail(format!(
                "row {s}: d({v}) = {}, but Bellman-Ford gives {}",
                d[v], truth[v]
            )));
        }
    }
    Ok(())
}

fn check_preds<D: VDist>(arcs: &Arcs<'_, D>, s: VertexId, d: &[D], p: &[VertexId]) -> Result<()> {
    let n = d.len();
    let su = s as usize;
    if p[su] != s {
        return Err(fail(format!(
            "row {s}: the source's predecessor is {}",
            p[su]
        )));
    }
    for v in (0..n).filter(|&v| v != su) {
        let pv = p[v];
        match (d[v].finite(), pv == NO_VERTEX) {
            (false, true) => continue,
            (false, false) => {
                return Err(fail(format!(
                    "row {s}: unreachable vertex {v} has predecessor {pv}"
                )))
            }
            (true, true) => {
                return Err(fail(format!(
                    "row {s}: reached vertex {v} has no predecessor"
                )))
            }
            (true, false) => {}
        }
        let pu = pv as usize;
        let tight = pu < n
            && d[pu].finite()
            && arcs
                .targets(pu)
                .any(|(t, i)| t == v && D::cmp_sum(d[pu], arcs.weight(i), d[v], arcs.tol).is_eq());
        if !tight {
            return Err(fail(format!(
                "row {s}: predecessor {pv} of {v} is not the tail of a tight arc into {v}"
            )));
        }
    }
    // Following predecessors from any vertex must end at s: mark vertices known to.
    let mut state = vec![0u8; n]; // 0 unknown, 1 on the current walk, 2 leads to s
    state[su] = 2;
    let mut walk = Vec::new();
    for (v, dv) in d.iter().enumerate() {
        if !dv.finite() {
            continue;
        }
        let mut x = v;
        while state[x] == 0 {
            state[x] = 1;
            walk.push(x);
            x = p[x] as usize;
        }
        if state[x] == 1 {
            return Err(fail(format!(
                "row {s}: the predecessors of {v} run in a cycle through {x}"
            )));
        }
        for y in walk.drain(..) {
            state[y] = 2;
        }
    }
    Ok(())
}

/// A table row from `s` to the vertices of `cols` against `truth`, the checked row of all
/// distances from `s`: every distance equal (floats within the tolerance); a predecessor
/// is `s` for `s` itself, none exactly for unreachable targets, else the tail of a tight
/// arc into its target.
fn table_checks<D: VDist>(
    arcs: &Arcs<'_, D>,
    (s, cols): (VertexId, &Axis),
    d: &[D],
    pred: Option<&[VertexId]>,
    truth: &[D],
) -> Result<()> {
    if d.len() != cols.len() || pred.is_some_and(|p| p.len() != d.len()) {
        return Err(fail(format!(
            "the row of source {s} has {} values for {} targets",
            d.len(),
            cols.len()
        )));
    }
    for (j, &x) in d.iter().enumerate() {
        let t = cols.vertex(j) as usize;
        if !(x == truth[t] || x.finite() && D::close(x, truth[t], arcs.tol)) {
            return Err(fail(format!(
                "the distance from {s} to {t} is {x}, but a single search gives {}",
                truth[t]
            )));
        }
        let Some(p) = pred.map(|p| p[j]) else {
            continue;
        };
        let ok = match (t == s as usize, x.finite(), p) {
            (true, _, p) => p == s,
            (false, false, p) => p == NO_VERTEX,
            (false, true, NO_VERTEX) => false,
            (false, true, p) => {
                let u = p as usize;
                u < truth.len()
                    && truth[u].finite()
                    && arcs.targets(u).any(|(v, i)| {
                        v == t && D::cmp_sum(truth[u], arcs.weight(i), truth[t], arcs.tol).is_eq()
                    })
            }
        };
        if !ok {
            return Err(fail(format!(
                "the predecessor {p} of {t} on the row of source {s} is not the tail of a \
                 tight arc into it"
            )));
        }
    }
    Ok(())
}

/// Plain serial Bellman-Ford from `s`: at most n rounds over every arc, stopping when a
/// round changes nothing.
fn bellman_ford<D: VDist>(arcs: &Arcs<'_, D>, s: usize) -> Result<Vec<D>> {
    let n = arcs.g.num_vertices();
    let mut d = vec![D::INF; n];
    d[s] = D::ZERO;
    for _ in 0..n {
        let mut changed = false;
        for u in 0..n {
            if !d[u].finite() {
                continue;
            }
            for (v, i) in arcs.targets(u) {
                let Some(x) = D::add(d[u], arcs.weight(i)) else {
                    return Err(fail(format!(
                        "oracle: a path from {s} overflows at arc {u} -> {v}"
                    )));
                };
                if v < n && (!d[v].finite() || D::less(x, d[v])) {
                    d[v] = x;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(d);
        }
    }
    Err(fail(format!(
        "oracle: a negative cycle is reachable from {s}, so no row can be right"
    )))
}

/// Checks a whole in-memory result: its shape and type, every diagonal entry, and a fixed
/// sample of rows (see the [module docs](self)).
///
/// # Arguments
/// * `g` - the graph.
/// * `m` - the result computed on `g`.
///
/// # Returns
/// `()` when every check passes.
///
/// # Errors
/// [`Error::VerificationFailed`] naming the first violated property.
///
/// # Complexity
/// O(n + 66 (n + m)), plus 66 O(n m) oracle runs when `n m <= 2^24`.
///
/// ```
/// use warpgraph::apsp::{apsp_matrix, verify_matrix, Algorithm, ApspOptions};
/// use warpgraph::generate::{generate, Generator, GenerateOptions, WeightSpec};
/// let opts = GenerateOptions { weights: WeightSpec::Int { lo: 1, hi: 9 }, ..Default::default() };
/// let g = generate(&Generator::Uniform { vertices: 100, edges: 400 }, &opts).unwrap();
/// let m = apsp_matrix(&g, Algorithm::Auto, &ApspOptions { predecessors: true }).unwrap();
/// verify_matrix(&g, &m).unwrap();
/// ```
pub fn verify_matrix(g: &Graph, m: &DistMatrix) -> Result<()> {
    let n = g.num_vertices();
    if m.num_vertices() != n {
        return Err(fail(format!(
            "the result has {} vertices, the graph {n}",
            m.num_vertices()
        )));
    }
    check_type(g, m.dist_type())?;
    let mut v = Verifier::new(g);
    for s in 0..n as VertexId {
        let (Some(row), pred) = (m.row(s), m.pred_row(s)) else {
            return Err(fail(format!("row {s} is missing")));
        };
        if m.predecessors().is_some() && pred.is_none() {
            return Err(fail(format!("the predecessors of row {s} are missing")));
        }
        v.row(s, row, pred)?;
    }
    Ok(())
}

/// Row checks shared by [`verify_matrix`] and [`VerifyingSink`].
struct Verifier<'g> {
    g: &'g Graph,
    /// The rows' sources and the columns' targets of a table of chosen pairs (`None`:
    /// all pairs).
    table: Option<(Axis, Axis)>,
    sample: Vec<VertexId>,
    next_sample: usize,
    oracle: bool,
    int: Option<Arcs<'g, i64>>,
    float: Option<Arcs<'g, f64>>,
    checked: usize,
}

impl<'g> Verifier<'g> {
    fn new(g: &'g Graph) -> Self {
        let n = g.num_vertices();
        let float = g.weight_type().is_float();
        Verifier {
            g,
            table: None,
            sample: sample_sources(n),
            next_sample: 0,
            oracle: (n as u64).saturating_mul(g.num_arcs()) <= ORACLE_WORK,
            int: (!float).then(|| int_arcs(g)),
            float: float.then(|| float_arcs(g)),
            checked: 0,
        }
    }

    /// Checks a table of chosen pairs from now on: the rows' sources and the columns'
    /// targets; the sample is of row positions.
    fn set_table(&mut self, rows: &Axis, cols: &Axis) {
        self.sample = sample_sources(rows.len());
        self.table = Some((rows.clone(), cols.clone()));
    }

    /// Whether row `i` is in the sample (rows come in increasing order).
    fn sampled(&mut self, i: VertexId) -> bool {
        while self.sample.get(self.next_sample).is_some_and(|&x| x < i) {
            self.next_sample += 1;
        }
        if self.sample.get(self.next_sample) != Some(&i) {
            return false;
        }
        self.next_sample += 1;
        self.checked += 1;
        true
    }

    /// Row `i` of a table of chosen pairs: when sampled, its source's whole row by a
    /// single search of another method (delta-stepping, or Bellman-Ford with a negative
    /// weight), itself checked against the certificate, then the table's columns against
    /// it; predecessors must be tails of tight arcs into their targets.
    fn table_row(&mut self, i: usize, dist: Dists<'_>, pred: Option<&[VertexId]>) -> Result<()> {
        if !self.sampled(i as VertexId) {
            return Ok(());
        }
        let (rows, cols) = self.table.as_ref().expect("a table");
        let s = rows.vertex(i);
        let truth = crate::sssp::sssp(self.g, s, &crate::sssp::Algorithm::Auto)?;
        match (dist, &truth, &self.int, &self.float) {
            (Dists::I64(d), crate::sssp::SsspResult::Int(t), Some(a), _) => {
                row_checks(a, s, &t.dist, None, self.oracle)?;
                table_checks(a, (s, cols), d, pred, &t.dist)
            }
            (Dists::F64(d), crate::sssp::SsspResult::Float(t), _, Some(a)) => {
                row_checks(a, s, &t.dist, None, self.oracle)?;
                table_checks(a, (s, cols), d, pred, &t.dist)
            }
            _ => check_type(self.g, dist.dist_type()),
        }
    }

    /// Row `s`; rows must come in increasing order for the sample to be found.
    fn row(&mut self, s: VertexId, dist: Dists<'_>, pred: Option<&[VertexId]>) -> Result<()> {
        let n = self.g.num_vertices();
        let diag_zero = match dist {
            Dists::I64(d) => d.get(s as usize) == Some(&0),
            Dists::F64(d) => d.get(s as usize) == Some(&0.0),
        };
        if dist.len() != n || !diag_zero {
            return Err(fail(format!(
                "row {s}: {} values for {n} vertices, or a non-zero distance to itself",
                dist.len()
            )));
        }
        if !self.sampled(s) {
            return Ok(());
        }
        match (dist, &self.int, &self.float) {
            (Dists::I64(d), Some(a), _) => row_checks(a, s, d, pred, self.oracle),
            (Dists::F64(d), _, Some(a)) => row_checks(a, s, d, pred, self.oracle),
            _ => check_type(self.g, dist.dist_type()),
        }
    }
}

/// A [`RowSink`] that verifies sampled rows (see the [module docs](self)) and passes every
/// row on to another sink, so that results streamed to files can be checked as they are
/// written.
///
/// ```
/// use warpgraph::apsp::{apsp, Algorithm, ApspOptions, MatrixSink, VerifyingSink};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::from(vec![-1, 4])).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let mut out = MatrixSink::new();
/// let mut sink = VerifyingSink::new(&g, &mut out);
/// apsp(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink).unwrap();
/// assert_eq!(sink.rows_checked(), 3);
/// ```
pub struct VerifyingSink<'a> {
    verifier: Verifier<'a>,
    inner: &'a mut dyn RowSink,
}

impl<'a> VerifyingSink<'a> {
    /// Verifies rows of a result on `g` and forwards them to `inner`.
    pub fn new(g: &'a Graph, inner: &'a mut dyn RowSink) -> Self {
        VerifyingSink {
            verifier: Verifier::new(g),
            inner,
        }
    }

    /// How many rows were fully checked so far.
    pub fn rows_checked(&self) -> usize {
        self.verifier.checked
    }
}

impl RowSink for VerifyingSink<'_> {
    fn memory_needed(&self, info: &RowsInfo) -> u64 {
        self.inner.memory_needed(info)
    }

    fn begin(&mut self, info: &RowsInfo) -> Result<()> {
        let n = self.verifier.g.num_vertices();
        if info.num_vertices != n {
            return Err(fail(format!(
                "the result has {} vertices, the graph {n}",
                info.num_vertices
            )));
        }
        check_type(self.verifier.g, info.dist_type)?;
        if !info.is_square() {
            self.verifier.set_table(&info.rows, &info.cols);
        }
        self.verifier.next_sample = 0;
        self.verifier.checked = 0;
        self.inner.begin(info)
    }

    fn prepare(&mut self) -> Result<()> {
        self.inner.prepare()
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        for i in 0..block.num_rows() {
            let Some((dist, pred)) = block.row(i) else {
                return Err(fail(format!(
                    "row block at {}: row {i} is missing",
                    block.first
                )));
            };
            let at = block.first + i;
            match self.verifier.table {
                Some(_) => self.verifier.table_row(at, dist, pred)?,
                None => self.verifier.row(at as VertexId, dist, pred)?,
            }
        }
        self.inner.rows(block)
    }

    fn finish(&mut self) -> Result<()> {
        self.inner.finish()
    }
}

/// Checks a reported negative cycle: every consecutive pair (and last -> first) is an arc,
/// and the lightest such arcs sum to a negative weight.
///
/// # Arguments
/// * `g` - the graph.
/// * `cycle` - the cycle's vertices in order (as in [`Error::NegativeCycle`]).
///
/// # Returns
/// The cycle's weight as f64 (exact for integer weights below 2^53).
///
/// # Errors
/// [`Error::VerificationFailed`] when a pair is not an arc or the weight is not negative.
///
/// # Complexity
/// O(sum of the cycle's out-degrees).
///
/// ```
/// use warpgraph::apsp::verify_negative_cycle;
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// let g = EdgeList::new(2, vec![0, 1], vec![1, 0], Weights::from(vec![1, -3])).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// assert_eq!(verify_negative_cycle(&g, &[0, 1]).unwrap(), -2.0);
/// assert!(verify_negative_cycle(&g, &[0]).is_err()); // no self loop at 0
/// ```
pub fn verify_negative_cycle(g: &Graph, cycle: &[VertexId]) -> Result<f64> {
    let n = g.num_vertices();
    if cycle.is_empty() {
        return Err(fail("the negative cycle is empty".into()));
    }
    if g.weight_type() == WeightType::None {
        return Err(fail("an unweighted graph has no negative cycle".into()));
    }
    let mut total_i: i128 = 0;
    let mut total_f = 0.0f64;
    for (k, &u) in cycle.iter().enumerate() {
        let v = cycle[(k + 1) % cycle.len()];
        if u as usize >= n || v as usize >= n {
            return Err(fail(format!("cycle vertex {u} or {v} is not a vertex")));
        }
        let csr = g.out();
        let range = csr.row(u);
        let lightest = with_weights!(csr.weights(),
            ws => lightest_arc(&csr.targets()[range.clone()], &ws[range], v),
            none => None);
        let Some((wi, wf)) = lightest else {
            return Err(fail(format!("the cycle's step {u} -> {v} is not an arc")));
        };
        total_i += wi;
        total_f += wf;
    }
    let negative = if g.weight_type().is_float() {
        total_f < 0.0
    } else {
        total_i < 0
    };
    if !negative {
        return Err(fail(format!(
            "the cycle {cycle:?} weighs {total_f}, which is not negative"
        )));
    }
    Ok(if g.weight_type().is_float() {
        total_f
    } else {
        total_i as f64
    })
}

fn lightest_arc<W: Weight>(targets: &[u32], ws: &[W], v: u32) -> Option<(i128, f64)> {
    targets
        .iter()
        .zip(ws)
        .filter(|(&t, _)| t == v)
        .map(|(_, &w)| (i128::from(w.to_i64().unwrap_or(0)), w.to_f64()))
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
}
