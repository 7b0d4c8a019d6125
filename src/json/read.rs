//! A line read the way a peer's runtime reads it: Python's `json.loads` or JavaScript's
//! `JSON.parse`, into one [`Val`] tree.
//!
//! Both runtimes keep the first position and the last value of a duplicate key. Python keeps
//! integers of any size ([`Val::BigInt`] past 64 bits, refused past CPython's 4 300 digits as
//! `int()` refuses them), reads `-0` as the integer 0, and accepts `NaN`, `Infinity` and
//! `-Infinity`; JavaScript reads every number as a double (`-0` stays negative zero, integers
//! past 2^53 are rounded) and knows no such literals. Both read `1e400` as infinity.
//!
//! Nesting is read with an explicit stack, never by recursion, up to the runtime's stated limit
//! ([`Runtime::depth`]); past it the line is refused with the peer's own reason. Lone surrogate
//! escapes (`"\ud800"`), which both runtimes keep and a Rust string cannot hold, are kept as
//! characters of a block set aside for them ([`super::lone`]).

use std::borrow::Cow;
use std::collections::HashMap;

use super::lone;
use super::value::Val;

/// The refusal of a character of the block set aside for lone surrogates ([`lone`]).
pub fn set_aside(c: char) -> String {
    format!(
        "toolspec: the character U+{:04X} is in the private-use block toolspec keeps for lone \
         surrogates, and would be read as one (the case is not scored)",
        c as u32
    )
}

/// The runtime whose reading of JSON a peer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// CPython's `json.loads` (`strict` false: raw control characters allowed in strings, as
    /// `json.loads(s, strict=False)`).
    Python {
        /// `json.loads`'s `strict` (true by default).
        strict: bool,
        /// How deep `json.loads` nests before its `RecursionError` in the peer's interpreter.
        depth: usize,
    },
    /// JavaScript's `JSON.parse` (node 20).
    JavaScript,
}

/// The nesting CPython 3.11 reads in `json.loads` called from a peer's script (the recursion
/// limit of 1 000, less the frames below the call); deeper is its `RecursionError`.
pub const PY311_DEPTH: usize = 990;
/// The nesting CPython 3.12 reads (its C recursion limit of 1 500, less the frames below).
pub const PY312_DEPTH: usize = 1490;
/// The nesting toolspec reads for a JavaScript peer. `JSON.parse` nests as deep as memory
/// allows; the peers' own code then recurses into the value (node's stack ends near 10 000
/// frames), so deeper lines are refused with a reason.
pub const JS_DEPTH: usize = 4096;

impl Runtime {
    /// Python 3.11's `json.loads(line)`.
    pub const PY311: Runtime = Runtime::Python {
        strict: true,
        depth: PY311_DEPTH,
    };
    /// Python 3.12's `json.loads(line)`.
    pub const PY312: Runtime = Runtime::Python {
        strict: true,
        depth: PY312_DEPTH,
    };

    /// The deepest nesting read.
    pub fn depth(self) -> usize {
        match self {
            Runtime::Python { depth, .. } => depth,
            Runtime::JavaScript => JS_DEPTH,
        }
    }

    fn python(self) -> bool {
        matches!(self, Runtime::Python { .. })
    }
}

/// CPython's limit on the digits of an integer read from text (`sys.get_int_max_str_digits()`).
pub const PY_INT_DIGITS: usize = 4300;

/// Why a line was not read: the message and the byte offset where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// What went wrong, in the runtime's words where it has them.
    pub message: String,
    /// The byte offset in the line.
    pub at: usize,
    /// Whether the runtime itself would read the line (the refusal is toolspec's: a character
    /// of the block set aside for lone surrogates), so the message says why.
    pub toolspec: bool,
    /// Whether the text breaks JSON's grammar (not a limit of the runtime or of toolspec).
    pub syntax: bool,
}

/// What [`read`] found besides the value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// The deepest nesting.
    pub depth: usize,
    /// Whether an object had a duplicate key.
    pub duplicates: bool,
    /// Whether a string held a lone surrogate escape (kept as [`super::lone`] says).
    pub lone: bool,
    /// Where the value of each member of a top-level object is in the line (the last one of a
    /// duplicate key), in first-appearance order: what a case prints back as written.
    pub spans: Vec<(String, std::ops::Range<usize>)>,
}

