//! Settings from the environment: every `WARPGRAPH_*` variable warpgraph reads, read
//! once, here, into one typed [`Settings`] value.
//!
//! Everything else that tunes an algorithm is a field of that algorithm's options (for
//! example [`crate::bfs::BfsOptions`]), set from the Rust API or the CLI's flags. The
//! variables below are the ones that belong to the process or the machine rather than to a
//! call:
//!
//! | variable | what it sets | default |
//! |---|---|---|
//! | `WARPGRAPH_KERNEL_CACHE` | folder of compiled kernels (`off`: none) | `$XDG_CACHE_HOME/warpgraph/kernels`, else `~/.cache/warpgraph/kernels` |
//! | `WARPGRAPH_MEMORY_LIMIT` | host memory warpgraph may use, in bytes | what the system reports free |
//! | `WARPGRAPH_GPU_MEMORY_LIMIT` | device memory warpgraph may use, in bytes | what the driver reports free |
//! | `WARPGRAPH_TRACE` | `1`: each search's levels or passes on stderr; `2`: also each step's GPU time | off |
//! | `WARPGRAPH_NCCL_WORLD` | ranks in a team spread over several processes or hosts | one process |
//! | `WARPGRAPH_NCCL_FIRST_RANK` | this process's first rank in that team | `0` |
//! | `WARPGRAPH_NCCL_ID_FILE` | a file every process can read, where rank 0 leaves NCCL's id | none |
//! | `WARPGRAPH_NCCL_TIMEOUT` | seconds a team waits for a rank before it gives up | `300` |
//! | `WARPGRAPH_TEAM_ON_ONE_GPU` | `1`: a team's ranks share GPU 0 (to try a team on one GPU) | off |
//! | `WARPGRAPH_REQUIRE_GPU` | `1`: a GPU test that finds no GPU, NCCL or every GPU usable fails instead of skipping | off |
//! | `WARPGRAPH_REQUIRE_NVRTC` | `1`: the kernels' compile test fails instead of skipping without NVRTC | off |
//!
//! A value that cannot be parsed is not ignored: [`Settings::check`] names it, and the
//! CLI and every team refuse to start with it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use crate::error::{Error, Result};

/// The environment's settings (see the module's table).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Where compiled kernels are kept between processes; `None`: nowhere.
    pub kernel_cache: Option<PathBuf>,
    /// Host memory warpgraph may use, in bytes; `None`: what the system reports.
    pub memory_limit: Option<u64>,
    /// Device memory warpgraph may use, in bytes; `None`: what the driver reports.
    pub gpu_memory_limit: Option<u64>,
    /// Trace level: 0 off, 1 levels or passes, 2 also each step's time.
    pub trace: u8,
    /// A team spread over several processes (`WARPGRAPH_NCCL_*`).
    pub nccl: NcclSettings,
    /// A team's ranks share GPU 0.
    pub team_on_one_gpu: bool,
    /// GPU tests fail instead of skipping where no GPU, NCCL or GPU of the machine can be
    /// used.
    pub require_gpu: bool,
    /// The kernels' compile test fails instead of skipping where NVRTC is missing.
    pub require_nvrtc: bool,
    /// The variables whose values could not be parsed, each as its error message.
    pub invalid: Vec<String>,
}

/// How a team spread over several processes finds itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NcclSettings {
    /// Ranks in all, over every process; `None`: the team is this process's alone.
    pub world: Option<usize>,
    /// This process's first rank.
    pub first_rank: Option<usize>,
    /// Where rank 0 leaves NCCL's unique id for the other processes.
    pub id_file: Option<PathBuf>,
    /// How long a team waits for a rank before it gives up.
    pub timeout: Option<Duration>,
}

impl Settings {
    /// The settings `var` gives (`var(name)`: a variable's value, if set).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Settings {
        let mut invalid = Vec::new();
        let mut number = |name: &str, what: &str| -> Option<u64> {
            let v = var(name)?;
            match v.trim().parse::<u64>() {
                Ok(x) => Some(x),
                Err(_) => {
                    invalid.push(format!("{name}={v:?}: expected {what}"));
                    None
                }
            }
        };
        let memory_limit = number("WARPGRAPH_MEMORY_LIMIT", "a number of bytes");
        let gpu_memory_limit = number("WARPGRAPH_GPU_MEMORY_LIMIT", "a number of bytes");
        let world = number("WARPGRAPH_NCCL_WORLD", "a number of ranks");
        let first_rank = number("WARPGRAPH_NCCL_FIRST_RANK", "a rank number");
        let trace = number("WARPGRAPH_TRACE", "0, 1 or 2").map_or(0, |t| t.min(2) as u8);
        let mut flag = |name: &str| match var(name).as_deref().map(str::trim) {
            None | Some("0") | Some("") => false,
            Some("1") => true,
            Some(v) => {
                invalid.push(format!("{name}={v:?}: expected 0 or 1"));
                false
            }
        };
        let team_on_one_gpu = flag("WARPGRAPH_TEAM_ON_ONE_GPU");
        let require_gpu = flag("WARPGRAPH_REQUIRE_GPU");
        let require_nvrtc = flag("WARPGRAPH_REQUIRE_NVRTC");
        let timeout = var("WARPGRAPH_NCCL_TIMEOUT").and_then(|v| match v.trim().parse::<f64>() {
            Ok(s) if s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
            _ => {
                invalid.push(format!(
                    "WARPGRAPH_NCCL_TIMEOUT={v:?}: expected a number of seconds over 0"
                ));
                None
            }
        });
        Settings {
            kernel_cache: kernel_cache(&var),
            memory_limit,
            gpu_memory_limit,
            trace,
            nccl: NcclSettings {
                world: world.map(|w| w as usize),
                first_rank: first_rank.map(|r| r as usize),
                id_file: var("WARPGRAPH_NCCL_ID_FILE")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from),
                timeout,
            },
            team_on_one_gpu,
            require_gpu,
            require_nvrtc,
            invalid,
        }
    }

    /// The settings of this process's environment.
    pub fn from_env() -> Settings {
        Settings::from_vars(|name| std::env::var(name).ok())
    }

    /// Refuses settings with a value that could not be parsed.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the variable, its value and what it expects.
    pub fn check(&self) -> Result<()> {
        match self.invalid.as_slice() {
            [] => Ok(()),
            all => Err(Error::InvalidArgument(all.join("; "))),
        }
    }
}

