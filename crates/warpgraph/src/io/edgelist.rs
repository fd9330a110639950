//! Edge lists: `.el` (`u v`), `.wel` (`u v w`) and SNAP `.txt`.
//!
//! One reader handles all three. A file is a list of lines, each one edge:
//!
//! ```text
//! # Undirected graph: a SNAP-style header (optional)
//! # FromNodeId ToNodeId
//! 10 20
//! 20 1000000000000
//! ```
//!
//! (SNAP files separate the fields by tabs.)
//!
//! Conventions:
//! - Lines starting with `#` or `%` are comments; blank lines are ignored. Fields are
//!   separated by spaces, tabs or commas (so CSV edge lists work).
//! - Every data line has the same number of fields, 2 (`u v`) or 3 (`u v w`): the first
//!   data line fixes it, and a line that differs is an error naming both lines. With 3
//!   fields the graph is weighted; weights are inferred as `i32`, else `i64` when an
//!   integer does not fit, else `f64` when any weight has a fraction or exponent, unless
//!   [`ReadOptions::weight_type`](super::ReadOptions::weight_type) forces a type (a value
//!   the forced type cannot hold is an error naming its line). NaN and infinities are
//!   refused.
//! - Vertex ids are non-negative integers up to `u64::MAX`. With
//!   [`IdMode::Auto`] (the default), ids that cover a whole range
//!   `lo..=hi` become vertices `id - lo` ([`VertexIds::Base`]`(lo)`); otherwise they are
//!   renumbered in increasing order and the sorted ids are kept as [`VertexIds::Map`], so
//!   results still speak the file's ids. With [`IdMode::Dense`]
//!   vertex = id and there are `max id + 1` vertices (ids that never appear are isolated
//!   vertices). An edge list without edges is a graph with no vertices.
//! - Graphs are directed, except when a comment before the first edge contains the words
//!   "Undirected graph" (any case), as SNAP headers do; then each edge is stored in both
//!   directions. A few SNAP files with that header already list every edge in both
//!   directions (the road networks): when the listed arcs are exactly symmetric, they are
//!   taken as the two directions of one edge instead of becoming two parallel edges.
//!   `--undirected` ([`ReadOptions::undirected`](super::ReadOptions::undirected)) makes
//!   any edge list undirected, storing each listed edge in both directions.
//! - Parsing is parallel (chunks of about 1 MiB) and allocation-free per line; ids are
//!   mapped with a presence bitmap and a prefix sum when their range is not much larger
//!   than the number of edges, else by a parallel sort.
//!
//! Writing: `.el` writes `u v` per arc with the file's ids and no comments (GAPBS reads
//! `.el` files and accepts no comments); weights are dropped. `.wel` writes `u v w` and
//! needs a weighted graph. SNAP `.txt` writes a header (`# Directed graph` or
//! `# Undirected graph`, `# Nodes: N Edges: M`, the column names) and tab-separated lines.
//! An undirected graph is written with each edge once (`u <= v`, a self loop once).
//! Isolated vertices cannot be written in any of the three.
//!
//! Sources: the SNAP collection (<https://snap.stanford.edu/data/>) and the GAP benchmark
//! suite's `.el`/`.wel` formats (<https://github.com/sbeamer/gapbs>).

use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::text::{
    self, check_weight_count, put, write_arc_lines, ArcSet, At, Fields, WeightCol, WeightParser,
};
use super::{Format, IdMode, ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, EdgeList, Graph, VertexIds, WeightType, Weights, MAX_VERTICES};
use crate::par::{exclusive_scan, SharedMut};
use crate::with_weights;

