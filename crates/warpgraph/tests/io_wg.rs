//! Tests of the `.wg` binary format: golden bytes, round trips, memory mapping, and every
//! kind of corruption or crafted input being refused without a panic.

mod common;

use std::path::{Path, PathBuf};

use warpgraph::io::wg;
use warpgraph::io::{ReadContext, ReadOptions, WriteOptions};
use warpgraph::{
    BuildOptions, Duplicates, EdgeList, Error, Graph, NoProgress, SelfLoops, VertexIds, WeightType,
    Weights,
};
use xxhash_rust::xxh3::xxh3_64;

// ---------------------------------------------------------------------------------------
// Helpers: an independent implementation of the documented layout and checksums.

/// The two-level section checksum, as the module docs define it.
fn tree_hash(bytes: &[u8], chunk: usize) -> u64 {
    let mut cat = Vec::new();
    for c in bytes.chunks(chunk) {
        cat.extend_from_slice(&xxh3_64(c).to_le_bytes());
    }
    xxh3_64(&cat)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Recomputes the header checksum (bytes 248..256 over 0..248).
fn reseal_header(b: &mut [u8]) {
    let s = xxh3_64(&b[..248]);
    put64(b, 248, s);
}

/// Recomputes every section checksum from the section table, then the header checksum:
/// a tampered file that only structure validation can catch.
fn reseal(b: &mut [u8]) {
    let chunk = u64_at(b, 56) as usize;
    for i in 0..4 {
        let at = 64 + 24 * i;
        let (off, len) = (u64_at(b, at) as usize, u64_at(b, at + 8) as usize);
        // (Out-of-range tables are left alone: the reader must refuse them anyway.)
        if let Some(data) = off.checked_add(len).and_then(|end| b.get(off..end)) {
            let sum = tree_hash(data, chunk.max(1));
            put64(b, at + 16, sum);
        }
    }
    reseal_header(b);
}

/// Byte offset of section `i`'s data.
fn section_offset(b: &[u8], i: usize) -> usize {
    u64_at(b, 64 + 24 * i) as usize
}

/// Hand-encodes a version-1 file with 64-byte aligned sections (for small sections this is
/// exactly what the writer must produce).
fn encode(flags: u32, wcode: u32, n: u64, arcs: u64, base: u64, sections: [&[u8]; 4]) -> Vec<u8> {
    let mut out = vec![0u8; 256];
    let mut table = [(0u64, 0u64); 4];
    for (i, s) in sections.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        while out.len() % 64 != 0 {
            out.push(0);
        }
        table[i] = (out.len() as u64, s.len() as u64);
        out.extend_from_slice(s);
    }
    out[..8].copy_from_slice(b"WARPGRPH");
    put32(&mut out, 8, 1);
    put32(&mut out, 12, 256);
    put32(&mut out, 16, flags);
    put32(&mut out, 20, wcode);
    put64(&mut out, 24, n);
    put64(&mut out, 32, arcs);
    put64(&mut out, 40, base);
    let len = out.len() as u64;
    put64(&mut out, 48, len);
    put64(&mut out, 56, 1 << 20);
    for (i, (o, l)) in table.iter().enumerate() {
        put64(&mut out, 64 + 24 * i, *o);
        put64(&mut out, 72 + 24 * i, *l);
    }
    reseal(&mut out);
    out
}

fn le<T: Copy, const N: usize>(xs: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    xs.iter().flat_map(|&x| f(x)).collect()
}

fn read_bytes_with(data: &[u8], options: &ReadOptions) -> warpgraph::Result<Graph> {
    let cx = ReadContext {
        path: Path::new("crafted.wg"),
        options,
        progress: &NoProgress,
    };
    wg::read_bytes(data, &cx)
}

fn rb(data: &[u8]) -> warpgraph::Result<Graph> {
    read_bytes_with(data, &ReadOptions::default())
}

/// The message of a Format error naming crafted.wg (any other error fails the test).
fn format_msg(r: warpgraph::Result<Graph>) -> String {
    match r {
        Err(Error::Format { path, msg }) => {
            assert_eq!(path, Path::new("crafted.wg"));
            msg
        }
        Err(e) => panic!("expected a format error, got {e:?}"),
        Ok(g) => panic!(
            "expected a format error, got a graph of {} vertices",
            g.num_vertices()
        ),
    }
}

