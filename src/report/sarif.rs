//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers.
//!
//! A hand-written minimal model (as cargo-deny does) keeps field order and dependencies under our
//! control. GitHub needs, per result, a stable `ruleId`, a repository-relative
//! `artifactLocation.uri` and `region.startLine`; engine findings also carry the spec line as a
//! related location.

use std::collections::BTreeMap;

use serde::Serialize;

use super::model::{Finding, Location, Report, Severity};

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

/// Render the report as SARIF. `describe` gives a rule's short description from its code.
pub fn render(report: &Report, describe: &dyn Fn(&str) -> Option<String>) -> String {
    let findings: Vec<&Finding> = report
        .errors
        .iter()
        .chain(&report.warnings)
        .chain(report.results.iter().flat_map(|r| r.findings.iter()))
        .collect();
    let codes: BTreeMap<&str, usize> = {
        let mut set: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
        set.sort_unstable();
        set.dedup();
        set.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules = codes
        .keys()
        .map(|c| Rule {
            id: (*c).to_owned(),
            short_description: Text {
                text: describe(c).unwrap_or_else(|| (*c).to_owned()),
            },
        })
        .collect();
    let results = findings
        .iter()
        .map(|f| SarifResult {
            rule_id: f.code.clone(),
            rule_index: codes[f.code.as_str()],
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
                        text: "expectation in the spec".to_owned(),
                    }),
                })
                .collect(),
        })
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
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}
