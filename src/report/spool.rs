//! Rendered output held on disk until the run is done, so a report's size never becomes memory.
//!
//! Reporters that stream ([`super::stream`]) render each spec × transcript pair as soon as it is
//! checked, on the worker thread that checked it, into a [`Spool`]: one anonymous temporary file
//! (deleted by the OS when closed, also on a crash). Each rendered part is remembered as a list
//! of [`Piece`]s (offset and length in the file); once every pair is known and sorted, the parts
//! are copied to the output in that order. Memory per pair is then a few hundred bytes at most,
//! whatever its findings.
//!
//! The file is created only once the parts held in memory pass [`MEMORY_LIMIT`]: a small run
//! (a pre-commit hook's one spec and one transcript) never touches the disk, and a large one
//! holds at most that much in memory besides the file.
//!
//! If the temporary file cannot be created or written (no space, an unwritable `TMPDIR`), the
//! bytes that could not be written are kept in memory instead: the output is the same, only the
//! memory bound is lost. Reading the spool back can still fail (an I/O error); that is returned.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

/// Bytes a [`PartWriter`] gathers before it appends them to the spool file (one lock per chunk).
const CHUNK: usize = 64 << 10;

/// Rendered bytes a [`Spool::new`] keeps in memory before it creates its temporary file.
pub const MEMORY_LIMIT: usize = 4 << 20;

/// A temporary file that rendered parts are appended to, from any thread.
#[derive(Debug)]
pub struct Spool {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// `None` when no file could be created.
    file: Option<File>,
    /// Whether the file takes more bytes (`false` once a write failed: what it holds before
    /// `len` is still read back).
    writable: bool,
    /// Bytes appended to the file so far.
    len: u64,
    /// Bytes kept in memory so far.
    held: usize,
    /// While there is no file: how many bytes may be kept in memory before one is created
    /// (`None`: none will be).
    spill_after: Option<usize>,
}

/// A stretch of a rendered part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// `len` bytes at `offset` in the spool file.
    File {
        /// Byte offset in the spool file.
        offset: u64,
        /// Length in bytes.
        len: u64,
    },
    /// Bytes kept in memory because the spool file could not take them.
    Memory(Vec<u8>),
}

/// A rendered part: its pieces, in order.
pub type Part = Vec<Piece>;

impl Default for Spool {
    fn default() -> Self {
        Spool::new()
    }
}

impl Spool {
    /// A spool that keeps parts in memory up to [`MEMORY_LIMIT`] bytes, then in a new anonymous
    /// temporary file (in `TMPDIR`); if none can be created, in memory.
    pub fn new() -> Spool {
        Spool::spilling_after(MEMORY_LIMIT)
    }

    /// A spool that creates its temporary file once more than `limit` bytes would be kept in
    /// memory (`0`: with the first part).
    pub fn spilling_after(limit: usize) -> Spool {
        Spool::with(None, Some(limit))
    }

    /// A spool that keeps everything in memory (what [`Spool::new`] falls back to).
    pub fn in_memory() -> Spool {
        Spool::with(None, None)
    }

    #[cfg(test)]
    fn with_file(file: File) -> Spool {
        Spool::with(Some(file), None)
    }

    fn with(file: Option<File>, spill_after: Option<usize>) -> Spool {
        Spool {
            inner: Mutex::new(Inner {
                writable: file.is_some(),
                file,
                len: 0,
                held: 0,
                spill_after,
            }),
        }
    }

    /// Whether parts go to a file, now or once they pass the memory limit (`false`: the spool
    /// keeps everything in memory, because it was made so, or because the file could not be
    /// created or a write to it failed).
    pub fn on_disk(&self) -> bool {
        self.inner
            .lock()
            .is_ok_and(|i| i.writable || i.spill_after.is_some())
    }

    /// A writer for one part; [`PartWriter::finish`] gives the part.
    pub fn writer(&self) -> PartWriter<'_> {
        PartWriter {
            spool: self,
            buf: Vec::new(),
            part: Vec::new(),
        }
    }

    /// Append `bytes` to the file, or keep them in memory if that fails.
    fn append(&self, bytes: Vec<u8>, part: &mut Part) {
        if bytes.is_empty() {
            return;
        }
        let Ok(mut inner) = self.inner.lock() else {
            part.push(Piece::Memory(bytes));
            return;
        };
        if let Some(limit) = inner.spill_after {
            if inner.held + bytes.len() > limit {
                inner.spill_after = None;
                if let Ok(file) = tempfile::tempfile() {
                    inner.file = Some(file);
                    inner.writable = true;
                }
            }
        }
        let offset = inner.len;
        let written = match (inner.writable, inner.file.as_mut()) {
            (true, Some(f)) => f.write_all(&bytes).is_ok(),
            _ => false,
        };
        if written {
            inner.len += bytes.len() as u64;
            match part.last_mut() {
                // Consecutive chunks of one part are usually adjacent in the file.
                Some(Piece::File { offset: o, len }) if *o + *len == offset => {
                    *len += bytes.len() as u64;
                }
                _ => part.push(Piece::File {
                    offset,
                    len: bytes.len() as u64,
                }),
            }
        } else {
            // A failed write may have left part of `bytes` in the file: no more is written to it
            // (what it holds before `len` is still sound) and memory takes over.
            inner.writable = false;
            inner.held += bytes.len();
            part.push(Piece::Memory(bytes));
        }
    }

    /// Copy `parts` to `out`, in order. Call once every part is finished; the spool can still be
    /// written to afterwards.
    pub fn copy_to<'p>(
        &self,
        parts: impl IntoIterator<Item = &'p Part>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| io::Error::other("the report spool was poisoned by a panic"))?;
        // Allocated on the first piece that lies in the file: a run that stayed in memory (every
        // small run, such as a pre-commit hook's) never zeroes 64 KB it does not use.
        let mut buf = Vec::new();
        // Where the file's cursor is, so that pieces read in file order need no seek.
        let mut at: Option<u64> = None;
        for piece in parts.into_iter().flatten() {
            match piece {
                Piece::Memory(bytes) => out.write_all(bytes)?,
                Piece::File { offset, len } => {
                    let file = inner
                        .file
                        .as_mut()
                        .ok_or_else(|| io::Error::other("the report spool file is gone"))?;
                    if at != Some(*offset) {
                        file.seek(SeekFrom::Start(*offset))?;
                    }
                    if buf.is_empty() {
                        buf = vec![0u8; CHUNK];
                    }
                    let mut left = *len;
                    while left > 0 {
                        let n = (left as usize).min(buf.len());
                        file.read_exact(&mut buf[..n])?;
                        out.write_all(&buf[..n])?;
                        left -= n as u64;
                    }
                    at = Some(offset + len);
                }
            }
        }
        // Appends go on at the end of what was written.
        let len = inner.len;
        if let Some(f) = inner.file.as_mut() {
            f.seek(SeekFrom::Start(len))?;
        }
        Ok(())
    }
}

