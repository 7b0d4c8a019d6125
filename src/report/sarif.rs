//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers.
//!
//! A hand-written minimal model (as cargo-deny does) keeps field order and dependencies under our
//! control. GitHub needs, per result, a stable `ruleId`, a repository-relative
//! `artifactLocation.uri` and `region.startLine`; engine findings also carry the spec line as a
//! related location. Each rule's short description is its code's in [`crate::code`].

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::json::Indent;
use super::model::{Finding, Location, Report, Severity};
use crate::code::Code;

/// SARIF schema URI.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'a str,
    version: &'a str,
    runs: Vec<Run<'a>>,
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool<'a>,
    results: Vec<SarifResult>,
}

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
    let findings: Vec<&Finding> = report
        .errors
        .iter()
        .chain(&report.warnings)
        .chain(report.results.iter().flat_map(|r| r.findings.iter()))
        .collect();
    let codes = Codes::new(findings.iter().map(|f| f.code.as_str()));
    render_findings(&findings, &codes)
}

/// The rule table: every code used, sorted, numbered from 0.
#[derive(Debug, Default)]
pub struct Codes<'a>(BTreeMap<&'a str, usize>);

impl<'a> Codes<'a> {
    /// The table of `codes` (repeats and order do not matter).
    pub fn new(codes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set: Vec<&str> = codes.into_iter().collect();
        set.sort_unstable();
        set.dedup();
        Codes(set.into_iter().enumerate().map(|(i, c)| (c, i)).collect())
    }

    /// The rule index of `code` (0 for a code not in the table).
    pub fn index(&self, code: &str) -> usize {
        self.0.get(code).copied().unwrap_or(0)
    }
}

/// The document with `findings` as its results and `codes` as its rules.
fn render_findings(findings: &[&Finding], codes: &Codes<'_>) -> String {
    let rules = codes
        .0
        .keys()
        .map(|c| Rule {
            id: (*c).to_owned(),
            short_description: Text {
                text: Code::from_id(c)
                    .map_or_else(|| (*c).to_owned(), |d| d.description().to_owned()),
            },
        })
        .collect();
    let results = findings
        .iter()
        .map(|f| sarif_result(f, codes.index(&f.code)))
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "toolspec",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: "https://github.com/toolspec/toolspec",
                    rules,
                },
            },
            results,
        }],
    };
    let mut s = crate::text::json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
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

/// Write the results of `findings` as they appear in the `results` array of [`render`]'s
/// document (indented four levels, separated by `,` and a line break, none before the first or
/// after the last), each with the rule index `index` gives its code. The streaming reporter
/// writes a placeholder index here and fixes it with [`RuleIndexes`] once all codes are known.
pub fn write_results(
    findings: &[Finding],
    index: &mut dyn FnMut(&str) -> usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_results_streamed(&mut findings.iter().cloned(), index, out)
}

/// [`write_results`] of findings handed over one at a time.
pub fn write_results_streamed(
    findings: &mut dyn Iterator<Item = Finding>,
    index: &mut dyn FnMut(&str) -> usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    for (i, f) in findings.enumerate() {
        if i > 0 {
            out.write_all(b",\n")?;
        }
        let mut w = Indent {
            out: &mut *out,
            indent: b"        ",
        };
        w.out.write_all(w.indent)?;
        crate::text::json::to_writer_pretty(&mut w, &sarif_result(&f, index(&f.code)))
            .map_err(io::Error::other)?;
    }
    Ok(())
}

/// Writes results into a document; told whether they come first.
pub type WriteResults<'a> = dyn FnMut(&mut dyn Write, bool) -> io::Result<()> + 'a;

/// Write the document of `head`'s errors and warnings, with the rule table of `codes` (which
/// must hold theirs), and after their results those `more` writes, if any (as
/// [`write_results`] does, at least one, no separator before the first or after the last;
/// `more` is told whether they come first). Gives the bytes of [`render`] on the report whose
/// results hold the findings `more` writes.
pub fn write_document(
    head: &Report,
    codes: &Codes<'_>,
    more: Option<&mut WriteResults<'_>>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let findings: Vec<&Finding> = head.errors.iter().chain(&head.warnings).collect();
    let doc = render_findings(&findings, codes);
    // `results` is the run's last member: the document ends with it.
    const EMPTY_END: &str = "[]\n    }\n  ]\n}\n";
    const END: &str = "\n      ]\n    }\n  ]\n}\n";
    let Some(more) = more else {
        return out.write_all(doc.as_bytes());
    };
    if let Some(before) = doc.strip_suffix(EMPTY_END) {
        out.write_all(before.as_bytes())?;
        out.write_all(b"[\n")?;
        more(out, true)?;
    } else if let Some(before) = doc.strip_suffix(END) {
        out.write_all(before.as_bytes())?;
        more(out, false)?;
    } else {
        return Err(io::Error::other("unexpected SARIF layout"));
    }
    out.write_all(END.as_bytes())
}

/// A writer that replaces the number after each `"ruleIndex": ` by `map(number)`: results are
/// spooled with a placeholder index (the code's number in order of first use) and get their
/// rule's index when copied out. The key cannot occur elsewhere: quotes inside JSON strings are
/// escaped.
pub struct RuleIndexes<'a> {
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
    pub fn new(out: &'a mut dyn Write, map: &'a dyn Fn(usize) -> usize) -> Self {
        RuleIndexes {
            out,
            map,
            state: State::Key(0),
        }
    }

    /// Write what is pending (a number at the very end).
    pub fn finish(mut self) -> io::Result<()> {
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
