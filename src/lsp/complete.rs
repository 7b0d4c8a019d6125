//! Completion: what may stand at the cursor, read from the text before it (which need not
//! parse): keywords and setting words where a statement or a setting's value starts; after
//! `call`, `never`, `before` and `after first|last`, tool names (declared, written, and from
//! the transcripts the spec's globs match) and labels; inside `tool(`, the tool's argument keys;
//! after `label.args.` or `label.output.`, the fields the label's tool has in the transcripts.

use std::collections::BTreeMap;

use lsp_types::{CompletionItem, CompletionItemKind};

use super::outline::{Occ, Role};
use super::runs::Seen;
use crate::syntax::words::{ArgsWord, ExtraWord, Keyword, OrderWord, TypeWord};

/// Where the cursor is, as far as completion cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// Nothing to offer (in a string or comment).
    Nothing,
    /// Where an item starts: `include`, `tool`, `spec`.
    Top,
    /// Where a statement starts.
    Statement,
    /// A tool name (after `call`, `never`).
    Tool,
    /// A tool name or a label (after `before`, `after first|last`, or before `before`).
    ToolOrLabel,
    /// A key of the arguments of a call of this tool (`None`: the tool of a `tool` declaration
    /// or one not known).
    ArgKey(String),
    /// A key of an output of this tool (`call t(...) -> {`).
    OutputKey(String),
    /// A value in an argument list: constraint words and labels.
    Value,
    /// After `label.`: `args`, `output`.
    Part,
    /// After `label.args.` / `label.output.`: the label's tool's keys.
    LabelField { label: String, output: bool },
    /// The value of a setting: its words.
    Words(&'static [&'static str]),
    /// A transcript format name.
    Format,
    /// A rule code.
    Rule,
}

/// Where a scan of spec text stands with respect to string literals.
#[derive(Default)]
struct Strings {
    /// Inside a string literal.
    open: bool,
    /// The last character was a backslash inside one.
    escaped: bool,
}

impl Strings {
    /// Reads `c`: whether it belongs to a string literal (its quotes included), which the scan
    /// passes over.
    fn take(&mut self, c: char) -> bool {
        if self.open {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => self.open = false,
                _ => {}
            }
            true
        } else if c == '"' {
            self.open = true;
            true
        } else {
            false
        }
    }
}

/// What the text before the cursor (`before`) leaves open.
pub(crate) fn place(before: &str) -> Place {
    // One pass: strings, comments and open brackets.
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut strings = Strings::default();
    let mut in_comment = false;
    for (i, c) in before.char_indices() {
        if in_comment {
            if c == '\n' {
                in_comment = false;
            }
            continue;
        }
        if strings.take(c) {
            continue;
        }
        match c {
            '#' => in_comment = true,
            '(' | '{' | '[' => stack.push((c, i)),
            ')' | '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    if strings.open || in_comment {
        return Place::Nothing;
    }
    // The word being written, and the text of the statement before it.
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(before.len(), |(i, _)| i);
    let word = &before[word_start..];
    let head = &before[..word_start];
    // `label.args.` / `label.output.` / `label.`
    if let Some(p) = dotted(head, word) {
        return p;
    }
    let Some(&(open, at)) = stack.last() else {
        return Place::Top;
    };
    match open {
        '(' => {
            let inner = &before[at + 1..word_start];
            // The last item of the list, after its last comma at this depth.
            let item = last_item(inner);
            let tool = word_before(&before[..at]);
            if item.trim().is_empty() {
                match tool {
                    Some(t) if t != "tool" => Place::ArgKey(t.to_owned()),
                    _ => Place::Nothing,
                }
            } else if item.contains(':') {
                Place::Value
            } else {
                Place::Nothing
            }
        }
        '{' => {
            let opener = before[..at].trim_end();
            if let Some(call) = opener.strip_suffix("->") {
                let inner = last_item(&before[at + 1..word_start]);
                if !inner.trim().is_empty() {
                    return if inner.contains(':') {
                        Place::Value
                    } else {
                        Place::Nothing
                    };
                }
                let tool = call_tool(call);
                return tool.map_or(Place::Nothing, Place::OutputKey);
            }
            let line_start = head.rfind('\n').map_or(0, |i| i + 1).max(at + 1);
            statement(&before[line_start..word_start])
        }
        _ => Place::Value,
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-')
}

/// After `label.` (`Part`) or `label.args.` / `label.output.` (`LabelField`).
fn dotted(head: &str, _word: &str) -> Option<Place> {
    let head = head.strip_suffix('.')?;
    let prev_start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map(|(i, _)| i)?;
    let prev = &head[prev_start..];
    let before_prev = &head[..prev_start];
    if let Some(lhead) = before_prev.strip_suffix('.') {
        let lstart = lhead
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map(|(i, _)| i)?;
        let label = &lhead[lstart..];
        return match prev {
            "args" => Some(Place::LabelField {
                label: label.to_owned(),
                output: false,
            }),
            "output" => Some(Place::LabelField {
                label: label.to_owned(),
                output: true,
            }),
            _ => Some(Place::Nothing),
        };
    }
    Some(Place::Part)
}

/// The text after the last comma of `inner` that is at its depth.
fn last_item(inner: &str) -> &str {
    let mut depth = 0i32;
    let mut strings = Strings::default();
    let mut cut = 0;
    for (i, c) in inner.char_indices() {
        if strings.take(c) {
            continue;
        }
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => cut = i + 1,
            _ => {}
        }
    }
    &inner[cut..]
}

/// The word (a tool name) right before `text`'s end.
fn word_before(text: &str) -> Option<&str> {
    let text = text.trim_end();
    let start = text
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c) || matches!(c, '.' | '/' | ':'))
        .last()
        .map(|(i, _)| i)?;
    let w = &text[start..];
    // `SERVER::tool`: the tool.
    let w = w.rsplit("::").next().unwrap_or(w);
    let before = text[..start].trim_end();
    // A tool name follows `call`, `never`, `tool` or a count; a declaration is `tool`.
    if before.ends_with("tool") && !before.ends_with("_tool") {
        let prefix = &before[..before.len() - 4];
        if prefix.is_empty() || prefix.ends_with(char::is_whitespace) {
            return Some("tool");
        }
    }
    Some(w)
}

