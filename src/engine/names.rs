//! Tool-name ids for one run: both the expected and the called names are normalised once
//! ([`NameRules::normalise`], shared with the compiler) and every distinct normalised name gets a
//! small integer id, so comparing a call with an expectation is an integer comparison.

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

/// `name` normalised under `rules` (see [`NameRules::normalise`]).
pub fn normalise(rules: &NameRules, name: &str) -> String {
    rules.normalise(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_shared_by_equal_normal_forms() {
        let r = NameRules {
            ignore_case: true,
            unify_separators: true,
            strip_prefixes: Vec::new(),
        };
        let mut t = NameTable::default();
        assert_eq!(t.id(&r, "get-order"), t.id(&r, "GET_ORDER"));
        assert_ne!(t.id(&r, "get-order"), t.id(&r, "get-orders"));
    }
}
