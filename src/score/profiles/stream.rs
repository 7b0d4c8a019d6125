//! Scoring a stream of JSON lines in parallel, output in input order.

use std::io::{self, Read, Write};

use std::sync::Mutex;

use super::judge::Judge;
use super::{score_into, write_error, Outcome, PeerRow, Scratch};

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

/// A line to score: its number and where it is in its batch (start, end).
type Line = (usize, usize, usize);
/// A group's output text and the outcome of each of its lines.
type Group = (String, Vec<Outcome>);

/// Bytes read per batch; each batch is split into groups of lines scored in parallel.
const BATCH_BYTES: usize = 4 << 20;

/// Longest case line `score` reads, in bytes: a longer one is read to its end without being
/// kept, and its case gets an error line (`line-too-long`); the other cases are scored.
pub const MAX_CASE_LINE: usize = 16 << 20;

/// What stands in the batch for a line too long to keep: a non-blank line of its own, which
/// [`Batch::long`] tells from a case.
const PLACEHOLDER: &[u8] = b"!\n";
/// Lines per parallel task: large enough that task overhead is noise.
const LINES_PER_TASK: usize = 64;

/// Input read for one batch: `buf[..filled]` has been read, `buf[..end]` are whole lines (the
/// unfinished last line, `buf[end..filled]`, moves to the next batch).
struct Batch {
    buf: Vec<u8>,
    filled: usize,
    end: usize,
    eof: bool,
    /// Where a line too long to keep was (its placeholder's start in `buf`), and its length.
    long: Vec<(usize, u64)>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            buf: vec![0u8; BATCH_BYTES],
            filled: 0,
            end: 0,
            eof: false,
            long: Vec::new(),
        }
    }

    /// Read until the buffer is full or the input ends, straight into the buffer (no reader
    /// buffer in between), and find the end of the last whole line. A line longer than the
    /// buffer doubles it, up to [`MAX_CASE_LINE`]; a longer one is skipped
    /// ([`Self::skip_long_line`]).
    fn fill(&mut self, input: &mut impl Read) -> io::Result<()> {
        loop {
            while self.filled < self.buf.len() && !self.eof {
                match input.read(&mut self.buf[self.filled..]) {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if self.eof {
                self.end = self.filled;
                return Ok(());
            }
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[..self.filled]) {
                self.end = i + 1;
                return Ok(());
            }
            let n = self.buf.len();
            if n >= MAX_CASE_LINE {
                // The buffer holds the start of one line (a batch starts with the line the
                // last one left unfinished) and no end of it.
                self.skip_long_line(input)?;
                continue;
            }
            self.buf.resize((2 * n).min(MAX_CASE_LINE), 0);
        }
    }

    /// The buffer is one unfinished line past [`MAX_CASE_LINE`]: read the rest of it without
    /// keeping it, leave a placeholder line in its place (recorded in `long`), and keep what
    /// follows its newline.
    fn skip_long_line(&mut self, input: &mut impl Read) -> io::Result<()> {
        let scratch = PLACEHOLDER.len();
        let mut seen = self.filled as u64;
        self.filled = scratch;
        loop {
            let n = match input.read(&mut self.buf[scratch..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if let Some(i) = memchr::memchr(b'\n', &self.buf[scratch..scratch + n]) {
                // Its length without the newline.
                seen += i as u64;
                self.buf.copy_within(scratch + i + 1..scratch + n, scratch);
                self.filled = scratch + n - (i + 1);
                break;
            }
            seen += n as u64;
        }
        self.buf[..scratch].copy_from_slice(PLACEHOLDER);
        self.long.push((0, seen));
        Ok(())
    }

    /// Start `next` with this batch's unfinished last line.
    fn carry_into(&self, next: &mut Batch) {
        let tail = &self.buf[self.end..self.filled];
        if next.buf.len() < self.buf.len() {
            next.buf.resize(self.buf.len(), 0);
        }
        next.buf[..tail.len()].copy_from_slice(tail);
        next.filled = tail.len();
        next.end = 0;
        next.eof = self.eof;
        next.long.clear();
    }
}

/// The non-blank lines of `batch` (whole lines), numbered from `lineno`, replacing `lines`;
/// the number of the next batch's first line.
fn split_lines(batch: &[u8], mut lineno: usize, lines: &mut Vec<Line>) -> usize {
    lines.clear();
    let mut start = 0;
    for line_end in memchr::memchr_iter(b'\n', batch).chain(std::iter::once(batch.len())) {
        if start > batch.len() {
            break;
        }
        let line = &batch[start..line_end];
        if !line.iter().all(u8::is_ascii_whitespace) {
            lines.push((lineno, start, line_end));
        }
        lineno += 1;
        start = line_end + 1;
    }
    lineno - 1
}

/// Score every non-blank line of `input` with `peer`, writing one output line per case, in
/// input order. `threads` = 0 uses all cores; 1 scores on the calling thread. Blank lines are
/// skipped (they are not cases), but line numbers in error messages count them.
///
/// With more than one thread, the calling thread does the I/O while a pool of the other threads
/// scores: it writes the previous batch's output, reads the next batch and splits it into
/// lines during the scoring of this one (so the pool never waits for the split), then scores
/// what is left of this batch with the pool. So `threads` threads are busy, never more: a
/// pool of `threads` beside a calling thread doing I/O would leave a core's share of work
/// waiting for its turn on the cores.
pub fn score_stream(
    peer: &PeerRow,
    input: impl Read,
    output: impl Write,
    threads: usize,
) -> io::Result<Summary> {
    score_stream_judged(peer, None, input, output, threads)
}

/// [`score_stream`] with a judge for DeepEval's tool-selection part (see [`super::judge`]),
/// asked from the scoring threads.
pub fn score_stream_judged(
    peer: &PeerRow,
    judge: Option<&dyn Judge>,
    mut input: impl Read,
    mut output: impl Write,
    threads: usize,
) -> io::Result<Summary> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    // The threads beside the calling one.
    let pool = if threads == 1 {
        None
    } else {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .build()
                .map_err(io::Error::other)?,
        )
    };
    let mut summary = Summary::default();
    let mut cur = Batch::new();
    let mut next = Batch::new();
    cur.fill(&mut input)?;
    // The lines of the batch being scored, and of the one being read; the number of the first
    // line after the batch that was split last.
    let mut lines: Vec<Line> = Vec::new();
    let mut next_lines: Vec<Line> = Vec::new();
    let mut lineno = split_lines(&cur.buf[..cur.end], 1, &mut lines);
    // One output buffer per group of lines, kept from batch to batch (allocating them anew
    // each batch makes the allocator hand fresh pages to the kernel and fault them back in);
    // two sets: this batch's, and the previous one's, still to be written.
    let mut outs: Vec<Group> = Vec::new();
    let mut prev: Vec<Group> = Vec::new();
    let mut prev_groups = 0usize;
    // One scratch per worker (the calling thread's first), kept from batch to batch.
    let mut scratches: Vec<Scratch> = std::iter::repeat_with(Scratch::default)
        .take(threads)
        .collect();
    loop {
        if cur.end == 0 {
            write_groups(&prev[..prev_groups], &mut output, &mut summary)?;
            break;
        }
        cur.carry_into(&mut next);
        let groups = lines.len().div_ceil(LINES_PER_TASK);
        if outs.len() < groups {
            outs.resize_with(groups, Default::default);
        }
        let buf = &cur.buf[..cur.end];
        let long = &cur.long;
        let score_group = |(out, group): (&mut Group, &[Line]), scratch: &mut Scratch| {
            let (text, outcomes) = out;
            text.clear();
            outcomes.clear();
            for &(lineno, start, end) in group {
                if let Some(&(_, seen)) = long.iter().find(|(at, _)| *at == start) {
                    write_error(
                        text,
                        None,
                        &format!(
                            "line {lineno}: line-too-long: the line is longer than {} MiB ({seen} bytes), the most toolspec reads of one case; it was not scored",
                            MAX_CASE_LINE >> 20
                        ),
                    );
                    outcomes.push(Outcome::Error);
                } else {
                    let line = buf.get(start..end).unwrap_or_default();
                    outcomes.push(score_into(peer, line, lineno, text, scratch, judge));
                }
                text.push('\n');
            }
        };
        // The calling thread's part: write the previous batch, read and split the next.
        let mut io = |output: &mut _, summary: &mut Summary| {
            write_groups(&prev[..prev_groups], output, summary)?;
            next.fill(&mut input)?;
            lineno = split_lines(&next.buf[..next.end], lineno, &mut next_lines);
            io::Result::Ok(())
        };
        let mut io_result = Ok(());
        match &pool {
            None => {
                let scratch = &mut scratches[0];
                outs.iter_mut()
                    .zip(lines.chunks(LINES_PER_TASK))
                    .for_each(|g| score_group(g, scratch));
                io_result = io(&mut output, &mut summary);
            }
            Some(pool) => {
                // Groups are taken in order, one at a time, by the pool's threads and, once its
                // I/O is done, by the calling thread.
                let work = Mutex::new(outs[..groups].iter_mut().zip(lines.chunks(LINES_PER_TASK)));
                let take = |scratch: &mut Scratch| loop {
                    // The lock is held only to take the next group.
                    let group = work.lock().map(|mut w| w.next());
                    match group {
                        Ok(Some(g)) => score_group(g, scratch),
                        _ => break,
                    }
                };
                let (mine, theirs) = scratches.split_at_mut(1);
                pool.in_place_scope(|s| {
                    for scratch in theirs {
                        s.spawn(|_| take(scratch));
                    }
                    io_result = io(&mut output, &mut summary);
                    take(&mut mine[0]);
                });
            }
        }
        io_result?;
        std::mem::swap(&mut cur, &mut next);
        std::mem::swap(&mut lines, &mut next_lines);
        std::mem::swap(&mut outs, &mut prev);
        prev_groups = groups;
    }
    output.flush()?;
    Ok(summary)
}