/// Parses an edge list (`.el`, `.wel` or SNAP `.txt`; see the [module docs](self)).
///
/// # Errors
/// [`Error::Parse`] naming the line for a malformed line, a field count that differs from
/// the first data line's, a bad id or weight; [`Error::TooLarge`] when there are more
/// distinct ids than [`MAX_VERTICES`]; [`Error::OutOfMemory`] when the graph cannot fit.
pub fn read(data: &[u8], cx: &ReadContext<'_>) -> Result<Graph> {
    let start = if data.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let Some(head) = preamble(data, start, cx)? else {
        // No edges at all: a graph with no vertices.
        let directed = !undirected_header(data, start..data.len());
        let edges = EdgeList::new(0, Vec::new(), Vec::new(), Weights::None)?;
        return cx.build(edges, directed);
    };
    cx.progress.advance(head.first_data as u64);
    // Lines tend to look alike: estimate the edges from the first data line's length and
    // check the parse's memory (two u64 ids, a weight, then two u32 vertices per edge).
    let body = (data.len() - head.first_data) as u64;
    let edges_guess = body / head.first_len.max(4) as u64;
    crate::memory::check(
        || format!("parsing about {edges_guess} edges"),
        edges_guess.saturating_mul(if head.fields == 3 { 32 } else { 24 }),
    )?;

    let wp = WeightParser {
        forced: cx.options.weight_type.filter(|&t| t != WeightType::None),
    };
    let parts = text::parse_chunks(data, head.first_data..data.len(), cx.progress, |r| {
        parse_chunk(data, r, &head, &wp)
    })
    .map_err(|e| e.into_error(cx.path, data))?;

    let total: usize = parts.iter().map(|p| p.src.len()).sum();
    let mut cols = Vec::new();
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    let mut hi_at = 0usize;
    let mut ids = Vec::with_capacity(parts.len());
    for p in parts {
        if let Some(c) = p.weights {
            cols.push(c);
        }
        lo = lo.min(p.min);
        if p.max >= hi {
            hi = p.max;
            hi_at = p.max_at;
        }
        ids.push((p.src, p.dst));
    }
    let weights = if head.fields == 3 {
        wp.finish(cols)
    } else {
        Weights::None
    };

    crate::memory::check(
        || format!("the vertex arrays of {total} edges"),
        (total as u64).saturating_mul(8),
    )?;
    let (num_vertices, mapping) = match cx.options.ids {
        IdMode::Dense => {
            if hi >= MAX_VERTICES {
                return Err(cx.parse_error(
                    text::line_of(data, hi_at),
                    format!(
                        "vertex id {hi} is too large for dense ids (at most {}); \
                         read with automatic ids to renumber them",
                        MAX_VERTICES - 1
                    ),
                ));
            }
            (hi + 1, Mapping::Offset(0))
        }
        IdMode::Auto => auto_mapping(&ids, total, lo, hi)?,
    };
    let (src, dst) = mapping.apply(ids, total);
    let vertex_ids = mapping.into_vertex_ids();
    let edges = EdgeList {
        num_vertices,
        src,
        dst,
        weights,
        ids: vertex_ids,
    };
    if head.undirected {
        build_undirected(edges, cx)
    } else {
        cx.build(edges, true)
    }
}

/// What the lines before the first edge say.
struct Head {
    /// Byte offset of the first data line.
    first_data: usize,
    /// Its 1-based line number (for messages).
    first_line: u64,
    /// Fields per data line: 2 or 3.
    fields: usize,
    /// Length of the first data line with its newline.
    first_len: usize,
    /// The leading comments say "Undirected graph".
    undirected: bool,
}

/// Whether a line is a comment (`#` or `%` first) or blank.
#[inline]
fn is_comment_or_blank(line: &[u8]) -> bool {
    match Fields::with_commas(line).next() {
        None => true,
        Some(tok) => matches!(tok.first(), Some(b'#' | b'%')),
    }
}

/// Whether the comment lines of `data[range]` contain "undirected graph" (any case).
fn undirected_header(data: &[u8], range: Range<usize>) -> bool {
    const KEY: &[u8] = b"undirected graph";
    text::lines(data, range)
        .filter(|(_, l)| !text::is_blank(l))
        .any(|(_, l)| l.windows(KEY.len()).any(|w| w.eq_ignore_ascii_case(KEY)))
}

/// Scans the leading comments and the first data line; `None` when there is no data line.
fn preamble(data: &[u8], start: usize, cx: &ReadContext<'_>) -> Result<Option<Head>> {
    let Some((off, line)) =
        text::lines(data, start..data.len()).find(|(_, l)| !is_comment_or_blank(l))
    else {
        return Ok(None);
    };
    let fields = Fields::with_commas(line).count();
    let line_no = text::line_of(data, off);
    if fields != 2 && fields != 3 {
        return Err(cx.parse_error(
            line_no,
            format!(
                "expected an edge 'u v' or 'u v w' (2 or 3 fields), found {fields} field{}: '{}'",
                if fields == 1 { "" } else { "s" },
                text::show(line)
            ),
        ));
    }
    Ok(Some(Head {
        first_data: off,
        first_line: line_no,
        fields,
        first_len: line.len() + 1,
        undirected: undirected_header(data, start..off),
    }))
}

/// The edges of one chunk, ids as in the file.
struct Part {
    src: Vec<u64>,
    dst: Vec<u64>,
    weights: Option<WeightCol>,
    min: u64,
    max: u64,
    /// Offset of a line holding `max`.
    max_at: usize,
}

