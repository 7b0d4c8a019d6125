//! How the peers print values: Python `repr`, JavaScript `JSON.stringify`, and JSON output lines.
//!
//! Explanations and metadata are compared byte for byte, so numbers must come out with each
//! language's own rules: Python `repr(float)` (`1e-05`, `1e+16`, `100.0`) and JavaScript
//! `Number#toString` (`1e-7`, `1e+21`, `100`). Both use the shortest round-trip digits, which
//! Rust's `{:e}` gives; only the layout differs.

use std::fmt::Write as _;

use super::lone;
use super::view::{Json, Kind};

/// Shortest round-trip digits (at most 17) and decimal exponent of a finite, non-zero `f64`:
/// `|x| = d1.d2d3... × 10^exp`. The digits come from zmij (Schubfach, the formatter serde_json
/// uses), which picks the same shortest, closest digits as Rust's `{:e}`, Python's `repr` and
/// JavaScript's `Number#toString`; only the layout is ours.
#[derive(Clone, Copy)]
struct Shortest {
    buf: [u8; 17],
    len: usize,
    exp: i32,
}

impl Shortest {
    /// The shortest decimal digits that read back as `|x|`, and the exponent.
    fn of(x: f64) -> Shortest {
        let mut z = zmij::Buffer::new();
        let text = z.format_finite(x.abs());
        let (mant, exp) = match text.split_once('e') {
            Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
            None => (text, 0),
        };
        let mut d = Shortest {
            buf: [b'0'; 17],
            len: 0,
            exp: 0,
        };
        // Position of the decimal point in `mant`, and the first non-zero digit.
        let point = mant.find('.').unwrap_or(mant.len()) as i32;
        let mut first: Option<i32> = None;
        for (i, c) in mant.bytes().enumerate() {
            if c == b'.' || (first.is_none() && c == b'0') {
                continue;
            }
            if first.is_none() {
                let i = i as i32;
                first = Some(if i < point { i } else { i - 1 });
            }
            if d.len < d.buf.len() {
                d.buf[d.len] = c;
                d.len += 1;
            }
        }
        while d.len > 1 && d.buf[d.len - 1] == b'0' {
            d.len -= 1;
        }
        d.exp = exp + point - 1 - first.unwrap_or(0);
        d
    }

    fn digits(&self) -> &str {
        // Only ASCII digits were copied.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("0")
    }
}

/// Lay out `digits × 10^exp` positionally (`exp` is the exponent of the first digit).
fn positional(out: &mut String, digits: &str, exp: i32, force_fraction: bool) {
    let n = digits.len() as i32;
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else if exp + 1 >= n {
        out.push_str(digits);
        for _ in 0..(exp + 1 - n) {
            out.push('0');
        }
        if force_fraction {
            out.push_str(".0");
        }
    } else {
        let (a, b) = digits.split_at((exp + 1) as usize);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
}

fn scientific(out: &mut String, digits: &str, exp: i32, exp_min_width: usize) {
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    if exp_min_width == 2 && exp.unsigned_abs() < 10 {
        out.push('0');
    }
    push_u64(out, u64::from(exp.unsigned_abs()));
}

/// Python `repr(float)`.
pub fn py_float(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
    } else if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
    } else {
        if x < 0.0 {
            out.push('-');
        }
        let d = Shortest::of(x);
        if (-4..16).contains(&d.exp) {
            positional(out, d.digits(), d.exp, true);
        } else {
            scientific(out, d.digits(), d.exp, 2);
        }
    }
}

/// A non-negative integer in decimal (without `fmt`, which costs more than the digits).
pub fn push_u64(out: &mut String, n: u64) {
    // Most are counts below ten: one byte.
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
    } else {
        out.push_str(itoa::Buffer::new().format(n));
    }
}

/// An integer in decimal.
pub fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// JavaScript `Number#toString` / `JSON.stringify` of a number (`null` for NaN and infinities).
pub fn js_number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
    } else if x == 0.0 {
        out.push('0');
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        // Integral values (most scores and counts) print as integers in both languages.
        if x < 0.0 {
            out.push('-');
        }
        push_u64(out, x.abs() as u64);
    } else {
        js_fraction(out, x);
    }
}

/// JavaScript `String(x)` of a number: [`js_number`], but `NaN`, `Infinity` and `-Infinity`
/// by name (`JSON.stringify` writes them as `null`).
pub(crate) fn js_number_string(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        js_number(out, x);
    }
}

