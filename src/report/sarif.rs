//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers.
//!
//! A hand-written minimal model (as cargo-deny does) keeps field order and dependencies under our
//! control. GitHub needs, per result, a stable `ruleId`, a repository-relative
//! `artifactLocation.uri` and `region.startLine`; engine findings also carry the spec line as a
//! related location.
//!
//! The rule table comes first and numbers every code used by any finding, and each result
//! refers to its rule by that number: results are rendered as they come with a placeholder
//! number per code (the code's number in order of first use), and get their rule's number as
//! they are copied into the document (`RuleIndexes`).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Mutex;

use serde::Serialize;

use super::json::{indent, value_at, Array, Object};
use super::model::{Finding, Location, PairResult, RateResult, Report, Severity};
use super::stream::{self, Emitter, PairOut, Results};
use crate::code::Code;

/// SARIF schema URI.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'a str,
    version: &'a str,
    information_uri: &'a str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    short_description: Text,
    full_description: Text,
    help_uri: String,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: Physical,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical {
    artifact_location: Artifact,
    region: Region,
}

#[derive(Serialize)]
struct Artifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

fn physical(l: &Location) -> Physical {
    Physical {
        artifact_location: Artifact {
            uri: l.file.replace('\\', "/"),
        },
        region: Region {
            start_line: l.line,
            start_column: l.column,
            end_line: l.end_line,
            end_column: l.end_column.max(1),
        },
    }
}

/// Render the report as SARIF.
pub fn render(report: &Report) -> String {
    stream::render(SarifEmitter::new(), report)
}

/// The SARIF output format; each rule's short description is its code's in [`crate::code`].
#[derive(Debug, Default)]
pub struct SarifEmitter {
    /// The codes of the findings rendered, numbered in order of first use (the placeholder
    /// rule index of their results).
    codes: Mutex<Vec<String>>,
    /// Report the notes of passing pairs too (`--show-notes`; [`PairResult::annotates`]).
    show_notes: bool,
}

impl SarifEmitter {
    /// The format.
    pub fn new() -> Self {
        SarifEmitter::default()
    }

    /// The format, reporting the notes of passing pairs too when `yes` (`--show-notes`).
    #[must_use]
    pub fn showing_notes(self, yes: bool) -> Self {
        SarifEmitter {
            show_notes: yes,
            ..self
        }
    }

    /// The placeholder rule index of `code`.
    fn placeholder(&self, code: &str) -> usize {
        match self.codes.lock() {
            Ok(mut all) => {
                if let Some(i) = all.iter().position(|c| c == code) {
                    i
                } else {
                    all.push(code.to_owned());
                    all.len() - 1
                }
            }
            Err(_) => 0,
        }
    }
}

impl Emitter for SarifEmitter {
    /// The placeholder numbers of the result's codes (the rule table holds the codes of the
    /// results kept, not of a file whose check panicked after it rendered some).
    type Meta = Box<[usize]>;

