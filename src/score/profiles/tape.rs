//! A case line as a flat list of nodes (a "tape"), read in one pass.
//!
//! The hot profiles (DeepEval, Evalite) read each line into a tape and then look at, compare and
//! print its values as [`V`] views, which implement [`Json`]: nothing is allocated per value,
//! and the node and text buffers are reused from line to line ([`Buffers`]). Strings without
//! escapes stay in the line; decoded strings go to one text buffer. Each node keeps its raw
//! text span, so byte-identical values compare without a walk.
//!
//! [`Tape::parse`] reads the JSON that case files hold (see [`super::scan`]) and answers
//! `None` for the rest: surrogate escapes, numbers that need serde_json's float parser and are
//! out of its range, nesting past [`MAX_DEPTH`], objects with more than [`MAX_KEYS`] keys or a
//! duplicate key, and every malformed line. The caller then parses the line with serde_json
//! (which gives the exact errors) and, for a line that is well-formed after all, builds the
//! tape from the resulting [`Val`] with [`Tape::from_val`], so both roads end in the same tape.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::scan::{number, plain_run_end, unescape};
use super::value::Val;
use super::view::{Json, Kind};
use super::{LineError, Outcome, Reader};

/// A profile whose case lines are read into a tape ([`score_line`] drives it).
pub(crate) trait TapeProfile {
    /// A case, read from a line's tape.
    type Case<'t>;
    /// What a case the serde reader accepts but [`TapeProfile::case_of`] does not read is
    /// called (a bug, were it ever to happen).
    const SHAPE: &'static str;
    /// The case in the line's top-level value, read as the serde reader reads it, or `None`
    /// where that reader would fail.
    fn case_of(root: V<'_>) -> Option<Self::Case<'_>>;
    /// The serde reader of the line: its shape check, and its error for a line it rejects.
    fn check(line: &str) -> Result<(), serde_json::Error>;
    /// Score a case into `out` (one output line, no newline); `raw` gives the raw text of the
    /// line's fields, `scratch` is a buffer kept between lines.
    fn score<'a>(
        case: Self::Case<'_>,
        raw: &Raw<'a, '_>,
        out: &mut String,
        scratch: &mut String,
    ) -> Result<Outcome, LineError<'a>>;
}

/// Score one line of profile `P`: the tape reader first; serde_json for what it leaves aside
/// (the exact error of a line it rejects, else the line's value, as a tape), so every line is
/// scored by the same code. [`Reader::Serde`] skips the tape reader (the reference).
pub(crate) fn score_line<'a, P: TapeProfile>(
    line: &'a str,
    out: &mut String,
    reader: Reader,
) -> Result<Outcome, LineError<'a>> {
    thread_local! {
        // Tape buffers and a scratch buffer, per thread.
        static BUFS: std::cell::RefCell<(Buffers, String)> =
            std::cell::RefCell::new((Buffers::default(), String::new()));
    }
    BUFS.with_borrow_mut(|(bufs, scratch)| {
        if reader == Reader::Tape {
            if let Some(tape) = Tape::parse(line, bufs) {
                let raw = Raw { tape: &tape, line };
                let result = P::case_of(tape.root()).map(|case| P::score(case, &raw, out, scratch));
                tape.recycle(bufs);
                if let Some(result) = result {
                    return result;
                }
            }
        }
        P::check(line)?;
        let val: Val<'_> = serde_json::from_str(line)?;
        let tape = Tape::from_val(&val, bufs);
        let raw = Raw { tape: &tape, line };
        let result = match P::case_of(tape.root()) {
            Some(case) => P::score(case, &raw, out, scratch),
            None => Err(LineError::Malformed(P::SHAPE.to_owned())),
        };
        tape.recycle(bufs);
        result
    })
}

/// The raw JSON text of a line's top-level fields (ids and inputs are printed back as written).
pub(crate) struct Raw<'a, 't> {
    tape: &'t Tape<'t>,
    line: &'a str,
}

