//! A search (BFS, MST) that does not fit the GPU is refused before anything is allocated, with the
//! bytes needed and free. (Its own test binary: it sets the
//! process-wide device memory limit.) And the
//! device bytes each GPU method needs, by its estimator, against figures worked out by hand
//! (no GPU needed).

mod common;

use warpgraph::bfs::cuda::{bytes_needed, GpuBfs};
use warpgraph::{Error, Weights};

#[test]
fn too_big_for_the_gpu_is_refused() {
    let Some(gpu) = common::gpu() else { return };
    let edges: Vec<(u32, u32)> = (0..999).map(|v| (v, v + 1)).collect();
    let g = common::graph(1000, &edges, Weights::None, true);
    let needed = bytes_needed(&g);
    warpgraph::memory::set_gpu_limit(Some(needed - 1));
    let e = GpuBfs::new(&gpu, &g).err().expect("refused");
    match e {
        Error::OutOfMemory {
            needed: n,
            available,
            ..
        } => assert_eq!((n, available), (needed, needed - 1)),
        e => panic!("{e}"),
    }
    warpgraph::memory::set_gpu_limit(Some(needed));
    GpuBfs::new(&gpu, &g).unwrap();

    // Borůvka likewise (in the same test: the limit is process-wide).
    let needed = warpgraph::mst::cuda::bytes_needed(&g);
    warpgraph::memory::set_gpu_limit(Some(needed - 1));
    match warpgraph::mst::cuda::GpuMst::new(&gpu, &g)
        .err()
        .expect("refused")
    {
        Error::OutOfMemory {
            needed: n,
            available,
            what,
        } => {
            assert_eq!((n, available), (needed, needed - 1));
            assert!(what.contains("Borůvka"), "{what}");
        }
        e => panic!("{e}"),
    }
    warpgraph::memory::set_gpu_limit(Some(needed));
    warpgraph::mst::cuda::GpuMst::new(&gpu, &g).unwrap();
    warpgraph::memory::set_gpu_limit(None);
}

/// The path 0 -> 1 -> 2 -> 3 with `i32` weights 3, 4, 5, directed or not.
fn path(directed: bool) -> warpgraph::Graph {
    let w = Weights::I32(vec![3, 4, 5].into());
    common::graph(4, &[(0, 1), (1, 2), (2, 3)], w, directed)
}

#[test]
fn sssp_estimates_by_hand() {
    use warpgraph::sssp::cuda::{bytes_needed as sssp_bytes, bytes_needed_for};
    use warpgraph::sssp::Algorithm;
    let g = path(true);
    // The CSR (offsets 8 * 5, targets and weights 8 * 3), two 8-byte and five 4-byte
    // vectors of 4, the counters (256) and the block minima (12 * 1024).
    let base = 40 + 24 + 16 * 4 + 20 * 4 + 256 + 12 * 1024;
    assert_eq!(sssp_bytes(&g), base);
    let by = |a: &str| bytes_needed_for(&g, &a.parse::<Algorithm>().unwrap()).unwrap();
    for a in [
        "auto",
        "dijkstra",
        "dijkstra-parallel",
        "bellman-ford",
        "bellman-ford-queue",
    ] {
        assert_eq!(by(a), base, "{a}");
    }
    // The request layout: 8 bytes for each of n + 1.
    assert_eq!(by("delta-stepping"), base + 40);
    // The incoming arcs (as the CSR: 64 bytes); ELL: width 1, 4 entries of 8 bytes.
    assert_eq!(by("spmv-csr"), base + 64);
    assert_eq!(by("spmv-ell"), base + 64 + 32);
    // Undirected: the out-arcs serve as incoming ones (6 arcs, 24 bytes more in the CSR);
    // ELL: width 2, 8 entries.
    let u = path(false);
    let ubase = base + 24;
    assert_eq!(sssp_bytes(&u), ubase);
    let on_u = |a: &str| bytes_needed_for(&u, &a.parse::<Algorithm>().unwrap()).unwrap();
    assert_eq!(on_u("spmv-csr"), ubase);
    assert_eq!(on_u("spmv-ell"), ubase + 64);
    // ELL's refusal comes through: a vertex with 1,999 in-arcs pads 2,000 rows.
    let star: Vec<(u32, u32)> = (1..2000).map(|v| (v, 0)).collect();
    let s = common::graph(2000, &star, Weights::None, true);
    let e = bytes_needed_for(&s, &Algorithm::SpmvEll).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

#[test]
fn floyd_warshall_estimates_by_hand() {
    use warpgraph::apsp::{cuda::floyd_warshall_bytes, ApspOptions};
    let g = path(true);
    // 4 vertices pad to 64; sums fit i32 cells; a placeholder word and the cycle flag.
    let opts = ApspOptions::default();
    assert_eq!(floyd_warshall_bytes(&g, &opts).unwrap(), 64 * 64 * 4 + 8);
    let pred = ApspOptions { predecessors: true };
    assert_eq!(floyd_warshall_bytes(&g, &pred).unwrap(), 64 * 64 * 8 + 4);
    // i64 cells for weights near 2^40.
    let w = Weights::I64(vec![1 << 40, 1, 1].into());
    let big = common::graph(4, &[(0, 1), (1, 2), (2, 3)], w, true);
    assert_eq!(floyd_warshall_bytes(&big, &opts).unwrap(), 64 * 64 * 8 + 8);
    // Sums that need 128 bits are refused, as the run refuses them.
    let w = Weights::I64(vec![i64::MAX / 2, 1, 1].into());
    let huge = common::graph(4, &[(0, 1), (1, 2), (2, 3)], w, true);
    let e = floyd_warshall_bytes(&huge, &opts).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
}

#[test]
fn bfs_and_mst_estimates_by_hand() {
    let (d, u) = (path(true), path(false));
    // BFS: a directed graph's CSR twice (out and in: 8 * 5 + 4 * 3 each), an undirected
    // one's once (8 * 5 + 4 * 6); the rest depends on n alone.
    assert_eq!(bytes_needed(&d) - bytes_needed(&u), 2 * 52 - 64);
    // Borůvka, undirected: offsets 8 * 5, targets and keys 4 * 6 each, nine 4-byte
    // vectors of 4, two lists of 3 + 1 canonical edges at 16 bytes, 64 of counters; for
    // the forest's sort and naming, the weights 4 * 6, the sort's counts (256 per tile of
    // 4,096 keys, one tile and one spare) and two 8-byte sums.
    let mst = warpgraph::mst::cuda::bytes_needed;
    let forest = 24 + 4 * 256 * 2 + 16;
    assert_eq!(mst(&u), 40 + 24 + 24 + 36 * 4 + 2 * 16 * 4 + 64 + forest);
    // A directed graph counts as its symmetrised copy.
    assert_eq!(mst(&d), mst(&u));
}