impl Shape {
    /// The text of top-level member `key` in `line` (the line that was read).
    pub fn raw<'l>(&self, line: &'l str, key: &str) -> Option<&'l str> {
        let (_, span) = self.spans.iter().find(|(k, _)| k == key)?;
        line.get(span.clone())
    }
}

/// Objects with more members than this get a hash index for duplicate keys.
const LINEAR_KEYS: usize = 24;

/// An open array or object.
enum Open<'a> {
    Arr(Vec<Val<'a>>),
    Obj {
        members: Vec<(Cow<'a, str>, Val<'a>)>,
        index: Option<HashMap<Cow<'a, str>, usize>>,
        key: Cow<'a, str>,
    },
}

/// Read `text` (one JSON value with whitespace around it) as `rt` does.
pub fn read(text: &str, rt: Runtime) -> Result<(Val<'_>, Shape), ReadError> {
    Reader {
        s: text,
        b: text.as_bytes(),
        i: 0,
        rt,
        shape: Shape::default(),
    }
    .run()
}

struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    rt: Runtime,
    shape: Shape,
}

impl<'a> Reader<'a> {
    fn err(&self, what: &str) -> ReadError {
        let chars = self.s.get(..self.i).map_or(self.i, |p| p.chars().count());
        ReadError {
            message: if self.rt.python() {
                format!("{what}: char {chars}")
            } else {
                format!("{what} at position {chars}")
            },
            at: self.i,
            toolspec: false,
            syntax: true,
        }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn run(mut self) -> Result<(Val<'a>, Shape), ReadError> {
        let mut stack: Vec<Open<'a>> = Vec::new();
        // Where the value of the top-level object's current member starts.
        let mut member_start = 0;
        self.ws();
        'value: loop {
            // A value starts at `i`.
            if stack.len() == 1 {
                member_start = self.i;
            }
            let mut v = match self.b.get(self.i).copied() {
                Some(c @ (b'[' | b'{')) => {
                    if stack.len() >= self.rt.depth() {
                        return Err(self.too_deep());
                    }
                    self.i += 1;
                    self.ws();
                    let close = if c == b'[' { b']' } else { b'}' };
                    if self.b.get(self.i) == Some(&close) {
                        self.i += 1;
                        self.shape.depth = self.shape.depth.max(stack.len() + 1);
                        if c == b'[' {
                            Val::Arr(Vec::new())
                        } else {
                            Val::Obj(Vec::new())
                        }
                    } else if c == b'[' {
                        stack.push(Open::Arr(Vec::new()));
                        self.shape.depth = self.shape.depth.max(stack.len());
                        continue 'value;
                    } else {
                        let key = self.key()?;
                        stack.push(Open::Obj {
                            members: Vec::new(),
                            index: None,
                            key,
                        });
                        self.shape.depth = self.shape.depth.max(stack.len());
                        continue 'value;
                    }
                }
                Some(b'"') => Val::Str(self.string()?),
                Some(_) => self.scalar()?,
                None => return Err(self.err("Expecting value")),
            };
            // After a value: add it to the open container, then the next item or the end.
            loop {
                let end = self.i;
                let depth_one = stack.len() == 1;
                self.ws();
                let Some(top) = stack.last_mut() else {
                    if self.i != self.b.len() {
                        return Err(self.err("Extra data"));
                    }
                    return Ok((v, self.shape));
                };
                match top {
                    Open::Arr(items) => {
                        items.push(v);
                        match self.b.get(self.i) {
                            Some(b',') => {
                                self.i += 1;
                                self.ws();
                                continue 'value;
                            }
                            Some(b']') => self.i += 1,
                            _ => return Err(self.err("Expecting ',' delimiter")),
                        }
                    }
                    Open::Obj {
                        members,
                        index,
                        key,
                    } => {
                        let key = std::mem::take(key);
                        if depth_one {
                            let span = member_start..end;
                            match self.shape.spans.iter_mut().find(|(k, _)| *k == key) {
                                Some(slot) => slot.1 = span,
                                None => self.shape.spans.push((key.to_string(), span)),
                            }
                        }
                        if put(members, index, key, v) {
                            self.shape.duplicates = true;
                        }
                        match self.b.get(self.i) {
                            Some(b',') => {
                                self.i += 1;
                                self.ws();
                                let k = self.key()?;
                                if let Some(Open::Obj { key, .. }) = stack.last_mut() {
                                    *key = k;
                                }
                                continue 'value;
                            }
                            Some(b'}') => self.i += 1,
                            _ => return Err(self.err("Expecting ',' delimiter")),
                        }
                    }
                }
                v = match stack.pop() {
                    Some(Open::Arr(items)) => Val::Arr(items),
                    Some(Open::Obj { members, .. }) => Val::Obj(members),
                    None => Val::Null,
                };
            }
        }
    }