impl<'a> Raw<'a, '_> {
    /// The raw text of field `key` of the line (the last one, as a JSON parser keeps it).
    pub(crate) fn get(&self, key: &str) -> Option<&'a str> {
        if self.tape.root().raw().is_some() {
            let span = self.tape.root().get(key)?.raw_span()?;
            return self.line.get(span);
        }
        // A tape built from a `Val` has no text: ask serde_json for the fields' raw values.
        let fields: BTreeMap<Cow<'a, str>, &'a RawValue> = serde_json::from_str(self.line).ok()?;
        fields.get(key).map(|r| r.get())
    }
}

/// Deeper values go to serde_json (whose recursion limit is 128).
const MAX_DEPTH: usize = 64;
/// Objects with more keys go to serde_json (duplicate keys are looked for linearly).
const MAX_KEYS: u32 = 24;
/// A `raw_start` for nodes that have no text in the line (built from a [`Val`]).
const NO_RAW: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Null,
    False,
    True,
    Int,
    UInt,
    Float,
    /// A string whose text is in the line.
    Str,
    /// A string whose text is in the tape's decoded text.
    OwnedStr,
    Arr,
    Obj,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    tag: Tag,
    /// Strings: start of the text. Arrays and objects: the number of items or members.
    a: u32,
    /// Strings: end of the text. Arrays and objects: the index of the first node after them.
    b: u32,
    /// The value's text in the line, `raw_start == NO_RAW` if it has none.
    raw_start: u32,
    raw_end: u32,
    /// Numbers: `i64`, `u64` or `f64` bits.
    num: u64,
}

impl Node {
    fn new(tag: Tag) -> Node {
        Node {
            tag,
            a: 0,
            b: 0,
            raw_start: NO_RAW,
            raw_end: 0,
            num: 0,
        }
    }
}

/// A container being read: its node, its items or members so far, and (objects) the hash bits
/// of its keys.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    at: usize,
    n: u32,
    seen: u64,
    obj: bool,
}

/// Skip JSON whitespace from `i`.
#[inline]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        // Most calls find a token at once: one comparison decides that.
        if c > b' ' || !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            break;
        }
        i += 1;
    }
    i
}

/// Node and text buffers kept between lines.
#[derive(Default)]
pub(crate) struct Buffers {
    nodes: Vec<Node>,
    text: String,
}

/// A parsed line: node 0 is the top-level value.
pub(crate) struct Tape<'a> {
    src: &'a str,
    nodes: Vec<Node>,
    text: String,
}

