//! CPython's `set` of `str`, in the order an interpreter started with `PYTHONHASHSEED=0` keeps
//! it: what DeepEval prints when it lists a set of names, and the order in which DeepEval and
//! Axion sum a score over a set of keys (float addition is not associative, so the order is in
//! the score's last bits).
//!
//! Two pieces, each CPython's own (3.11 and 3.12 alike):
//! - [`str_hash`]: `hash(str)` is SipHash-1-3 (`Python/pyhash.c`, the default algorithm since
//!   3.11) of the string's code points stored one, two or four bytes each (the narrowest that
//!   holds its largest code point, little-endian), keyed with zeros when the seed is 0; the empty
//!   string hashes to 0 and a hash of −1 becomes −2.
//! - [`StrSet`]: `Objects/setobject.c`'s open-addressing table: 8 slots to start, each probe
//!   looks at the slot and up to [`LINEAR_PROBES`] after it, then jumps (`i = i * 5 + 1 +
//!   perturb`, `perturb >>= 5`); the table grows when it is 3/5 full, to the smallest power of
//!   two above 4 × the elements; deleted elements leave dummies. Iteration is table order.
//!   `set(list)`, `a - b` and `a & b` build their results the way `set_update_internal`,
//!   `set_difference` and `set_intersection` do, so the result's order is the interpreter's.
//!
//! Lone surrogates are the characters of [`super::lone`]'s block, hashed as the surrogate code
//! units they stand for (Python stores such a string two bytes a character).
//!
//! Bound: a set holds at most the strings it is built from; its table has at most 8 × as many
//! slots (it is rebuilt at 3/5 full to 4 × the elements), and a probe compares the text of two
//! strings only when their 64-bit hashes are equal. The work is CPython's for the same strings.

use super::lone;

/// Slots of a new set's table (`PySet_MINSIZE`).
const MIN_SIZE: usize = 8;

/// Slots looked at one after another before a probe jumps (`LINEAR_PROBES`).
pub const LINEAR_PROBES: usize = 9;

/// Bits of the hash shifted into each jump (`PERTURB_SHIFT`).
const PERTURB_SHIFT: u32 = 5;

/// `hash(s)` in CPython 3.11 and 3.12 run with `PYTHONHASHSEED=0`.
pub fn str_hash(s: &str) -> i64 {
    if s.is_empty() {
        return 0;
    }
    let h = if s.is_ascii() {
        siphash13(s.as_bytes())
    } else {
        let units = || {
            s.chars()
                .map(|c| lone::unit_of(c).map_or(c as u32, u32::from))
        };
        let max = units().max().unwrap_or(0);
        let mut bytes = Vec::with_capacity(s.len() * 4);
        for u in units() {
            if max < 0x100 {
                bytes.push(u as u8);
            } else if max < 0x1_0000 {
                bytes.extend_from_slice(&(u as u16).to_le_bytes());
            } else {
                bytes.extend_from_slice(&u.to_le_bytes());
            }
        }
        siphash13(&bytes)
    };
    let h = h as i64;
    if h == -1 {
        -2
    } else {
        h
    }
}

/// SipHash-1-3 of `data` with the key (0, 0): `siphash13` of `Python/pyhash.c` with the hash
/// secret zeroed, as `PYTHONHASHSEED=0` leaves it.
fn siphash13(data: &[u8]) -> u64 {
    let mut v = [
        0x736f_6d65_7073_6575_u64,
        0x646f_7261_6e64_6f6d,
        0x6c79_6765_6e65_7261,
        0x7465_6462_7974_6573,
    ];
    let round = |v: &mut [u64; 4]| {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    };
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let m = u64::from_le_bytes(c.try_into().unwrap_or_default());
        v[3] ^= m;
        round(&mut v);
        v[0] ^= m;
    }
    let mut last = [0u8; 8];
    let tail = chunks.remainder();
    last[..tail.len()].copy_from_slice(tail);
    let b = ((data.len() as u64) << 56) | u64::from_le_bytes(last);
    v[3] ^= b;
    round(&mut v);
    v[0] ^= b;
    v[2] ^= 0xff;
    round(&mut v);
    round(&mut v);
    round(&mut v);
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