fn save(g: &Graph, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let f = warpgraph::io::write(g, &p, &WriteOptions::default(), &NoProgress).unwrap();
    assert_eq!(f, warpgraph::io::Format::Wg);
    p
}

fn load(p: &Path) -> Graph {
    warpgraph::io::read(p, &ReadOptions::default(), &NoProgress).unwrap()
}

/// Whether `ptr` lies in a memory mapping of the file `path` (Linux: /proc/self/maps).
#[cfg(target_os = "linux")]
fn in_mapping_of(ptr: *const u8, path: &Path) -> bool {
    let path = path.canonicalize().unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let addr = ptr as usize;
    maps.lines().any(|l| {
        let mut it = l.split_whitespace();
        let range = it.next().unwrap_or("");
        let name = it.nth(4).unwrap_or("");
        let (a, b) = range.split_once('-').unwrap_or(("0", "0"));
        let (a, b) = (
            usize::from_str_radix(a, 16).unwrap_or(0),
            usize::from_str_radix(b, 16).unwrap_or(0),
        );
        a <= addr && addr < b && Path::new(name) == path
    })
}

/// Asserts that every non-empty array of `g` is viewed in place in the file `path`.
fn assert_mapped(g: &Graph, path: &Path) {
    let w = g.out().weights();
    let wmapped = match w {
        Weights::None => true,
        Weights::I32(b) => b.is_mapped(),
        Weights::I64(b) => b.is_mapped(),
        Weights::F32(b) => b.is_mapped(),
        Weights::F64(b) => b.is_mapped(),
    };
    assert!(wmapped, "weights are not memory-mapped");
    if let VertexIds::Map(m) = g.ids() {
        assert!(m.is_mapped(), "id map is not memory-mapped");
    }
    #[cfg(target_os = "linux")]
    {
        assert!(in_mapping_of(g.out().offsets().as_ptr().cast(), path));
        if g.num_arcs() > 0 {
            assert!(in_mapping_of(g.out().targets().as_ptr().cast(), path));
        }
    }
    let _ = path;
}

/// A small graph with an isolated vertex, a self loop and parallel edges.
fn small_graph(directed: bool, wt: WeightType, ids: VertexIds) -> Graph {
    let src = vec![0u32, 0, 1, 2, 3, 0, 4, 2, 3];
    let dst = vec![1u32, 1, 2, 2, 0, 3, 1, 0, 4];
    let k = src.len();
    let w = match wt {
        WeightType::None => Weights::None,
        WeightType::I32 => {
            Weights::I32((0..k as i32).map(|i| 3 - 2 * i).collect::<Vec<_>>().into())
        }
        WeightType::I64 => Weights::I64(
            (0..k as i64)
                .map(|i| (i - 4) << 40)
                .collect::<Vec<_>>()
                .into(),
        ),
        WeightType::F32 => Weights::F32(
            (0..k)
                .map(|i| i as f32 * 0.25 - 1.0)
                .collect::<Vec<_>>()
                .into(),
        ),
        WeightType::F64 => Weights::F64(
            (0..k)
                .map(|i| (i as f64).sqrt() * -1e300)
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let mut e = EdgeList::new(6, src, dst, w).unwrap();
    e.ids = ids;
    e.build(&BuildOptions {
        directed,
        ..Default::default()
    })
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// Golden bytes.

/// The tiny graph of the module docs, encoded by hand.
fn tiny_bytes() -> Vec<u8> {
    encode(
        1,
        1,
        3,
        3,
        1,
        [
            &le(&[0u64, 2, 2, 3], u64::to_le_bytes),
            &le(&[1u32, 2, 0], u32::to_le_bytes),
            &le(&[5i32, -3, 7], i32::to_le_bytes),
            &[],
        ],
    )
}

fn tiny_graph() -> Graph {
    let mut e = EdgeList::new(
        3,
        vec![0, 2, 0],
        vec![2, 0, 1],
        Weights::I32(vec![-3, 7, 5].into()),
    )
    .unwrap();
    e.ids = VertexIds::Base(1);
    e.build(&BuildOptions::default()).unwrap()
}

#[test]
fn golden_file_matches_the_documented_layout() {
    let expected = tiny_bytes();
    assert_eq!(expected.len(), 396);
    assert_eq!(
        &expected[..24],
        b"WARPGRPH\x01\0\0\0\0\x01\0\0\x01\0\0\0\x01\0\0\0"
    );
    let golden = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/wg_tiny_v1.wg"
    ))
    .unwrap();
    assert_eq!(
        golden, expected,
        "the committed golden file drifted from the spec"
    );

    // The writer produces exactly these bytes.
    let dir = tempfile::tempdir().unwrap();
    let p = save(&tiny_graph(), dir.path(), "tiny.wg");
    assert_eq!(std::fs::read(&p).unwrap(), expected);
    assert_eq!(wg::required_bytes(&tiny_graph()), 396);

    // And reading them gives the graph, arrays checked by hand.
    let g = rb(&golden).unwrap();
    assert!(g.is_directed());
    assert_eq!(g.out().offsets(), &[0, 2, 2, 3]);
    assert_eq!(g.out().targets(), &[1, 2, 0]);
    assert_eq!(g.out().weights().as_slice::<i32>().unwrap(), &[5, -3, 7]);
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g, tiny_graph());
}

