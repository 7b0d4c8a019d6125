//! `--format json`: the [`Report`] serialized, pretty-printed, field order as declared.
//!
//! [`render`] serializes a whole report; [`write_pair`] and [`write_document`] give the same
//! bytes a pair at a time, for the streaming reporter ([`super::stream`]).

use std::io::{self, Write};

use super::model::{Finding, PairResult, Report};

/// Render the report as JSON text (with a trailing newline).
pub fn render(report: &Report) -> String {
    let mut s = crate::text::json::to_string_pretty(report)
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// Write one result as it appears in the `results` array of [`render`]'s document (indented
/// two levels, no separator).
pub fn write_pair(r: &PairResult, out: &mut dyn Write) -> io::Result<()> {
    let mut w = Indent {
        out,
        indent: b"    ",
    };
    w.out.write_all(w.indent)?;
    crate::text::json::to_writer_pretty(&mut w, r).map_err(io::Error::other)
}

/// [`write_pair`] with the result's findings taken from `r.findings`, then from `more`, one at a
/// time as they are written: the same bytes as [`write_pair`] on the result holding them all.
pub fn write_pair_streamed(
    mut r: PairResult,
    more: &mut dyn Iterator<Item = Finding>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let held = std::mem::take(&mut r.findings);
    let mut findings = held.into_iter().chain(more).peekable();
    if findings.peek().is_none() {
        return write_pair(&r, out);
    }
    let mut w = Indent {
        out,
        indent: b"    ",
    };
    w.out.write_all(w.indent)?;
    // The result without findings, written through a filter that puts them where its empty
    // list is: members at the top level are indented by two spaces exactly, and line breaks
    // inside strings are escaped, so the first `\n  "findings": []` is the result's own member.
    let mut splice = Splice {
        out: &mut w,
        matched: 0,
        done: false,
        findings: &mut findings,
    };
    // Buffered: the serializer writes a token at a time, the filter looks at chunks.
    let mut buffered = io::BufWriter::with_capacity(64 << 10, &mut splice);
    crate::text::json::to_writer_pretty(&mut buffered, &r).map_err(io::Error::other)?;
    buffered.flush()?;
    drop(buffered);
    splice.flush_partial()
}

/// Passes bytes through, and in place of the first `\n  "findings": []` writes the list of
/// `findings`, pretty-printed as a member of a result.
struct Splice<'a, 'i> {
    out: &'a mut dyn Write,
    /// How many bytes of [`Splice::MARK`] the last bytes written match (held back).
    matched: usize,
    done: bool,
    findings: &'i mut dyn Iterator<Item = Finding>,
}

impl Splice<'_, '_> {
    const MARK: &'static [u8] = b"\n  \"findings\": []";

    /// Write the bytes of a partial match held back (at the end of the text).
    fn flush_partial(&mut self) -> io::Result<()> {
        let held = &Self::MARK[..self.matched];
        self.matched = 0;
        self.out.write_all(held)
    }

    fn write_findings(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n  \"findings\": [")?;
        let mut first = true;
        // Each finding is printed, then indented, in memory, and written in one piece.
        let (mut text, mut item) = (Vec::new(), Vec::new());
        for f in &mut *self.findings {
            text.clear();
            crate::text::json::to_writer_pretty(&mut text, &f).map_err(io::Error::other)?;
            item.clear();
            item.extend_from_slice(if first { b"\n    " } else { b",\n    " });
            first = false;
            let mut lines = text.split(|&b| b == b'\n');
            if let Some(line) = lines.next() {
                item.extend_from_slice(line);
            }
            for line in lines {
                item.extend_from_slice(b"\n    ");
                item.extend_from_slice(line);
            }
            self.out.write_all(&item)?;
        }
        self.out.write_all(if first { b"]" } else { b"\n  ]" })
    }
}

