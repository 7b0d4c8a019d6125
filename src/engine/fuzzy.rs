//! Fuzzy string constraints with bounded work.
//!
//! The similarity is [`super::difflib::ratio`] of `(actual, expected)`, exactly. Its
//! cost grows with `len(actual) × len(expected)`, so an agent that pastes a megabyte into an
//! argument must not stall a lint run. The decision is taken with the cheapest test that settles
//! it, in this order:
//!
//! 1. `real_quick_ratio` (lengths only): an upper bound; below the threshold settles "fails"
//!    exactly. The exact ratio is then computed only to explain the failure, within a budget
//!    of its own ([`RunFuzzy::explained_ratio`]), so explaining never changes a decision.
//! 2. If `len(actual) × len(expected) ≤` [`WORK_BOUND`] and the run's [`WorkBudget`] (of
//!    [`RUN_WORK_BOUND`] in all, for every fuzzy constraint of one spec against one transcript)
//!    still covers that product, the exact ratio.
//! 3. Otherwise `quick_ratio` (character multiset, O(len)): also an upper bound; below the
//!    threshold settles "fails" exactly.
//! 4. Otherwise the answer cannot be settled within the bound: the constraint fails and the
//!    engine reports `fuzzy-bound-applied`, so the approximation is never silent.
//!
//! Each decision of a run is remembered ([`RunFuzzy`]), so the alignment and the verdict never
//! disagree about a constraint whatever order they ask in.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use super::difflib;

/// Largest `len(actual) × len(expected)` (in characters) for which the exact ratio is computed:
/// 4 000 000, e.g. two 2 000-character strings, a few milliseconds at worst.
pub const WORK_BOUND: u64 = 4_000_000;

/// Total `len(actual) × len(expected)` (in characters) of the exact ratios computed in one run
/// (one spec against one transcript): 100 000 000, 25 pairs at [`WORK_BOUND`]. Past it, the
/// exact upper bounds decide or the constraint fails with `fuzzy-bound-applied`.
pub const RUN_WORK_BOUND: u64 = 100_000_000;

/// Work units (character products) left to spend; shared by every decision it is handed to.
#[derive(Debug)]
pub struct WorkBudget {
    left: Cell<u64>,
}

impl WorkBudget {
    /// A budget of `units`.
    pub fn new(units: u64) -> Self {
        WorkBudget {
            left: Cell::new(units),
        }
    }

    /// Spend `units` if that many are left (then `true`); otherwise spend nothing.
    pub fn try_spend(&self, units: u64) -> bool {
        match self.left.get().checked_sub(units) {
            Some(rest) => {
                self.left.set(rest);
                true
            }
            None => false,
        }
    }

    /// Units left.
    pub fn left(&self) -> u64 {
        self.left.get()
    }
}

impl Default for WorkBudget {
    /// The per-run budget, [`RUN_WORK_BOUND`].
    fn default() -> Self {
        WorkBudget::new(RUN_WORK_BOUND)
    }
}

/// One run's fuzzy decisions: its budget and what was decided, keyed by a keyed 128-bit hash of
/// `(actual, expected, threshold)`.
#[derive(Default)]
pub(crate) struct RunFuzzy {
    budget: WorkBudget,
    hashers: (RandomState, RandomState),
    decided: RefCell<HashMap<(u64, u64), Fuzzy>>,
    /// The budget of the exact ratios computed only to explain a failure the lengths settled.
    explaining: WorkBudget,
}

impl RunFuzzy {
    /// Decide `ratio(actual, expected) >= threshold` within the run's budget, the same way every
    /// time it is asked.
    pub(crate) fn decide(&self, actual: &str, expected: &str, threshold: f64) -> Fuzzy {
        let key_of = |h: &RandomState| h.hash_one((actual, expected, threshold.to_bits()));
        let key = (key_of(&self.hashers.0), key_of(&self.hashers.1));
        if let Some(&hit) = self.decided.borrow().get(&key) {
            return hit;
        }
        let d = decide_within(actual, expected, threshold, &self.budget);
        self.decided.borrow_mut().insert(key, d);
        d
    }
}

impl RunFuzzy {
    /// The exact `ratio(actual, expected)` for the explanation of a [`Fuzzy::Unlike`] failure,
    /// if it is within [`WORK_BOUND`] and the run's budget for explanations (its own
    /// [`RUN_WORK_BOUND`], apart from the decisions').
    pub(crate) fn explained_ratio(&self, actual: &str, expected: &str) -> Option<f64> {
        let work = (actual.chars().count() as u64).saturating_mul(expected.chars().count() as u64);
        (work <= WORK_BOUND && self.explaining.try_spend(work))
            .then(|| difflib::ratio(actual, expected))
    }

