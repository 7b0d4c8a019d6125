//! Data shown to people or machines never carries control sequences.
//!
//! Transcripts, specs, file names and tool names come from other people. Printed raw, a newline
//! in a file name followed by `::error ...` becomes a GitHub Actions workflow command, an ESC
//! sequence clears the screen, sets the terminal title or plants a link, and a bidi override
//! makes text read differently from what it is. [`is_control`] is the one definition of the
//! characters that must never reach an output raw; every writer shows them through one of the
//! functions here:
//!
//! - [`escape`]: in running text (messages, names, table cells, errors on stderr), each such
//!   character as a Rust-style escape: `\n`, `\r`, `\t`, else `\u{1b}` (lowercase hex), and
//!   the `[` of `##[` (GitHub's older command form, found anywhere in a line) as `\u{5b}`.
//!   Text without any is borrowed unchanged. Backslashes are not doubled, so a name that holds
//!   the six characters `\u{1b}` prints the same as one holding ESC; the output is for
//!   reading, the JSON formats keep the exact text.
//! - [`guard_lines`]: over lines toolspec composed (a miette rendering, a table), a line that
//!   would start with `::` because data landed at its start (a wrapped message) gets its first
//!   `:` written `\u{3a}`, so only `--format github` writes workflow commands.
//! - [`mask_source`]: in the file text a snippet is cut from, each such character (except line
//!   breaks and tabs) as `?` repeated once per byte of its UTF-8 encoding, so byte offsets into
//!   the text stay valid for the spans that point into it.
//! - [`escape_markdown`]: in Markdown, [`escape`] then a backslash before every ASCII character
//!   that could make markup.
//! - [`json`]: in JSON documents, each such character as a JSON `\uXXXX` escape, so the
//!   document stays valid and holds exactly the original text.

use std::borrow::Cow;

/// Whether `c` must never be written raw: C0 controls (U+0000–U+001F, line breaks and tabs
/// included), DEL (U+007F), C1 controls (U+0080–U+009F, with NEL U+0085 and the 8-bit CSI
/// U+009B), the bidi marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) and the Unicode line and paragraph separators (U+2028,
/// U+2029).
pub fn is_control(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// `s` with every [`is_control`] character shown as an escape (`\n`, `\r`, `\t`, `\u{1b}`),
/// and the `[` of every `##[` (the older form of a GitHub workflow command, which the runner
/// finds anywhere in a line) as `\u{5b}`: one line of plain text, safe on a terminal and in a
/// CI log. Borrowed when there is nothing to escape.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_with(s, false)
}

/// [`escape`] for text that is made of lines on purpose (a third-party message of several
/// lines): the line breaks (`\n`) are kept, everything else [`escape`] escapes is escaped.
/// Only for text whose lines toolspec decides; data must go through [`escape`], and the lines
/// through [`guard_lines`].
pub fn escape_keeping_lines(s: &str) -> Cow<'_, str> {
    escape_with(s, true)
}