    /// The results of the findings, indented for the `results` array, separated by `,` and a
    /// line break, each with the placeholder index of its code.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<Box<[usize]>> {
        let out = &mut out.text;
        let mut used = Vec::new();
        // A failing result of a spec with a `pass_rate`: its findings (warnings) say what they
        // count toward.
        let note = r.rate_note().filter(|_| !r.passed);
        let shown = findings.filter(|f| r.annotates(f, self.show_notes));
        for (i, mut f) in shown.enumerate() {
            if let Some(note) = note.as_ref().filter(|_| f.severity != Severity::Note) {
                f.message = format!("{} ({note})", f.message);
            }
            if i > 0 {
                out.write_all(b",\n")?;
            }
            let index = self.placeholder(&f.code);
            if !used.contains(&index) {
                used.push(index);
            }
            out.write_all(indent(4))?;
            value_at(out, 4, &sarif_result(&f, index))?;
        }
        Ok(used.into_boxed_slice())
    }

    fn document(
        &self,
        head: &Report,
        results: &Results<'_, Box<[usize]>>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let spooled = self
            .codes
            .lock()
            .map_err(|_| io::Error::other("a panic poisoned the SARIF rule table"))?;
        let mut used: Vec<usize> = results.metas().flat_map(|m| m.iter().copied()).collect();
        used.sort_unstable();
        used.dedup();
        // The run's errors and warnings, then each spec's pass rate at its `pass_rate` line.
        let rates: Vec<Finding> = head.rates.iter().map(RateResult::finding).collect();
        let run: Vec<&Finding> = head
            .errors
            .iter()
            .chain(&head.warnings)
            .chain(&rates)
            .collect();
        let codes = Codes::new(
            run.iter().map(|f| f.code.as_str()).chain(
                used.iter()
                    .filter_map(|&i| spooled.get(i).map(String::as_str)),
            ),
        );
        let map = |placeholder: usize| spooled.get(placeholder).map_or(0, |code| codes.index(code));
        let rules = codes
            .0
            .keys()
            .map(|c| {
                let code = Code::from_id(c);
                Rule {
                    id: (*c).to_owned(),
                    short_description: Text {
                        text: code.map_or_else(|| (*c).to_owned(), |d| d.description().to_owned()),
                    },
                    full_description: Text {
                        text: code.map_or_else(|| (*c).to_owned(), Code::full_description),
                    },
                    help_uri: code.map_or_else(
                        || "https://github.com/toolspec/toolspec/blob/main/docs/cli.md#diagnostic-codes".to_owned(),
                        Code::help_uri,
                    ),
                }
            })
            .collect();
        let tool = Tool {
            driver: Driver {
                name: "toolspec",
                version: env!("CARGO_PKG_VERSION"),
                information_uri: "https://github.com/toolspec/toolspec",
                rules,
            },
        };
        let mut doc = Object::new(0);
        doc.member(out, "$schema", SCHEMA)?;
        doc.member(out, "version", "2.1.0")?;
        doc.key(out, "runs")?;
        let mut runs = Array::new(1);
        runs.with(out, |out| {
            out.write_all(indent(2))?;
            let mut run_object = Object::new(2);
            run_object.member(out, "tool", &tool)?;
            run_object.key(out, "results")?;
            let mut list = Array::new(3);
            for f in &run {
                list.item(out, &sarif_result(f, codes.index(&f.code)))?;
            }
            for i in (0..results.len()).filter(|&i| !results.text_is_empty(i)) {
                list.with(out, |out| {
                    let mut fixed = RuleIndexes::new(out, &map);
                    results.write_text(i, &mut fixed)?;
                    fixed.finish()
                })?;
            }
            list.end(out)?;
            run_object.end(out)
        })?;
        runs.end(out)?;
        doc.end(out)?;
        out.write_all(b"\n")
    }
}

/// The rule table: every code used, sorted, numbered from 0.
#[derive(Debug, Default)]
struct Codes<'a>(BTreeMap<&'a str, usize>);

impl<'a> Codes<'a> {
    /// The table of `codes` (repeats and order do not matter).
    fn new(codes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set: Vec<&str> = codes.into_iter().collect();
        set.sort_unstable();
        set.dedup();
        Codes(set.into_iter().enumerate().map(|(i, c)| (c, i)).collect())
    }

    /// The rule index of `code` (0 for a code not in the table).
    fn index(&self, code: &str) -> usize {
        self.0.get(code).copied().unwrap_or(0)
    }
}

fn sarif_result(f: &Finding, rule_index: usize) -> SarifResult {
    SarifResult {
        rule_id: f.code.clone(),
        rule_index,
        level: match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        },
        message: Text {
            text: match &f.help {
                Some(h) => format!("{}\nhelp: {h}", f.message),
                None => f.message.clone(),
            },
        },
        locations: f
            .location
            .iter()
            .map(|l| SarifLocation {
                id: None,
                physical_location: physical(l),
                message: f.label.as_ref().map(|text| Text { text: text.clone() }),
            })
            .collect(),
        related_locations: f
            .related
            .iter()
            .map(|l| SarifLocation {
                id: Some(1),
                physical_location: physical(l),
                message: Some(Text {
                    text: format!("{} in the spec", f.related_role().0),
                }),
            })
            .collect(),
    }
}

