//! The end of a rank's search: the tree to the host (spread over processes, through
//! rank 0's GPU first), and the team's times.

use std::time::Instant;

use cudarc::driver::{CudaSlice, PinnedHostSlice};
use rayon::prelude::*;

use super::walk::Walk;
use super::{ahead_differs, RankRun, RankState};
use crate::bfs::cuda::multi::dest::Dest;
use crate::bfs::cuda::multi::trace::print_trace;
use crate::cuda::link::Reduce;
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, Gpu, Timer};
use crate::device::RunTimes;
use crate::error::Result;

impl RankState {
    /// After the last level: a level queued ahead undone, the host's levels handed over
    /// if they found the whole component, and spread over processes, every part sent to
    /// rank 0's GPU.
    pub(super) fn after_levels(&mut self, m: &Member, w: &Walk) -> Result<()> {
        let gpu = &m.gpu;
        let level = w.level;
        if w.ahead.is_some() {
            // The level queued ahead did nothing (the search is over).
            if w.said_short != Some(false) {
                return Err(ahead_differs(m.rank, level, false));
            }
            self.turn_lists(self.short_world(m));
        }
        if !w.seeded {
            // The host found the whole component.
            self.seed(gpu, w.source, level, false)?;
        }
        if self.gather {
            // Spread over processes: every part to rank 0's GPU first.
            let dlo = self.dlo();
            let local = 32 * self.part.seg;
            let mut group = m.link.group()?;
            if m.rank == 0 {
                for (p, (d, pa)) in (1..m.world).zip(self.all.iter_mut()) {
                    group.recv(d.as_view_mut(), p)?;
                    group.recv(pa.as_view_mut(), p)?;
                }
            } else {
                group.send(self.depth.slice(dlo..dlo + local), 0)?;
                group.send(self.parent.slice(dlo..dlo + local), 0)?;
            }
            group.end()?;
        }
        Ok(())
    }

    /// The search's end: the rank's part of the tree (gathering, rank 0's all of it)
    /// copied into `dest`, and the slowest rank's times, on every rank.
    pub(super) fn finish(
        &mut self,
        m: &Member,
        dest: Option<&Dest>,
        timer: Timer,
        begun: Instant,
        w: &Walk,
    ) -> Result<RankRun> {
        let gpu = &m.gpu;
        let done = timer.kernels_done(gpu)?;
        m.link.wait_event(&done)?;
        let seen = Instant::now();
        // Seconds copying to page-locked memory, and from there into the tree.
        let copies = match dest {
            Some(dest) => self.copy_tree(m, dest)?,
            None => (0.0, 0.0),
        };
        let copied = Instant::now();
        let times = timer.finish(&done)?;
        // The slowest rank's times, on every rank, once every rank has written its part.
        // (Seconds as bits: for floats of one sign their order is the integers'.)
        let ends = [times.total_seconds, times.kernel_seconds].map(f64::to_bits);
        gpu.stream()
            .memcpy_htod(&ends, &mut self.ends)
            .map_err(gpu_err)?;
        m.link.all_reduce_in_place(&mut self.ends, Reduce::Max)?;
        m.link.sync()?;
        let mut ends = [0u64; 2];
        gpu.download_into(&self.ends, &mut ends)?;
        print_trace(m.rank, &w.traced)?;
        if w.trace {
            let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
            eprintln!(
                "rank {} end: the kernels' end seen {:.3} ms after the start (kernels {:.3} \
                 ms), copies {:.3} ms (to page-locked {:.3}, into the tree {:.3}), the \
                 times' all-reduce {:.3} ms; this rank {:.3} ms, the team {:.3} ms",
                m.rank,
                ms(begun, seen),
                times.kernel_seconds * 1e3,
                ms(seen, copied),
                copies.0 * 1e3,
                copies.1 * 1e3,
                ms(copied, Instant::now()),
                times.total_seconds * 1e3,
                f64::from_bits(ends[0]) * 1e3,
            );
        }
        Ok(RankRun {
            times: RunTimes {
                seconds: f64::from_bits(ends[0]),
                kernel_seconds: Some(f64::from_bits(ends[1])),
            },
            levels: w.level,
        })
    }

    /// Copies the rank's part of the tree into `dest` (gathering, rank 0 every part, its
    /// own first); returns the seconds copying to page-locked memory and from there into
    /// the tree.
    fn copy_tree(&mut self, m: &Member, dest: &Dest) -> Result<(f64, f64)> {
        let gpu = &m.gpu;
        let dlo = self.dlo();
        let mut copies = (0.0, 0.0);
        let parts = match self.gather {
            true => 0..m.world,
            false => m.rank..m.rank + 1,
        };
        for p in parts {
            let (d, pa, at) = match p == m.rank {
                true => (&self.depth, &self.parent, dlo),
                false => {
                    let (d, pa) = &self.all[p - 1];
                    (d, pa, 0)
                }
            };
            // SAFETY: ranks write disjoint ranges, and none is read before the
            // all-reduce after the copies (see `team_searches`).
            let (dh, ph) = unsafe { dest.range(self.part.range(p)) };
            for ((buf, out), locked) in [(d, dh), (pa, ph)].into_iter().zip(dest.locked) {
                let (bus, host) = copy_out(gpu, buf, at, out, locked, &mut self.stage)?;
                copies = (copies.0 + bus, copies.1 + host);
            }
        }
        Ok(copies)
    }
}

/// Copies `out.len()` entries of `buf` from `at` into `out`: straight where `out` is
/// page-locked (`locked`), else through the page-locked buffer `stage` (made or grown as
/// needed), the host's part in parallel; returns the seconds of each half (for
/// `WARPGRAPH_TRACE`).
fn copy_out(
    gpu: &Gpu,
    buf: &CudaSlice<u32>,
    at: usize,
    out: &mut [u32],
    locked: bool,
    stage: &mut Option<PinnedHostSlice<u32>>,
) -> Result<(f64, f64)> {
    let t = Instant::now();
    if locked {
        gpu.download_from(buf, at, out)?;
        return Ok((t.elapsed().as_secs_f64(), 0.0));
    }
    if stage.as_ref().is_none_or(|s| s.len() < out.len()) {
        *stage = Some(gpu.pinned(out.len())?);
    }
    let stage = stage.as_mut().expect("made above");
    let staged = gpu.read_pinned_from(buf, at, out.len(), stage)?;
    let bus = t.elapsed().as_secs_f64();
    out.par_iter_mut()
        .zip(staged.par_iter())
        .for_each(|(o, s)| *o = *s);
    Ok((bus, t.elapsed().as_secs_f64() - bus))
}
