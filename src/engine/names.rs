//! Tool-name ids for one run: both the expected and the called names are normalised once
//! ([`NameRules::normalise`], shared with the compiler) and every distinct normalised name gets a
//! small integer id, so comparing a call with an expectation is an integer comparison.

use std::collections::HashMap;

use crate::config::{NameRules, Normaliser};

/// Normalised-name ids for one run.
pub(crate) struct NameTable {
    rules: Normaliser,
    ids: HashMap<String, usize>,
}

impl NameTable {
    /// A table of the names under `rules` (their prefixes indexed once for the run).
    pub(crate) fn new(rules: &NameRules) -> Self {
        NameTable {
            rules: rules.normaliser(),
            ids: HashMap::new(),
        }
    }

    /// The id of `name`: ids are dense, 0, 1, 2, … in order of first sight.
    pub(crate) fn id(&mut self, name: &str) -> usize {
        let norm = self.rules.normalised(name);
        if let Some(&id) = self.ids.get(norm.as_ref()) {
            return id;
        }
        let next = self.ids.len();
        self.ids.insert(norm.into_owned(), next);
        next
    }

    /// How many ids there are.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
}

/// `name` normalised under `rules` (see [`NameRules::normalise`]; for many names under the same
/// rules, [`NameRules::normaliser`]).
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
        let mut t = NameTable::new(&r);
        assert_eq!(t.id("get-order"), t.id("GET_ORDER"));
        assert_ne!(t.id("get-order"), t.id("get-orders"));
    }
}
