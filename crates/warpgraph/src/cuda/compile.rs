//! Compiling kernel files with NVRTC: the options, the source NVRTC sees (`common.cuh`
//! in front of the file), and the name of the file in the kernel cache ([`super::cache`])
//! where the machine code of a source, compiled with these options by this NVRTC, is kept.
//!
//! NVRTC compiles straight to a CUBIN, the machine code of the GPU's own architecture
//! (`sm_90` for compute capability 9.0): the driver loads it as it is, where PTX would
//! first have to be compiled again by the driver's own assembler on a first run.

use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;

use cudarc::nvrtc::result::NvrtcError;
use cudarc::nvrtc::result::{compile_program, create_program, destroy_program, get_program_log};
use cudarc::nvrtc::sys::{nvrtcGetCUBIN, nvrtcGetCUBINSize, nvrtcProgram};

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

/// Compiles a kernel file for compute capability `cc` (e.g. (9, 0) gives `sm_90`) into a
/// CUBIN the driver loads as it is.
///
/// # Errors
/// [`Error::NoGpu`] when NVRTC is not installed; [`Error::KernelCompile`] with NVRTC's log
/// when the source does not compile; [`Error::Nvrtc`] when NVRTC fails otherwise.
pub fn compile(kernels: &KernelSource, cc: (i32, i32)) -> Result<Vec<u8>> {
    if !nvrtc_present() {
        return Err(Error::NoGpu(
            "the NVRTC library (libnvrtc.so), which compiles warpgraph's kernels, was not found"
                .into(),
        ));
    }
    let file = format!("{}.cu", kernels.name);
    let nvrtc = |source| Error::Nvrtc {
        file: file.clone(),
        source,
    };
    let src = CString::new(full_source(kernels)).map_err(|_| Error::KernelCompile {
        file: file.clone(),
        arch: arch(cc),
        log: "the source holds a NUL byte".into(),
        source: NvrtcError(cudarc::nvrtc::sys::nvrtcResult::NVRTC_ERROR_INVALID_INPUT),
    })?;
    let name = CString::new(file.clone()).expect("kernel file names hold no NUL");
    let prog = Program(create_program(&src, Some(&name)).map_err(nvrtc)?);
    // SAFETY: `prog` was created above and is destroyed only by `Program`'s drop; `src`
    // and `name` outlive it.
    unsafe {
        if let Err(e) = compile_program(prog.0, &compile_options(cc)) {
            let log = get_program_log(prog.0).map_err(nvrtc)?;
            return Err(Error::KernelCompile {
                file: file.clone(),
                arch: arch(cc),
                log: CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned(),
                source: e,
            });
        }
        let mut size = 0usize;
        nvrtcGetCUBINSize(prog.0, &mut size)
            .result()
            .map_err(nvrtc)?;
        let mut cubin = vec![0u8; size];
        nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr().cast::<c_char>())
            .result()
            .map_err(nvrtc)?;
        Ok(cubin)
    }
}

/// An NVRTC program, destroyed when dropped.
struct Program(nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `create_program` and is destroyed once.
        let _ = unsafe { destroy_program(self.0) };
    }
}

/// The architecture's name NVRTC and messages use: `sm_90`.
fn arch(cc: (i32, i32)) -> String {
    format!("sm_{}{}", cc.0, cc.1)
}

/// The kernel cache's file for the CUBIN of `kernels` compiled for compute capability `cc`
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
pub(super) fn compile_options(cc: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture={}", arch(cc)),
        "--std=c++17".into(),
    ]
}

/// What NVRTC compiles of a kernel file: the shared device code first, then the file
/// (`#line` keeps NVRTC's line numbers those of the file).
pub(super) fn full_source(kernels: &KernelSource) -> String {
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