    /// Decide `token_set_ratio(actual, expected) >= threshold` (`fuzzy tokens`) within the run's
    /// budget, the same way every time it is asked. The exact value costs `len A × len B` of the
    /// words of one side only (`super::tokens`); past [`WORK_BOUND`] or the budget, the lower
    /// bound (from lengths) settles "passes" and the upper bound (character counts) "fails"
    /// where they can; otherwise `Bounded`.
    pub(crate) fn decide_tokens(&self, actual: &str, expected: &str, threshold: f64) -> Fuzzy {
        let key_of =
            |h: &RandomState| h.hash_one(("tokens", actual, expected, threshold.to_bits()));
        let key = (key_of(&self.hashers.0), key_of(&self.hashers.1));
        if let Some(&hit) = self.decided.borrow().get(&key) {
            return hit;
        }
        let t = super::tokens::TokenSets::new(actual, expected);
        let work = t.work();
        let d = if work <= WORK_BOUND && self.budget.try_spend(work) {
            let r = t.exact();
            if r >= threshold {
                Fuzzy::Pass(r)
            } else {
                Fuzzy::Fail(r)
            }
        } else {
            let (lower, upper) = (t.lower(), t.upper());
            if upper < threshold {
                Fuzzy::Below(upper)
            } else if lower >= threshold {
                Fuzzy::Pass(lower)
            } else {
                Fuzzy::Bounded(upper)
            }
        };
        self.decided.borrow_mut().insert(key, d);
        d
    }
}

/// The decision on one fuzzy constraint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fuzzy {
    /// At least the threshold; the number is the exact ratio (or, for `fuzzy tokens` past the
    /// work bound, a lower bound that already reaches the threshold).
    Pass(f64),
    /// Fails; the number is the exact ratio.
    Fail(f64),
    /// Fails; the number is an upper bound of the ratio, below the threshold.
    Below(f64),
    /// Fails on the lengths alone; the number is that upper bound, below the threshold (the
    /// exact ratio is computed only to explain it: [`RunFuzzy::explained_ratio`]).
    Unlike(f64),
    /// Could not be settled within [`WORK_BOUND`]; the number is the upper bound reached.
    Bounded(f64),
}

/// Decide `ratio(actual, expected) >= threshold` with bounded work (a budget of its own).
#[cfg(test)]
pub(crate) fn decide(actual: &str, expected: &str, threshold: f64) -> Fuzzy {
    decide_within(actual, expected, threshold, &WorkBudget::new(WORK_BOUND))
}

/// Decide `ratio(actual, expected) >= threshold`, the exact ratio only if `budget` covers it.
pub(crate) fn decide_within(
    actual: &str,
    expected: &str,
    threshold: f64,
    budget: &WorkBudget,
) -> Fuzzy {
    let la = actual.chars().count();
    let lb = expected.chars().count();
    let real_quick = ratio_of(la.min(lb), la + lb);
    if real_quick < threshold {
        return Fuzzy::Unlike(real_quick);
    }
    let work = (la as u64).saturating_mul(lb as u64);
    if work <= WORK_BOUND && budget.try_spend(work) {
        let r = difflib::ratio(actual, expected);
        return if r >= threshold {
            Fuzzy::Pass(r)
        } else {
            Fuzzy::Fail(r)
        };
    }
    let quick = quick_ratio(actual, expected, la + lb);
    if quick < threshold {
        Fuzzy::Below(quick)
    } else {
        Fuzzy::Bounded(quick)
    }
}

/// CPython's `quick_ratio`: twice the size of the character multiset intersection over the total.
fn quick_ratio(a: &str, b: &str, total: usize) -> f64 {
    // Counts of the first 256 code points in an array, the others in a map.
    let mut low = [0u32; 256];
    let mut avail: HashMap<char, u32> = HashMap::new();
    for c in b.chars() {
        match low.get_mut(c as usize) {
            Some(n) => *n += 1,
            None => *avail.entry(c).or_default() += 1,
        }
    }
    let mut matches = 0usize;
    for c in a.chars() {
        let n = match low.get_mut(c as usize) {
            Some(n) => n,
            None => match avail.get_mut(&c) {
                Some(n) => n,
                None => continue,
            },
        };
        if *n > 0 {
            matches += 1;
            *n -= 1;
        }
    }
    ratio_of(matches, total)
}

