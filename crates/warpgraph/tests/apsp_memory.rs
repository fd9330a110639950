//! All-pairs shortest paths refuse work that does not fit in memory, before allocating.
//!
//! Its own test binary because the limit ([`warpgraph::memory::set_limit`]) is the whole
//! process's, and would reach other tests running in parallel.

use warpgraph::apsp::{apsp, cpu, Algorithm, ApspOptions, MatrixSink, NpySink};
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::Error;

#[test]
fn floyd_warshall_refuses_a_matrix_that_does_not_fit_but_johnson_streams() {
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: 1, hi: 9 },
        ..Default::default()
    };
    // 1500 vertices: Floyd-Warshall's padded i32 matrix alone is 1536^2 * 4 = 9.4 MB.
    let g = generate(
        &Generator::Uniform {
            vertices: 1500,
            edges: 6000,
        },
        &opts,
    )
    .unwrap();
    let o = ApspOptions::default();
    let fw_bytes = cpu::floyd_warshall_bytes(&g, &o);
    assert_eq!(fw_bytes, 1536 * 1536 * 4 + 64 * 1500 * 8);
    warpgraph::memory::set_limit(Some(4_000_000));

    let mut sink = NpySink::new(std::io::sink(), "<null>");
    match apsp(&g, Algorithm::FloydWarshall, &o, &mut sink) {
        Err(Error::OutOfMemory {
            needed, available, ..
        }) => {
            assert_eq!(available, 4_000_000);
            assert_eq!(needed, fw_bytes);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // Auto sees the graph is sparse (and the matrix would not fit) and picks Johnson,
    // which writes rows as it goes and needs only a block of them.
    assert_eq!(Algorithm::Auto.resolve(&g, &o), Algorithm::Johnson);
    let mut sink = NpySink::new(Vec::new(), "<memory>");
    let summary = apsp(&g, Algorithm::Auto, &o, &mut sink).unwrap();
    assert_eq!(summary.algorithm, Algorithm::Johnson);
    let bytes = sink.into_inner();
    assert!(bytes.len() > 1500 * 1500 * 8);

    // Keeping the whole result in memory does not fit either: refused up front.
    let mut m = MatrixSink::new();
    match apsp(&g, Algorithm::Johnson, &o, &mut m) {
        Err(Error::OutOfMemory { needed, .. }) => assert!(needed >= 1500 * 1500 * 8),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // A dense result of 60,000 vertices (14 GB): refused, nothing allocated.
    let big = warpgraph::Graph::empty(60_000, true);
    let err = apsp(&big, Algorithm::FloydWarshall, &o, &mut MatrixSink::new()).unwrap_err();
    assert!(matches!(err, Error::OutOfMemory { .. }), "{err:?}");
    warpgraph::memory::set_limit(None);
}