/// Write groups' output text and count their outcomes.
fn write_groups(
    groups: &[Group],
    output: &mut impl Write,
    summary: &mut Summary,
) -> io::Result<()> {
    for (text, outcomes) in groups {
        output.write_all(text.as_bytes())?;
        for &o in outcomes {
            summary.add(o);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `n` bytes per read.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Lines cut across reads, a line longer than a batch and a last line without a newline
    /// come out as the same cases, in order, as one line at a time.
    #[test]
    fn lines_survive_any_read_sizes() {
        let long_id = "x".repeat(BATCH_BYTES + 10);
        let mut input = String::new();
        for i in 0..300 {
            input.push_str(&format!(
                "{{\"id\":{i},\"actualCalls\":[],\"expectedCalls\":[]}}\n"
            ));
        }
        input.push_str(&format!(
            "{{\"id\":\"{long_id}\",\"actualCalls\":[],\"expectedCalls\":[]}}\n\n"
        ));
        input.push_str("{\"id\":\"last\",\"actualCalls\":[],\"expectedCalls\":[]}");
        let want: String = input
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                String::from_utf8(super::super::score_line(
                    super::super::peer("evalite").unwrap(),
                    l.as_bytes(),
                ))
                .unwrap()
                    + "\n"
            })
            .collect();
        for n in [1 << 20, 4096, 7] {
            for threads in [1, 0] {
                let mut out = Vec::new();
                let s = score_stream(
                    super::super::peer("evalite").unwrap(),
                    Trickle(input.as_bytes(), n),
                    &mut out,
                    threads,
                )
                .unwrap();
                assert_eq!(s.cases, 302);
                assert!(String::from_utf8(out).unwrap() == want, "read size {n}");
            }
        }
    }

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
            let s = score_stream(
                super::super::peer("evalite").unwrap(),
                input.as_bytes(),
                &mut out,
                threads,
            )
            .unwrap();
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
