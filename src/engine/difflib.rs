//! Python's `difflib.SequenceMatcher(None, a, b).ratio()`, reproduced bit for bit.
//!
//! Fuzzy string constraints (and the Axion profile) score similarity the way the Python tools
//! people already use do, so the numbers agree: elements are Unicode code points, the
//! "autojunk" heuristic applies to `b` when it has 200 or more elements, ties break as in CPython,
//! and the ratio is `2·M / (len(a) + len(b))` in `f64`. The measure is not symmetric.
//!
//! Cost: the longest-match search is O(len(a) × occurrences in b) per recursion level, so
//! quadratic-ish in the worst case. Callers that accept untrusted long strings bound the work
//! first with [`SequenceMatcher::real_quick_ratio`] / [`SequenceMatcher::quick_ratio`] (upper
//! bounds) or a length cap.

use std::collections::HashMap;

/// A matcher for two strings, indexing `b` once (as CPython's `SequenceMatcher` does).
#[derive(Debug, Clone)]
pub struct SequenceMatcher {
    a: Vec<char>,
    b: Vec<char>,
    /// CPython's `b2j`, flat: `(element, position)` for each non-popular element of `b`,
    /// sorted, so that an element's positions are one ascending run ([`Self::positions`]).
    b2j: Vec<(char, usize)>,
}

impl SequenceMatcher {
    /// Index `a` and `b` with the autojunk heuristic on (CPython's default).
    pub fn new(a: &str, b: &str) -> Self {
        Self::with_autojunk(a, b, true)
    }

    /// Index `a` and `b`, choosing whether to drop "popular" elements of `b` (those occurring
    /// more than `len(b) / 100 + 1` times when `len(b) >= 200`) from the match search.
    pub fn with_autojunk(a: &str, b: &str, autojunk: bool) -> Self {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut b2j: Vec<(char, usize)> = b.iter().enumerate().map(|(j, &c)| (c, j)).collect();
        b2j.sort_unstable();
        let n = b.len();
        if autojunk && n >= 200 {
            let ntest = n / 100 + 1;
            b2j = b2j
                .chunk_by(|x, y| x.0 == y.0)
                .filter(|run| run.len() <= ntest)
                .flatten()
                .copied()
                .collect();
        }
        SequenceMatcher { a, b, b2j }
    }

    /// The positions of `c` in `b`, ascending, as `(c, position)` (none for a popular element).
    fn positions(&self, c: char) -> &[(char, usize)] {
        let start = self.b2j.partition_point(|&(x, _)| x < c);
        let rest = &self.b2j[start..];
        &rest[..rest.partition_point(|&(x, _)| x == c)]
    }

    /// Number of code points in `a` and `b`.
    pub fn lens(&self) -> (usize, usize) {
        (self.a.len(), self.b.len())
    }

