//! Turning a pest error into a readable syntax diagnostic: rule names become words.

use pest::error::{ErrorVariant, InputLocation};
use pest::Parser as _;

use super::parser::{keyword_of, Grammar, Rule};
use super::words::{Keyword, Starts};
use super::SpecDiagnostic;
use crate::code::Code;
use crate::source::{SourceFile, Span};

/// What the user would call the thing a rule matches: a keyword by itself (from the keyword
/// table), any other rule by a word here.
fn word(rule: Rule) -> Option<&'static str> {
    use Rule::{
        after_block, after_edge, agent_block, agent_runs_stmt, answer_stmt, any_tool, arg,
        arg_list, args_stmt, args_tokens_stmt, bare_tool, before_stmt, binary_stmt, block, boolean,
        c_absent, c_any, c_contains, c_exact, c_fuzzy, c_fuzzy_tokens, c_not, c_one_of, c_present,
        c_subset, c_type, cmp, cmp_op, conjunction, constraint, count_op, critical, each_seg,
        either_stmt, errored, escape, expectation, extra_stmt, field_list, format_stmt, ident,
        include, index, int, json_array, json_member, json_object, keyword, label, name_opt,
        names_stmt, never_stmt, null, number, order_stmt, output, parallel_stmt, pass_rate_pct,
        pass_rate_stmt, path, profile_opt, profile_opts, profile_stmt, range, range_op, ref_cmp,
        ref_in, ref_part, reference, regex, regex_body, regex_flags, rep_at_least, rep_at_most,
        rep_between, rep_exactly, rep_optional, repeat, rule_code, rules_stmt, score_entry,
        score_mode_stmt, score_stmt, spec, spread, str_inner, string, threshold_stmt, tool_decl,
        tool_name, total_calls_stmt, transcripts_stmt, turn_block, turn_sel, unknown_stmt, weight,
        whole_exact, whole_subset, EOI,
    };
    if let Some(k) = keyword_of(rule) {
        return Some(k.quoted());
    }
    Some(match rule {
        EOI => "end of file",
        include => Keyword::Include.quoted(),
        tool_decl => Keyword::Tool.quoted(),
        spec => Keyword::Spec.quoted(),
        transcripts_stmt | order_stmt | format_stmt | args_stmt | names_stmt | threshold_stmt
        | extra_stmt | score_stmt | binary_stmt | profile_stmt | never_stmt | before_stmt
        | rules_stmt | pass_rate_stmt | unknown_stmt | score_mode_stmt | args_tokens_stmt => {
            "a statement"
        }
        rule_code => "a rule code such as `schema-violation`",
        expectation => Keyword::Call.quoted(),
        label => "a label",
        repeat | rep_optional | rep_at_least | rep_at_most | rep_exactly | rep_between => {
            Keyword::Call.quoted()
        }
        critical => Keyword::Critical.quoted(),
        either_stmt => Keyword::Either.quoted(),
        parallel_stmt => Keyword::Parallel.quoted(),
        block => "`{`",
        name_opt => "a name rule",
        score_entry => "a score entry such as `exact 1`",
        profile_opts => "`{`",
        profile_opt => "a profile option",
        output => "`->`",
        errored => Keyword::Errored.quoted(),
        weight => Keyword::Weight.quoted(),
        whole_exact | c_exact => Keyword::Exact.quoted(),
        whole_subset | c_subset => Keyword::Subset.quoted(),
        arg_list => "`(`",
        field_list => "`{`",
        spread => "`...`",
        arg | path => "an argument name",
        index => "an index",
        constraint | conjunction | c_not | reference | regex | range | cmp | c_type | c_one_of
        | c_contains | c_fuzzy | c_fuzzy_tokens | c_present | c_absent | c_any | ref_cmp
        | ref_in => "a value or constraint",
        each_seg => "`[*]`",
        ref_part => "`output` or `args`",
        regex_body => "a regular expression",
        regex_flags => "regex flags",
        range_op => "`..`",
        cmp_op => "a comparison",
        json_object => "a JSON object",
        json_array => "`[`",
        json_member => "a quoted key",
        boolean => "`true` or `false`",
        null => "`null`",
        string => "a string",
        str_inner => "string text",
        escape => "an escape such as `\\n` or `\\u00e9`",
        number => "a number",
        int => "a whole number",
        ident | keyword => "a name",
        tool_name | bare_tool => "a tool name",
        any_tool => "`*`",
        pass_rate_pct => "`%`",
        turn_block => Keyword::Turn.quoted(),
        turn_sel => "a turn number or `last`",
        agent_block | agent_runs_stmt => Keyword::Agent.quoted(),
        after_block => Keyword::After.quoted(),
        after_edge => "`first` or `last`",
        total_calls_stmt => "a statement",
        count_op => "a comparison (`<=`, `>=`, `==`)",
        answer_stmt => Keyword::Answer.quoted(),
        _ => return None,
    })
}

