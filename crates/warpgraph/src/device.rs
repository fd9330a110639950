//! Where an algorithm runs.
//!
//! `cpu` is every core (rayon); `cuda` / `cuda:N` is an NVIDIA GPU; `auto` takes the
//! first GPU when there is one, the algorithm has GPU code and the graph is large enough
//! for the GPU to win back its start ([`AUTO_GPU_MIN_ARCS`]), and the CPU otherwise,
//! saying which in one line.
//!
//! Opening a GPU (the driver's start and a context) takes a noticeable part of a second:
//! [`Device::open_early`] starts it on another thread, so that it overlaps the caller's
//! own work (loading the graph); resolving the device later finds the GPU open, or waits
//! for the rest of its start.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::thread::JoinHandle;

use crate::cuda;
use crate::error::{Error, Result};

/// A device choice as the user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// The best device present.
    #[default]
    Auto,
    /// The CPU, all threads of the current rayon pool.
    Cpu,
    /// The GPU of this CUDA ordinal.
    Cuda(usize),
}

/// Graphs with fewer arcs than this run on the CPU under `auto`, whatever the estimate of
/// [`Work`] says: below it a search on all cores ends before a GPU has received the graph.
pub const AUTO_GPU_MIN_ARCS: u64 = 1 << 22;

/// Seconds a process waits for a GPU's start (the driver's start and a context, and their
/// end at exit): 0.1 + 0.12 + 0.06 s measured on an H200 with persistence mode on.
const GPU_START_SECONDS: f64 = 0.28;

/// Bytes a second the host copies a graph to a GPU (pageable memory, measured on an H200).
const UPLOAD_BYTES_PER_SECOND: f64 = 6e9;

/// What `auto` weighs for one run on a graph: a GPU's start and the graph's upload
/// against the CPU's time for the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    /// The graph's arcs.
    pub arcs: u64,
    /// The graph's vertices.
    pub vertices: u64,
    /// Arcs a second one CPU thread gets through in this algorithm (each algorithm's
    /// `CPU_ARCS_PER_THREAD_SECOND`, measured on Kronecker graphs).
    pub cpu_arcs_per_thread_second: f64,
}

impl Work {
    /// Whether the CPU is expected to finish before a GPU that is not yet open could start,
    /// receive the graph and search it (the search itself taken as free on the GPU).
    fn cpu_wins(&self, gpu_open: bool) -> bool {
        let threads = rayon::current_num_threads() as f64;
        let cpu = self.arcs as f64 / (self.cpu_arcs_per_thread_second * threads);
        let bytes = self.arcs as f64 * 8.0 + self.vertices as f64 * 8.0;
        let start = if gpu_open { 0.0 } else { GPU_START_SECONDS };
        self.arcs < AUTO_GPU_MIN_ARCS || cpu < start + bytes / UPLOAD_BYTES_PER_SECOND
    }
}

/// GPU starts begun by [`Device::open_early`] and not yet waited for.
static EARLY: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for every GPU start [`Device::open_early`] began; returns whether there was one.
fn wait_for_early_starts() -> bool {
    let started = std::mem::take(&mut *EARLY.lock().unwrap_or_else(|e| e.into_inner()));
    let any = !started.is_empty();
    for h in started {
        let _ = h.join();
    }
    any
}

impl Device {
    /// Starts opening the GPU this choice may run on (`cuda:N`, or GPU 0 for `auto` where
    /// one is present) on another thread, and returns at once; the CPU needs no start.
    /// [`Device::resolve`] and [`Device::resolve_for`] wait for it; an error of the start
    /// is reported by them (they open the GPU again).
    pub fn open_early(self) {
        let ordinal = match self {
            Device::Cpu => return,
            Device::Auto => 0,
            Device::Cuda(i) => i,
        };
        let start = std::thread::spawn(move || {
            if cuda::unavailable_reason().is_none() {
                let _ = cuda::Gpu::open(ordinal);
            }
        });
        EARLY.lock().unwrap_or_else(|e| e.into_inner()).push(start);
    }

