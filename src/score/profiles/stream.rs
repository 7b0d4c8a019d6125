//! Scoring a stream of JSON lines in parallel, output in input order.

use std::io::{self, BufRead, Write};

use rayon::prelude::*;

use super::{score_into, Outcome, ProfileName};

/// Counts of a `toolspec score` run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cases read (non-blank lines).
    pub cases: usize,
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases scored without a pass/fail (a `null` threshold).
    pub unjudged: usize,
    /// Lines that produced an error line (malformed, or rejected as the peer would).
    pub errors: usize,
}

impl Summary {
    fn add(&mut self, o: Outcome) {
        self.cases += 1;
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Unjudged => self.unjudged += 1,
            Outcome::Error => self.errors += 1,
        }
    }
}

/// A line to score: its number and its bytes.
type Line<'a> = (usize, &'a [u8]);
/// A group's output text and the outcome of each of its lines.
type Group = (String, Vec<Outcome>);

/// Bytes read per batch; each batch is split into groups of lines scored in parallel.
const BATCH_BYTES: usize = 4 << 20;
/// Lines per parallel task: large enough that task overhead is noise.
const LINES_PER_TASK: usize = 256;

/// Score every non-blank line of `input` under `profile`, writing one output line per case, in
/// input order. `threads` = 0 uses all cores; 1 scores on the calling thread. Blank lines are
/// skipped (they are not cases), but line numbers in error messages count them.
pub fn score_stream(
    profile: ProfileName,
    mut input: impl BufRead,
    mut output: impl Write,
    threads: usize,
) -> io::Result<Summary> {
    let pool = if threads == 1 {
        None
    } else {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(io::Error::other)?,
        )
    };
    let mut summary = Summary::default();
    let mut buf: Vec<u8> = Vec::with_capacity(BATCH_BYTES + 4096);
    let mut next_lineno = 1usize;
    let mut outs: Vec<Group> = Vec::new();
    let mut eof = false;
    while !eof {
        // Fill a batch of whole lines: whole reader buffers until the batch is full, then up to
        // the last newline of the next one (a line longer than a batch makes a longer batch).
        buf.clear();
        loop {
            let avail = match input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                eof = true;
                break;
            }
            if buf.len() + avail.len() < BATCH_BYTES {
                let n = avail.len();
                buf.extend_from_slice(avail);
                input.consume(n);
                continue;
            }
            match memchr::memrchr(b'\n', avail) {
                Some(i) => {
                    buf.extend_from_slice(&avail[..=i]);
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let n = avail.len();
                    buf.extend_from_slice(avail);
                    input.consume(n);
                }
            }
        }
        if buf.is_empty() {
            break;
        }
        let mut lines: Vec<Line<'_>> = Vec::new();
        let mut start = 0;
        let mut lineno = next_lineno;
        for end in memchr::memchr_iter(b'\n', &buf).chain(std::iter::once(buf.len())) {
            if start > buf.len() {
                break;
            }
            let line = &buf[start..end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                lines.push((lineno, line));
            }
            lineno += 1;
            start = end + 1;
        }
        next_lineno = lineno - 1;
        // One output buffer per group of lines, kept from batch to batch: allocating them anew
        // each batch makes the allocator hand fresh pages to the kernel and fault them back in.
        let groups = lines.len().div_ceil(LINES_PER_TASK);
        if outs.len() < groups {
            outs.resize_with(groups, Default::default);
        }
        let score_group = |(out, group): (&mut Group, &[Line<'_>])| {
            let (text, outcomes) = out;
            text.clear();
            outcomes.clear();
            for (lineno, line) in group {
                outcomes.push(score_into(profile, line, *lineno, text));
                text.push('\n');
            }
        };
        match &pool {
            None => outs
                .iter_mut()
                .zip(lines.chunks(LINES_PER_TASK))
                .for_each(score_group),
            Some(pool) => pool.install(|| {
                outs[..groups]
                    .par_iter_mut()
                    .zip(lines.par_chunks(LINES_PER_TASK))
                    .for_each(score_group);
            }),
        }
        for (text, outcomes) in &outs[..groups] {
            output.write_all(text.as_bytes())?;
            for &o in outcomes {
                summary.add(o);
            }
        }
    }
    output.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_skips_blank_lines_and_numbers_errors() {
        let mut input = String::new();
        for i in 0..1000 {
            input.push_str(&format!(
                "{{\"id\":{i},\"actualCalls\":[],\"expectedCalls\":[]}}\n"
            ));
            if i == 500 {
                input.push_str("\n{oops\n");
            }
        }
        for threads in [1, 0] {
            let mut out = Vec::new();
            let s =
                score_stream(ProfileName::Evalite, input.as_bytes(), &mut out, threads).unwrap();
            assert_eq!(s.cases, 1001);
            assert_eq!(s.passed, 1000);
            assert_eq!(s.errors, 1);
            let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
            assert_eq!(lines.len(), 1001);
            assert!(lines[0].starts_with("{\"id\":0,"));
            assert!(lines[501].contains("line 503: "), "{}", lines[501]);
            assert!(lines[1000].starts_with("{\"id\":999,"));
        }
    }
}