/// The tool of the `call` statement whose text (up to its `->`) is `call`.
fn call_tool(call: &str) -> Option<String> {
    let line = call.rsplit('\n').next().unwrap_or(call);
    let at = line.find("call ")?;
    let rest = line[at + 5..].trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| is_word(*c) || matches!(c, '.' | '/' | ':'))
        .collect();
    let name = name.rsplit("::").next().unwrap_or(&name).to_owned();
    (!name.is_empty()).then_some(name)
}

/// The place in a statement whose text before the word being written is `head`.
fn statement(head: &str) -> Place {
    let words: Vec<&str> = head.split_whitespace().collect();
    let Some(&last) = words.last() else {
        return Place::Statement;
    };
    match last {
        "call" | "never" => Place::Tool,
        "before" | "first" | "last" if words.first() != Some(&"turn") => Place::ToolOrLabel,
        "order" => Place::Words(OrderWord::WORDS),
        "args" => Place::Words(ArgsWord::WORDS),
        "extra" => Place::Words(ExtraWord::WORDS),
        "names" => Place::Words(NAMES),
        "format" => Place::Format,
        "rules" => Place::Words(&["deny"]),
        "deny" => Place::Rule,
        "type" => Place::Words(TypeWord::WORDS),
        "after" => Place::Words(&["first", "last"]),
        "turn" => Place::Words(&["last"]),
        "score" => Place::Words(&["per_argument"]),
        _ if words.first() == Some(&"names") && last.ends_with(',') => Place::Words(NAMES),
        _ if words.first() == Some(&"rules") && last.ends_with(',') => Place::Rule,
        _ if words.len() == 1 && last.ends_with(':') => Place::Statement,
        _ if words.iter().all(|w| is_prefix_word(w)) => Place::Statement,
        _ => Place::Nothing,
    }
}

/// The words of a `names` statement.
const NAMES: &[&str] = &["ignore_case", "unify_separators", "strip"];

/// Words that may come before `call` in an expectation (a label, `critical`, a count).
fn is_prefix_word(w: &str) -> bool {
    w.ends_with(':')
        || matches!(
            w,
            "critical"
                | "optional"
                | "repeat"
                | "at_least"
                | "at_most"
                | "exactly"
                | "between"
                | "and"
        )
        || w.parse::<u32>().is_ok()
}

/// The keywords that start a statement.
const STATEMENT: &[Keyword] = &[
    Keyword::Call,
    Keyword::Never,
    Keyword::Transcripts,
    Keyword::Format,
    Keyword::Order,
    Keyword::Args,
    Keyword::Names,
    Keyword::Threshold,
    Keyword::PassRate,
    Keyword::TotalCalls,
    Keyword::Extra,
    Keyword::Rules,
    Keyword::Score,
    Keyword::Binary,
    Keyword::Profile,
    Keyword::Optional,
    Keyword::AtLeast,
    Keyword::AtMost,
    Keyword::Exactly,
    Keyword::Between,
    Keyword::Critical,
    Keyword::Turn,
    Keyword::Agent,
    Keyword::After,
    Keyword::Answer,
    Keyword::Either,
    Keyword::Parallel,
];