#[test]
fn header_info_reports_the_header() {
    let info = wg::header_info(&tiny_bytes(), Path::new("t.wg")).unwrap();
    assert_eq!(info.version, 1);
    assert!(info.directed);
    assert_eq!(info.weight_type, WeightType::I32);
    assert_eq!((info.num_vertices, info.num_arcs), (3, 3));
    assert_eq!(info.id_base, Some(1));
    assert_eq!(info.file_bytes, 396);
    assert_eq!(info.chunk_bytes, 1 << 20);
    let places: Vec<(u64, u64)> = info.sections.iter().map(|s| (s.offset, s.len)).collect();
    assert_eq!(places, vec![(256, 32), (320, 12), (384, 12), (0, 0)]);
    assert_eq!(info.sections[3].checksum, xxh3_64(b""));
}

// ---------------------------------------------------------------------------------------
// Round trips.

#[test]
fn round_trips_every_kind_of_graph() {
    let dir = tempfile::tempdir().unwrap();
    let id_kinds = [
        VertexIds::Base(0),
        VertexIds::Base(1),
        VertexIds::Base(u64::MAX - 6),
        VertexIds::Map(vec![3u64, 10, 11, 1 << 40, u64::MAX - 1, u64::MAX].into()),
    ];
    let mut k = 0;
    for directed in [true, false] {
        for &wt in WeightType::ALL {
            for ids in &id_kinds {
                let g = small_graph(directed, wt, ids.clone());
                let p = save(&g, dir.path(), &format!("g{k}.wg"));
                k += 1;
                assert_eq!(std::fs::metadata(&p).unwrap().len(), wg::required_bytes(&g));
                let h = load(&p);
                assert_eq!(h, g, "directed {directed} {wt} {ids:?}");
                assert_eq!(h.weight_type(), wt);
                assert_eq!(h.num_edges(), g.num_edges());
                assert_mapped(&h, &p);
                // The copying reader agrees, on an unaligned slice.
                let bytes = std::fs::read(&p).unwrap();
                let mut shifted = vec![0xAAu8; bytes.len() + 3];
                shifted[1..1 + bytes.len()].copy_from_slice(&bytes);
                assert_eq!(rb(&shifted[1..1 + bytes.len()]).unwrap(), h);
            }
        }
    }
}

#[test]
fn round_trip_keeps_loops_multi_edges_and_isolated_vertices() {
    // Directed small graph, arrays by hand: rows sorted by target, ties in input order.
    let g = small_graph(true, WeightType::I32, VertexIds::Base(0));
    let dir = tempfile::tempdir().unwrap();
    let h = load(&save(&g, dir.path(), "g.wg"));
    assert_eq!(h.out().offsets(), &[0, 3, 4, 6, 8, 9, 9]);
    assert_eq!(h.out().targets(), &[1, 1, 3, 2, 0, 2, 0, 4, 1]);
    assert_eq!(
        h.out().weights().as_slice::<i32>().unwrap(),
        &[3, 1, -7, -1, -11, -3, -5, -13, -9]
    );
    assert_eq!(h.count_self_loops(), 1);
    assert_eq!(h.out().degree(5), 0);
}

