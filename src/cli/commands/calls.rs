//! `toolspec calls FILE...`: print the tool calls extracted from transcripts.

use std::str::FromStr;

use serde_json::{json, Value};
use toolspec::transcript::{self, Format, Transcript};

use crate::cli::args::CallsArgs;
use crate::cli::output::{self, exit};
use crate::cli::stdin;

/// How a transcript read from standard input is shown.
const STDIN_NAME: &str = toolspec::check::run::STDIN_NAME;

/// `--json`: for one file, the truth-file shape — an array of `{name, args, id, output,
/// is_error}` (an array of such arrays for a JSONL dataset); for several files, an object from
/// file name to that value. Otherwise a table per transcript. Unreadable files are reported on
/// stderr with file:line:col and the others are still read.
///
/// Output is written as transcripts are read (`Reader::read_file_with` streams large JSONL files), so a
/// 1 GB dataset costs memory for one record, not for the file; the JSON text is the same as
/// pretty-printing the whole value at once. A dataset cut off mid-file keeps the records read
/// before the error.
pub(crate) fn run(args: CallsArgs) -> u8 {
    let color = args.color.enabled_stderr();
    // `--input-format` names a built-in reader, or else a custom mapping of the project's
    // toolspec.toml (found from the working folder), which then reads every file, standard
    // input included. Without it, the mappings read the files their `files` globs match.
    let named = args
        .input_format
        .as_deref()
        .map(|n| (n, Format::from_str(n)));
    let format = match &named {
        Some((_, Ok(f))) => Some(*f),
        _ => None,
    };
    let settings = match (format, std::env::current_dir()) {
        (None, Ok(cwd)) => match toolspec::check::settings::LoadedSettings::discover(&cwd) {
            Ok(s) => Some(s),
            Err(e) => {
                output::err(&output::render(&e, color));
                return exit::ERROR;
            }
        },
        _ => None,
    };
    let forced_mapping = if let Some((name, Err(e))) = &named {
        let found = settings
            .as_ref()
            .and_then(|s| s.mappings.iter().find(|m| m.name == *name));
        let Some(m) = found else {
            let text = match &settings {
                Some(s) => crate::cli::commands::check::unknown_reader(e, s),
                None => e.to_string(),
            };
            output::err(&format!("error: {}\n", output::esc(&text)));
            return exit::ERROR;
        };
        Some(m.clone())
    } else {
        None
    };
    // What `check` may read, `calls` may read.
    let guard = super::project_guard(args.allow_outside_root);
    let mut status = exit::OK;
    let several = args.files.len() > 1;
    let mut files_written = 0usize;
    let mut stdin_read = false;
    for path in &args.files {
        let from_stdin = stdin::is_stdin(path);
        let name = if from_stdin {
            STDIN_NAME.to_owned()
        } else {
            path.display().to_string()
        };
        // Standard input is read once, whole (up to `stdin::STDIN_LIMIT`).
        let bytes = if from_stdin {
            if std::mem::replace(&mut stdin_read, true) {
                continue;
            }
            match stdin::read() {
                Ok(b) => Some(b),
                Err(e) => {
                    output::err(&format!("error: {}\n", output::esc(&e)));
                    status = exit::ERROR;
                    continue;
                }
            }
        } else {
            None
        };
        let mut file = JsonFile::default();
        // Calls read from this file, and the format of its first transcript.
        let mut seen: (usize, Option<Format>) = (0, None);
        let mapping = match &forced_mapping {
            Some(m) => Some(m),
            // No `files` glob names standard input.
            None if from_stdin => None,
            None => settings.as_ref().and_then(|s| s.mapping_for(path)),
        };
        let emit = |t: Transcript| {
            seen.0 += t.calls.len();
            seen.1.get_or_insert(t.format);
            if !args.json {
                output::out(&toolspec::text::guard_lines(&table(
                    &name,
                    std::slice::from_ref(&t),
                )));
                return;
            }
            if file.records == 0 && !file.single {
                if several {
                    let key = toolspec::text::json::to_string(&name).unwrap_or_default();
                    let sep = if files_written == 0 { "{\n" } else { ",\n" };
                    output::out(&format!("{sep}  {key}: "));
                    files_written += 1;
                }
                if t.record.is_none() {
                    file.single = true;
                    write_calls(&t, if several { 2 } else { 0 }, &mut |s| output::out(s));
                    return;
                }
            }
            file.element(&t, several);
        };
        let read = match &bytes {
            Some(b) => transcript::Reader::new()
                .format(format)
                .mapping(mapping.map(|m| &**m))
                .read_with(&name, b, emit),
            // A mapping reads the file whole, as `check` does.
            None => transcript::Reader::new()
                .format(format)
                .mapping(mapping.map(|m| &**m))
                .guard(&guard)
                .read_file_with(path, emit),
        };
        if args.json {
            file.close(several);
        }
        match (read, seen) {
            (Err(e), _) => {
                output::err(&output::render(&e, color));
                status = exit::ERROR;
            }
            // Read, but not a single call: most likely the wrong reader; never said silently.
            (Ok(()), (0, Some(f))) => {
                let warning = toolspec::check::no_calls_warning(
                    &name,
                    f,
                    format.is_some() || mapping.is_some(),
                );
                let report = toolspec::report::model::Report {
                    warnings: vec![warning],
                    ..Default::default()
                };
                let opts = toolspec::report::human::Options {
                    color,
                    verbose: false,
                    width: output::terminal_width(),
                    summary: false,
                };
                output::err(&toolspec::report::human::render_run_findings(
                    &report,
                    &|_| None,
                    opts,
                ));
            }
            (Ok(()), _) => {}
        }
    }
    if args.json {
        match (several, files_written) {
            (true, 0) => output::out("{}\n"),
            (true, _) => output::out("\n}\n"),
            (false, _) => {}
        }
    }
    status
}