/// Whether `raw` is the text `JSON.stringify` prints for the number `x` ([`js_number`]).
pub(crate) fn is_js_number_text(raw: &[u8], x: f64) -> bool {
    // Every number's text fits (a sign, 17 digits, a point and an exponent).
    let mut text = String::with_capacity(32);
    js_number(&mut text, x);
    text.as_bytes() == raw
}

/// [`js_number`] of a finite number that is not an integer below 10^15.
fn js_fraction(out: &mut String, x: f64) {
    if x < 0.0 {
        out.push('-');
    }
    let d = Shortest::of(x);
    if (-7 < d.exp) && (d.exp < 21) {
        positional(out, d.digits(), d.exp, false);
    } else {
        scientific(out, d.digits(), d.exp, 1);
    }
}

/// Python `repr(str)`.
pub fn py_str(out: &mut String, s: &str) {
    py_str_in::<PY311>(out, s);
}

/// The minor version of CPython 3.11: DeepEval's and agentevals' interpreter.
pub(crate) const PY311: u8 = 11;
/// The minor version of CPython 3.12: Axion's interpreter.
pub(crate) const PY312: u8 = 12;

/// [`py_str`] as CPython 3.`MINOR` prints it (its Unicode tables decide what is printable).
pub(crate) fn py_str_in<const MINOR: u8>(out: &mut String, s: &str) {
    // Printable ASCII without quotes or backslashes comes out as is, in single quotes.
    if plain_repr(s.as_bytes()) {
        out.push('\'');
        out.push_str(s);
        out.push('\'');
        return;
    }
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if py_printable(c, MINOR) => out.push(c),
            c => {
                // A lone surrogate is printed as `'\ud800'`.
                let u = lone::py_code_point(c);
                if u < 0x100 {
                    let _ = write!(out, "\\x{u:02x}");
                } else if u < 0x10000 {
                    let _ = write!(out, "\\u{u:04x}");
                } else {
                    let _ = write!(out, "\\U{u:08x}");
                }
            }
        }
    }
    out.push(quote);
}

/// Whether every byte is printable ASCII other than `'` and `\\` (what [`py_str`] copies as
/// is): eight bytes per step, the last word overlapping the one before it.
fn plain_repr(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Exact "is there such a byte" tests (a borrow or carry only follows a byte that is
    // already out of range).
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let plain = |w: &[u8; 8]| {
        let x = u64::from_le_bytes(*w);
        let below_space = x.wrapping_sub(ONES * 0x20) & !x;
        let del_or_more = x.wrapping_add(ONES) | x;
        (below_space | del_or_more) & HIGH == 0
            && has_zero(x ^ (ONES * u64::from(b'\''))) == 0
            && has_zero(x ^ (ONES * u64::from(b'\\'))) == 0
    };
    let (words, rest) = b.as_chunks::<8>();
    if rest.is_empty() {
        return words.iter().all(plain);
    }
    let mut last = [b'a'; 8];
    match b.len().checked_sub(8) {
        Some(from) => last.copy_from_slice(&b[from..]),
        None => last[..b.len()].copy_from_slice(b),
    }
    words.iter().all(plain) && plain(&last)
}

/// Whether `b` is plain for [`py_str`] and its repr has nothing a JSON string escapes either
/// (printable ASCII other than `'`, `\\` and `"`): such a repr is `'` + `b` + `'` in the body of
/// a JSON string too.
pub(crate) fn plain_repr_json(b: &[u8]) -> bool {
    // A byte table: names are short (about ten bytes), where the word test's set-up costs
    // more than it saves.
    static TABLE: [bool; 256] = {
        let mut t = [false; 256];
        let mut c = 0x20;
        while c < 0x7f {
            t[c] = !matches!(c as u8, b'\'' | b'\\' | b'"');
            c += 1;
        }
        t
    };
    b.iter().all(|&c| TABLE[usize::from(c)])
}

/// CPython `str.isprintable()` for one character, as CPython 3.`minor` answers it
/// ([`super::pyprint`], generated from CPython 3.9 to 3.13).
fn py_printable(c: char, minor: u8) -> bool {
    let u = c as u32;
    if (0x20..0x7f).contains(&u) {
        return true;
    }
    if in_ranges(super::pyprint::NOT_PRINTABLE, u) {
        return false;
    }
    let table = super::pyprint::PRINTABLE_SINCE;
    let i = table.partition_point(|&(_, hi, _)| hi < u);
    match table.get(i) {
        Some(&(lo, _, since)) if lo <= u => minor >= since,
        _ => true,
    }
}

fn in_ranges(ranges: &[(u32, u32)], u: u32) -> bool {
    let i = ranges.partition_point(|&(_, hi)| hi < u);
    ranges.get(i).is_some_and(|&(lo, _)| lo <= u)
}

/// Python `repr` of a value decoded by `json.loads` (`str(dict)` is the same), as CPython 3.11
/// prints it.
pub(crate) fn py_repr<'s, J: Json<'s>>(out: &mut String, v: J) {
    py_repr_in::<J, PY311>(out, v);
}

/// [`py_repr`] as CPython 3.`MINOR` prints it.
pub(crate) fn py_repr_in<'s, J: Json<'s>, const MINOR: u8>(out: &mut String, v: J) {
    if let Some(d) = v.big_int() {
        out.push_str(d);
        return;
    }
    match v.kind() {
        Kind::Null => out.push_str("None"),
        Kind::Bool(true) => out.push_str("True"),
        Kind::Bool(false) => out.push_str("False"),
        Kind::Int(i) => push_i64(out, i),
        Kind::UInt(u) => push_u64(out, u),
        Kind::Float(f) => py_float(out, f),
        Kind::Str(s) => py_str_in::<MINOR>(out, s),
        Kind::Arr => {
            out.push('[');
            for (i, x) in v.items().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_repr_in::<J, MINOR>(out, x);
            }
            out.push(']');
        }
        Kind::Obj => {
            out.push('{');
            for (i, (k, x)) in v.entries().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_str_in::<MINOR>(out, k);
                out.push_str(": ");
                py_repr_in::<J, MINOR>(out, x);
            }
            out.push('}');
        }
    }
}

