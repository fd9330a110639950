//! Whether an output fits on its disk, asked before the work that produces it.
//!
//! A result file's size is known, exactly or as a safe upper bound, from the graph alone:
//! the writers' formats fix how many lines there are and how long each field can be (the
//! digits of the vertex ids, of the largest possible distance). [`check_space`] compares
//! such a size with the free space of the file system that will hold the file (`statvfs`
//! of its folder: the blocks available to an unprivileged user) and refuses with
//! [`Error::NoSpace`], both numbers in the message, when it does not fit. The APSP sinks'
//! sizes are [`npy_file_size`](crate::apsp::npy_file_size) and
//! [`tsv_size_bound`](crate::apsp::tsv_size_bound); [`vertex_table_bound`]
//! bounds the one-line-per-vertex tables of BFS and SSSP, [`graph_file_bound`] a graph
//! file (checked by [`write()`](super::write)).

use std::path::Path;

use rayon::prelude::*;

use super::Format;
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, VertexIds, Weights};

/// Bytes available to this user on the file system that holds (or will hold) `path`, or
/// `None` where the platform does not say (the checks then pass).
pub fn free_space(path: &Path) -> Option<u64> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    statvfs_free(dir)
}

#[cfg(unix)]
fn statvfs_free(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is NUL-terminated and `st` a zeroed out-parameter of the right type.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(not(unix))]
fn statvfs_free(_dir: &Path) -> Option<u64> {
    None
}

/// Refuses with [`Error::NoSpace`] when `needed` bytes exceed the free space of `path`'s
/// file system. A file already at `path` does not count as free: it stays until the new
/// one is complete.
///
/// # Errors
/// [`Error::NoSpace`], naming `path` and both sizes.
pub fn check_space(path: &Path, needed: u64) -> Result<()> {
    check_space_with(path, needed, free_space(path))
}

/// [`check_space`] against a given free space (`None`: unknown, passes).
///
/// # Errors
/// [`Error::NoSpace`] when `needed > free`.
pub fn check_space_with(path: &Path, needed: u64, free: Option<u64>) -> Result<()> {
    match free {
        Some(free) if needed > free => Err(Error::NoSpace {
            path: path.to_path_buf(),
            needed,
            free,
        }),
        _ => Ok(()),
    }
}

/// Decimal digits of `x` (1 for 0).
pub fn digits(x: u64) -> u64 {
    x.checked_ilog10().map_or(1, |d| d as u64 + 1)
}

/// The digits of the file ids of vertices `0..n`: their sum and their maximum.
pub fn id_digits(ids: &VertexIds, n: usize) -> (u64, u64) {
    if n == 0 {
        return (0, 0);
    }
    match ids {
        VertexIds::Base(b) => {
            let (lo, hi) = (*b, b.saturating_add(n as u64 - 1));
            (range_digits(lo, hi), digits(hi))
        }
        VertexIds::Map(m) => {
            let m = &m[..n.min(m.len())];
            let sum = m.par_iter().map(|&x| digits(x)).sum();
            (sum, m.last().map_or(1, |&x| digits(x)))
        }
    }
}

/// The decimal digits of vertex `v`'s file id.
pub fn id_digits_of(ids: &VertexIds, v: VertexId) -> u64 {
    digits(ids.external(v))
}

/// The digits of all integers `lo..=hi`.
fn range_digits(lo: u64, hi: u64) -> u64 {
    let mut sum = 0u64;
    let mut start = lo;
    while start <= hi {
        let d = digits(start);
        // The last number with d digits.
        let end = 10u64
            .checked_pow(d as u32)
            .map_or(u64::MAX, |p| p - 1)
            .min(hi);
        sum = sum.saturating_add((end - start + 1).saturating_mul(d));
        if end == u64::MAX {
            break;
        }
        start = end + 1;
    }
    sum
}

/// The longest text of an integer distance in `g`: a shortest path has at most n - 1 arcs,
/// so |distance| <= (n - 1) * the largest |weight| (1 unweighted); a minus sign where a
/// weight is negative. `None` for float weights.
pub fn int_distance_len(g: &Graph) -> Option<u64> {
    let (maxabs, negative) = int_weight_range(g)?;
    let longest = maxabs
        .saturating_mul(g.num_vertices().saturating_sub(1) as u64)
        .min(i64::MAX as u64);
    Some(digits(longest) + negative as u64)
}

/// The longest text of a float distance as the APSP TSV writes it (the shortest form that
/// reads back, `ryu`'s): `-2.2250738585072014e-308` has 24 characters.
pub const FLOAT_TEXT_MAX: u64 = 24;

/// An upper bound on a table with a header line of `header` bytes (newline included) and one
/// line per vertex `ID\tVALUE\tPARENT` (or `ID\tinf\t-1` unreached), where a value takes at
/// most `value_len` characters: the BFS and SSSP `-o` files.
pub fn vertex_table_bound(g: &Graph, header: u64, value_len: u64) -> u64 {
    let n = g.num_vertices();
    let (sum, max) = id_digits(g.ids(), n);
    let rest = 3 + value_len.max(3) + max.max(2);
    header
        .saturating_add(sum)
        .saturating_add((n as u64).saturating_mul(rest))
}

/// An upper bound on the size of `g` written in `format`: exact for `.wg`; for the text
/// formats a line per arc of the longest ids and weight (a float weight as `ryu` writes it),
/// a newline per vertex (METIS's lines) and room for the header and comments.
pub fn graph_file_bound(g: &Graph, format: Format) -> u64 {
    if format == Format::Wg {
        return super::wg::required_bytes(g);
    }
    let n = g.num_vertices() as u64;
    let (_, max) = id_digits(g.ids(), g.num_vertices());
    let id = max.max(digits(n));
    let weight = int_weight_len(g).unwrap_or(FLOAT_TEXT_MAX);
    // "a U V W\n" is the longest arc line (DIMACS).
    let per_arc = 2 + 2 * id + 3 + weight;
    4096u64
        .saturating_add(n)
        .saturating_add(g.num_arcs().saturating_mul(per_arc))
}

