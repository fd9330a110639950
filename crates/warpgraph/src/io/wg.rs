//! The `.wg` format: warpgraph's binary CSR, loaded by memory map at close to disk speed.
//!
//! A `.wg` file holds a [`Graph`] exactly as the library stores it: a 256-byte header,
//! then up to four sections (the CSR row offsets, the arc targets, the arc weights and the
//! vertex-id map), each a raw little-endian array starting at an aligned byte offset, so
//! that loading is a memory map, a checksum pass and a structure check; the arrays are used
//! in place ([`Buf::mapped`]), never copied or parsed.
//!
//! # Example
//!
//! The directed graph `0 -> 1 (weight 5)`, `0 -> 2 (-3)`, `2 -> 0 (7)` with 1-based file
//! ids is this 396-byte file (`..` is padding, always zero):
//!
//! ```text
//! 0     WARPGRPH  01000000 00010000  01000000 01000000      magic, version 1, header 256, directed, i32
//! 24    n = 3, arcs = 3, id base = 1, file length = 396, chunk = 1048576
//! 64    section table: offsets @256 len 32, targets @320 len 12, weights @384 len 12, ids @0 len 0
//! 160   zeros (reserved) ... 248: header checksum
//! 256   offsets  0 2 2 3            (4 x u64)
//! 288   ..
//! 320   targets  1 2 0              (3 x u32)
//! 332   ..
//! 384   weights  5 -3 7             (3 x i32), end of file at 396
//! ```
//!
//! # Layout
//!
//! All integers are little-endian. The header:
//!
//! | bytes | type | field | why |
//! |---|---|---|---|
//! | 0..8 | `[u8; 8]` | magic `WARPGRPH` | identifies the format ([`super::detect`] sniffs it) |
//! | 8..12 | u32 | format version, = 1 | a reader refuses versions it does not know, by name |
//! | 12..16 | u32 | header length in bytes, = 256 | locates the header checksum in any version |
//! | 16..20 | u32 | flags: bit 0 directed, bit 1 has an id map; other bits 0 | graph kind |
//! | 20..24 | u32 | weight type: 0 none, 1 i32, 2 i64, 3 f32, 4 f64 | element type of the weights |
//! | 24..32 | u64 | n, the number of vertices (at most [`MAX_VERTICES`]) | sizes the offsets and ids |
//! | 32..40 | u64 | arcs, the number of stored arcs | sizes the targets and weights |
//! | 40..48 | u64 | id base ([`VertexIds::Base`]); 0 with an id map | file ids without a map |
//! | 48..56 | u64 | length of the whole file in bytes | truncation and trailing data are named as such |
//! | 56..64 | u64 | checksum chunk size in bytes, = 2^20 | see *Checksums* |
//! | 64..88 | 3 x u64 | offsets section: byte offset, byte length, checksum | `(n + 1) x u64` |
//! | 88..112 | 3 x u64 | targets section: offset, length, checksum | `arcs x u32` |
//! | 112..136 | 3 x u64 | weights section: offset, length, checksum | `arcs x` weight size, or empty |
//! | 136..160 | 3 x u64 | id-map section: offset, length, checksum | `n x u64` (strictly increasing), or empty |
//! | 160..248 | zeros | reserved | room for version-1-compatible additions |
//! | 248..256 | u64 | header checksum: xxh3-64 of bytes 0..248 | catches any corrupt header byte |
//!
//! Sections follow in table order. A non-empty section starts at a multiple of 64 bytes (of
//! 4096 bytes when it is at least 64 KiB long, so that large sections are page aligned for
//! direct I/O and GPU transfers) after the end of the previous one; an empty section is
//! recorded as offset 0, length 0. The bytes between sections are zero and the file ends
//! right after its last section. Readers accept any 64-aligned placement in order, but
//! check that padding is zero, so that every byte of a `.wg` file is covered by a check.
//!
//! # Checksums
//!
//! A section's checksum is the xxh3-64 (seed 0) of the concatenated little-endian xxh3-64
//! digests of its consecutive chunks of `chunk size` bytes (the last chunk may be shorter;
//! an empty section has no chunks and so checksums to `xxh3_64(b"")`). This two-level hash
//! lets readers and writers hash a section on every core at once. The writer uses 1 MiB
//! chunks; readers accept any power of two from 4 KiB to 1 GiB. In Python:
//! `xxh3_64(b"".join(xxh3_64(s[i:i+c]).intdigest().to_bytes(8, "little") for i in range(0, len(s), c)))`.
//!
//! # Loading
//!
//! [`read_map`] checks, in order and before touching any section: the magic; the header
//! checksum; the version (a newer one is refused with both version numbers: versions after 1
//! keep bytes 0..16, the header checksum's place at the header's end and its algorithm, so
//! that a newer file is told from a corrupt one); flags, weight type and reserved bytes;
//! every count against [`MAX_VERTICES`], against each other and against the file length,
//! in checked arithmetic. It then verifies the section checksums in parallel chunks, views
//! the sections in place, and validates the CSR structure ([`Csr::validate`]: offsets
//! monotone, targets in range, rows sorted, weights finite) and the id map (strictly
//! increasing). A crafted file with correct checksums therefore cannot make later code
//! panic or misbehave. The symmetry of undirected graphs is *not* re-checked (that would
//! cost a transpose): the writer only writes valid graphs and the checksums guard against
//! corruption.
//!
//! [`read_bytes`] takes any byte slice (unaligned, not from a file) and copies the sections
//! into owned arrays; every check is the same code as for [`read_map`].
//!
//! Read options that change a graph ([`ReadOptions`](super::ReadOptions): `undirected`,
//! `self_loops`, `duplicates`, `weight_type`) are honoured as for text formats, by rebuilding
//! or converting the loaded graph (the result is then no longer memory-mapped).
//!
//! The format is little-endian on disk and viewed in place, so on big-endian targets every
//! function here returns [`Error::Unsupported`].
//!
//! Source: this module is the specification (format version 1). xxh3: <https://xxhash.com>.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{ReadContext, WriteContext};
use crate::error::{fmt_bytes, Error, Result};
use crate::graph::{
    Buf, Csr, Duplicates, EdgeList, Graph, Pod, SelfLoops, VertexIds, WeightType, Weights,
    MAX_VERTICES,
};
use crate::progress::Progress;
use crate::with_weights;

