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

/// A sibling temporary name for `path` (TF's `<name>.tempstate<random>`).
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    suffixed(path, &format!(".tempstate{}", h.finish()))
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
/// over `path`, then the directory synced.
///
/// Temporary files that killed writers of `path` left are removed first (one writer
/// per file is assumed, as for TF's `checkpoint` state file).
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

/// Removes the temporary siblings (`<name>.tempstate<n>`) of `path` that killed
/// writers left behind.
pub fn remove_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    let mut stem = name.as_encoded_bytes().to_vec();
    stem.extend_from_slice(b".tempstate");
    for entry in listing.flatten() {
        let n = entry.file_name();
        let n = n.as_encoded_bytes();
        if n.len() > stem.len() && n.starts_with(&stem) && n[stem.len()..].iter().all(u8::is_ascii_digit) {
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