/// Python `repr` of a list of strings.
pub fn py_str_list<'s>(out: &mut String, items: impl IntoIterator<Item = &'s str>) {
    py_str_list_in::<PY311>(out, items);
}

/// [`py_str_list`] as CPython 3.`MINOR` prints it.
pub(crate) fn py_str_list_in<'s, const MINOR: u8>(
    out: &mut String,
    items: impl IntoIterator<Item = &'s str>,
) {
    out.push('[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_str_in::<MINOR>(out, s);
    }
    out.push(']');
}

/// A JSON string literal (the escaping both `JSON.stringify` and serde_json use). Runs that
/// need no escaping are found eight bytes at a time and copied whole.
pub fn json_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    json_str_body(out, s);
    out.push('"');
}

/// [`json_str`] without the quotes: the escaped text, so that a string built in pieces can be
/// escaped piece by piece (escaping works character by character). A lone surrogate
/// ([`super::lone`]) is written as its escape, `\ud800`, as `JSON.stringify` writes it.
pub(crate) fn json_str_body(out: &mut String, s: &str) {
    if !lone::maybe(s) {
        return py_dumps_body(out, s);
    }
    let mut rest = s;
    while let Some((i, unit)) = rest
        .char_indices()
        .find_map(|(i, c)| lone::unit_of(c).map(|u| (i, u)))
    {
        py_dumps_body(out, &rest[..i]);
        let _ = write!(out, "\\u{unit:04x}");
        rest = &rest[i + 4..];
    }
    py_dumps_body(out, rest);
}

/// The body of a string literal of Python's `json.dumps(ensure_ascii=False)`: [`json_str_body`],
/// but a lone surrogate stays as it is (Python writes it raw).
fn py_dumps_body(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    let mut start = 0;
    loop {
        let i = super::scan::plain_run_end(b, start);
        // Escaped bytes are ASCII, so `start..i` are char boundaries.
        out.push_str(&s[start..i]);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 15)]));
            }
        }
        start = i + 1;
    }
}

/// [`json_str`], and with `ESC` that literal escaped again as the body of a JSON string.
fn json_str_in<const ESC: bool>(out: &mut String, s: &str) {
    if !ESC {
        out.reserve(s.len() + 2);
        out.push('"');
        py_dumps_body(out, s);
        out.push('"');
        return;
    }
    out.push_str("\\\"");
    if super::scan::plain_run_end(s.as_bytes(), 0) == s.len() && !lone::maybe(s) {
        // Nothing to escape at either level.
        out.push_str(s);
    } else {
        let mut once = String::with_capacity(s.len() + 8);
        py_dumps_body(&mut once, s);
        json_str_body(out, &once);
    }
    out.push_str("\\\"");
}

