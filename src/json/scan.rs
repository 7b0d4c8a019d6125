//! Scanning primitives for the tape reader ([`super::tape`]): a per-line mask of the bytes that
//! end a plain string (SSE2 through `safe_arch`), plain string runs found eight
//! bytes at a time, escapes, and numbers read exactly as serde_json reads them.
//!
//! Each answers `None` where serde_json must decide (a surrogate escape, a control character in a
//! string, a number out of range, anything malformed), so the caller can hand the line to
//! serde_json for its value or its error.

use super::value::Val;

/// Bytes that end the plain part of a string: the quote, a backslash, control characters.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `w` (little-endian) that is a [`STOP`] byte, plus possibly some
/// bits *above* the lowest one (borrows), so only the lowest set bit is meaningful.
#[inline]
fn stop_bits(w: u64) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    (zero_byte(quote) | zero_byte(backslash) | (w.wrapping_sub(ONES * 0x20) & !w)) & HIGH
}

/// Eight bytes as a little-endian word.
#[inline(always)]
fn load8(x: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(x);
    u64::from_le_bytes(w)
}

/// The offset of the first [`STOP`] byte among eight, if any.
#[inline(always)]
fn stop_in_word(chunk: &[u8]) -> Option<usize> {
    let bits = stop_bits(load8(chunk));
    (bits != 0).then_some((bits.trailing_zeros() / 8) as usize)
}

/// The index of the first [`STOP`] byte (`"`, `\\` or a control byte) at or after `i`, or
/// `b.len()`: eight bytes per step while they last.
#[inline(always)]
pub(crate) fn plain_run_end(b: &[u8], mut i: usize) -> usize {
    // Eight bytes first (most keys and many values end there), then sixteen per step (two
    // independent words), then eight, then one.
    if let Some(chunk) = b.get(i..i + 8) {
        if let Some(k) = stop_in_word(chunk) {
            return i + k;
        }
        i += 8;
    }
    while let Some(chunk) = b.get(i..i + 16) {
        #[cfg(target_arch = "x86_64")]
        {
            let m = stops16(chunk.try_into().unwrap_or(&[0; 16]));
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let s0 = stop_bits(load8(&chunk[..8]));
            let s1 = stop_bits(load8(&chunk[8..]));
            if s0 | s1 != 0 {
                return if s0 != 0 {
                    i + (s0.trailing_zeros() / 8) as usize
                } else {
                    i + 8 + (s1.trailing_zeros() / 8) as usize
                };
            }
        }
        i += 16;
    }
    while let Some(chunk) = b.get(i..i + 8) {
        if let Some(k) = stop_in_word(chunk) {
            return i + k;
        }
        i += 8;
    }
    while i < b.len() && !STOP[usize::from(b[i])] {
        i += 1;
    }
    i
}

/// One bit per byte of `b` (bit `i % 64` of word `i / 64`), set for the [`STOP`] bytes: the
/// whole line classified once, 16 bytes per step with SSE2 (the x86-64 baseline), so that the
/// reader finds each string's end with a bit scan ([`next_stop`]) instead of scanning the
/// string. The last word's bits past the end of `b` are clear.
pub(crate) fn stop_mask(b: &[u8], out: &mut Vec<u64>) {
    stop_mask_by(b, out, block_stops);
}

/// [`stop_mask`] with `block` classifying 64 bytes.
#[inline(always)]
fn stop_mask_by(b: &[u8], out: &mut Vec<u64>, block: impl Fn(&[u8; 64]) -> u64) {
    let (blocks, rest) = b.as_chunks::<64>();
    out.clear();
    // Written once each (no zeroing first).
    out.extend(blocks.iter().map(&block));
    if rest.is_empty() {
        return;
    }
    // The last 64 bytes, which overlap the blocks before, shifted so that the rest's first byte
    // is bit 0: no padded copy (a `memset` and a `memcpy` call per line).
    if let Some(last) = b
        .len()
        .checked_sub(64)
        .and_then(|at| b[at..].first_chunk::<64>())
    {
        out.push(block(last) >> (64 - rest.len()));
    } else {
        // A line shorter than 64 bytes: padded with a byte that is not a stop byte.
        let mut last = [b'a'; 64];
        last[..rest.len()].copy_from_slice(rest);
        out.push(block(&last));
    }
}