impl<'a> Tape<'a> {
    fn with_buffers(src: &'a str, bufs: &mut Buffers) -> Tape<'a> {
        let mut nodes = std::mem::take(&mut bufs.nodes);
        let mut text = std::mem::take(&mut bufs.text);
        nodes.clear();
        text.clear();
        Tape { src, nodes, text }
    }

    /// Read `line` (one JSON value, with whitespace around it), or `None` (see the module docs);
    /// the buffers are returned to `bufs` either way when the tape is [`Tape::recycle`]d or on
    /// failure.
    pub(crate) fn parse(line: &'a str, bufs: &mut Buffers) -> Option<Tape<'a>> {
        let mut tape = Tape::with_buffers(line, bufs);
        let ok = line.len() < NO_RAW as usize && tape.read().is_some();
        if ok {
            Some(tape)
        } else {
            tape.recycle(bufs);
            None
        }
    }

    /// A tape of a value serde_json parsed (no raw text).
    pub(crate) fn from_val(v: &Val<'_>, bufs: &mut Buffers) -> Tape<'a> {
        let mut tape = Tape::with_buffers("", bufs);
        tape.push_val(v);
        tape
    }

    /// Give the buffers back for the next line.
    pub(crate) fn recycle(self, bufs: &mut Buffers) {
        bufs.nodes = self.nodes;
        bufs.text = self.text;
    }

    /// The top-level value.
    pub(crate) fn root(&self) -> V<'_> {
        V { t: self, i: 0 }
    }

    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// Read the whole line: one loop over the values, with the open containers on a stack.
    fn read(&mut self) -> Option<()> {
        let src = self.src;
        let b = src.as_bytes();
        let mut stack = [Open::default(); MAX_DEPTH];
        let mut depth = 0usize;
        let mut i = skip_ws(b, 0);
        'value: loop {
            // `i` is at the first byte of a value.
            let start = i;
            match *b.get(i)? {
                b'"' => i = self.string_at(i)?,
                c @ (b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    let obj = c == b'{';
                    let at = self.push(Node {
                        raw_start: start as u32,
                        ..Node::new(if obj { Tag::Obj } else { Tag::Arr })
                    });
                    i = skip_ws(b, i + 1);
                    if b.get(i) == Some(if obj { &b'}' } else { &b']' }) {
                        i += 1;
                        self.close(at, 0, i);
                    } else {
                        let open = &mut stack[depth];
                        *open = Open {
                            at,
                            n: 0,
                            seen: 0,
                            obj,
                        };
                        depth += 1;
                        if obj {
                            i = self.key(i, open)?;
                        }
                        continue 'value;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let (v, end) = number(src, i)?;
                    i = end;
                    self.push_scalar(&v, start, i);
                }
                c => {
                    let (word, v): (&[u8], Val<'_>) = match c {
                        b't' => (b"true", Val::Bool(true)),
                        b'f' => (b"false", Val::Bool(false)),
                        b'n' => (b"null", Val::Null),
                        _ => return None,
                    };
                    if b.get(i..i + word.len())? != word {
                        return None;
                    }
                    i += word.len();
                    self.push_scalar(&v, start, i);
                }
            }
            // After a value: the next item of the open container, or its end.
            loop {
                let Some(open) = depth.checked_sub(1).and_then(|d| stack.get_mut(d)) else {
                    return (skip_ws(b, i) == b.len()).then_some(());
                };
                i = skip_ws(b, i);
                open.n += 1;
                match *b.get(i)? {
                    b',' => {
                        i = skip_ws(b, i + 1);
                        if open.obj {
                            i = self.key(i, open)?;
                        }
                        continue 'value;
                    }
                    b'}' if open.obj => {}
                    b']' if !open.obj => {}
                    _ => return None,
                }
                i += 1;
                let (at, n) = (open.at, open.n);
                self.close(at, n, i);
                depth -= 1;
            }
        }
    }

    /// A member's key at `i` (a string), checked against the object's earlier keys, then the
    /// colon: the index of the member's value.
    fn key(&mut self, i: usize, open: &mut Open) -> Option<usize> {
        let b = self.src.as_bytes();
        if b.get(i) != Some(&b'"') || open.n == MAX_KEYS {
            return None;
        }
        let i = self.string_at(i)?;
        let key = self.nodes.len() - 1;
        // One bit per key of this object, by a cheap hash: two keys are compared only when
        // their bits collide.
        let bit = 1u64 << (self.key_hash(key) & 63);
        if open.seen & bit != 0 && self.has_key(open.at, open.n, key) {
            return None;
        }
        open.seen |= bit;
        let i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        Some(skip_ws(b, i + 1))
    }

    /// A string node for the string whose opening quote is at `i`; the index after it.
    #[inline]
    fn string_at(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let start = i + 1;
        let j = plain_run_end(b, start);
        let (tag, a, end, after) = match *b.get(j)? {
            b'"' => (Tag::Str, start, j, j + 1),
            b'\\' => {
                let from = self.text.len();
                self.text.push_str(self.src.get(start..j)?);
                let after = unescape(self.src, j, Some(&mut self.text))?;
                if self.text.len() >= NO_RAW as usize {
                    return None;
                }
                (Tag::OwnedStr, from, self.text.len(), after)
            }
            _ => return None,
        };
        self.push(Node {
            tag,
            a: a as u32,
            b: end as u32,
            raw_start: i as u32,
            raw_end: after as u32,
            num: 0,
        });
        Some(after)
    }

    /// The bytes of the string node at `i` (empty for other nodes).
    #[inline]
    fn bytes_at(&self, i: usize) -> &[u8] {
        let Some(n) = self.nodes.get(i) else {
            return &[];
        };
        let range = n.a as usize..n.b as usize;
        let text = match n.tag {
            Tag::Str => self.src.as_bytes(),
            Tag::OwnedStr => self.text.as_bytes(),
            _ => return &[],
        };
        text.get(range).unwrap_or(&[])
    }

    /// A hash of the key at node `key` for duplicate detection: its length and two bytes.
    #[inline]
    fn key_hash(&self, key: usize) -> u32 {
        match self.bytes_at(key) {
            [] => 0,
            k @ [first, .., last] => {
                k.len() as u32 ^ (u32::from(*first) << 1) ^ (u32::from(*last) * 3)
            }
            [one] => 1 ^ (u32::from(*one) << 1),
        }
    }

    /// Whether the first `n` members of the object at `obj` have the key of node `key`.
    fn has_key(&self, obj: usize, n: u32, key: usize) -> bool {
        let name = self.bytes_at(key);
        let mut k = obj + 1;
        for _ in 0..n {
            if self.bytes_at(k) == name {
                return true;
            }
            k = self.end(k + 1);
        }
        false
    }

    fn push_scalar(&mut self, v: &Val<'_>, start: usize, end: usize) {
        let mut node = match *v {
            Val::Null => Node::new(Tag::Null),
            Val::Bool(false) => Node::new(Tag::False),
            Val::Bool(true) => Node::new(Tag::True),
            Val::Int(i) => Node {
                num: i as u64,
                ..Node::new(Tag::Int)
            },
            Val::UInt(u) => Node {
                num: u,
                ..Node::new(Tag::UInt)
            },
            Val::Float(f) => Node {
                num: f.to_bits(),
                ..Node::new(Tag::Float)
            },
            // Strings and containers are pushed by `value` and `push_val`.
            Val::Str(_) | Val::Arr(_) | Val::Obj(_) => Node::new(Tag::Null),
        };
        if start != usize::MAX {
            node.raw_start = start as u32;
            node.raw_end = end as u32;
        }
        self.push(node);
    }

    fn push_val(&mut self, v: &Val<'_>) {
        match v {
            Val::Str(s) => {
                let a = self.text.len();
                self.text.push_str(s);
                self.push(Node {
                    a: a as u32,
                    b: self.text.len() as u32,
                    ..Node::new(Tag::OwnedStr)
                });
            }
            Val::Arr(items) => {
                let at = self.push(Node::new(Tag::Arr));
                for x in items {
                    self.push_val(x);
                }
                self.close(at, items.len() as u32, 0);
            }
            Val::Obj(entries) => {
                let at = self.push(Node::new(Tag::Obj));
                for (k, x) in entries {
                    self.push_val(&Val::Str(std::borrow::Cow::Borrowed(k.as_ref())));
                    self.push_val(x);
                }
                self.close(at, entries.len() as u32, 0);
            }
            scalar => self.push_scalar(scalar, usize::MAX, 0),
        }
    }

    /// Finish the container node at `at`: `n` items or members, its text ending at `raw_end`
    /// (0 for a tape built from a `Val`).
    fn close(&mut self, at: usize, n: u32, raw_end: usize) {
        let end = self.nodes.len() as u32;
        if let Some(node) = self.nodes.get_mut(at) {
            node.a = n;
            node.b = end;
            node.raw_end = raw_end as u32;
        }
    }

    /// The index of the first node after the value at `i`.
    fn end(&self, i: usize) -> usize {
        match self.nodes.get(i) {
            Some(n) if matches!(n.tag, Tag::Arr | Tag::Obj) => n.b as usize,
            _ => i + 1,
        }
    }

    /// The text of the string node at `i` (empty for other nodes).
    fn str_at(&self, i: usize) -> &str {
        let Some(n) = self.nodes.get(i) else {
            return "";
        };
        let range = n.a as usize..n.b as usize;
        match n.tag {
            Tag::Str => self.src.get(range).unwrap_or(""),
            Tag::OwnedStr => self.text.get(range).unwrap_or(""),
            _ => "",
        }
    }
}

/// A value in a [`Tape`].
#[derive(Clone, Copy)]
pub(crate) struct V<'t> {
    t: &'t Tape<'t>,
    i: u32,
}

impl std::fmt::Debug for V<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.raw() {
            Some(r) => f.write_str(r),
            None => write!(f, "{:?}", self.kind()),
        }
    }
}

