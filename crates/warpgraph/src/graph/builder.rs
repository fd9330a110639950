//! The parallel CSR builder: from an edge list to a [`Graph`].
//!
//! Method: an atomic-free, stable, two-pass counting sort of the arcs by source (see
//! `assemble`), then a stable sort of each row by target. Stability keeps parallel arcs in
//! input order, which is what the duplicate rules below rely on, and the fixed chunking
//! makes the result independent of the number of threads.
//!
//! Memory: about `arcs * (12 + 2 * weight size) + n * 16` bytes at the peak, checked
//! before anything is allocated.

use rayon::prelude::*;

use super::{Buf, Csr, Graph, VertexIds, Weight, WeightType, Weights, MAX_VERTICES};
use crate::error::{Error, Result};
use crate::par::{exclusive_scan, SharedMut};
use crate::with_weights;

/// What to do with self loops (arcs `v -> v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelfLoops {
    /// Keep them (an undirected self loop is stored once).
    #[default]
    Keep,
    /// Remove them.
    Drop,
}

/// What to do with parallel edges (several edges between the same ordered pair; for an
/// undirected graph `{u, v}` and `{v, u}` are the same pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Keep every one, in input order.
    #[default]
    Keep,
    /// Keep the first in input order, drop the rest.
    Drop,
    /// Keep the lightest (on equal weights, the first in input order). For an unweighted
    /// graph this is the same as [`Duplicates::Drop`].
    KeepLightest,
}

/// Names for policies in options and command lines.
macro_rules! named_enum {
    ($t:ty, $what:literal, $($v:path => $name:literal),+) => {
        impl $t {
            /// Every value, in order.
            pub const ALL: &'static [$t] = &[$($v),+];

            /// The name used on command lines.
            pub fn name(self) -> &'static str {
                match self { $($v => $name),+ }
            }
        }

        impl std::str::FromStr for $t {
            type Err = Error;

            fn from_str(s: &str) -> Result<Self> {
                match s {
                    $($name => Ok($v),)+
                    _ => Err(Error::InvalidArgument(format!(
                        concat!("unknown ", $what, " '{}' (expected {})"),
                        s,
                        [$($name),+].join(", ")
                    ))),
                }
            }
        }
    };
}
pub(crate) use named_enum;

named_enum!(SelfLoops, "self-loop policy", SelfLoops::Keep => "keep", SelfLoops::Drop => "drop");
named_enum!(
    Duplicates,
    "duplicate policy",
    Duplicates::Keep => "keep",
    Duplicates::Drop => "drop",
    Duplicates::KeepLightest => "min"
);

/// Options for [`EdgeList::build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// Directed (arcs as given) or undirected (each edge stored in both directions).
    pub directed: bool,
    /// Self-loop policy.
    pub self_loops: SelfLoops,
    /// Parallel-edge policy.
    pub duplicates: Duplicates,
}

impl Default for BuildOptions {
    /// Directed, keep everything: the graph exactly as the input lists it.
    fn default() -> Self {
        BuildOptions {
            directed: true,
            self_loops: SelfLoops::Keep,
            duplicates: Duplicates::Keep,
        }
    }
}

/// A list of edges `src[i] -> dst[i]` with optional weights, ready to build a [`Graph`].
///
/// # Example
/// ```
/// use warpgraph::{BuildOptions, Duplicates, EdgeList, Weights};
/// let edges = EdgeList::new(3, vec![0, 0, 1, 0], vec![1, 1, 2, 2],
///     Weights::I32(vec![5, 3, 1, 9].into())).unwrap();
/// let opts = BuildOptions { duplicates: Duplicates::KeepLightest, ..Default::default() };
/// let g = edges.build(&opts).unwrap();
/// assert_eq!(g.neighbors(0), &[1, 2]);
/// assert_eq!(g.out().weights().as_slice::<i32>().unwrap(), &[3, 9, 1]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EdgeList {
    /// Number of vertices; every id in `src` and `dst` must be below it.
    pub num_vertices: u64,
    /// Edge sources.
    pub src: Vec<u32>,
    /// Edge targets.
    pub dst: Vec<u32>,
    /// One weight per edge, or [`Weights::None`].
    pub weights: Weights,
    /// The file ids of the vertices (kept on the built graph).
    pub ids: VertexIds,
}

