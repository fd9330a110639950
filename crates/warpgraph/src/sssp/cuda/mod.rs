//! Single-source shortest paths on an NVIDIA GPU.
//!
//! **Computes** the same [`SsspResult`](super::SsspResult) as the CPU backend: distances
//! (`i64` for integer and unweighted graphs, `f64` for float weights) and a shortest-path
//! tree, by [`GpuSssp`], a graph uploaded once for searches from any number of sources.
//!
//! **Methods**, one file of host code and one of kernels each (every search is one
//! cooperative launch, or a launch per product for SpMV):
//! - `near_far`: near-far buckets (Meyer and Sanders' delta-stepping
//!   order with the near/far split of Davidson, Baxter, Garland and Owens): `auto` for
//!   non-negative weights on most graphs, `dijkstra-parallel` (buckets as wide as the least
//!   arc weight: Crauser et al.'s parallel Dijkstra, as the GPU Johnson article uses it),
//!   and with one bucket of infinite width `bellman-ford-queue`, `auto` with negative
//!   weights, and Johnson's potentials ([`GpuSssp::potentials`]).
//! - `owned`: owner-local near-far, `auto` on road-like graphs ([`road_like`]).
//! - `delta_stepping`: delta-stepping as the CUDA SSSP thesis lays it out (its
//!   Algorithm 3).
//! - `bellman_ford`: Bellman-Ford in rounds over all vertices.
//! - `spmv`: Bellman-Ford as (min, +) sparse matrix-vector products in CSR or ELL (the
//!   thesis's SpMV method).
//! - `dijkstra`: Dijkstra with a parallel ExtractMin (the thesis's Algorithm 1);
//!   [`extract_min`] times that reduction alone (the thesis's Table 1).
//!
//! `search` holds what every method shares: the choice of method, the reset before a
//! search, the parents pass after it and the reading of the result. Where every weight is
//! a positive integer and every distance fits 31 bits, near-far keeps each vertex's
//! distance and parent in one 64-bit word lowered by one atomic minimum, and the parent
//! comes out as the smallest u of a tight arc u -> v, the CPU backend's rule. Otherwise
//! the parents pass chooses them from the final distances by that rule, so both backends
//! give the same tree; when a tight arc weighs 0 or less the parents could form a cycle,
//! and `parents`' breadth-first search over tight arcs on the GPU (the CPU backend's rule
//! for that case) decides instead. A negative cycle is detected on the GPU; the cycle reported is then found by
//! the CPU's Bellman-Ford, so that it is the one the CPU backend gives. A sum that does
//! not fit the distance type is an overflow error, never a wrong distance.
//!
//! **Kernels**: each method's `.cu` file, after the shared `sssp.cuh`, all compiled as one
//! module per weight type ([`KERNELS_I32`] and the others, listed in [`KERNEL_SOURCES`]),
//! so that a search compiles and loads only its own type's kernels.
//!
//! With `WARPGRAPH_TRACE=1` ([`crate::settings`]) each search prints near-far's passes,
//! buckets and vertex expansions, and the host's time to copy and take apart the result,
//! to stderr; `=2` adds where the time goes: near-far's passes by list length,
//! owner-local's clocks per block.

mod bellman_ford;
mod delta_stepping;
mod device;
mod dijkstra;
pub mod extract_min;
mod memory;
mod near_far;
mod owned;
mod parents;
mod search;
mod spmv;

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, PinnedHostSlice};

pub(crate) use dijkstra::check_extract_min_threads;
pub use dijkstra::{EXTRACT_MIN_THREADS, EXTRACT_MIN_THREADS_DEFAULT};
pub use memory::{bytes_needed, bytes_needed_for};
pub use owned::road_like;

use crate::cuda::{Gpu, KernelSource};
use crate::error::Result;
use device::{DeviceCsr, DeviceWeights};
use owned::OwnedState;