impl<'t> V<'t> {
    fn node(self) -> Node {
        self.t
            .nodes
            .get(self.i as usize)
            .copied()
            .unwrap_or(Node::new(Tag::Null))
    }

    /// The value's text in the line (`None` for a tape built from a [`Val`]).
    pub(crate) fn raw(self) -> Option<&'t str> {
        let n = self.node();
        if n.raw_start == NO_RAW {
            return None;
        }
        self.t.src.get(n.raw_start as usize..n.raw_end as usize)
    }

    /// Where [`V::raw`] is in the line.
    pub(crate) fn raw_span(self) -> Option<std::ops::Range<usize>> {
        let n = self.node();
        (n.raw_start != NO_RAW).then_some(n.raw_start as usize..n.raw_end as usize)
    }

    /// `null`?
    pub(crate) fn is_null(self) -> bool {
        self.node().tag == Tag::Null
    }

    /// `{...}`?
    pub(crate) fn is_obj(self) -> bool {
        self.node().tag == Tag::Obj
    }

    /// Whether the two values have the same text in the line (so they are equal under every
    /// equality the profiles use).
    pub(crate) fn same_text(self, other: V<'_>) -> bool {
        matches!((self.raw(), other.raw()), (Some(a), Some(b)) if a == b)
    }
}