/// The `--json` value of one file being written: a single transcript's array, or the array of
/// a dataset's records (opened at the first record).
#[derive(Default)]
struct JsonFile {
    single: bool,
    records: usize,
}

impl JsonFile {
    fn element(&mut self, t: &Transcript, several: bool) {
        let base = if several { 2 } else { 0 };
        let open = if self.records == 0 { "[\n" } else { ",\n" };
        output::out(&format!("{open}{}", " ".repeat(base + 2)));
        write_calls(t, base + 2, &mut |s| output::out(s));
        self.records += 1;
    }

    fn close(&self, several: bool) {
        let base = if several { 2 } else { 0 };
        if self.records > 0 {
            output::out(&format!("\n{}]", " ".repeat(base)));
        }
        if !several && (self.single || self.records > 0) {
            output::out("\n");
        }
    }
}

/// `v` pretty-printed as `serde_json::to_string_pretty` does, for a value that starts `indent`
/// spaces in (every line after the first is shifted; JSON strings hold no raw newlines).
fn pretty(v: &Value, indent: usize) -> String {
    let text = toolspec::text::json::to_string_pretty(v).unwrap_or_default();
    if indent == 0 {
        return text;
    }
    let pad = format!("\n{}", " ".repeat(indent));
    text.replace('\n', &pad)
}

/// The `--json` value of a transcript: the array of its calls ([`call_json`]). The command
/// writes it one call at a time ([`write_calls`]); the Python module returns it whole.
pub fn calls_json(t: &Transcript) -> Value {
    Value::Array(t.calls.iter().map(call_json).collect())
}

/// One call as `--json` shows it: `{name, args, id, output, is_error}`, and its user turn,
/// sub-agent and tool namespace where the reader records them.
fn call_json(c: &transcript::ToolCall) -> Value {
    let mut v = json!({"name": c.name, "args": c.args, "id": c.id, "output": c.output, "is_error": c.is_error});
    if let Some(m) = v.as_object_mut() {
        if let Some(turn) = c.turn {
            m.insert("turn".into(), json!(turn));
        }
        if let Some(agent) = &c.agent {
            m.insert("agent".into(), json!(agent));
        }
        if let Some(namespace) = &c.namespace {
            m.insert("namespace".into(), json!(namespace));
        }
    }
    v
}

