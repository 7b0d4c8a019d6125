//! Parsing a session line without building what its reader will not read.
//!
//! Most of a coding agent's session is tool output: in a Claude Code session, each result is
//! written twice, as the `tool_result` block's `content` and again as the line's top-level
//! `toolUseResult` (three quarters of the bytes of a typical session), beside a dozen small
//! members (ids, timestamps, working directory, token usage). The reader looks at none of those
//! but `type` and `message.content`, and at a result's `content` only to keep it as the call's
//! output.
//! Building those strings into a `Value` tree, to free them a moment later, was most of the
//! cost of checking such a session.
//!
//! [`parse_line`] builds the same `Value` as `serde_json::from_slice` except for the members a
//! [`Prune`] rule leaves out, which are still parsed by serde_json (so the line is checked as
//! strictly, UTF-8 included: a skipped member is read as a borrowed `&RawValue`, which
//! serde_json validates) but never built. Everything below the pruned levels is deserialized
//! by `Value`'s own implementation. (`serde::de::IgnoredAny` would skip faster, but it does
//! not check UTF-8 in the strings it skips.)

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

use crate::json::scan;

/// What a session line's reader reads; the rest is parsed but not built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prune {
    /// The top-level members the reader reads (the others are skipped); `None`: all.
    pub top: Option<&'static [&'static str]>,
    /// The members of the top-level `message` the reader reads; `None`: all.
    pub message: Option<&'static [&'static str]>,
    /// Leave out `content` of the `tool_result` blocks in `message.content` (the outputs), when
    /// no call's output is kept. The blocks' other members, and the content of every other
    /// block type, are built as usual.
    pub result_content: bool,
}

impl Prune {
    /// The rule for a Claude Code session line: `readers::claude_code` reads `type`, the
    /// `subtype` and `tools` of a `system` line, and `message.content`; given whether any
    /// call's output is kept.
    pub fn claude_code(outputs: bool) -> Prune {
        Prune {
            top: Some(&["type", "subtype", "tools", "message"]),
            message: Some(&["content"]),
            result_content: !outputs,
        }
    }
}

/// Parse one JSON value from `json`, leaving out what `rule` prunes. Errors are serde_json's,
/// at the same positions as `serde_json::from_slice`'s.
pub(crate) fn parse_line(json: &[u8], rule: Prune) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let v = Level { rule, at: At::Top }.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// [`parse_line`] for a line already known to be UTF-8: serde_json then checks no string's
/// UTF-8 again (neither the ones it builds nor the members it skips). Same values and errors.
///
/// The line is first read by [`fast::parse`], which skips the members left out 16 bytes per
/// step and has serde_json parse only the members kept; a line it does not take (or a line
/// with an error) is read here by serde_json as in [`parse_line`], for its value or its error.
pub(crate) fn parse_line_str(json: &str, rule: Prune) -> serde_json::Result<Value> {
    if let Some(v) = fast::parse(json, rule) {
        return Ok(v);
    }
    parse_line_str_serde(json, rule)
}

/// [`parse_line_str`] by serde_json alone.
fn parse_line_str_serde(json: &str, rule: Prune) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(json);
    let v = Level { rule, at: At::Top }.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// What a Claude Code session line gives its reader, read straight from the line's text by
/// [`claude_code_line`]: the line's `type` and the tool calls and results among the blocks of
/// its `message.content`. Nothing else of the line is built.
#[derive(Debug, PartialEq)]
pub(crate) struct CcLine<'a> {
    /// The line's `type`, when its (last) `type` member is a string.
    pub ty: Option<Cow<'a, str>>,
    /// The tool-use and tool-result blocks of `message.content`, in order.
    pub blocks: Vec<CcBlock<'a>>,
}

/// A tool-use or tool-result block of a Claude Code line.
#[derive(Debug, PartialEq)]
pub(crate) struct CcBlock<'a> {
    /// The block's index in `message.content`.
    pub index: usize,
    pub kind: CcKind<'a>,
}

