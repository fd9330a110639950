//! `WARPGRAPH_NCCL_SWEEP` (a probe, not a test): what NCCL's all-gather costs by size on
//! the team's GPUs, printed at the team's setup, before its searches:
//! `WARPGRAPH_NCCL_SWEEP=1 warpgraph bench bfs --generate kron:14 --gpus 2,4 --trials 1`
//! (`=sym`: in NCCL's symmetric memory too). On 4 H200s (NCCL 2.28) it showed a 2 MiB
//! bitmap's all-gather (512 KiB a rank) at 0.019 ms in step and 0.032 ms alone, and 0.015
//! ms in step in symmetric memory; the team's searches then take the bitmaps there
//! ([`super::SYMMETRIC`]).

use super::*;

/// `WARPGRAPH_NCCL_SWEEP` (a probe, not a test): the GPU time of NCCL's all-gather of 1 KiB
/// to 8 MiB a rank, printed by rank 0: a lone call after the host threads met (the median
/// of 20), and one of 20 made back to back (the ranks in step), in buffers of its own;
/// with `WARPGRAPH_NCCL_SWEEP=sym` then in NCCL's symmetric memory too.
pub(super) fn nccl_sweep(m: &Member) -> Result<()> {
    let gpu = &m.gpu;
    let most = 2 << 20; // u32 words a rank: 8 MiB
    let send = gpu.buffer::<u32>(most)?;
    let recv = gpu.buffer::<u32>(most * m.world)?;
    sweep_in(m, "plain", send, recv, most)?;
    if std::env::var("WARPGRAPH_NCCL_SWEEP").as_deref() == Ok("sym") {
        let bytes = 4 * most * (m.world + 1);
        let base = m.link.symmetric(bytes, |ok| m.agree(ok));
        m.meet_here();
        if let Some(base) = base? {
            // SAFETY: both lie within the zeroed window, apart, which lives as long as the link.
            let (send, recv) = unsafe {
                (
                    gpu.buffer_at::<u32>(base, most),
                    gpu.buffer_at::<u32>(base + 4 * most as u64, most * m.world),
                )
            };
            sweep_in(m, "symmetric", send, recv, most)?;
        }
    }
    Ok(())
}

/// [`nccl_sweep`] in `send` and `recv`.
fn sweep_in(
    m: &Member,
    how: &str,
    send: Buffer<u32>,
    mut recv: Buffer<u32>,
    most: usize,
) -> Result<()> {
    let gpu = &m.gpu;
    let mut words = 256;
    while words <= most {
        let mut times = Vec::new();
        for rep in 0..22 {
            m.link.sync()?;
            m.meet_here();
            let a = gpu.mark()?;
            m.link
                .all_gather(&send.slice(..words), &mut recv.slice_mut(..words * m.world))?;
            let b = gpu.mark()?;
            m.link.sync()?;
            if rep >= 2 {
                times.push(f64::from(a.elapsed_ms(&b).map_err(gpu_err)?));
            }
        }
        times.sort_by(f64::total_cmp);
        let a = gpu.mark()?;
        for _ in 0..20 {
            m.link
                .all_gather(&send.slice(..words), &mut recv.slice_mut(..words * m.world))?;
        }
        let b = gpu.mark()?;
        m.link.sync()?;
        let batch = f64::from(a.elapsed_ms(&b).map_err(gpu_err)?) / 20.0;
        if m.rank == 0 {
            eprintln!(
                "all-gather over {} GPUs ({how}): {} KiB a rank, lone {:.4} ms (median of \
                 {}), in step {batch:.4} ms",
                m.world,
                words * 4 / 1024,
                times[times.len() / 2],
                times.len()
            );
        }
        words *= 2;
    }
    Ok(())
}
