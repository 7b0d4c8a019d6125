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

use super::scan::{next_stop, number, stop_mask, unescape, Num};
use super::value::Val;
use super::view::{Json, Kind};

/// The key [`Tape::has_proto_key`] looks for.
const PROTO: &[u8] = b"__proto__";

/// Deeper values go to serde_json (whose recursion limit is 128): no value of a parsed tape is
/// nested deeper.
pub(crate) const MAX_DEPTH: usize = 64;
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
    /// An integer outside the 64-bit ranges read for a Python peer: its digits are in the
    /// tape's decoded text (`a..b`), its value as a double nowhere (computed when asked).
    BigInt,
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
    /// Numbers: the low half of their `i64`, `u64` or `f64` bits.
    a: u32,
    /// Strings: end of the text. Arrays and objects: the index of the first node after them.
    /// Numbers: the high half of their bits.
    b: u32,
    /// The value's text in the line, `raw_start == NO_RAW` if it has none.
    raw_start: u32,
    raw_end: u32,
}

impl Node {
    fn new(tag: Tag) -> Node {
        Node {
            tag,
            a: 0,
            b: 0,
            raw_start: NO_RAW,
            raw_end: 0,
        }
    }

    /// A number node: `tag` and the number's 64 bits.
    fn number(tag: Tag, bits: u64) -> Node {
        Node {
            a: bits as u32,
            b: (bits >> 32) as u32,
            ..Node::new(tag)
        }
    }

    /// A number node's 64 bits.
    fn bits(self) -> u64 {
        u64::from(self.a) | (u64::from(self.b) << 32)
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
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        // Most calls find a token at once: one comparison decides that.
        if c > b' ' || !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            break;
        }
        i += 1;
    }
    i
}

/// The first byte at or after `i` that is not JSON whitespace, with its index (`None` at the
/// end): for the usual case, no whitespace, one load and one comparison, and the caller's
/// dispatch on the byte uses it as it is (no second load and bounds check, as after
/// [`skip_ws`]).
#[inline(always)]
pub(crate) fn token(b: &[u8], i: usize) -> (Option<u8>, usize) {
    match b.get(i) {
        Some(&c) if c > b' ' => (Some(c), i),
        _ => {
            let i = skip_ws(b, i);
            (b.get(i).copied(), i)
        }
    }
}

/// A hash of a key for duplicate detection: its length and two bytes.
#[inline(always)]
fn key_hash(k: &[u8]) -> u32 {
    match k {
        [] => 0,
        [first, .., last] => k.len() as u32 ^ (u32::from(*first) << 1) ^ (u32::from(*last) * 3),
        [one] => 1 ^ (u32::from(*one) << 1),
    }
}

/// Node and text buffers kept between lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffers {
    nodes: Vec<Node>,
    text: String,
    stack: Vec<Open>,
    stops: Vec<u64>,
}

/// A parsed line: node 0 is the top-level value. Its nodes and decoded text are in the
/// [`Buffers`] it borrows.
pub(crate) struct Tape<'a> {
    src: &'a str,
    b: &'a Buffers,
    /// Whether an object in the tape has a `__proto__` key (Evalite's flexible mode treats
    /// such values apart).
    proto_key: bool,
}