/// The kernels for one weight type: `SSSP_ONLY_<suffix>` picks the instantiation
/// (`sssp.cuh`'s `SSSP_INSTANTIATE`), then the shared header and every method's file, in
/// one source, so that one compile makes them all. The kernels that take no weights are in
/// every weight type's module.
macro_rules! sssp_kernels {
    ($suffix:literal) => {
        KernelSource {
            name: concat!("sssp_", $suffix),
            source: concat!(
                "#define SSSP_ONLY_",
                $suffix,
                "\n#line 1 \"sssp.cuh\"\n",
                include_str!("sssp.cuh"),
                "\n#line 1 \"search.cu\"\n",
                include_str!("search.cu"),
                "\n#line 1 \"parents.cu\"\n",
                include_str!("parents.cu"),
                "\n#line 1 \"near_far.cu\"\n",
                include_str!("near_far.cu"),
                "\n#line 1 \"owned.cu\"\n",
                include_str!("owned.cu"),
                "\n#line 1 \"delta_stepping.cu\"\n",
                include_str!("delta_stepping.cu"),
                "\n#line 1 \"bellman_ford.cu\"\n",
                include_str!("bellman_ford.cu"),
                "\n#line 1 \"spmv.cu\"\n",
                include_str!("spmv.cu"),
                "\n#line 1 \"dijkstra.cu\"\n",
                include_str!("dijkstra.cu"),
                "\n#line 1 \"batch.cu\"\n",
                include_str!("batch.cu")
            ),
        }
    };
}

/// The SSSP kernels for `i32` weights and unweighted graphs, one module per weight type so
/// that a search compiles and loads only its own (where NVRTC compiles on first use, its
/// time grows with the module's kernels). Each also holds the kernels that take no
/// weights.
pub const KERNELS_I32: KernelSource = sssp_kernels!("i32");

/// The SSSP kernels for `i64` weights (see [`KERNELS_I32`]).
pub const KERNELS_I64: KernelSource = sssp_kernels!("i64");

/// The SSSP kernels for `f32` weights (see [`KERNELS_I32`]).
pub const KERNELS_F32: KernelSource = sssp_kernels!("f32");

/// The SSSP kernels for `f64` weights (see [`KERNELS_I32`]).
pub const KERNELS_F64: KernelSource = sssp_kernels!("f64");

/// Every kernel source the SSSP family compiles: one module per weight type (the
/// ExtractMin study's kernel and Johnson's batched searches included).
pub const KERNEL_SOURCES: &[&KernelSource] =
    &[&KERNELS_I32, &KERNELS_I64, &KERNELS_F32, &KERNELS_F64];

/// The kernels for the weight type `suffix` names (`i32`, `i64`, `f32` or `f64`, as the
/// kernels' names end).
pub(crate) fn kernels(suffix: &str) -> &'static KernelSource {
    match suffix {
        "i64" => &KERNELS_I64,
        "f32" => &KERNELS_F32,
        "f64" => &KERNELS_F64,
        _ => &KERNELS_I32,
    }
}

/// Threads per block of every kernel.
const THREADS: u32 = 256;

/// Resident blocks per multiprocessor for the cooperative launches.
const BLOCKS_PER_SM: u32 = 4;

/// Words of the barrier buffer (8 + BARRIER_FANIN of `common.cuh`).
const BARRIER_WORDS: usize = 8 + 16;

/// The kernels for one weight type.
struct Kernels {
    reset: CudaFunction,
    near_far: CudaFunction,
    rounds: CudaFunction,
    parents: CudaFunction,
    parents_init: CudaFunction,
    spmv_csr: CudaFunction,
    spmv_ell: CudaFunction,
    dijkstra: CudaFunction,
    buckets: CudaFunction,
    owned: CudaFunction,
    owned_shared: CudaFunction,
}