impl EdgeList {
    /// An edge list over `num_vertices` vertices with 0-based ids.
    ///
    /// # Errors
    /// When the arrays differ in length or there are too many vertices.
    pub fn new(num_vertices: u64, src: Vec<u32>, dst: Vec<u32>, weights: Weights) -> Result<Self> {
        let e = EdgeList {
            num_vertices,
            src,
            dst,
            weights,
            ids: VertexIds::default(),
        };
        e.check_shape()?;
        Ok(e)
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    fn check_shape(&self) -> Result<()> {
        if self.num_vertices > MAX_VERTICES {
            return Err(Error::TooLarge {
                what: "the number of vertices".into(),
                value: self.num_vertices,
                limit: MAX_VERTICES,
            });
        }
        let w = self.weights.len();
        if self.src.len() != self.dst.len()
            || (self.weights.weight_type() != WeightType::None && w != self.src.len())
        {
            return Err(Error::InvalidArgument(format!(
                "edge list arrays differ in length: {} sources, {} targets, {w} weights",
                self.src.len(),
                self.dst.len()
            )));
        }
        Ok(())
    }

    /// Checks ids and weights; errors name the first bad edge.
    fn validate(&self) -> Result<()> {
        self.check_shape()?;
        let n = self.num_vertices;
        // Per chunk, a vectorisable max; the exact edge is looked up only on failure.
        const C: usize = 1 << 16;
        let out_of_range = |x: &[u32]| x.iter().copied().max().is_some_and(|m| m as u64 >= n);
        let bad = self
            .src
            .par_chunks(C)
            .zip(self.dst.par_chunks(C))
            .position_first(|(s, d)| out_of_range(s) || out_of_range(d))
            .and_then(|c| {
                (c * C..((c + 1) * C).min(self.src.len()))
                    .find(|&i| self.src[i] as u64 >= n || self.dst[i] as u64 >= n)
            });
        if let Some(i) = bad {
            let vertex = if self.src[i] as u64 >= n {
                self.src[i]
            } else {
                self.dst[i]
            };
            return Err(Error::VertexOutOfRange {
                edge: i as u64,
                vertex: vertex as u64,
                num_vertices: n,
            });
        }
        let bad = with_weights!(&self.weights,
            w => w.par_iter().position_first(|x| !x.is_finite_weight()).map(|i| (i, w[i].to_string())),
            none => None);
        if let Some((i, value)) = bad {
            return Err(Error::NonFiniteWeight {
                edge: i as u64,
                value,
            });
        }
        Ok(())
    }

    /// Builds the CSR graph. The method is described at the top of `graph/builder.rs`.
    ///
    /// # Errors
    /// A vertex id out of range, a non-finite weight, mismatched array lengths, or not
    /// enough memory (checked before allocating).
    pub fn build(&self, opts: &BuildOptions) -> Result<Graph> {
        self.validate()?;
        let n = self.num_vertices as usize;
        let arcs_upper = if opts.directed {
            self.len() as u64
        } else {
            2 * self.len() as u64
        };
        let wsize = self.weights.weight_type().size() as u64;
        crate::memory::check(
            || format!("building a CSR of {arcs_upper} arcs and {n} vertices"),
            arcs_upper.saturating_mul(12 + 2 * wsize) + (n as u64 + 1) * 16,
        )?;
        let edges = Edges {
            n,
            src: &self.src,
            dst: &self.dst,
            undirected: !opts.directed,
            drop_loops: opts.self_loops == SelfLoops::Drop,
        };
        let out = with_weights!(&self.weights,
            w => assemble(&edges, Some(&w[..]), opts.duplicates),
            none => assemble::<i32>(&edges, None, opts.duplicates));
        Ok(Graph::from_parts_unchecked(
            opts.directed,
            out,
            self.ids.clone(),
        ))
    }
}

/// Where `assemble` reads edges from.
struct Edges<'a> {
    n: usize,
    src: &'a [u32],
    dst: &'a [u32],
    undirected: bool,
    drop_loops: bool,
}