    /// The longest matching block in `a[alo..ahi]` and `b[blo..bhi]`, as `(i, j, k)`.
    fn find_longest_match(
        &self,
        (alo, ahi, blo, bhi): (usize, usize, usize, usize),
        scratch: &mut Scratch,
    ) -> (usize, usize, usize) {
        let (a, b) = (&self.a, &self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        // `prev[j + 1]` is the length of the run ending at (i - 1, j); index shifted by one so that
        // j - 1 = -1 needs no branch.
        for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
            for &(_, j) in self.positions(*ai) {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = scratch.prev[j] + 1;
                scratch.next[j + 1] = k;
                scratch.next_touched.push(j + 1);
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
            for &t in &scratch.prev_touched {
                scratch.prev[t] = 0;
            }
            scratch.prev_touched.clear();
            std::mem::swap(&mut scratch.prev, &mut scratch.next);
            std::mem::swap(&mut scratch.prev_touched, &mut scratch.next_touched);
        }
        for &t in &scratch.prev_touched {
            scratch.prev[t] = 0;
        }
        scratch.prev_touched.clear();
        // Extend by plain equality: popular elements are not junk, so they may be crossed here.
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    /// The matching blocks `(i, j, k)` (a[i..i+k] == b[j..j+k]), sorted, adjacent ones merged,
    /// without CPython's final `(la, lb, 0)` sentinel.
    pub fn matching_blocks(&self) -> Vec<(usize, usize, usize)> {
        let (la, lb) = (self.a.len(), self.b.len());
        let mut scratch = Scratch::new(lb);
        let mut queue = vec![(0, la, 0, lb)];
        let mut blocks = Vec::new();
        while let Some(range) = queue.pop() {
            let (alo, ahi, blo, bhi) = range;
            let (i, j, k) = self.find_longest_match(range, &mut scratch);
            if k > 0 {
                blocks.push((i, j, k));
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        blocks.sort_unstable();
        let mut merged: Vec<(usize, usize, usize)> = Vec::with_capacity(blocks.len());
        for (i, j, k) in blocks {
            if let Some(last) = merged.last_mut() {
                if last.0 + last.2 == i && last.1 + last.2 == j {
                    last.2 += k;
                    continue;
                }
            }
            merged.push((i, j, k));
        }
        merged
    }

    /// M: the number of matched elements (sum of the matching blocks' sizes).
    pub fn matches(&self) -> usize {
        self.matching_blocks().iter().map(|b| b.2).sum()
    }

    /// `2·M / T`, where T is the total number of elements; 1.0 when both are empty.
    pub fn ratio(&self) -> f64 {
        ratio_of(self.matches(), self.a.len() + self.b.len())
    }

    /// An upper bound on [`ratio`](Self::ratio) from element counts (CPython's `quick_ratio`).
    pub fn quick_ratio(&self) -> f64 {
        let mut avail: HashMap<char, isize> = HashMap::new();
        for &c in &self.b {
            *avail.entry(c).or_default() += 1;
        }
        let mut matches = 0usize;
        for c in &self.a {
            let n = avail.entry(*c).or_default();
            if *n > 0 {
                matches += 1;
            }
            *n -= 1;
        }
        ratio_of(matches, self.a.len() + self.b.len())
    }

    /// An upper bound on [`ratio`](Self::ratio) from lengths alone (CPython's `real_quick_ratio`).
    pub fn real_quick_ratio(&self) -> f64 {
        let (la, lb) = (self.a.len(), self.b.len());
        ratio_of(la.min(lb), la + lb)
    }
}

fn ratio_of(matches: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        (2.0 * matches as f64) / total as f64
    }
}

/// Reused rows of the longest-match dynamic programme.
struct Scratch {
    prev: Vec<usize>,
    next: Vec<usize>,
    prev_touched: Vec<usize>,
    next_touched: Vec<usize>,
}

impl Scratch {
    fn new(lb: usize) -> Self {
        Scratch {
            prev: vec![0; lb + 1],
            next: vec![0; lb + 1],
            prev_touched: Vec::new(),
            next_touched: Vec::new(),
        }
    }
}

/// `difflib.SequenceMatcher(None, a, b).ratio()`.
///
/// ```
/// use toolspec::engine::difflib::ratio;
/// assert_eq!(ratio("abcd", "bcde"), 0.75);
/// assert_eq!(ratio("", ""), 1.0);
/// ```
pub fn ratio(a: &str, b: &str) -> f64 {
    SequenceMatcher::new(a, b).ratio()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpython_worked_examples() {
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("Ebojfm Mzpm", "Ebfo ef Mfpo"), 0.6086956521739131);
        assert_eq!(ratio("Ebfo ef Mfpo", "Ebojfm Mzpm"), 0.5217391304347826);
        let b198 = format!("b{}", "a".repeat(198));
        assert_eq!(
            ratio(&b198, &format!("{}b", "a".repeat(198))),
            0.9949748743718593
        );
        // With 200 elements, 'a' becomes popular and only the 'b' is found.
        let b199 = format!("b{}", "a".repeat(199));
        assert_eq!(ratio(&b199, &format!("{}b", "a".repeat(199))), 0.005);
        assert_eq!(ratio(&"ab".repeat(150), &"ba".repeat(150)), 0.0);
        assert_eq!(ratio(&"a".repeat(300), &"a".repeat(300)), 1.0);
        let no_junk = SequenceMatcher::with_autojunk(&"ab".repeat(150), &"ba".repeat(150), false);
        assert!((no_junk.ratio() - 0.9966666666666667).abs() < 1e-15);
    }

    #[test]
    fn matching_blocks_are_merged_and_sorted() {
        let m = SequenceMatcher::new("abxcd", "abcd");
        assert_eq!(m.matching_blocks(), vec![(0, 0, 2), (3, 2, 2)]);
    }

    #[test]
    fn quick_ratios_bound_the_ratio() {
        for (a, b) in [
            ("python tutorial", "Python tutorials"),
            ("abc", "xyz"),
            ("", "q"),
        ] {
            let m = SequenceMatcher::new(a, b);
            assert!(m.ratio() <= m.quick_ratio());
            assert!(m.quick_ratio() <= m.real_quick_ratio());
        }
    }
}