/// Writes one part into a [`Spool`], in chunks; [`PartWriter::finish`] gives the part. Writes
/// never fail: what the file cannot take is kept in memory.
#[derive(Debug)]
pub struct PartWriter<'s> {
    spool: &'s Spool,
    buf: Vec<u8>,
    part: Part,
}

impl PartWriter<'_> {
    /// The part written.
    pub fn finish(mut self) -> Part {
        let buf = std::mem::take(&mut self.buf);
        self.spool.append(buf, &mut self.part);
        // Kept per pair until the run ends: no spare capacity.
        self.part.shrink_to_fit();
        std::mem::take(&mut self.part)
    }
}

impl Write for PartWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            let buf = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
            self.spool.append(buf, &mut self.part);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_part(spool: &Spool, text: &[u8]) -> Part {
        let mut w = spool.writer();
        // Odd-sized writes, so that chunks split them.
        for c in text.chunks(1000) {
            w.write_all(c).unwrap();
        }
        w.finish()
    }

    fn parts_of(spool: &Spool) -> Vec<(Vec<u8>, Part)> {
        let texts: Vec<Vec<u8>> = (0..20u8)
            .map(|i| {
                let n = [0, 1, 10, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17][i as usize % 7];
                (0..n)
                    .map(|k| (k as u8).wrapping_mul(31).wrapping_add(i))
                    .collect()
            })
            .collect();
        texts
            .into_iter()
            .map(|t| {
                let p = write_part(spool, &t);
                (t, p)
            })
            .collect()
    }

    fn check_roundtrip(spool: &Spool) {
        let parts = parts_of(spool);
        // Read back in another order than written, then in the same order again.
        let order: Vec<usize> = (0..parts.len()).rev().chain(0..parts.len()).collect();
        let mut out = Vec::new();
        spool
            .copy_to(order.iter().map(|&i| &parts[i].1), &mut out)
            .unwrap();
        let want: Vec<u8> = order.iter().flat_map(|&i| parts[i].0.clone()).collect();
        assert!(out == want, "{} vs {} bytes", out.len(), want.len());
        // Writing after reading appends at the end.
        let more = write_part(spool, b"after");
        let mut out = Vec::new();
        spool.copy_to([&more, &parts[1].1], &mut out).unwrap();
        assert_eq!(out, [b"after".as_slice(), &parts[1].0].concat());
    }

    #[test]
    fn parts_come_back_as_written_in_any_order() {
        let spool = Spool::spilling_after(0);
        assert!(spool.on_disk());
        check_roundtrip(&spool);
        assert!(spool.inner.lock().unwrap().file.is_some());
    }

    /// Parts first kept in memory, then in the file once the limit is passed, come back alike;
    /// a spool whose parts stay under the limit never creates a file.
    #[test]
    fn a_spool_moves_to_its_file_past_the_memory_limit() {
        let spool = Spool::spilling_after(2 * CHUNK);
        check_roundtrip(&spool);
        let inner = spool.inner.lock().unwrap();
        assert!(inner.file.is_some() && inner.held <= 2 * CHUNK && inner.len > 0);
        drop(inner);
        let small = Spool::new();
        let part = write_part(&small, b"PASS");
        let mut out = Vec::new();
        small.copy_to([&part], &mut out).unwrap();
        assert_eq!(out, b"PASS");
        assert!(small.on_disk() && small.inner.lock().unwrap().file.is_none());
    }

    #[test]
    fn without_a_file_parts_are_kept_in_memory() {
        let spool = Spool::in_memory();
        assert!(!spool.on_disk());
        check_roundtrip(&spool);
    }

    /// A file that refuses writes (as a full disk does): parts fall back to memory, the ones
    /// already written stay readable.
    #[test]
    fn a_failing_file_falls_back_to_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spool");
        std::fs::write(&path, b"").unwrap();
        let spool = Spool::with_file(File::open(&path).unwrap()); // read-only
        let parts = parts_of(&spool);
        assert!(!spool.on_disk());
        let mut out = Vec::new();
        spool
            .copy_to(parts.iter().map(|(_, p)| p), &mut out)
            .unwrap();
        let want: Vec<u8> = parts.iter().flat_map(|(t, _)| t.clone()).collect();
        assert!(out == want);
    }
}
