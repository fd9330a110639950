//! Output files that appear whole or not at all.
//!
//! [`OutputFile::create`] opens a temporary file `.NAME.tmp-PID` in the folder of `NAME`
//! (the same file system, so the final rename is atomic); [`OutputFile::commit`] renames
//! it to `NAME` once everything is written. A file dropped without a commit (an error, a
//! panic) is removed, so `NAME` is always either what it was before, untouched, or the
//! complete new file.
//!
//! A process stopped by a signal runs no destructors. So the temporary files alive at any
//! moment are also listed in a fixed table that a signal handler can read without locking
//! or allocating, and [`remove_on_signals`] installs a handler for SIGINT (Ctrl-C),
//! SIGTERM and SIGHUP that deletes them and ends the process with status 128 + the signal
//! (130 for Ctrl-C, 143 for SIGTERM). The command-line tool installs it at start; a
//! program embedding the library decides for itself.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A file being written under a temporary name, renamed into place by [`commit`].
///
/// [`commit`]: OutputFile::commit
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    path: PathBuf,
    temp: PathBuf,
    slot: Option<usize>,
    done: bool,
}

impl OutputFile {
    /// Creates the temporary file for `path` in `path`'s folder (`path` itself is not
    /// touched until [`commit`](OutputFile::commit)).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` when the folder does not exist or cannot be written;
    /// [`Error::InvalidArgument`] when `path` names no file (`/`, `..`).
    pub fn create(path: impl AsRef<Path>) -> Result<OutputFile> {
        let path = path.as_ref();
        let Some(name) = path.file_name() else {
            return Err(Error::InvalidArgument(format!(
                "{}: not a file name to write to",
                path.display()
            )));
        };
        let pid = std::process::id();
        for k in 0u32.. {
            let mut t = std::ffi::OsString::from(".");
            t.push(name);
            t.push(format!(".tmp-{pid}"));
            if k > 0 {
                t.push(format!("-{k}"));
            }
            let temp = path.with_file_name(t);
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    let slot = signals::register(&temp);
                    return Ok(OutputFile {
                        file,
                        path: path.to_path_buf(),
                        temp,
                        slot,
                        done: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && k < 1000 => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        unreachable!("the loop returns")
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary name the data is written under until the commit.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The open temporary file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Renames the temporary file to the final name, replacing any file there.
    ///
    /// # Errors
    /// [`Error::Io`] naming the final path when the rename fails (the temporary file is
    /// then removed).
    pub fn commit(mut self) -> Result<()> {
        std::fs::rename(&self.temp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        self.done = true;
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.temp);
        }
        // Only now: a signal until here still finds the file to remove.
        if let Some(slot) = self.slot {
            signals::unregister(slot);
        }
    }
}

/// Installs (once) the handler for SIGINT, SIGTERM and SIGHUP that removes the temporary
/// files of every live [`OutputFile`] and ends the process with status 128 + the signal.
/// A signal the process ignores (SIGHUP under `nohup`) stays ignored. Nothing happens on
/// platforms other than Unix.
pub fn remove_on_signals() {
    signals::install();
}

#[cfg(unix)]
mod signals {
    //! The table of live temporary files, as C strings a signal handler can pass to
    //! `unlink` (which is async-signal-safe, as are `write` and `_exit`).

    use std::ffi::{c_char, c_int, CString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::ptr::null_mut;
    use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::SeqCst};

    /// More outputs than this at once go unlisted (they are still removed on errors).
    const SLOTS: usize = 64;
    static TEMPS: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];
    /// Set by the handler before it reads the table: from then on no name is freed.
    static CLEANING: AtomicBool = AtomicBool::new(false);

    /// Lists `path`; the slot to [`unregister`] it with, or `None` when the table is full.
    pub fn register(path: &Path) -> Option<usize> {
        let c = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
        for (i, slot) in TEMPS.iter().enumerate() {
            if slot.compare_exchange(null_mut(), c, SeqCst, SeqCst).is_ok() {
                return Some(i);
            }
        }
        // SAFETY: `c` came from `into_raw` above and was stored nowhere.
        drop(unsafe { CString::from_raw(c) });
        None
    }

    /// Takes slot `i`'s name out of the table.
    pub fn unregister(i: usize) {
        let Some(slot) = TEMPS.get(i) else { return };
        let c = slot.swap(null_mut(), SeqCst);
        // A handler that started before the swap may be reading the name: leak it then
        // (the process is ending anyway). One that starts after it finds the slot empty.
        if !c.is_null() && !CLEANING.load(SeqCst) {
            // SAFETY: `c` came from `into_raw` in `register`, and the swap made this the
            // only owner.
            drop(unsafe { CString::from_raw(c) });
        }
    }

    extern "C" fn on_signal(sig: c_int) {
        CLEANING.store(true, SeqCst);
        let mut removed = false;
        for slot in &TEMPS {
            let c = slot.load(SeqCst);
            // SAFETY: a non-null slot holds a NUL-terminated name that is not freed once
            // CLEANING is set.
            if !c.is_null() && unsafe { libc::unlink(c) } == 0 {
                removed = true;
            }
        }
        let msg: &[u8] = if removed {
            b"\ninterrupted: the unfinished output was removed\n"
        } else {
            b"\ninterrupted\n"
        };
        // SAFETY: write and _exit are async-signal-safe; the buffer is static.
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(128 + sig);
        }
    }

    pub fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: plain sigaction calls on zeroed structs; the handler only uses
                // async-signal-safe calls and atomics.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction == libc::SIG_IGN
                    {
                        continue;
                    }
                    let mut act: libc::sigaction = std::mem::zeroed();
                    act.sa_sigaction = on_signal as extern "C" fn(c_int) as libc::sighandler_t;
                    libc::sigemptyset(&mut act.sa_mask);
                    for other in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                        libc::sigaddset(&mut act.sa_mask, other);
                    }
                    libc::sigaction(sig, &act, std::ptr::null_mut());
                }
            }
        });
    }
}

#[cfg(not(unix))]
mod signals {
    //! No signal handling: temporary files are removed on errors only.

    pub fn register(_path: &std::path::Path) -> Option<usize> {
        None
    }

    pub fn unregister(_i: usize) {}

    pub fn install() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn commit_renames_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.tsv");
        std::fs::write(&path, "old").unwrap();
        let mut f = OutputFile::create(&path).unwrap();
        let temp = f.temp_path().to_path_buf();
        assert_eq!(
            temp.file_name().unwrap().to_string_lossy(),
            format!(".out.tsv.tmp-{}", std::process::id())
        );
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["out.tsv"]);

        // Dropped without a commit: the old file stays, the temporary one goes.
        let mut f = OutputFile::create(&path).unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["out.tsv"]);
    }

    #[test]
    fn two_at_once_get_two_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.npy");
        let a = OutputFile::create(&path).unwrap();
        let b = OutputFile::create(&path).unwrap();
        assert_ne!(a.temp_path(), b.temp_path());
        assert_eq!(names(dir.path()).len(), 2);
        drop((a, b));
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn missing_folder_names_the_path() {
        let e = OutputFile::create("/nonexistent-folder-x/y.tsv").unwrap_err();
        assert!(
            e.to_string().starts_with("/nonexistent-folder-x/y.tsv: "),
            "{e}"
        );
        assert!(OutputFile::create("/").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn table_slots_are_reused() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..200 {
            let f = OutputFile::create(dir.path().join(format!("f{i}"))).unwrap();
            assert!(f.slot.is_some());
        }
    }
}