/// Parses one chunk of data lines.
fn parse_chunk(data: &[u8], r: Range<usize>, head: &Head, wp: &WeightParser) -> Result<Part, At> {
    let cap = (r.end - r.start) / 12;
    let mut p = Part {
        src: Vec::with_capacity(cap),
        dst: Vec::with_capacity(cap),
        weights: (head.fields == 3).then(|| wp.column(cap)),
        min: u64::MAX,
        max: 0,
        max_at: r.start,
    };
    for (off, line) in text::lines(data, r) {
        let mut f = Fields::with_commas(line);
        let Some(a) = f.next() else { continue };
        if matches!(a.first(), Some(b'#' | b'%')) {
            continue;
        }
        let u = parse_id(a, off)?;
        let b = f.next().ok_or_else(|| field_count(off, line, head))?;
        let v = parse_id(b, off)?;
        if let Some(col) = &mut p.weights {
            let c = f.next().ok_or_else(|| field_count(off, line, head))?;
            wp.push(col, c).map_err(|m| At::new(off, m))?;
        }
        if f.next().is_some() {
            return Err(field_count(off, line, head));
        }
        p.src.push(u);
        p.dst.push(v);
        let (small, big) = if u < v { (u, v) } else { (v, u) };
        p.min = p.min.min(small);
        if big > p.max {
            p.max = big;
            p.max_at = off;
        }
    }
    Ok(p)
}

#[inline]
fn parse_id(tok: &[u8], off: usize) -> Result<u64, At> {
    text::parse_u64(tok).ok_or_else(|| {
        At::new(
            off,
            format!(
                "expected a vertex id (an integer from 0 to {}), found '{}'",
                u64::MAX,
                text::show(tok)
            ),
        )
    })
}

/// The error for a line whose field count differs from the first data line's.
#[cold]
fn field_count(off: usize, line: &[u8], head: &Head) -> At {
    let found = Fields::with_commas(line).count();
    let shape = if head.fields == 2 { "'u v'" } else { "'u v w'" };
    At::new(
        off,
        format!(
            "expected {} fields {shape} like the first data line (line {}), found {found}: '{}'",
            head.fields,
            head.first_line,
            text::show(line)
        ),
    )
}

/// How file ids become vertex numbers.
enum Mapping {
    /// vertex = id - base.
    Offset(u64),
    /// vertex = rank of the id's bit among the set bits of a presence bitmap over `lo..`.
    Bitmap {
        lo: u64,
        words: Vec<u64>,
        /// Set bits before each word; one more entry than `words`.
        rank: Vec<u64>,
    },
    /// vertex = position of the id in the sorted distinct ids, found through a bucket
    /// index: the ids whose offset from `lo` shifted right by `shift` is `b` are
    /// `ids[starts[b]..starts[b + 1]]`, a short binary search (about one id per bucket
    /// when ids are spread evenly; never worse than searching all of them).
    Sorted {
        ids: Vec<u64>,
        lo: u64,
        shift: u32,
        starts: Vec<usize>,
    },
}

impl Mapping {
    #[inline]
    fn vertex(&self, id: u64) -> u32 {
        match self {
            Mapping::Offset(b) => id.wrapping_sub(*b) as u32,
            Mapping::Bitmap { lo, words, rank } => {
                let x = id.wrapping_sub(*lo);
                let w = (x / 64) as usize;
                let bit = x % 64;
                match (words.get(w), rank.get(w)) {
                    (Some(&word), Some(&r)) => {
                        (r + (word & ((1u64 << bit) - 1)).count_ones() as u64) as u32
                    }
                    _ => 0, // not reached: every id was marked
                }
            }
            Mapping::Sorted {
                ids,
                lo,
                shift,
                starts,
            } => {
                let b = (id.wrapping_sub(*lo) >> shift) as usize;
                let (a, z) = match (starts.get(b), starts.get(b + 1)) {
                    (Some(&a), Some(&z)) if a <= z && z <= ids.len() => (a, z),
                    _ => (0, ids.len()), // not reached: the buckets cover every id
                };
                match ids[a..z].binary_search(&id) {
                    Ok(i) | Err(i) => (a + i) as u32,
                }
            }
        }
    }

