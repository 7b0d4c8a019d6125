//! Tool-name normalisation under [`NameRules`]: the one definition the compiler (expected and
//! forbidden at once, `tool` declarations, `before` rules by tool name) and the engine (matching
//! calls with expectations) share, so they never disagree about which names are the same.
//!
//! A name is normalised in this order: one prefix stripped (the first in the list that matches
//! and leaves something), separators unified (`-`, `.`, ` `, `/` become `_`), case folded.
//!
//! In a prefix, `*` matches one segment: when text follows the `*` (`mcp__*__`), the shortest
//! non-empty run up to that text (so `mcp__*__` strips `mcp__github__` and also
//! `mcp__claude_ai_gmail__`, whose server name contains separators); at the end of a prefix, a
//! run of non-separator characters.

use super::NameRules;

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '.' | ' ' | '_' | '/')
}

impl NameRules {
    /// `name` as compared under these rules.
    pub fn normalise(&self, name: &str) -> String {
        let mut s = name;
        for prefix in &self.strip_prefixes {
            if let Some(rest) = strip(prefix, s) {
                if !rest.is_empty() {
                    s = rest;
                    break;
                }
            }
        }
        let mut out: String = if self.unify_separators {
            s.chars().map(|c| if is_sep(c) { '_' } else { c }).collect()
        } else {
            s.to_owned()
        };
        if self.ignore_case {
            out = out.to_lowercase();
        }
        out
    }
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
        assert_eq!(r.normalise("Get-Order"), "Get-Order");
    }

    #[test]
    fn case_separators_and_prefixes() {
        let r = rules(true, true, &["functions.", "mcp__*__"]);
        assert_eq!(r.normalise("functions.Get-Order"), "get_order");
        assert_eq!(r.normalise("mcp__github__create_issue"), "create_issue");
        assert_eq!(r.normalise("mcp__claude_ai_Gmail__search"), "search");
        assert_eq!(r.normalise("get order"), "get_order");
        assert_eq!(r.normalise("github/create-issue"), "github_create_issue");
        assert_eq!(r.normalise("mcp____x"), "mcp____x");
        // A prefix that would leave nothing is not applied.
        assert_eq!(r.normalise("functions."), "functions_");
    }

    #[test]
    fn only_the_first_matching_prefix_is_stripped() {
        let r = rules(false, false, &["a.", "b."]);
        assert_eq!(r.normalise("a.b.c"), "b.c");
        assert_eq!(r.normalise("b.a.c"), "a.c");
    }

    #[test]
    fn trailing_star_takes_one_segment() {
        let r = rules(false, false, &["srv.*"]);
        assert_eq!(r.normalise("srv.github.search"), ".search");
        assert_eq!(r.normalise("srv."), "srv.");
        let r = rules(false, false, &["tools/*/"]);
        assert_eq!(r.normalise("tools/gh/search"), "search");
    }
}
