//! Token-set similarity (`fuzzy tokens "…"`): for sentences whose words move.
//!
//! The measure is rapidfuzz's `fuzz.token_set_ratio(a, b, processor=utils.default_process)`,
//! divided by 100 (`tests/fixtures/vectors/make_token_set_vectors.py` computes it with the real
//! rapidfuzz on generated pairs,
//! `tests/it/token_set_vectors.rs` replays them):
//!
//! 1. each string is cut into **tokens**: maximal runs of letters and digits (Unicode's
//!    alphabetic and numeric characters; everything else, `_` included, separates), each
//!    character lowercased on its own (`İ` → `i`, `Σ` → `σ`); each side becomes a set of tokens;
//! 2. if a side has no token, the similarity is 0; if the sets share a token and one set holds
//!    the other, it is 1;
//! 3. otherwise, with `I` the shared tokens and `A`, `B` the tokens of one side only, each sorted
//!    and joined by one space, the similarity is the largest of the indel ratios
//!    (`1 − (len x + len y − 2·LCS(x, y)) / (len x + len y)`, lengths in code points) of
//!    `I A` against `I B`, `I` against `I A`, and `I` against `I B`.
//!
//! Only the first needs a longest common subsequence (of `A` and `B`, as the shared prefix `I`
//! adds the same to both); the other two follow from lengths. That LCS costs `len A × len B`
//! steps and is bounded like the difflib ratio (`super::fuzzy`): past the bound, upper and lower
//! bounds decide where they can, else the constraint fails with `fuzzy-bound-applied`.

use std::collections::{BTreeSet, HashMap};

/// The two sides of a comparison, tokenised: what every bound and the exact value start from.
#[derive(Debug)]
pub(crate) struct TokenSets {
    /// `A` joined (tokens of the first string only, sorted), as code points.
    only_a: Vec<char>,
    /// `B` joined.
    only_b: Vec<char>,
    /// Length of `I` joined (shared tokens), in code points.
    shared: usize,
    /// Some side has no token (similarity 0).
    empty: bool,
    /// The sets share a token and one holds the other (similarity 1).
    contained: bool,
}

/// The tokens of `s`: runs of letters and digits, lowercased character by character.
fn tokens(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(|t| t.chars().map(lower).collect())
        .collect()
}

/// One character lowercased as rapidfuzz does: one character for one (Unicode's simple
/// mapping: `İ` → `i`, `Σ` → `σ` wherever it stands).
fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn joined<'a>(words: impl Iterator<Item = &'a String>) -> Vec<char> {
    let mut out = Vec::new();
    for (k, w) in words.enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.extend(w.chars());
    }
    out
}

impl TokenSets {
    /// Tokenise `a` and `b` (linear in their lengths).
    pub(crate) fn new(a: &str, b: &str) -> Self {
        let (ta, tb) = (tokens(a), tokens(b));
        let shared: Vec<&String> = ta.intersection(&tb).collect();
        let shared_len = if shared.is_empty() {
            0
        } else {
            shared.iter().map(|w| w.chars().count()).sum::<usize>() + shared.len() - 1
        };
        let only_a = joined(ta.difference(&tb));
        let only_b = joined(tb.difference(&ta));
        TokenSets {
            empty: ta.is_empty() || tb.is_empty(),
            contained: !shared.is_empty() && (only_a.is_empty() || only_b.is_empty()),
            only_a,
            only_b,
            shared: shared_len,
        }
    }

    /// The LCS work of the exact value: `len A × len B`.
    pub(crate) fn work(&self) -> u64 {
        (self.only_a.len() as u64).saturating_mul(self.only_b.len() as u64)
    }

    /// `len(I A)` and `len(I B)`.
    fn with_shared(&self) -> (usize, usize) {
        let sep = usize::from(self.shared != 0);
        (
            self.shared + sep + self.only_a.len(),
            self.shared + sep + self.only_b.len(),
        )
    }