    /// The graph's [`VertexIds`].
    fn into_vertex_ids(self) -> VertexIds {
        match self {
            Mapping::Offset(b) => VertexIds::Base(b),
            Mapping::Bitmap { lo, words, rank } => {
                let n = rank.last().copied().unwrap_or(0) as usize;
                let mut ids = vec![0u64; n];
                let ptr = SharedMut::new(&mut ids);
                const BLOCK: usize = 1 << 12;
                words.par_chunks(BLOCK).enumerate().for_each(|(b, block)| {
                    let first = b * BLOCK;
                    let mut k = rank[first] as usize;
                    for (i, &word) in block.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let t = bits.trailing_zeros() as u64;
                            // SAFETY: the ranks give each word its own slots
                            // rank[w]..rank[w + 1], all below n.
                            unsafe { ptr.write(k, lo + (first + i) as u64 * 64 + t) };
                            k += 1;
                            bits &= bits - 1;
                        }
                    }
                });
                VertexIds::Map(ids.into())
            }
            Mapping::Sorted { ids, .. } => VertexIds::Map(ids.into()),
        }
    }

    /// Maps every part's ids into the final `u32` arrays, in parallel.
    fn apply(&self, parts: Vec<(Vec<u64>, Vec<u64>)>, total: usize) -> (Vec<u32>, Vec<u32>) {
        let mut src = vec![0u32; total];
        let mut dst = vec![0u32; total];
        let mut jobs = Vec::with_capacity(parts.len());
        let (mut s_rest, mut d_rest) = (&mut src[..], &mut dst[..]);
        for (s, d) in parts {
            let (s_out, s_tail) = std::mem::take(&mut s_rest).split_at_mut(s.len());
            let (d_out, d_tail) = std::mem::take(&mut d_rest).split_at_mut(d.len());
            s_rest = s_tail;
            d_rest = d_tail;
            jobs.push((s, d, s_out, d_out));
        }
        jobs.into_par_iter().for_each(|(s, d, s_out, d_out)| {
            for (o, &id) in s_out.iter_mut().zip(&s) {
                *o = self.vertex(id);
            }
            for (o, &id) in d_out.iter_mut().zip(&d) {
                *o = self.vertex(id);
            }
        });
        (src, dst)
    }
}

/// Chooses the mapping for [`IdMode::Auto`]; returns the number of vertices with it.
fn auto_mapping(
    parts: &[(Vec<u64>, Vec<u64>)],
    total: usize,
    lo: u64,
    hi: u64,
) -> Result<(u64, Mapping)> {
    if total == 0 {
        return Ok((0, Mapping::Offset(0)));
    }
    let span = (hi - lo) as u128 + 1;
    let ids = 2 * total as u128;
    // A bitmap plus its ranks take span / 4 bytes; a sort takes 16 bytes per edge.
    if span <= (64 * ids).max(1 << 20) {
        let words = span.div_ceil(64) as usize;
        crate::memory::check(
            || format!("a presence bitmap over vertex ids {lo}..={hi}"),
            (words as u64).saturating_mul(16),
        )?;
        let bits: Vec<AtomicU64> = (0..words)
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect();
        let mark = |id: u64| {
            let x = id.wrapping_sub(lo);
            if let Some(w) = bits.get((x / 64) as usize) {
                w.fetch_or(1 << (x % 64), Ordering::Relaxed);
            }
        };
        parts.par_iter().for_each(|(s, d)| {
            s.iter().chain(d).for_each(|&id| mark(id));
        });
        let words: Vec<u64> = bits.into_par_iter().map(AtomicU64::into_inner).collect();
        let counts: Vec<u64> = words.par_iter().map(|w| w.count_ones() as u64).collect();
        let rank = exclusive_scan(&counts);
        drop(counts);
        let distinct = rank.last().copied().unwrap_or(0);
        check_distinct(distinct)?;
        if distinct as u128 == span {
            return Ok((distinct, Mapping::Offset(lo)));
        }
        return Ok((distinct, Mapping::Bitmap { lo, words, rank }));
    }
    // Huge sparse range: sort and deduplicate.
    crate::memory::check(
        || format!("sorting the {} vertex ids of {total} edges", 2 * total),
        // 2 ids per edge, and up to two bucket starts per id.
        (total as u64).saturating_mul(48),
    )?;
    let offsets: Vec<u64> = {
        let sizes: Vec<u64> = parts.iter().map(|(s, _)| 2 * s.len() as u64).collect();
        exclusive_scan(&sizes)
    };
    let mut all = vec![0u64; 2 * total];
    let ptr = SharedMut::new(&mut all);
    parts
        .par_iter()
        .zip(offsets.par_iter())
        .for_each(|((s, d), &o)| {
            // SAFETY: part k owns o..o + 2 * len, and the scan total is 2 * total.
            let out = unsafe { ptr.slice(o as usize, s.len() + d.len()) };
            let (a, b) = out.split_at_mut(s.len());
            a.copy_from_slice(s);
            b.copy_from_slice(d);
        });
    all.par_sort_unstable();
    all.dedup();
    all.shrink_to_fit();
    let distinct = all.len() as u64;
    check_distinct(distinct)?;
    // About as many buckets as ids: the next power of two above their number, at most.
    let span = hi - lo;
    let bits = 64 - distinct.leading_zeros(); // distinct < 2^bits
    let shift = (64 - span.leading_zeros()).saturating_sub(bits);
    let buckets = (span >> shift) as usize + 1;
    let starts: Vec<usize> = (0..buckets + 1)
        .into_par_iter()
        .with_min_len(4096)
        .map(|b| all.partition_point(|&x| ((x - lo) >> shift) < b as u64))
        .collect();
    Ok((
        distinct,
        Mapping::Sorted {
            ids: all,
            lo,
            shift,
            starts,
        },
    ))
}

