//! Regex literals: unescape `\/`, compile once per file, and point errors into the literal.

use std::collections::HashMap;

use crate::code::Code;
use crate::config::pattern::SIZE_LIMIT;
use crate::config::Pattern;
use crate::source::{SourceFile, Span};
use crate::syntax::SpecDiagnostic;

/// The most bytes the compiled regular expressions of one compilation (a spec file and what
/// it includes) may hold together, as [`Pattern::memory_usage`] counts them.
pub const MAX_REGEX_BYTES: usize = 32 << 20;

/// Compiled patterns of one compilation, by source text: a pattern written twice (or inherited
/// from a `tool` declaration by many expectations) is compiled once.
#[derive(Default)]
pub(crate) struct RegexCache {
    compiled: HashMap<String, Pattern>,
    /// Bytes held by `compiled`.
    used: usize,
    /// Whether a pattern went past [`MAX_REGEX_BYTES`]: no more are compiled.
    spent: bool,
}

impl RegexCache {
    /// Compile the literal `/body/flags` whose body is at `body_span` in `src`.
    pub(crate) fn compile(
        &mut self,
        src: &SourceFile,
        body: &str,
        body_span: Span,
        flags: &str,
    ) -> Result<Pattern, SpecDiagnostic> {
        // The pattern text and, for each of its bytes, the source offset it comes from.
        let mut pattern = String::with_capacity(body.len() + 6);
        let mut offsets = Vec::with_capacity(body.len() + 6);
        let prefix = if flags.is_empty() {
            String::new()
        } else {
            format!("(?{flags})")
        };
        for _ in 0..prefix.len() {
            offsets.push(body_span.start);
        }
        pattern.push_str(&prefix);
        let mut chars = body.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\\' && matches!(chars.peek(), Some((_, '/'))) {
                let (j, slash) = chars.next().expect("peeked");
                let _ = j;
                pattern.push(slash);
                offsets.push(body_span.start + i);
                continue;
            }
            pattern.push(c);
            for _ in 0..c.len_utf8() {
                offsets.push(body_span.start + i);
            }
        }
        offsets.push(body_span.end);
        if let Some(p) = self.compiled.get(&pattern) {
            return Ok(p.clone());
        }
        let over_budget = |used: usize| {
            SpecDiagnostic::error(
                Code::RegexTooLarge,
                src,
                "too many large regular expressions in this file",
            )
            .label(body_span, format!("past the {} MiB the regular expressions of a file may take together", MAX_REGEX_BYTES >> 20))
            .help(format!(
                "the regular expressions before this one take {} KiB compiled; bounded repetitions of Unicode classes (`\\w{{200}}`) are large: use ASCII classes (`[0-9A-Za-z_]`, `(?-u:\\w)`), smaller counts or unbounded repetition",
                used >> 10
            ))
        };
        if self.spent {
            return Err(over_budget(self.used));
        }
        match Pattern::new(&pattern) {
            Ok(p) => {
                if self.used + p.memory_usage() > MAX_REGEX_BYTES {
                    self.spent = true;
                    return Err(over_budget(self.used));
                }
                self.used += p.memory_usage();
                self.compiled.insert(pattern, p.clone());
                Ok(p)
            }
            Err(regex::Error::CompiledTooBig(limit)) => Err(SpecDiagnostic::error(
                Code::RegexTooLarge,
                src,
                "regular expression too large",
            )
            .label(body_span, format!("compiles to more than the {} MiB one regular expression may take", limit >> 20))
            .help(format!(
                "a regular expression compiles to at most {} MiB; bounded repetitions of Unicode classes (`\\w{{200}}`) are large: use ASCII classes (`[0-9A-Za-z_]`, `(?-u:\\w)`), smaller counts or unbounded repetition",
                SIZE_LIMIT >> 20
            ))),
            Err(e) => {
                let (span, what) = locate(&pattern, &offsets, body_span)
                    .unwrap_or_else(|| (body_span, e.to_string()));
                Err(SpecDiagnostic::error(
                    Code::InvalidRegex,
                    src,
                    format!("invalid regular expression: {what}"),
                )
                .label(span, what)
                .help("regexes use the syntax of the Rust `regex` crate (no look-around or backreferences); escape `/` as `\\/`"))
            }
        }
    }
}

/// Find where in the source the pattern goes wrong, with regex-syntax's description.
fn locate(pattern: &str, offsets: &[usize], whole: Span) -> Option<(Span, String)> {
    let map = |start: usize, end: usize| {
        let s = offsets.get(start).copied().unwrap_or(whole.end);
        let e = offsets.get(end).copied().unwrap_or(whole.end).max(s);
        // An empty error span (e.g. "unclosed group" at the end) still gets one character.
        if e == s {
            Span::new(s, (s + 1).min(whole.end.max(s + 1)))
        } else {
            Span::new(s, e)
        }
    };
    let ast = regex_syntax::ast::parse::Parser::new().parse(pattern);
    match ast {
        Err(e) => {
            let sp = e.span();
            Some((map(sp.start.offset, sp.end.offset), e.kind().to_string()))
        }
        Ok(ast) => match regex_syntax::hir::translate::Translator::new().translate(pattern, &ast) {
            Err(e) => {
                let sp = e.span();
                Some((map(sp.start.offset, sp.end.offset), e.kind().to_string()))
            }
            Ok(_) => None,
        },
    }
}