/// The first bytes of every `.wg` file.
pub const MAGIC: &[u8; 8] = b"WARPGRPH";

/// The format version this build writes, and the newest it reads.
pub const VERSION: u32 = 1;

/// Length of a version-1 header in bytes.
pub const HEADER_BYTES: usize = 256;

/// Chunk size of the two-level section checksums written by this build (1 MiB).
pub const CHUNK_BYTES: u64 = 1 << 20;

/// Every non-empty section starts at a multiple of this many bytes.
pub const SECTION_ALIGN: u64 = 64;

/// Sections of at least [`PAGE_ALIGN_FROM`] bytes start at a multiple of this.
pub const PAGE_ALIGN: u64 = 4096;

/// Sections at least this long are written page aligned ([`PAGE_ALIGN`]).
pub const PAGE_ALIGN_FROM: u64 = 64 << 10;

/// Byte offset of the reserved area in the version-1 header.
const RESERVED: std::ops::Range<usize> = 160..248;

/// Smallest and largest chunk size a reader accepts.
const MIN_CHUNK: u64 = 4096;
const MAX_CHUNK: u64 = 1 << 30;

/// Largest header any version may have (a sanity bound on the header-length field).
const MAX_HEADER: u32 = 1 << 16;

const FLAG_DIRECTED: u32 = 1;
const FLAG_ID_MAP: u32 = 2;

/// The names of the four sections, in file order.
pub const SECTION_NAMES: [&str; 4] = ["offsets", "targets", "weights", "id map"];

/// One entry of the section table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Section {
    /// Byte offset of the section in the file (0 for an empty section).
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// The two-level xxh3-64 checksum (see the module docs).
    pub checksum: u64,
}

/// What a `.wg` header says, once every header check has passed ([`header_info`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderInfo {
    /// Format version.
    pub version: u32,
    /// Whether the graph is directed.
    pub directed: bool,
    /// The weight type.
    pub weight_type: WeightType,
    /// Number of vertices.
    pub num_vertices: u64,
    /// Number of stored arcs.
    pub num_arcs: u64,
    /// `Some(base)` for [`VertexIds::Base`], `None` when the file has an id map.
    pub id_base: Option<u64>,
    /// Length of the file in bytes.
    pub file_bytes: u64,
    /// Checksum chunk size in bytes.
    pub chunk_bytes: u64,
    /// The section table: offsets, targets, weights, id map ([`SECTION_NAMES`]).
    pub sections: [Section; 4],
}

/// The size in bytes of the `.wg` file [`write()`] produces for `g`.
pub fn required_bytes(g: &Graph) -> u64 {
    let (lens, _) = section_lens(g);
    plan(lens).map_or(u64::MAX, |(_, end)| end)
}

/// Reads and checks a `.wg` header, and the placement of every section against `data`'s
/// length (`data` is the whole file). Section contents are not read.
///
/// # Errors
/// [`Error::Format`] naming `path` and what is wrong; [`Error::Unsupported`] on big-endian
/// targets.
pub fn header_info(data: &[u8], path: &Path) -> Result<HeaderInfo> {
    big_endian_check()?;
    parse_header(data, path)
}