/// The index of the first [`STOP`] byte at or after `i` in the line whose [`stop_mask`] is
/// `mask`, or `len` (the line's length) if there is none.
#[inline(always)]
pub(crate) fn next_stop(mask: &[u64], i: usize, len: usize) -> usize {
    let mut w = i / 64;
    let Some(&first) = mask.get(w) else {
        return len;
    };
    let mut m = first & (u64::MAX << (i % 64));
    while m == 0 {
        w += 1;
        match mask.get(w) {
            Some(&x) => m = x,
            None => return len,
        }
    }
    w * 64 + m.trailing_zeros() as usize
}

/// The [`STOP`] bytes of 64 bytes as a bit mask: SSE2 (baseline on x86-64) through the safe
/// wrappers of `safe_arch`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_stops(block: &[u8; 64]) -> u64 {
    let (parts, _) = block.as_chunks::<16>();
    let mut m = 0u64;
    for (k, part) in parts.iter().enumerate() {
        m |= u64::from(stops16(part)) << (16 * k);
    }
    m
}

/// [`block_stops`] of 16 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stops16(part: &[u8; 16]) -> u16 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let x = load_unaligned_m128i(part);
    // A control byte is one that `min(x, 0x1f)` leaves unchanged.
    let stops = cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'"' as i8))
        | cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'\\' as i8))
        | cmp_eq_mask_i8_m128i(min_u8_m128i(x, set_splat_i8_m128i(0x1f)), x);
    move_mask_i8_m128i(stops) as u16
}

/// [`block_stops`] elsewhere.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn block_stops(block: &[u8; 64]) -> u64 {
    block_stops_swar(block)
}

/// [`block_stops`] without SIMD: exact per-byte tests on 8-byte words.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn block_stops_swar(block: &[u8; 64]) -> u64 {
    const LOW7: u64 = !HIGH;
    // The high bit of each byte of `x` that is zero (no borrows between bytes).
    let zero = |x: u64| !(((x & LOW7) + LOW7) | x) & HIGH;
    let (words, _) = block.as_chunks::<8>();
    let mut m = 0u64;
    for (k, w) in words.iter().enumerate() {
        let w = u64::from_le_bytes(*w);
        // Below 0x20: the top three bits clear.
        let control = !(((w & LOW7) + ONES * 0x60) | w) & HIGH;
        let bits =
            zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) | control;
        // The eight high bits gathered into one byte.
        m |= ((bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    m
}

/// Byte equality of two short strings without a call to `memcmp` (keys, tool names and kinds
/// are mostly 4 to 16 bytes): two overlapping loads per side, else the library comparison.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word4 = |x: &[u8]| {
        let mut w = [0u8; 4];
        w.copy_from_slice(x);
        u32::from_le_bytes(w)
    };
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(&a[..4]) == word4(&b[..4]) && word4(&a[n - 4..]) == word4(&b[n - 4..]),
        8..=16 => load8(&a[..8]) == load8(&b[..8]) && load8(&a[n - 8..]) == load8(&b[n - 8..]),
        _ => a == b,
    }
}

/// [`same_bytes`] of two strings.
#[inline(always)]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// The rest of the string of `s` from the backslash at `j`: decoded into `out` when given, else
/// only checked. Answers the index after the closing quote. Escapes of surrogates (paired or
/// not) answer `None`: serde_json decides those, as it does control characters.
pub(crate) fn unescape(s: &str, mut j: usize, mut out: Option<&mut String>) -> Option<usize> {
    let b = s.as_bytes();
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => {
                let c = match *b.get(j + 1)? {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let unit = hex4(b.get(j + 2..j + 6)?)?;
                        j += 4;
                        char::from_u32(unit)?
                    }
                    _ => return None,
                };
                j += 2;
                if let Some(o) = out.as_deref_mut() {
                    o.push(c);
                }
            }
            _ => return None,
        }
        let k = plain_run_end(b, j);
        if let Some(o) = out.as_deref_mut() {
            o.push_str(s.get(j..k)?);
        }
        j = k;
    }
}

/// Four hex digits as a code unit.
fn hex4(h: &[u8]) -> Option<u32> {
    let mut n = 0u32;
    for &c in h.get(..4)? {
        n = n * 16 + char::from(c).to_digit(16)?;
    }
    Some(n)
}

/// Exact powers of ten as doubles (10^22 is the largest exact one).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Where a number's parts are in the line.
struct NumberText {
    start: usize,
    end: usize,
    neg: bool,
    /// The integer digits.
    int: (usize, usize),
    /// The fraction digits (empty when there is no fraction).
    frac: (usize, usize),
    /// The exponent's sign and digits, if there is an exponent.
    exp: Option<(bool, usize, usize)>,
}

