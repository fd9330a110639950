//! Compiling kernel files with NVRTC: the options, the source NVRTC sees (`common.cuh`
//! in front of the file), and the name of the file in the kernel cache ([`super::cache`])
//! where the PTX of a source, compiled with these options by this NVRTC, is kept.

use std::path::PathBuf;

use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};

use super::cache;
use super::driver::nvrtc_present;
use crate::error::{Error, Result};

/// One `.cu` file of kernels.
#[derive(Debug)]
pub struct KernelSource {
    /// A short name for messages and the module cache (`bfs`).
    pub name: &'static str,
    /// The CUDA C source.
    pub source: &'static str,
}

/// Device code compiled in front of every kernel file: types, the grid-wide barrier of
/// cooperative launches, block scans, warp-aggregated appends.
const COMMON: &str = include_str!("common.cuh");

/// Compiles a kernel file for compute capability `cc` (e.g. (9, 0) gives `sm_90`).
///
/// # Errors
/// [`Error::NoGpu`] when NVRTC is not installed; [`Error::KernelCompile`] with NVRTC's log
/// when the source does not compile; [`Error::Nvrtc`] when NVRTC fails otherwise.
pub fn compile(kernels: &KernelSource, cc: (i32, i32)) -> Result<Ptx> {
    if !nvrtc_present() {
        return Err(Error::NoGpu(
            "the NVRTC library (libnvrtc.so), which compiles warpgraph's kernels, was not found"
                .into(),
        ));
    }
    let file = format!("{}.cu", kernels.name);
    let opts = CompileOptions {
        options: compile_options(cc),
        name: Some(file.clone()),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(full_source(kernels), opts).map_err(|e| match e {
        CompileError::CompileError { nvrtc, log, .. } => Error::KernelCompile {
            file,
            arch: format!("sm_{}{}", cc.0, cc.1),
            log: log.to_string_lossy().into_owned(),
            source: nvrtc,
        },
        CompileError::CreationError(source)
        | CompileError::GetLogError(source)
        | CompileError::GetPtxError(source)
        | CompileError::DestroyError(source) => Error::Nvrtc { file, source },
    })
}

/// The kernel cache's file for the PTX of `kernels` compiled for compute capability `cc`
/// by this NVRTC; `None` where the cache is off or NVRTC is missing.
pub(super) fn cache_file(kernels: &KernelSource, cc: (i32, i32)) -> Option<PathBuf> {
    let dir = cache::dir().filter(|_| nvrtc_present())?;
    let version = nvrtc_version();
    let source = full_source(kernels);
    let options = compile_options(cc).join(" ");
    let parts: [&[u8]; 4] = [
        source.as_bytes(),
        options.as_bytes(),
        &version,
        env!("CARGO_PKG_VERSION").as_bytes(),
    ];
    Some(cache::path(&dir, kernels.name, &parts))
}

/// NVRTC's options for compute capability `cc`.
fn compile_options(cc: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", cc.0, cc.1),
        "--std=c++17".into(),
    ]
}

/// What NVRTC compiles of a kernel file: the shared device code first, then the file
/// (`#line` keeps NVRTC's line numbers those of the file).
fn full_source(kernels: &KernelSource) -> String {
    format!(
        "{COMMON}\n#line 1 \"{}.cu\"\n{}",
        kernels.name, kernels.source
    )
}

/// NVRTC's version, as bytes for the kernel cache's key (zeros where it cannot say).
fn nvrtc_version() -> [u8; 8] {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loaded (callers check `nvrtc_present`); the call writes two ints.
    let _ = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    let mut v = [0u8; 8];
    v[..4].copy_from_slice(&major.to_le_bytes());
    v[4..].copy_from_slice(&minor.to_le_bytes());
    v
}
