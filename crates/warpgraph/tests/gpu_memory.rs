//! A search (BFS, MST) that does not fit the GPU is refused before anything is allocated, with the
//! bytes needed and free. (Its own test binary: it sets an environment variable.)

mod common;

use warpgraph::bfs::cuda::{bytes_needed, GpuBfs};
use warpgraph::{Error, Weights};

#[test]
fn too_big_for_the_gpu_is_refused() {
    let Some(gpu) = common::gpu() else { return };
    let edges: Vec<(u32, u32)> = (0..999).map(|v| (v, v + 1)).collect();
    let g = common::graph(1000, &edges, Weights::None, true);
    let needed = bytes_needed(&g);
    std::env::set_var("WARPGRAPH_GPU_MEMORY_LIMIT", (needed - 1).to_string());
    let e = GpuBfs::new(&gpu, &g).err().expect("refused");
    match e {
        Error::OutOfMemory {
            needed: n,
            available,
            ..
        } => assert_eq!((n, available), (needed, needed - 1)),
        e => panic!("{e}"),
    }
    std::env::set_var("WARPGRAPH_GPU_MEMORY_LIMIT", needed.to_string());
    GpuBfs::new(&gpu, &g).unwrap();

    // Borůvka likewise (in the same test: the limit is process-wide).
    let needed = warpgraph::mst::cuda::bytes_needed(&g);
    std::env::set_var("WARPGRAPH_GPU_MEMORY_LIMIT", (needed - 1).to_string());
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
    std::env::set_var("WARPGRAPH_GPU_MEMORY_LIMIT", needed.to_string());
    warpgraph::mst::cuda::GpuMst::new(&gpu, &g).unwrap();
    std::env::remove_var("WARPGRAPH_GPU_MEMORY_LIMIT");
}