/// Loads a `.wg` file from a memory map: the graph's arrays are views into the map.
///
/// # Errors
/// [`Error::Format`] naming the file and the problem (truncation, a checksum mismatch, a
/// newer version, an invalid structure); errors of the builder or of weight conversion when
/// the read options ask for a different graph.
pub fn read_map(map: Arc<Mmap>, cx: &ReadContext<'_>) -> Result<Graph> {
    big_endian_check()?;
    let data: &[u8] = &map;
    advise(&map);
    cx.progress.begin("checking .wg", data.len() as u64);
    let checked = parse_header(data, cx.path).and_then(|info| {
        verify(data, &info, cx)?;
        Ok(info)
    });
    cx.progress.finish();
    let info = checked?;
    let view = |i: usize| (info.sections[i].offset, info.sections[i].len);
    let arrays = Arrays {
        offsets: mapped(&map, view(0), 0, cx.path)?,
        targets: mapped(&map, view(1), 1, cx.path)?,
        weights: match info.weight_type {
            WeightType::None => Weights::None,
            WeightType::I32 => Weights::I32(mapped(&map, view(2), 2, cx.path)?),
            WeightType::I64 => Weights::I64(mapped(&map, view(2), 2, cx.path)?),
            WeightType::F32 => Weights::F32(mapped(&map, view(2), 2, cx.path)?),
            WeightType::F64 => Weights::F64(mapped(&map, view(2), 2, cx.path)?),
        },
        ids: match info.id_base {
            Some(b) => VertexIds::Base(b),
            None => VertexIds::Map(mapped(&map, view(3), 3, cx.path)?),
        },
    };
    assemble(&info, arrays, cx)
}

/// Asks the kernel to read the whole file ahead when it fits comfortably in memory (the
/// checksum pass touches every byte at once from every core), else to read sequentially.
/// A hint only: failures are ignored.
fn advise(map: &Mmap) {
    #[cfg(unix)]
    {
        let fits =
            crate::memory::available_bytes().is_some_and(|avail| (map.len() as u64) <= avail / 2);
        let advice = if fits {
            memmap2::Advice::WillNeed
        } else {
            memmap2::Advice::Sequential
        };
        let _ = map.advise(advice);
    }
    #[cfg(not(unix))]
    let _ = map;
}

/// Loads a `.wg` image from any byte slice (unaligned, not backed by a file): the sections
/// are copied into owned arrays. The checks are those of [`read_map`].
///
/// # Errors
/// As [`read_map`], plus [`Error::OutOfMemory`] when the copies would not fit.
pub fn read_bytes(data: &[u8], cx: &ReadContext<'_>) -> Result<Graph> {
    big_endian_check()?;
    let info = parse_header(data, cx.path)?;
    verify(data, &info, cx)?;
    let body: u64 = info.sections.iter().map(|s| s.len).sum();
    crate::memory::check(
        || format!("loading the {} of arrays of a .wg image", fmt_bytes(body)),
        body,
    )?;
    let sec = |i: usize| section_bytes(data, &info.sections[i], i, cx.path);
    let arrays = Arrays {
        offsets: copied::<u64>(sec(0)?).into(),
        targets: copied::<u32>(sec(1)?).into(),
        weights: match info.weight_type {
            WeightType::None => Weights::None,
            WeightType::I32 => Weights::I32(copied(sec(2)?).into()),
            WeightType::I64 => Weights::I64(copied(sec(2)?).into()),
            WeightType::F32 => Weights::F32(copied(sec(2)?).into()),
            WeightType::F64 => Weights::F64(copied(sec(2)?).into()),
        },
        ids: match info.id_base {
            Some(b) => VertexIds::Base(b),
            None => VertexIds::Map(copied::<u64>(sec(3)?).into()),
        },
    };
    assemble(&info, arrays, cx)
}