fn ratio_of(matches: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        2.0 * matches as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_strings_use_the_exact_ratio() {
        let r = difflib::ratio("Python tutorials", "python tutorial");
        assert_eq!(
            decide("Python tutorials", "python tutorial", 0.8),
            Fuzzy::Pass(r)
        );
        assert_eq!(
            decide("Python tutorials", "python tutorial", 0.95),
            Fuzzy::Fail(r)
        );
        assert_eq!(decide("", "", 1.0), Fuzzy::Pass(1.0));
    }

    #[test]
    fn lengths_settle_a_failure_and_the_explanation_has_the_exact_ratio() {
        // 16 and 15 characters: at most 30/31 ≈ 0.968 whatever the characters.
        let run = RunFuzzy::default();
        assert_eq!(
            run.decide("Python tutorials", "python tutorial", 0.99),
            Fuzzy::Unlike(30.0 / 31.0)
        );
        assert_eq!(
            run.explained_ratio("Python tutorials", "python tutorial"),
            Some(difflib::ratio("Python tutorials", "python tutorial"))
        );
        assert_eq!(
            run.decide("q7", "refund policy", 0.8),
            Fuzzy::Unlike(4.0 / 15.0)
        );
        // Explaining spends a budget of its own: the decisions' is untouched.
        assert_eq!(run.budget.left(), RUN_WORK_BOUND);
        // Past its own budget, an explanation gives the bound (None here).
        let spent = RunFuzzy::default();
        assert!(spent.explaining.try_spend(RUN_WORK_BOUND));
        assert_eq!(spent.explained_ratio("ab", "abcdef"), None);
    }

    #[test]
    fn quick_ratio_agrees_with_difflib() {
        for (a, b) in [
            ("abcd", "bcde"),
            ("python tutorial", "Python tutorials"),
            ("", "x"),
        ] {
            let m = difflib::SequenceMatcher::new(a, b);
            let total = a.chars().count() + b.chars().count();
            assert_eq!(quick_ratio(a, b, total), m.quick_ratio());
        }
    }

    #[test]
    fn megabyte_strings_are_settled_by_the_bounds() {
        let big = "lorem ipsum dolor sit amet ".repeat(40_000); // ~1 MB
                                                                // Length bound: a megabyte is never similar to a short expectation.
        assert!(matches!(decide(&big, "short query", 0.5), Fuzzy::Unlike(_)));
        // Multiset bound: different alphabets.
        let other = "0123456789".repeat(100_000);
        assert!(matches!(decide(&big, &other, 0.5), Fuzzy::Below(_)));
        // Same alphabet and length: cannot be settled cheaply, so the bound is reported.
        assert!(matches!(decide(&big, &big, 0.9), Fuzzy::Bounded(r) if r == 1.0));
    }

    #[test]
    fn token_sets_of_megabyte_strings_are_settled_within_the_bound() {
        let run = RunFuzzy::default();
        // Words of one side only, a megabyte each: past the bound, so the bounds decide.
        let words = |prefix: char| {
            let mut s = String::new();
            for i in 0..100_000 {
                s.push(prefix);
                s.push_str(&i.to_string());
                s.push(' ');
            }
            s
        };
        let (a, b) = (words('a'), words('b'));
        let shared = "book flight paris";
        let start = std::time::Instant::now();
        // Nothing shared and different characters: the upper bound says "fails".
        let zs: String = (0..100_000).map(|_| "zzz ").collect();
        assert!(matches!(
            run.decide_tokens(&a, &format!("{zs} qqq"), 0.5),
            Fuzzy::Below(_)
        ));
        // A short expectation whose words all appear: contained, 1 without any LCS.
        assert_eq!(
            run.decide_tokens(&format!("{a}{shared}"), shared, 0.9),
            Fuzzy::Pass(1.0)
        );
        // Same alphabet, nothing shared: cannot be settled, reported.
        assert!(matches!(run.decide_tokens(&a, &b, 0.5), Fuzzy::Bounded(_)));
        assert!(start.elapsed().as_secs() < 20);
        // Small strings: exact.
        let r =
            super::super::tokens::token_set_ratio("the main pole snapped", "pole snapped at hub");
        assert_eq!(
            run.decide_tokens("the main pole snapped", "pole snapped at hub", 0.1),
            Fuzzy::Pass(r)
        );
    }
}