impl Kernels {
    /// The kernels of weight type `suffix` (`i32`, `i64`, `f32` or `f64`) on `gpu`,
    /// compiled the first time any is asked for.
    fn load(gpu: &Gpu, suffix: &str) -> Result<Kernels> {
        let kernels = kernels(suffix);
        let f = |name: &str| gpu.function(kernels, &format!("{name}_{suffix}"));
        Ok(Kernels {
            reset: f("sssp_reset")?,
            near_far: f("sssp_near_far")?,
            rounds: f("sssp_rounds")?,
            parents: f("sssp_parents")?,
            parents_init: gpu.function(kernels, "sssp_parents_init")?,
            spmv_csr: f("sssp_spmv_csr")?,
            spmv_ell: f("sssp_spmv_ell")?,
            dijkstra: f("sssp_dijkstra")?,
            buckets: f("sssp_buckets")?,
            owned: f("sssp_owned")?,
            owned_shared: f("sssp_owned_shared")?,
        })
    }
}

/// A graph on the GPU, ready for shortest-path searches from any number of sources.
pub struct GpuSssp {
    gpu: Arc<Gpu>,
    k: Kernels,
    n: u32,
    off: CudaSlice<u64>,
    tgt: CudaSlice<u32>,
    w: DeviceWeights,
    /// Distances, as the bits of `i64` or `f64`.
    dist: CudaSlice<u64>,
    /// List stamps (near-far) or round marks (rounds), per vertex.
    stamp: CudaSlice<u32>,
    qa: CudaSlice<u32>,
    qb: CudaSlice<u32>,
    big: CudaSlice<u32>,
    parent: CudaSlice<u32>,
    barrier: CudaSlice<u32>,
    gmin: CudaSlice<u64>,
    flags: CudaSlice<u32>,
    passes: CudaSlice<u32>,
    blocks: u32,
    /// Dijkstra's per-block minima (distance bits and vertices), BLOCKS_PER_SM per
    /// multiprocessor, and its threads per block.
    block_key: CudaSlice<u64>,
    block_vertex: CudaSlice<u32>,
    extract_min_threads: u32,
    /// Delta-stepping's request layout (n + 1 entries, allocated when first
    /// needed) and its counters.
    reqidx: Option<CudaSlice<u64>>,
    words: CudaSlice<u32>,
    /// The largest arc weight (1 when unweighted).
    max_weight: f64,
    /// The smallest arc weight and whether some arc is negative.
    min_weight: Option<f64>,
    negative: bool,
    /// Whether near-far may keep (distance, parent) words: positive integer weights and
    /// every distance below 2^31 - 1.
    packable: bool,
    /// The second vector of the SpMV products.
    dist2: CudaSlice<u64>,
    changed: CudaSlice<u32>,
    changed_host: PinnedHostSlice<u32>,
    /// The incoming arcs of a directed graph and the ELL layout (indices, weights,
    /// width), uploaded when an SpMV variant first needs them.
    incoming: Option<DeviceCsr>,
    ell: Option<(CudaSlice<u32>, DeviceWeights, u32)>,
    owned: Option<OwnedState>,
    /// Whether owner-local near-far may keep each block's distances in shared memory, and
    /// whether the last search did.
    shared_strips: bool,
    ran_shared: bool,
    /// See [`GpuSssp::set_shared_head`].
    shared_head: u32,
    /// Whether `auto` runs owner-local near-far: forced, or (None) where [`road_like`]
    /// (worked out when `auto` first asks).
    owner_local: Option<bool>,
    road_like: Option<bool>,
    dist_host: PinnedHostSlice<u64>,
    parent_host: PinnedHostSlice<u32>,
    flags_host: PinnedHostSlice<u32>,
    upload_seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::{KERNELS_I32, KERNEL_SOURCES};

    /// The kernels loaded by names that end in the weight type's suffix, as the host code
    /// names them: `f` in this file ([`super::Kernels::load`]), and `sssp_batch`,
    /// which apsp/cuda/johnson.rs loads.
    fn typed_names() -> Vec<String> {
        let mut names = quoted_after(include_str!("mod.rs"), "f(\"");
        names.push("sssp_batch".into());
        names.push("sssp_gather".into());
        names
    }