fn digits(b: &[u8], mut i: usize) -> (usize, usize) {
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    (start, i)
}

/// The number starting at `start`, by JSON's grammar (`None` if it breaks it).
fn number_syntax(b: &[u8], start: usize) -> Option<NumberText> {
    let neg = b.get(start) == Some(&b'-');
    let int = digits(b, start + usize::from(neg));
    // At least one digit, no leading zero.
    if int.1 == int.0 || (int.1 - int.0 > 1 && b[int.0] == b'0') {
        return None;
    }
    let mut i = int.1;
    let mut frac = (i, i);
    if b.get(i) == Some(&b'.') {
        frac = digits(b, i + 1);
        if frac.1 == frac.0 {
            return None;
        }
        i = frac.1;
    }
    let mut exp = None;
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let sign_neg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let (a, e) = digits(b, i);
        if a == e {
            return None;
        }
        exp = Some((sign_neg, a, e));
        i = e;
    }
    Some(NumberText {
        start,
        end: i,
        neg,
        int,
        frac,
        exp,
    })
}

/// A number as serde_json reads it (a [`Val`] number, without `Val`'s drop glue).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    UInt(u64),
    Float(f64),
}

/// The number at `start` of `s` and the index after it, with the value serde_json gives it.
/// Integers of up to 18 digits (not `-0`, which serde_json reads as a float) and decimals of up
/// to 15 significant digits scaled by a power of ten up to 10^22 are computed here exactly (one
/// multiplication or division of exact doubles, serde_json's own fast path); anything else is
/// parsed by serde_json itself.
#[inline]
pub(crate) fn number(s: &str, start: usize) -> Option<(Num, usize)> {
    match short_number(s.as_bytes(), start) {
        Some(n) => Some(n),
        None => any_number(s, start),
    }
}

/// [`number`] for what most numbers in case files are, in one pass: an integer of at most 15
/// digits (not `-0`) or a decimal of at most 15 digits in all, without an exponent; `None`
/// for anything else (and for what breaks the grammar), which [`any_number`] then reads. The
/// values are those [`any_number`] computes: the integer, or the digits as an integer divided
/// by the power of ten of the fraction's length.
#[inline(always)]
fn short_number(b: &[u8], start: usize) -> Option<(Num, usize)> {
    let neg = b.get(start) == Some(&b'-');
    let first = start + usize::from(neg);
    let (i, v) = fold_digits(b, first, 0);
    let int_len = i - first;
    if int_len == 0 || int_len > 15 || (int_len > 1 && b.get(first) == Some(&b'0')) {
        return None;
    }
    match b.get(i) {
        Some(b'.') => {
            let from = i + 1;
            let (j, v) = fold_digits(b, from, v);
            let frac_len = j - from;
            if frac_len == 0 || int_len + frac_len > 15 || matches!(b.get(j), Some(b'e' | b'E')) {
                return None;
            }
            let x = if v == 0 {
                0.0
            } else {
                v as f64 / POW10.get(frac_len)?
            };
            Some((Num::Float(if neg { -x } else { x }), j))
        }
        Some(b'e' | b'E') => None,
        // `-0` is a float to serde_json.
        _ if neg && v == 0 => None,
        _ => {
            let v = v as i64;
            Some((Num::Int(if neg { -v } else { v }), i))
        }
    }
}

/// The digits of `b` from `i` on, appended to `v` as decimal digits: the index after them and
/// the value (wrapping: the caller refuses more than 15 digits in all).
#[inline(always)]
fn fold_digits(b: &[u8], mut i: usize, mut v: u64) -> (usize, u64) {
    while let Some(&c) = b.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        i += 1;
    }
    (i, v)
}

