//! Where an algorithm runs.
//!
//! Today warpgraph runs on the CPU (all cores, rayon). `auto` picks the best device
//! present; the CUDA backend will extend this enum, and `auto` will prefer a GPU.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A device choice as the user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// The best device present.
    #[default]
    Auto,
    /// The CPU, all threads of the current rayon pool.
    Cpu,
}

impl Device {
    /// The device `auto` stands for on this machine, with a one-line explanation when the
    /// choice was made for the user.
    pub fn resolve(self) -> (Device, Option<String>) {
        match self {
            Device::Auto => (
                Device::Cpu,
                Some(format!(
                    "device auto: using the CPU ({} threads); this build has no GPU backend",
                    rayon::current_num_threads()
                )),
            ),
            d => (d, None),
        }
    }

    /// The device in words, e.g. `cpu (16 threads)`.
    pub fn describe(self) -> String {
        match self {
            Device::Auto => "auto".into(),
            Device::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Device::Auto => "auto",
            Device::Cpu => "cpu",
        })
    }
}

impl FromStr for Device {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            s if s == "cuda" || s.starts_with("cuda:") => Err(Error::Unsupported(format!(
                "device '{s}': this build of warpgraph has no CUDA backend yet; use --device cpu"
            ))),
            _ => Err(Error::InvalidArgument(format!(
                "unknown device '{s}' (expected auto or cpu)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_and_resolve() {
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert!("cuda:0"
            .parse::<Device>()
            .unwrap_err()
            .to_string()
            .contains("no CUDA backend"));
        assert!("tpu".parse::<Device>().is_err());
        let (d, note) = Device::Auto.resolve();
        assert_eq!(d, Device::Cpu);
        assert!(note.unwrap().contains("CPU"));
        assert_eq!(Device::Cpu.resolve(), (Device::Cpu, None));
    }
}
