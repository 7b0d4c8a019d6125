//! Tool-name normalisation under a spec's `names` rules, as the engine applies it (used here to
//! find tools that are both expected and forbidden, and to match `tool` declarations).

use crate::config::NameRules;

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '.' | ' ' | '_' | '/')
}

/// Strip `prefix` (where `*` matches one non-empty run of non-separator characters) from the
/// start of `name`, if it matches there.
fn strip<'n>(name: &'n str, prefix: &str) -> Option<&'n str> {
    let mut rest = name;
    let mut first = true;
    for lit in prefix.split('*') {
        if !first {
            let run = rest.find(is_sep).unwrap_or(rest.len());
            if run == 0 {
                return None;
            }
            rest = &rest[run..];
        }
        first = false;
        rest = rest.strip_prefix(lit)?;
    }
    Some(rest)
}

/// The name as compared under `rules`: prefixes stripped, separators unified, case folded.
pub(crate) fn normalize(name: &str, rules: &NameRules) -> String {
    let mut n = name;
    for p in &rules.strip_prefixes {
        if let Some(rest) = strip(n, p) {
            n = rest;
        }
    }
    let mut out: String = if rules.unify_separators {
        n.chars().map(|c| if is_sep(c) { '_' } else { c }).collect()
    } else {
        n.to_owned()
    };
    if rules.ignore_case {
        out = out.to_lowercase();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_unifies_and_folds() {
        let rules = NameRules {
            ignore_case: true,
            unify_separators: true,
            strip_prefixes: vec!["functions.".into(), "mcp__*__".into()],
        };
        assert_eq!(normalize("functions.Get-Order", &rules), "get_order");
        assert_eq!(
            normalize("mcp__github__create_issue", &rules),
            "create_issue"
        );
        assert_eq!(normalize("mcp____x", &rules), "mcp____x");
        assert_eq!(normalize("lookup", &NameRules::default()), "lookup");
    }
}