fn check_distinct(distinct: u64) -> Result<()> {
    if distinct > MAX_VERTICES {
        return Err(Error::TooLarge {
            what: "the number of distinct vertex ids".into(),
            value: distinct,
            limit: MAX_VERTICES,
        });
    }
    Ok(())
}

/// Builds a graph the file's header calls undirected. When the listed arcs are already
/// symmetric (every edge listed in both directions), they become the graph's arcs as they
/// are; otherwise each edge is stored in both directions.
fn build_undirected(edges: EdgeList, cx: &ReadContext<'_>) -> Result<Graph> {
    let (fwd, back) = edges
        .src
        .par_iter()
        .zip(edges.dst.par_iter())
        .map(|(&a, &b)| ((a < b) as u64, (a > b) as u64))
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    if fwd > 0 && fwd == back {
        let o = cx.options;
        let opts = BuildOptions {
            directed: true,
            self_loops: o.self_loops,
            duplicates: o.duplicates,
        };
        cx.progress.begin("building CSR", 0);
        let g = edges.build(&opts);
        cx.progress.finish();
        let (_, out, ids) = g?.into_parts();
        if out.find_asymmetric().is_none() {
            // The builder's output satisfies every CSR invariant, and it is symmetric.
            return Ok(Graph::from_parts_unchecked(false, out, ids));
        }
    }
    cx.build(edges, false)
}

/// Writes `g` as an edge list in `format` (`.el`, `.wel` or SNAP; see the
/// [module docs](self)).
///
/// # Errors
/// [`Error::InvalidArgument`] for `.wel` with an unweighted graph or a format that is not
/// an edge list; [`Error::Io`] when writing fails.
pub fn write(g: &Graph, format: Format, out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    let weights = g.out().weights();
    let weighted = match format {
        Format::El => false,
        Format::Wel if weights.weight_type() == WeightType::None => {
            return Err(Error::InvalidArgument(
                "a .wel file needs edge weights but the graph is unweighted; \
                 write .el instead"
                    .into(),
            ))
        }
        Format::Wel => true,
        Format::Snap => weights.weight_type() != WeightType::None,
        other => {
            return Err(Error::InvalidArgument(format!(
                "{other} is not an edge-list format"
            )))
        }
    };
    let sep = if format == Format::Snap { b'\t' } else { b' ' };
    if format == Format::Snap {
        let header =
            format!(
            "# {} graph (written by warpgraph)\n# Nodes: {} Edges: {}\n# FromNodeId\tToNodeId{}\n",
            if g.is_directed() { "Directed" } else { "Undirected" },
            g.num_vertices(),
            g.num_edges(),
            if weighted { "\tWeight" } else { "" }
        );
        out.write_all(header.as_bytes())
            .map_err(|e| cx.io_error(e))?;
    }
    let ids = g.ids();
    let set = if g.is_directed() {
        ArcSet::All
    } else {
        ArcSet::Upper
    };
    // "<u><sep>" once per row, then "<v>[<sep><w>]\n" per arc.
    let source = |buf: &mut Vec<u8>, u: u32| {
        put(buf, ids.external(u));
        buf.push(sep);
    };
    if !weighted {
        return write_arc_lines(g, out, cx, "writing", set, source, |buf, v, _| {
            put(buf, ids.external(v));
            buf.push(b'\n');
        });
    }
    check_weight_count(g)?;
    with_weights!(weights,
        w => write_arc_lines(g, out, cx, "writing", set, source, |buf, v, i| {
            put(buf, ids.external(v));
            buf.push(sep);
            put(buf, w[i]);
            buf.push(b'\n');
        }),
        none => Ok(()))
}
