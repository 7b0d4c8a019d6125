//! An object's members looked up by key in O(log K): two argument dicts with their keys in
//! another order compare in O(K log K), never K² (a scan per key).
//!
//! Up to [`LINEAR`] members are scanned (the usual handful, no allocation); larger objects are
//! sorted once by key. The sorted copy is reserved with `try_reserve_exact`; if even that fails,
//! the lookups scan, slower but with the same answers.

use super::scan::same_bytes;

/// Objects with at most this many members are scanned.
pub(crate) const LINEAR: usize = 16;

/// The members of one object, ready for lookups by key (keys are unique in an object).
pub(crate) enum Keyed<'k, I, T> {
    /// Scanned at each lookup.
    Scan(I),
    /// Sorted by key (byte order), searched by halving.
    Sorted(Vec<(&'k [u8], T)>),
}

impl<'k, I, T> Keyed<'k, I, T>
where
    I: Iterator<Item = (&'k [u8], T)> + ExactSizeIterator + Clone,
    T: Copy,
{
    /// The members of an object.
    pub(crate) fn new(members: I) -> Self {
        if members.len() > LINEAR {
            let mut v = Vec::new();
            if v.try_reserve_exact(members.len()).is_ok() {
                v.extend(members);
                // Stable: of equal keys (never in a parsed object) the first stays first.
                v.sort_by(|a, b| a.0.cmp(b.0));
                return Keyed::Sorted(v);
            }
        }
        Keyed::Scan(members)
    }

    /// The value of the first member named `key`.
    pub(crate) fn get(&self, key: &[u8]) -> Option<T> {
        match self {
            Keyed::Scan(m) => m.clone().find(|(k, _)| same_bytes(k, key)).map(|(_, v)| v),
            Keyed::Sorted(v) => {
                let i = v.partition_point(|(k, _)| *k < key);
                v.get(i).filter(|(k, _)| *k == key).map(|&(_, t)| t)
            }
        }
    }
}

type Entries<'a> = [(std::borrow::Cow<'a, str>, super::value::Val<'a>)];

/// A [`super::value::Val`] object's entries, ready for lookups by key.
pub(crate) fn of_val<'s, 'a>(
    entries: &'s Entries<'a>,
) -> Keyed<
    's,
    impl ExactSizeIterator<Item = (&'s [u8], &'s super::value::Val<'a>)> + Clone,
    &'s super::value::Val<'a>,
> {
    Keyed::new(entries.iter().map(|(k, v)| (k.as_bytes(), v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_scanned_lookups_agree() {
        for n in [0usize, 1, 5, LINEAR, LINEAR + 1, 200] {
            let keys: Vec<String> = (0..n).map(|i| format!("k{}", (i * 7919) % 1009)).collect();
            let members = keys.iter().enumerate().map(|(i, k)| (k.as_bytes(), i));
            let keyed = Keyed::new(members.clone());
            assert_eq!(matches!(keyed, Keyed::Sorted(_)), n > LINEAR);
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(keyed.get(k.as_bytes()), Some(i));
            }
            assert_eq!(keyed.get(b"absent"), None);
            assert_eq!(keyed.get(b""), None);
        }
    }
}