fn escape_with(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let special = |i: usize, c: char| {
        (is_control(c) && !(keep_lines && c == '\n')) || (c == '[' && s[..i].ends_with("##"))
    };
    let Some((first, _)) = s.char_indices().find(|&(i, c)| special(i, c)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for (i, c) in s[first..].char_indices() {
        if special(first + i, c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            use std::fmt::Write;
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` (lines toolspec wrote, data in them already escaped) with no line that a GitHub
/// runner would take for a workflow command: a line whose first non-blank characters are `::`
/// (data that a wrapped message or a table puts at the start of a line) gets its first `:`
/// written `\u{3a}`. Toolspec's own workflow commands (`--format github`) are never passed
/// through this.
pub fn guard_lines(text: &str) -> Cow<'_, str> {
    let starts_command = |line: &str| line.trim_start().starts_with("::");
    if !text.split('\n').any(starts_command) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if starts_command(line) {
            let blank = line.len() - line.trim_start().len();
            out.push_str(&line[..blank]);
            out.push_str("\\u{3a}");
            out.push_str(&line[blank + 1..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// `s` as text inside Markdown (`--format markdown`, the GitHub job summary): [`escape`]d, then
/// every ASCII character that Markdown, GitHub's extensions or HTML give a meaning to (emphasis,
/// code, links, images, tables, headings, HTML tags and entities, mentions, emoji codes)
/// backslash-escaped, so data renders as the text it is and cannot add markup (a table cell
/// cannot end early, `<script>` shows as text). Borrowed when there is nothing to escape.
pub fn escape_markdown(s: &str) -> Cow<'_, str> {
    const SPECIAL: &[u8] = b"\\`*_{}[]()<>#+-!|~&@:.\"'=$^%";
    let s = escape(s);
    if !s.bytes().any(|b| SPECIAL.contains(&b)) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_ascii() && SPECIAL.contains(&(c as u8)) {
            out.push('\\');
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// The text of a file as a snippet shows it: every [`is_control`] character but `\n`, `\t` and
/// the `\r` of a `\r\n` becomes `?`, once per byte of its UTF-8 encoding, and the second `#`
/// of a `##[` becomes `?`, so every byte offset (and so every span) into `s` means the same in
/// the result. Borrowed when there is nothing to mask. (Snippet lines start with their line
/// number, so no line of a snippet starts with `::`.)
pub fn mask_source(s: &str) -> Cow<'_, str> {
    let masked = |i: usize, c: char| match c {
        '\n' | '\t' => false,
        '\r' => s.as_bytes().get(i + 1) != Some(&b'\n'),
        '#' => i > 0 && s.as_bytes()[i - 1] == b'#' && s.as_bytes().get(i + 1) == Some(&b'['),
        c => is_control(c),
    };
    let Some((first, _)) = s.char_indices().find(|&(i, c)| masked(i, c)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first]);
    for (i, c) in s[first..].char_indices() {
        if masked(first + i, c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text in which no [`is_control`] character appears raw.
///
/// serde_json already writes C0 controls in strings as escapes; [`Safe`] writes the others
/// (DEL, C1, bidi, line separators) as `\uXXXX` too. Structure (keys, numbers, layout) is never
/// touched: the document parses to exactly the same value.
pub mod json {
    use std::io;

    use serde::Serialize;
    use serde_json::ser::{CharEscape, CompactFormatter, Formatter, PrettyFormatter};

    /// A serde_json formatter that escapes every [`super::is_control`] character in strings,
    /// and the `[` of a `##[` (as `\u005b`).
    #[derive(Debug, Clone, Default)]
    pub struct Safe<F>(pub F);

    macro_rules! delegate {
        ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
            #[inline]
            fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> io::Result<()> {
                self.0.$name(w $(, $arg)*)
            }
        )*};
    }

    impl<F: Formatter> Formatter for Safe<F> {
        delegate! {
            begin_array();
            end_array();
            begin_array_value(first: bool);
            end_array_value();
            begin_object();
            end_object();
            begin_object_key(first: bool);
            end_object_key();
            begin_object_value();
            end_object_value();
            write_null();
            write_bool(value: bool);
            write_i64(value: i64);
            write_u64(value: u64);
            write_i128(value: i128);
            write_u128(value: u128);
            write_f64(value: f64);
            write_f32(value: f32);
            write_number_str(value: &str);
            write_raw_fragment(fragment: &str);
            write_char_escape(escape: CharEscape);
            begin_string();
            end_string();
        }

        fn write_string_fragment<W: ?Sized + io::Write>(
            &mut self,
            w: &mut W,
            fragment: &str,
        ) -> io::Result<()> {
            // A `##[` split across fragments is cut by an escape (`#\u0023[`, ...), which the
            // runner does not read as one either.
            let special = |i: usize, c: char| {
                super::is_control(c) || (c == '[' && fragment[..i].ends_with("##"))
            };
            let mut from = 0;
            for (i, c) in fragment.char_indices().filter(|&(i, c)| special(i, c)) {
                self.0.write_string_fragment(w, &fragment[from..i])?;
                write!(w, "\\u{:04x}", c as u32)?;
                from = i + c.len_utf8();
            }
            self.0.write_string_fragment(w, &fragment[from..])
        }
    }

    /// JSON text written by another serializer (a document, or JSON lines) with every
    /// [`super::is_control`] character above U+001F and the `[` of every `##[` written as a
    /// `\uXXXX` escape. Valid for any JSON text: outside strings JSON holds only ASCII
    /// punctuation, literals, numbers and whitespace, so these characters can only be inside
    /// strings (C0 characters are whitespace between tokens or already escaped, and are kept).
    /// Borrowed, after a scan of the bytes, when there is nothing to escape.
    pub fn escape_text(s: &str) -> std::borrow::Cow<'_, str> {
        if !may_escape(s.as_bytes()) {
            return std::borrow::Cow::Borrowed(s);
        }
        let special = |i: usize, c: char| {
            (c > '\u{1f}' && super::is_control(c)) || (c == '[' && s[..i].ends_with("##"))
        };
        if !s.char_indices().any(|(i, c)| special(i, c)) {
            return std::borrow::Cow::Borrowed(s);
        }
        let mut out = String::with_capacity(s.len() + 16);
        let mut from = 0;
        for (i, c) in s.char_indices().filter(|&(i, c)| special(i, c)) {
            out.push_str(&s[from..i]);
            out.push_str(&format!("\\u{:04x}", c as u32));
            from = i + c.len_utf8();
        }
        out.push_str(&s[from..]);
        std::borrow::Cow::Owned(out)
    }

    /// Whether [`escape_text`] may change text of these bytes: whether they hold a lead byte
    /// of a character it escapes (DEL, C1 (C2), U+061C (D8), U+200E.. (E2)) or a `#`. Text
    /// without one is written as it is, UTF-8 or not.
    pub fn may_escape(b: &[u8]) -> bool {
        memchr::memchr3(0xc2, 0xd8, 0xe2, b).is_some() || memchr::memchr2(0x7f, b'#', b).is_some()
    }

    /// A safe pretty formatter (two-space indent, as `serde_json::to_string_pretty`).
    pub fn pretty() -> Safe<PrettyFormatter<'static>> {
        Safe(PrettyFormatter::new())
    }

    /// `serde_json::to_writer_pretty`, safe.
    pub fn to_writer_pretty<W: io::Write, T: ?Sized + Serialize>(
        w: W,
        value: &T,
    ) -> serde_json::Result<()> {
        value.serialize(&mut serde_json::Serializer::with_formatter(w, pretty()))
    }

    /// `serde_json::to_string_pretty`, safe.
    pub fn to_string_pretty<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
        let mut out = Vec::with_capacity(128);
        to_writer_pretty(&mut out, value)?;
        Ok(String::from_utf8(out).unwrap_or_default())
    }

    /// `serde_json::to_string`, safe.
    pub fn to_string<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
        let mut out = Vec::with_capacity(64);
        value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out,
            Safe(CompactFormatter),
        ))?;
        Ok(String::from_utf8(out).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    /// Markdown: data keeps its text and gains no markup; plain words are borrowed.
    #[test]
    fn markdown_escapes_every_markup_character() {
        assert!(matches!(
            escape_markdown("plain words 42"),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_markdown("a|b"), "a\\|b");
        assert_eq!(escape_markdown("<b>"), "\\<b\\>");
        assert_eq!(escape_markdown("[x](y)"), "\\[x\\]\\(y\\)");
        assert_eq!(escape_markdown("x\n::error"), "x\\\\n\\:\\:error");
        assert_eq!(escape_markdown("\u{1b}[2J"), "\\\\u\\{1b\\}\\[2J");
    }

    use super::*;

    const NASTY: &str = "##[error]a\n::error file=x::pwned\r\t\u{1b}[2J\u{1b}]0;x\u{7}\u{7f}\u{9b}\u{85}\u{202e}\u{2066}\u{200f}\u{61c}\u{2028}\u{2029}é😀";

    #[test]
    fn escape_shows_every_control_and_keeps_the_rest() {
        assert_eq!(escape("plain é 😀 \\n"), Cow::Borrowed("plain é 😀 \\n"));
        let e = escape(NASTY);
        assert_eq!(
            e,
            "##\\u{5b}error]a\\n::error file=x::pwned\\r\\t\\u{1b}[2J\\u{1b}]0;x\\u{7}\\u{7f}\\u{9b}\\u{85}\\u{202e}\\u{2066}\\u{200f}\\u{61c}\\u{2028}\\u{2029}é😀"
        );
        assert!(!e.chars().any(is_control));
        // Idempotent: escaped text has nothing left to escape.
        assert_eq!(escape(&e), e);
    }

    #[test]
    fn is_control_is_exactly_the_documented_set() {
        let expected = |c: u32| {
            c <= 0x1f
                || (0x7f..=0x9f).contains(&c)
                || [0x61c, 0x200e, 0x200f, 0x2028, 0x2029].contains(&c)
                || (0x202a..=0x202e).contains(&c)
                || (0x2066..=0x2069).contains(&c)
        };
        for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
            assert_eq!(is_control(c), expected(c as u32), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn guarded_lines_never_start_a_workflow_command() {
        assert_eq!(guard_lines("a\nb ::c\n"), Cow::Borrowed("a\nb ::c\n"));
        assert_eq!(
            guard_lines("x\n  ::error::y\n::warning::z"),
            "x\n  \\u{3a}:error::y\n\\u{3a}:warning::z"
        );
    }

    #[test]
    fn escape_keeping_lines_keeps_only_line_breaks() {
        assert_eq!(escape_keeping_lines("a\nb\u{1b}c\r"), "a\nb\\u{1b}c\\r");
    }

    #[test]
    fn masked_source_keeps_every_offset_and_line() {
        let text = format!("line 1\r\n{NASTY}\n\tend\n");
        let m = mask_source(&text);
        assert_eq!(m.len(), text.len());
        assert!(!m.chars().any(|c| is_control(c) && !"\n\t\r".contains(c)));
        assert_eq!(m.matches('\n').count(), text.matches('\n').count());
        assert!(m.starts_with("line 1\r\n#?[error]a\n::error"));
        // Every char boundary of the original is one of the masked text.
        for (i, _) in text.char_indices() {
            assert!(m.is_char_boundary(i), "{i}");
        }
        let expected = format!("pwned?\t?[2J?]0;x{}é😀", "?".repeat(23));
        assert!(m.contains(&expected), "{m}");
        assert_eq!(mask_source("ok\r\nfine\n"), Cow::Borrowed("ok\r\nfine\n"));
    }

    #[test]
    fn json_escapes_controls_and_parses_back_to_the_same_value() {
        let value = serde_json::json!({ NASTY: [NASTY, 1, 2.5, null, {"k": NASTY}] });
        for text in [
            json::to_string_pretty(&value).unwrap(),
            json::to_string(&value).unwrap(),
        ] {
            assert!(!text.chars().any(|c| c != '\n' && is_control(c)), "{text}");
            assert!(
                text.contains("\\u202e") && text.contains("\\u009b"),
                "{text}"
            );
            assert!(!text.contains("##["), "{text}");
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back, value);
        }
        // Text another serializer wrote: the same escapes, structure and C0 untouched.
        let raw = format!("{}\n{}\n", serde_json::to_string(&value).unwrap(), "[1, 2]");
        let safe = json::escape_text(&raw);
        assert!(!safe.chars().any(|c| c != '\n' && is_control(c)), "{safe}");
        assert!(!safe.contains("##["), "{safe}");
        let mut lines = safe.lines();
        let back: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(back, value);
        assert_eq!(lines.next(), Some("[1, 2]"));
        assert_eq!(
            json::escape_text("{\"a\": [1]}\n"),
            Cow::Borrowed("{\"a\": [1]}\n")
        );
        // Layout as serde_json's own.
        let plain = serde_json::json!({"a": [1, {"b": "c"}], "d": "e"});
        assert_eq!(
            json::to_string_pretty(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap()
        );
        assert_eq!(
            json::to_string(&plain).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
    }
}