/// The transpose of a CSR: arc `u -> v` becomes `v -> u`, weights kept; each row lists
/// its sources ascending, parallel arcs in row order (the rows of `csr` need not be sorted;
/// every target must be below n).
///
/// A stable counting sort, in parallel: the rows are cut into chunks of about equal arcs
/// (at most one per thread, and fewer on a sparse graph so that the chunks' counters, n
/// each, stay within the arcs' own size); each chunk counts its arcs per target, a scan
/// over (target, chunk) gives each chunk its first slot in every row, and each chunk
/// writes its arcs, rows in order, into its slots.
pub(super) fn transpose(csr: &Csr) -> Csr {
    with_weights!(csr.weights(),
        w => transpose_with(csr, Some(&w[..])),
        none => transpose_with::<i32>(csr, None))
}

fn transpose_with<W: Copy + Default + Send + Sync>(csr: &Csr, w: Option<&[W]>) -> Csr
where
    Weights: From<Vec<W>>,
{
    let n = csr.num_vertices();
    let (off, tgt) = (csr.offsets(), csr.targets());
    let m = tgt.len();
    let chunks = rayon::current_num_threads().min(m / (2 * n.max(1))).max(1);
    let mut bounds: Vec<usize> = (0..chunks)
        .map(|c| off.partition_point(|&x| (x as u128) * (chunks as u128) < (c * m) as u128))
        .map(|r| r.min(n))
        .collect();
    bounds.push(n);
    let arcs = |c: usize| off[bounds[c]] as usize..off[bounds[c + 1]] as usize;
    let mut cursors: Vec<Vec<u64>> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut h = vec![0u64; n];
            for &v in &tgt[arcs(c)] {
                h[v as usize] += 1;
            }
            h
        })
        .collect();
    let totals: Vec<u64> = (0..n)
        .into_par_iter()
        .map(|v| cursors.iter().map(|h| h[v]).sum())
        .collect();
    let offsets = exclusive_scan(&totals);
    let mut next = offsets[..n].to_vec();
    for h in &mut cursors {
        h.par_iter_mut()
            .zip(next.par_iter_mut())
            .for_each(|(x, r)| {
                let first = *r;
                *r += *x;
                *x = first;
            });
    }
    let mut targets = vec![0u32; m];
    let mut weights = w.map(|_| vec![W::default(); m]);
    let t_out = SharedMut::new(&mut targets);
    let w_out = weights.as_deref_mut().map(SharedMut::new);
    cursors.par_iter_mut().enumerate().for_each(|(c, cur)| {
        for u in bounds[c]..bounds[c + 1] {
            for k in off[u] as usize..off[u + 1] as usize {
                let slot = &mut cur[tgt[k] as usize];
                let p = *slot as usize;
                *slot += 1;
                // SAFETY: chunk c owns slots cursors[c][v].. of row v, as many as its arcs
                // into v (the scan above), so no two writes share p < m; both outputs
                // outlive the loop.
                unsafe {
                    t_out.write(p, u as u32);
                    if let (Some(wo), Some(w)) = (w_out, w) {
                        wo.write(p, w[k]);
                    }
                }
            }
        }
    });
    let weights = weights.map_or(Weights::None, Weights::from);
    Csr::from_raw(offsets.into(), targets.into(), weights)
}

/// log2 of the vertices per bucket in the partition pass: a bucket's counters fit in L2.
const BUCKET_SHIFT: u32 = 16;