#[test]
fn empty_and_arcless_graphs_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, g) in [
        ("zero.wg", Graph::empty(0, true)),
        ("zero_u.wg", Graph::empty(0, false)),
        ("iso.wg", Graph::empty(5, false)),
        (
            "zero_map.wg",
            Graph::empty(0, true)
                .with_ids(VertexIds::Map(Vec::new().into()))
                .unwrap(),
        ),
    ] {
        let p = save(&g, dir.path(), name);
        let h = load(&p);
        assert_eq!(h, g, "{name}");
        assert_eq!(h.out().offsets(), &vec![0u64; g.num_vertices() + 1][..]);
        assert_eq!(h.num_arcs(), 0);
        assert_mapped(&h, &p);
    }
    // An empty graph is the header and one 8-byte offsets section.
    let p = dir.path().join("zero.wg");
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 264);
}

/// A pseudo-random graph large enough for page-aligned, multi-chunk sections.
fn big_graph(n: u32, m: usize, directed: bool) -> Graph {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || common::xorshift(&mut x);
    let mut src = Vec::with_capacity(m);
    let mut dst = Vec::with_capacity(m);
    let mut w = Vec::with_capacity(m);
    for _ in 0..m {
        let r = next();
        src.push((r % n as u64) as u32);
        dst.push(((r >> 32) % n as u64) as u32);
        w.push((r >> 20) as f32 / 1e9);
    }
    EdgeList::new(n as u64, src, dst, Weights::F32(w.into()))
        .unwrap()
        .build(&BuildOptions {
            directed,
            ..Default::default()
        })
        .unwrap()
}

#[test]
fn large_graph_uses_page_aligned_multi_chunk_sections() {
    let g = big_graph(300_000, 700_000, true);
    let dir = tempfile::tempdir().unwrap();
    let p = save(&g, dir.path(), "big.wg");
    let bytes = std::fs::read(&p).unwrap();
    let info = wg::header_info(&bytes, &p).unwrap();
    for s in &info.sections[..3] {
        assert_eq!(s.offset % 4096, 0, "{s:?}");
        assert!(s.len > 1 << 20, "the test wants several checksum chunks");
        let data = &bytes[s.offset as usize..(s.offset + s.len) as usize];
        assert_eq!(s.checksum, tree_hash(data, 1 << 20));
    }
    assert_eq!(info.sections[1].len, 700_000 * 4);
    let h = load(&p);
    assert_eq!(h, g);
    assert_mapped(&h, &p);
    // A flip deep in the last chunk of the targets is caught.
    let mut bad = bytes.clone();
    let t = &info.sections[1];
    bad[(t.offset + t.len - 3) as usize] ^= 0x10;
    assert!(format_msg(rb(&bad)).contains("checksum mismatch in the targets section"));
}

// ---------------------------------------------------------------------------------------
// Read options.

#[test]
fn read_options_apply_to_wg_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = vec![0u32, 0, 1, 2, 3, 0, 4, 2, 3, 1];
    let dst = vec![1u32, 1, 2, 2, 0, 3, 1, 0, 4, 0];
    let w = Weights::I32(vec![5, 2, 1, 4, 3, 3, 9, 1, 1, 7].into());
    let edges = EdgeList::new(6, src, dst, w).unwrap();
    let build = |directed, self_loops, duplicates| {
        edges
            .build(&BuildOptions {
                directed,
                self_loops,
                duplicates,
            })
            .unwrap()
    };
    for directed in [true, false] {
        let g = build(directed, SelfLoops::Keep, Duplicates::Keep);
        let p = save(&g, dir.path(), "o.wg");
        for (undirected, loops, dups) in [
            (true, SelfLoops::Keep, Duplicates::Keep),
            (false, SelfLoops::Drop, Duplicates::Keep),
            (false, SelfLoops::Keep, Duplicates::Drop),
            (true, SelfLoops::Drop, Duplicates::KeepLightest),
        ] {
            let opts = ReadOptions {
                undirected,
                self_loops: loops,
                duplicates: dups,
                ..Default::default()
            };
            let h = warpgraph::io::read(&p, &opts, &NoProgress).unwrap();
            let want = build(directed && !undirected, loops, dups);
            assert_eq!(h, want, "directed {directed} {opts:?}");
            // The copying reader honours them the same way.
            let bytes = std::fs::read(&p).unwrap();
            assert_eq!(read_bytes_with(&bytes, &opts).unwrap(), want);
        }
        // Weight conversion.
        let opts = ReadOptions {
            weight_type: Some(WeightType::F64),
            ..Default::default()
        };
        let h = warpgraph::io::read(&p, &opts, &NoProgress).unwrap();
        assert_eq!(h.weight_type(), WeightType::F64);
        let want: Vec<f64> = g
            .out()
            .weights()
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&x| x as f64)
            .collect();
        assert_eq!(h.out().weights().as_slice::<f64>().unwrap(), &want[..]);
        assert_eq!(h.out().targets(), g.out().targets());
    }
}

