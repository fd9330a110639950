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

/// Graphs with fewer arcs than this run on the CPU under `auto`: below it, a search on all
/// cores takes less time than a GPU needs to start and receive the graph.
pub const AUTO_GPU_MIN_ARCS: u64 = 1 << 22;

/// GPU starts begun by [`Device::open_early`] and not yet waited for.
static EARLY: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for every GPU start [`Device::open_early`] began.
fn wait_for_early_starts() {
    let started = std::mem::take(&mut *EARLY.lock().unwrap_or_else(|e| e.into_inner()));
    for h in started {
        let _ = h.join();
    }
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

    /// [`Device::resolve`] for a graph of `arcs` arcs: `auto` also takes the CPU for a graph
    /// with fewer than [`AUTO_GPU_MIN_ARCS`] arcs, saying so.
    ///
    /// # Errors
    /// As [`Device::resolve`].
    ///
    /// ```
    /// use warpgraph::device::Device;
    /// let (d, note) = Device::Auto.resolve_for("BFS", true, 1000).unwrap();
    /// assert_eq!(d, Device::Cpu);
    /// assert!(note.unwrap().contains("1000 arcs"));
    /// ```
    pub fn resolve_for(
        self,
        what: &str,
        gpu_code: bool,
        arcs: u64,
    ) -> Result<(Device, Option<String>)> {
        if self == Device::Auto && gpu_code && arcs < AUTO_GPU_MIN_ARCS {
            wait_for_early_starts();
            let threads = rayon::current_num_threads();
            return Ok((
                Device::Cpu,
                Some(format!(
                    "device auto: using the CPU ({threads} threads); the graph's {arcs} arcs \
                     are fewer than a GPU needs to win back its start ({AUTO_GPU_MIN_ARCS}; \
                     --device cuda runs it there)"
                )),
            ));
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
        let (d, note) = Device::Auto.resolve_for("BFS", true, 10).unwrap();
        assert_eq!(d, Device::Cpu);
        assert!(note.unwrap().contains("10 arcs"));
        let big = AUTO_GPU_MIN_ARCS;
        assert_eq!(
            Device::Auto.resolve_for("BFS", true, big).unwrap(),
            Device::Auto.resolve("BFS", true).unwrap()
        );
        assert_eq!(
            Device::Cpu.resolve_for("BFS", true, big).unwrap(),
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
