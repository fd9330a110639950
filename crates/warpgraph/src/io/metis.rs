//! METIS graph files (`.graph`): undirected graphs as adjacency lists, one line per vertex.
//!
//! ```text
//! % a triangle 1-2-3 with edge weights, and a lone vertex 4
//! 4 3 1
//! 2 5 3 1
//! 1 5 3 2
//! 1 1 2 2
//!
//! ```
//!
//! The header is `N M [FMT [NCON]]`: `N` vertices, `M` edges. `FMT` has up to three
//! digits, each 0 or 1: the ones digit says that every neighbour is followed by its edge
//! weight, the tens digit that each line starts with `NCON` vertex weights (`NCON` defaults
//! to 1), the hundreds digit that each line starts with a vertex size (before the weights).
//! Then come exactly `N` vertex lines, the `i`-th for vertex `i` (1-based), listing its
//! neighbours; every edge appears in the lines of both its endpoints, so the lines hold
//! `2 * M` neighbours in all. In the example vertex 1 is joined to 2 (weight 5) and to 3
//! (weight 1), and vertex 4 has no neighbours (its line is blank).
//!
//! Conventions:
//! - Lines whose first non-blank character is `%` are comments, anywhere in the file. They
//!   are not vertex lines; a blank line is (a vertex with no neighbours). Blank lines after
//!   the `N`-th vertex line are ignored; anything else there is an error.
//! - Vertex sizes and vertex weights are checked to be integers and then ignored: warpgraph
//!   graphs have no vertex data.
//! - Edge weights must be integers (any sign): `i32` when all fit, else `i64`, unless
//!   [`ReadOptions::weight_type`](super::ReadOptions::weight_type) forces a type.
//! - METIS forbids self loops: one is an error naming its line. Parallel edges (which METIS
//!   also forbids) are accepted when both endpoints list them the same number of times and
//!   with their weights in the same order; the read options' duplicate policy applies.
//! - Symmetry is checked: `u` listing `v` without `v` listing `u` with the same weight is an
//!   error naming both vertices and `u`'s line. (A fast randomized fingerprint pass over the
//!   arcs decides; only when it fails does an exact search look for the first culprit.)
//! - The graph is undirected with ids `1..N` ([`VertexIds::Base`]`(1)`);
//!   [`ReadOptions::undirected`](super::ReadOptions::undirected) changes nothing.
//!
//! Writing needs an undirected graph, or a directed one that holds both directions of every
//! arc with equal weights (the same number of times: it is then written as the undirected
//! graph it is), without self loops and with integer weights or none;
//! it writes the header `n m` (or `n m 1` with weights) and one line per vertex, neighbours
//! in CSR order. Parallel edges are written as they are (METIS's own tools reject them;
//! warpgraph reads them back). A `%` comment line names warpgraph as the writer (and says so when the
//! graph's own vertex ids were not `1..n`).
//!
//! Source: G. Karypis, "METIS: A Software Package for Partitioning Unstructured Graphs,
//! Partitioning Meshes, and Computing Fill-Reducing Orderings of Sparse Matrices, Version
//! 5.1.0", 2013, section 4.1.1 "Graph file".

use std::io::Write;
use std::ops::Range;

use rayon::prelude::*;