    /// [`Device::resolve`] for one run of `work`: `auto` also takes the CPU where it is
    /// expected to finish before a GPU could start (unless one is open in this process
    /// already), receive the graph and search it, and always for a graph of fewer than
    /// [`AUTO_GPU_MIN_ARCS`] arcs, saying so.
    ///
    /// # Errors
    /// As [`Device::resolve`].
    ///
    /// ```
    /// use warpgraph::device::{Device, Work};
    /// let work = Work { arcs: 1000, vertices: 100, cpu_arcs_per_thread_second: 1e8 };
    /// let (d, note) = Device::Auto.resolve_for("BFS", true, &work).unwrap();
    /// assert_eq!(d, Device::Cpu);
    /// assert!(note.unwrap().contains("1000 arcs"));
    /// ```
    pub fn resolve_for(
        self,
        what: &str,
        gpu_code: bool,
        work: &Work,
    ) -> Result<(Device, Option<String>)> {
        if self == Device::Auto && gpu_code {
            // A start begun for this run is part of its cost, even when it is over.
            let started_now = wait_for_early_starts();
            if work.cpu_wins(!started_now && cuda::Gpu::is_open(0)) {
                let threads = rayon::current_num_threads();
                return Ok((
                    Device::Cpu,
                    Some(format!(
                        "device auto: using the CPU ({threads} threads): on the graph's {} \
                         arcs, {what} ends there before a GPU could start and receive the \
                         graph (--device cuda runs it there)",
                        work.arcs
                    )),
                ));
            }
        }
        self.resolve(what, gpu_code)
    }

    /// The device to run `what` on, with a one-line note when `auto` chose for the user.
    ///
    /// `gpu_code` says whether `what` (e.g. "SSSP") has a GPU implementation: `auto` then
    /// takes GPU 0 when one is usable, and the CPU otherwise.
    ///
    /// # Errors
    /// For `cuda:N`: [`Error::NoGpu`] when there is no such usable GPU (with the reason),
    /// [`Error::Unsupported`] when `what` has no GPU code.
    ///
    /// # Example
    /// ```
    /// use warpgraph::device::Device;
    /// assert_eq!(Device::Cpu.resolve("BFS", true).unwrap(), (Device::Cpu, None));
    /// let (d, note) = Device::Auto.resolve("BFS", false).unwrap();
    /// assert_eq!(d, Device::Cpu);
    /// assert!(note.unwrap().contains("no GPU code"));
    /// ```
    pub fn resolve(self, what: &str, gpu_code: bool) -> Result<(Device, Option<String>)> {
        wait_for_early_starts();
        let threads = rayon::current_num_threads();
        match self {
            Device::Auto if !gpu_code => Ok((
                Device::Cpu,
                Some(format!(
                    "device auto: using the CPU ({threads} threads); {what} has no GPU code yet"
                )),
            )),
            Device::Auto => match cuda::unavailable_reason() {
                None => {
                    let gpu = cuda::Gpu::open(0)?;
                    Ok((
                        Device::Cuda(0),
                        Some(format!("device auto: using {}", gpu.describe())),
                    ))
                }
                Some(why) => Ok((
                    Device::Cpu,
                    Some(format!(
                        "device auto: using the CPU ({threads} threads); no GPU: {why}"
                    )),
                )),
            },
            Device::Cuda(_) if !gpu_code => Err(Error::Unsupported(format!(
                "{what} has no GPU code yet: use --device cpu (or auto)"
            ))),
            Device::Cuda(i) => {
                cuda::Gpu::open(i)?;
                Ok((self, None))
            }
            Device::Cpu => Ok((self, None)),
        }
    }

    /// The GPU a resolved device names (opened, or the one already open), `None` for the
    /// CPU (and for `Auto`, which is resolved first).
    ///
    /// # Errors
    /// As [`cuda::Gpu::open`].
    ///
    /// ```
    /// use warpgraph::device::Device;
    /// assert!(Device::Cpu.gpu().unwrap().is_none());
    /// ```
    pub fn gpu(self) -> Result<Option<std::sync::Arc<cuda::Gpu>>> {
        match self {
            Device::Cuda(i) => cuda::Gpu::open(i).map(Some),
            Device::Cpu | Device::Auto => Ok(None),
        }
    }