/// Writes `g` as a `.wg` file: checksums (in parallel), header, then each section with its
/// padding. Progress is reported in bytes.
///
/// # Errors
/// [`Error::Io`] naming the destination; [`Error::InvalidArgument`] for a graph whose id
/// map is not strictly increasing or whose ids overflow `u64`; [`Error::Unsupported`] on
/// big-endian targets.
pub fn write(g: &Graph, out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    big_endian_check()?;
    let csr = g.out();
    let n = g.num_vertices() as u64;
    let arcs = g.num_arcs();
    let (id_base, ids): (Option<u64>, &[u64]) = match g.ids() {
        VertexIds::Base(b) => (Some(*b), &[]),
        VertexIds::Map(m) => {
            if m.len() as u64 != n {
                return Err(Error::InvalidArgument(format!(
                    "the vertex id map has {} entries for {n} vertices",
                    m.len()
                )));
            }
            if let Some(i) = m.par_windows(2).position_any(|p| p[0] >= p[1]) {
                return Err(Error::InvalidArgument(format!(
                    "the vertex id map is not strictly increasing at vertex {i} ({} then {})",
                    m[i],
                    m[i + 1]
                )));
            }
            (None, m)
        }
    };
    if let Some(b) = id_base {
        if b.checked_add(n).is_none() {
            return Err(Error::InvalidArgument(format!(
                "vertex id base {b} plus {n} vertices overflows 64-bit ids"
            )));
        }
    }
    let wt = csr.weights().weight_type();
    let weights: &[u8] = with_weights!(csr.weights(), w => bytes_of(w), none => &[]);
    if wt != WeightType::None && csr.weights().len() as u64 != arcs {
        return Err(Error::InvalidArgument(format!(
            "{} weights for {arcs} arcs",
            csr.weights().len()
        )));
    }
    let data: [&[u8]; 4] = [
        bytes_of(csr.offsets()),
        bytes_of(csr.targets()),
        weights,
        bytes_of(ids),
    ];
    let lens = data.map(|d| d.len() as u64);
    let (places, file_bytes) = plan(lens).ok_or_else(|| {
        Error::InvalidArgument("the graph is too large for a .wg file".to_string())
    })?;
    let mut sums = [0u64; 4];
    sums.par_iter_mut()
        .zip(data.par_iter())
        .for_each(|(s, d)| *s = checksum(d, CHUNK_BYTES as usize, None));
    let mut sections = [Section::default(); 4];
    for i in 0..4 {
        sections[i] = Section {
            offset: places[i],
            len: lens[i],
            checksum: sums[i],
        };
    }
    let info = HeaderInfo {
        version: VERSION,
        directed: g.is_directed(),
        weight_type: wt,
        num_vertices: n,
        num_arcs: arcs,
        id_base,
        file_bytes,
        chunk_bytes: CHUNK_BYTES,
        sections,
    };
    let header = encode_header(&info);

    cx.progress.begin("writing .wg", file_bytes);
    let result = write_body(out, &header, &data, &sections, cx);
    cx.progress.finish();
    result
}

/// Writes the header and the sections with zero padding between them.
fn write_body(
    out: &mut dyn Write,
    header: &[u8; HEADER_BYTES],
    data: &[&[u8]; 4],
    sections: &[Section; 4],
    cx: &WriteContext<'_>,
) -> Result<()> {
    const PIECE: usize = 8 << 20;
    static ZEROS: [u8; PAGE_ALIGN as usize] = [0; PAGE_ALIGN as usize];
    out.write_all(header).map_err(|e| cx.io_error(e))?;
    cx.progress.advance(HEADER_BYTES as u64);
    let mut pos = HEADER_BYTES as u64;
    for (d, s) in data.iter().zip(sections) {
        if d.is_empty() {
            continue;
        }
        // `plan` places every section after `pos`, less than one alignment unit later.
        let pad = s.offset.saturating_sub(pos) as usize;
        out.write_all(&ZEROS[..pad.min(ZEROS.len())])
            .map_err(|e| cx.io_error(e))?;
        for piece in d.chunks(PIECE) {
            out.write_all(piece).map_err(|e| cx.io_error(e))?;
            cx.progress.advance(piece.len() as u64);
        }
        pos = s.offset + s.len;
    }
    Ok(())
}

/// Errors on big-endian targets, where the little-endian sections cannot be viewed in place.
fn big_endian_check() -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(Error::Unsupported(
            "the .wg format is little-endian and this is a big-endian machine; \
             convert the graph to a text format on a little-endian machine"
                .into(),
        ));
    }
    Ok(())
}

/// The byte lengths of the four sections of `g`, and the weight type.
fn section_lens(g: &Graph) -> ([u64; 4], WeightType) {
    let n = g.num_vertices() as u64;
    let arcs = g.num_arcs();
    let wt = g.weight_type();
    let ids = match g.ids() {
        VertexIds::Base(_) => 0,
        VertexIds::Map(m) => m.len() as u64 * 8,
    };
    ([(n + 1) * 8, arcs * 4, arcs * wt.size() as u64, ids], wt)
}

/// Where the writer puts sections of these lengths: their offsets, and the file length.
fn plan(lens: [u64; 4]) -> Option<([u64; 4], u64)> {
    let mut pos = HEADER_BYTES as u64;
    let mut offsets = [0u64; 4];
    for (o, &len) in offsets.iter_mut().zip(&lens) {
        if len == 0 {
            continue;
        }
        let align = if len >= PAGE_ALIGN_FROM {
            PAGE_ALIGN
        } else {
            SECTION_ALIGN
        };
        let start = pos.checked_add(align - 1)? / align * align;
        *o = start;
        pos = start.checked_add(len)?;
    }
    Some((offsets, pos))
}

