//! A fast path for reading a case line into [`Val`] trees, without serde's per-token machinery.
//!
//! It reads the JSON the peers' files hold: strings with or without escapes (a surrogate escape
//! goes to serde_json), numbers whose value is exact without a general float parser, nesting up
//! to [`MAX_DEPTH`]; anything else, including every malformed line, answers `None`, and the
//! caller then parses the line with serde_json, which gives the values and the error messages.
//! So this never decides what a line means on its own: where it answers, its trees are the ones
//! serde_json builds through [`Val`]'s `Deserialize` (first key position, last value for
//! duplicate keys; the same doubles).
//!
//! Strings are scanned eight bytes at a time ([`plain_run_end`]), which is also what
//! [`super::text::json_str`] uses to copy the runs that need no escaping.

use std::borrow::Cow;

use super::value::Val;

/// Deeper values go to serde_json (whose recursion limit is 128).
const MAX_DEPTH: usize = 64;
/// Objects with more keys go to serde_json (duplicate detection here is linear per key).
const MAX_KEYS: usize = 24;

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

/// The index of the first [`STOP`] byte (`"`, `\\` or a control byte) at or after `i`, or
/// `b.len()`: eight bytes per step while they last.
#[inline]
pub(crate) fn plain_run_end(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let bits = stop_bits(u64::from_le_bytes(w));
        if bits != 0 {
            return i + (bits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !STOP[usize::from(b[i])] {
        i += 1;
    }
    i
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

/// Where a number's parts are, as [`Parser::number_syntax`] found them.
struct NumberText {
    start: usize,
    neg: bool,
    /// The integer digits.
    int: (usize, usize),
    /// The fraction digits (empty when there is no fraction).
    frac: (usize, usize),
    /// The exponent's sign and digits, if there is an exponent.
    exp: Option<(bool, usize, usize)>,
}

/// A cursor over one line.
pub(crate) struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Start at the beginning of `s`.
    pub(crate) fn new(s: &'a str) -> Parser<'a> {
        Parser {
            s,
            b: s.as_bytes(),
            i: 0,
            depth: 0,
        }
    }

    /// Skip JSON whitespace.
    #[inline]
    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next byte, not consumed.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Consume `c` (after whitespace), or fail.
    #[inline]
    pub(crate) fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.peek()? == c {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    /// After a member: `Some(true)` for a comma, `Some(false)` for `close`, else `None`.
    #[inline]
    pub(crate) fn comma_or(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = self.peek()?;
        self.i += 1;
        if c == b',' {
            Some(true)
        } else if c == close {
            Some(false)
        } else {
            None
        }
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    /// A string without escapes (after whitespace), borrowed: object keys and the names the
    /// readers match on. A string with escapes answers `None`.
    #[inline]
    pub(crate) fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let j = plain_run_end(self.b, start);
        if *self.b.get(j)? != b'"' {
            return None;
        }
        self.i = j + 1;
        // Both ends are ASCII quotes, so these are char boundaries.
        self.s.get(start..j)
    }

    /// A string (after whitespace): borrowed when it has no escapes, decoded otherwise.
    pub(crate) fn cow_string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.i;
        let j = plain_run_end(self.b, start);
        match *self.b.get(j)? {
            b'"' => {
                self.i = j + 1;
                self.s.get(start..j).map(Cow::Borrowed)
            }
            b'\\' => {
                let mut out = String::with_capacity(j - start + 8);
                out.push_str(self.s.get(start..j)?);
                self.i = self.escaped(j, Some(&mut out))?;
                Some(Cow::Owned(out))
            }
            _ => None,
        }
    }

    /// The rest of a string from the backslash at `j`: decoded into `out` when given, else only
    /// checked. Answers the index after the closing quote. Escapes of surrogates (paired or
    /// not) answer `None`: serde_json decides those.
    fn escaped(&self, mut j: usize, mut out: Option<&mut String>) -> Option<usize> {
        loop {
            match *self.b.get(j)? {
                b'"' => return Some(j + 1),
                b'\\' => {
                    let c = match *self.b.get(j + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let unit = hex4(self.b.get(j + 2..j + 6)?)?;
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
            let k = plain_run_end(self.b, j);
            if let Some(o) = out.as_deref_mut() {
                o.push_str(self.s.get(j..k)?);
            }
            j = k;
        }
    }

    /// Skip a string (after whitespace), checking its escapes as [`Parser::cow_string`] would.
    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        let j = plain_run_end(self.b, self.i);
        self.i = match *self.b.get(j)? {
            b'"' => j + 1,
            b'\\' => self.escaped(j, None)?,
            _ => return None,
        };
        Some(())
    }

    /// The raw text of the next value, skipped after building it (for ids, printed back as is).
    pub(crate) fn raw_value(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.value()?;
        self.s.get(start..self.i)
    }

    /// The raw text of the next value, checked as [`Parser::value`] would read it but without
    /// building it (for values kept [`super::value::Lazy`]).
    pub(crate) fn skip_value(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.skip()?;
        self.s.get(start..self.i)
    }

    fn skip(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let close = if self.peek()? == b'{' { b'}' } else { b']' };
                self.i += 1;
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return None;
                }
                self.ws();
                if self.peek()? == close {
                    self.i += 1;
                } else {
                    loop {
                        if close == b'}' {
                            // A key with escapes is left to serde_json, as in `object`.
                            self.string()?;
                            self.eat(b':')?;
                        }
                        self.skip()?;
                        if !self.comma_or(close)? {
                            break;
                        }
                    }
                }
                self.depth -= 1;
                Some(())
            }
            b'-' | b'0'..=b'9' => {
                let n = self.number_syntax()?;
                // Only a number that could be out of range is parsed.
                if n.exp.is_some() || n.int.1 - n.int.0 > 300 {
                    self.number_value(&n).map(drop)
                } else {
                    Some(())
                }
            }
            _ => self.value().map(drop),
        }
    }

    /// The next value.
    pub(crate) fn value(&mut self) -> Option<Val<'a>> {
        self.ws();
        match self.peek()? {
            b'"' => self.cow_string().map(Val::Str),
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.literal(b"true", Val::Bool(true)),
            b'f' => self.literal(b"false", Val::Bool(false)),
            b'n' => self.literal(b"null", Val::Null),
            b'-' | b'0'..=b'9' => {
                let n = self.number_syntax()?;
                self.number_value(&n)
            }
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], v: Val<'a>) -> Option<Val<'a>> {
        if self.b.get(self.i..self.i + word.len())? == word {
            self.i += word.len();
            Some(v)
        } else {
            None
        }
    }

    fn digits(&mut self) -> (usize, usize) {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        (start, self.i)
    }

    /// A number's text, by JSON's grammar (`None` if it breaks it).
    fn number_syntax(&mut self) -> Option<NumberText> {
        let start = self.i;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let int = self.digits();
        // At least one digit, no leading zero.
        if int.1 == int.0 || (int.1 - int.0 > 1 && self.b[int.0] == b'0') {
            return None;
        }
        let mut frac = (self.i, self.i);
        if self.peek() == Some(b'.') {
            self.i += 1;
            frac = self.digits();
            if frac.1 == frac.0 {
                return None;
            }
        }
        let mut exp = None;
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            let sign_neg = match self.peek() {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let (a, b) = self.digits();
            if a == b {
                return None;
            }
            exp = Some((sign_neg, a, b));
        }
        Some(NumberText {
            start,
            neg,
            int,
            frac,
            exp,
        })
    }

    /// The value serde_json gives a number, where it can be had exactly without its float
    /// parser: integers of up to 18 digits (not `-0`, which serde_json reads as a float), and
    /// decimals of up to 15 significant digits scaled by a power of ten up to 10^22 (one exact
    /// multiplication or division, as in serde_json's own fast path). Anything else is parsed
    /// by serde_json itself.
    fn number_value(&self, n: &NumberText) -> Option<Val<'a>> {
        let int_len = n.int.1 - n.int.0;
        if n.frac.0 == n.frac.1 && n.exp.is_none() {
            if int_len > 18 || (n.neg && int_len == 1 && self.b[n.int.0] == b'0') {
                return self.serde_number(n);
            }
            let mut v: i64 = 0;
            for &c in &self.b[n.int.0..n.int.1] {
                v = v * 10 + i64::from(c - b'0');
            }
            return Some(Val::Int(if n.neg { -v } else { v }));
        }
        // Significant digits: the integer part (without a lone leading zero) and the fraction.
        let int_digits = if int_len == 1 && self.b[n.int.0] == b'0' {
            &self.b[n.int.0..n.int.0]
        } else {
            &self.b[n.int.0..n.int.1]
        };
        let frac_digits = &self.b[n.frac.0..n.frac.1];
        let mut exp10: i64 = -(frac_digits.len() as i64);
        if let Some((neg, a, b)) = n.exp {
            if b - a > 4 {
                return self.serde_number(n);
            }
            let mut e: i64 = 0;
            for &c in &self.b[a..b] {
                e = e * 10 + i64::from(c - b'0');
            }
            exp10 += if neg { -e } else { e };
        }
        let mut mant: u64 = 0;
        let mut count = 0usize;
        for &c in int_digits.iter().chain(frac_digits) {
            if count == 0 && c == b'0' {
                continue;
            }
            count += 1;
            if count > 15 {
                return self.serde_number(n);
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
            return self.serde_number(n);
        };
        Some(Val::Float(if n.neg { -v } else { v }))
    }

    /// serde_json's own reading of the number's text (out of range: `None`).
    fn serde_number(&self, n: &NumberText) -> Option<Val<'a>> {
        serde_json::from_str(self.s.get(n.start..self.i)?).ok()
    }

    fn array(&mut self) -> Option<Val<'a>> {
        self.eat(b'[')?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::with_capacity(4);
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
        } else {
            loop {
                items.push(self.value()?);
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b']' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(Val::Arr(items))
    }

    fn object(&mut self) -> Option<Val<'a>> {
        self.eat(b'{')?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let mut entries: Vec<(Cow<'a, str>, Val<'a>)> = Vec::with_capacity(4);
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
        } else {
            loop {
                let k = self.string()?;
                self.eat(b':')?;
                let v = self.value()?;
                match entries.iter_mut().find(|(k2, _)| k2 == k) {
                    Some(e) => e.1 = v,
                    None => {
                        if entries.len() == MAX_KEYS {
                            return None;
                        }
                        entries.push((Cow::Borrowed(k), v));
                    }
                }
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(Val::Obj(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast(s: &str) -> Option<Val<'_>> {
        let mut p = Parser::new(s);
        let v = p.value()?;
        p.at_end().then_some(v)
    }

    fn skips(s: &str) -> bool {
        let mut p = Parser::new(s);
        p.skip_value().is_some() && p.at_end()
    }

    #[test]
    fn agrees_with_serde_where_it_answers() {
        for s in [
            r#"{"a":[1,-2,3.25,-0.5,true,false,null,"x é"],"b":{},"c":[],"a":{"d":0}}"#,
            " [ 1 , { \"k\" : \"v\" } ]\n",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "18446744073709551616",
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
            "-0",
            "-0.0",
            "0.000",
            r#""a\nb\"c\\d\/e\bf\fg\rh\ti\u00e9\u0041é""#,
            r#"["\u0000", "\uFFFF", "x\ty"]"#,
            "\"0123456789abcdefghijklmnopqrstuvwxyz\\u20ac0123456789\"",
        ] {
            let want: Val<'_> = serde_json::from_str(s).unwrap();
            assert_eq!(fast(s), Some(want), "{s}");
            assert!(skips(s), "{s}");
        }
        for (x, i) in [("1.5", 0), ("2e-3", 0), ("0.1", 1)] {
            let f = fast(x).unwrap();
            let want: Val<'_> = serde_json::from_str(x).unwrap();
            assert_eq!(f, want, "{x} {i}");
        }
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
            for len in 0..20 {
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
    fn hands_everything_else_to_serde() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        for s in [
            "01",
            "1.",
            "-",
            "1e",
            "1e+",
            ".5",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "tru",
            "\"\u{1}\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\ud83d\\ude00\"",
            "\"\\udc00\"",
            "\"abc",
            "{\"a\" 1}",
            "{\"\\u0061\":1}",
            "[1] x",
            "1e400",
            &deep,
        ] {
            assert_eq!(fast(s), None, "{s}");
        }
        for s in ["1e400", "\"\\ud800\"", "\"\\q\"", "[1,]", &deep] {
            assert!(!skips(s), "{s}");
        }
    }
}
