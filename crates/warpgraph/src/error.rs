//! The library's error type.
//!
//! Every failure a user can cause (a malformed file, an absurd size, a vertex id out of
//! range, a NaN weight) is an [`Error`] value with enough context to act on: parse errors
//! name the file and the 1-based line, size errors say how much was needed and how much
//! there is. The library never panics on input.

use std::path::PathBuf;

/// Result alias used throughout warpgraph.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in warpgraph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A text file does not follow its format. `line` is 1-based.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        /// The file (or a stand-in name such as `<stdin>`).
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What was expected and what was found.
        msg: String,
    },

    /// A file is malformed in a way that has no line (binary formats, whole-file checks).
    #[error("{}: {msg}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },

    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// Something needs more memory than there is (checked before allocating).
    #[error("{what} needs {} but only {} is available", fmt_bytes(*.needed), fmt_bytes(*.available))]
    OutOfMemory {
        /// What was about to be allocated.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },

    /// An output file would not fit on its file system (checked before writing).
    #[error(
        "{}: the output needs {} but its file system has only {} free; write to a file \
         system with more room, or write less",
        path.display(), fmt_bytes(*.needed), fmt_bytes(*.free)
    )]
    NoSpace {
        /// The output file.
        path: PathBuf,
        /// Bytes the output needs (exact, or a safe upper bound).
        needed: u64,
        /// Bytes free on the file system that would hold it.
        free: u64,
    },

    /// A count exceeds what warpgraph's representation can hold.
    #[error("{what} is {value}, more than the limit of {limit}")]
    TooLarge {
        /// What was counted.
        what: String,
        /// The count.
        value: u64,
        /// The largest supported value.
        limit: u64,
    },

    /// An edge names a vertex that does not exist.
    #[error("edge {edge} names vertex {vertex}, but the graph has {num_vertices} vertices")]
    VertexOutOfRange {
        /// 0-based index of the edge in the input edge list.
        edge: u64,
        /// The offending vertex id.
        vertex: u64,
        /// Number of vertices.
        num_vertices: u64,
    },

    /// A weight is NaN or infinite.
    #[error("edge {edge} has weight {value}; weights must be finite numbers")]
    NonFiniteWeight {
        /// 0-based index of the edge.
        edge: u64,
        /// The weight as text.
        value: String,
    },

    /// A negative-weight cycle is reachable, so shortest paths are undefined.
    /// `cycle` lists its vertices in order (internal ids): each consecutive pair and the
    /// last-to-first pair are arcs, and their weights sum to `weight` < 0.
    #[error("a negative cycle is reachable: {} vertices, total weight {weight}", cycle.len())]
    NegativeCycle {
        /// The cycle's vertices, in order.
        cycle: Vec<u32>,
        /// The cycle's total weight, as text.
        weight: String,
    },

    /// The algorithm needs non-negative weights and the graph has a negative one.
    #[error("{algorithm} needs non-negative weights, but arc {from} -> {to} has weight {weight}; use bellman-ford")]
    NegativeWeight {
        /// The algorithm that refused.
        algorithm: String,
        /// Source of the arc (internal id).
        from: u32,
        /// Target of the arc (internal id).
        to: u32,
        /// The weight, as text.
        weight: String,
    },

    /// A sum of weights overflowed the distance type.
    #[error("distance overflow: {0}")]
    Overflow(String),

    /// A result failed its verifier (a bug in warpgraph: please report it).
    #[error("verification failed: {0}")]
    VerificationFailed(String),

    /// An argument is invalid (a bad option combination, an unknown name).
    #[error("{0}")]
    InvalidArgument(String),

    /// The request is understood but not supported.
    #[error("{0}")]
    Unsupported(String),

    /// A GPU was asked for and none can be used (no driver library, no device); the
    /// message says which.
    #[error("no usable GPU: {0}")]
    NoGpu(String),

    /// The CUDA driver refused a call. The message is the driver's error, after what was
    /// being done where the caller says (`context`, empty where it does not).
    #[error("GPU error: {context}{}{source}", if context.is_empty() { "" } else { ": " })]
    Driver {
        /// What was being done (a kernel being loaded, an exchange), or empty.
        context: String,
        /// The driver's error: its code and NVIDIA's words for it.
        #[source]
        source: cudarc::driver::DriverError,
    },

    /// A kernel file did not compile. The message holds NVRTC's log, whose lines name the
    /// file's own lines.
    #[error("GPU error: {file} did not compile for {arch}:\n{log}")]
    KernelCompile {
        /// The file, e.g. `bfs.cu`.
        file: String,
        /// The architecture compiled for, e.g. `sm_90`.
        arch: String,
        /// NVRTC's log.
        log: String,
        /// NVRTC's result code.
        #[source]
        source: cudarc::nvrtc::result::NvrtcError,
    },

    /// NVRTC failed on a kernel file other than by a compile error (creating the program,
    /// reading back its CUBIN).
    #[error("GPU error: NVRTC failed on {file}: {source}")]
    Nvrtc {
        /// The file, e.g. `bfs.cu`.
        file: String,
        /// NVRTC's result code.
        #[source]
        source: cudarc::nvrtc::result::NvrtcError,
    },

    /// A GPU computation went wrong in a way warpgraph itself detects (a kernel that
    /// reported a bad state, a kernel that cannot run on this GPU). Errors of the driver
    /// and of NVRTC are [`Error::Driver`], [`Error::KernelCompile`] and [`Error::Nvrtc`].
    #[error("GPU error: {0}")]
    Gpu(String),

    /// Several GPUs were asked for and they cannot work together: NCCL missing, a bad
    /// team description, or an NCCL call that failed (the message says which, with NCCL's
    /// code, its words for it and its last message: cudarc's NCCL error type is a bare
    /// code that is no [`std::error::Error`], so none is kept as a source).
    #[error("multi-GPU (NCCL): {0}")]
    Nccl(String),
}