/// The kernel cache's folder: `WARPGRAPH_KERNEL_CACHE` (`off` or empty: none), else
/// `$XDG_CACHE_HOME/warpgraph/kernels`, else `$HOME/.cache/warpgraph/kernels`.
fn kernel_cache(var: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match var("WARPGRAPH_KERNEL_CACHE") {
        Some(v) if v == "off" || v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        None => {
            let base = var("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))?;
            Some(base.join("warpgraph").join("kernels"))
        }
    }
}

/// This process's settings, read from the environment the first time they are asked for.
pub fn get() -> &'static Settings {
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    SETTINGS.get_or_init(Settings::from_env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(vars: &[(&str, &str)]) -> Settings {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn nothing_set_is_the_defaults() {
        let s = of(&[]);
        assert_eq!(s, Settings::default());
        assert!(s.check().is_ok());
    }

    #[test]
    fn every_variable_is_parsed() {
        let s = of(&[
            ("WARPGRAPH_KERNEL_CACHE", "/k"),
            ("WARPGRAPH_MEMORY_LIMIT", "1000"),
            ("WARPGRAPH_GPU_MEMORY_LIMIT", " 2000 "),
            ("WARPGRAPH_TRACE", "2"),
            ("WARPGRAPH_NCCL_WORLD", "4"),
            ("WARPGRAPH_NCCL_FIRST_RANK", "2"),
            ("WARPGRAPH_NCCL_ID_FILE", "/shared/id"),
            ("WARPGRAPH_NCCL_TIMEOUT", "2.5"),
            ("WARPGRAPH_TEAM_ON_ONE_GPU", "1"),
            ("WARPGRAPH_REQUIRE_GPU", "1"),
            ("WARPGRAPH_REQUIRE_NVRTC", "1"),
        ]);
        assert!(s.check().is_ok(), "{:?}", s.invalid);
        assert_eq!(s.kernel_cache, Some(PathBuf::from("/k")));
        assert_eq!(
            (s.memory_limit, s.gpu_memory_limit),
            (Some(1000), Some(2000))
        );
        assert_eq!(s.trace, 2);
        assert_eq!(s.nccl.world, Some(4));
        assert_eq!(s.nccl.first_rank, Some(2));
        assert_eq!(s.nccl.id_file, Some(PathBuf::from("/shared/id")));
        assert_eq!(s.nccl.timeout, Some(Duration::from_millis(2500)));
        assert!(s.team_on_one_gpu && s.require_gpu && s.require_nvrtc);
    }

    #[test]
    fn the_kernel_cache_follows_xdg_then_home_and_can_be_off() {
        let xdg = of(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]);
        assert_eq!(
            xdg.kernel_cache,
            Some(PathBuf::from("/x/warpgraph/kernels"))
        );
        let home = of(&[("HOME", "/h")]);
        assert_eq!(
            home.kernel_cache,
            Some(PathBuf::from("/h/.cache/warpgraph/kernels"))
        );
        let off = of(&[("WARPGRAPH_KERNEL_CACHE", "off"), ("HOME", "/h")]);
        assert_eq!(off.kernel_cache, None);
    }

    #[test]
    fn a_bad_value_is_named_not_ignored() {
        let s = of(&[
            ("WARPGRAPH_MEMORY_LIMIT", "lots"),
            ("WARPGRAPH_NCCL_TIMEOUT", "-1"),
            ("WARPGRAPH_REQUIRE_GPU", "yes"),
        ]);
        let e = s.check().unwrap_err().to_string();
        assert!(e.contains("WARPGRAPH_MEMORY_LIMIT=\"lots\""), "{e}");
        assert!(e.contains("WARPGRAPH_NCCL_TIMEOUT=\"-1\""), "{e}");
        assert!(e.contains("WARPGRAPH_REQUIRE_GPU=\"yes\""), "{e}");
        assert_eq!(s.memory_limit, None);
        assert!(!s.require_gpu);
    }
}