fn weight_code(t: WeightType) -> u32 {
    match t {
        WeightType::None => 0,
        WeightType::I32 => 1,
        WeightType::I64 => 2,
        WeightType::F32 => 3,
        WeightType::F64 => 4,
    }
}

/// The 256 header bytes for `info`, header checksum included.
fn encode_header(info: &HeaderInfo) -> [u8; HEADER_BYTES] {
    let mut h = [0u8; HEADER_BYTES];
    let mut flags = 0;
    if info.directed {
        flags |= FLAG_DIRECTED;
    }
    if info.id_base.is_none() {
        flags |= FLAG_ID_MAP;
    }
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&info.version.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER_BYTES as u32).to_le_bytes());
    h[16..20].copy_from_slice(&flags.to_le_bytes());
    h[20..24].copy_from_slice(&weight_code(info.weight_type).to_le_bytes());
    let words = [
        info.num_vertices,
        info.num_arcs,
        info.id_base.unwrap_or(0),
        info.file_bytes,
        info.chunk_bytes,
    ];
    let table = info
        .sections
        .iter()
        .flat_map(|s| [s.offset, s.len, s.checksum]);
    for (i, w) in words.into_iter().chain(table).enumerate() {
        h[24 + 8 * i..32 + 8 * i].copy_from_slice(&w.to_le_bytes());
    }
    let sum = xxh3_64(&h[..HEADER_BYTES - 8]);
    h[HEADER_BYTES - 8..].copy_from_slice(&sum.to_le_bytes());
    h
}