    fn too_deep(&self) -> ReadError {
        let message = match self.rt {
            Runtime::Python { depth, .. } => format!(
                "RecursionError: maximum recursion depth exceeded while decoding a JSON \
                 {} from a unicode string (Python reads {depth} levels here)",
                if self.b.get(self.i) == Some(&b'{') {
                    "object"
                } else {
                    "array"
                }
            ),
            Runtime::JavaScript => format!(
                "toolspec: the line nests more than {JS_DEPTH} levels, past what the peer's \
                 recursion into it reaches (RangeError: Maximum call stack size exceeded)"
            ),
        };
        ReadError {
            message,
            at: self.i,
            toolspec: !self.rt.python(),
            syntax: false,
        }
    }

    /// A member's key at `i`, then the colon and the whitespace after it.
    fn key(&mut self) -> Result<Cow<'a, str>, ReadError> {
        if self.b.get(self.i) != Some(&b'"') {
            return Err(self.err("Expecting property name enclosed in double quotes"));
        }
        let k = self.string()?;
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return Err(self.err("Expecting ':' delimiter"));
        }
        self.i += 1;
        self.ws();
        Ok(k)
    }

    /// The string whose opening quote is at `i`.
    fn string(&mut self) -> Result<Cow<'a, str>, ReadError> {
        let start = self.i;
        self.i += 1;
        let strict = !matches!(self.rt, Runtime::Python { strict: false, .. });
        let from = self.i;
        let mut out: Option<String> = None;
        loop {
            let run = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || (c < 0x20 && strict) {
                    break;
                }
                self.i += 1;
            }
            // Quotes, backslashes and controls are ASCII: `run..i` is on char boundaries.
            let text = self.s.get(run..self.i).unwrap_or_default();
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(match out {
                        None => Cow::Borrowed(self.s.get(from..self.i - 1).unwrap_or_default()),
                        Some(mut o) => {
                            o.push_str(text);
                            Cow::Owned(o)
                        }
                    });
                }
                Some(b'\\') => {
                    let o = out.get_or_insert_with(String::new);
                    o.push_str(text);
                    self.i += 1;
                    let c = self.escape()?;
                    if let Some(o) = out.as_mut() {
                        o.push(c);
                    }
                }
                Some(_) => return Err(self.err("Invalid control character at")),
                None => {
                    self.i = start;
                    return Err(self.err("Unterminated string starting at"));
                }
            }
        }
    }

    /// The escape after a backslash at `i - 1`.
    fn escape(&mut self) -> Result<char, ReadError> {
        let Some(&e) = self.b.get(self.i) else {
            return Err(self.err("Unterminated string starting at"));
        };
        self.i += 1;
        Ok(match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let cp = if (0xd800..0xdc00).contains(&hi)
                    && self.b.get(self.i..self.i + 2) == Some(b"\\u".as_slice())
                {
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
                // A lone surrogate is kept as the character set aside for it; a character
                // of that block written as a pair would read back as a surrogate.
                // (`hex4` reads at most 0xFFFF and a pair at most 0x10FFFF: every value is a
                // character or a surrogate.)
                let c = char::from_u32(cp)
                    .or_else(|| lone::char_of(cp))
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                if cp <= 0xffff && lone::unit_of(c).is_some() {
                    self.shape.lone = true;
                } else if lone::unit_of(c).is_some() {
                    return Err(ReadError {
                        message: set_aside(c),
                        at: self.i,
                        toolspec: true,
                        syntax: false,
                    });
                }
                c
            }
            _ => {
                self.i -= 2;
                return Err(self.err("Invalid \\escape"));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32, ReadError> {
        let mut n = 0u32;
        for k in 0..4 {
            let Some(d) = self
                .b
                .get(self.i + k)
                .and_then(|&c| char::from(c).to_digit(16))
            else {
                self.i -= 1;
                return Err(self.err("Invalid \\uXXXX escape"));
            };
            n = n * 16 + d;
        }
        self.i += 4;
        Ok(n)
    }

    fn lit(&mut self, word: &str) -> bool {
        let ok = self.b.get(self.i..self.i + word.len()) == Some(word.as_bytes());
        if ok {
            self.i += word.len();
        }
        ok
    }

    /// A literal or a number at `i`.
    fn scalar(&mut self) -> Result<Val<'a>, ReadError> {
        if self.lit("null") {
            return Ok(Val::Null);
        }
        if self.lit("true") {
            return Ok(Val::Bool(true));
        }
        if self.lit("false") {
            return Ok(Val::Bool(false));
        }
        if self.rt.python() {
            if self.lit("NaN") {
                return Ok(Val::Float(f64::NAN));
            }
            if self.lit("Infinity") {
                return Ok(Val::Float(f64::INFINITY));
            }
            if self.lit("-Infinity") {
                return Ok(Val::Float(f64::NEG_INFINITY));
            }
        }
        self.number()
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`, as Python's scanner reads it (a `.` or an `e`
    /// without digits after it ends the number before it).
    fn number(&mut self) -> Result<Val<'a>, ReadError> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.b.get(r.i).is_some_and(u8::is_ascii_digit) {
                r.i += 1;
            }
            r.i > from
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
        let text = self.s.get(start..self.i).unwrap_or_default();
        if self.i == int_end {
            if let Ok(n) = text.parse::<i64>() {
                // `-0`: Python's int 0, JavaScript's negative zero.
                return Ok(if n == 0 && text.starts_with('-') && !self.rt.python() {
                    Val::Float(-0.0)
                } else {
                    Val::Int(n)
                });
            }
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Val::UInt(n));
            }
            if self.rt.python() {
                let n = text.trim_start_matches('-').len();
                if n > PY_INT_DIGITS {
                    self.i = start;
                    return Err(ReadError {
                        message: format!(
                            "ValueError: Exceeds the limit ({PY_INT_DIGITS} digits) for integer \
                             string conversion: value has {n} digits; use \
                             sys.set_int_max_str_digits() to increase the limit"
                        ),
                        at: start,
                        toolspec: false,
                        syntax: false,
                    });
                }
                return Ok(Val::BigInt(Cow::Borrowed(text)));
            }
        }
        // Rust rounds correctly as `float()` and `Number()` do, overflow included (inf, 0.0).
        text.parse::<f64>().map(Val::Float).map_err(|_| {
            self.i = start;
            self.err("Expecting value")
        })
    }
}

/// Put member `key: v` in an object: a new key at the end, a duplicate in place of the
/// earlier value (its first position, its last value). Whether it was a duplicate.
fn put<'a>(
    members: &mut Vec<(Cow<'a, str>, Val<'a>)>,
    index: &mut Option<HashMap<Cow<'a, str>, usize>>,
    key: Cow<'a, str>,
    v: Val<'a>,
) -> bool {
    let found = match index {
        Some(ix) => ix.get(&key).copied(),
        None => members.iter().position(|(k, _)| *k == key),
    };
    if let Some(slot) = found.and_then(|i| members.get_mut(i)) {
        slot.1 = v;
        return true;
    }
    if let Some(ix) = index {
        ix.insert(key.clone(), members.len());
    }
    members.push((key, v));
    if index.is_none() && members.len() > LINEAR_KEYS {
        *index = Some(
            members
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect(),
        );
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(s: &str) -> Val<'_> {
        read(s, Runtime::PY311).unwrap().0
    }

    fn js(s: &str) -> Val<'_> {
        read(s, Runtime::JavaScript).unwrap().0
    }

    #[test]
    fn duplicate_keys_keep_the_first_position_and_the_last_value() {
        let mut s = String::from("{");
        for i in 0..40 {
            s.push_str(&format!("\"k{i}\":{i},"));
        }
        s.push_str("\"k3\":99,\"a\":1,\"a\":{\"b\":1,\"b\":[2]}}");
        for rt in [Runtime::PY311, Runtime::JavaScript] {
            let (v, shape) = read(&s, rt).unwrap();
            assert!(shape.duplicates);
            let obj = v.as_obj().unwrap();
            assert_eq!(obj.len(), 41);
            assert_eq!(obj[3], (Cow::Borrowed("k3"), Val::Int(99)));
            assert_eq!(
                v.get("a").unwrap().get("b"),
                Some(&Val::Arr(vec![Val::Int(2)]))
            );
        }
        let (_, shape) = read(r#"{"a":1,"b":{"a":2}}"#, Runtime::PY311).unwrap();
        assert!(!shape.duplicates);
    }

    #[test]
    fn numbers_as_each_runtime_reads_them() {
        assert_eq!(py("-0"), Val::Int(0));
        assert!(matches!(js("-0"), Val::Float(f) if f == 0.0 && f.is_sign_negative()));
        assert!(matches!(py("-0.0"), Val::Float(f) if f.is_sign_negative()));
        assert_eq!(
            py("18446744073709551617"),
            Val::BigInt("18446744073709551617".into())
        );
        assert_eq!(
            py("-9223372036854775809"),
            Val::BigInt("-9223372036854775809".into())
        );
        assert_eq!(py("18446744073709551615"), Val::UInt(u64::MAX));
        assert_eq!(
            js("18446744073709551617"),
            Val::Float(18446744073709551616.0)
        );
        assert_eq!(py("1e400"), Val::Float(f64::INFINITY));
        assert_eq!(js("-1e400"), Val::Float(f64::NEG_INFINITY));
        assert!(matches!(py("NaN"), Val::Float(f) if f.is_nan()));
        assert_eq!(py("-Infinity"), Val::Float(f64::NEG_INFINITY));
        assert!(read("NaN", Runtime::JavaScript).is_err());
        assert!(read("Infinity", Runtime::JavaScript).is_err());
        let big = "9".repeat(PY_INT_DIGITS + 1);
        let e = read(&big, Runtime::PY311).unwrap_err();
        assert!(
            e.message.contains("Exceeds the limit (4300 digits)"),
            "{e:?}"
        );
        assert!(read(&"9".repeat(PY_INT_DIGITS), Runtime::PY311).is_ok());
        for bad in [
            "01",
            "1.",
            "1e",
            "-",
            ".5",
            "+1",
            "1 2",
            "[1,]",
            "{\"a\":1,}",
            "tru",
        ] {
            assert!(read(bad, Runtime::PY311).is_err(), "{bad}");
            assert!(read(bad, Runtime::JavaScript).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        assert!(matches!(py(r#""abc""#), Val::Str(Cow::Borrowed("abc"))));
        assert_eq!(py(r#""a\n\u00e9\ud83d\ude00""#), Val::Str("a\né😀".into()));
        assert!(read("\"a\u{1}\"", Runtime::PY311).is_err());
        assert!(read(
            "\"a\u{1}\"",
            Runtime::Python {
                strict: false,
                depth: 10
            }
        )
        .is_ok());
        // A lone surrogate is kept (as the character set aside for it); a character of that
        // block written as a pair is refused.
        let lone = |u| crate::json::lone::char_of(u).unwrap().to_string();
        assert_eq!(
            read(r#""\ud800a\udfff""#, Runtime::JavaScript).unwrap().0,
            Val::Str(format!("{}a{}", lone(0xd800), lone(0xdfff)).into())
        );
        assert_eq!(
            py(r#""\ud83d\ud83d\ude00""#),
            Val::Str(format!("{}\u{1f600}", lone(0xd83d)).into())
        );
        let e = read(r#""\udbfc\udc00""#, Runtime::PY311).unwrap_err();
        assert!(e.toolspec && e.message.contains("U+10F000"), "{e:?}");
        assert!(read(r#""\x""#, Runtime::PY311).is_err());
    }

    #[test]
    fn nesting_is_read_up_to_the_runtime_limit_without_recursion() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for rt in [Runtime::PY311, Runtime::PY312, Runtime::JavaScript] {
            let text = nest(rt.depth());
            let (v, shape) = read(&text, rt).unwrap();
            assert_eq!(shape.depth, rt.depth());
            // A deep value is dropped without recursing either.
            crate::json::value::drop_deep(v);
            let e = read(&nest(rt.depth() + 1), rt).unwrap_err();
            assert!(
                e.message.contains("RecursionError") || e.message.contains("RangeError"),
                "{e:?}"
            );
        }
        // Far deeper: refused at once, in the same way.
        assert!(read(&nest(1_000_000), Runtime::JavaScript).is_err());
    }
}