#[derive(Debug, PartialEq)]
pub(crate) enum CcKind<'a> {
    /// `tool_use`, `server_tool_use` or `mcp_tool_use`.
    Use {
        name: Option<Cow<'a, str>>,
        id: Option<Cow<'a, str>>,
        input: Option<Value>,
    },
    /// `tool_result` or `mcp_tool_result`; `content` only when outputs are kept.
    Result {
        ty: &'static str,
        tool_use_id: Option<Cow<'a, str>>,
        content: Option<Value>,
        is_error: bool,
    },
}

/// Read a Claude Code session line for its reader without building a `Value` of it: the line
/// is checked as [`parse_line_str`] checks it with [`Prune::claude_code`] (`outputs`: whether
/// results' content is kept), except that the members of content blocks other than tool uses
/// and results are skipped, not built (so checked as a pruned member is). Only a tool use's
/// `input` and a kept result's `content` go to serde_json.
///
/// `None` for a line this does not take: anything [`fast`] declines, a `system` line (its tool
/// list is read from the `Value`), a server tool's `*_tool_result` block, an input or content
/// serde_json refuses. The caller then parses the line as before, for its value or its error.
pub(crate) fn claude_code_line(json: &str, outputs: bool) -> Option<CcLine<'_>> {
    fast::claude_code(json, outputs)
}

/// Where in the line a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Top,
    /// The top-level `message`.
    Message,
    /// `message.content`.
    Blocks,
    /// An item of `message.content`.
    Block,
}