    /// The device in words, e.g. `cpu (16 threads)` or `cuda:0 (NVIDIA H100 80GB HBM3)`.
    pub fn describe(self) -> String {
        match self {
            Device::Auto => "auto".into(),
            Device::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Device::Cuda(i) => match cuda::Gpu::open(i) {
                Ok(gpu) => gpu.describe(),
                Err(_) => format!("cuda:{i}"),
            },
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Auto => f.write_str("auto"),
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl FromStr for Device {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(0)),
            _ => match s.strip_prefix("cuda:").map(str::parse::<usize>) {
                Some(Ok(i)) => Ok(Device::Cuda(i)),
                _ => Err(Error::InvalidArgument(format!(
                    "unknown device '{s}' (expected auto, cpu, cuda or cuda:N)"
                ))),
            },
        }
    }
}

/// How long one search took.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunTimes {
    /// The whole search, result on the host (on a GPU: kernels, the host's decisions
    /// between levels and the copy back; not the one-time upload).
    pub seconds: f64,
    /// On a GPU, the kernels alone, by CUDA events.
    pub kernel_seconds: Option<f64>,
}

impl From<cuda::GpuTimes> for RunTimes {
    /// A GPU's times: the whole call, and its kernels.
    fn from(t: cuda::GpuTimes) -> RunTimes {
        RunTimes {
            seconds: t.total_seconds,
            kernel_seconds: Some(t.kernel_seconds),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse() {
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert_eq!("auto".parse::<Device>().unwrap(), Device::Auto);
        assert_eq!("cuda".parse::<Device>().unwrap(), Device::Cuda(0));
        assert_eq!("cuda:3".parse::<Device>().unwrap(), Device::Cuda(3));
        for bad in ["tpu", "cuda:", "cuda:x", "cuda:-1", "CPU"] {
            let e = bad.parse::<Device>().unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("cuda:N"), "{e}");
        }
        for d in [Device::Auto, Device::Cpu, Device::Cuda(2)] {
            assert_eq!(d.to_string().parse::<Device>().unwrap(), d);
        }
    }

    fn d_auto() -> Device {
        if cuda::available() {
            Device::Cuda(0)
        } else {
            Device::Cpu
        }
    }

    #[test]
    fn resolving() {
        assert_eq!(
            Device::Cpu.resolve("MST", false).unwrap(),
            (Device::Cpu, None)
        );
        let e = Device::Cuda(0).resolve("MST", false).unwrap_err();
        assert!(e.to_string().contains("no GPU code"), "{e}");
        let (d, note) = Device::Auto.resolve("BFS", true).unwrap();
        let note = note.unwrap();
        if cuda::available() {
            assert_eq!(d, Device::Cuda(0));
            assert!(note.contains("cuda:0"), "{note}");
        } else {
            assert_eq!(d, Device::Cpu);
            assert!(note.contains("no GPU"), "{note}");
            let e = Device::Cuda(0).resolve("BFS", true).unwrap_err();
            assert!(matches!(e, Error::NoGpu(_)), "{e}");
        }
        // Small graphs stay on the CPU under auto, whatever the machine has.
        let work = |arcs, rate| Work {
            arcs,
            vertices: arcs / 16,
            cpu_arcs_per_thread_second: rate,
        };
        let (d, note) = Device::Auto
            .resolve_for("BFS", true, &work(10, 1e9))
            .unwrap();
        assert_eq!(d, Device::Cpu);
        assert!(note.unwrap().contains("10 arcs"));
        // A big graph with a slow CPU algorithm goes where auto would put any run; one
        // the CPU searches faster than a GPU starts stays on the CPU.
        let slow = work(1 << 30, 1e6);
        assert_eq!(
            Device::Auto.resolve_for("SSSP", true, &slow).unwrap(),
            Device::Auto.resolve("SSSP", true).unwrap()
        );
        let fast = work(AUTO_GPU_MIN_ARCS, 1e12);
        assert_eq!(
            Device::Auto.resolve_for("BFS", true, &fast).unwrap().0,
            Device::Cpu
        );
        assert_eq!(
            Device::Cpu.resolve_for("BFS", true, &slow).unwrap(),
            (Device::Cpu, None)
        );
        // An early start is waited for; on a machine without a GPU it does nothing.
        Device::Auto.open_early();
        Device::Cpu.open_early();
        assert_eq!(Device::Auto.resolve("BFS", true).unwrap().0, d_auto());
        // No machine has a GPU numbered this high.
        let e = Device::Cuda(999).resolve("BFS", true).unwrap_err();
        assert!(matches!(e, Error::NoGpu(_)), "{e}");
    }
}