/// Python `json.dumps(v, indent=4, ensure_ascii=False)` with the given starting indent level;
/// with `ESC`, written as the body of a JSON string (what [`json_str_body`] of that text gives,
/// without building the text first: a reason that holds a dump is built escaped). The dump's
/// only bytes that JSON escapes are its newlines, the quotes of its strings and what those
/// strings escape; numbers, literals, brackets and indentation are the same either way.
pub(crate) fn py_json_indent<'s, J: Json<'s>, const ESC: bool>(
    out: &mut String,
    v: J,
    level: usize,
) {
    // A newline and the indentation of `n` levels, in one piece for the usual depths.
    let newline = |out: &mut String, n: usize| {
        const ESCAPED: &str = concat!("\\n", "                                ");
        const PLAIN: &str = concat!("\n", "                                ");
        let (text, nl) = if ESC { (ESCAPED, 2) } else { (PLAIN, 1) };
        if let Some(piece) = text.get(..nl + 4 * n) {
            out.push_str(piece);
        } else {
            out.push_str(&text[..nl]);
            for _ in 0..n {
                out.push_str("    ");
            }
        }
    };
    if let Some(d) = v.big_int() {
        out.push_str(d);
        return;
    }
    match v.kind() {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::Int(i) => push_i64(out, i),
        Kind::UInt(u) => push_u64(out, u),
        Kind::Float(f) => {
            if f.is_nan() {
                out.push_str("NaN");
            } else if f.is_infinite() {
                out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
            } else {
                py_float(out, f);
            }
        }
        Kind::Str(s) => json_str_in::<ESC>(out, s),
        Kind::Arr if v.items().len() == 0 => out.push_str("[]"),
        Kind::Obj if v.entries().len() == 0 => out.push_str("{}"),
        Kind::Arr => {
            out.push('[');
            for (i, x) in v.items().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                py_json_indent::<J, ESC>(out, x, level + 1);
            }
            newline(out, level);
            out.push(']');
        }
        Kind::Obj => {
            out.push('{');
            for (i, (k, x)) in v.entries().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                json_str_in::<ESC>(out, k);
                out.push_str(": ");
                py_json_indent::<J, ESC>(out, x, level + 1);
            }
            newline(out, level);
            out.push('}');
        }
    }
}

/// Whether a key is a JavaScript array index (such keys come first, ascending, in objects).
pub(crate) fn js_index_key(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || (k.len() > 1 && k.starts_with('0')) {
        return None;
    }
    if !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<u64>()
        .ok()
        .filter(|n| *n < u64::from(u32::MAX))
        .map(|n| n as u32)
}

/// `JSON.stringify` of a value decoded by `JSON.parse` (integer-like keys first, ascending).
pub(crate) fn js_json<'s, J: Json<'s>>(out: &mut String, v: J) {
    match v.kind() {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => js_number(out, v.as_f64().unwrap_or(0.0)),
        Kind::Str(s) => json_str(out, s),
        Kind::Arr => {
            out.push('[');
            for (i, x) in v.items().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                js_json(out, x);
            }
            out.push(']');
        }
        Kind::Obj => {
            out.push('{');
            let mut first = true;
            let mut emit = |out: &mut String, k: &str, x: J| {
                if !first {
                    out.push(',');
                }
                first = false;
                json_str(out, k);
                out.push(':');
                js_json(out, x);
            };
            if v.entries().all(|(k, _)| js_index_key(k).is_none()) {
                for (k, x) in v.entries() {
                    emit(out, k, x);
                }
            } else {
                let mut idx: Vec<(u32, &'s str, J)> = v
                    .entries()
                    .filter_map(|(k, x)| js_index_key(k).map(|n| (n, k, x)))
                    .collect();
                idx.sort_unstable_by_key(|e| e.0);
                for &(_, k, x) in &idx {
                    emit(out, k, x);
                }
                for (k, x) in v.entries() {
                    if js_index_key(k).is_none() {
                        emit(out, k, x);
                    }
                }
            }
            out.push('}');
        }
    }
}