#[derive(Clone, Copy)]
enum Slot<'s> {
    Empty,
    Dummy,
    Active(i64, &'s str),
}

/// A Python `set` of `str` (see the module): its table, slot for slot.
#[derive(Clone)]
pub struct StrSet<'s> {
    table: Vec<Slot<'s>>,
    /// Active and dummy slots.
    fill: usize,
    /// Active slots: `len(set)`.
    used: usize,
}

impl Default for StrSet<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'s> StrSet<'s> {
    /// `set()`.
    pub fn new() -> Self {
        StrSet {
            table: vec![Slot::Empty; MIN_SIZE],
            fill: 0,
            used: 0,
        }
    }

    /// `set(iterable)`: each string added in turn (`set_update_internal` on a list, or on a
    /// dict's `.keys()`).
    pub fn from_strs(items: impl IntoIterator<Item = &'s str>) -> Self {
        let mut s = StrSet::new();
        for k in items {
            s.add(k, str_hash(k));
        }
        s
    }

    /// `len(set)`.
    pub fn len(&self) -> usize {
        self.used
    }

    /// `not set`.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// The elements in iteration order (`list(set)`, `for x in set`).
    pub fn iter(&self) -> impl Iterator<Item = &'s str> + '_ {
        self.table.iter().filter_map(|s| match s {
            Slot::Active(_, k) => Some(*k),
            _ => None,
        })
    }