impl<'a> Tape<'a> {
    /// Read `line` (one JSON value, with whitespace around it) into `bufs`, or `None` (see the
    /// module docs).
    pub(crate) fn parse(line: &'a str, bufs: &'a mut Buffers) -> Option<Tape<'a>> {
        let mut tape = Builder::with_buffers(line, bufs);
        let ok = line.len() < NO_RAW as usize && tape.read().is_some();
        ok.then(|| tape.finish())
    }

    /// A tape of a value serde_json parsed (no raw text).
    pub(crate) fn from_val(v: &Val<'_>, bufs: &'a mut Buffers) -> Tape<'a> {
        let mut tape = Builder::with_buffers("", bufs);
        tape.push_val(v);
        tape.finish()
    }

    /// The value at node `i`.
    pub(crate) fn at(&self, i: u32) -> V<'_> {
        V { t: self, i }
    }

    /// Whether an object in the tape has a `__proto__` key.
    pub(crate) fn has_proto_key(&self) -> bool {
        self.proto_key
    }

    /// The top-level value.
    pub(crate) fn root(&self) -> V<'_> {
        V { t: self, i: 0 }
    }

    /// The bytes of the string node at `i` (empty for other nodes).
    #[inline]
    fn bytes_at(&self, i: usize) -> &'a [u8] {
        let Some(n) = self.b.nodes.get(i) else {
            return &[];
        };
        let range = n.a as usize..n.b as usize;
        let text = match n.tag {
            Tag::Str => self.src.as_bytes(),
            Tag::OwnedStr => self.b.text.as_bytes(),
            _ => return &[],
        };
        text.get(range).unwrap_or(&[])
    }

    /// Whether the first `n` members of the object at `obj` have the key of node `key`.
    fn has_key(&self, obj: usize, n: u32, key: usize) -> bool {
        let name = self.bytes_at(key);
        let mut k = obj + 1;
        for _ in 0..n {
            if super::scan::same_bytes(self.bytes_at(k), name) {
                return true;
            }
            k = self.end(k + 1);
        }
        false
    }

    /// The index of the first node after the value at `i`.
    fn end(&self, i: usize) -> usize {
        match self.b.nodes.get(i) {
            Some(n) if matches!(n.tag, Tag::Arr | Tag::Obj) => n.b as usize,
            _ => i + 1,
        }
    }

    /// Whether the raw text of the value at node `i` is exactly what `JSON.stringify` prints
    /// for it: compact (no whitespace), strings without escapes (so nothing to escape), integers
    /// of at most 15 characters (printed back digit for digit), no floats, and no integer-like
    /// keys (which `JSON.stringify` moves to the front). One pass over the value's nodes: the
    /// tokens' lengths plus the brackets, commas and colons must add up to the text's length
    /// (any whitespace would make it longer). Strings that look like an index are refused
    /// whether they are keys or not (the caller then prints the value).
    fn js_canonical(&self, i: usize) -> bool {
        let Some(nodes) = self.b.nodes.get(i..self.end(i)) else {
            return false;
        };
        let b = self.src.as_bytes();
        let mut want = 0usize;
        for n in nodes {
            if n.raw_start == NO_RAW {
                return false;
            }
            let len = n.raw_end.wrapping_sub(n.raw_start) as usize;
            want += match n.tag {
                Tag::Null | Tag::True | Tag::False => len,
                Tag::Str => {
                    let text = b.get(n.a as usize..n.b as usize).unwrap_or_default();
                    if text.first().is_some_and(u8::is_ascii_digit)
                        && std::str::from_utf8(text)
                            .ok()
                            .and_then(super::text::js_index_key)
                            .is_some()
                    {
                        return false;
                    }
                    len
                }
                Tag::Int if len <= 15 => len,
                // `0.5` is printed as written; `1.0` and `1e2` are not.
                Tag::Float
                    if b.get(n.raw_start as usize..n.raw_end as usize)
                        .is_some_and(|raw| {
                            super::text::is_js_number_text(raw, f64::from_bits(n.bits()))
                        }) =>
                {
                    len
                }
                Tag::Int | Tag::UInt | Tag::Float | Tag::BigInt | Tag::OwnedStr => return false,
                Tag::Arr => 2 + (n.a as usize).saturating_sub(1),
                // Brackets, commas and one colon per member.
                Tag::Obj => 2 + (n.a as usize).saturating_sub(1) + n.a as usize,
            };
        }
        nodes
            .first()
            .is_some_and(|n| n.raw_end.wrapping_sub(n.raw_start) as usize == want)
    }

    /// The text of the string node at `i` (empty for other nodes).
    fn str_at(&self, i: usize) -> &str {
        let Some(n) = self.b.nodes.get(i) else {
            return "";
        };
        let range = n.a as usize..n.b as usize;
        match n.tag {
            Tag::Str => self.src.get(range).unwrap_or(""),
            Tag::OwnedStr => self.b.text.get(range).unwrap_or(""),
            _ => "",
        }
    }
}

/// Builds a tape into its [`Buffers`]: a line read ([`Tape::parse`]) or a value pushed node by
/// node.
struct Builder<'a> {
    src: &'a str,
    b: &'a mut Buffers,
    proto_key: bool,
}