/// What may start a file item (pest reports only `file` there).
fn item_words() -> impl Iterator<Item = &'static str> {
    Keyword::items().map(Keyword::quoted)
}

/// The words of everything a constraint term can start with: where a term is expected they are
/// said as one, "a value or constraint".
const TERM_STARTS: &[&str] = &[
    "`[`",
    "`{`",
    "`..`",
    "`absent`",
    "`any`",
    "`contains`",
    "`exact`",
    "`fuzzy`",
    "`in`",
    "`not`",
    "`null`",
    "`one_of`",
    "`present`",
    "`subset`",
    "`true` or `false`",
    "`type`",
    "a JSON object",
    "a comparison",
    "a name",
    "a number",
    "a regular expression",
    "a string",
    "a value or constraint",
];

/// The words of everything a JSON value can start with, said as one: "a JSON value".
const JSON_STARTS: &[&str] = &[
    "`[`",
    "`{`",
    "`null`",
    "`true` or `false`",
    "a JSON object",
    "a number",
    "a string",
];

fn join_words(words: &[String]) -> String {
    match words {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// Describe what is at `offset`: the word or character found there.
fn found_at(text: &str, offset: usize) -> (String, Span) {
    let rest = &text[offset.min(text.len())..];
    let Some(c) = rest.chars().next() else {
        // Point just after the last word, where something is missing (a label past the last line
        // break is not drawn); at the very end of the text, under the last character.
        let end = text.trim_end().len();
        let span = match text[..end].chars().next_back() {
            Some(last) if end == text.len() => Span::new(end - last.len_utf8(), end),
            _ => Span::point(end),
        };
        return ("end of file".to_owned(), span);
    };
    if c == '\n' || c == '\r' {
        return ("end of line".to_owned(), Span::point(offset));
    }
    if c.is_alphanumeric() || c == '_' {
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        return (
            format!("`{}`", &rest[..len]),
            Span::new(offset, offset + len),
        );
    }
    (format!("`{c}`"), Span::new(offset, offset + c.len_utf8()))
}

/// Serialises detailed parses: pest's detail switch is one global flag, read when a parse starts,
/// so two threads explaining errors at once could turn it off under each other.
static DETAIL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The literal tokens pest's detailed attempts expected at the furthest position it reached in
/// `text`, with that position; `None` if `text` parses.
fn detailed_tokens(text: &str) -> Option<(usize, Vec<String>)> {
    let guard = DETAIL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    pest::set_error_detail(true);
    let detailed = Grammar::parse(Rule::file, text).err();
    pest::set_error_detail(false);
    drop(guard);
    let attempts = detailed?.parse_attempts()?;
    let tokens = attempts
        .expected_tokens()
        .into_iter()
        // `ParsingToken` is not exported; its Debug form names the variant.
        .filter(|t| format!("{t:?}").starts_with("Sensitive"))
        .map(|t| t.to_string())
        .collect();
    Some((attempts.max_position, tokens))
}

/// Build the syntax diagnostic for a failed parse of `source`.
pub(crate) fn syntax_error(source: &SourceFile, err: pest::error::Error<Rule>) -> SpecDiagnostic {
    let offset = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let mut words: Vec<String> = Vec::new();
    let mut term_context = false;
    let mut top_level = false;
    if let ErrorVariant::ParsingError { positives, .. } = &err.variant {
        for r in positives {
            if let Some(w) = word(*r) {
                words.push(w.to_owned());
            }
            match r {
                // Between items: pest names only the whole-file rule.
                Rule::file => {
                    top_level = true;
                    words.extend(item_words().map(str::to_owned));
                }
                Rule::include
                | Rule::tool_decl
                | Rule::spec
                | Rule::k_include
                | Rule::k_tool
                | Rule::k_spec => top_level = true,
                // After `and` or `not`, pest lists every way a term can start.
                Rule::k_present | Rule::c_present | Rule::constraint | Rule::conjunction => {
                    term_context = true;
                }
                _ => {}
            }
        }
    }
    // Literal tokens (`)`, `,`, `:`) are only known with pest's detailed attempts, which cost time;
    // collect them on the error path only, by parsing again. Those attempts see inside atomic
    // rules, so an unknown statement's unclosed `{ ...` can carry them past the error; then the
    // text up to the error tells what could follow there.
    let tokens = match detailed_tokens(&source.text) {
        Some((at, tokens)) if at == offset => Some(tokens),
        _ => detailed_tokens(&source.text[..offset])
            .filter(|(at, _)| *at == offset)
            .map(|(_, tokens)| tokens),
    };
    for token in tokens.unwrap_or_default() {
        // Only closing and separating punctuation is worth naming; opening characters of
        // strings, numbers or regexes are already covered by the rule's word.
        if matches!(
            token.as_str(),
            ")" | "]" | "}" | "," | ":" | "(" | "{" | "->"
        ) {
            words.push(format!("`{token}`"));
        }
    }
    // Keywords are written as one word; avoid listing every statement keyword.
    words.sort();
    words.dedup();
    if top_level {
        // An unknown word there parses (the compiler names it); what fails is anything else.
        words.retain(|w| w != "a statement");
    }
    if term_context {
        words.retain(|w| !TERM_STARTS.contains(&w.as_str()));
        words.push("a value or constraint".to_owned());
    } else if JSON_STARTS
        .iter()
        .all(|j| *j == "`{`" || words.iter().any(|w| w == j))
    {
        words.retain(|w| !JSON_STARTS.contains(&w.as_str()));
        words.push("a JSON value".to_owned());
    }
    if words.iter().any(|w| w == "a statement") {
        // Every word that starts a statement is "a statement" already.
        words.retain(|w| {
            !(matches!(w.as_str(), "a label" | "a tool name")
                || Keyword::statements().any(|k| k.quoted() == w))
        });
    }
    // Put punctuation and keywords before descriptions, for a stable, readable order.
    words.sort_by_key(|w| (!w.starts_with('`'), w.clone()));
    let (found, span) = found_at(&source.text, offset);
    // At the end of the file, what matters is what was left open.
    if found == "end of file"
        && words
            .iter()
            .any(|w| matches!(w.as_str(), "`}`" | "`)`" | "`]`"))
    {
        words.retain(|w| matches!(w.as_str(), "`}`" | "`)`" | "`]`"));
    }
    if let Some(d) = misplaced(source, &found, span, top_level, &words) {
        return d;
    }
    let expected = join_words(&words);
    let help = if top_level {
        "a file holds `include \"path\"`, `tool name(...)` and `spec name { ... }` items; a `}` too many ends a spec early"
    } else if words.iter().any(|w| w == "a value or constraint") {
        "a value is JSON (`\"text\"`, `42`, `[1, 2]`, `{\"k\": true}`, `null`) or a constraint such as `present`, `type string`, `/regex/`, `1..=10` or `one_of [..]`"
    } else if words.iter().any(|w| w == "a statement") {
        "statements include `transcripts`, `order`, `args`, `call`, `never`, `a before b`; see docs/language.md"
    } else if found == "end of file"
        && words
            .iter()
            .all(|w| matches!(w.as_str(), "`}`" | "`)`" | "`]`"))
    {
        "something is not closed: check for a missing `)`, `}`, `]` or `\"`"
    } else {
        "see docs/language.md for the syntax"
    };
    // A string or regex that does not end on its line fails where it starts, which the words
    // above would call a wrong character: say what is wrong.
    let rest = &source.text[offset.min(source.text.len())..];
    if rest.starts_with('"') && !closed_on_line(&rest[1..], '"') {
        return SpecDiagnostic::error(Code::Syntax, source, "unclosed string")
            .label(span, "this string does not end on its line")
            .help("close it with `\"`; a string stays on one line (write a line break as `\\n`)");
    }
    if rest.starts_with('/')
        && words.iter().any(|w| w == "a value or constraint")
        && !closed_on_line(&rest[1..], '/')
    {
        return SpecDiagnostic::error(Code::Syntax, source, "unclosed regular expression")
            .label(span, "this regex does not end on its line")
            .help("close it with `/` (write `/` inside it as `\\/`); a regex stays on one line");
    }
    SpecDiagnostic::error(
        Code::Syntax,
        source,
        format!("expected {expected}, found {found}"),
    )
    .label(span, format!("expected {expected}"))
    .help(help)
}

/// A keyword that starts something, found where that cannot stand: a statement outside any
/// spec (`call x` at the top of a file), or a file item inside a spec (`tool x(...)` between a
/// spec's braces). Said as such rather than as what else was expected.
fn misplaced(
    source: &SourceFile,
    found: &str,
    span: Span,
    top_level: bool,
    words: &[String],
) -> Option<SpecDiagnostic> {
    let in_spec = words.iter().any(|w| w == "a statement");
    // Inside a spec, `tool x(...)` reads `tool` as a tool name and fails at `x`: the word that
    // starts the line is the one out of place.
    let line_start = source.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let before = source.text[line_start..span.start].trim();
    let (keyword, span, in_spec) = match before.parse::<Keyword>() {
        Ok(k) if !top_level && k.starts() == Starts::Item => {
            let line = &source.text[line_start..];
            let at = line_start + (line.len() - line.trim_start().len());
            (k, Span::new(at, at + k.as_str().len()), true)
        }
        _ => {
            let word = found.strip_prefix('`')?.strip_suffix('`')?;
            (word.parse::<Keyword>().ok()?, span, in_spec)
        }
    };
    let (message, label, help) = match keyword.starts() {
        Starts::Statement
            if top_level
                && !in_spec
                && words
                    .iter()
                    .all(|w| w == "end of file" || Keyword::items().any(|k| k.quoted() == w)) =>
        {
            (
            format!("{} cannot be written outside a spec", keyword.quoted()),
            "a statement outside any `spec`",
            "statements are written inside `spec NAME { ... }`; if this one belongs to the spec \
             above, a `}` too many ended it early",
            )
        }
        Starts::Item if in_spec && !top_level => (
            format!("{} cannot be written inside a spec", keyword.quoted()),
            "a file item inside a `spec`",
            "`include`, `tool` and `spec` are items of the file: write it before or after the \
             spec (a spec that is not closed with `}` takes in what follows it)",
        ),
        _ => return None,
    };
    Some(
        SpecDiagnostic::error(Code::MisplacedStatement, source, message)
            .label(span, label)
            .help(help),
    )
}

/// Whether `close` appears, not escaped by `\\`, before the end of the line.
fn closed_on_line(text: &str, close: char) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            // An escape: skip the escaped character, unless the line ends there.
            '\\' => match chars.next() {
                None | Some('\n') => return false,
                Some(_) => {}
            },
            '\n' => return false,
            c if c == close => return true,
            _ => {}
        }
    }
    false
}