/// An upper bound on a table with a header line of `header` bytes and one line
/// `ID\tID\tVALUE` per edge of a spanning forest (at most n - 1), where a value takes at
/// most `value_len` characters: the MST `-o` file.
pub fn forest_table_bound(g: &Graph, header: u64, value_len: u64) -> u64 {
    let n = g.num_vertices() as u64;
    let (_, max) = id_digits(g.ids(), g.num_vertices());
    header.saturating_add(n.saturating_sub(1).saturating_mul(2 * max + value_len + 3))
}

/// The longest text of an integer weight of `g` (`1` unweighted); `None` for float weights.
pub fn int_weight_len(g: &Graph) -> Option<u64> {
    let (maxabs, negative) = int_weight_range(g)?;
    Some(digits(maxabs) + negative as u64)
}

/// The largest |weight| (1 unweighted) and whether one is negative; `None` for floats.
fn int_weight_range(g: &Graph) -> Option<(u64, bool)> {
    let r = |a: (u64, bool), b: (u64, bool)| (a.0.max(b.0), a.1 || b.1);
    Some(match g.out().weights() {
        Weights::None => (1, false),
        Weights::I32(w) => w
            .par_iter()
            .map(|&x| (x.unsigned_abs() as u64, x < 0))
            .reduce(|| (0, false), r),
        Weights::I64(w) => w
            .par_iter()
            .map(|&x| (x.unsigned_abs(), x < 0))
            .reduce(|| (0, false), r),
        Weights::F32(_) | Weights::F64(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_numbers_and_ranges() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u64::MAX), 20);
        for (lo, hi) in [(0, 0), (0, 9), (1, 10), (7, 1234), (99, 100), (5, 100_001)] {
            let want: u64 = (lo..=hi).map(digits).sum();
            assert_eq!(range_digits(lo, hi), want, "{lo}..={hi}");
        }
        assert_eq!(range_digits(u64::MAX - 1, u64::MAX), 40);
        let ids = VertexIds::Map(vec![3u64, 40, 500].into());
        assert_eq!(id_digits(&ids, 3), (6, 3));
        assert_eq!(id_digits(&VertexIds::Base(1), 10), (11, 2));
        assert_eq!(id_digits(&VertexIds::Base(1), 0), (0, 0));
    }

    #[test]
    fn float_text_is_at_most_24_characters() {
        let mut b = ryu::Buffer::new();
        for x in [
            -2.2250738585072014e-308,
            -f64::MAX,
            -f64::MIN_POSITIVE / 3.0,
            -1.0000000000000002,
            -123456789012345.67,
            -0.000012345678901234567,
        ] {
            assert!(b.format_finite(x).len() as u64 <= FLOAT_TEXT_MAX, "{x}");
        }
    }

    #[test]
    fn graph_files_stay_within_their_bound() {
        use crate::graph::{BuildOptions, EdgeList};
        let (src, dst) = (vec![0u32, 1, 2, 3, 9, 4], vec![1u32, 2, 3, 0, 9, 5]);
        let weights = [
            Weights::None,
            Weights::from(vec![5i32, -700, 3, 0, 12, 1]),
            Weights::from(vec![0.1f64, -2.5e-300, 3.0, 1e300, 7.25, 1.0]),
        ];
        let mut written = 0;
        for w in weights {
            for directed in [true, false] {
                let g = EdgeList::new(10, src.clone(), dst.clone(), w.clone())
                    .unwrap()
                    .build(&BuildOptions {
                        directed,
                        ..BuildOptions::default()
                    })
                    .unwrap()
                    .with_ids(VertexIds::Map(
                        (0..10u64).map(|i| i * 999).collect::<Vec<_>>().into(),
                    ))
                    .unwrap();
                for format in Format::ALL {
                    let cx = super::super::WriteContext {
                        path: Path::new("<memory>"),
                        progress: &crate::NoProgress,
                    };
                    let mut out = Vec::new();
                    if super::super::write_to(&g, format, &mut out, &cx).is_err() {
                        continue; // a graph the format cannot hold
                    }
                    let bound = graph_file_bound(&g, format);
                    assert!(
                        out.len() as u64 <= bound,
                        "{format}: {} > {bound}",
                        out.len()
                    );
                    if format == Format::Wg {
                        assert_eq!(out.len() as u64, bound);
                    }
                    written += 1;
                }
            }
        }
        assert!(written >= 30, "{written} files written");
    }

    #[test]
    fn refuses_when_free_is_less_than_needed() {
        let p = Path::new("out/d.npy");
        assert!(check_space_with(p, 10, Some(10)).is_ok());
        assert!(check_space_with(p, 10, None).is_ok());
        let e = check_space_with(p, 550_000_000_000, Some(77_000_000_000)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("out/d.npy: "), "{msg}");
        assert!(
            msg.contains("512.23 GiB") && msg.contains("71.71 GiB"),
            "{msg}"
        );
        // A real file system: the temporary folder has room for a byte, not for 2^64 - 1.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        assert!(free_space(&p).is_some_and(|f| f > 0));
        assert!(check_space(&p, 1).is_ok());
        assert!(matches!(
            check_space(&p, u64::MAX),
            Err(Error::NoSpace {
                needed: u64::MAX,
                ..
            })
        ));
    }
}
