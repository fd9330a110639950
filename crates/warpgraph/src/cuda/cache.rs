//! The kernel cache: the CUBIN (machine code) NVRTC made of a kernel file, kept on disk so
//! that the next process loads it instead of compiling again (NVRTC takes seconds for
//! `bfs.cu`, every process); a process that finds it starts its kernels in milliseconds.
//!
//! Where: `$WARPGRAPH_KERNEL_CACHE` (`off` for none), else `$XDG_CACHE_HOME/warpgraph/
//! kernels`, else `~/.cache/warpgraph/kernels`. A file's name holds a hash of everything
//! the CUBIN depends on (the source with `common.cuh`, NVRTC's options and version,
//! warpgraph's version), so a changed kernel or compiler never meets an old file. The
//! cache only saves time: a file that cannot be read, written or loaded is compiled anew.

use std::path::{Path, PathBuf};

/// The cache's folder, made if missing; `None` where it is turned off or cannot be made.
pub(super) fn dir() -> Option<PathBuf> {
    let dir = crate::settings::get().kernel_cache.clone()?;
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir)
}

/// The file for the CUBIN of kernel file `name` made from `parts` (everything it depends
/// on) in `dir`.
pub(super) fn path(dir: &Path, name: &str, parts: &[&[u8]]) -> PathBuf {
    dir.join(format!("{name}-{:016x}.cubin", fnv1a(parts)))
}

/// The CUBIN kept at `path`, if any (a file that is not an ELF image is not taken).
pub(super) fn load(path: &Path) -> Option<Vec<u8>> {
    let cubin = std::fs::read(path).ok()?;
    cubin.starts_with(b"\x7fELF").then_some(cubin)
}

/// Keeps `cubin` at `path`, written whole under another name first, then renamed: a
/// process reading it at the same time sees the old file or the new one, never a part.
pub(super) fn store(path: &Path, cubin: &[u8]) {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, cubin).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Forgets the file at `path` (one the driver refused).
pub(super) fn forget(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// 64-bit FNV-1a of the parts, each followed by its length (so that no two different
/// lists of parts run together into the same bytes).
pub(super) fn fnv1a(parts: &[&[u8]]) -> u64 {
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
        store(&a, b"\x7fELF\x02\x01 code");
        assert_eq!(load(&a).as_deref(), Some(&b"\x7fELF\x02\x01 code"[..]));
        // Not an ELF image: not taken.
        store(&a, b"garbage");
        assert_eq!(load(&a), None);
        forget(&a);
        assert!(!a.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