/// A writer that replaces the number after each `"ruleIndex": ` by `map(number)`: results are
/// spooled with a placeholder index (the code's number in order of first use) and get their
/// rule's index when copied out. The key cannot occur elsewhere: quotes inside JSON strings are
/// escaped.
struct RuleIndexes<'a> {
    out: &'a mut dyn Write,
    map: &'a dyn Fn(usize) -> usize,
    /// Bytes of the key matched so far, or the placeholder's digits.
    state: State,
}

enum State {
    Key(usize),
    Digits(usize),
}

const KEY: &[u8] = b"\"ruleIndex\": ";

impl<'a> RuleIndexes<'a> {
    /// Rewrite into `out` with `map`.
    fn new(out: &'a mut dyn Write, map: &'a dyn Fn(usize) -> usize) -> Self {
        RuleIndexes {
            out,
            map,
            state: State::Key(0),
        }
    }

    /// Write what is pending (a number at the very end).
    fn finish(mut self) -> io::Result<()> {
        match self.state {
            State::Key(k) => self.out.write_all(&KEY[..k]),
            State::Digits(n) => {
                self.out.write_all(KEY)?;
                write!(self.out, "{}", (self.map)(n))
            }
        }?;
        self.state = State::Key(0);
        Ok(())
    }
}

impl Write for RuleIndexes<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // `plain` starts the bytes not yet written that are passed through as they are.
        let mut plain = 0;
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            match self.state {
                State::Key(k) => {
                    if b == KEY[k] {
                        if k == 0 {
                            self.out.write_all(&buf[plain..i])?;
                        }
                        self.state = if k + 1 == KEY.len() {
                            State::Digits(0)
                        } else {
                            State::Key(k + 1)
                        };
                        i += 1;
                        plain = i;
                    } else if k > 0 {
                        // Not the key: what matched goes out as it was; `b` is looked at again
                        // (a quote may start the key).
                        self.out.write_all(&KEY[..k])?;
                        self.state = State::Key(0);
                        plain = i;
                    } else if let Some(q) = memchr::memchr(b'"', &buf[i..]) {
                        i += q;
                    } else {
                        i = buf.len();
                    }
                }
                State::Digits(n) => {
                    if b.is_ascii_digit() {
                        self.state =
                            State::Digits(n.saturating_mul(10).saturating_add((b - b'0') as usize));
                        i += 1;
                        plain = i;
                    } else {
                        self.out.write_all(KEY)?;
                        write!(self.out, "{}", (self.map)(n))?;
                        self.state = State::Key(0);
                        plain = i;
                    }
                }
            }
        }
        self.out.write_all(&buf[plain..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Placeholders are replaced wherever the writes split the text; other text, quotes and
    /// near-misses of the key pass unchanged.
    #[test]
    fn rule_indexes_are_rewritten_across_any_split() {
        let text = "{\"ruleId\": \"a\",\n \"ruleIndex\": 12,\n \"x\": \"\\\"ruleIndex\\\": 3\"}\n\
                    \"ruleIndex\"x \"rule\" \"ruleIndex\": 0}\"ruleIndex\": 7";
        let want = text
            .replace("\"ruleIndex\": 12", "\"ruleIndex\": 112")
            .replace("\"ruleIndex\": 0", "\"ruleIndex\": 100")
            .replace("\"ruleIndex\": 7", "\"ruleIndex\": 107");
        let map = |n: usize| n + 100;
        for split in 1..=text.len() {
            let mut out = Vec::new();
            let mut w = RuleIndexes::new(&mut out, &map);
            for chunk in text.as_bytes().chunks(split) {
                w.write_all(chunk).unwrap();
            }
            w.finish().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), want, "chunks of {split}");
        }
    }
}