// ---------------------------------------------------------------------------------------
// Corruption.

/// A small file with all four sections non-empty.
fn full_file() -> Vec<u8> {
    let g = small_graph(
        false,
        WeightType::F64,
        VertexIds::Map(vec![2u64, 4, 6, 8, 10, 12].into()),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::read(save(&g, dir.path(), "f.wg")).unwrap()
}

#[test]
fn every_single_byte_change_is_an_error() {
    let good = full_file();
    let original = rb(&good).unwrap();
    let sec_start = section_offset(&good, 0);
    for i in 0..good.len() {
        for mask in [0x01u8, 0x80, 0xFF] {
            let mut b = good.clone();
            b[i] ^= mask;
            let msg = format_msg(rb(&b));
            if (8..248).contains(&i) {
                // Every header field is guarded by the header checksum.
                assert!(
                    msg.contains("header checksum mismatch") || msg.contains("header-length field"),
                    "byte {i}: {msg}"
                );
            } else if i >= sec_start {
                assert!(
                    msg.contains("checksum mismatch in the") || msg.contains("padding byte"),
                    "byte {i}: {msg}"
                );
            }
        }
    }
    assert_eq!(rb(&good).unwrap(), original);
}

#[test]
fn every_truncation_is_an_error() {
    let good = full_file();
    for len in 0..good.len() {
        let msg = format_msg(rb(&good[..len]));
        assert!(msg.contains("truncated"), "length {len}: {msg}");
    }
    // Through the file reader too (memory map), at a few lengths.
    let dir = tempfile::tempdir().unwrap();
    for len in [1usize, 8, 100, 255, 256, 300, good.len() - 1] {
        let p = dir.path().join(format!("t{len}.wg"));
        std::fs::write(&p, &good[..len]).unwrap();
        let e = warpgraph::io::read(&p, &ReadOptions::default(), &NoProgress).unwrap_err();
        match e {
            Error::Format { path, msg } => {
                assert_eq!(path, p);
                assert!(msg.contains("truncated"), "{msg}");
            }
            e => panic!("length {len}: {e:?}"),
        }
    }
}

#[test]
fn truncation_names_the_cut_section() {
    let good = full_file();
    let t_end = section_offset(&good, 1) + u64_at(&good, 64 + 24 + 8) as usize;
    let msg = format_msg(rb(&good[..t_end - 1]));
    assert_eq!(
        msg,
        format!(
            "truncated: the targets section ends at byte {t_end} but the file has {} bytes",
            t_end - 1
        )
    );
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut b = full_file();
    b.push(0);
    assert!(format_msg(rb(&b)).contains("trailing data"));
}

#[test]
fn section_checksum_mismatch_names_the_section() {
    let good = full_file();
    for (i, name) in wg::SECTION_NAMES.iter().enumerate() {
        let mut b = good.clone();
        b[section_offset(&good, i) + 5] ^= 4;
        let msg = format_msg(rb(&b));
        assert!(
            msg.starts_with(&format!("checksum mismatch in the {name} section")),
            "{msg}"
        );
        assert!(msg.ends_with("the file is corrupt"), "{msg}");
    }
}

#[test]
fn not_a_wg_file() {
    assert!(format_msg(rb(b"WARPGRPX and more bytes")).contains("not a .wg file"));
    assert!(format_msg(rb(b"hello")).contains("not a .wg file"));
    assert!(format_msg(rb(b"WARP")).contains("truncated"));
}

#[test]
fn newer_and_zero_versions_are_named() {
    let mut b = tiny_bytes();
    put32(&mut b, 8, 2);
    reseal_header(&mut b);
    let msg = format_msg(rb(&b));
    assert!(
        msg.contains("format version 2") && msg.contains("reads only version 1"),
        "{msg}"
    );
    assert!(msg.contains("newer warpgraph"), "{msg}");
    // A newer version with a longer header is still recognised as newer.
    let mut b = tiny_bytes();
    put32(&mut b, 8, 7);
    put32(&mut b, 12, 320);
    let s = xxh3_64(&b[..312]);
    put64(&mut b, 312, s);
    assert!(format_msg(rb(&b)).contains("format version 7"));
    // Version 0 never existed.
    let mut b = tiny_bytes();
    put32(&mut b, 8, 0);
    reseal_header(&mut b);
    assert!(format_msg(rb(&b)).contains("version 0 does not exist"));
    // Without a resealed checksum, a changed version is corruption.
    let mut b = tiny_bytes();
    put32(&mut b, 8, 2);
    assert!(format_msg(rb(&b)).contains("header checksum mismatch"));
}

/// Applies `f` to the header of the tiny file, reseals, and returns the error message.
fn header_edit(f: impl Fn(&mut Vec<u8>)) -> String {
    let mut b = tiny_bytes();
    f(&mut b);
    reseal_header(&mut b);
    format_msg(rb(&b))
}

#[test]
fn absurd_header_values_are_refused_before_allocating() {
    let msg = header_edit(|b| put64(b, 24, 1_000_000_000_000_000));
    assert!(msg.contains("more than the limit"), "{msg}");
    let msg = header_edit(|b| put64(b, 32, u64::MAX / 2));
    assert!(msg.contains("overflow"), "{msg}");
    let msg = header_edit(|b| put64(b, 32, 1 << 40));
    assert!(
        msg.contains("the targets section is 12 bytes but should be"),
        "{msg}"
    );
    let msg = header_edit(|b| {
        put64(b, 32, 1 << 40);
        put64(b, 88 + 8, 4 << 40);
        put64(b, 112 + 8, 4 << 40);
    });
    assert!(
        msg.contains("truncated: the targets section ends at byte"),
        "{msg}"
    );
    let msg = header_edit(|b| put64(b, 64 + 24, u64::MAX - 63));
    assert!(
        msg.contains("truncated: the targets section ends at byte 18446744073709551564"),
        "{msg}"
    );
    let msg = header_edit(|b| put32(b, 20, 9));
    assert!(msg.contains("unknown weight type code 9"), "{msg}");
    let msg = header_edit(|b| put32(b, 16, 1 | 8));
    assert!(msg.contains("unknown flag bits"), "{msg}");
    let msg = header_edit(|b| b[200] = 1);
    assert!(msg.contains("reserved header byte 200"), "{msg}");
    let msg = header_edit(|b| put64(b, 40, u64::MAX - 1));
    assert!(msg.contains("overflows 64-bit ids"), "{msg}");
    let msg = header_edit(|b| put64(b, 56, 1000));
    assert!(msg.contains("chunk size"), "{msg}");
    let msg = header_edit(|b| put64(b, 88, 300));
    assert!(msg.contains("not a multiple of 64"), "{msg}");
    let msg = header_edit(|b| put64(b, 88, 256));
    assert!(
        msg.contains("before the end of the header or the previous section"),
        "{msg}"
    );
    let msg = header_edit(|b| put64(b, 48, 9999));
    assert!(
        msg.contains("truncated: the header says the file has 9999 bytes"),
        "{msg}"
    );
    let msg = header_edit(|b| put64(b, 136, 64));
    assert!(
        msg.contains("the id map section is empty but its offset is 64"),
        "{msg}"
    );
    let msg = header_edit(|b| put32(b, 12, 24));
    assert!(msg.contains("header checksum mismatch"), "{msg}");
    let msg = header_edit(|b| put32(b, 12, 1 << 30));
    assert!(msg.contains("header-length field"), "{msg}");
}

/// Rewrites section `i` of the tiny file with `data` (same length) and reseals.
fn tamper(i: usize, data: &[u8]) -> String {
    let mut b = tiny_bytes();
    let o = section_offset(&b, i);
    b[o..o + data.len()].copy_from_slice(data);
    reseal(&mut b);
    format_msg(rb(&b))
}

#[test]
fn crafted_structures_with_valid_checksums_are_rejected() {
    let pre = "invalid graph structure, although the checksums are correct";
    // A target >= n.
    let msg = tamper(1, &le(&[1u32, 3, 0], u32::to_le_bytes));
    assert!(msg.starts_with(pre) && msg.contains("vertex 0"), "{msg}");
    // Decreasing offsets.
    let msg = tamper(0, &le(&[0u64, 2, 1, 3], u64::to_le_bytes));
    assert!(
        msg.starts_with(pre) && msg.contains("offsets decrease at vertex 1"),
        "{msg}"
    );
    // Offsets not starting at 0 / not ending at arcs.
    let msg = tamper(0, &le(&[1u64, 2, 2, 3], u64::to_le_bytes));
    assert!(msg.starts_with(pre), "{msg}");
    let msg = tamper(0, &le(&[0u64, 2, 2, 2], u64::to_le_bytes));
    assert!(msg.starts_with(pre), "{msg}");
    // An offset far past the arcs.
    let msg = tamper(0, &le(&[0u64, u64::MAX, 2, 3], u64::to_le_bytes));
    assert!(msg.starts_with(pre), "{msg}");
    // An unsorted row.
    let msg = tamper(1, &le(&[2u32, 1, 0], u32::to_le_bytes));
    assert!(msg.starts_with(pre) && msg.contains("not sorted"), "{msg}");
    // A non-finite float weight.
    let mut b = encode(
        1,
        3,
        2,
        1,
        0,
        [
            &le(&[0u64, 1, 1], u64::to_le_bytes),
            &le(&[1u32], u32::to_le_bytes),
            &le(&[f32::NAN], f32::to_le_bytes),
            &[],
        ],
    );
    assert!(format_msg(rb(&b)).contains("non-finite weight"));
    let o = section_offset(&b, 2);
    b[o..o + 4].copy_from_slice(&1.5f32.to_le_bytes());
    reseal(&mut b);
    assert_eq!(
        rb(&b).unwrap().out().weights().as_slice::<f32>().unwrap(),
        &[1.5]
    );
    // An id map that is not strictly increasing.
    let b = encode(
        2,
        0,
        3,
        0,
        0,
        [
            &le(&[0u64, 0, 0, 0], u64::to_le_bytes),
            &[],
            &[],
            &le(&[5u64, 9, 9], u64::to_le_bytes),
        ],
    );
    let msg = format_msg(rb(&b));
    assert!(
        msg.starts_with(pre) && msg.contains("strictly increasing at vertex 1"),
        "{msg}"
    );
    // An id map with a base.
    let mut b = b.clone();
    put64(&mut b, 40, 1);
    reseal_header(&mut b);
    assert!(format_msg(rb(&b)).contains("id base must be 0"));
}

#[test]
fn hand_encoded_variants_load_as_specified() {
    // Undirected, unweighted, with an id map: the 2-vertex graph {0, 1} plus a self loop on 1.
    let b = encode(
        2,
        0,
        2,
        3,
        0,
        [
            &le(&[0u64, 1, 3], u64::to_le_bytes),
            &le(&[1u32, 0, 1], u32::to_le_bytes),
            &[],
            &le(&[100u64, 200], u64::to_le_bytes),
        ],
    );
    let g = rb(&b).unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.num_edges(), 2);
    assert_eq!(g.vertex(200).unwrap(), 1);
    assert_eq!(g.ids().external(0), 100);
    assert_eq!(g.weight_type(), WeightType::None);
}

#[test]
fn writer_refuses_unreadable_id_maps() {
    let g = Graph::empty(3, true)
        .with_ids(VertexIds::Map(vec![1u64, 1, 2].into()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = warpgraph::io::write(
        &g,
        &dir.path().join("x.wg"),
        &WriteOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(ref m) if m.contains("strictly increasing")),
        "{e}"
    );
    assert!(!dir.path().join("x.wg").exists());
}

#[test]
fn random_mutations_never_panic() {
    let good = full_file();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || common::xorshift(&mut x);
    for _ in 0..3000 {
        let mut b = good.clone();
        let edits = 1 + next() % 4;
        for _ in 0..edits {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        if next() % 3 == 0 {
            reseal(&mut b);
        }
        // Any outcome but a panic is fine; a success must be a valid graph.
        if let Ok(g) = rb(&b) {
            // (Symmetry of undirected graphs is not re-checked on load, by design.)
            assert!(Graph::from_parts(true, g.out().clone(), g.ids().clone()).is_ok());
        }
    }
}
