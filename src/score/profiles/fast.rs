//! A fast path for reading a case line into [`Val`] trees, without serde's per-token machinery.
//!
//! It reads only the common shape of JSON (no string escapes, no exponents, integers of at most
//! 18 digits, nesting up to [`MAX_DEPTH`]) and answers `None` for anything else, including every
//! malformed line; the caller then parses the line with serde_json, which gives the values and
//! the error messages. So this never decides what a line means on its own: where it answers,
//! its trees are the ones serde_json builds through [`Val`]'s `Deserialize` (first key position,
//! last value for duplicate keys; numbers parsed by serde_json itself).

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

    /// A string without escapes (after whitespace), borrowed.
    pub(crate) fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let mut j = start;
        while let Some(&c) = self.b.get(j) {
            if STOP[usize::from(c)] {
                break;
            }
            j += 1;
        }
        if *self.b.get(j)? != b'"' {
            return None;
        }
        self.i = j + 1;
        // Both ends are ASCII quotes, so these are char boundaries.
        self.s.get(start..j)
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
            b'"' => self.string().map(drop),
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
            _ => self.value().map(drop),
        }
    }

    /// The next value.
    pub(crate) fn value(&mut self) -> Option<Val<'a>> {
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(|s| Val::Str(Cow::Borrowed(s))),
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.literal(b"true", Val::Bool(true)),
            b'f' => self.literal(b"false", Val::Bool(false)),
            b'n' => self.literal(b"null", Val::Null),
            b'-' | b'0'..=b'9' => self.number(),
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

    fn number(&mut self) -> Option<Val<'a>> {
        let start = self.i;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let int_start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let int_len = self.i - int_start;
        // JSON: at least one digit, no leading zero.
        if int_len == 0 || (int_len > 1 && self.b[int_start] == b'0') {
            return None;
        }
        match self.peek() {
            Some(b'e' | b'E') => None,
            Some(b'.') => {
                self.i += 1;
                let frac_start = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                if self.i == frac_start || matches!(self.peek(), Some(b'e' | b'E')) {
                    return None;
                }
                // serde_json's own number parser, so the double is the one it would build.
                let f: f64 = serde_json::from_str(self.s.get(start..self.i)?).ok()?;
                Some(Val::Float(f))
            }
            _ => {
                // serde_json reads `-0` as a float; long integers may leave i64.
                if int_len > 18 || (neg && int_len == 1 && self.b[int_start] == b'0') {
                    return None;
                }
                let mut n: i64 = 0;
                for &c in &self.b[int_start..self.i] {
                    n = n * 10 + i64::from(c - b'0');
                }
                Some(Val::Int(if neg { -n } else { n }))
            }
        }
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

    #[test]
    fn agrees_with_serde_where_it_answers() {
        for s in [
            r#"{"a":[1,-2,3.25,-0.5,true,false,null,"x é"],"b":{},"c":[],"a":{"d":0}}"#,
            " [ 1 , { \"k\" : \"v\" } ]\n",
            "123456789012345678",
            "-123456789012345678",
            "0.1",
            "2.5000000000000000001",
        ] {
            let want: Val<'_> = serde_json::from_str(s).unwrap();
            assert_eq!(fast(s), Some(want), "{s}");
        }
    }

    #[test]
    fn hands_everything_else_to_serde() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        for s in [
            r#""a\nb""#,
            "1e5",
            "1.5E3",
            "-0",
            "1234567890123456789",
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "tru",
            "\"\u{1}\"",
            "{\"a\" 1}",
            "[1] x",
            &deep,
        ] {
            assert_eq!(fast(s), None, "{s}");
        }
    }
}