impl<'t> Json<'t> for V<'t> {
    type Items = Items<'t>;
    type Entries = Entries<'t>;

    fn kind(self) -> Kind<'t> {
        let n = self.node();
        match n.tag {
            Tag::Null => Kind::Null,
            Tag::False => Kind::Bool(false),
            Tag::True => Kind::Bool(true),
            Tag::Int => Kind::Int(n.num as i64),
            Tag::UInt => Kind::UInt(n.num),
            Tag::Float => Kind::Float(f64::from_bits(n.num)),
            Tag::Str | Tag::OwnedStr => Kind::Str(self.t.str_at(self.i as usize)),
            Tag::Arr => Kind::Arr,
            Tag::Obj => Kind::Obj,
        }
    }

    fn items(self) -> Items<'t> {
        let n = self.node();
        Items {
            t: self.t,
            next: self.i as usize + 1,
            left: if n.tag == Tag::Arr { n.a as usize } else { 0 },
        }
    }

    fn entries(self) -> Entries<'t> {
        let n = self.node();
        Entries {
            t: self.t,
            next: self.i as usize + 1,
            left: if n.tag == Tag::Obj { n.a as usize } else { 0 },
        }
    }
}

/// The items of an array in a tape.
pub(crate) struct Items<'t> {
    t: &'t Tape<'t>,
    next: usize,
    left: usize,
}

impl<'t> Iterator for Items<'t> {
    type Item = V<'t>;

    fn next(&mut self) -> Option<V<'t>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let v = V {
            t: self.t,
            i: self.next as u32,
        };
        self.next = self.t.end(self.next);
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// The members of an object in a tape.
#[derive(Clone)]
pub(crate) struct Entries<'t> {
    t: &'t Tape<'t>,
    next: usize,
    left: usize,
}

impl<'t> Iterator for Entries<'t> {
    type Item = (&'t str, V<'t>);