struct Level {
    rule: Prune,
    at: At,
}

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl Level {
    fn child(&self, key: &str) -> Option<At> {
        child(self.rule, self.at, key)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        if self.at == At::Blocks {
            while let Some(v) = seq.next_element_seed(Level {
                rule: self.rule,
                at: At::Block,
            })? {
                items.push(v);
            }
        } else {
            while let Some(v) = seq.next_element::<Value>()? {
                items.push(v);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        // A block's `content`, held as text until the block's `type` is known.
        let mut held: Option<&'de RawValue> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            if !reads(self.rule, self.at, &key) {
                // Parsed and validated (UTF-8 included), not built.
                let raw = map.next_value::<&'de RawValue>()?;
                if !numbers_in_range(raw.get()) {
                    return Err(serde::de::Error::custom("number out of range"));
                }
                continue;
            }
            if self.at == At::Block && key == "content" {
                held = Some(map.next_value::<&'de RawValue>()?);
                // Keeps the member's place (and the last-wins rule for a repeated key).
                members.insert(key.into_owned(), Value::Null);
                continue;
            }
            let value = match self.child(&key) {
                Some(at) => map.next_value_seed(Level {
                    rule: self.rule,
                    at,
                })?,
                None => map.next_value::<Value>()?,
            };
            members.insert(key.into_owned(), value);
        }
        if let Some(raw) = held {
            settle_content(&mut members, raw.get()).map_err(serde::de::Error::custom)?;
        }
        Ok(Value::Object(members))
    }
}

/// A block's `content`, held as text until the block's `type` was known: left out of a tool
/// result, parsed into any other block.
fn settle_content(members: &mut Map<String, Value>, raw: &str) -> serde_json::Result<()> {
    let ty = members.get("type").and_then(Value::as_str);
    if matches!(ty, Some("tool_result" | "mcp_tool_result")) {
        members.shift_remove("content");
    } else if let Some(slot) = members.get_mut("content") {
        *slot = serde_json::from_str(raw)?;
    }
    Ok(())
}

/// Whether serde_json reads every number of the JSON text `raw`: it refuses one too large for
/// an `f64` (`1e400`) when it builds it, not when it skips it, and a member left out must not
/// make a line valid that is invalid when the member is read (the caller then reports serde_json's
/// error for the whole line). Only numbers with an exponent or more than 15 characters can be
/// out of range; only those are parsed.
fn numbers_in_range(raw: &str) -> bool {
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let Some(end) = scan::number_end(b, i) else {
                    return true;
                };
                if !number_in_range(raw, i, end) {
                    return false;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    true
}

/// Whether serde_json reads the number at `start..end` of `text` (see [`numbers_in_range`]).
fn number_in_range(text: &str, start: usize, end: usize) -> bool {
    let t = &text.as_bytes()[start..end];
    (t.len() <= 15 && !t.iter().any(|&c| c | 0x20 == b'e')) || scan::number(text, start).is_some()
}

/// The members a level reads, of those its line has.
fn reads(rule: Prune, at: At, key: &str) -> bool {
    let keys = match at {
        At::Top => rule.top,
        At::Message => rule.message,
        At::Blocks | At::Block => None,
    };
    keys.is_none_or(|k| k.contains(&key))
}

/// The level of a member's value, where it is one the rule prunes within.
fn child(rule: Prune, at: At, key: &str) -> Option<At> {
    match (at, key) {
        (At::Top, "message") => Some(At::Message),
        (At::Message, "content") if rule.result_content => Some(At::Blocks),
        _ => None,
    }
}

/// The fast path of [`parse_line_str`]: a scanner that checks the members left out as strictly
/// as serde_json's skipping does (strings, escapes, numbers, literals, structure), finding each
/// string's end in a mask of the line's stop bytes made 16 bytes per step, and hands each member kept to serde_json as its own text.
/// It answers `None` for anything it does not take: an error anywhere, a line that is not an
/// object, a key with a surrogate escape, nesting deeper than [`fast::MAX_DEPTH`] (where
/// serde_json's depth limit, counted from the line's start, could decide). The caller then
/// reads the line with serde_json, so values and errors are serde_json's either way.
mod fast {
    use super::{child, reads, settle_content, At, CcBlock, CcKind, CcLine, Prune};
    use crate::json::scan;
    use serde_json::{Map, Value};
    use std::borrow::Cow;

    /// Deeper than this, the line is left to serde_json (its limit is 128 from the line's
    /// start; a kept member's text parsed alone would be allowed more).
    pub(super) const MAX_DEPTH: usize = 100;

    pub(super) fn parse(json: &str, rule: Prune) -> Option<Value> {
        object_line(json, |s| s.object(rule, At::Top))
    }

    pub(super) fn claude_code(json: &str, outputs: bool) -> Option<CcLine<'_>> {
        let line = object_line(json, |s| {
            let mut ty = None;
            let mut blocks = Vec::new();
            // Repeated members: the last one counts, as in serde_json's map.
            s.nest(0, b'}', |s| {
                let key = s.member_key()?;
                match &*key {
                    "type" => ty = s.string_or_skip(1)?,
                    "message" => blocks = s.cc_message(outputs)?,
                    _ => s.skip(1)?,
                }
                Some(())
            })?;
            Some(CcLine { ty, blocks })
        })?;
        (line.ty.as_deref() != Some("system")).then_some(line)
    }

    /// `read` run at the opening brace of the object `json` must be (with nothing but
    /// whitespace around it): its answer, or `None`.
    fn object_line<'a, T>(
        json: &'a str,
        read: impl FnOnce(&mut Scan<'a, '_>) -> Option<T>,
    ) -> Option<T> {
        let mut mask = Vec::with_capacity(json.len() / 64 + 1);
        scan::stop_mask(json.as_bytes(), &mut mask);
        let mut s = Scan {
            text: json,
            b: json.as_bytes(),
            mask: &mask,
            i: 0,
        };
        s.ws();
        if s.peek() != Some(b'{') {
            return None;
        }
        let v = read(&mut s)?;
        s.ws();
        (s.i == s.b.len()).then_some(v)
    }

    struct Scan<'a, 'm> {
        text: &'a str,
        b: &'a [u8],
        /// The line's quotes, backslashes and control bytes ([`scan::stop_mask`]): each
        /// string's end is a bit scan.
        mask: &'m [u64],
        i: usize,
    }

    impl<'a> Scan<'a, '_> {
        fn peek(&self) -> Option<u8> {
            self.b.get(self.i).copied()
        }

        /// JSON's whitespace.
        fn ws(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
                self.i += 1;
            }
        }

        /// After whitespace, `c`.
        fn eat(&mut self, c: u8) -> Option<()> {
            self.ws();
            (self.peek() == Some(c)).then(|| self.i += 1)
        }

        /// The key at the quote at `i`: checked, and decoded if it has escapes.
        fn key(&mut self) -> Option<Cow<'a, str>> {
            let start = self.i + 1;
            let k = self.stop(start);
            match self.b.get(k)? {
                b'"' => {
                    self.i = k + 1;
                    Some(Cow::Borrowed(self.text.get(start..k)?))
                }
                b'\\' => {
                    let mut out = String::from(self.text.get(start..k)?);
                    self.i = scan::unescape(self.text, k, Some(&mut out))?;
                    Some(Cow::Owned(out))
                }
                // A control character: serde_json's error.
                _ => None,
            }
        }

        /// Skip the string at the quote at `i`, checked as serde_json's skipping checks it
        /// (any four hex digits after `\u`; no control characters).
        fn skip_string(&mut self) -> Option<()> {
            let mut j = self.stop(self.i + 1);
            loop {
                match *self.b.get(j)? {
                    b'"' => {
                        self.i = j + 1;
                        return Some(());
                    }
                    b'\\' => match *self.b.get(j + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                        b'u' => {
                            let hex = self.b.get(j + 2..j + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            j += 6;
                        }
                        _ => return None,
                    },
                    _ => return None,
                }
                j = self.stop(j);
            }
        }

        /// The first quote, backslash or control byte at or after `i` (or the line's end).
        fn stop(&self, i: usize) -> usize {
            scan::next_stop(self.mask, i, self.b.len())
        }

        /// Skip one value (after whitespace), checking it; `depth`: the levels it is in.
        fn skip(&mut self, depth: usize) -> Option<()> {
            self.ws();
            match self.peek()? {
                b'"' => self.skip_string(),
                b'{' => self.nest(depth, b'}', |s| {
                    s.ws();
                    if s.peek() != Some(b'"') {
                        return None;
                    }
                    s.skip_string()?;
                    s.eat(b':')?;
                    s.skip(depth + 1)
                }),
                b'[' => self.nest(depth, b']', |s| s.skip(depth + 1)),
                b't' => self.literal(b"true"),
                b'f' => self.literal(b"false"),
                b'n' => self.literal(b"null"),
                _ => {
                    let start = self.i;
                    self.i = scan::number_end(self.b, start)?;
                    // A number serde_json would refuse to build (`1e400`): its to judge.
                    super::number_in_range(self.text, start, self.i).then_some(())
                }
            }
        }

        fn literal(&mut self, word: &[u8]) -> Option<()> {
            self.b[self.i..]
                .starts_with(word)
                .then(|| self.i += word.len())
        }

        /// An object or array at `i` whose items `item` reads, up to `close`.
        fn nest(
            &mut self,
            depth: usize,
            close: u8,
            mut item: impl FnMut(&mut Self) -> Option<()>,
        ) -> Option<()> {
            if depth >= MAX_DEPTH {
                return None;
            }
            self.i += 1;
            self.ws();
            if self.peek() == Some(close) {
                self.i += 1;
                return Some(());
            }
            loop {
                item(self)?;
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    c if c == close => {
                        self.i += 1;
                        return Some(());
                    }
                    _ => return None,
                }
            }
        }

        /// Skip one value, answering its text (for serde_json to parse).
        fn raw(&mut self, depth: usize) -> Option<&'a str> {
            self.ws();
            let start = self.i;
            self.skip(depth)?;
            self.text.get(start..self.i)
        }

        /// A value kept in full: serde_json's own value of its text.
        fn value(&mut self, depth: usize) -> Option<Value> {
            serde_json::from_str(self.raw(depth)?).ok()
        }

        /// The value of a member at level `at`, as [`super::Level`] builds it.
        fn level(&mut self, rule: Prune, at: At, depth: usize) -> Option<Value> {
            self.ws();
            match (at, self.peek()?) {
                (At::Message | At::Block, b'{') => self.object(rule, at),
                (At::Blocks, b'[') => {
                    let mut items = Vec::new();
                    self.nest(depth, b']', |s| {
                        items.push(s.level(rule, At::Block, depth + 1)?);
                        Some(())
                    })?;
                    Some(Value::Array(items))
                }
                _ => self.value(depth),
            }
        }

        /// After whitespace, a member's key and its colon.
        fn member_key(&mut self) -> Option<Cow<'a, str>> {
            self.ws();
            if self.peek() != Some(b'"') {
                return None;
            }
            let key = self.key()?;
            self.eat(b':')?;
            Some(key)
        }

        /// A string's value; `Some(None)` for a value of another type (skipped).
        fn string_or_skip(&mut self, depth: usize) -> Option<Option<Cow<'a, str>>> {
            self.ws();
            if self.peek() == Some(b'"') {
                return self.key().map(Some);
            }
            self.skip(depth).map(|()| None)
        }

        /// `true` or `false`; `Some(None)` for a value of another type (skipped, as the
        /// literals are: checked by [`Self::skip`]).
        fn bool_or_skip(&mut self, depth: usize) -> Option<Option<bool>> {
            self.ws();
            let value = match self.peek() {
                Some(b't') => Some(true),
                Some(b'f') => Some(false),
                _ => None,
            };
            self.skip(depth).map(|()| value)
        }

        /// A Claude Code line's `message` (at depth 1): the tool blocks of its `content`.
        fn cc_message(&mut self, outputs: bool) -> Option<Vec<CcBlock<'a>>> {
            self.ws();
            let mut blocks = Vec::new();
            if self.peek() != Some(b'{') {
                self.skip(1)?;
                return Some(blocks);
            }
            self.nest(1, b'}', |s| {
                if s.member_key()? != "content" {
                    return s.skip(2);
                }
                blocks.clear();
                s.ws();
                if s.peek() != Some(b'[') {
                    return s.skip(2);
                }
                let mut index = 0usize;
                s.nest(2, b']', |s| {
                    s.ws();
                    if s.peek() == Some(b'{') {
                        if let Some(kind) = s.cc_block(outputs)? {
                            blocks.push(CcBlock { index, kind });
                        }
                    } else {
                        s.skip(3)?;
                    }
                    index += 1;
                    Some(())
                })
            })?;
            Some(blocks)
        }

        /// One content block (at depth 3): `Some(None)` for a block that is neither a tool use
        /// nor a tool result.
        fn cc_block(&mut self, outputs: bool) -> Option<Option<CcKind<'a>>> {
            let (mut ty, mut id, mut name, mut tool_use_id) = (None, None, None, None);
            let (mut input, mut content, mut is_error) = (None, None, None);
            self.nest(3, b'}', |s| {
                let key = s.member_key()?;
                match &*key {
                    "type" => ty = s.string_or_skip(4)?,
                    "id" => id = s.string_or_skip(4)?,
                    "name" => name = s.string_or_skip(4)?,
                    "tool_use_id" => tool_use_id = s.string_or_skip(4)?,
                    "input" => input = Some(s.raw(4)?),
                    "content" => content = Some(s.raw(4)?),
                    "is_error" => is_error = s.bool_or_skip(4)?,
                    _ => s.skip(4)?,
                }
                Some(())
            })?;
            let parse = |raw: &str| serde_json::from_str::<Value>(raw).ok();
            Some(match ty.as_deref() {
                Some("tool_use" | "server_tool_use" | "mcp_tool_use") => Some(CcKind::Use {
                    name,
                    id,
                    input: match input {
                        Some(raw) => Some(parse(raw)?),
                        None => None,
                    },
                }),
                Some(t @ ("tool_result" | "mcp_tool_result")) => Some(CcKind::Result {
                    ty: if t == "tool_result" {
                        "tool_result"
                    } else {
                        "mcp_tool_result"
                    },
                    tool_use_id,
                    content: match content {
                        Some(raw) if outputs => Some(parse(raw)?),
                        _ => None,
                    },
                    is_error: is_error.unwrap_or(false),
                }),
                // A server tool's result: its error is read from its content (see
                // `readers::anthropic::block`).
                Some(t) if t.ends_with("_tool_result") => return None,
                _ => None,
            })
        }

        /// An object at level `at` (`Top`, `Message` or `Block`): the members it reads.
        fn object(&mut self, rule: Prune, at: At) -> Option<Value> {
            let depth = match at {
                At::Top => 0,
                At::Message => 1,
                At::Blocks => 2,
                At::Block => 3,
            };
            let mut members = Map::new();
            let mut held: Option<&'a str> = None;
            self.nest(depth, b'}', |s| {
                s.ws();
                if s.peek() != Some(b'"') {
                    return None;
                }
                let key = s.key()?;
                s.eat(b':')?;
                if !reads(rule, at, &key) {
                    return s.skip(depth + 1);
                }
                if at == At::Block && key == "content" {
                    held = Some(s.raw(depth + 1)?);
                    members.insert(key.into_owned(), Value::Null);
                    return Some(());
                }
                let value = match child(rule, at, &key) {
                    Some(next) => s.level(rule, next, depth + 1)?,
                    None => s.value(depth + 1)?,
                };
                members.insert(key.into_owned(), value);
                Some(())
            })?;
            if let Some(raw) = held {
                settle_content(&mut members, raw).ok()?;
            }
            Some(Value::Object(members))
        }
    }
}

