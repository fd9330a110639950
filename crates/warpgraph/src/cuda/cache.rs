//! The kernel cache: the PTX NVRTC made of a kernel file, kept on disk so that the next
//! process loads it instead of compiling again (NVRTC takes seconds for `bfs.cu`, every
//! process). The driver keeps its own cache of the machine code it makes of the PTX
//! (`~/.nv/ComputeCache`), so a process that finds both starts its kernels in milliseconds.
//!
//! Where: `$WARPGRAPH_KERNEL_CACHE` (`off` for none), else `$XDG_CACHE_HOME/warpgraph/
//! kernels`, else `~/.cache/warpgraph/kernels`. A file's name holds a hash of everything
//! the PTX depends on (the source with `common.cuh`, NVRTC's options and version,
//! warpgraph's version), so a changed kernel or compiler never meets an old file. The
//! cache only saves time: a file that cannot be read, written or loaded is compiled anew.

use std::path::{Path, PathBuf};

/// The cache's folder, made if missing; `None` where it is turned off or cannot be made.
pub(super) fn dir() -> Option<PathBuf> {
    let dir = crate::settings::get().kernel_cache.clone()?;
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir)
}

/// The file for the PTX of kernel file `name` made from `parts` (everything it depends
/// on) in `dir`.
pub(super) fn path(dir: &Path, name: &str, parts: &[&[u8]]) -> PathBuf {
    dir.join(format!("{name}-{:016x}.ptx", fnv1a(parts)))
}

/// The PTX kept at `path`, if any (a file without a kernel entry is not taken).
pub(super) fn load(path: &Path) -> Option<String> {
    let ptx = std::fs::read_to_string(path).ok()?;
    ptx.contains(".entry").then_some(ptx)
}

/// Keeps `ptx` at `path`, written whole under another name first, then renamed: a
/// process reading it at the same time sees the old file or the new one, never a part.
pub(super) fn store(path: &Path, ptx: &str) {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, ptx).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Forgets the file at `path` (one the driver refused).
pub(super) fn forget(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// 64-bit FNV-1a of the parts, each followed by its length (so that no two different
/// lists of parts run together into the same bytes).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for p in parts {
        p.iter().copied().for_each(&mut eat);
        (p.len() as u64)
            .to_le_bytes()
            .into_iter()
            .for_each(&mut eat);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_with_any_part_and_files_round_trip() {
        let dir = std::env::temp_dir().join(format!("wg-kernel-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = path(&dir, "bfs", &[b"src", b"sm_90"]);
        assert_ne!(a, path(&dir, "bfs", &[b"src", b"sm_80"]));
        assert_ne!(a, path(&dir, "bfs", &[b"sr", b"csm_90"]));
        assert_eq!(a, path(&dir, "bfs", &[b"src", b"sm_90"]));
        assert_eq!(load(&a), None);
        store(&a, ".visible .entry k()\n{ ret; }\n");
        assert_eq!(load(&a).as_deref(), Some(".visible .entry k()\n{ ret; }\n"));
        // Not PTX of a kernel: not taken.
        store(&a, "garbage");
        assert_eq!(load(&a), None);
        forget(&a);
        assert!(!a.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