    fn entries(&self) -> impl Iterator<Item = (i64, &'s str)> + '_ {
        self.table.iter().filter_map(|s| match s {
            Slot::Active(h, k) => Some((*h, *k)),
            _ => None,
        })
    }

    fn mask(&self) -> usize {
        self.table.len() - 1
    }

    /// `x in set`.
    pub fn contains(&self, key: &str) -> bool {
        self.lookup(key, str_hash(key)).is_some()
    }

    /// The slot holding `key` (`set_lookkey`), if it is there.
    fn lookup(&self, key: &str, hash: i64) -> Option<usize> {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                match self.table[j] {
                    Slot::Empty => return None,
                    Slot::Active(h, k) if h == hash && k == key => return Some(j),
                    _ => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// `set_add_entry`: a new key goes to the last dummy its probe passed, or else to the empty
    /// slot that ends it (then the table grows at 3/5 full).
    fn add(&mut self, key: &'s str, hash: i64) {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut free = None;
        let empty = 'probe: loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                match self.table[j] {
                    Slot::Empty => break 'probe j,
                    Slot::Active(h, k) if h == hash && k == key => return,
                    Slot::Dummy => free = Some(j),
                    Slot::Active(..) => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        };
        self.used += 1;
        if let Some(f) = free {
            self.table[f] = Slot::Active(hash, key);
            return;
        }
        self.fill += 1;
        self.table[empty] = Slot::Active(hash, key);
        if self.fill * 5 >= mask * 3 {
            self.resize(if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            });
        }
    }

    /// `set_insert_clean`: a key known to be absent, into a table without dummies.
    fn insert_clean(table: &mut [Slot<'s>], key: &'s str, hash: i64) {
        let mask = table.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            if let Some(slot) = table[i..=i + probes]
                .iter_mut()
                .find(|s| matches!(s, Slot::Empty))
            {
                *slot = Slot::Active(hash, key);
                return;
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// `set_table_resize`: a table of the smallest power of two (at least 8) above `min_used`,
    /// the old slots' keys inserted in table order, dummies dropped.
    fn resize(&mut self, min_used: usize) {
        let mut size = MIN_SIZE;
        while size <= min_used {
            size <<= 1;
        }
        if size == MIN_SIZE && self.table.len() == MIN_SIZE && self.fill == self.used {
            return;
        }
        let mut table = vec![Slot::Empty; size];
        for s in &self.table {
            if let Slot::Active(h, k) = *s {
                Self::insert_clean(&mut table, k, h);
            }
        }
        self.table = table;
        self.fill = self.used;
    }

    /// `set_discard_entry`: the key's slot becomes a dummy.
    fn discard(&mut self, key: &str, hash: i64) {
        if let Some(j) = self.lookup(key, hash) {
            self.table[j] = Slot::Dummy;
            self.used -= 1;
        }
    }

    /// `set(self)` / `self.copy()` (`set_merge` into a new set): the same layout when the
    /// sizes agree and there are no dummies, else each key inserted afresh in table order.
    pub fn copy(&self) -> Self {
        let mut out = StrSet::new();
        if self.used == 0 {
            return out;
        }
        if self.used * 5 >= out.mask() * 3 {
            out.resize(self.used * 2);
        }
        if out.table.len() == self.table.len() && self.fill == self.used {
            out.table.clone_from(&self.table);
        } else {
            for (h, k) in self.entries() {
                Self::insert_clean(&mut out.table, k, h);
            }
        }
        out.fill = self.used;
        out.used = self.used;
        out
    }

    /// `self - other` (`set_difference`): a new set of this one's keys not in `other`, in this
    /// one's order; when this set is more than 4 × larger, a copy with `other`'s keys deleted.
    pub fn difference(&self, other: &StrSet<'_>) -> Self {
        if (self.used >> 2) > other.used {
            let mut out = self.copy();
            out.difference_update(other);
            return out;
        }
        let mut out = StrSet::new();
        for (h, k) in self.entries() {
            if other.lookup(k, h).is_none() {
                out.add(k, h);
            }
        }
        out
    }

    /// `self -= other` (`set_difference_update_internal`, `other` a set): each key of `other`
    /// this set holds becomes a dummy (CPython first narrows a much larger `other` to the
    /// common keys, which deletes the same slots), then a table more than a quarter dummies is
    /// rebuilt.
    fn difference_update(&mut self, other: &StrSet<'_>) {
        for (h, k) in other.entries() {
            self.discard(k, h);
        }
        if self.fill - self.used > self.mask() / 4 {
            self.resize(if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            });
        }
    }

    /// `self & other`, `self.intersection(other)` (`set_intersection`): the smaller set's keys
    /// (`other`'s when the sizes are equal) that the larger holds, added in the smaller one's
    /// order to a new set.
    pub fn intersection(&self, other: &StrSet<'s>) -> Self {
        if other.used > self.used {
            self.common_in_order_of(other, self)
        } else {
            self.common_in_order_of(self, other)
        }
    }

    /// The keys of `small` that `big` holds, added in `small`'s order to a new set.
    fn common_in_order_of(&self, big: &StrSet<'s>, small: &StrSet<'s>) -> Self {
        let mut out = StrSet::new();
        for (h, k) in small.entries() {
            if big.lookup(k, h).is_some() {
                out.add(k, h);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hash()` of a few strings in `PYTHONHASHSEED=0 python3.11 -c 'print(hash(s))'`, one of
    /// each storage width and a lone surrogate.
    #[test]
    fn str_hash_is_cpythons_with_seed_zero() {
        for (s, want) in [
            ("", 0),
            ("a", HASH_A),
            ("abcdefgh", HASH_ABCDEFGH),
            ("é", HASH_E_ACUTE),
            ("€", HASH_EURO),
            ("😀", HASH_GRIN),
            ("\u{10f000}", HASH_D800),
        ] {
            assert_eq!(str_hash(s), want, "{s:?}");
        }
    }

    const HASH_A: i64 = 4_644_417_185_603_328_019;
    const HASH_ABCDEFGH: i64 = 4_574_395_652_268_504_554;
    const HASH_E_ACUTE: i64 = 6_047_309_291_227_476_195;
    const HASH_EURO: i64 = -5_529_981_157_763_016_009;
    const HASH_GRIN: i64 = -3_536_540_696_076_613_844;
    const HASH_D800: i64 = 5_926_611_903_945_376_553;

    /// `list(set(["b", "a", "c"]))` and friends, as CPython 3.11 prints them with seed 0.
    #[test]
    fn set_order_is_cpythons() {
        let s = StrSet::from_strs(["b", "a", "c", "a"]);
        assert_eq!(s.len(), 3);
        assert!(s.contains("a") && !s.contains("d"));
        assert_eq!(s.iter().collect::<Vec<_>>(), ["c", "a", "b"]);
    }
}
