//! Python's `json.loads(s, strict=False)`, for what the peers parse themselves out of a string
//! (agentevals: LangChain parses `function.arguments` with `strict=False`).
//!
//! serde_json reads these strings first; this parser is the fallback for what serde_json
//! rejects but Python accepts:
//! - control characters (U+0000 to U+001F) raw inside strings (`strict=False`);
//! - the literals `NaN`, `Infinity` and `-Infinity`;
//! - numbers out of the double range (`1e400` is `inf`, `1e-400` is `0.0`), as `float()` reads
//!   them.
//!
//! Otherwise it is the JSON grammar of Python's scanner (`NUMBER_RE`, the four whitespace
//! characters, `Extra data` after the value), with the same tree as serde_json's (first key
//! position, last value for duplicate keys; integers beyond 64 bits become doubles). Not
//! reproduced: lone surrogate escapes (`"\ud800"`, which a Rust string cannot hold) and nesting
//! deeper than serde_json's 128 levels are still errors.

use std::borrow::Cow;

use crate::json::value::Val;

/// The nesting limit, serde_json's.
const MAX_DEPTH: usize = 128;

/// Parse `s` as `json.loads(s, strict=False)` does.
pub(crate) fn loads(s: &str) -> Result<Val<'static>, String> {
    let mut p = P {
        s,
        b: s.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("Extra data"));
    }
    Ok(v)
}

