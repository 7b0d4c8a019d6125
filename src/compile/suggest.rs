//! Did-you-mean suggestions by edit distance.

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions, so that `odrer`
/// is one edit from `order`).
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be what was meant (at most a third
/// of the word's length, and at least one edit, away). Case differences count as near-misses.
pub(crate) fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// `` `a`, `b` or `c` `` for help texts.
pub(crate) fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpositions_cost_one() {
        assert_eq!(distance("odrer", "order"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }

    #[test]
    fn suggests_only_near_words() {
        let kws = ["order", "args", "names", "threshold"];
        assert_eq!(did_you_mean("odrer", kws), Some("order"));
        assert_eq!(did_you_mean("treshold", kws), Some("threshold"));
        assert_eq!(did_you_mean("banana", kws), None);
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