/// Builds the CSR by a two-pass, atomic-free, stable counting sort of the arcs by source.
///
/// Pass A cuts the edges into fixed chunks (so the result does not depend on the thread
/// count), counts each chunk's arcs per bucket of 2^16 source vertices, and copies every
/// arc into its bucket's region, chunks in order: a stable partition. Pass B takes one
/// bucket per task: counts its vertices' degrees, places its rows (the bucket's region of
/// the output is contiguous), scatters its arcs into them (stable, in cache), sorts each
/// row by target (stable, weights alongside, so parallel arcs stay in input order) and
/// collapses duplicates. Rows are compacted at the end when duplicates were dropped.
fn assemble<W: Weight>(e: &Edges<'_>, w: Option<&[W]>, dups: Duplicates) -> Csr
where
    Weights: From<Vec<W>>,
{
    let n = e.n;
    let weighted = w.is_some();
    let part = partition(e, w);
    let (offsets, kept, targets, weights) = place_rows(n, w, dups, &part);
    drop(part);
    if dups == Duplicates::Keep {
        let weights = if weighted {
            Weights::from(weights)
        } else {
            Weights::None
        };
        return Csr::from_raw(offsets.into(), targets.into(), weights);
    }
    compact(&offsets, &kept, &targets, &weights, weighted)
}

/// The arcs stably partitioned by bucket of 2^16 source vertices (pass A of [`assemble`]).
struct Partition<W> {
    /// Sources, in bucket order (input order within a bucket).
    src: Vec<u32>,
    /// Targets, alongside.
    dst: Vec<u32>,
    /// Weights, alongside (empty when unweighted).
    w: Vec<W>,
    /// Where each bucket's arcs start, and their total at the end.
    bucket_start: Vec<u64>,
}

/// Pass A of [`assemble`]: per-chunk bucket histograms, then a stable partition of the
/// arcs by bucket (self loops dropped and undirected edges mirrored as `e` says).
fn partition<W: Weight>(e: &Edges<'_>, w: Option<&[W]>) -> Partition<W> {
    let n = e.n;
    let m = e.src.len();
    let keep = |i: usize| !(e.drop_loops && e.src[i] == e.dst[i]);
    let mirrored = |i: usize| e.undirected && e.src[i] != e.dst[i];
    let buckets = n.div_ceil(1 << BUCKET_SHIFT).max(1);
    let chunk = (m / 256).max(1 << 18);
    let chunks: Vec<(usize, usize)> = (0..m.div_ceil(chunk))
        .map(|c| (c * chunk, ((c + 1) * chunk).min(m)))
        .collect();

    // Pass A: per-chunk bucket histograms, then a stable partition of the arcs by bucket.
    let hist: Vec<Vec<u64>> = chunks
        .par_iter()
        .map(|&(a, b)| {
            let mut h = vec![0u64; buckets];
            for i in a..b {
                if keep(i) {
                    h[(e.src[i] >> BUCKET_SHIFT) as usize] += 1;
                    if mirrored(i) {
                        h[(e.dst[i] >> BUCKET_SHIFT) as usize] += 1;
                    }
                }
            }
            h
        })
        .collect();
    let mut bucket_start = vec![0u64; buckets + 1];
    let mut chunk_start: Vec<Vec<u64>> = vec![vec![0u64; buckets]; chunks.len()];
    let mut acc = 0u64;
    for b in 0..buckets {
        bucket_start[b] = acc;
        for c in 0..chunks.len() {
            chunk_start[c][b] = acc;
            acc += hist[c][b];
        }
    }
    bucket_start[buckets] = acc;
    drop(hist);
    let arcs = acc as usize;
    let mut part_src = vec![0u32; arcs];
    let mut part_dst = vec![0u32; arcs];
    let mut part_w: Vec<W> = match w {
        Some(w) if arcs > 0 => vec![w[0]; arcs],
        _ => Vec::new(),
    };
    {
        let (ps, pd, pw) = (
            SharedMut::new(&mut part_src),
            SharedMut::new(&mut part_dst),
            SharedMut::new(&mut part_w),
        );
        chunks
            .par_iter()
            .zip(chunk_start)
            .for_each(|(&(a, b), mut cursor)| {
                let mut put = |s: u32, d: u32, i: usize| {
                    let slot = &mut cursor[(s >> BUCKET_SHIFT) as usize];
                    let p = *slot as usize;
                    *slot += 1;
                    // SAFETY: chunk c of bucket b owns slots chunk_start[c][b]..+hist[c][b],
                    // disjoint from every other (chunk, bucket) and below `arcs`; part_w has
                    // `arcs` entries whenever w is Some.
                    unsafe {
                        ps.write(p, s);
                        pd.write(p, d);
                        if let Some(w) = w {
                            pw.write(p, w[i]);
                        }
                    }
                };
                for i in a..b {
                    if keep(i) {
                        put(e.src[i], e.dst[i], i);
                        if mirrored(i) {
                            put(e.dst[i], e.src[i], i);
                        }
                    }
                }
            });
    }
    Partition {
        src: part_src,
        dst: part_dst,
        w: part_w,
        bucket_start,
    }
}

/// Pass B of [`assemble`]: per bucket of `part`, the rows placed, filled, sorted by target
/// and collapsed per `dups`. Returns the offsets, each row's kept length (none with
/// [`Duplicates::Keep`]), the targets and the weights (empty when `w` is `None`).
#[allow(clippy::type_complexity)]
fn place_rows<W: Weight>(
    n: usize,
    w: Option<&[W]>,
    dups: Duplicates,
    part: &Partition<W>,
) -> (Vec<u64>, Vec<u64>, Vec<u32>, Vec<W>) {
    let weighted = w.is_some();
    let bucket_start = &part.bucket_start;
    let buckets = bucket_start.len() - 1;
    let arcs = bucket_start[buckets] as usize;
    let (part_src, part_dst, part_w) = (&part.src, &part.dst, &part.w);
    let mut offsets = vec![0u64; n + 1];
    offsets[n] = arcs as u64;
    let mut kept = vec![0u64; if dups == Duplicates::Keep { 0 } else { n }];
    let mut targets = vec![0u32; arcs];
    let mut weights: Vec<W> = match w {
        Some(w) if arcs > 0 => vec![w[0]; arcs],
        _ => Vec::new(),
    };
    {
        let (o_ptr, k_ptr) = (SharedMut::new(&mut offsets), SharedMut::new(&mut kept));
        let (t_ptr, w_ptr) = (SharedMut::new(&mut targets), SharedMut::new(&mut weights));
        (0..buckets)
            .into_par_iter()
            .for_each_init(Vec::new, |buf: &mut Vec<(u32, W)>, b| {
                let lo = b << BUCKET_SHIFT;
                let hi = ((b + 1) << BUCKET_SHIFT).min(n);
                let (ra, rb) = (bucket_start[b] as usize, bucket_start[b + 1] as usize);
                // SAFETY: bucket b alone owns vertices lo..hi (offsets, kept) and arcs ra..rb
                // (targets, weights); all lie inside their arrays.
                let (off, t, wt) = unsafe {
                    (
                        o_ptr.slice(lo, hi - lo),
                        t_ptr.slice(ra, rb - ra),
                        if weighted {
                            w_ptr.slice(ra, rb - ra)
                        } else {
                            &mut [][..]
                        },
                    )
                };
                let mut cursor = vec![0u64; hi - lo];
                for &s in &part_src[ra..rb] {
                    cursor[s as usize - lo] += 1;
                }
                let mut acc = ra as u64;
                for (o, c) in off.iter_mut().zip(cursor.iter_mut()) {
                    *o = acc;
                    acc += *c;
                    *c = *o - ra as u64;
                }
                for j in ra..rb {
                    let slot = &mut cursor[part_src[j] as usize - lo];
                    let p = *slot as usize;
                    *slot += 1;
                    t[p] = part_dst[j];
                    if weighted {
                        wt[p] = part_w[j];
                    }
                }
                for v in lo..hi {
                    let a = (off[v - lo] as usize) - ra;
                    let z = if v + 1 < hi {
                        off[v + 1 - lo] as usize - ra
                    } else {
                        rb - ra
                    };
                    let (trow, wrow) = (
                        &mut t[a..z],
                        if weighted { &mut wt[a..z] } else { &mut [][..] },
                    );
                    if trow.windows(2).any(|p| p[0] > p[1]) {
                        if weighted {
                            buf.clear();
                            buf.extend(trow.iter().copied().zip(wrow.iter().copied()));
                            buf.sort_by_key(|p| p.0); // stable: parallel arcs keep input order
                            for (i, &(x, y)) in buf.iter().enumerate() {
                                trow[i] = x;
                                wrow[i] = y;
                            }
                        } else {
                            trow.sort_unstable();
                        }
                    }
                    if dups != Duplicates::Keep {
                        let len = collapse(trow, wrow, dups) as u64;
                        // SAFETY: vertex v belongs to this bucket.
                        unsafe { k_ptr.write(v, len) };
                    }
                }
            });
    }
    (offsets, kept, targets, weights)
}

/// The compaction after duplicates were dropped: each row `v` of `offsets`, `targets` and
/// `weights` (`weighted`) keeps its first `kept[v]` arcs.
fn compact<W: Weight>(
    offsets: &[u64],
    kept: &[u64],
    targets: &[u32],
    weights: &[W],
    weighted: bool,
) -> Csr
where
    Weights: From<Vec<W>>,
{
    let n = kept.len();
    // Compaction: each row keeps its first kept[v] arcs.
    let final_offsets = exclusive_scan(kept);
    let final_arcs = final_offsets[n] as usize;
    let mut final_t = vec![0u32; final_arcs];
    let mut final_w: Vec<W> = if weighted && final_arcs > 0 {
        vec![weights[0]; final_arcs]
    } else {
        Vec::new()
    };
    let (t_ptr, w_ptr) = (SharedMut::new(&mut final_t), SharedMut::new(&mut final_w));
    (0..n).into_par_iter().with_min_len(1024).for_each(|v| {
        let (from, to) = (offsets[v] as usize, final_offsets[v] as usize);
        let len = final_offsets[v + 1] as usize - to;
        // SAFETY: final rows are disjoint and lie below final_arcs.
        unsafe {
            t_ptr
                .slice(to, len)
                .copy_from_slice(&targets[from..from + len]);
            if weighted {
                w_ptr
                    .slice(to, len)
                    .copy_from_slice(&weights[from..from + len]);
            }
        }
    });
    let weights = if weighted {
        Weights::from(final_w)
    } else {
        Weights::None
    };
    Csr::from_raw(final_offsets.into(), final_t.into(), weights)
}

/// Collapses runs of equal targets in a sorted row per `dups`, moving kept arcs (and their
/// weights, when `w` is not empty) to the front; returns the kept length. Runs are in input
/// order, so "first" is the earliest edge.
fn collapse<W: Weight>(t: &mut [u32], w: &mut [W], dups: Duplicates) -> usize {
    if dups == Duplicates::Keep || t.len() < 2 {
        return t.len();
    }
    let lightest = dups == Duplicates::KeepLightest && !w.is_empty();
    let mut out = 0;
    let mut i = 0;
    while i < t.len() {
        let mut best = i;
        let mut j = i + 1;
        while j < t.len() && t[j] == t[i] {
            // Strictly lighter wins; on ties the earlier edge stays.
            if lightest && w[j] < w[best] {
                best = j;
            }
            j += 1;
        }
        t[out] = t[best];
        if !w.is_empty() {
            w[out] = w[best];
        }
        out += 1;
        i = j;
    }
    out
}

macro_rules! weights_from_vec {
    ($($t:ty => $v:ident),*) => {$(
        impl From<Vec<$t>> for Weights {
            fn from(v: Vec<$t>) -> Self { Weights::$v(Buf::from(v)) }
        }
    )*};
}
weights_from_vec!(i32 => I32, i64 => I64, f32 => F32, f64 => F64);

#[cfg(test)]
mod tests {
    use super::*;

    fn el(n: u64, e: &[(u32, u32)], w: Option<Vec<i32>>) -> EdgeList {
        EdgeList::new(
            n,
            e.iter().map(|x| x.0).collect(),
            e.iter().map(|x| x.1).collect(),
            w.map_or(Weights::None, |w| Weights::I32(w.into())),
        )
        .unwrap()
    }

    #[test]
    fn transpose_of_unsorted_rows_is_stable() {
        // Rows unsorted, a parallel arc 0 -> 2 twice (weights 5 then 6), a self loop.
        let csr = Csr::from_raw(
            vec![0u64, 3, 4, 6].into(),
            vec![2u32, 1, 2, 2, 0, 2].into(),
            Weights::I32(vec![5, 1, 6, 7, 8, 9].into()),
        );
        let t = csr.transpose();
        assert_eq!(t.offsets(), &[0, 1, 2, 6]);
        assert_eq!(t.targets(), &[2, 0, 0, 0, 1, 2]);
        assert_eq!(t.weights(), &Weights::I32(vec![8, 1, 5, 6, 7, 9].into()));
        let plain = Csr::from_raw(
            csr.offsets().to_vec().into(),
            csr.targets().to_vec().into(),
            Weights::None,
        );
        assert_eq!(plain.transpose().targets(), t.targets());
        assert_eq!(plain.transpose().weights(), &Weights::None);
        // Dense enough for a chunk per thread: against a serial transpose.
        let (n, per_row) = (50usize, 40usize);
        let mut x = 12345u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u32
        };
        let targets: Vec<u32> = (0..n * per_row).map(|_| next() % n as u32).collect();
        let w: Vec<i32> = (0..n * per_row).map(|i| i as i32).collect();
        let offsets: Vec<u64> = (0..=n).map(|u| (u * per_row) as u64).collect();
        let mut rows = vec![Vec::new(); n];
        for u in 0..n {
            for k in u * per_row..(u + 1) * per_row {
                rows[targets[k] as usize].push((u as u32, w[k]));
            }
        }
        let big = Csr::from_raw(offsets.into(), targets.into(), Weights::I32(w.into()));
        let t = big.transpose();
        let flat: Vec<(u32, i32)> = rows.into_iter().flatten().collect();
        let Weights::I32(tw) = t.weights() else {
            panic!("i32 weights")
        };
        let got: Vec<(u32, i32)> = t
            .targets()
            .iter()
            .copied()
            .zip(tw.iter().copied())
            .collect();
        assert_eq!(got, flat);
    }

    #[test]
    fn directed_rows_sorted() {
        let g = el(4, &[(0, 3), (0, 1), (2, 0), (0, 2)], None)
            .build(&BuildOptions::default())
            .unwrap();
        assert_eq!(g.out().offsets(), &[0, 3, 3, 4, 4]);
        assert_eq!(g.neighbors(0), &[1, 2, 3]);
        assert_eq!(g.incoming().neighbors(0), &[2]);
        assert_eq!(g.incoming().neighbors(3), &[0]);
    }

    #[test]
    fn undirected_loops_stored_once() {
        let opts = BuildOptions {
            directed: false,
            ..Default::default()
        };
        let g = el(3, &[(0, 1), (2, 2)], None).build(&opts).unwrap();
        assert_eq!(g.num_arcs(), 3);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.neighbors(2), &[2]);
        let opts = BuildOptions {
            self_loops: SelfLoops::Drop,
            ..opts
        };
        let g = el(3, &[(0, 1), (2, 2)], None).build(&opts).unwrap();
        assert_eq!(g.num_edges(), 1);
    }

    #[test]
    fn duplicate_policies() {
        let e = el(2, &[(0, 1), (0, 1), (0, 1)], Some(vec![7, 3, 3]));
        let w = |d| {
            let g = e
                .build(&BuildOptions {
                    duplicates: d,
                    ..Default::default()
                })
                .unwrap();
            g.out().weights().as_slice::<i32>().unwrap().to_vec()
        };
        assert_eq!(w(Duplicates::Keep), vec![7, 3, 3]);
        assert_eq!(w(Duplicates::Drop), vec![7]);
        assert_eq!(w(Duplicates::KeepLightest), vec![3]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let e = el(2, &[(0, 1), (0, 2)], None);
        assert!(matches!(
            e.build(&BuildOptions::default()),
            Err(Error::VertexOutOfRange {
                edge: 1,
                vertex: 2,
                ..
            })
        ));
        let e = EdgeList::new(2, vec![0], vec![1], Weights::F64(vec![f64::NAN].into())).unwrap();
        assert!(matches!(
            e.build(&BuildOptions::default()),
            Err(Error::NonFiniteWeight { edge: 0, .. })
        ));
        assert!(EdgeList::new(2, vec![0], vec![], Weights::None).is_err());
    }
}