use super::mtx::ids_comment;
use super::text::{self, put, write_row_blocks, At, Fields, PutNum, WeightCol, WeightParser};
use super::{ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::{
    BuildOptions, Csr, EdgeList, Graph, VertexId, VertexIds, Weight, WeightType, Weights,
    MAX_VERTICES,
};
use crate::with_weights;

/// What the header says.
#[derive(Debug, Clone)]
struct Header {
    /// Vertices.
    n: u64,
    /// Edges.
    m: u64,
    /// The FMT token as written (for messages), `0` when absent.
    fmt: String,
    /// Whether lines start with a vertex size.
    sizes: bool,
    /// Vertex weights per line (0 when FMT has none).
    ncon: u64,
    /// Whether each neighbour is followed by an edge weight.
    edge_weights: bool,
    /// Byte offset of the header line.
    at: usize,
}

/// Whether a line is a `%` comment.
fn is_comment(line: &[u8]) -> bool {
    line.trim_ascii_start().first() == Some(&b'%')
}

const HEADER_FORM: &str = "'N M [FMT [NCON]]'";

/// Finds and parses the header; returns it and the start of the vertex lines.
fn parse_header(data: &[u8], cx: &ReadContext<'_>) -> Result<(Header, usize)> {
    let Some((at, line)) =
        text::lines(data, 0..data.len()).find(|(_, l)| !is_comment(l) && !text::is_blank(l))
    else {
        return Err(cx.parse_error(
            text::line_of(data, data.len().saturating_sub(1)),
            format!("the file has no header line {HEADER_FORM}"),
        ));
    };
    let err = |msg: String| cx.parse_error(text::line_of(data, at), msg);
    let mut f = Fields::new(line);
    let mut number = |what: &str| -> Result<Option<u64>> {
        match f.next() {
            None => Ok(None),
            Some(tok) => text::parse_u64(tok).map(Some).ok_or_else(|| {
                err(format!(
                    "expected the header {HEADER_FORM} with {what} a non-negative integer, \
                     found '{}'",
                    text::show(tok)
                ))
            }),
        }
    };
    let n = number("N")?;
    let m = number("M")?;
    let (Some(n), Some(m)) = (n, m) else {
        return Err(err(format!(
            "expected the header {HEADER_FORM}, found '{}'",
            text::show(line)
        )));
    };
    let mut f = Fields::new(line).skip(2);
    let fmt_tok = f.next();
    let (sizes, vweights, edge_weights) = match fmt_tok {
        None => (false, false, false),
        Some(tok)
            if (1..=3).contains(&tok.len()) && tok.iter().all(|&b| b == b'0' || b == b'1') =>
        {
            let digit = |k: usize| tok.len() > k && tok[tok.len() - 1 - k] == b'1';
            (digit(2), digit(1), digit(0))
        }
        Some(tok) => {
            return Err(err(format!(
                "FMT must be up to three digits, each 0 or 1 (ones: edge weights, tens: \
                 vertex weights, hundreds: vertex sizes), found '{}'",
                text::show(tok)
            )))
        }
    };
    let ncon = match f.next() {
        None => u64::from(vweights),
        Some(tok) => {
            let c = text::parse_u64(tok).filter(|&c| c >= 1).ok_or_else(|| {
                err(format!(
                    "NCON must be a positive integer (the number of vertex weights), found '{}'",
                    text::show(tok)
                ))
            })?;
            if !vweights {
                return Err(err(format!(
                    "NCON is {c}, but FMT '{}' says the vertices have no weights (its tens \
                     digit is not 1)",
                    text::show(fmt_tok.unwrap_or(b"0"))
                )));
            }
            c
        }
    };
    if let Some(extra) = f.next() {
        return Err(err(format!(
            "unexpected '{}' after NCON: expected the header {HEADER_FORM}",
            text::show(extra)
        )));
    }
    if n > MAX_VERTICES {
        return Err(err(format!(
            "the header declares {n} vertices, more than the limit of {MAX_VERTICES}"
        )));
    }
    let body = text::lines(data, at..data.len())
        .nth(1)
        .map_or(data.len(), |(o, _)| o);
    let remaining = (data.len() - body) as u64;
    if n > remaining {
        return Err(err(format!(
            "the header declares {n} vertices, but the rest of the file ({remaining} bytes) \
             can hold at most {remaining} vertex lines"
        )));
    }
    // A neighbour takes at least 2 bytes ("7 "), 4 with its weight; the last one a byte less.
    let per = if edge_weights { 4u128 } else { 2 };
    if 2 * m as u128 * per > remaining as u128 + 1 {
        return Err(err(format!(
            "the header declares {m} edges ({} neighbour entries), but the rest of the file \
             ({remaining} bytes) cannot hold that many",
            2 * m as u128
        )));
    }
    let header = Header {
        n,
        m,
        fmt: fmt_tok.map_or_else(|| "0".into(), text::show),
        sizes,
        ncon,
        edge_weights,
        at,
    };
    Ok((header, body))
}

/// The arcs of one chunk of vertex lines.
struct Part {
    src: Vec<u32>,
    dst: Vec<u32>,
    weights: Option<WeightCol>,
}

/// Parses the vertex lines of `data[r]`, the first of which is vertex `u` (0-based).
fn parse_part(
    data: &[u8],
    r: Range<usize>,
    mut u: u64,
    h: &Header,
    forced: Option<WeightType>,
) -> Result<Part, At> {
    let cap = (r.end - r.start) / 6;
    let mut p = Part {
        src: Vec::with_capacity(cap),
        dst: Vec::with_capacity(cap),
        weights: h
            .edge_weights
            .then(|| WeightCol::Int(Vec::with_capacity(cap))),
    };
    let lead = u64::from(h.sizes).saturating_add(h.ncon);
    for (off, line) in text::lines(data, r) {
        if is_comment(line) {
            continue;
        }
        let vertex = u;
        u += 1;
        let id = vertex + 1;
        let mut f = Fields::new(line);
        if vertex >= h.n {
            if f.next().is_none() {
                continue;
            }
            return Err(At::new(
                off,
                format!(
                    "found more than {} vertex lines: the header on line {} declares {} \
                     vertices",
                    h.n,
                    text::line_of(data, h.at),
                    h.n
                ),
            ));
        }
        for k in 0..lead {
            // Only formatted on error: no allocation on the fast path.
            let what = || {
                if h.sizes && k == 0 {
                    "its vertex size".to_string()
                } else {
                    let j = k + 1 - u64::from(h.sizes);
                    format!("vertex weight {j} of {}", h.ncon)
                }
            };
            let Some(tok) = f.next() else {
                return Err(At::new(
                    off,
                    format!(
                        "vertex {id}: expected {} (the header's FMT is '{}'), but the line \
                         ends",
                        what(),
                        h.fmt
                    ),
                ));
            };
            if text::parse_i64(tok).is_none() {
                return Err(At::new(
                    off,
                    format!(
                        "vertex {id}: expected {}, an integer, found '{}'",
                        what(),
                        text::show(tok)
                    ),
                ));
            }
        }
        while let Some(tok) = f.next() {
            let v = text::parse_vertex_1based(tok, h.n, "neighbour")
                .map_err(|m| At::new(off, format!("vertex {id}: {m}")))?;
            if v as u64 == vertex {
                return Err(At::new(
                    off,
                    format!("vertex {id} lists itself as a neighbour: METIS forbids self loops"),
                ));
            }
            if let Some(WeightCol::Int(col)) = &mut p.weights {
                let Some(wt) = f.next() else {
                    return Err(At::new(
                        off,
                        format!(
                            "vertex {id}: neighbour {} has no edge weight; the header's FMT \
                             '{}' says each neighbour is followed by its weight, so the line \
                             needs an even number of neighbour fields",
                            v as u64 + 1,
                            h.fmt
                        ),
                    ));
                };
                let x = text::parse_i64(wt).ok_or_else(|| {
                    At::new(
                        off,
                        format!(
                            "vertex {id}: expected an integer edge weight after neighbour {}, \
                             found '{}' (METIS weights are integers)",
                            v as u64 + 1,
                            text::show(wt)
                        ),
                    )
                })?;
                if forced == Some(WeightType::I32) && i32::try_from(x).is_err() {
                    return Err(At::new(
                        off,
                        format!("edge weight {x} does not fit in i32 (--weight-type i32)"),
                    ));
                }
                col.push(x);
            }
            p.src.push(vertex as u32);
            p.dst.push(v);
        }
    }
    Ok(p)
}

/// An edge listed by one endpoint but not matched by the other.
struct Asymmetry {
    /// The vertex (0-based) whose line lists the unmatched edge: the arc's tail.
    u: usize,
    /// The arc's head (0-based).
    v: usize,
    /// How the arcs `v -> u` fail to mirror the arcs `u -> v`.
    kind: Mismatch,
}

/// How an arc's reverse is missing or different.
enum Mismatch {
    /// No arc `v -> u`.
    Missing,
    /// `u -> v` appears `.0` times, `v -> u` `.1` times.
    Count(usize, usize),
    /// The `k`-th arcs of each run have weights `.0` and `.1`.
    Weight(String, String),
}

impl Asymmetry {
    /// The reader's words: vertex lines, 1-based as the file numbers them.
    fn in_lines(&self) -> String {
        let (fu, fv) = (self.u + 1, self.v + 1);
        match &self.kind {
            Mismatch::Missing => format!(
                "vertex {fu} lists neighbour {fv}, but vertex {fv} does not list {fu}: a \
                 METIS graph is undirected, so every edge must appear in the lines of both \
                 its endpoints"
            ),
            Mismatch::Count(a, b) => format!(
                "vertex {fu} lists neighbour {fv} {a} times, but vertex {fv} lists {fu} {b} times"
            ),
            Mismatch::Weight(x, y) => format!(
                "edge {fu}-{fv} has weight {x} in the line of vertex {fu} but {y} in the line \
                 of vertex {fv}"
            ),
        }
    }

    /// The writer's words: arcs, in the graph's own ids.
    fn in_arcs(&self, ids: &VertexIds) -> String {
        let (eu, ev) = (
            ids.external(self.u as VertexId),
            ids.external(self.v as VertexId),
        );
        match &self.kind {
            Mismatch::Missing => format!("the arc {eu} -> {ev} has no reverse arc {ev} -> {eu}"),
            Mismatch::Count(a, b) => format!(
                "the arc {eu} -> {ev} appears {a} times but its reverse {ev} -> {eu} {b} times"
            ),
            Mismatch::Weight(x, y) => format!(
                "the arc {eu} -> {ev} has weight {x} but its reverse {ev} -> {eu} has weight {y}"
            ),
        }
    }
}

/// A weight as 64 bits for fingerprinting: equal weights give equal bits.
trait WeightBits: Weight {
    fn bits(self) -> u64;
}

impl WeightBits for i32 {
    fn bits(self) -> u64 {
        self as i64 as u64
    }
}

impl WeightBits for i64 {
    fn bits(self) -> u64 {
        self as u64
    }
}

impl WeightBits for f32 {
    fn bits(self) -> u64 {
        // -0.0 == 0.0: both hash alike.
        if self == 0.0 {
            0
        } else {
            self.to_bits() as u64
        }
    }
}

impl WeightBits for f64 {
    fn bits(self) -> u64 {
        if self == 0.0 {
            0
        } else {
            self.to_bits()
        }
    }
}

/// The splitmix64 finaliser: a bijective 64-bit mixer.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether the arcs are symmetric, by fingerprint: one sequential parallel pass.
///
/// Each arc `u -> v` that is the `k`-th copy of `v` in row `u` is hashed, with keys drawn
/// at random for this call, as `(min(u, v), max(u, v), k, weight)`; the arcs with `u < v`
/// and those with `u > v` are summed separately (two 64-bit sums each, and counts). The
/// CSR equals its transpose exactly when the two multisets are equal; equal multisets
/// always give equal sums, and unequal ones give equal sums only with negligible
/// probability (about 2^-64: the keys are secret and random, so no input can be made to
/// collide on purpose).
/// A `false` is certain, and [`find_asymmetry`] then finds the culprit exactly.
fn symmetric_by_fingerprint<W: WeightBits>(csr: &Csr, w: Option<&[W]>) -> bool {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let key = |i: u64| {
        let mut h = state.build_hasher();
        h.write_u64(i);
        h.finish()
    };
    let keys = [key(0), key(1), key(2), key(3)];
    let (off, t) = (csr.offsets(), csr.targets());
    let n = csr.num_vertices();
    type Sums = [u64; 6];
    let add = |a: Sums, b: Sums| -> Sums {
        let mut c = a;
        for (x, y) in c.iter_mut().zip(b) {
            *x = x.wrapping_add(y);
        }
        c
    };
    let sums = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .fold(
            || [0u64; 6],
            |mut s, u| {
                let (a, b) = (off[u] as usize, off[u + 1] as usize);
                let mut k = 0u64;
                let mut prev = u64::MAX;
                for i in a..b {
                    let Some(&v) = t.get(i) else { break };
                    let v = v as u64;
                    k = if v == prev { k + 1 } else { 0 };
                    prev = v;
                    let u = u as u64;
                    if u == v {
                        continue;
                    }
                    let pair = (u.min(v) << 32) | u.max(v);
                    let wb = w.and_then(|w| w.get(i)).map_or(0, |&x| x.bits());
                    let h = mix(mix(mix(pair ^ keys[0]) ^ k ^ keys[1]).wrapping_add(wb) ^ keys[2]);
                    let h2 = mix(h ^ keys[3]);
                    let side = if u < v { 0 } else { 3 };
                    s[side] = s[side].wrapping_add(h);
                    s[side + 1] = s[side + 1].wrapping_add(h2);
                    s[side + 2] += 1;
                }
                s
            },
        )
        .reduce(|| [0u64; 6], add);
    sums[..3] == sums[3..]
}

/// The first vertex (in order) with an arc not mirrored by an equal arc, if any.
///
/// Rows are sorted, so the arcs `v -> u` of row `v` are found by binary search; the runs
/// `u -> v` and `v -> u` must have equal lengths and equal weight sequences. This is exactly
/// "the CSR equals its transpose", the invariant of an undirected [`Graph`].
fn find_asymmetry<W: Weight>(csr: &Csr, w: Option<&[W]>) -> Option<Asymmetry> {
    let (off, t) = (csr.offsets(), csr.targets());
    let n = csr.num_vertices();
    (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .find_map_first(|u| {
            let row = t.get(off[u] as usize..off[u + 1] as usize)?;
            let base = off[u] as usize;
            let mut i = 0;
            while i < row.len() {
                let v = row[i] as usize;
                let j = i + row[i..].partition_point(|&x| x as usize == v);
                let vbase = off[v] as usize;
                let vrow = t.get(vbase..off[v + 1] as usize)?;
                let lo = vrow.partition_point(|&x| (x as usize) < u);
                let hi = lo + vrow[lo..].partition_point(|&x| x as usize == u);
                let (a, b) = (j - i, hi - lo);
                let at = |kind| Some(Asymmetry { u, v, kind });
                if b == 0 {
                    return at(Mismatch::Missing);
                }
                if a != b {
                    return at(Mismatch::Count(a, b));
                }
                if let Some(w) = w {
                    for k in 0..a {
                        let (x, y) = (w.get(base + i + k)?, w.get(vbase + lo + k)?);
                        if x != y {
                            return at(Mismatch::Weight(x.to_string(), y.to_string()));
                        }
                    }
                }
                i = j;
            }
            None
        })
}

/// The byte offset of vertex `u`'s line, given the chunks and their first vertices.
fn vertex_line(data: &[u8], chunks: &[Range<usize>], first: &[u64], u: u64) -> Option<usize> {
    let c = first.partition_point(|&f| f <= u).checked_sub(1)?;
    let mut k = *first.get(c)?;
    for (off, line) in text::lines(data, chunks.get(c)?.clone()) {
        if is_comment(line) {
            continue;
        }
        if k == u {
            return Some(off);
        }
        k += 1;
    }
    None
}

/// Parses a METIS graph file; see the [module docs](self) for the conventions.
///
/// # Errors
/// [`Error::Parse`] naming the line for a malformed header or vertex line, an id out of
/// range, a self loop, the wrong number of vertex lines or of neighbour entries, or an edge
/// listed by only one endpoint (or with two weights);
/// [`Error::OutOfMemory`] when the
/// declared edges cannot fit.
pub fn read(data: &[u8], cx: &ReadContext<'_>) -> Result<Graph> {
    let (h, body) = parse_header(data, cx)?;
    let header_err = |msg: String| cx.parse_error(text::line_of(data, h.at), msg);
    let arcs = 2 * h.m;
    crate::memory::check(
        || format!("reading {} METIS edges", h.m),
        arcs.saturating_mul(2 * (8 + if h.edge_weights { 8 } else { 0 })),
    )?;

    // Lines are vertices: count the vertex lines of each chunk, then number them.
    let chunks = text::line_chunks(data, body..data.len(), text::CHUNK);
    let counts: Vec<u64> = chunks
        .par_iter()
        .map(|r| {
            text::lines(data, r.clone())
                .filter(|(_, l)| !is_comment(l))
                .count() as u64
        })
        .collect();
    let first = crate::par::exclusive_scan(&counts);
    let lines_found = first.last().copied().unwrap_or(0);

    let forced = cx.options.weight_type.filter(|&t| t != WeightType::None);
    let results: Vec<Result<Part, At>> = chunks
        .par_iter()
        .zip(first.par_iter())
        .map(|(r, &u)| {
            let part = parse_part(data, r.clone(), u, &h, forced);
            cx.progress.advance((r.end - r.start) as u64);
            part
        })
        .collect();
    let mut parts = Vec::with_capacity(results.len());
    for r in results {
        parts.push(r.map_err(|e| e.into_error(cx.path, data))?);
    }
    if lines_found < h.n {
        return Err(header_err(format!(
            "the header declares {} vertices, but the file has only {lines_found} vertex \
             lines (comment lines excluded)",
            h.n
        )));
    }
    let entries: u64 = parts.iter().map(|p| p.src.len() as u64).sum();
    if entries != arcs {
        return Err(header_err(format!(
            "the header declares {} edges, so the vertex lines should list 2 * {} = {arcs} \
             neighbours, but they list {entries}",
            h.m, h.m
        )));
    }

    let (src, dst, mut weight_parts) =
        text::join_arcs(parts.into_iter().map(|p| (p.src, p.dst, p.weights)));
    let weights = if h.edge_weights {
        if weight_parts.is_empty() {
            weight_parts.push(WeightCol::Int(Vec::new()));
        }
        WeightParser { forced }.finish(weight_parts)
    } else {
        Weights::None
    };
    let edges = EdgeList {
        num_vertices: h.n,
        src,
        dst,
        weights,
        ids: VertexIds::Base(1),
    };
    // Arcs as listed (each edge is listed from both ends), with the duplicate policy.
    let opts = BuildOptions {
        directed: true,
        self_loops: cx.options.self_loops,
        duplicates: cx.options.duplicates,
    };
    cx.progress.begin("building CSR", 0);
    let g = edges.build(&opts);
    cx.progress.finish();
    let g = g?;

    // Symmetry: a fast fingerprint pass; only when it fails, the exact search for the
    // first culprit (random access, slower) to name it.
    let symmetric = with_weights!(g.out().weights(),
        w => symmetric_by_fingerprint(g.out(), Some(&w[..])),
        none => symmetric_by_fingerprint::<i32>(g.out(), None));
    if !symmetric {
        let a = with_weights!(g.out().weights(),
            w => find_asymmetry(g.out(), Some(&w[..])),
            none => find_asymmetry::<i32>(g.out(), None));
        let Some(a) = a else {
            return Err(cx.format_error(
                "the vertex lines are not symmetric: some edge is listed by only one endpoint",
            ));
        };
        return Err(match vertex_line(data, &chunks, &first, a.u as u64) {
            Some(off) => cx.parse_error(text::line_of(data, off), a.in_lines()),
            None => cx.format_error(a.in_lines()),
        });
    }
    let (_, csr, ids) = g.into_parts();
    // The check above is the undirected invariant (the CSR equals its transpose) and the
    // builder guarantees the rest.
    Ok(Graph::from_parts_unchecked(false, csr, ids))
}

/// Writes arcs `arcs` of vertex `u`'s line (1-based neighbours, each followed by its
/// weight), and the newline when `ends` says the line ends here.
fn format_piece<W: PutNum>(
    csr: &Csr,
    w: Option<&[W]>,
    u: usize,
    arcs: Range<usize>,
    ends: bool,
    buf: &mut Vec<u8>,
) {
    let (off, t) = (csr.offsets(), csr.targets());
    let row_start = off[u] as usize;
    for i in arcs {
        let Some(&v) = t.get(i) else { break };
        if i > row_start {
            buf.push(b' ');
        }
        put(buf, v as u64 + 1);
        if let Some(&x) = w.and_then(|w| w.get(i)) {
            buf.push(b' ');
            put(buf, x);
        }
    }
    if ends {
        buf.push(b'\n');
    }
}

/// Accepts a directed graph that holds both directions of every arc with equal weights
/// (the same number of times): it is an undirected graph, stored as METIS lists it.
fn check_symmetric(g: &Graph) -> Result<()> {
    let symmetric = with_weights!(g.out().weights(),
        w => symmetric_by_fingerprint(g.out(), Some(&w[..])),
        none => symmetric_by_fingerprint::<i32>(g.out(), None));
    if symmetric {
        return Ok(());
    }
    let a = with_weights!(g.out().weights(),
        w => find_asymmetry(g.out(), Some(&w[..])),
        none => find_asymmetry::<i32>(g.out(), None));
    let what = a.map_or_else(
        || "some arc has no reverse arc of equal weight".to_string(),
        |a| a.in_arcs(g.ids()),
    );
    Err(Error::Unsupported(format!(
        "METIS graphs are undirected, and this directed graph is not symmetric: {what}; read \
         it with --undirected to make it undirected, or write another format (.mtx, .gr, .el)"
    )))
}

/// Writes `g` as a METIS graph file; see the [module docs](self).
///
/// # Errors
/// [`Error::Unsupported`] for a directed graph that is not symmetric (naming the first arc,
/// by its tail, without an equal reverse), one with self loops or with floating-point
/// weights (METIS cannot hold them); [`Error::Io`] when writing fails.
pub fn write(g: &Graph, out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    let loops = g.count_self_loops();
    if loops > 0 {
        return Err(Error::Unsupported(format!(
            "METIS forbids self loops, but this graph has {loops}; read it with --self-loops \
             drop, or write another format (.mtx, .gr, .el)"
        )));
    }
    let wt = g.weight_type();
    if wt.is_float() {
        return Err(Error::Unsupported(format!(
            "METIS edge weights are integers, but this graph has {wt} weights; convert them \
             with --weight-type i64 (or i32), or write another format (.mtx, .gr, .wel)"
        )));
    }
    if g.is_directed() {
        check_symmetric(g)?;
    }
    let n = g.num_vertices();
    // Without self loops every edge is two arcs, directed (checked symmetric) or not.
    let m = g.num_arcs() / 2;
    let head = format!(
        "% written by warpgraph\n{}{n} {m}{}\n",
        ids_comment(g.ids()),
        if wt == WeightType::None { "" } else { " 1" }
    );
    out.write_all(head.as_bytes()).map_err(|e| cx.io_error(e))?;
    let csr = g.out();
    let offsets = csr.offsets();
    match csr.weights() {
        Weights::None => write_row_blocks(offsets, out, cx, "writing metis", |u, a, e, buf| {
            format_piece::<i32>(csr, None, u, a, e, buf)
        }),
        Weights::I32(w) => write_row_blocks(offsets, out, cx, "writing metis", |u, a, e, buf| {
            format_piece(csr, Some(&w[..]), u, a, e, buf)
        }),
        Weights::I64(w) => write_row_blocks(offsets, out, cx, "writing metis", |u, a, e, buf| {
            format_piece(csr, Some(&w[..]), u, a, e, buf)
        }),
        Weights::F32(_) | Weights::F64(_) => {
            Err(Error::Unsupported("METIS edge weights are integers".into()))
        }
    }
}