/// The words that may start a constraint.
const VALUE: &[Keyword] = &[
    Keyword::Present,
    Keyword::Absent,
    Keyword::Any,
    Keyword::Type,
    Keyword::OneOf,
    Keyword::Contains,
    Keyword::Not,
    Keyword::In,
    Keyword::Exact,
    Keyword::Subset,
    Keyword::Fuzzy,
];

/// What completion knows besides the text.
pub(crate) struct Known<'a> {
    /// The names of the file (and of the spec around the cursor).
    pub(crate) occs: &'a [Occ],
    /// The spec around the cursor (its place among the file's items).
    pub(crate) spec: Option<usize>,
    /// The argument keys each declared tool names (file and includes).
    pub(crate) declared: &'a BTreeMap<String, Vec<String>>,
    /// What the spec's transcripts show.
    pub(crate) seen: &'a Seen,
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        detail,
        ..CompletionItem::default()
    }
}

/// A name as the grammar takes it: bare when it is an identifier (dots, slashes and dashes
/// inside for tools), else a string.
fn written(name: &str, tool: bool) -> Option<String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = name.chars().all(|c| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-' || (tool && matches!(c, '.' | '/'))
    }) && !name.ends_with(['.', '/']);
    if first_ok && rest_ok {
        None
    } else {
        Some(crate::text::json::to_string(&name).unwrap_or_default())
    }
}

/// Whether a name from a transcript may be offered: one with a control character (a line break,
/// a bidi override) cannot be typed as shown, and is left out.
fn showable(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(crate::text::is_control)
}

/// The completion items for `place`.
pub(crate) fn items(place: &Place, known: &Known<'_>) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    match place {
        Place::Nothing => {}
        Place::Top => {
            for k in [Keyword::Include, Keyword::Tool, Keyword::Spec] {
                out.push(item(k.as_str(), CompletionItemKind::KEYWORD, None));
            }
        }
        Place::Statement => {
            for k in STATEMENT {
                out.push(item(k.as_str(), CompletionItemKind::KEYWORD, None));
            }
        }
        Place::Tool => tools(known, &mut out),
        Place::ToolOrLabel => {
            labels(known, &mut out);
            tools(known, &mut out);
        }
        Place::ArgKey(tool) => arg_keys(known, tool, false, &mut out),
        Place::OutputKey(tool) => arg_keys(known, tool, true, &mut out),
        Place::Value => {
            for k in VALUE {
                out.push(item(k.as_str(), CompletionItemKind::KEYWORD, None));
            }
            labels(known, &mut out);
        }
        Place::Part => {
            for w in ["args", "output"] {
                out.push(item(w, CompletionItemKind::KEYWORD, None));
            }
        }
        Place::LabelField { label, output } => {
            let tool = known
                .occs
                .iter()
                .find(|o| o.role == Role::LabelDef && o.spec == known.spec && o.name == *label)
                .and_then(|o| o.tool.clone());
            if let Some(tool) = tool {
                arg_keys(known, &tool, *output, &mut out);
            }
        }
        Place::Words(words) => {
            for w in *words {
                out.push(item(w, CompletionItemKind::ENUM_MEMBER, None));
            }
        }
        Place::Format => {
            for f in crate::transcript::Format::ALL {
                out.push(item(f.name(), CompletionItemKind::ENUM_MEMBER, None));
            }
        }
        Place::Rule => {
            for c in crate::code::Code::ALL {
                if c.stage() == crate::code::Stage::Rule {
                    out.push(item(
                        c.name(),
                        CompletionItemKind::ENUM_MEMBER,
                        Some(c.description().to_owned()),
                    ));
                }
            }
        }
    }
    // Ordered as listed: the most used first where a count says so.
    for (i, it) in out.iter_mut().enumerate() {
        it.sort_text = Some(format!("{i:05}"));
    }
    out
}

fn labels(known: &Known<'_>, out: &mut Vec<CompletionItem>) {
    let mut seen = std::collections::BTreeSet::new();
    for o in known.occs {
        if o.role == Role::LabelDef && o.spec == known.spec && seen.insert(&o.name) {
            let detail = o.tool.as_ref().map(|t| format!("label of `call {t}`"));
            out.push(item(&o.name, CompletionItemKind::VARIABLE, detail));
        }
    }
}