    /// The larger of the two ratios that need no LCS (`I` against `I A` and `I B`): a lower
    /// bound of the similarity, exact when the first ratio is smaller.
    pub(crate) fn lower(&self) -> f64 {
        if self.empty {
            return 0.0;
        }
        if self.contained {
            return 1.0;
        }
        if self.shared == 0 {
            return 0.0;
        }
        let (ab, ba) = self.with_shared();
        let sep = 1;
        let r_ab = indel(sep + self.only_a.len(), self.shared + ab);
        let r_ba = indel(sep + self.only_b.len(), self.shared + ba);
        r_ab.max(r_ba)
    }

    /// The similarity given `lcs`, the length of a longest common subsequence of `A` and `B`
    /// (or an upper bound of it, which gives an upper bound of the similarity).
    fn with_lcs(&self, lcs: usize) -> f64 {
        if self.empty || self.contained {
            return self.lower();
        }
        let (ab, ba) = self.with_shared();
        let dist = self.only_a.len() + self.only_b.len() - 2 * lcs.min(self.only_a.len());
        indel(dist, ab + ba).max(self.lower())
    }

    /// An upper bound of the similarity in linear time: the LCS is at most the shared
    /// characters of `A` and `B` counted as multisets.
    pub(crate) fn upper(&self) -> f64 {
        let mut count: HashMap<char, usize> = HashMap::new();
        for &c in &self.only_b {
            *count.entry(c).or_default() += 1;
        }
        let mut common = 0usize;
        for c in &self.only_a {
            if let Some(n) = count.get_mut(c) {
                if *n > 0 {
                    *n -= 1;
                    common += 1;
                }
            }
        }
        self.with_lcs(common)
    }

    /// The exact similarity: `len A × len B` steps ([`TokenSets::work`]).
    pub(crate) fn exact(&self) -> f64 {
        if self.empty || self.contained {
            return self.lower();
        }
        self.with_lcs(lcs(&self.only_a, &self.only_b))
    }
}

/// `1 − dist / lensum` (1 when both are empty), rapidfuzz's normalised indel similarity.
fn indel(dist: usize, lensum: usize) -> f64 {
    if lensum == 0 {
        1.0
    } else {
        1.0 - dist as f64 / lensum as f64
    }
}

/// Length of a longest common subsequence, one row of `len b + 1` counters.
fn lcs(a: &[char], b: &[char]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        let mut diag = 0;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

/// The token-set similarity of `a` and `b`, exactly (unbounded work: `len × len` at worst).
///
/// ```
/// use toolspec::engine::tokens::token_set_ratio;
/// assert_eq!(token_set_ratio("book the Paris flight", "Flight to Paris: book it"), 1.0 - 4.0 / 38.0);
/// assert_eq!(token_set_ratio("fuzzy was a bear", "a bear, fuzzy was"), 1.0);
/// ```
pub fn token_set_ratio(a: &str, b: &str) -> f64 {
    TokenSets::new(a, b).exact()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rapidfuzz_documentation_examples() {
        // The examples of rapidfuzz's docstring, over 100.
        assert_eq!(
            token_set_ratio("fuzzy was a bear", "fuzzy fuzzy was a bear"),
            1.0
        );
        assert_eq!(
            token_set_ratio(
                "fuzzy was a bear but not a dog",
                "fuzzy was a bear but not a cat"
            ),
            1.0 - 2.0 * 2.0 / 52.0
        );
        assert_eq!(token_set_ratio("", "anything"), 0.0);
        assert_eq!(token_set_ratio("!!", "!!"), 0.0);
    }

    #[test]
    fn bounds_enclose_the_exact_value() {
        for (a, b) in [
            ("book a flight to Paris", "Paris flight booking"),
            ("alpha beta", "gamma delta"),
            ("the quick brown fox", "the slow brown dog"),
            ("x", "y z"),
        ] {
            let t = TokenSets::new(a, b);
            let e = t.exact();
            assert!(t.lower() <= e && e <= t.upper(), "{a} / {b}");
        }
    }
}