impl<'a> Builder<'a> {
    fn with_buffers(src: &'a str, b: &'a mut Buffers) -> Builder<'a> {
        b.nodes.clear();
        b.text.clear();
        Builder {
            src,
            b,
            proto_key: false,
        }
    }

    /// The tape built.
    fn finish(self) -> Tape<'a> {
        Tape {
            src: self.src,
            b: self.b,
            proto_key: self.proto_key,
        }
    }

    /// The tape so far, to look at its nodes.
    fn view(&self) -> Tape<'_> {
        Tape {
            src: self.src,
            b: self.b,
            proto_key: self.proto_key,
        }
    }

    fn push(&mut self, n: Node) -> usize {
        self.b.nodes.push(n);
        self.b.nodes.len() - 1
    }

    /// Read the whole line: one loop over the values, with the open containers on a stack.
    fn read(&mut self) -> Option<()> {
        let mut stack = std::mem::take(&mut self.b.stack);
        stack.resize(MAX_DEPTH, Open::default());
        stop_mask(self.src.as_bytes(), &mut self.b.stops);
        let result = self.read_with(&mut stack);
        self.b.stack = stack;
        result
    }

    /// [`Tape::read`] with a stack of [`MAX_DEPTH`] entries (any contents).
    #[inline(always)]
    fn read_with(&mut self, stack: &mut [Open]) -> Option<()> {
        let src = self.src;
        let b = src.as_bytes();
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
                        let open = stack.get_mut(depth)?;
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
                    let (tag, num) = number_node(v);
                    i = end;
                    self.push(Node {
                        raw_start: start as u32,
                        raw_end: end as u32,
                        ..Node::number(tag, num)
                    });
                }
                _ => {
                    let (tag, len) = literal_at(b, i)?;
                    i += len;
                    self.push(Node {
                        tag,
                        a: 0,
                        b: 0,
                        raw_start: start as u32,
                        raw_end: i as u32,
                    });
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
    #[inline(always)]
    fn key(&mut self, i: usize, open: &mut Open) -> Option<usize> {
        if self.src.as_bytes().get(i) != Some(&b'"') {
            return None;
        }
        self.key_at(i, open).map(|(_, i)| i)
    }

    /// [`Tape::key`] for a key whose opening quote is at `i`: the value's first byte (see
    /// [`token`]) and index.
    #[inline(always)]
    fn key_at(&mut self, i: usize, open: &mut Open) -> Option<(Option<u8>, usize)> {
        let b = self.src.as_bytes();
        if open.n == MAX_KEYS {
            return None;
        }
        // The key's node, and a cheap hash of it from the bytes just scanned.
        let start = i + 1;
        let j = next_stop(&self.b.stops, start, b.len());
        let (i, hash) = if b.get(j) == Some(&b'"') {
            self.push_plain_string(i, j);
            let k = b.get(start..j).unwrap_or_default();
            self.proto_key |= k == PROTO;
            (j + 1, key_hash(k))
        } else {
            let after = self.escaped_string_at(i, j)?;
            let k = self.view().bytes_at(self.b.nodes.len() - 1);
            let (proto, hash) = (k == PROTO, key_hash(k));
            self.proto_key |= proto;
            (after, hash)
        };
        // One bit per key of this object: two keys are compared only when their bits collide.
        let key = self.b.nodes.len() - 1;
        let bit = 1u64 << (hash & 63);
        if open.seen & bit != 0 && self.view().has_key(open.at, open.n, key) {
            return None;
        }
        open.seen |= bit;
        // Compact JSON has the colon right after the key, then the value.
        let i = if b.get(i) == Some(&b':') {
            i + 1
        } else {
            let i = skip_ws(b, i);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i + 1
        };
        Some(token(b, i))
    }

    /// The node of a string without escapes: opening quote at `i`, closing quote at `j`.
    #[inline(always)]
    fn push_plain_string(&mut self, i: usize, j: usize) {
        self.push(Node {
            tag: Tag::Str,
            a: (i + 1) as u32,
            b: j as u32,
            raw_start: i as u32,
            raw_end: (j + 1) as u32,
        });
    }

    /// A string node for the string whose opening quote is at `i`; the index after it.
    #[inline(always)]
    fn string_at(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let j = next_stop(&self.b.stops, i + 1, b.len());
        if b.get(j) == Some(&b'"') {
            self.push_plain_string(i, j);
            return Some(j + 1);
        }
        self.escaped_string_at(i, j)
    }

    /// [`Tape::string_at`] for a string with an escape (or a stop byte) at `j`.
    #[inline(never)]
    fn escaped_string_at(&mut self, i: usize, j: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        if b.get(j) != Some(&b'\\') {
            return None;
        }
        let start = i + 1;
        let from = self.b.text.len();
        self.b.text.push_str(self.src.get(start..j)?);
        let after = unescape(self.src, j, Some(&mut self.b.text))?;
        if self.b.text.len() >= NO_RAW as usize {
            return None;
        }
        self.push(Node {
            tag: Tag::OwnedStr,
            a: from as u32,
            b: self.b.text.len() as u32,
            raw_start: i as u32,
            raw_end: after as u32,
        });
        Some(after)
    }

    fn push_scalar(&mut self, v: &Val<'_>, start: usize, end: usize) {
        let mut node = match *v {
            Val::Null => Node::new(Tag::Null),
            Val::Bool(false) => Node::new(Tag::False),
            Val::Bool(true) => Node::new(Tag::True),
            Val::Int(i) => Node::number(Tag::Int, i as u64),
            Val::UInt(u) => Node::number(Tag::UInt, u),
            Val::Float(f) => Node::number(Tag::Float, f.to_bits()),
            // Strings, big integers and containers are pushed by `push_val`.
            Val::Str(_) | Val::BigInt(_) | Val::Arr(_) | Val::Obj(_) => Node::new(Tag::Null),
        };
        if start != usize::MAX {
            node.raw_start = start as u32;
            node.raw_end = end as u32;
        }
        self.push(node);
    }

    fn push_val(&mut self, v: &Val<'_>) {
        match v {
            Val::BigInt(d) => {
                let a = self.b.text.len();
                self.b.text.push_str(d);
                self.push(Node {
                    a: a as u32,
                    b: self.b.text.len() as u32,
                    ..Node::new(Tag::BigInt)
                });
            }
            Val::Str(s) => {
                let a = self.b.text.len();
                self.b.text.push_str(s);
                self.push(Node {
                    a: a as u32,
                    b: self.b.text.len() as u32,
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
                    self.proto_key |= k.as_bytes() == PROTO;
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
        let end = self.b.nodes.len() as u32;
        if let Some(node) = self.b.nodes.get_mut(at) {
            node.a = n;
            node.b = end;
            node.raw_end = raw_end as u32;
        }
    }
}

/// A tape that owns its buffers, built value by value in document order ([`Push`]) from a
/// tree held elsewhere (the objects of another language). It has no line: every string is in
/// its text, and no node has raw text.
#[derive(Debug, Clone)]
pub(crate) struct Owned {
    bufs: Buffers,
    proto_key: bool,
}

impl Owned {
    /// The tape.
    pub(crate) fn tape(&self) -> Tape<'_> {
        Tape {
            src: "",
            b: &self.bufs,
            proto_key: self.proto_key,
        }
    }
}

/// Builds an [`Owned`] tape: values pushed in document order, containers opened and closed
/// around their items, each member's key pushed before its value. The caller gives the keys
/// of an object once each.
///
/// Bound: node indices and text offsets are `u32`; a tree past them (4 GiB of text, or as
/// many nodes) is refused by [`Push::finish`], as is one nesting more than [`PUSH_DEPTH`]
/// levels (what reads the tape recurses into it) and a sequence of calls that is not one
/// value.
/// Arrays and objects a [`Push`] holds open at once, at most.
pub(crate) const PUSH_DEPTH: usize = 256;

#[derive(Default)]
pub(crate) struct Push {
    bufs: Buffers,
    /// The open containers: node index, items or members so far, whether an object.
    open: Vec<(usize, u32, bool)>,
    /// Whether a key was pushed and its value not yet.
    keyed: bool,
    proto_key: bool,
    /// Why the calls do not make a tape, once they do not.
    broken: Option<&'static str>,
}

impl Push {
    /// A builder with room for `nodes` values and keys and `text` bytes of their text.
    pub(crate) fn with_capacity(nodes: usize, text: usize) -> Push {
        let mut push = Push::default();
        push.bufs.nodes.reserve(nodes);
        push.bufs.text.reserve(text);
        push
    }

    /// Room for one more node and `text` more bytes of text, and the value counted in its
    /// container (whose key, in an object, came first).
    fn room(&mut self, text: usize) -> bool {
        if self.broken.is_some() {
            return false;
        }
        let limit = NO_RAW as usize - 1;
        if self.bufs.nodes.len() >= limit || self.bufs.text.len().saturating_add(text) >= limit {
            self.broken = Some("it is larger than 4 GiB of text or nodes");
            return false;
        }
        match self.open.last_mut() {
            None if !self.bufs.nodes.is_empty() => {
                self.broken = Some("a value follows the top-level value");
                return false;
            }
            Some((_, n, false)) => *n += 1,
            Some((_, _, true)) if !self.keyed => {
                self.broken = Some("a member's value has no key");
                return false;
            }
            _ => {}
        }
        self.keyed = false;
        true
    }

    fn node(&mut self, node: Node) {
        if self.room(0) {
            self.bufs.nodes.push(node);
        }
    }

    /// `null`.
    pub(crate) fn null(&mut self) {
        self.node(Node::new(Tag::Null));
    }

    /// `true` or `false`.
    pub(crate) fn bool(&mut self, b: bool) {
        self.node(Node::new(if b { Tag::True } else { Tag::False }));
    }

    /// An integer.
    pub(crate) fn int(&mut self, n: i64) {
        self.node(Node::number(Tag::Int, n as u64));
    }

    /// A positive integer above `i64::MAX`.
    pub(crate) fn uint(&mut self, n: u64) {
        match i64::try_from(n) {
            Ok(i) => self.int(i),
            Err(_) => self.node(Node::number(Tag::UInt, n)),
        }
    }

    /// A number with a fraction; one that is not finite is `null`, as serde_json holds it.
    pub(crate) fn float(&mut self, f: f64) {
        if f.is_finite() {
            self.node(Node::number(Tag::Float, f.to_bits()));
        } else {
            self.null();
        }
    }

    /// A string.
    pub(crate) fn str(&mut self, s: &str) {
        if self.room(s.len()) {
            self.push_text(s);
        }
    }

    fn push_text(&mut self, s: &str) {
        let a = self.bufs.text.len() as u32;
        self.bufs.text.push_str(s);
        self.bufs.nodes.push(Node {
            a,
            b: self.bufs.text.len() as u32,
            ..Node::new(Tag::OwnedStr)
        });
    }

    /// Open an array (`obj` false) or an object.
    pub(crate) fn open(&mut self, obj: bool) {
        if self.open.len() >= PUSH_DEPTH && self.broken.is_none() {
            self.broken = Some("it nests more than 256 levels deep");
        }
        if self.room(0) {
            let at = self.bufs.nodes.len();
            self.bufs
                .nodes
                .push(Node::new(if obj { Tag::Obj } else { Tag::Arr }));
            self.open.push((at, 0, obj));
        }
    }

    /// The key of the next member of the open object.
    pub(crate) fn key(&mut self, k: &str) {
        let limit = NO_RAW as usize - 1;
        match self.open.last_mut() {
            _ if self.broken.is_some() => {}
            Some((_, n, true)) if !self.keyed => {
                if self.bufs.nodes.len() >= limit
                    || self.bufs.text.len().saturating_add(k.len()) >= limit
                {
                    self.broken = Some("it is larger than 4 GiB of text or nodes");
                    return;
                }
                *n += 1;
                self.keyed = true;
                self.proto_key |= k.as_bytes() == PROTO;
                self.push_text(k);
            }
            _ => self.broken = Some("a key is given outside an object, or twice"),
        }
    }

    /// Close the innermost open array or object.
    pub(crate) fn close(&mut self) {
        if self.broken.is_some() {
            return;
        }
        match self.open.pop() {
            Some((at, n, _)) if !self.keyed => {
                let end = self.bufs.nodes.len() as u32;
                if let Some(node) = self.bufs.nodes.get_mut(at) {
                    node.a = n;
                    node.b = end;
                }
            }
            _ => self.broken = Some("a container is closed that is not open, or after a key"),
        }
    }

    /// The tape, or why the calls made none.
    pub(crate) fn finish(self) -> Result<Owned, &'static str> {
        if let Some(why) = self.broken {
            return Err(why);
        }
        if self.bufs.nodes.is_empty() || !self.open.is_empty() {
            return Err("the calls do not make one whole value");
        }
        Ok(Owned {
            bufs: self.bufs,
            proto_key: self.proto_key,
        })
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
            .b
            .nodes
            .get(self.i as usize)
            .copied()
            .unwrap_or(Node::new(Tag::Null))
    }

    /// The value's node in its tape ([`Tape::at`] gives the value back).
    pub(crate) fn index(self) -> u32 {
        self.i
    }

    /// The tape the value is in.
    pub(crate) fn tape(self) -> &'t Tape<'t> {
        self.t
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

    /// The value's text in the line if it is exactly what `JSON.stringify` prints for the
    /// value `JSON.parse` reads from it (see [`Tape::js_canonical`]), so it can be copied.
    pub(crate) fn js_canonical_raw(self) -> Option<&'t str> {
        let raw = self.raw()?;
        self.t.js_canonical(self.i as usize).then_some(raw)
    }

    /// The members of an object with their keys as bytes (empty for anything but an object):
    /// what the profiles match known keys on, without making each key a `&str`.
    pub(crate) fn members(self) -> Members<'t> {
        let n = self.node();
        Members {
            t: self.t,
            next: self.i as usize + 1,
            left: if n.tag == Tag::Obj { n.a as usize } else { 0 },
        }
    }

    /// The value of member `key` of an object (the first one; `None` for anything but an
    /// object), keys compared as bytes.
    #[inline]
    pub(crate) fn get_bytes(self, key: &[u8]) -> Option<V<'t>> {
        self.members()
            .find(|(k, _)| super::scan::same_bytes(k, key))
            .map(|(_, v)| v)
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
        // As bytes: no `&str` (and its boundary checks) made of either text.
        matches!((self.raw_bytes(), other.raw_bytes()), (Some(a), Some(b)) if super::scan::same_bytes(a, b))
    }

    /// Equality of two strings without escapes, by their bytes in the line (what `===` and
    /// deep equality give for them); `None` when either value is anything else.
    #[inline]
    pub(crate) fn plain_str_eq(self, other: V<'_>) -> Option<bool> {
        let (a, b) = (self.node(), other.node());
        if a.tag != Tag::Str || b.tag != Tag::Str {
            return None;
        }
        let x = self.t.src.as_bytes().get(a.a as usize..a.b as usize)?;
        let y = other.t.src.as_bytes().get(b.a as usize..b.b as usize)?;
        Some(super::scan::same_bytes(x, y))
    }

    /// [`V::raw`] as bytes.
    #[inline]
    fn raw_bytes(self) -> Option<&'t [u8]> {
        let n = self.node();
        if n.raw_start == NO_RAW {
            return None;
        }
        self.t
            .src
            .as_bytes()
            .get(n.raw_start as usize..n.raw_end as usize)
    }
}

