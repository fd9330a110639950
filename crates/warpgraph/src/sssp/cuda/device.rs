//! Host-side types of the GPU shortest paths: weights and bucket widths as the kernels take
//! them, distances as the kernels keep them, and the device bytes of an uploaded CSR.

use cudarc::driver::{CudaSlice, PushKernelArg};

use crate::cuda::Gpu;
use crate::error::Result;
use crate::graph::{Csr, Distance, Weights};

/// The weights on the GPU, and the suffix of the kernels for their type.
pub(super) enum DeviceWeights {
    I32(CudaSlice<i32>),
    I64(CudaSlice<i64>),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
}

impl DeviceWeights {
    /// Uploads the weights `w` of `arcs` arcs (1 on each when unweighted), or with `pick`
    /// the weights of those arcs (an arc number each) in that order; and the kernels'
    /// suffix for the type.
    pub(super) fn upload(
        gpu: &Gpu,
        w: &Weights,
        arcs: usize,
        pick: Option<&[u64]>,
    ) -> Result<(DeviceWeights, &'static str)> {
        // The weights as they are, or those picked (a copy).
        fn put<
            T: cudarc::driver::DeviceRepr
                + cudarc::driver::ValidAsZeroBits
                + Copy
                + Default
                + Send
                + Sync,
        >(
            gpu: &Gpu,
            w: &[T],
            pick: Option<&[u64]>,
        ) -> Result<CudaSlice<T>> {
            match pick {
                None => gpu.upload(w),
                Some(p) => {
                    let picked: Vec<T> = p
                        .iter()
                        .map(|&a| w.get(a as usize).copied().unwrap_or_default())
                        .collect();
                    gpu.upload(&picked)
                }
            }
        }
        Ok(match w {
            Weights::None => {
                let len = pick.map_or(arcs, <[u64]>::len);
                (DeviceWeights::I32(gpu.upload(&vec![1i32; len])?), "i32")
            }
            Weights::I32(w) => (DeviceWeights::I32(put(gpu, w, pick)?), "i32"),
            Weights::I64(w) => (DeviceWeights::I64(put(gpu, w, pick)?), "i64"),
            Weights::F32(w) => (DeviceWeights::F32(put(gpu, w, pick)?), "f32"),
            Weights::F64(w) => (DeviceWeights::F64(put(gpu, w, pick)?), "f64"),
        })
    }

    /// Adds the weights to a kernel launch's arguments.
    pub(super) fn push_to<'a>(&'a self, b: &mut cudarc::driver::LaunchArgs<'a>) {
        match self {
            DeviceWeights::I32(w) => b.arg(w),
            DeviceWeights::I64(w) => b.arg(w),
            DeviceWeights::F32(w) => b.arg(w),
            DeviceWeights::F64(w) => b.arg(w),
        };
    }
}

/// A CSR on the GPU: offsets, targets, weights.
pub(super) type DeviceCsr = (CudaSlice<u64>, CudaSlice<u32>, DeviceWeights);

/// Bytes of one arc's weight on the device (4 for unweighted graphs: a placeholder array).
pub(super) fn weight_bytes(w: &Weights) -> u64 {
    match w {
        Weights::None | Weights::I32(_) | Weights::F32(_) => 4,
        Weights::I64(_) | Weights::F64(_) => 8,
    }
}

/// Device bytes of `csr` uploaded: offsets, targets and weights.
pub(super) fn csr_bytes(csr: &Csr) -> u64 {
    8 * (csr.num_vertices() as u64 + 1) + (4 + weight_bytes(csr.weights())) * csr.num_arcs()
}

/// A bucket width as the kernel takes it.
pub(super) enum DeviceDelta {
    Int(i64),
    Float(f64),
}

/// Distances as the GPU keeps them (`i64` or `f64` bits).
pub(super) trait GpuDistance: Distance {
    /// The distance of these bits.
    fn from_bits(b: u64) -> Self;
    /// The distance and parent of a packed word (`i64` distances only: float weights are
    /// never packed).
    fn from_word(word: u64) -> (Self, u32);
    /// A width as the kernel of this distance type takes it.
    fn device_delta(width: f64) -> DeviceDelta;
}

impl GpuDistance for i64 {
    fn from_bits(b: u64) -> i64 {
        b as i64
    }

    fn from_word(word: u64) -> (i64, u32) {
        match word as i64 {
            i64::MAX => (i64::MAX, crate::graph::NO_VERTEX),
            w => (w >> 32, w as u32),
        }
    }

    fn device_delta(width: f64) -> DeviceDelta {
        DeviceDelta::Int(width as i64)
    }
}

impl GpuDistance for f64 {
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }

    fn from_word(word: u64) -> (f64, u32) {
        (f64::from_bits(word), crate::graph::NO_VERTEX)
    }

    fn device_delta(width: f64) -> DeviceDelta {
        DeviceDelta::Float(width)
    }
}