/// The little-endian u32 at byte `at` (0 past the end; callers check lengths first).
fn le32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// The little-endian u64 at byte `at` (0 past the end; callers check lengths first).
fn le64(d: &[u8], at: usize) -> u64 {
    d.get(at..at + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Every check that needs only the header and the file length; see the module docs.
fn parse_header(data: &[u8], path: &Path) -> Result<HeaderInfo> {
    let err = |msg: String| Error::format(path, msg);
    let len = data.len() as u64;
    let version = check_frame(data, path)?;
    let (flags, weight_type) = check_kind(data, path)?;
    let n = le64(data, 24);
    let arcs = le64(data, 32);
    let base = le64(data, 40);
    let file_bytes = le64(data, 48);
    let chunk_bytes = le64(data, 56);
    let mut sections = [Section::default(); 4];
    for (i, s) in sections.iter_mut().enumerate() {
        let at = 64 + 24 * i;
        *s = Section {
            offset: le64(data, at),
            len: le64(data, at + 8),
            checksum: le64(data, at + 16),
        };
    }
    let directed = flags & FLAG_DIRECTED != 0;
    let has_map = flags & FLAG_ID_MAP != 0;
    check_counts(path, (n, base, has_map), chunk_bytes)?;
    let pos = check_sections(data, path, &sections, (n, arcs, has_map), weight_type)?;
    if file_bytes != len {
        return Err(err(if file_bytes > len {
            format!("truncated: the header says the file has {file_bytes} bytes but it has {len}")
        } else {
            format!(
                "the file has {len} bytes but its header says {file_bytes}: \
                 there is trailing data, or the header is wrong"
            )
        }));
    }
    if pos != len {
        return Err(err(format!(
            "the file has {len} bytes after its last section, which ends at byte {pos}"
        )));
    }
    Ok(HeaderInfo {
        version,
        directed,
        weight_type,
        num_vertices: n,
        num_arcs: arcs,
        id_base: if has_map { None } else { Some(base) },
        file_bytes,
        chunk_bytes,
        sections,
    })
}

/// The header's frame: the magic, the header length, the header checksum and the version
/// (returned), in that order, so that a newer file is told from a corrupt one.
fn check_frame(data: &[u8], path: &Path) -> Result<u32> {
    let err = |msg: String| Error::format(path, msg);
    let len = data.len() as u64;
    let truncated_header = |need: u64| {
        err(format!(
            "truncated: the file has {len} bytes, less than the {need}-byte .wg header"
        ))
    };
    if !data.starts_with(MAGIC) {
        if MAGIC.starts_with(data) {
            return Err(truncated_header(HEADER_BYTES as u64));
        }
        return Err(err(
            "not a .wg file: it does not start with the magic bytes WARPGRPH".into(),
        ));
    }
    if data.len() < 16 {
        return Err(truncated_header(HEADER_BYTES as u64));
    }
    let version = le32(data, 8);
    let header_len = le32(data, 12);
    if header_len < 24 || header_len % 8 != 0 || header_len > MAX_HEADER {
        return Err(err(format!(
            "the header-length field says {header_len} bytes, which is impossible \
             (a version-{VERSION} header has {HEADER_BYTES}): the header is corrupt"
        )));
    }
    let hl = header_len as usize;
    if data.len() < hl {
        if hl == HEADER_BYTES {
            return Err(truncated_header(hl as u64));
        }
        return Err(err(format!(
            "the header-length field says {hl} bytes but the file has only {len}: \
             the header is corrupt or the file truncated"
        )));
    }
    let stored = le64(data, hl - 8);
    let computed = xxh3_64(data.get(..hl - 8).unwrap_or(&[]));
    if stored != computed {
        return Err(err(format!(
            "header checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): \
             the header is corrupt"
        )));
    }
    if version == 0 {
        return Err(err(
            "format version 0 does not exist: the header is corrupt".into(),
        ));
    }
    if version > VERSION {
        return Err(err(format!(
            "the file is .wg format version {version}, but this warpgraph reads only \
             version {VERSION}: it was written by a newer warpgraph; upgrade to read it"
        )));
    }
    if hl != HEADER_BYTES {
        return Err(err(format!(
            "a version-{VERSION} header has {HEADER_BYTES} bytes but this one says {hl}"
        )));
    }
    Ok(version)
}

/// The graph's kind: the flags and the weight type (returned), and the reserved bytes,
/// which must be zero.
fn check_kind(data: &[u8], path: &Path) -> Result<(u32, WeightType)> {
    let err = |msg: String| Error::format(path, msg);
    let flags = le32(data, 16);
    if flags & !(FLAG_DIRECTED | FLAG_ID_MAP) != 0 {
        return Err(err(format!(
            "unknown flag bits {flags:#x} in the header (version {VERSION} defines only \
             bit 0, directed, and bit 1, has an id map)"
        )));
    }
    let code = le32(data, 20);
    let weight_type = match code {
        0 => WeightType::None,
        1 => WeightType::I32,
        2 => WeightType::I64,
        3 => WeightType::F32,
        4 => WeightType::F64,
        _ => {
            return Err(err(format!(
                "unknown weight type code {code} (expected 0 none, 1 i32, 2 i64, 3 f32, 4 f64)"
            )))
        }
    };
    if let Some(i) = data
        .get(RESERVED)
        .and_then(|r| r.iter().position(|&b| b != 0))
    {
        return Err(err(format!(
            "reserved header byte {} is not zero",
            RESERVED.start + i
        )));
    }
    Ok((flags, weight_type))
}

/// The counts: `n` vertices within [`MAX_VERTICES`], the id `base` (0 with an id map,
/// `has_map`) and its last id within 64 bits, and the checksum chunk size.
fn check_counts(path: &Path, (n, base, has_map): (u64, u64, bool), chunk_bytes: u64) -> Result<()> {
    let err = |msg: String| Error::format(path, msg);
    if n > MAX_VERTICES {
        return Err(err(format!(
            "the header says {n} vertices, more than the limit of {MAX_VERTICES}"
        )));
    }
    if has_map && base != 0 {
        return Err(err(format!(
            "the file has a vertex id map, so its id base must be 0, not {base}"
        )));
    }
    if base.checked_add(n).is_none() {
        return Err(err(format!(
            "vertex id base {base} plus {n} vertices overflows 64-bit ids"
        )));
    }
    if !chunk_bytes.is_power_of_two() || !(MIN_CHUNK..=MAX_CHUNK).contains(&chunk_bytes) {
        return Err(err(format!(
            "the checksum chunk size is {chunk_bytes} bytes; it must be a power of two from \
             {MIN_CHUNK} to {MAX_CHUNK}"
        )));
    }
    Ok(())
}

/// The section table against the counts (`n` vertices, `arcs` arcs, an id map or not, the
/// weight type) and the file: each section's length, alignment, order, place inside the
/// file, and the zero padding before it. Returns where the last section ends.
fn check_sections(
    data: &[u8],
    path: &Path,
    sections: &[Section; 4],
    (n, arcs, has_map): (u64, u64, bool),
    weight_type: WeightType,
) -> Result<u64> {
    let err = |msg: String| Error::format(path, msg);
    let len = data.len() as u64;
    let too_many = || {
        err(format!(
            "the header says {arcs} arcs, which no file can hold (the sizes overflow 64 bits)"
        ))
    };
    let expected = [
        (n + 1) * 8,
        arcs.checked_mul(4).ok_or_else(too_many)?,
        arcs.checked_mul(weight_type.size() as u64)
            .ok_or_else(too_many)?,
        if has_map { n * 8 } else { 0 },
    ];
    let why = [
        format!("{n} vertices need {} offsets", n + 1),
        format!("{arcs} arcs need {arcs} targets"),
        format!("{arcs} arcs with {weight_type} weights need that"),
        if has_map {
            format!("{n} vertices need {n} ids")
        } else {
            "the flags say there is no id map".to_string()
        },
    ];
    let mut pos = HEADER_BYTES as u64;
    for (i, s) in sections.iter().enumerate() {
        let name = SECTION_NAMES[i];
        if s.len != expected[i] {
            return Err(err(format!(
                "the {name} section is {} bytes but should be {} ({})",
                s.len, expected[i], why[i]
            )));
        }
        if s.len == 0 {
            if s.offset != 0 {
                return Err(err(format!(
                    "the {name} section is empty but its offset is {}, not 0",
                    s.offset
                )));
            }
            continue;
        }
        if s.offset % SECTION_ALIGN != 0 {
            return Err(err(format!(
                "the {name} section starts at byte {}, which is not a multiple of {SECTION_ALIGN}",
                s.offset
            )));
        }
        if s.offset < pos {
            return Err(err(format!(
                "the {name} section starts at byte {}, before the end of the header or the \
                 previous section (byte {pos})",
                s.offset
            )));
        }
        let end = s.offset.checked_add(s.len).ok_or_else(too_many)?;
        if end > len {
            return Err(err(format!(
                "truncated: the {name} section ends at byte {end} but the file has {len} bytes"
            )));
        }
        // pos <= offset <= end <= len, all within `data`.
        let gap = data.get(pos as usize..s.offset as usize).unwrap_or(&[]);
        if let Some(j) = gap.iter().position(|&b| b != 0) {
            return Err(err(format!(
                "padding byte {} before the {name} section is not zero: the file is corrupt",
                pos + j as u64
            )));
        }
        pos = end;
    }
    Ok(pos)
}

/// The bytes of section `i` (its range was checked by `parse_header`).
fn section_bytes<'d>(data: &'d [u8], s: &Section, i: usize, path: &Path) -> Result<&'d [u8]> {
    let range = usize::try_from(s.offset)
        .ok()
        .zip(usize::try_from(s.len).ok())
        .and_then(|(o, l)| Some(o..o.checked_add(l)?));
    range.and_then(|r| data.get(r)).ok_or_else(|| {
        Error::format(
            path,
            format!(
                "the {} section (bytes {} + {}) is outside the file",
                SECTION_NAMES[i], s.offset, s.len
            ),
        )
    })
}