struct P<'s> {
    s: &'s str,
    b: &'s [u8],
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn err(&self, what: &str) -> String {
        format!("{what}: char {}", self.s[..self.i].chars().count())
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn lit(&mut self, word: &str) -> bool {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Val<'static>, String> {
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.err("Expecting value"));
        };
        match c {
            b'"' => {
                self.i += 1;
                Ok(Val::Str(Cow::Owned(self.string()?)))
            }
            b'{' | b'[' => {
                if self.depth == MAX_DEPTH {
                    return Err(self.err("Nesting too deep"));
                }
                self.depth += 1;
                self.i += 1;
                let v = if c == b'{' {
                    self.object()
                } else {
                    self.array()
                };
                self.depth -= 1;
                v
            }
            _ if self.lit("null") => Ok(Val::Null),
            _ if self.lit("true") => Ok(Val::Bool(true)),
            _ if self.lit("false") => Ok(Val::Bool(false)),
            _ if self.lit("NaN") => Ok(Val::Float(f64::NAN)),
            _ if self.lit("Infinity") => Ok(Val::Float(f64::INFINITY)),
            _ if self.lit("-Infinity") => Ok(Val::Float(f64::NEG_INFINITY)),
            _ => self.number(),
        }
    }

    /// `NUMBER_RE = (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?`.
    fn number(&mut self) -> Result<Val<'static>, String> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let from = p.i;
            while p.b.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i > from
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => {
                self.i = start;
                return Err(self.err("Expecting value"));
            }
        }
        let int_end = self.i;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !digits(self) {
                // `1.` matches only `1`; the `.` is then extra data (or a missing delimiter).
                self.i = int_end;
            }
        }
        let frac_end = self.i;
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if !digits(self) {
                self.i = frac_end;
            }
        }
        let text = &self.s[start..self.i];
        if self.i == int_end {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Val::Int(n));
            }
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Val::UInt(n));
            }
        }
        // Rust's parse rounds correctly like `float()`, overflow included (inf, 0.0).
        text.parse::<f64>()
            .map(Val::Float)
            .map_err(|_| self.err("Expecting value"))
    }

    /// The rest of a string after its opening quote.
    fn string(&mut self) -> Result<String, String> {
        let mut out = String::new();
        loop {
            let from = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' {
                    break;
                }
                self.i += 1;
            }
            // Quotes and backslashes are ASCII, so `from..i` is on char boundaries.
            out.push_str(&self.s[from..self.i]);
            match self.b.get(self.i) {
                None => return Err(self.err("Unterminated string starting at")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                _ => {}
            }
            self.i += 1;
            let Some(&e) = self.b.get(self.i) else {
                return Err(self.err("Unterminated string starting at"));
            };
            self.i += 1;
            match e {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let hi = self.hex4()?;
                    let cp =
                        if (0xd800..0xdc00).contains(&hi) && self.b[self.i..].starts_with(b"\\u") {
                            let save = self.i;
                            self.i += 2;
                            let lo = self.hex4()?;
                            if (0xdc00..0xe000).contains(&lo) {
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                self.i = save;
                                hi
                            }
                        } else {
                            hi
                        };
                    match char::from_u32(cp) {
                        Some(ch) => out.push(ch),
                        None => return Err(self.err("Lone surrogate (not reproduced)")),
                    }
                }
                _ => return Err(self.err("Invalid \\escape")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .b
            .get(self.i..self.i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.err("Invalid \\uXXXX escape"))?;
        self.i += 4;
        // Four ASCII hex digits.
        Ok(h.iter().fold(0, |n, d| {
            n * 16 + char::from(*d).to_digit(16).unwrap_or_default()
        }))
    }

    fn object(&mut self) -> Result<Val<'static>, String> {
        let mut entries: Vec<(Cow<'static, str>, Val<'static>)> = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Val::Obj(entries));
        }
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return Err(self.err("Expecting property name enclosed in double quotes"));
            }
            self.i += 1;
            let k = self.string()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return Err(self.err("Expecting ':' delimiter"));
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            // A dict: the first position, the last value.
            match entries.iter_mut().find(|(k2, _)| *k2 == k) {
                Some(slot) => slot.1 = v,
                None => entries.push((Cow::Owned(k), v)),
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Val::Obj(entries));
                }
                _ => return Err(self.err("Expecting ',' delimiter")),
            }
        }
    }

    fn array(&mut self) -> Result<Val<'static>, String> {
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Val::Arr(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Val::Arr(items));
                }
                _ => return Err(self.err("Expecting ',' delimiter")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: &Val<'_>, k: &str) -> Val<'static> {
        match v.get(k) {
            Some(Val::Float(f)) => Val::Float(*f),
            Some(Val::Int(i)) => Val::Int(*i),
            Some(Val::Str(s)) => Val::Str(Cow::Owned(s.to_string())),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_python_accepts_and_serde_does_not() {
        let v = loads("{\"q\": \"a\nb\t\u{1}\"}").unwrap();
        assert_eq!(obj(&v, "q"), Val::Str("a\nb\t\u{1}".into()));
        let v =
            loads(r#"{"n": NaN, "p": Infinity, "m": -Infinity, "big": 1e400, "tiny": -1e-400}"#)
                .unwrap();
        assert!(matches!(obj(&v, "n"), Val::Float(f) if f.is_nan()));
        assert_eq!(obj(&v, "p"), Val::Float(f64::INFINITY));
        assert_eq!(obj(&v, "m"), Val::Float(f64::NEG_INFINITY));
        assert_eq!(obj(&v, "big"), Val::Float(f64::INFINITY));
        assert!(matches!(obj(&v, "tiny"), Val::Float(f) if f == 0.0 && f.is_sign_negative()));
    }

    #[test]
    fn same_tree_as_serde_on_json() {
        for s in [
            r#"{"a": 1, "b": [1.5, -0.0, 1E2, 18446744073709551615, 18446744073709551616], "a": {"c": null}}"#,
            r#"  [true, false, "\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t", {}]  "#,
            r"-9223372036854775808",
        ] {
            let want: Val<'_> = serde_json::from_str(s).unwrap();
            assert_eq!(loads(s).unwrap(), want, "{s}");
        }
    }

    #[test]
    fn what_python_rejects_too() {
        for s in [
            "",
            " ",
            "{\"q\": 1}x",
            "{'q': 1}",
            "[1,]",
            "01",
            "1.",
            ".5",
            "-",
            "nan",
            "\"\\x\"",
            "\"\\u12\"",
            "\"abc",
            "{\"a\" 1}",
            "[1 2]",
            "\"\\ud800\"",
            "-NaN",
        ] {
            assert!(loads(s).is_err(), "{s:?}");
        }
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert!(loads(&deep).is_err());
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(loads(&ok).is_ok());
    }
}
