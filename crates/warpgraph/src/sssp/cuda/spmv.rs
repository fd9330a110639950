//! `spmv-csr` and `spmv-ell` on the GPU: Bellman-Ford as (min, +) products of the
//! incoming-arc matrix with the distance vector, the CUDA SSSP thesis's SpMV method, a
//! launch of `spmv.cu`'s kernel per product until one changes nothing (the n-th still
//! changing something proves a negative cycle). CSR reads the incoming arcs as rows; ELL
//! is column-major, padded to the longest row, and refused where that padding would
//! exceed four times the arcs.

use cudarc::driver::PushKernelArg;

use super::device::{csr_bytes, weight_bytes, DeviceWeights};
use super::{GpuSssp, THREADS};
use crate::cuda::{gpu_err, grid_for, launch_config};
use crate::error::Result;
use crate::graph::Graph;
use crate::sssp::cpu;

/// Device bytes of the incoming arcs the SpMV variants upload for a directed graph (an
/// undirected one uses its out-arcs: none).
pub(super) fn incoming_bytes(g: &Graph) -> u64 {
    if g.is_directed() {
        csr_bytes(g.incoming())
    } else {
        0
    }
}

/// Device bytes of `spmv-ell`'s layout of the incoming arcs (an index and a weight per
/// entry, padding included), or its refusal.
pub(super) fn ell_bytes(g: &Graph) -> Result<u64> {
    let inc = g.incoming();
    Ok((4 + weight_bytes(inc.weights())) * cpu::ell_plan(inc)? as u64)
}

impl GpuSssp {
    /// Uploads what the SpMV variants need beyond the graph: the incoming arcs of a
    /// directed graph; with `ell`, the ELL layout (refused where the padding explodes).
    pub(super) fn prepare_spmv(&mut self, g: &Graph, ell: bool) -> Result<()> {
        let inc = g.incoming();
        if g.is_directed() && self.incoming.is_none() {
            let m = inc.num_arcs();
            self.gpu.check_memory(
                || format!("the incoming arcs ({m}) for the SpMV products"),
                incoming_bytes(g),
            )?;
            let (w, _) =
                DeviceWeights::upload(&self.gpu, inc.weights(), inc.targets().len(), None)?;
            self.incoming = Some((
                self.gpu.upload(inc.offsets())?,
                self.gpu.upload(inc.targets())?,
                w,
            ));
        }
        if ell && self.ell.is_none() {
            self.gpu.check_memory(
                || "the ELL layout of the incoming arcs".into(),
                ell_bytes(g)?,
            )?;
            let layout = cpu::ell(inc)?;
            let (w, _) = DeviceWeights::upload(&self.gpu, inc.weights(), 0, Some(&layout.arc))?;
            self.ell = Some((self.gpu.upload(&layout.idx)?, w, layout.width as u32));
        }
        Ok(())
    }

    /// (min, +) products until one changes nothing, leaving the distances in `dist`;
    /// true when the n-th still changed something (a negative cycle).
    pub(super) fn run_spmv(&mut self, ell: bool) -> Result<bool> {
        let mut cycle = false;
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        stream
            .memcpy_dtod(&self.dist, &mut self.dist2)
            .map_err(gpu_err)?;
        let mut in_first = true;
        for round in 1u64.. {
            stream.memset_zeros(&mut self.changed).map_err(gpu_err)?;
            let (din, dout) = if in_first {
                (&self.dist, &mut self.dist2)
            } else {
                (&self.dist2, &mut self.dist)
            };
            if ell {
                let (idx, w, width) = self.ell.as_ref().expect("prepared");
                let mut b = stream.launch_builder(&self.k.spmv_ell);
                b.arg(idx);
                w.push_to(&mut b);
                b.arg(width)
                    .arg(din)
                    .arg(dout)
                    .arg(&self.n)
                    .arg(&mut self.changed)
                    .arg(&mut self.flags);
                // SAFETY: matches sssp_spmv_ell_*; idx and w hold width * n entries, din
                // and dout n.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            } else {
                let (off, tgt, w) = match &self.incoming {
                    Some((o, t, w)) => (o, t, w),
                    None => (&self.off, &self.tgt, &self.w),
                };
                let mut b = stream.launch_builder(&self.k.spmv_csr);
                b.arg(off).arg(tgt);
                w.push_to(&mut b);
                b.arg(din)
                    .arg(dout)
                    .arg(&self.n)
                    .arg(&mut self.changed)
                    .arg(&mut self.flags);
                // SAFETY: matches sssp_spmv_csr_*; the CSR has n + 1 offsets, din and dout
                // n entries.
                unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
            }
            in_first = !in_first;
            let changed = self
                .gpu
                .read_pinned(&self.changed, 1, &mut self.changed_host)?[0];
            if changed == 0 {
                break;
            }
            if round >= u64::from(self.n) {
                cycle = true;
                break;
            }
        }
        if !in_first {
            // The last product wrote dist2.
            stream
                .memcpy_dtod(&self.dist2, &mut self.dist)
                .map_err(gpu_err)?;
        }
        Ok(cycle)
    }
}
