//! Durable file writes: a file is written under a temporary sibling name, synced,
//! renamed into place, and its directory synced, so a process killed (or a machine
//! that loses power) at any instant leaves the old file or the new one, never a torn
//! one. The checkpoint bundle and the `checkpoint` state file are written this way.
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// `path` with `suffix` appended to its last component.
pub(crate) fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// A sibling temporary name for `path`: TF's `<name>.tempstate<random>`, with the
/// writer's process id first (`<name>.tempstate<pid>-<random>`), so that a later
/// writer can tell a killed writer's leftovers from a live writer's file.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    suffixed(path, &format!(".tempstate{}-{}", std::process::id(), h.finish()))
}

/// Whether `suffix` (what follows `.tempstate` in a temporary's name) names a
/// temporary whose writer is gone: one of ours (`<pid>-<digits>`) whose process no
/// longer exists. A live process's temporaries, those of other threads of this
/// process included, and names of other writers (TF's) are never touched.
pub(crate) fn is_stale_temporary(suffix: &[u8]) -> bool {
    let Some(dash) = suffix.iter().position(|&b| b == b'-') else { return false };
    let (pid, rest) = (&suffix[..dash], &suffix[dash + 1..]);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if !digits(pid) || !digits(rest) {
        return false;
    }
    std::str::from_utf8(pid).ok().and_then(|p| p.parse::<u32>().ok()).is_some_and(process_is_gone)
}

/// Whether no process `pid` exists (Linux: `kill(pid, 0)` fails with `ESRCH`).
/// Elsewhere every writer is assumed alive, so nothing is removed.
fn process_is_gone(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        if pid <= 0 {
            return false;
        }
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        !alive && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// Writes `bytes` to the temporary file `tmp` and syncs it (removed on failure).
pub(crate) fn write_synced(tmp: &Path, bytes: &[u8]) -> Result<()> {
    let written = File::create(tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(tmp);
        Error::Io(tmp.display().to_string(), e)
    })
}

/// Syncs the directory holding `path`, so renames and removals in it are durable.
pub fn sync_parent(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Directories cannot be opened for syncing on every platform; where they can't,
    // the rename is as durable as the platform makes it.
    if let Ok(d) = File::open(dir) {
        d.sync_all().map_err(Error::io(dir.display().to_string()))?;
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically and durably: a temporary file, synced, renamed
/// over `path`, then the directory synced. Several writers of one file may race (the
/// last rename wins, whole); temporary files that killed writers of `path` left are
/// removed first.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    remove_temporaries(path);
    let tmp = temp_path(path);
    write_synced(&tmp, bytes)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Io(path.display().to_string(), e));
    }
    sync_parent(path)
}

/// Removes the temporary siblings (`<name>.tempstate<pid>-<n>`) of `path` that
/// killed writers left behind.
pub fn remove_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    let mut stem = name.as_encoded_bytes().to_vec();
    stem.extend_from_slice(b".tempstate");
    for entry in listing.flatten() {
        let n = entry.file_name();
        let n = n.as_encoded_bytes();
        if n.starts_with(&stem) && is_stale_temporary(&n[stem.len()..]) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to disk now,
/// without waiting (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so the disk works
/// while the writer produces the rest and the final `fsync` has little left to wait
/// for. Elsewhere it does nothing (the final `fsync` does all the work).
pub fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else { return };
        // SAFETY: the descriptor is open for the call's duration (borrowed from `file`);
        // the call only schedules writeback and touches no memory of ours. Its result
        // is advisory: a failure leaves the work to the final fsync.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, offset, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_writers_of_one_file_never_remove_each_others_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint");
        let writers: Vec<_> = (0..4u8)
            .map(|w| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..50u8 {
                        write_atomically(&path, &[w, i]).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        assert_eq!(std::fs::read(&path).unwrap().len(), 2);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporaries left");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_temporaries_of_dead_writers_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let live = std::process::id();
        for suffix in [format!("{dead}-17"), format!("{live}-17"), "12345".to_string()] {
            std::fs::write(suffixed(&path, &format!(".tempstate{suffix}")), b"x").unwrap();
        }
        remove_temporaries(&path);
        let mut left: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        let mut want = ["checkpoint.tempstate12345".to_string(), format!("checkpoint.tempstate{live}-17")];
        want.sort();
        assert_eq!(left, want, "a live writer's and another program's temporaries stay");
    }
}