impl Write for Splice<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            if self.done {
                self.out.write_all(rest)?;
                break;
            }
            if self.matched == 0 {
                // Up to the next line break, nothing can match.
                match memchr::memchr(b'\n', rest) {
                    Some(i) => {
                        self.out.write_all(&rest[..i])?;
                        rest = &rest[i..];
                    }
                    None => {
                        self.out.write_all(rest)?;
                        break;
                    }
                }
            }
            // `rest` continues a match (or starts one with its line break). The mark has one
            // line break, at its start, so a failed match can restart only at a line break.
            let want = &Self::MARK[self.matched..];
            let n = want.len().min(rest.len());
            let common = want[..n]
                .iter()
                .zip(&rest[..n])
                .take_while(|(a, b)| a == b)
                .count();
            if common == n {
                self.matched += n;
                rest = &rest[n..];
                if self.matched == Self::MARK.len() {
                    self.matched = 0;
                    self.done = true;
                    self.write_findings()?;
                }
            } else if self.matched == 0 {
                // A line break that does not start the mark.
                self.out.write_all(&rest[..common.max(1)])?;
                rest = &rest[common.max(1)..];
            } else {
                self.flush_partial()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Write the document of `head` (whose `results` are ignored) with `results` spliced in: each
/// call writes one result, as [`write_pair`] does. Gives the bytes of [`render`] on the report
/// with those results.
pub fn write_document(
    head: &Report,
    count: usize,
    mut results: impl FnMut(usize, &mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let empty = Report {
        results: Vec::new(),
        ..head.clone()
    };
    let doc = render(&empty);
    // `version` and `summary` hold numbers only: the first `"results": []` is the member.
    const EMPTY: &str = "\n  \"results\": []";
    let Some(at) = doc.find(EMPTY).filter(|_| count > 0) else {
        return out.write_all(doc.as_bytes());
    };
    let (before, after) = doc.split_at(at + EMPTY.len() - 1);
    out.write_all(before.as_bytes())?;
    for i in 0..count {
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        results(i, out)?;
    }
    out.write_all(b"\n  ")?;
    out.write_all(after.as_bytes())
}

/// Adds `indent` after every line break (pretty JSON has line breaks only between tokens:
/// inside strings they are escaped). Also nests SARIF's results.
pub(super) struct Indent<'a> {
    /// Where the indented text goes.
    pub(super) out: &'a mut dyn Write,
    /// What follows each line break.
    pub(super) indent: &'static [u8],
}

impl Write for Indent<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.out.write_all(&rest[..=i])?;
            self.out.write_all(self.indent)?;
            rest = &rest[i + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Location, Severity};

    fn finding(i: usize) -> Finding {
        Finding {
            code: "unexpected-call".into(),
            severity: Severity::Note,
            message: format!("call #{i} `x` is not accounted for; \"findings\": []\n"),
            help: Some("extra calls are allowed by this spec".into()),
            location: Some(Location {
                file: "runs/a.jsonl".into(),
                line: i,
                column: 1,
                end_line: i,
                end_column: 9,
                span: [i * 10, i * 10 + 8],
            }),
            label: None,
            related: None,
        }
    }

    fn pair(findings: Vec<Finding>, details: bool) -> PairResult {
        PairResult {
            spec_file: "s.toolspec".into(),
            spec: "findings".into(),
            transcript: "runs/a.jsonl".into(),
            record: None,
            format: "claude-code".into(),
            profile: None,
            score: 1.0,
            threshold: 1.0,
            passed: true,
            failure: None,
            calls: 3,
            counts: serde_json::json!({"findings": [], "extra": 3}),
            expectations: Vec::new(),
            findings,
            profile_details: details.then(|| serde_json::json!({"findings": []})),
        }
    }

    #[test]
    fn a_streamed_pair_is_the_pair_written_whole() {
        for n in [0, 1, 2, 5] {
            for held in [0, 1] {
                for details in [false, true] {
                    let all: Vec<Finding> = (0..n).map(finding).collect();
                    let mut whole = Vec::new();
                    write_pair(&pair(all.clone(), details), &mut whole).unwrap();
                    let held = held.min(n);
                    let mut more = all[held..].iter().cloned();
                    let mut streamed = Vec::new();
                    write_pair_streamed(
                        pair(all[..held].to_vec(), details),
                        &mut more,
                        &mut streamed,
                    )
                    .unwrap();
                    assert_eq!(
                        String::from_utf8(streamed).unwrap(),
                        String::from_utf8(whole).unwrap(),
                        "{n} findings, {held} held, details {details}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_splice_finds_its_mark_across_writes_of_any_size() {
        let text = b"{\n  \"a\": \"\\n  x\",\n  \"b\": [],\n  \"findings\": [],\n  \"c\": 1\n}";
        for chunk in 1..text.len() {
            let mut out = Vec::new();
            let mut findings = vec![finding(1)].into_iter();
            let mut s = Splice {
                out: &mut out,
                matched: 0,
                done: false,
                findings: &mut findings,
            };
            for piece in text.chunks(chunk) {
                s.write_all(piece).unwrap();
            }
            s.flush_partial().unwrap();
            let out = String::from_utf8(out).unwrap();
            assert!(out.starts_with("{\n  \"a\": \"\\n  x\",\n  \"b\": [],\n  \"findings\": [\n    {\n      \"code\""), "{chunk}: {out}");
            assert!(
                out.ends_with("    }\n  ],\n  \"c\": 1\n}"),
                "{chunk}: {out}"
            );
        }
    }
}
