//! The ExtractMin study: the CUDA SSSP thesis's Table 1, the time of one ExtractMin (the least of n
//! keys, with its position) for n = 1 .. 10^7.
//!
//! **Computes** one [`Row`] per size: the seconds of one ExtractMin by
//! - the GPU reduction of the thesis's Dijkstra at each block size asked for (128, 256, 512,
//!   1024 threads; [`super::cuda::extract_min`]), timed by CUDA events as the mean of
//!   [`GPU_REPS`] back to back, the keys already on the GPU;
//! - a serial CPU loop ([`loop_min`]; the thesis's "Loop", compiled optimised);
//! - a parallel CPU reduction on every core ([`parallel_min`]; how the CPU backend would);
//! - a binary heap: one pop from a heap of n keys (the thesis's "Heap"; the mean of up to
//!   1,024 pops, the heap built beforehand).
//!
//! **Method**: the keys are uniform random integers below 2^40 from a fixed seed. Each
//! figure is the median of the trials; every answer (value and position, the first on
//! ties) is checked against the serial loop before its time counts.
//!
//! ```
//! use warpgraph::sssp::extract_min::{study, StudyOptions};
//! let opts = StudyOptions { sizes: vec![1, 1000], trials: 3, ..StudyOptions::default() };
//! let rows = study(&opts, None, |_| {}).unwrap(); // None: the CPU columns only
//! assert_eq!(rows.len(), 2);
//! assert!(rows[1].cpu_loop > 0.0 && rows[1].gpu.is_empty());
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::cuda::extract_min::GpuExtractMin;
use super::cuda::{check_extract_min_threads, EXTRACT_MIN_THREADS};
use crate::bench::Summary;
use crate::cuda::Gpu;
use crate::error::{Error, Result};
use crate::generate::rng::Rng;

/// ExtractMins of each GPU trial (their mean is the trial's time).
pub const GPU_REPS: usize = 20;
/// The most pops the heap column times per trial.
const HEAP_POPS: usize = 1024;
/// CPU repetitions per trial: enough that a trial lasts about this many key reads.
const CPU_READS: usize = 10_000_000;

/// What the study measures.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyOptions {
    /// Numbers of keys (each at least 1, below 2^32 - 1).
    pub sizes: Vec<usize>,
    /// Trials per figure (the median is reported).
    pub trials: usize,
    /// GPU threads per block, each one of [`EXTRACT_MIN_THREADS`].
    pub threads: Vec<u32>,
    /// Seed of the keys.
    pub seed: u64,
}

impl Default for StudyOptions {
    /// The thesis's table: 1, 10, .., 10^7 keys, every block size, 5 trials.
    fn default() -> StudyOptions {
        StudyOptions {
            sizes: (0..8).map(|k| 10usize.pow(k)).collect(),
            trials: 5,
            threads: EXTRACT_MIN_THREADS.to_vec(),
            seed: 27491095,
        }
    }
}

/// The seconds of one ExtractMin over `size` keys, each the median of the trials.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Number of keys.
    pub size: usize,
    /// GPU reduction: (threads per block, seconds), in the order asked for; empty without
    /// a GPU.
    pub gpu: Vec<(u32, f64)>,
    /// Serial loop.
    pub cpu_loop: f64,
    /// Parallel reduction on every core.
    pub cpu_parallel: f64,
    /// One pop from a binary heap.
    pub cpu_heap: f64,
}

/// The least key and its position (the first on ties), by a serial loop; `None` for no
/// keys.
pub fn loop_min(keys: &[i64]) -> Option<(i64, usize)> {
    let mut best: Option<(i64, usize)> = None;
    for (i, &k) in keys.iter().enumerate() {
        if best.is_none_or(|(b, _)| k < b) {
            best = Some((k, i));
        }
    }
    best
}

/// The same as [`loop_min`], in parallel on every core.
pub fn parallel_min(keys: &[i64]) -> Option<(i64, usize)> {
    keys.par_iter().enumerate().map(|(i, &k)| (k, i)).min()
}