impl<'t> Json<'t> for V<'t> {
    type Items = Items<'t>;
    type Entries = Entries<'t>;

    /// [`V::get_bytes`]: no `&str` made of each key on the way.
    fn get(self, key: &str) -> Option<V<'t>> {
        self.get_bytes(key.as_bytes())
    }

    /// The text of a string, from the node already at hand (what [`Json::kind`] gives, without
    /// looking the node up again in [`Tape::str_at`]).
    #[inline]
    fn as_str(self) -> Option<&'t str> {
        let n = self.node();
        let range = n.a as usize..n.b as usize;
        let text = match n.tag {
            Tag::Str => self.t.src,
            Tag::OwnedStr => self.t.b.text.as_str(),
            _ => return None,
        };
        Some(text.get(range).unwrap_or(""))
    }

    fn kind(self) -> Kind<'t> {
        let n = self.node();
        match n.tag {
            Tag::Null => Kind::Null,
            Tag::False => Kind::Bool(false),
            Tag::True => Kind::Bool(true),
            Tag::Int => Kind::Int(n.bits() as i64),
            Tag::UInt => Kind::UInt(n.bits()),
            Tag::Float => Kind::Float(f64::from_bits(n.bits())),
            Tag::BigInt => Kind::Float(super::value::big_int_f64(
                self.t.b.text.get(n.a as usize..n.b as usize).unwrap_or(""),
            )),
            Tag::Str | Tag::OwnedStr => Kind::Str(self.t.str_at(self.i as usize)),
            Tag::Arr => Kind::Arr,
            Tag::Obj => Kind::Obj,
        }
    }

    /// From the node's tag (no [`Json::kind`], which makes a string's `&str`).
    #[inline]
    fn is_container(self) -> bool {
        matches!(self.node().tag, Tag::Arr | Tag::Obj)
    }

    #[inline]
    fn is_arr(self) -> bool {
        self.node().tag == Tag::Arr
    }

    #[inline]
    fn is_num(self) -> bool {
        matches!(
            self.node().tag,
            Tag::Int | Tag::UInt | Tag::Float | Tag::BigInt
        )
    }

    #[inline]
    fn is_str(self) -> bool {
        matches!(self.node().tag, Tag::Str | Tag::OwnedStr)
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
        Entries(self.members())
    }

    fn big_int(self) -> Option<&'t str> {
        let n = self.node();
        match n.tag {
            Tag::BigInt => self.t.b.text.get(n.a as usize..n.b as usize),
            _ => None,
        }
    }
}