/// The two-level xxh3-64 checksum of `bytes` (see the module docs), hashing chunks in
/// parallel and reporting each chunk's bytes to `progress`.
fn checksum(bytes: &[u8], chunk: usize, progress: Option<&dyn Progress>) -> u64 {
    let digests: Vec<u64> = bytes
        .par_chunks(chunk.max(1))
        .map(|c| {
            let h = xxh3_64(c);
            if let Some(p) = progress {
                p.advance(c.len() as u64);
            }
            h
        })
        .collect();
    let mut cat = Vec::with_capacity(digests.len() * 8);
    for d in digests {
        cat.extend_from_slice(&d.to_le_bytes());
    }
    xxh3_64(&cat)
}

/// Verifies every section checksum, all sections and chunks in parallel.
fn verify(data: &[u8], info: &HeaderInfo, cx: &ReadContext<'_>) -> Result<()> {
    cx.progress.advance(HEADER_BYTES as u64);
    let chunk = usize::try_from(info.chunk_bytes).unwrap_or(usize::MAX);
    let mut sums = [Ok(0u64), Ok(0), Ok(0), Ok(0)];
    sums.par_iter_mut().enumerate().for_each(|(i, out)| {
        *out = section_bytes(data, &info.sections[i], i, cx.path)
            .map(|b| checksum(b, chunk, Some(cx.progress)));
    });
    for (i, sum) in sums.into_iter().enumerate() {
        let computed = sum?;
        let stored = info.sections[i].checksum;
        if computed != stored {
            return Err(Error::format(
                cx.path,
                format!(
                    "checksum mismatch in the {} section (stored {stored:#018x}, computed \
                     {computed:#018x}): the file is corrupt",
                    SECTION_NAMES[i]
                ),
            ));
        }
    }
    Ok(())
}

/// A zero-copy view of a section; `(offset, len)` in bytes was checked by `parse_header`.
fn mapped<T: Pod>(
    map: &Arc<Mmap>,
    (offset, len): (u64, u64),
    i: usize,
    path: &Path,
) -> Result<Buf<T>> {
    let size = std::mem::size_of::<T>() as u64;
    usize::try_from(offset)
        .ok()
        .zip(usize::try_from(len / size).ok())
        .and_then(|(o, l)| Buf::mapped(Arc::clone(map), o, l))
        .ok_or_else(|| {
            Error::format(
                path,
                format!(
                    "the {} section at byte {offset} cannot be viewed in place \
                     (out of the map or misaligned)",
                    SECTION_NAMES[i]
                ),
            )
        })
}

