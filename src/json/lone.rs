//! Lone surrogates: the UTF-16 code units U+D800 to U+DFFF that a JSON escape (`"\ud800"`) can
//! hold alone. Python's `json.loads` and JavaScript's `JSON.parse` keep them as one-character
//! (one-unit) strings; a Rust string cannot hold them, so the runtime readers ([`super::read`])
//! keep each as a character of a private-use block set aside for them, [`FIRST`] + (unit −
//! 0xD800), and everything that prints, orders or measures text as a peer does reads such a
//! character back as its surrogate: Python's `repr` (`'\ud800'`), `JSON.stringify` and toolspec's
//! own JSON lines (`"\ud800"`), UTF-16 order and length (one unit), Python's code point order.
//!
//! A character of that block in a line as written would be read back as a surrogate too, so a
//! case line that holds one is refused ([`in_line`]).

use std::cmp::Ordering;

/// The character that holds lone surrogate U+D800; U+DFFF is `FIRST + 0x7FF`. U+10F000 to
/// U+10F7FF are in Supplementary Private Use Area-B, which no Unicode version assigns.
pub const FIRST: u32 = 0x10_F000;
const LAST: u32 = FIRST + 0x7FF;

/// The character that holds lone surrogate `unit` (U+D800 to U+DFFF).
pub fn char_of(unit: u32) -> Option<char> {
    if (0xd800..0xe000).contains(&unit) {
        char::from_u32(FIRST + unit - 0xd800)
    } else {
        None
    }
}

/// The lone surrogate character `c` holds, if it holds one.
#[inline]
pub fn unit_of(c: char) -> Option<u16> {
    let u = c as u32;
    if (FIRST..=LAST).contains(&u) {
        u16::try_from(u - FIRST + 0xd800).ok()
    } else {
        None
    }
}

/// Whether `s` may hold a lone surrogate character (its UTF-8 starts with 0xF4, as every
/// character from U+100000 does): a test fast enough for every string printed.
#[inline]
pub fn maybe(s: &str) -> bool {
    s.as_bytes().contains(&0xf4)
}

/// The first character of the set-aside block in `s` (a case line as written), if any.
pub fn in_line(s: &str) -> Option<char> {
    // [`maybe`] over a whole line, with the vectorized search.
    memchr::memchr(0xf4, s.as_bytes())?;
    s.chars().find(|&c| unit_of(c).is_some())
}

/// The UTF-16 code units of `s` as JavaScript holds it: a lone surrogate is one unit.
pub fn utf16(s: &str) -> impl Iterator<Item = u16> + '_ {
    s.chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        let units: &[u16] = match unit_of(c) {
            Some(u) => {
                buf[0] = u;
                &buf[..1]
            }
            None => c.encode_utf16(&mut buf),
        };
        let (n, a, b) = (units.len(), buf[0], buf[1]);
        [a, b].into_iter().take(n)
    })
}

/// JavaScript's `s.length`.
pub fn utf16_len(s: &str) -> usize {
    if maybe(s) {
        utf16(s).count()
    } else {
        s.encode_utf16().count()
    }
}

/// JavaScript's string order (`<` on strings, `Array.prototype.sort`'s default): by UTF-16
/// code units.
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    if maybe(a) || maybe(b) {
        utf16(a).cmp(utf16(b))
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

/// A character's code point as Python sees it (a lone surrogate is its unit).
#[inline]
pub fn py_code_point(c: char) -> u32 {
    unit_of(c).map_or(c as u32, u32::from)
}

/// Python's string order: by code points.
pub fn py_cmp(a: &str, b: &str) -> Ordering {
    if maybe(a) || maybe(b) {
        a.chars()
            .map(py_code_point)
            .cmp(b.chars().map(py_code_point))
    } else {
        a.cmp(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surrogates_map_both_ways() {
        for unit in 0xd800..0xe000 {
            let c = char_of(unit).unwrap();
            assert_eq!(unit_of(c), Some(unit as u16));
        }
        assert_eq!(char_of(0xd7ff), None);
        assert_eq!(unit_of('\u{10efff}'), None);
        assert_eq!(unit_of('\u{10f800}'), None);
        assert_eq!(unit_of('a'), None);
    }

    #[test]
    fn orders_and_lengths_are_the_runtimes() {
        let lone = char_of(0xd800).unwrap().to_string();
        // JavaScript: the lone unit sorts before U+FF21 and before the pair of U+1F600.
        assert_eq!(utf16_cmp(&lone, "\u{ff21}"), Ordering::Less);
        assert_eq!(utf16_cmp(&lone, "\u{1f600}"), Ordering::Less);
        assert_eq!(utf16_len(&format!("a{lone}\u{1f600}")), 4);
        // Python: U+D800 sorts after U+D7FF and before U+E000 and every astral character.
        assert_eq!(py_cmp(&lone, "\u{d7ff}"), Ordering::Greater);
        assert_eq!(py_cmp(&lone, "\u{e000}"), Ordering::Less);
        assert_eq!(py_cmp(&lone, "\u{10000}"), Ordering::Less);
        assert_eq!(
            in_line(&format!("x{lone}")),
            Some(lone.chars().next().unwrap())
        );
        assert_eq!(in_line("\u{10fffd}"), None);
    }
}