/// Runs the study, calling `on_row` with each row as it is done; `gpu` adds the GPU
/// columns.
///
/// # Errors
/// [`Error::InvalidArgument`] for a size of 0 or 2^32 - 1 and more, no trial or a block
/// size not in [`EXTRACT_MIN_THREADS`]; [`Error::Gpu`] or [`Error::OutOfMemory`] from the
/// GPU; [`Error::VerificationFailed`] should an answer differ from the serial loop's.
pub fn study(
    opts: &StudyOptions,
    gpu: Option<&Arc<Gpu>>,
    mut on_row: impl FnMut(&Row),
) -> Result<Vec<Row>> {
    if opts.trials == 0 {
        return Err(Error::InvalidArgument(
            "the study needs at least one trial".into(),
        ));
    }
    if let Some(&s) = opts
        .sizes
        .iter()
        .find(|&&s| s == 0 || s >= u32::MAX as usize)
    {
        return Err(Error::InvalidArgument(format!(
            "ExtractMin sizes run from 1 to 2^32 - 2, not {s}"
        )));
    }
    for &t in &opts.threads {
        check_extract_min_threads(t)?;
    }
    let mut rows = Vec::with_capacity(opts.sizes.len());
    for &size in &opts.sizes {
        let mut rng = Rng::new(opts.seed ^ size as u64);
        let keys: Vec<i64> = (0..size).map(|_| rng.below(1 << 40) as i64).collect();
        let want = loop_min(&keys).expect("size >= 1");
        let check = |what: &str, got: (i64, usize)| -> Result<()> {
            match got == want {
                true => Ok(()),
                false => Err(Error::VerificationFailed(format!(
                    "ExtractMin over {size} keys by {what}: got {got:?}, the loop {want:?}"
                ))),
            }
        };
        let median = |f: &mut dyn FnMut() -> Result<f64>| -> Result<f64> {
            let t = (0..opts.trials).map(|_| f()).collect::<Result<Vec<_>>>()?;
            Ok(Summary::of(&t).expect("trials >= 1").median)
        };
        let reps = (CPU_READS / size).clamp(1, 100_000);
        let cpu = |what: &str, f: fn(&[i64]) -> Option<(i64, usize)>| {
            median(&mut || {
                let start = Instant::now();
                let mut got = None;
                for _ in 0..reps {
                    got = f(black_box(&keys));
                }
                let seconds = start.elapsed().as_secs_f64() / reps as f64;
                check(what, got.expect("size >= 1"))?;
                Ok(seconds)
            })
        };
        let cpu_loop = cpu("the loop", loop_min)?;
        let cpu_parallel = cpu("the parallel reduction", parallel_min)?;
        let mut heap: BinaryHeap<Reverse<(i64, usize)>> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| Reverse((k, i)))
            .collect();
        let pops = size.min(HEAP_POPS);
        let cpu_heap = median(&mut || {
            let start = Instant::now();
            let popped: Vec<_> = (0..pops).map_while(|_| heap.pop()).collect();
            let seconds = start.elapsed().as_secs_f64() / pops as f64;
            check("the heap", popped[0].0)?;
            heap.extend(popped);
            Ok(seconds)
        })?;
        let mut gpu_times = Vec::new();
        if let Some(gpu) = gpu {
            let mut g = GpuExtractMin::new(gpu, &keys)?;
            g.time(opts.threads.first().copied().unwrap_or(512), 1)?; // warm-up
            for &threads in &opts.threads {
                let t = median(&mut || {
                    let (got, seconds) = g.time(threads, GPU_REPS)?;
                    check(&format!("the GPU at {threads} threads a block"), got)?;
                    Ok(seconds)
                })?;
                gpu_times.push((threads, t));
            }
        }
        let row = Row {
            size,
            gpu: gpu_times,
            cpu_loop,
            cpu_parallel,
            cpu_heap,
        };
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minima_take_the_first_of_ties() {
        let keys = [5, 3, 9, 3, 7];
        assert_eq!(loop_min(&keys), Some((3, 1)));
        assert_eq!(parallel_min(&keys), Some((3, 1)));
        assert_eq!(loop_min(&[]), None);
        assert_eq!(parallel_min(&[]), None);
        let big: Vec<i64> = (0..100_000).map(|i| (i * 7919) % 100_003 + 1).collect();
        let mut with_ties = big.clone();
        with_ties[77_777] = 0;
        with_ties[88_888] = 0;
        assert_eq!(parallel_min(&with_ties), Some((0, 77_777)));
        assert_eq!(parallel_min(&big), loop_min(&big));
    }

    #[test]
    fn study_refuses_bad_options() {
        let bad = |o: StudyOptions| study(&o, None, |_| {}).unwrap_err();
        let base = StudyOptions {
            sizes: vec![10],
            ..StudyOptions::default()
        };
        assert!(matches!(
            bad(StudyOptions {
                sizes: vec![0],
                ..base.clone()
            }),
            Error::InvalidArgument(_)
        ));
        assert!(matches!(
            bad(StudyOptions {
                trials: 0,
                ..base.clone()
            }),
            Error::InvalidArgument(_)
        ));
        assert!(matches!(
            bad(StudyOptions {
                threads: vec![100],
                ..base
            }),
            Error::InvalidArgument(_)
        ));
    }
}