    /// The kernels loaded by their names alone: `gpu.function` in this file and
    /// extract_min.rs, and `sssp_batch_shared_u32`, which apsp/cuda/johnson.rs
    /// loads.
    fn untyped_names() -> Vec<String> {
        let mut names = quoted_after(include_str!("mod.rs"), "function(kernels, \"");
        names.extend(quoted_after(
            include_str!("extract_min.rs"),
            "function(&KERNELS_I32, \"",
        ));
        names.push("sssp_batch_shared_u32".into());
        names.push("sssp_gather_u32".into());
        names
    }

    /// Every name that follows `before` in `text`, up to its closing quote (names only:
    /// the patterns of this test itself, which hold no name, are skipped).
    fn quoted_after(text: &str, before: &str) -> Vec<String> {
        text.match_indices(before)
            .filter_map(|(at, _)| {
                let rest = &text[at + before.len()..];
                let name = &rest[..rest.find('"')?];
                let ok = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
                ok.then(|| name.to_string())
            })
            .collect()
    }

    /// The `extern "C"` kernels `source` defines for weight type `suffix`: those of the
    /// macros it instantiates (`SSSP_INSTANTIATE(M)`), `##SUFFIX` replaced by the suffix,
    /// and those outside any macro.
    fn defined(source: &str, suffix: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut in_macro: Option<&str> = None;
        let lines: Vec<&str> = source.lines().collect();
        for (i, &line) in lines.iter().enumerate() {
            // The macro this line belongs to, if any (a macro's lines but its last end
            // with a continuation).
            let macro_name = match line.strip_prefix("#define ") {
                Some(rest) if line.ends_with('\\') => rest.split('(').next(),
                _ => in_macro,
            };
            in_macro = if line.ends_with('\\') {
                macro_name
            } else {
                None
            };
            let Some(at) = line.find("extern \"C\" __global__ void") else {
                continue;
            };
            let mut rest = line[at + "extern \"C\" __global__ void".len()..].trim_start();
            if let Some(bounds) = rest.strip_prefix("__launch_bounds__(") {
                rest = bounds[bounds.find(')').expect("closed") + 1..].trim_start();
            }
            if rest.is_empty() {
                // The name on the next line.
                rest = lines.get(i + 1).map_or("", |l| l.trim_start());
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '#')
                .collect();
            match name.strip_suffix("_##SUFFIX") {
                Some(base) => {
                    let m = macro_name.expect("a kernel named by ##SUFFIX is in a macro");
                    if source.contains(&format!("SSSP_INSTANTIATE({m})")) {
                        names.push(format!("{base}_{suffix}"));
                    }
                }
                None => names.push(name),
            }
        }
        names
    }

    /// Every kernel the host code loads by name is an `extern "C"` kernel of the module it
    /// is loaded from, for every weight type (the guard of the split into one `.cu` file
    /// per method).
    #[test]
    fn every_kernel_loaded_by_name_is_defined() {
        let typed = typed_names();
        let untyped = untyped_names();
        assert_eq!(typed.len(), 12, "{typed:?}");
        assert_eq!(untyped.len(), 4, "{untyped:?}");
        assert_eq!(KERNEL_SOURCES.len(), 4);
        for k in KERNEL_SOURCES {
            let suffix = k.name.strip_prefix("sssp_").expect("sssp_<suffix>");
            assert!(k
                .source
                .starts_with(&format!("#define SSSP_ONLY_{suffix}\n")));
            let have = defined(k.source, suffix);
            for name in &typed {
                let name = format!("{name}_{suffix}");
                assert!(have.contains(&name), "{name} is not a kernel of {}", k.name);
            }
            for name in &untyped {
                assert!(have.contains(name), "{name} is not a kernel of {}", k.name);
            }
        }
        // The ExtractMin study loads its kernel from the i32 module.
        assert!(KERNEL_SOURCES.iter().any(|k| k.name == KERNELS_I32.name));
    }
}
