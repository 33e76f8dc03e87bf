//! The writer thread and the capture directory it owns: files named so that their names sort oldest first
//! (`{unix milliseconds:013}-{sequence:08}.capture`), created with mode 0600, the total bytes of the directory's
//! capture files kept within `capture.max_bytes` by deleting the oldest first.
//!
//! The total is counted once at start (a scan of the directory's `*.capture` files) and then kept as the writer
//! writes and deletes; other files in the directory are neither counted nor touched.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

use bytes::Bytes;
use prometheus::{IntCounter, IntGauge};

use crate::capture::sample::Sample;

/// The target of this module's log lines (docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::capture";

/// The capture files' suffix.
const SUFFIX: &str = ".capture";

/// The capture directory: its files oldest first and their total size.
#[derive(Debug)]
pub struct Dir {
    path: PathBuf,
    max_bytes: u64,
    /// Each capture file's name and size in bytes, oldest (smallest name) first.
    files: VecDeque<(OsString, u64)>,
    /// The sum of `files`' sizes.
    total: u64,
    /// The next file's sequence number (names of one millisecond differ by it).
    seq: u64,
}

/// Why a sample was not written.
#[derive(Debug)]
pub enum WriteError {
    /// Larger than `capture.max_bytes` alone.
    TooLarge,
    /// The file could not be created or written (a full disk, a file size limit, permissions).
    Disk(io::Error),
}

impl Dir {
    /// The directory at `path` (created with mode 0700 if missing, with its parents), its capture files counted.
    ///
    /// # Errors
    /// It cannot be created or listed.
    pub fn open(path: &Path, max_bytes: u64) -> io::Result<Dir> {
        DirBuilder::new().recursive(true).mode(0o700).create(path)?;
        let mut files = Vec::new();
        for entry in fs::read_dir(path)? {
            let entry = entry?;
            let name = entry.file_name();
            if !name.to_string_lossy().ends_with(SUFFIX) {
                continue;
            }
            let meta = entry.metadata()?;
            if meta.is_file() {
                files.push((name, meta.len()));
            }
        }
        files.sort();
        let total = files.iter().map(|(_, n)| n).sum();
        Ok(Dir {
            path: path.to_owned(),
            max_bytes,
            files: files.into(),
            total,
            seq: 0,
        })
    }

    /// Bytes of the capture files now.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Writes one file of `parts` (in order) named for `now_ms`, deleting the oldest files first until it fits
    /// within `max_bytes`; returns how many files were deleted. A file that fails half-written is removed.
    ///
    /// # Errors
    /// [`WriteError::TooLarge`] (nothing deleted), [`WriteError::Disk`].
    pub fn write(&mut self, parts: &[Bytes], now_ms: u64) -> Result<u64, WriteError> {
        let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
        if len > self.max_bytes {
            return Err(WriteError::TooLarge);
        }
        let mut deleted = 0;
        while self.total + len > self.max_bytes {
            let Some((name, size)) = self.files.pop_front() else {
                break;
            };
            match fs::remove_file(self.path.join(&name)) {
                Ok(()) => deleted += 1,
                // Gone already (an operator cleaning up): its bytes are gone too.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    self.files.push_front((name, size));
                    return Err(WriteError::Disk(e));
                }
            }
            self.total -= size;
        }
        let (name, mut file) = loop {
            let name = OsString::from(format!("{now_ms:013}-{:08}{SUFFIX}", self.seq));
            self.seq += 1;
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(self.path.join(&name))
            {
                Ok(file) => break (name, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(WriteError::Disk(e)),
            }
        };
        let written = parts
            .iter()
            .try_for_each(|p| file.write_all(p))
            .and_then(|()| file.flush());
        if let Err(e) = written {
            drop(file);
            let _ = fs::remove_file(self.path.join(&name));
            return Err(WriteError::Disk(e));
        }
        self.files.push_back((name, len));
        self.total += len;
        Ok(deleted)
    }
}

/// The writer's counters: `bidscan_capture_written_total`, `bidscan_capture_deleted_total`,
/// `bidscan_capture_bytes` and the writer's two `bidscan_capture_dropped_total` reasons.
pub struct Counters {
    pub written: IntCounter,
    pub deleted: IntCounter,
    pub bytes: IntGauge,
    pub too_large: IntCounter,
    pub disk: IntCounter,
}

/// The writer thread's loop: each queued sample rendered and written into `dir`, until every sender is gone.
pub fn run(queue: Receiver<Sample>, mut dir: Dir, counters: Counters) {
    counters.bytes.set(dir.total() as i64);
    for sample in queue {
        let now_ms = sample.time_unix_ms;
        let parts = sample.render();
        match dir.write(&parts, now_ms) {
            Ok(deleted) => {
                counters.written.inc();
                counters.deleted.inc_by(deleted);
            }
            Err(WriteError::TooLarge) => counters.too_large.inc(),
            Err(WriteError::Disk(e)) => {
                tracing::warn!(target: LOG_TARGET, error = %e, dir = %dir.path.display(),
                    "cannot write a capture: dropped");
                counters.disk.inc();
            }
        }
        counters.bytes.set(dir.total() as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_oldest_go_first_and_the_total_stays_within_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("notes.txt"), b"not a capture").unwrap();
        fs::write(path.join("0000000000001-00000000.capture"), [0u8; 40]).unwrap();
        let mut dir = Dir::open(&path, 100).unwrap();
        assert_eq!(
            dir.total(),
            40,
            "the existing capture counted, the other file not"
        );
        let part = |n: usize| vec![Bytes::from(vec![b'x'; n])];
        assert_eq!(dir.write(&part(30), 2).unwrap(), 0);
        assert_eq!(dir.write(&part(30), 3).unwrap(), 0);
        assert_eq!(dir.total(), 100);
        // 100 + 30 > 100: the oldest (the one found at start) goes.
        assert_eq!(dir.write(&part(30), 4).unwrap(), 1);
        assert_eq!(dir.total(), 90);
        let left = names(&path);
        assert!(!left.contains(&"0000000000001-00000000.capture".to_owned()));
        assert!(left.contains(&"notes.txt".to_owned()));
        // Two deleted to fit 60.
        assert_eq!(dir.write(&part(60), 5).unwrap(), 2);
        assert_eq!(dir.total(), 90);
        assert!(matches!(
            dir.write(&part(101), 6),
            Err(WriteError::TooLarge)
        ));
        let captures: Vec<_> = names(&path)
            .into_iter()
            .filter(|n| n.ends_with(SUFFIX))
            .collect();
        assert_eq!(captures.len(), 2);
        let on_disk: u64 = captures
            .iter()
            .map(|n| fs::metadata(path.join(n)).unwrap().len())
            .sum();
        assert_eq!(on_disk, dir.total());
        for n in &captures {
            let mode = fs::metadata(path.join(n)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{n}");
        }
        // Names sort oldest first: the 30-byte file of ms 4, then the 60-byte file of ms 5.
        assert!(captures[0].starts_with("0000000000004-"));
        assert!(captures[1].starts_with("0000000000005-"));
    }

    #[test]
    fn a_missing_directory_is_made_private() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b");
        Dir::open(&path, 10).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}