/// Bytes of text gathered before they are written.
const WRITE_CHUNK: usize = 64 << 10;

/// `pretty(&calls_json(t), indent)`, written to `out` one call at a time: the text (and the
/// JSON values) of a session of a million calls never exist whole, only one call's.
fn write_calls(t: &Transcript, indent: usize, out: &mut dyn FnMut(&str)) {
    if t.calls.is_empty() {
        out("[]");
        return;
    }
    let mut buf = String::from("[\n");
    let pad = " ".repeat(indent + 2);
    for (i, c) in t.calls.iter().enumerate() {
        if i > 0 {
            buf.push_str(",\n");
        }
        buf.push_str(&pad);
        buf.push_str(&pretty(&call_json(c), indent + 2));
        if buf.len() >= WRITE_CHUNK {
            out(&buf);
            buf.clear();
        }
    }
    buf.push('\n');
    buf.push_str(&" ".repeat(indent));
    buf.push(']');
    out(&buf);
}

/// The table of each transcript's calls; every piece of data in it is escaped (the first line
/// starts with the file name: the caller guards the lines, [`toolspec::text::guard_lines`]).
fn table(name: &str, transcripts: &[Transcript]) -> String {
    use output::esc;
    let name = esc(name);
    let mut out = String::new();
    for t in transcripts {
        let at = t.record.map(|r| format!(":{}", r.line)).unwrap_or_default();
        out.push_str(&format!(
            "{name}{at} ({}, {} call{})\n",
            t.format,
            t.calls.len(),
            if t.calls.len() == 1 { "" } else { "s" }
        ));
        // A tool of a named server is shown as a spec names it: `SERVER::TOOL`.
        let names: Vec<_> = t
            .calls
            .iter()
            .map(|c| match &c.namespace {
                Some(ns) => format!("{}::{}", esc(ns), esc(&c.name)),
                None => esc(&c.name).into_owned(),
            })
            .collect();
        let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        for (i, (c, name)) in t.calls.iter().zip(&names).enumerate() {
            let json = toolspec::text::json::to_string(&c.args).unwrap_or_default();
            let args = clip(&esc(&json), 70);
            let err = if c.is_error { "ERROR " } else { "      " };
            out.push_str(&format!("  {:>3}  {name:<width$}  {err}{args}\n", i + 1));
        }
        for f in &t.findings {
            out.push_str(&format!("  note: {} [{}]\n", esc(&f.message), esc(f.code)));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Written one call at a time, the text is the whole value pretty-printed, at every
    /// indentation `--json` uses.
    #[test]
    fn calls_are_written_as_the_whole_value_prints() {
        let text = br#"[{"name": "a", "args": {"q": [1, {"x": null}]}},
            {"name": "b", "args": {}, "output": "ok", "is_error": true}]"#;
        let mut transcripts = transcript::Reader::new().read("t.json", text).unwrap();
        let many = transcript::Reader::new()
            .read(
                "m.json",
                format!(
                    "[{}{{\"name\":\"z\",\"args\":{{}}}}]",
                    "{\"name\":\"y\",\"args\":{\"k\":\"v\"}},".repeat(3000)
                )
                .as_bytes(),
            )
            .unwrap();
        transcripts.extend(many);
        let mut empty = transcripts[0].clone();
        empty.calls.clear();
        transcripts.push(empty);
        for t in &transcripts {
            for indent in [0, 2, 4] {
                let mut got = String::new();
                write_calls(t, indent, &mut |s| got.push_str(s));
                assert_eq!(got, pretty(&calls_json(t), indent));
            }
        }
    }
}
