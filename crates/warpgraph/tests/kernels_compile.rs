//! Every kernel file compiles with NVRTC for Ampere (sm_80, the plain paths) and Hopper
//! (sm_90, DPX and the rest), on any machine that has the NVRTC library: no GPU needed, so
//! the test suite (`scripts/test` fetches NVRTC from PyPI) catches a kernel that does not
//! compile before a GPU ever runs it. It cannot tell whether the kernels are right: the
//! GPU tests do that on a GPU.
//!
//! Skips where NVRTC cannot be opened, and fails instead with `WARPGRAPH_REQUIRE_NVRTC=1`.

use warpgraph::{apsp, bfs, cuda, mst, sssp, Error};

/// Every kernel file, as each algorithm lists its own.
const FAMILIES: [&[&cuda::KernelSource]; 4] = [
    bfs::cuda::KERNEL_SOURCES,
    sssp::cuda::KERNEL_SOURCES,
    apsp::cuda::KERNEL_SOURCES,
    mst::cuda::KERNEL_SOURCES,
];

#[test]
fn every_kernel_file_compiles_for_ampere_and_hopper() {
    let required = warpgraph::settings::get().require_nvrtc;
    for cc in [(8, 0), (9, 0)] {
        for k in FAMILIES.iter().flat_map(|f| f.iter()) {
            match cuda::compile(k, cc) {
                Ok(_) => {}
                Err(Error::NoGpu(why)) if !required => {
                    eprintln!("skipped: {why} (WARPGRAPH_REQUIRE_NVRTC=1 makes this fail)");
                    return;
                }
                Err(e) => panic!("{}.cu for sm_{}{}: {e}", k.name, cc.0, cc.1),
            }
        }
    }
    // A broken kernel's error carries NVRTC's log.
    let broken = cuda::KernelSource {
        name: "broken",
        source: "extern \"C\" __global__ void k() { undeclared_thing = 1; }",
    };
    let e = cuda::compile(&broken, (9, 0)).unwrap_err();
    assert!(e.to_string().contains("undeclared_thing"), "{e}");
    assert!(matches!(e, Error::KernelCompile { .. }), "{e:?}");
}