impl Error {
    /// Shorthand for [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Shorthand for [`Error::Format`].
    pub fn format(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            msg: msg.into(),
        }
    }

    /// Shorthand for [`Error::Parse`].
    pub fn parse(path: impl Into<PathBuf>, line: u64, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }
}

/// Formats a byte count for people: `1.50 GiB`.
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_names_file_and_line() {
        let e = Error::parse("g.gr", 12, "expected 'a <u> <v> <w>', found 'a 1'");
        assert_eq!(
            e.to_string(),
            "g.gr:12: expected 'a <u> <v> <w>', found 'a 1'"
        );
    }

    /// The driver's and NVRTC's errors stay reachable as the source; the message reads as
    /// every GPU error does. (A driver error is not displayed here: its words come from the
    /// driver library, which a machine without a GPU lacks.)
    #[test]
    fn gpu_library_errors_keep_their_source() {
        use cudarc::driver::{sys::CUresult, DriverError};
        use cudarc::nvrtc::{result::NvrtcError, sys::nvrtcResult};
        use std::error::Error as _;

        let code = DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        let e = Error::Driver {
            context: "loading bfs.cu".into(),
            source: code,
        };
        let source = e.source().and_then(|s| s.downcast_ref::<DriverError>());
        assert_eq!(source, Some(&code));

        let nvrtc = NvrtcError(nvrtcResult::NVRTC_ERROR_COMPILATION);
        let e = Error::KernelCompile {
            file: "bfs.cu".into(),
            arch: "sm_90".into(),
            log: "bfs.cu(3): error: identifier \"x\" is undefined".into(),
            source: nvrtc,
        };
        assert_eq!(
            e.to_string(),
            "GPU error: bfs.cu did not compile for sm_90:\nbfs.cu(3): error: identifier \"x\" is undefined"
        );
        let source = e.source().and_then(|s| s.downcast_ref::<NvrtcError>());
        assert_eq!(source, Some(&nvrtc));
    }

    #[test]
    fn bytes_are_human_readable() {
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(3 << 29), "1.50 GiB");
    }
}
