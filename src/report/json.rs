//! `--format json`: the [`Report`] as pretty-printed JSON, field order as declared in
//! [`super::model`].
//!
//! The document is written member by member (`Object`, `Array`), each value by serde at
//! its depth, so a result's findings and the report's results can be written one at a time
//! ([`JsonEmitter`]). The bytes are those of serializing the [`Report`] with serde (a test
//! holds the two equal).

use std::io::{self, Write};

use serde::Serialize;

use super::model::{Finding, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};

/// Render the report as JSON text (with a trailing newline).
pub fn render(report: &Report) -> String {
    stream::render(JsonEmitter, report)
}

/// The JSON output format.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonEmitter;

impl Emitter for JsonEmitter {
    type Meta = ();

    /// The result's object, indented for the `results` array, its findings written as they
    /// come.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<()> {
        let out = &mut out.text;
        out.write_all(indent(2))?;
        let mut o = Object::new(2);
        o.member(out, "spec_file", &r.spec_file)?;
        o.member(out, "spec", &r.spec)?;
        o.member(out, "transcript", &r.transcript)?;
        o.member(out, "record", &r.record)?;
        o.member(out, "format", &r.format)?;
        o.member(out, "profile", &r.profile)?;
        o.member(out, "score", &r.score)?;
        o.member(out, "threshold", &r.threshold)?;
        o.member(out, "passed", &r.passed)?;
        if let Some(failure) = &r.failure {
            o.member(out, "failure", failure)?;
        }
        o.member(out, "calls", &r.calls)?;
        o.member(out, "counts", &r.counts)?;
        o.member(out, "expectations", &r.expectations)?;
        o.member(out, "rules", &r.rules)?;
        o.key(out, "findings")?;
        let mut list = Array::new(3);
        for f in findings {
            list.item(out, &f)?;
        }
        list.end(out)?;
        if let Some(details) = &r.profile_details {
            o.member(out, "profile_details", details)?;
        }
        if let Some(rate) = &r.pass_rate {
            o.member(out, "pass_rate", rate)?;
        }
        if let Some(partial) = &r.partial {
            o.member(out, "partial", partial)?;
        }
        o.end(out)
    }

    fn document(
        &self,
        head: &Report,
        results: &Results<'_, ()>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut o = Object::new(0);
        o.member(out, "version", &head.version)?;
        o.member(out, "summary", &head.summary)?;
        o.key(out, "results")?;
        let mut list = Array::new(1);
        for i in 0..results.len() {
            list.with(out, |out| results.write_text(i, out))?;
        }
        list.end(out)?;
        o.member(out, "errors", &head.errors)?;
        o.member(out, "warnings", &head.warnings)?;
        if !head.rates.is_empty() {
            o.member(out, "rates", &head.rates)?;
        }
        o.end(out)?;
        out.write_all(b"\n")
    }
}

/// Spaces enough for any depth written here (two a level).
const SPACES: &[u8; 32] = b"                                ";

pub(super) fn indent(depth: usize) -> &'static [u8] {
    &SPACES[..(2 * depth).min(SPACES.len())]
}

/// Write `value` pretty-printed as a value at `depth` (its first line continues the current
/// one).
pub(super) fn value_at<T: Serialize + ?Sized>(
    out: &mut dyn Write,
    depth: usize,
    value: &T,
) -> io::Result<()> {
    let mut w = Indent {
        out,
        indent: indent(depth),
    };
    crate::text::json::to_writer_pretty(&mut w, value).map_err(io::Error::other)
}

/// A JSON object at some depth, written member by member as serde's pretty printer writes it.
#[derive(Debug)]
pub(super) struct Object {
    depth: usize,
    empty: bool,
}

impl Object {
    /// An object whose first line continues the current one, its members one level deeper.
    pub(super) fn new(depth: usize) -> Self {
        Object { depth, empty: true }
    }

    /// Start a member: what follows is its value.
    pub(super) fn key(&mut self, out: &mut dyn Write, key: &str) -> io::Result<()> {
        out.write_all(if self.empty { b"{\n" } else { b",\n" })?;
        self.empty = false;
        out.write_all(indent(self.depth + 1))?;
        // Keys are this crate's field names: nothing to escape.
        write!(out, "\"{key}\": ")
    }