/// The items of an array in a tape.
#[derive(Clone)]
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

/// The members of an object in a tape, keys as text.
#[derive(Clone)]
pub(crate) struct Entries<'t>(Members<'t>);

impl<'t> Iterator for Entries<'t> {
    type Item = (&'t str, V<'t>);

    fn next(&mut self) -> Option<(&'t str, V<'t>)> {
        let (key, v) = self.0.next_member()?;
        Some((self.0.t.str_at(key), v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.left, Some(self.0.left))
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// The members of an object in a tape, keys as bytes ([`V::members`]).
#[derive(Clone)]
pub(crate) struct Members<'t> {
    t: &'t Tape<'t>,
    next: usize,
    left: usize,
}

impl<'t> Members<'t> {
    /// The next member: its key's node and its value.
    #[inline]
    fn next_member(&mut self) -> Option<(usize, V<'t>)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.next;
        let v = V {
            t: self.t,
            i: key as u32 + 1,
        };
        self.next = self.t.end(key + 1);
        Some((key, v))
    }
}

impl<'t> Iterator for Members<'t> {
    type Item = (&'t [u8], V<'t>);

    #[inline]
    fn next(&mut self) -> Option<(&'t [u8], V<'t>)> {
        let (key, v) = self.next_member()?;
        Some((self.t.bytes_at(key), v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

/// A number's tag and the 64 bits a node holds of it.
#[inline(always)]
fn number_node(v: Num) -> (Tag, u64) {
    match v {
        Num::Int(n) => (Tag::Int, n as u64),
        Num::UInt(n) => (Tag::UInt, n),
        Num::Float(f) => (Tag::Float, f.to_bits()),
    }
}

/// The literal (`true`, `false` or `null`) at `i`: its tag and length. Fixed-length comparisons
/// (no call to `memcmp`).
#[inline(always)]
fn literal_at(b: &[u8], i: usize) -> Option<(Tag, usize)> {
    let (ok, len, tag) = match *b.get(i)? {
        b't' => (b.get(i..i + 4) == Some(b"true".as_slice()), 4, Tag::True),
        b'f' => (b.get(i..i + 5) == Some(b"false".as_slice()), 5, Tag::False),
        b'n' => (b.get(i..i + 4) == Some(b"null".as_slice()), 4, Tag::Null),
        _ => return None,
    };
    ok.then_some((tag, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tape as a `Val`, to compare with what serde_json builds; on the way, every value's
    /// predicates (read from its node's tag) say what its kind says.
    fn to_val(v: V<'_>) -> Val<'_> {
        let k = v.kind();
        assert_eq!(Json::is_container(v), matches!(k, Kind::Arr | Kind::Obj));
        assert_eq!(Json::is_arr(v), matches!(k, Kind::Arr));
        assert_eq!(Json::is_obj(v), matches!(k, Kind::Obj));
        assert_eq!(Json::is_null(v), matches!(k, Kind::Null));
        assert_eq!(Json::is_str(v), matches!(k, Kind::Str(_)));
        assert_eq!(
            Json::is_num(v),
            matches!(k, Kind::Int(_) | Kind::UInt(_) | Kind::Float(_))
        );
        match k {
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
            let mut other = Buffers::default();
            let again = Tape::from_val(&want, &mut other);
            assert_eq!(to_val(again.root()), want, "{line}");
        }
        // An integer past 64 bits (a Python peer's) is a number.
        let big = Val::Arr(vec![Val::BigInt("123456789012345678901234567890".into())]);
        let tape = Tape::from_val(&big, &mut bufs);
        assert!(matches!(to_val(tape.root()), Val::Arr(v) if matches!(v[..], [Val::Float(_)])));
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

    /// A `__proto__` key anywhere, plain or escaped, is noted, by every way a tape is made;
    /// the text alone (a value, a longer key) is not.
    #[test]
    fn proto_keys_are_noted() {
        let mut bufs = Buffers::default();
        let cases = [
            (r#"{"a":[{"__proto__":1}]}"#, true),
            (r#"{"a":{"__pro\u0074o__":null}}"#, true),
            (r#"{"__proto__":{}}"#, true),
            (
                r#"{"a":"__proto__","__proto__x":1,"b":["__proto__"]}"#,
                false,
            ),
            (r#"{"a":1}"#, false),
        ];
        for (line, want) in cases {
            let tape = Tape::parse(line, &mut bufs).unwrap();
            assert_eq!(tape.has_proto_key(), want, "{line}");
            let val: Val<'_> = serde_json::from_str(line).unwrap();
            let tape = Tape::from_val(&val, &mut bufs);
            assert_eq!(tape.has_proto_key(), want, "{line}");
        }
    }

    /// A value's text is copied for `JSON.stringify` only where it is what `js_json` prints.
    #[test]
    fn js_canonical_text_is_what_js_json_prints() {
        let mut bufs = Buffers::default();
        let canonical = [
            r#"{"toolName":"search","input":{"q":"x é €😀","n":1,"m":-25,"t":true,"f":false,"z":null}}"#,
            r#"[1,[2,[3,{}]],[],"a b",{"a":{"b":[null]}}]"#,
            r#"{"10a":1,"01":2,"4294967295":3,"-1":4,"":5,"__proto__":6}"#,
            "999999999999999",
            "-99999999999999",
            r#""""#,
            "[]",
            "{}",
            // Whitespace around the value is not part of its text.
            " [1,2]\n",
            // Fractions written as JavaScript prints them.
            r#"{"a":1.5,"b":[-0.25,0.1,0.000001,-2.5e-7,1.7976931348623157e+308]}"#,
        ];
        let not = [
            r#"{"a": 1}"#,
            r"[1, 2]",
            " [1, 2] ",
            r#"{"a":7.0}"#,
            r#"{"a":1e2}"#,
            r#"{"a":1.50}"#,
            r#"{"a":0.10}"#,
            r#"{"a":1e21}"#,
            r#"{"a":1.5e300}"#,
            r#"{"a":0.0000001}"#,
            r#"{"a":2.5E-7}"#,
            r#"{"a":-0.0}"#,
            "1000000000000000",
            "-100000000000000",
            "18446744073709551615",
            r#"{"a":"x\ny"}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"\u0061":1}"#,
            r#"{"b":1,"0":2}"#,
            r#"{"1":1}"#,
            r#"{"a":"7"}"#,
            "[1,\n2]",
            "{\"a\"\t:1}",
        ];
        for (line, want) in canonical
            .iter()
            .map(|l| (*l, true))
            .chain(not.iter().map(|l| (*l, false)))
        {
            let tape = Tape::parse(line, &mut bufs).expect(line);
            let got = tape.root().js_canonical_raw();
            assert_eq!(got.is_some(), want, "{line}");
            let mut printed = String::new();
            super::super::text::js_json(&mut printed, tape.root());
            if let Some(raw) = got {
                assert_eq!(raw, printed, "{line}");
            }
            // Every member of a canonical value is canonical too.
            if want {
                for x in tape
                    .root()
                    .items()
                    .chain(tape.root().entries().map(|e| e.1))
                {
                    assert!(x.js_canonical_raw().is_some(), "{line}");
                }
            }
        }
        // A tape built from a `Val` has no text to copy.
        let val: Val<'_> = serde_json::from_str("[1]").unwrap();
        assert!(Tape::from_val(&val, &mut bufs)
            .root()
            .js_canonical_raw()
            .is_none());
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
            // Left to the runtime's reader, which reads `-0` and integers past 64 bits as the
            // peer's language does.
            "-0",
            r#"{"a":-0}"#,
            "18446744073709551616",
            "-9223372036854775809",
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