/// The section's bytes copied into an owned, aligned array (little-endian host).
fn copied<T: Pod + Default>(bytes: &[u8]) -> Vec<T> {
    const PIECE: usize = 1 << 20;
    let size = std::mem::size_of::<T>();
    // Whole elements only (a checked section always is), so the pieces below pair up.
    let bytes = bytes.get(..bytes.len() / size * size).unwrap_or(&[]);
    let mut v = vec![T::default(); bytes.len() / size];
    bytes_of_mut(&mut v)
        .par_chunks_mut(PIECE)
        .zip(bytes.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
    v
}

/// The bytes of a slice of plain data.
fn bytes_of<T: Pod>(s: &[T]) -> &[u8] {
    // SAFETY: `T: Pod` has no padding, so all `size_of_val(s)` bytes are initialised; u8
    // has alignment 1; the view borrows `s`.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// The bytes of a mutable slice of plain data.
fn bytes_of_mut<T: Pod>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as for `bytes_of`; moreover every bit pattern is a valid `T` (`Pod`), so
    // writes through the byte view cannot make an invalid value.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// The arrays of a checked file, mapped or copied.
struct Arrays {
    offsets: Buf<u64>,
    targets: Buf<u32>,
    weights: Weights,
    ids: VertexIds,
}

/// Validates the structure, makes the graph and applies the read options.
fn assemble(info: &HeaderInfo, a: Arrays, cx: &ReadContext<'_>) -> Result<Graph> {
    let invalid = |msg: String| {
        Error::format(
            cx.path,
            format!(
                "invalid graph structure, although the checksums are correct \
                 (the file was crafted or written by a faulty program): {msg}"
            ),
        )
    };
    let csr = Csr::from_raw(a.offsets, a.targets, a.weights);
    csr.validate().map_err(invalid)?;
    if let VertexIds::Map(m) = &a.ids {
        if m.len() != csr.num_vertices() {
            return Err(invalid(format!(
                "{} ids for {} vertices",
                m.len(),
                csr.num_vertices()
            )));
        }
        if let Some(i) = m.par_windows(2).position_any(|p| p[0] >= p[1]) {
            return Err(invalid(format!(
                "the vertex id map is not strictly increasing at vertex {i}"
            )));
        }
    }
    let g = Graph::from_parts_unchecked(info.directed, csr, a.ids);
    apply_options(g, cx)
}

/// Applies the read options that change a graph, as text formats do at build time.
fn apply_options(g: Graph, cx: &ReadContext<'_>) -> Result<Graph> {
    let o = cx.options;
    let rebuild = (o.undirected && g.is_directed())
        || o.self_loops != SelfLoops::Keep
        || o.duplicates != Duplicates::Keep;
    let g = if rebuild {
        let directed = g.is_directed();
        cx.build(edge_list(&g)?, directed)?
    } else {
        g
    };
    match o.weight_type {
        Some(t) if t != g.weight_type() => super::convert_weights(g, t),
        _ => Ok(g),
    }
}

/// The edges of `g` in CSR order: every arc of a directed graph; each edge of an
/// undirected graph once (the arcs `u -> v` with `u <= v`, a suffix of each sorted row).
fn edge_list(g: &Graph) -> Result<EdgeList> {
    let csr = g.out();
    let n = csr.num_vertices();
    let once = !g.is_directed();
    let off = csr.offsets();
    let t = csr.targets();
    // The kept part of row v, as an arc index range.
    let kept = |v: usize| {
        let (a, b) = (off[v] as usize, off[v + 1] as usize);
        let skip = if once {
            t[a..b].partition_point(|&x| (x as usize) < v)
        } else {
            0
        };
        a + skip..b
    };
    let m: u64 = (0..n).into_par_iter().map(|v| kept(v).len() as u64).sum();
    let wsize = g.weight_type().size() as u64;
    crate::memory::check(
        || format!("re-building a graph of {m} edges for the read options"),
        m.saturating_mul(8 + wsize),
    )?;
    let src: Vec<u32> = (0..n)
        .into_par_iter()
        .flat_map_iter(|v| std::iter::repeat_n(v as u32, kept(v).len()))
        .collect();
    let dst: Vec<u32> = (0..n)
        .into_par_iter()
        .flat_map_iter(|v| t[kept(v)].iter().copied())
        .collect();
    let weights = if once {
        with_weights!(csr.weights(),
            w => (0..n).into_par_iter().flat_map_iter(|v| w[kept(v)].iter().copied())
                .collect::<Vec<_>>().into(),
            none => Weights::None)
    } else {
        csr.weights().clone()
    };
    Ok(EdgeList {
        num_vertices: n as u64,
        src,
        dst,
        weights,
        ids: g.ids().clone(),
    })
}