    /// A member and its value.
    pub(super) fn member<T: Serialize + ?Sized>(
        &mut self,
        out: &mut dyn Write,
        key: &str,
        value: &T,
    ) -> io::Result<()> {
        self.key(out, key)?;
        value_at(out, self.depth + 1, value)
    }

    /// Close the object.
    pub(super) fn end(self, out: &mut dyn Write) -> io::Result<()> {
        if self.empty {
            return out.write_all(b"{}");
        }
        out.write_all(b"\n")?;
        out.write_all(indent(self.depth))?;
        out.write_all(b"}")
    }
}

/// A JSON array at some depth, written item by item as serde's pretty printer writes it.
#[derive(Debug)]
pub(super) struct Array {
    depth: usize,
    empty: bool,
}

impl Array {
    /// An array whose first line continues the current one, its items one level deeper.
    pub(super) fn new(depth: usize) -> Self {
        Array { depth, empty: true }
    }

    /// An item serialized by serde.
    pub(super) fn item<T: Serialize + ?Sized>(
        &mut self,
        out: &mut dyn Write,
        value: &T,
    ) -> io::Result<()> {
        self.next(out)?;
        out.write_all(indent(self.depth + 1))?;
        value_at(out, self.depth + 1, value)
    }

    /// Items `write` writes already indented, one or several separated by `,` and a line
    /// break (for text rendered earlier).
    pub(super) fn with(
        &mut self,
        out: &mut dyn Write,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        self.next(out)?;
        write(out)
    }

    fn next(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(if self.empty { b"[\n" } else { b",\n" })?;
        self.empty = false;
        Ok(())
    }

    /// Close the array.
    pub(super) fn end(self, out: &mut dyn Write) -> io::Result<()> {
        if self.empty {
            return out.write_all(b"[]");
        }
        out.write_all(b"\n")?;
        out.write_all(indent(self.depth))?;
        out.write_all(b"]")
    }
}

/// Adds `indent` after every line break (pretty JSON has line breaks only between tokens:
/// inside strings they are escaped).
struct Indent<'a> {
    out: &'a mut dyn Write,
    indent: &'static [u8],
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
    use crate::report::model::{Location, Severity, Summary};

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
            label: i.is_multiple_of(2).then(|| "here".into()),
            related: None,
            expectation: None,
            call: None,
            unverified: false,
        }
    }

    fn pair(findings: Vec<Finding>, details: bool, failure: bool) -> PairResult {
        PairResult {
            spec_file: "s.toolspec".into(),
            spec: "findings".into(),
            transcript: "runs/a.jsonl".into(),
            record: details.then_some(3),
            format: "claude-code".into(),
            profile: None,
            score: 0.5,
            threshold: 1.0,
            passed: false,
            failure: failure.then(|| "extra call `x`".into()),
            calls: 3,
            counts: serde_json::json!({"findings": [], "extra": 3, "o": {}}),
            expectations: Vec::new(),
            rules: Vec::new(),
            findings,
            profile_details: details.then(|| serde_json::json!({"findings": [], "a": {"b": []}})),
            pass_rate: failure.then_some(0.9),
            partial: None,
        }
    }

    /// The document written member by member is serde's serialization of the [`Report`]
    /// (the schema): with and without results, findings, optional members, errors.
    #[test]
    fn the_document_is_the_report_serialized() {
        let mut results = Vec::new();
        for n in [0, 1, 3] {
            for details in [false, true] {
                for failure in [false, true] {
                    results.push(pair((0..n).map(finding).collect(), details, failure));
                }
            }
        }
        let reports = [
            Report::default(),
            Report {
                version: 1,
                summary: Summary {
                    checked: 2,
                    ..Summary::default()
                },
                results: results.clone(),
                errors: vec![finding(1)],
                warnings: vec![finding(2), finding(3)],
                rates: vec![super::super::model::RateResult {
                    spec_file: "s.toolspec".into(),
                    spec: "s".into(),
                    required: 0.9,
                    passed: 1,
                    total: 2,
                    unread: 1,
                    rate: Some(0.5),
                    met: false,
                    location: None,
                }],
            },
            Report {
                results: results[..1].to_vec(),
                ..Report::default()
            },
            Report {
                errors: vec![finding(4)],
                ..Report::default()
            },
        ];
        for report in &reports {
            let mut want = crate::text::json::to_string_pretty(report).unwrap();
            want.push('\n');
            assert_eq!(render(report), want);
        }
    }
}