/// A member's key, borrowed from the line unless it has escapes (a skipped member's key is
/// never allocated).
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &[&str] = &[
        r#"{"type":"system","subtype":"init","tools":["Read","Bash"],"session_id":"x","cwd":"/w"}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]},"uuid":"u1"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line 1\nline 2","is_error":false}]},"toolUseResult":{"file":{"content":"line 1\nline 2"}},"uuid":"u2"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"content":[{"type":"text","text":"x"}],"type":"tool_result","tool_use_id":"t2"},{"type":"web_search_tool_result","tool_use_id":"s1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}]}}"#,
        r#"{"type":"user","message":{"role":"user","content":"plain text"}}"#,
        r#"{"type":"summary","summary":"s","leafUuid":"x","message":null}"#,
        r#"[1, 2.5, -3, "x", null, true]"#,
        r#"{"typ\u0065":"user","message":{"cont\u0065nt":[{"type":"tool_result","content":"x"}]},"uu\u0069d":1}"#,
        r#"{"message":{"content":[1,{"type":"tool_result","content":1,"content":2}]},"toolUseResult":1,"toolUseResult":2}"#,
    ];

    fn full(line: &str) -> Value {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn without_pruning_the_value_is_serde_jsons() {
        let none = Prune {
            top: None,
            message: None,
            result_content: false,
        };
        for line in LINES {
            assert_eq!(
                parse_line(line.as_bytes(), none).unwrap(),
                full(line),
                "{line}"
            );
        }
    }

    #[test]
    fn pruned_members_are_left_out_and_nothing_else() {
        for line in LINES {
            for outputs in [true, false] {
                let mut want = full(line);
                if let Some(o) = want.as_object_mut() {
                    o.retain(|k, _| ["type", "subtype", "tools", "message"].contains(&k.as_str()));
                    if let Some(m) = o.get_mut("message").and_then(Value::as_object_mut) {
                        m.retain(|k, _| k == "content");
                    }
                }
                if !outputs {
                    let blocks = want
                        .pointer_mut("/message/content")
                        .and_then(Value::as_array_mut);
                    for b in blocks.into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                            b.as_object_mut().unwrap().shift_remove("content");
                        }
                    }
                }
                let got = parse_line(line.as_bytes(), Prune::claude_code(outputs)).unwrap();
                assert_eq!(got, want, "{line} (outputs kept: {outputs})");
                // Same member order as serde_json's for what is kept.
                assert_eq!(got.to_string(), want.to_string());
            }
        }
    }

    #[test]
    fn text_and_bytes_give_the_same_values_and_errors() {
        let bad = [
            r#"{"toolUseResult":[1,}"#,
            r#"{"a":1} x"#,
            r#"{"a":"\q"}"#,
            "{\"a\":\"\u{1}\"}",
        ];
        for line in LINES.iter().chain(&bad) {
            for outputs in [true, false] {
                let rule = Prune::claude_code(outputs);
                let (a, b) = (
                    parse_line(line.as_bytes(), rule),
                    parse_line_str(line, rule),
                );
                match (a, b) {
                    (Ok(a), Ok(b)) => assert_eq!(a.to_string(), b.to_string(), "{line}"),
                    (Err(a), Err(b)) => assert_eq!(
                        (a.line(), a.column(), a.to_string()),
                        (b.line(), b.column(), b.to_string()),
                        "{line}"
                    ),
                    (a, b) => panic!("{line}: {a:?} against {b:?}"),
                }
            }
        }
    }

    #[test]
    fn the_fast_path_gives_serde_jsons_values_or_declines() {
        let deep = format!(
            "{{\"type\":\"user\",\"x\":{}1{}}}",
            "[".repeat(150),
            "]".repeat(150)
        );
        let deep_kept = format!("{{\"tools\":{}1{}}}", "[".repeat(99), "]".repeat(99));
        let mut lines: Vec<String> = LINES.iter().map(|l| l.to_string()).collect();
        lines.extend(
            [
                // Skipped members of every kind, with escapes, numbers and literals.
                r#"{"uuid":"a\"b\\c\/\b\f\n\r\t\u00e9","n":[-0,0.5,1e9,-2E-3,12],"l":[true,false,null],"o":{"k":{}}, "type" : "user" }"#,
                r#" {"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"N","input":{"a":[1,{"b":null}]}}],"usage":{"x":1}}} "#,
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x\ny"}]}]}}"#,
                r#"{"type":"user","message":{"content":[{"type":"text","content":{"a":1},"text":"t"}]}}"#,
                r#"{"message":{"content":"text"},"message":{"content":[1,"x",null,{"type":"tool_result"}]}}"#,
                r#"{"message":[{"content":1}],"type":"user"}"#,
                r#"{"message":null,"type":"user"}"#,
                r#"{"t\u0079pe":"user","message":{"content":[]}}"#,
                r#"{}"#,
                // Declined: serde_json decides these (values or errors).
                r#"{"type":"user","x":"\ud83d\ude00"}"#,
                r#"{"\ud83d\ude00":1}"#,
                r#"{"type":"user","x":01}"#,
                r#"{"type":"user","x":1.}"#,
                r#"{"type":"user","x":-}"#,
                r#"{"type":"user","x":tru}"#,
                r#"{"type":"user","x":"\q"}"#,
                r#"{"type":"user","x":"\u12g4"}"#,
                r#"{"type":"user","x":[1,]}"#,
                r#"{"type":"user","x":{"a":1,}}"#,
                r#"{"type":"user","x":{"a" 1}}"#,
                r#"{"type":"user","x":{1:1}}"#,
                r#"{"type":"user",}"#,
                r#"{"type":"user"} x"#,
                r#"{"type":"user""#,
                r#"{"type":"us"#,
                "{\"type\":\"user\",\"x\":\"a\u{1}b\"}",
                "{\"type\":\"user\",\"x\":\"a\\n\u{1f}\"}",
                r#"[{"type":"user"}]"#,
                r#""text""#,
            ]
            .map(String::from),
        );
        lines.push(deep);
        lines.push(deep_kept);
        for line in &lines {
            for outputs in [true, false] {
                let rule = Prune::claude_code(outputs);
                let serde = parse_line_str_serde(line, rule);
                match fast::parse(line, rule) {
                    Some(v) => {
                        let want = serde.unwrap_or_else(|e| {
                            panic!("{line}: fast took a line serde_json refuses: {e}")
                        });
                        assert_eq!(v.to_string(), want.to_string(), "{line}");
                    }
                    None => {
                        // Declined lines are still read, by serde_json.
                        let got = parse_line_str(line, rule);
                        match (got, serde) {
                            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line}"),
                            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                            (a, b) => panic!("{line}: {a:?} against {b:?}"),
                        }
                    }
                }
            }
        }
        // The common lines take the fast path.
        for line in &lines[..6] {
            assert!(
                fast::parse(line, Prune::claude_code(false)).is_some(),
                "{line}"
            );
        }
        assert!(fast::parse(&lines[LINES.len()], Prune::claude_code(false)).is_some());
    }

    #[test]
    fn pruned_members_are_still_checked() {
        let rule = Prune::claude_code(false);
        let bad_utf8 = b"{\"type\":\"user\",\"toolUseResult\":\"\xff\"}";
        assert!(parse_line(bad_utf8, rule).is_err());
        let bad_escape = br#"{"message":{"content":[{"type":"tool_result","content":"\q"}]}}"#;
        assert!(parse_line(bad_escape, rule).is_err());
        // serde_json refuses to build a number too large for an f64; a member left out is
        // refused all the same, so that what a spec reads never makes a line valid.
        for line in [
            r#"{"type":"user","toolUseResult":{"n":[1e400]}}"#,
            r#"{"type":"user","toolUseResult":"\"1e400","n":-1234567890123456789e300}"#,
            r#"{"type":"assistant","message":{"usage":{"t":1E+999},"content":[]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x","n":1e400}]}}"#,
        ] {
            assert!(serde_json::from_str::<Value>(line).is_err(), "{line}");
            for outputs in [true, false] {
                let rule = Prune::claude_code(outputs);
                assert!(parse_line(line.as_bytes(), rule).is_err(), "{line}");
                assert!(parse_line_str(line, rule).is_err(), "{line}");
                assert!(fast::parse(line, rule).is_none(), "{line}");
                assert!(claude_code_line(line, outputs).is_none(), "{line}");
            }
        }
        // Large numbers that are in range, and number-like text in strings, are fine.
        let fine = r#"{"type":"user","toolUseResult":{"n":[1e300,123456789012345678901234,-0.5e-400],"s":"1e400"}}"#;
        assert!(serde_json::from_str::<Value>(fine).is_ok());
        assert!(parse_line(fine.as_bytes(), rule).is_ok());
        assert!(fast::parse(fine, rule).is_some());
        for line in [r#"{"toolUseResult":[1,}"#, r#"{"a":1} x"#, r#"{"a":"#] {
            let ours = parse_line(line.as_bytes(), rule).unwrap_err();
            let theirs = serde_json::from_str::<Value>(line).unwrap_err();
            assert_eq!(
                (ours.line(), ours.column(), ours.classify()),
                (theirs.line(), theirs.column(), theirs.classify()),
                "{line}"
            );
        }
    }
}
