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
//!
//! Many names are normalised under the same rules (every call of a transcript, every
//! expectation of a spec): [`NameRules::normaliser`] builds the prefixes into a trie once, so a
//! name is walked once whatever the number of prefixes, and only the prefixes with a `*` whose
//! text before the `*` begins the name are tried one by one.

use std::borrow::Cow;
use std::collections::HashMap;

use super::NameRules;

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '.' | ' ' | '_' | '/')
}

impl NameRules {
    /// `name` as compared under these rules. This builds the rules' prefix index for one name;
    /// use [`NameRules::normaliser`] to normalise many.
    pub fn normalise(&self, name: &str) -> String {
        self.normaliser().normalise(name)
    }

    /// These rules, ready to normalise many names.
    pub fn normaliser(&self) -> Normaliser {
        let mut n = Normaliser {
            ignore_case: self.ignore_case,
            unify_separators: self.unify_separators,
            edges: HashMap::new(),
            nodes: vec![Node::default()],
        };
        // A prefix written twice can never win the second time.
        let mut seen = std::collections::HashSet::new();
        for (idx, prefix) in self.strip_prefixes.iter().enumerate() {
            if !seen.insert(prefix.as_str()) {
                continue;
            }
            let (head, pattern) = match prefix.find('*') {
                Some(at) => (&prefix[..at], true),
                None => (prefix.as_str(), false),
            };
            let mut node = 0;
            for &b in head.as_bytes() {
                let next = n.nodes.len();
                node = *n.edges.entry((node, b)).or_insert(next);
                if node == next {
                    n.nodes.push(Node::default());
                }
            }
            let at = &mut n.nodes[node];
            if pattern {
                at.patterns.push((idx, prefix.clone()));
            } else if at.literal.is_none() {
                at.literal = Some(idx);
            }
        }
        n
    }
}

/// [`NameRules`] with their `strip` prefixes in a trie, built once for many names.
#[derive(Debug, Clone)]
pub struct Normaliser {
    ignore_case: bool,
    unify_separators: bool,
    /// (node, next byte) → child node; node 0 is the empty text.
    edges: HashMap<(usize, u8), usize>,
    nodes: Vec<Node>,
}

/// The prefixes whose literal text (up to the first `*`, if any) ends at a trie node.
#[derive(Debug, Clone, Default)]
struct Node {
    /// The first prefix without a `*` that is exactly this text, by position in the list.
    literal: Option<usize>,
    /// The prefixes with a `*` whose text before it is this node's, in list order.
    patterns: Vec<(usize, String)>,
}

impl Normaliser {
    /// `name` as compared under the rules: the first prefix in the list that matches and
    /// leaves something is stripped, separators unified, case folded.
    pub fn normalise(&self, name: &str) -> String {
        self.normalised(name).into_owned()
    }

