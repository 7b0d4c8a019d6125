//! Tool-name normalisation under [`NameRules`], computed once per run.
//!
//! Both the expected and the called names are normalised, in this order: one prefix stripped
//! (the first in the list that matches), separators unified (`-`, `.` and space become `_`), case
//! folded. Every distinct normalised name gets a small integer id, so comparing a call with an
//! expectation is an integer comparison.
//!
//! In a prefix, `*` matches one segment: when text follows the `*` (`mcp__*__`), the shortest
//! non-empty run up to that text (so `mcp__*__` strips `mcp__github__` and also
//! `mcp__claude_ai_gmail__`, whose server name contains separators); at the end of a prefix, a
//! run of non-separator characters. A prefix that would leave nothing is not applied.

use std::collections::HashMap;

use crate::config::NameRules;

/// Normalised-name ids for one run.
#[derive(Default)]
pub(crate) struct NameTable {
    ids: HashMap<String, usize>,
}

impl NameTable {
    /// The id of `name` under `rules`.
    pub(crate) fn id(&mut self, rules: &NameRules, name: &str) -> usize {
        let norm = normalise(rules, name);
        let next = self.ids.len();
        *self.ids.entry(norm).or_insert(next)
    }
}

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '.' | ' ' | '_')
}

/// `name` normalised under `rules`.
pub fn normalise(rules: &NameRules, name: &str) -> String {
    let mut s = name;
    for prefix in &rules.strip_prefixes {
        if let Some(rest) = strip(prefix, s) {
            if !rest.is_empty() {
                s = rest;
                break;
            }
        }
    }
    let mut out: String = if rules.unify_separators {
        s.chars().map(|c| if is_sep(c) { '_' } else { c }).collect()
    } else {
        s.to_owned()
    };
    if rules.ignore_case {
        out = out.to_lowercase();
    }
    out
}

/// `name` without `pattern` at its start, if the pattern matches there.
fn strip<'a>(pattern: &str, name: &'a str) -> Option<&'a str> {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let mut rest = name.strip_prefix(first)?;
    for lit in parts {
        // `*` consumes at least one character.
        let first_len = rest.chars().next()?.len_utf8();
        if lit.is_empty() {
            let end = rest.find(is_sep).unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            rest = &rest[end..];
        } else {
            let at = rest[first_len..].find(lit)? + first_len;
            rest = &rest[at + lit.len()..];
        }
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(ignore_case: bool, unify: bool, prefixes: &[&str]) -> NameRules {
        NameRules {
            ignore_case,
            unify_separators: unify,
            strip_prefixes: prefixes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn plain_rules_compare_verbatim() {
        let r = NameRules::default();
        assert_eq!(normalise(&r, "Get-Order"), "Get-Order");
    }

    #[test]
    fn case_separators_and_prefixes() {
        let r = rules(true, true, &["functions.", "mcp__*__"]);
        assert_eq!(normalise(&r, "functions.Get-Order"), "get_order");
        assert_eq!(normalise(&r, "mcp__github__create_issue"), "create_issue");
        assert_eq!(normalise(&r, "mcp__claude_ai_Gmail__search"), "search");
        assert_eq!(normalise(&r, "get order"), "get_order");
        // A prefix that would leave nothing is not applied.
        assert_eq!(normalise(&r, "functions."), "functions_");
    }

    #[test]
    fn trailing_star_takes_one_segment() {
        let r = rules(false, false, &["srv.*"]);
        assert_eq!(normalise(&r, "srv.github.search"), ".search");
        assert_eq!(normalise(&r, "srv."), "srv.");
    }

    #[test]
    fn ids_are_shared_by_equal_normal_forms() {
        let r = rules(true, true, &[]);
        let mut t = NameTable::default();
        assert_eq!(t.id(&r, "get-order"), t.id(&r, "GET_ORDER"));
        assert_ne!(t.id(&r, "get-order"), t.id(&r, "get-orders"));
    }
}
