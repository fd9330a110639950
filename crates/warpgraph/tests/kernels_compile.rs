//! Every kernel file compiles with NVRTC for Ampere (sm_80, the plain paths) and Hopper
//! (sm_90, DPX and the rest), on any machine that has the NVRTC library: no GPU needed, so
//! the test suite (`scripts/test` fetches NVRTC from PyPI) catches a kernel that does not
//! compile before a GPU ever runs it. It cannot tell whether the kernels are right: the
//! GPU tests do that on a GPU.
//!
//! Skips where NVRTC cannot be opened, and fails instead with `WARPGRAPH_REQUIRE_NVRTC=1`.

use warpgraph::{apsp, bfs, centrality, cuda, mst, sssp, Error};

/// Every kernel file, as each algorithm lists its own.
const FAMILIES: [&[&cuda::KernelSource]; 5] = [
    bfs::cuda::KERNEL_SOURCES,
    sssp::cuda::KERNEL_SOURCES,
    apsp::cuda::KERNEL_SOURCES,
    mst::cuda::KERNEL_SOURCES,
    centrality::cuda::KERNEL_SOURCES,
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

/// Every kernel file's CUBIN for sm_80 and sm_90 is carried and was made from today's
/// source: a kernel edited without `scripts/cubins` fails here (it would still run, compiled
/// by NVRTC on the user's machine, but its first run would wait for the compiler).
#[test]
fn every_kernel_file_has_a_current_prebuilt_cubin() {
    let stale: Vec<String> = cuda::PREBUILT_ARCHS
        .iter()
        .flat_map(|&cc| FAMILIES.iter().flat_map(|f| f.iter()).map(move |k| (k, cc)))
        .filter(|(k, cc)| !cuda::prebuilt_is_current(k, *cc))
        .map(|(k, cc)| format!("{}.cu for sm_{}{}", k.name, cc.0, cc.1))
        .collect();
    assert!(
        stale.is_empty(),
        "no current CUBIN carried for {}: run scripts/cubins",
        stale.join(", ")
    );
}

/// Makes `cubin/` anew: every kernel file compiled by NVRTC for each architecture of
/// [`cuda::PREBUILT_ARCHS`], with `keys.txt` naming what each was made from.
#[test]
#[ignore = "writes the crate's cubin/ folder: run by scripts/cubins"]
fn write_prebuilt_cubins() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cubin");
    let mut keys = String::from("# ARCH NAME KEY: made by scripts/cubins; see README.md\n");
    for cc in cuda::PREBUILT_ARCHS {
        let arch = format!("sm_{}{}", cc.0, cc.1);
        std::fs::create_dir_all(dir.join(&arch)).unwrap();
        for k in FAMILIES.iter().flat_map(|f| f.iter()) {
            let cubin = cuda::compile(k, cc).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            std::fs::write(dir.join(&arch).join(format!("{}.cubin", k.name)), cubin).unwrap();
            keys += &format!("{arch} {} {:016x}\n", k.name, cuda::source_key(k, cc));
        }
    }
    std::fs::write(dir.join("keys.txt"), keys).unwrap();
}