    fn next(&mut self) -> Option<(&'t str, V<'t>)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.t.str_at(self.next);
        let v = V {
            t: self.t,
            i: self.next as u32 + 1,
        };
        self.next = self.t.end(self.next + 1);
        Some((key, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Entries<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tape as a `Val`, to compare with what serde_json builds.
    fn to_val<'t>(v: V<'t>) -> Val<'t> {
        match v.kind() {
            Kind::Null => Val::Null,
            Kind::Bool(b) => Val::Bool(b),
            Kind::Int(i) => Val::Int(i),
            Kind::UInt(u) => Val::UInt(u),
            Kind::Float(f) => Val::Float(f),
            Kind::Str(s) => Val::Str(s.into()),
            Kind::Arr => Val::Arr(v.items().map(to_val).collect()),
            Kind::Obj => Val::Obj(v.entries().map(|(k, x)| (k.into(), to_val(x))).collect()),
        }
    }

    #[test]
    fn tapes_hold_what_serde_json_reads() {
        let mut bufs = Buffers::default();
        for line in [
            r#"{"a":[1,-2,3.25,-0.5,true,false,null,"x é"],"b":{},"c":[],"d":{"e":{"f":[[]]}}}"#,
            " [ 1 , { \"k\" : \"v\\n\\u00e9\" , \"\\u0061\" : 2 } ]\n",
            "18446744073709551615",
            "-0",
            "1e300",
            r#""""#,
            r#"{"k":"a","k2":{"k":"b"}}"#,
            r#""a\nb\"c\\d\/e\bf\fg\rh\ti\u00e9\u0041é""#,
            r#"["\u0000", "\uFFFF", "x\ty"]"#,
            "\"0123456789abcdefghijklmnopqrstuvwxyz\\u20ac0123456789\"",
            "[0.30000000000000004, 1e22, 1e23, 4.9e-324, -0.0, 1234567890123456789]",
            "\t{ \"a\" :\r\n[ ] }\n",
        ] {
            let want: Val<'_> = serde_json::from_str(line).unwrap();
            let tape = Tape::parse(line, &mut bufs).expect(line);
            assert_eq!(to_val(tape.root()), want, "{line}");
            let again = Tape::from_val(&want, &mut Buffers::default());
            assert_eq!(to_val(again.root()), want, "{line}");
            tape.recycle(&mut bufs);
        }
    }

    #[test]
    fn raw_text_is_kept_for_each_value() {
        let mut bufs = Buffers::default();
        let tape = Tape::parse(r#" {"a": [1, "x"], "b": {"c": null}} "#, &mut bufs).unwrap();
        let root = tape.root();
        assert_eq!(root.raw(), Some(r#"{"a": [1, "x"], "b": {"c": null}}"#));
        let a = root.get("a").unwrap();
        assert_eq!(a.raw(), Some(r#"[1, "x"]"#));
        assert_eq!(
            a.items().map(|x| x.raw().unwrap()).collect::<Vec<_>>(),
            ["1", "\"x\""]
        );
        assert_eq!(root.get("b").unwrap().raw(), Some(r#"{"c": null}"#));
        assert!(root.get("b").unwrap().get("c").unwrap().is_null());
        assert!(root.get("z").is_none());
    }

    #[test]
    fn leaves_the_rest_to_serde() {
        let mut bufs = Buffers::default();
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        let mut wide = String::from("{");
        for i in 0..25 {
            wide.push_str(&format!("\"k{i}\":{i},"));
        }
        wide.push_str("\"z\":0}");
        for line in [
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"x":{"a":[],"b":1,"a":{}}}"#,
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            "\"\u{1}\"",
            r#""\x""#,
            r#""\u12""#,
            "\"abc",
            "1e400",
            "01",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "tru",
            "[1] 2",
            "",
            &deep,
            &wide,
        ] {
            assert!(Tape::parse(line, &mut bufs).is_none(), "{line}");
        }
        // The buffers come back after a failure and serve the next line.
        assert!(Tape::parse("[1]", &mut bufs).is_some());
    }
}