/// [`number`] for any number.
fn any_number(s: &str, start: usize) -> Option<(Num, usize)> {
    let b = s.as_bytes();
    let n = number_syntax(b, start)?;
    let serde = || -> Option<(Num, usize)> {
        let v: Val<'_> = serde_json::from_str(s.get(n.start..n.end)?).ok()?;
        let v = match v {
            Val::Int(i) => Num::Int(i),
            Val::UInt(u) => Num::UInt(u),
            Val::Float(f) => Num::Float(f),
            _ => return None,
        };
        Some((v, n.end))
    };
    let int_len = n.int.1 - n.int.0;
    if n.frac.0 == n.frac.1 && n.exp.is_none() {
        // `-0` (Python's int 0, JavaScript's negative zero) and integers past 64 bits (kept
        // whole by Python, rounded by JavaScript) are read by the runtime's own reader
        // (`super::read`).
        if n.neg && int_len == 1 && b[n.int.0] == b'0' {
            return None;
        }
        if int_len > 18 {
            return serde().filter(|(v, _)| !matches!(v, Num::Float(_)));
        }
        let mut v: i64 = 0;
        for &c in &b[n.int.0..n.int.1] {
            v = v * 10 + i64::from(c - b'0');
        }
        return Some((Num::Int(if n.neg { -v } else { v }), n.end));
    }
    // Significant digits: the integer part (without a lone leading zero) and the fraction.
    let int_digits = if int_len == 1 && b[n.int.0] == b'0' {
        &b[n.int.0..n.int.0]
    } else {
        &b[n.int.0..n.int.1]
    };
    let frac_digits = &b[n.frac.0..n.frac.1];
    let mut exp10: i64 = -(frac_digits.len() as i64);
    if let Some((neg, a, e)) = n.exp {
        if e - a > 4 {
            return serde();
        }
        let mut x: i64 = 0;
        for &c in &b[a..e] {
            x = x * 10 + i64::from(c - b'0');
        }
        exp10 += if neg { -x } else { x };
    }
    let mut mant: u64 = 0;
    let mut count = 0usize;
    for &c in int_digits.iter().chain(frac_digits) {
        if count == 0 && c == b'0' {
            continue;
        }
        count += 1;
        if count > 15 {
            return serde();
        }
        mant = mant * 10 + u64::from(c - b'0');
    }
    let m = mant as f64;
    let v = if mant == 0 {
        0.0
    } else if (0..=22).contains(&exp10) {
        m * POW10[exp10 as usize]
    } else if (-22..0).contains(&exp10) {
        m / POW10[(-exp10) as usize]
    } else {
        return serde();
    };
    Some((Num::Float(if n.neg { -v } else { v }), n.end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers one ulp apart, at the edges of the float range, and with more digits than the
    /// short path takes are read exactly (correctly rounded, as Python and JavaScript read
    /// them), on the short path and through serde_json alike.
    #[test]
    fn numbers_are_read_correctly_rounded() {
        let texts = [
            "4.7930822560292636e-175",
            "4.793082256029264e-175",
            "0.1",
            "0.30000000000000004",
            "123456789012345.6",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "5e-324",
            "4.9406564584124654e-324",
            "9007199254740993",
            "-9223372036854775808",
            "18446744073709551615",
            "1e23",
            "8.98846567431158e307",
            "-0.0",
            "0.1000000000000000055511151231257827",
        ];
        for t in texts {
            let (got, end) = number(t, 0).unwrap();
            assert_eq!(end, t.len(), "{t}");
            let want: f64 = t.parse().unwrap();
            let got = match got {
                Num::Float(f) => f,
                Num::Int(i) => i as f64,
                Num::UInt(u) => u as f64,
            };
            assert_eq!(got.to_bits(), want.to_bits(), "{t}");
        }
        let a = number("4.7930822560292636e-175", 0).unwrap().0;
        let b = number("4.793082256029264e-175", 0).unwrap().0;
        assert_ne!(a, b);
    }

    #[test]
    fn plain_runs_end_at_quotes_backslashes_and_controls() {
        let find = |s: &[u8]| {
            s.iter()
                .position(|&c| STOP[usize::from(c)])
                .unwrap_or(s.len())
        };
        let mut cases: Vec<Vec<u8>> = vec![b"".to_vec(), b"abc".to_vec(), "é€😀".into()];
        for special in [b'"', b'\\', 0, 0x1f, b'\n'] {
            for len in 0..40 {
                for at in 0..=len {
                    let mut v: Vec<u8> = (0..len).map(|i| b"a\x7f\x80\xff 0!~"[i % 8]).collect();
                    v.insert(at, special);
                    cases.push(v);
                }
            }
        }
        for c in &cases {
            for start in 0..c.len() {
                assert_eq!(
                    plain_run_end(c, start),
                    start + find(&c[start..]),
                    "{c:?} {start}"
                );
            }
        }
    }

    #[test]
    fn stop_masks_find_what_plain_runs_find() {
        let mut lines: Vec<Vec<u8>> = vec![b"".to_vec(), "é€😀\"x".into()];
        for special in [b'"', b'\\', 0, 0x1f, b'\n', b'\t'] {
            for len in [0usize, 1, 15, 16, 17, 63, 64, 65, 127, 128, 130, 200] {
                for at in [0, 1, len / 2, len.saturating_sub(1), len] {
                    let mut v: Vec<u8> = (0..len)
                        .map(|i| b"a\x7f\x80\xff 0!~\x20\x21\x5b\x5d\xe9"[i % 13])
                        .collect();
                    v.insert(at.min(len), special);
                    v.push(b'z');
                    lines.push(v);
                }
            }
        }
        // Every byte value, at every offset of a block.
        lines.push((0..=255u8).chain(0..=255u8).collect());
        let mut mask = Vec::new();
        for line in &lines {
            stop_mask(line, &mut mask);
            assert_eq!(mask.len(), line.len().div_ceil(64));
            for (k, block) in line.as_chunks::<64>().0.iter().enumerate() {
                assert_eq!(block_stops_swar(block), mask[k], "{line:?}");
            }
            for i in 0..=line.len() + 70 {
                let want = if i >= line.len() {
                    line.len()
                } else {
                    plain_run_end(line, i)
                };
                assert_eq!(next_stop(&mask, i, line.len()), want, "{line:?} {i}");
            }
        }
    }

    #[test]
    fn same_bytes_is_byte_equality() {
        let words: Vec<Vec<u8>> = (0..40)
            .map(|n| (0..n).map(|i| b"abcdefghij"[i % 10]).collect())
            .collect();
        for a in &words {
            for b in &words {
                assert_eq!(same_bytes(a, b), a == b);
                // One byte changed anywhere.
                for k in 0..b.len() {
                    let mut c = b.clone();
                    c[k] ^= 0x80;
                    assert_eq!(same_bytes(a, &c), *a == c, "{a:?} {c:?}");
                }
            }
        }
        assert!(same_str("é€", "é€") && !same_str("é€", "é£"));
    }

    #[test]
    fn numbers_are_read_as_serde_json_reads_them() {
        for s in [
            "0",
            "-1",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "18446744073709551615",
            "0.1",
            "2.5000000000000000001",
            "0.30000000000000004",
            "123456789012345.6",
            "1e5",
            "1.5E3",
            "-2.5e-3",
            "1e22",
            "1e23",
            "4.9e-324",
            "1.7976931348623157e308",
            "0e0",
            "-0.0",
            "0.000",
            "1e-22",
            "7e-23",
        ] {
            let want: Val<'_> = serde_json::from_str(s).unwrap();
            let got = number(s, 0).map(|(n, end)| {
                let v = match n {
                    Num::Int(i) => Val::Int(i),
                    Num::UInt(u) => Val::UInt(u),
                    Num::Float(f) => Val::Float(f),
                };
                (v, end)
            });
            assert_eq!(got, Some((want, s.len())), "{s}");
        }
        // Left to the runtime's reader: `-0` and integers past 64 bits read differently in
        // Python and JavaScript.
        for s in [
            "01",
            "1.",
            "-",
            "1e",
            "1e+",
            ".5",
            "1e400",
            "-x",
            "-0",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            assert_eq!(number(s, 0), None, "{s}");
        }
    }

    /// The one-pass reader of short numbers gives what the general one gives, to the bit
    /// (`-0.0` included), and leaves the rest to it.
    #[test]
    fn short_numbers_are_read_as_any_number_reads_them() {
        let mut taken = 0;
        for sign in ["", "-"] {
            for int in [
                "0",
                "7",
                "10",
                "00",
                "01",
                "123456789012345",
                "1234567890123456",
                "",
            ] {
                for frac in [
                    "",
                    ".",
                    ".0",
                    ".5",
                    ".000",
                    ".25",
                    ".123456789",
                    ".12345678901234",
                ] {
                    for exp in ["", "e1", "E-2"] {
                        for tail in ["", ",", "}", "x", " ", "."] {
                            let s = format!("{sign}{int}{frac}{exp}{tail}");
                            let Some((n, end)) = short_number(s.as_bytes(), 0) else {
                                continue;
                            };
                            taken += 1;
                            let (m, want_end) = any_number(&s, 0).expect(&s);
                            assert_eq!(end, want_end, "{s}");
                            match (n, m) {
                                (Num::Int(a), Num::Int(b)) => assert_eq!(a, b, "{s}"),
                                (Num::Float(a), Num::Float(b)) => {
                                    assert_eq!(a.to_bits(), b.to_bits(), "{s}");
                                }
                                other => panic!("{s}: {other:?}"),
                            }
                        }
                    }
                }
            }
        }
        assert!(taken > 100, "{taken}");
    }
}