/// Tool names: declared ones, those the spec already names, then the transcripts' by calls.
fn tools(known: &Known<'_>, out: &mut Vec<CompletionItem>) {
    let mut names: Vec<(String, Option<String>, usize)> = Vec::new();
    let mut push = |name: &str, detail: Option<String>, rank: usize| {
        if showable(name) && !names.iter().any(|(n, _, _)| n == name) {
            names.push((name.to_owned(), detail, rank));
        }
    };
    let mut by_calls: Vec<(&String, &super::runs::ToolSeen)> = known.seen.tools.iter().collect();
    by_calls.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
    for (name, t) in by_calls {
        let mut detail = format!(
            "{} call{} in {} of the spec's transcripts",
            t.calls,
            if t.calls == 1 { "" } else { "s" },
            t.files
        );
        if known.declared.contains_key(name) {
            detail.push_str("; declared");
        }
        push(name, Some(detail), 0);
    }
    for name in known.declared.keys() {
        push(name, Some("declared".to_owned()), 1);
    }
    for o in known.occs {
        if o.role == Role::ToolUse && o.spec == known.spec {
            push(&o.name, Some("named in this spec".to_owned()), 2);
        }
    }
    for (name, detail, _) in names {
        let mut it = item(&name, CompletionItemKind::FUNCTION, detail);
        it.insert_text = written(&name, true);
        out.push(it);
    }
}

/// The argument (or output) keys of `tool`: declared, from the schema a transcript declares,
/// then from the calls, most frequent first.
fn arg_keys(known: &Known<'_>, tool: &str, output: bool, out: &mut Vec<CompletionItem>) {
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, detail: String| {
        if showable(k) && !keys.iter().any(|(n, _)| n == k) {
            keys.push((k.to_owned(), detail));
        }
    };
    if !output {
        if let Some(declared) = known.declared.get(tool) {
            for k in declared {
                push(k, format!("declared by `tool {tool}`"));
            }
        }
    }
    if let Some(t) = known.seen.tools.get(tool) {
        if !output {
            let props = t
                .schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(serde_json::Value::as_object);
            let required: Vec<&str> = t
                .schema
                .as_ref()
                .and_then(|s| s.get("required"))
                .and_then(serde_json::Value::as_array)
                .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = props {
                for k in props.keys() {
                    let req = if required.contains(&k.as_str()) {
                        "required"
                    } else {
                        "optional"
                    };
                    push(k, format!("{req} in the schema a transcript declares"));
                }
            }
        }
        let counts = if output { &t.output } else { &t.args };
        let mut by_count: Vec<(&String, &usize)> = counts.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, n) in by_count {
            push(k, format!("in {n} of {} recorded calls", t.calls));
        }
    }
    for (k, detail) in keys {
        let mut it = item(&k, CompletionItemKind::FIELD, Some(detail));
        it.insert_text = written(&k, false);
        out.push(it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_follow_the_text_before_the_cursor() {
        assert_eq!(place(""), Place::Top);
        assert_eq!(place("spec s {\n  "), Place::Statement);
        assert_eq!(place("spec s {\n  ca"), Place::Statement);
        assert_eq!(place("spec s {\n  call "), Place::Tool);
        assert_eq!(place("spec s {\n  a: critical call Re"), Place::Tool);
        assert_eq!(place("spec s {\n  never "), Place::Tool);
        assert_eq!(place("spec s {\n  a before "), Place::ToolOrLabel);
        assert_eq!(place("spec s {\n  after last "), Place::ToolOrLabel);
        assert_eq!(
            place("spec s {\n  call Edit("),
            Place::ArgKey("Edit".into())
        );
        assert_eq!(
            place("spec s {\n  call Edit(file_path: \"a,b\", ol"),
            Place::ArgKey("Edit".into())
        );
        assert_eq!(place("spec s {\n  call Edit(file_path: "), Place::Value);
        assert_eq!(
            place("spec s {\n  call Edit(file_path: \"x"),
            Place::Nothing
        );
        assert_eq!(place("spec s {\n  # call "), Place::Nothing);
        assert_eq!(place("tool Edit("), Place::Nothing);
        assert_eq!(
            place("spec s {\n  call Edit -> {"),
            Place::OutputKey("Edit".into())
        );
        assert_eq!(place("spec s {\n  call g(x: r."), Place::Part);
        assert_eq!(
            place("spec s {\n  call g(x: r.args."),
            Place::LabelField {
                label: "r".into(),
                output: false
            }
        );
        assert_eq!(
            place("spec s {\n  call g(x: r.output.fi"),
            Place::LabelField {
                label: "r".into(),
                output: true
            }
        );
        assert_eq!(place("spec s {\n  order "), Place::Words(OrderWord::WORDS));
        assert_eq!(place("spec s {\n  rules deny "), Place::Rule);
        assert_eq!(place("spec s {\n  format "), Place::Format);
        assert_eq!(place("spec s {\n  threshold 0"), Place::Nothing);
    }

    #[test]
    fn names_that_are_no_identifier_are_written_as_strings() {
        assert_eq!(written("Read", true), None);
        assert_eq!(written("functions.get-order/v2", true), None);
        assert_eq!(written("send mail", true).as_deref(), Some("\"send mail\""));
        assert_eq!(written("a.b", false).as_deref(), Some("\"a.b\""));
        assert_eq!(written("9lives", false).as_deref(), Some("\"9lives\""));
    }
}