    /// [`Normaliser::normalise`], borrowing from `name` when the rules leave it as it is (the
    /// usual case), so that looking a name up costs no new string.
    pub fn normalised<'a>(&self, name: &'a str) -> Cow<'a, str> {
        let s = self.stripped(name);
        let unify = self.unify_separators && s.chars().any(|c| c != '_' && is_sep(c));
        let fold = self.ignore_case
            && if s.is_ascii() {
                s.bytes().any(|b| b.is_ascii_uppercase())
            } else {
                s.to_lowercase() != s
            };
        if !unify && !fold {
            return Cow::Borrowed(s);
        }
        let mut out: String = if unify {
            s.chars().map(|c| if is_sep(c) { '_' } else { c }).collect()
        } else {
            s.to_owned()
        };
        if self.ignore_case {
            // ASCII text is folded in place (the same result, no second string).
            if out.is_ascii() {
                out.make_ascii_lowercase();
            } else {
                out = out.to_lowercase();
            }
        }
        Cow::Owned(out)
    }

    /// `name` without the first prefix of the list that matches and leaves something.
    fn stripped<'a>(&self, name: &'a str) -> &'a str {
        // (position in the list, what is left) of the best prefix so far.
        let mut best: Option<(usize, &'a str)> = None;
        let bytes = name.as_bytes();
        let mut node = 0;
        let mut depth = 0;
        loop {
            // `name[..depth]` is the text of `node`, a whole prefix text, so `depth` is a
            // character boundary of `name`.
            let at = &self.nodes[node];
            if let Some(idx) = at.literal {
                if depth < name.len() && best.is_none_or(|(b, _)| idx < b) {
                    best = Some((idx, &name[depth..]));
                }
            }
            for (idx, pattern) in &at.patterns {
                if best.is_some_and(|(b, _)| *idx >= b) {
                    break;
                }
                if let Some(rest) = strip(pattern, name) {
                    if !rest.is_empty() {
                        best = Some((*idx, rest));
                        break;
                    }
                }
            }
            let Some(&b) = bytes.get(depth) else {
                break;
            };
            match self.edges.get(&(node, b)) {
                Some(&next) => {
                    node = next;
                    depth += 1;
                }
                None => break,
            }
        }
        best.map_or(name, |(_, rest)| rest)
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
            strip_prefixes: prefixes
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
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

    /// A name the rules leave as it is is borrowed, and what is changed is what folding and
    /// unifying the whole name give (the final-sigma rule of `str::to_lowercase` included).
    #[test]
    fn a_name_left_as_it_is_is_borrowed() {
        use std::borrow::Cow;
        let all = rules(true, true, &["functions."]);
        let n = all.normaliser();
        for name in ["get_order", "functions.get_order", "\u{e9}t\u{e9}", "x"] {
            assert!(matches!(n.normalised(name), Cow::Borrowed(_)), "{name}");
        }
        for (name, want) in [
            ("Get_Order", "get_order"),
            ("get-order", "get_order"),
            ("\u{c9}T\u{c9}", "\u{e9}t\u{e9}"),
            ("\u{3a3}\u{3a3}", "\u{3c3}\u{3c2}"),
            ("functions.A b", "a_b"),
        ] {
            let got = n.normalised(name);
            assert!(matches!(got, Cow::Owned(_)), "{name}");
            assert_eq!(got, want, "{name}");
        }
        let plain = NameRules::default().normaliser();
        assert!(matches!(
            plain.normalised("Get-Order"),
            Cow::Borrowed("Get-Order")
        ));
    }

    #[test]
    fn only_the_first_matching_prefix_is_stripped() {
        let r = rules(false, false, &["a.", "b."]);
        assert_eq!(r.normalise("a.b.c"), "b.c");
        assert_eq!(r.normalise("b.a.c"), "a.c");
    }

    /// The trie strips what trying each prefix in list order strips, whatever the mix of
    /// literal prefixes, prefixes with a `*`, duplicates, an empty prefix and overlaps.
    #[test]
    fn the_index_strips_what_the_list_order_strips() {
        fn by_list(prefixes: &[&str], name: &str) -> String {
            for p in prefixes {
                if let Some(rest) = strip(p, name) {
                    if !rest.is_empty() {
                        return rest.to_owned();
                    }
                }
            }
            name.to_owned()
        }
        let lists: &[&[&str]] = &[
            &["a", "ab", "abc"],
            &["abc", "ab", "a"],
            &["ab*", "a", "ab"],
            &["a*.", "a*_", "ab."],
            &["", "a"],
            &["a", ""],
            &["ab", "ab", "a*b", "é", "éx*"],
            &["*.", "x.", "x.y."],
            &["mcp__*__", "mcp__", "mcp__gh__"],
            &["a*.", "a*.", "a*_", "a*."],
            &["ab", "abc"],
        ];
        let names = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "ab.c",
            "a.b_c",
            "x.y.z",
            "x.",
            "éxy.z",
            "é",
            "mcp__gh__x",
            "mcp__gh__",
            "mcp__",
            "mcp____x",
            "aab",
            "ba",
        ];
        for list in lists {
            let r = rules(false, false, list);
            let n = r.normaliser();
            for name in names {
                assert_eq!(n.normalise(name), by_list(list, name), "{list:?} {name:?}");
            }
        }
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
