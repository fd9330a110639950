//! `WARPGRAPH_TRACE`: each rank's levels, timed by events on its stream.

use cudarc::driver::CudaEvent;

use crate::cuda::{gpu_err, Gpu};
use crate::error::Result;

/// A level of a traced search (`WARPGRAPH_TRACE`), kept until the search is done.
pub(super) struct LevelMarks {
    /// The level, its direction and what it found.
    pub(super) line: String,
    /// The host's time for the level, from its decision to the counts.
    pub(super) host_ms: f64,
    /// Events on the GPU's stream at the level's start, after its expansion and at its
    /// end (none for a level the host expanded).
    pub(super) events: Option<[Option<CudaEvent>; 3]>,
    /// `WARPGRAPH_TRACE=2`: an event after each step of the level.
    pub(super) steps: Vec<(&'static str, CudaEvent)>,
}

/// Prints a rank's traced levels on stderr: each level's GPU time of the step, of the
/// exchange, the host's, and the GPU's wait for the host before it (from the last
/// level's end); with `WARPGRAPH_TRACE=2` each step's time.
pub(super) fn print_trace(rank: usize, levels: &[LevelMarks]) -> Result<()> {
    let mut ended: Option<&CudaEvent> = None;
    for l in levels {
        let Some([e0, e1, e2]) = &l.events else {
            eprintln!("rank {rank} {}; host {:.3} ms", l.line, l.host_ms);
            continue;
        };
        eprintln!(
            "rank {rank} {}; GPU {} ms, exchange {} ms, host {:.3} ms, GPU waiting before {} ms",
            l.line,
            between(e0.as_ref(), e1.as_ref())?,
            between(e1.as_ref(), e2.as_ref())?,
            l.host_ms,
            between(ended, e0.as_ref())?,
        );
        if !l.steps.is_empty() {
            let mut out = String::new();
            let mut last = e0.as_ref();
            for (name, e) in &l.steps {
                out += &format!(" {name} {}", between(last, Some(e))?);
                last = Some(e);
            }
            eprintln!("rank {rank} {}: steps{out}", l.line);
        }
        ended = e2.as_ref();
    }
    Ok(())
}

/// Marks the end of a level's step `name` in `steps` (`WARPGRAPH_TRACE=2`, else `None`).
pub(super) fn step(
    steps: &mut Option<Vec<(&'static str, CudaEvent)>>,
    gpu: &Gpu,
    name: &'static str,
) -> Result<()> {
    if let Some(steps) = steps {
        steps.push((name, mark(gpu, true)?.expect("marked")));
    }
    Ok(())
}

/// An event on `gpu`'s stream when tracing.
pub(super) fn mark(gpu: &Gpu, trace: bool) -> Result<Option<CudaEvent>> {
    trace.then(|| gpu.mark()).transpose()
}

/// Milliseconds between two trace events (once both are done).
pub(super) fn between(a: Option<&CudaEvent>, b: Option<&CudaEvent>) -> Result<String> {
    match (a, b) {
        (Some(a), Some(b)) => {
            b.synchronize().map_err(gpu_err)?;
            Ok(format!("{:.3}", a.elapsed_ms(b).map_err(gpu_err)?))
        }
        _ => Ok("-".into()),
    }
}

/// With `WARPGRAPH_TRACE`, once a process: each of its threads (the ranks', NCCL's, the
/// driver's) by name with the CPUs it may run on (Linux's `/proc/self/task`), for seeing
/// whether threads that spin share cores with those they wait for.
pub(super) fn print_threads_once() {
    static PRINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if crate::settings::get().trace == 0 || PRINTED.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        return;
    }
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let status = std::fs::read_to_string(path.join("status")).unwrap_or_default();
        let cpus = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap_or("?")
            .trim();
        eprintln!(
            "thread {} {:<16} CPUs {cpus}",
            task.file_name().to_string_lossy(),
            name.trim()
        );
    }
}