/// An `f64` as a JSON number for our own output lines (shortest round-trip, `null` if not
/// finite), in JavaScript layout so integers print without `.0`.
pub fn json_f64(out: &mut String, x: f64) {
    js_number(out, x);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(x: f64) -> String {
        let mut s = String::new();
        py_float(&mut s, x);
        s
    }
    fn jn(x: f64) -> String {
        let mut s = String::new();
        js_number(&mut s, x);
        s
    }

    /// `py_float` and `js_number` print every double of `tests/fixtures/numbers.jsonl.gz` as
    /// CPython's `repr` and node's `String(x)` did (ties between two shortest digit strings go
    /// to the even one, where Rust's `{:e}` rounds up).
    #[test]
    fn numbers_print_as_python_and_javascript_do() {
        use std::io::BufRead;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/numbers.jsonl.gz"
        );
        let file = std::fs::File::open(path).unwrap();
        let mut n = 0;
        for line in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let (hex, py, js): (String, String, String) =
                serde_json::from_str(&line.unwrap()).unwrap();
            let mut bytes = [0u8; 8];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
            }
            let x = f64::from_le_bytes(bytes);
            assert_eq!(pf(x), py, "{hex}");
            assert_eq!(jn(x), js, "{hex}");
            n += 1;
        }
        assert!(n > 12_000);
    }

    #[test]
    fn python_float_repr() {
        assert_eq!(pf(1e-5), "1e-05");
        assert_eq!(pf(1e16), "1e+16");
        assert_eq!(pf(1.5e300), "1.5e+300");
        assert_eq!(pf(100.0), "100.0");
        assert_eq!(pf(0.0001), "0.0001");
        assert_eq!(pf(1.5), "1.5");
        assert_eq!(pf(-2.0 / 3.0), "-0.6666666666666666");
        assert_eq!(pf(123456789012345.6), "123456789012345.6");
        assert_eq!(pf(1234567890123456.7), "1234567890123456.8");
        assert_eq!(pf(-0.0), "-0.0");
    }

    #[test]
    fn javascript_number_to_string() {
        assert_eq!(jn(1e-7), "1e-7");
        assert_eq!(jn(1e-6), "0.000001");
        assert_eq!(jn(1e21), "1e+21");
        assert_eq!(jn(1e20), "100000000000000000000");
        assert_eq!(jn(1.0), "1");
        assert_eq!(jn(0.75), "0.75");
        assert_eq!(jn(-0.0), "0");
    }

    #[test]
    fn python_str_repr_quotes_and_escapes() {
        let r = |s: &str| {
            let mut o = String::new();
            py_str(&mut o, s);
            o
        };
        assert_eq!(r("it's"), "\"it's\"");
        assert_eq!(r("say \"hi\""), "'say \"hi\"'");
        assert_eq!(r("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(r("é\n\u{1}\u{200b}😀"), "'é\\n\\x01\\u200b😀'");
    }

    #[test]
    fn javascript_stringify_puts_index_keys_first() {
        let v: crate::json::value::Val =
            serde_json::from_str(r#"{"b":1.0,"10":2,"2":[1e21],"x":"\n"}"#).unwrap();
        let mut o = String::new();
        js_json(&mut o, &v);
        assert_eq!(o, r#"{"2":[1e+21],"10":2,"b":1,"x":"\n"}"#);
    }

    #[test]
    fn plain_repr_is_the_byte_test() {
        let byte_test = |b: &[u8]| {
            b.iter()
                .all(|&c| (0x20..0x7f).contains(&c) && c != b'\'' && c != b'\\')
        };
        let json_test = |b: &[u8]| byte_test(b) && !b.contains(&b'"');
        for odd in [
            0u8, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x26, 0x27, 0x28, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f,
            0x80, 0xc3, 0xff,
        ] {
            for len in 0..30 {
                for at in 0..=len {
                    let mut v: Vec<u8> = (0..len).map(|i| b"az~ !09AZ"[i % 9]).collect();
                    v.insert(at, odd);
                    assert_eq!(plain_repr(&v), byte_test(&v), "{v:?}");
                    assert_eq!(plain_repr_json(&v), json_test(&v), "{v:?}");
                    v.remove(at);
                    assert_eq!(plain_repr(&v), byte_test(&v), "{v:?}");
                    assert_eq!(plain_repr_json(&v), json_test(&v), "{v:?}");
                }
            }
        }
    }

    #[test]
    fn json_strings_escape_like_serde() {
        for x in [
            "plain",
            "a\"b\\c\nd\re\tf\u{8}\u{c}\u{1}\u{1f}é😀",
            "",
            "\n",
        ] {
            let mut o = String::new();
            json_str(&mut o, x);
            assert_eq!(o, serde_json::to_string(x).unwrap());
        }
    }
}
