//! `toolspec calls FILE...`: print the tool calls extracted from transcripts.

use std::str::FromStr;

use serde_json::{json, Value};
use toolspec::transcript::{self, Format, Transcript};

use crate::cli::args::CallsArgs;
use crate::cli::output::{self, exit};

/// `--json`: for one file, the truth-file shape — an array of `{name, args, id, output,
/// is_error}` (an array of such arrays for a JSONL dataset); for several files, an object from
/// file name to that value. Otherwise a table per transcript. Unreadable files are reported on
/// stderr with file:line:col and the others are still read.
pub fn run(args: CallsArgs) -> u8 {
    let color = args.color.enabled_stderr();
    let format = match args.format.as_deref().map(Format::from_str) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            output::err(&format!("error: {e}\n"));
            return exit::ERROR;
        }
    };
    let mut status = exit::OK;
    let mut by_file = serde_json::Map::new();
    for path in &args.files {
        let name = path.display().to_string();
        let transcripts = match transcript::read_file(path, format) {
            Ok(t) => t,
            Err(e) => {
                output::err(&output::render(&e, color));
                status = exit::ERROR;
                continue;
            }
        };
        if args.json {
            by_file.insert(name, file_json(&transcripts));
        } else {
            output::out(&table(&name, &transcripts));
        }
    }
    if args.json {
        let value = if args.files.len() == 1 {
            by_file.into_iter().next().map(|(_, v)| v)
        } else {
            Some(Value::Object(by_file))
        };
        if let Some(v) = value {
            output::out(&serde_json::to_string_pretty(&v).unwrap_or_default());
            output::out("\n");
        }
    }
    status
}

fn calls_json(t: &Transcript) -> Value {
    Value::Array(
        t.calls
            .iter()
            .map(|c| {
                json!({"name": c.name, "args": c.args, "id": c.id, "output": c.output, "is_error": c.is_error})
            })
            .collect(),
    )
}

fn file_json(transcripts: &[Transcript]) -> Value {
    match transcripts {
        [one] if one.record.is_none() => calls_json(one),
        many => Value::Array(many.iter().map(calls_json).collect()),
    }
}

fn table(name: &str, transcripts: &[Transcript]) -> String {
    let mut out = String::new();
    for t in transcripts {
        let at = t.record.map(|r| format!(":{}", r.line)).unwrap_or_default();
        out.push_str(&format!(
            "{name}{at} ({}, {} call{})\n",
            t.format,
            t.calls.len(),
            if t.calls.len() == 1 { "" } else { "s" }
        ));
        let width = t
            .calls
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0);
        for (i, c) in t.calls.iter().enumerate() {
            let args = clip(&serde_json::to_string(&c.args).unwrap_or_default(), 70);
            let err = if c.is_error { "ERROR " } else { "      " };
            out.push_str(&format!(
                "  {:>3}  {:<width$}  {err}{args}\n",
                i + 1,
                c.name
            ));
        }
        for f in &t.findings {
            out.push_str(&format!("  note: {} [{}]\n", f.message, f.code));
        }
    }
    out
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}
