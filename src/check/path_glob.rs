//! Matching a transcript glob against paths, with globset's meaning and without globset's cost.
//!
//! globset translates a glob into a byte regex (`runs/*.jsonl` becomes
//! `(?-u)^/repo/runs/[^/]*\.jsonl$`) and builds a full regex engine for it. A check matches a
//! handful of paths against each glob, and building that engine cost a tenth of a pre-commit
//! run. Most transcript globs use only literal text, `*`, `?` and `**`: their regex is a plain
//! sequence of a few shapes, which [`Simple`] reads back from globset's own translation and
//! matches in one pass over the path. Anything else (classes, alternatives, case folding) is
//! built as a regex with the same syntax settings globset uses, configured for short haystacks.
//! Either way the answer is `globset::GlobMatcher::is_match`'s, on the same bytes of the path.

use std::borrow::Cow;
use std::path::Path;

use globset::Glob;
use regex_automata::meta;
use regex_automata::util::syntax;

/// A compiled glob; see the module documentation.
#[derive(Debug, Clone)]
pub struct PathMatcher {
    engine: Engine,
}

#[derive(Debug, Clone)]
enum Engine {
    Simple(Simple),
    Regex(meta::Regex),
}

impl PathMatcher {
    /// Compile `glob`; an error is the regex builder's message.
    pub fn new(glob: &Glob) -> Result<Self, String> {
        if let Some(simple) = Simple::parse(glob.regex()) {
            return Ok(PathMatcher {
                engine: Engine::Simple(simple),
            });
        }
        let regex = meta::Builder::new()
            .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
            .configure(
                crate::config::pattern::short_config()
                    .utf8_empty(false)
                    .nfa_size_limit(Some(10 << 20)),
            )
            .build(glob.regex())
            .map_err(|e| e.to_string())?;
        Ok(PathMatcher {
            engine: Engine::Regex(regex),
        })
    }

    /// Whether `path` matches, as `globset::GlobMatcher::is_match` answers.
    pub fn is_match(&self, path: &Path) -> bool {
        let bytes = candidate(path);
        match &self.engine {
            Engine::Simple(s) => s.is_match(&bytes),
            Engine::Regex(r) => r.is_match(&*bytes),
        }
    }
}

/// The bytes of `path` globset matches: the path's own bytes on Unix; elsewhere its text (lossy)
/// with every separator as `/`.
fn candidate(path: &Path) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        Cow::Borrowed(path.as_os_str().as_encoded_bytes())
    }
    #[cfg(not(unix))]
    {
        let text = path.to_string_lossy();
        let bytes: Vec<u8> = text
            .bytes()
            .map(|b| {
                if b != b'/' && std::path::is_separator(char::from(b)) {
                    b'/'
                } else {
                    b
                }
            })
            .collect();
        Cow::Owned(bytes)
    }
}

/// One piece of a simple glob regex, matched against bytes (globset's regexes are byte regexes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// One byte.
    Byte(u8),
    /// `[^/]`: one byte other than `/` (`?`).
    One,
    /// `[^/]*`: any bytes within one path segment (`*`).
    Segment,
    /// `.*`: any bytes (`**` at the end, after its `/`).
    Any,
    /// `(?:/|/.*/)`: `/`, or `/` … `/` (`/**/`).
    Folders,
    /// `(?:/?|.*/)`: nothing, `/`, or anything ending in `/` (`**/` at the start).
    LeadingFolders,
}

/// A glob regex made only of [`Tok`]s, anchored at both ends: literal bytes at the start (the
/// spec's folder) and at the end (a file extension), compared directly, and the tokens between.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Simple {
    head: Vec<u8>,
    toks: Vec<Tok>,
    tail: Vec<u8>,
}

impl Simple {
    /// Read globset's regex for a glob back into tokens, or `None` when it uses anything else.
    fn parse(regex: &str) -> Option<Simple> {
        let body = regex.strip_prefix("(?-u)^")?.strip_suffix('$')?;
        let b = body.as_bytes();
        let mut toks = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let rest = &body[i..];
            let (tok, len) = if let Some(after) = rest.strip_prefix('\\') {
                match after.as_bytes().first()? {
                    b'x' => {
                        let hex = after.get(1..3)?;
                        (Tok::Byte(u8::from_str_radix(hex, 16).ok()?), 4)
                    }
                    &c if c.is_ascii_punctuation() => (Tok::Byte(c), 2),
                    _ => return None,
                }
            } else if rest.starts_with("[^/]*") {
                (Tok::Segment, 5)
            } else if rest.starts_with("[^/]") {
                (Tok::One, 4)
            } else if rest.starts_with("(?:/|/.*/)") {
                (Tok::Folders, 10)
            } else if rest.starts_with("(?:/?|.*/)") {
                (Tok::LeadingFolders, 10)
            } else if rest.starts_with(".*") {
                (Tok::Any, 2)
            } else {
                let c = b[i];
                let meta = b"\\.+*?()|[]{}^$#&-~";
                // Whitespace is literal: globset's regexes are not in verbose mode.
                if !c.is_ascii() || meta.contains(&c) {
                    return None;
                }
                (Tok::Byte(c), 1)
            };
            toks.push(tok);
            i += len;
        }
        let byte = |t: &Tok| match *t {
            Tok::Byte(c) => Some(c),
            _ => None,
        };
        let head: Vec<u8> = toks.iter().map_while(byte).collect();
        toks.drain(..head.len());
        let mut tail: Vec<u8> = toks.iter().rev().map_while(byte).collect();
        toks.truncate(toks.len() - tail.len());
        tail.reverse();
        Some(Simple { head, toks, tail })
    }

    /// Whether the whole of `s` matches. Between the literal ends, dynamic programming over
    /// (token, position), one row of positions per token from the last token back: time is
    /// tokens × bytes, never exponential, whatever the stars.
    fn is_match(&self, s: &[u8]) -> bool {
        let Some(s) = s
            .strip_prefix(&self.head[..])
            .and_then(|s| s.strip_suffix(&self.tail[..]))
        else {
            return false;
        };
        let n = s.len();
        // `next[p]`: the tokens after the current one match `s[p..]`.
        let mut next = vec![false; n + 1];
        next[n] = true;
        let mut cur = vec![false; n + 1];
        for tok in self.toks.iter().rev() {
            // `later`: some `q > p` has `s[q] == '/'` and `next[q + 1]` (for the folder forms).
            let mut later = false;
            for p in (0..=n).rev() {
                let at = s.get(p).copied();
                let slash_then = at == Some(b'/') && next[p + 1];
                let in_segment = at.is_some_and(|c| c != b'/');
                let onward = p < n && cur[p + 1];
                cur[p] = match *tok {
                    Tok::Byte(c) => at == Some(c) && next[p + 1],
                    Tok::One => in_segment && next[p + 1],
                    Tok::Segment => next[p] || (in_segment && onward),
                    Tok::Any => next[p] || onward,
                    // `/` then either the rest, or anything up to a later `/` and the rest.
                    Tok::Folders => at == Some(b'/') && (next[p + 1] || later),
                    Tok::LeadingFolders => next[p] || slash_then || later,
                };
                later |= slash_then;
            }
            std::mem::swap(&mut next, &mut cur);
        }
        next[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use globset::GlobBuilder;
    use proptest::prelude::*;

    fn glob(g: &str) -> Glob {
        GlobBuilder::new(g)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .unwrap()
    }

    #[test]
    fn common_transcript_globs_take_the_simple_path() {
        for g in [
            "/w/runs/*.jsonl",
            "/w/runs/**/*.json",
            "/w/**/deep/*.log",
            "/w/runs/**",
            "/w/a?c/x",
            "/w/\\*lit",
            "/w/é/*",
            "/w/a b+c/(1)/*",
        ] {
            let simple = Simple::parse(glob(g).regex());
            assert!(simple.is_some(), "{g}: {}", glob(g).regex());
        }
        for g in ["/w/[a-c]*", "/w/{x,y}/**"] {
            assert!(Simple::parse(glob(g).regex()).is_none(), "{g}");
        }
        assert_eq!(
            Simple::parse(glob("/w/*.j?").regex()).unwrap(),
            Simple {
                head: b"/w/".to_vec(),
                toks: vec![Tok::Segment, Tok::Byte(b'.'), Tok::Byte(b'j'), Tok::One],
                tail: vec![],
            }
        );
        assert_eq!(
            Simple::parse(glob("/w/runs/**/*.jsonl").regex()).unwrap(),
            Simple {
                head: b"/w/runs".to_vec(),
                toks: vec![Tok::Folders, Tok::Segment],
                tail: b".jsonl".to_vec(),
            }
        );
    }

    #[test]
    fn path_matchers_match_as_globsets_matcher_does() {
        let globs = [
            "/w/runs/*.jsonl",
            "/w/runs/**/*.json",
            "/w/a?c/[a-c]*",
            "/w/{x,y}/**",
            "/w/\\*lit",
            "/w/**/deep/*.log",
            "/w/é/*",
            "/w/runs/**",
            "/w/?",
        ];
        let paths = [
            "/w/runs/a.jsonl",
            "/w/runs/sub/a.jsonl",
            "/w/runs/.jsonl",
            "/w/runs/x/y/z.json",
            "/w/runs/z.json",
            "/w/runs",
            "/w/runs/",
            "/w/abc/beta",
            "/w/abc/delta",
            "/w/x/1/2",
            "/w/y",
            "/w/*lit",
            "/w/alit",
            "/w/deep/a.log",
            "/w/1/2/deep/a.log",
            "/w/é/f",
            "/w/e/f",
            "/w/é",
            "/w/runs/a\nb.jsonl",
        ];
        for g in globs {
            let glob = glob(g);
            let theirs = glob.compile_matcher();
            let ours = PathMatcher::new(&glob).unwrap();
            for p in paths {
                let p = Path::new(p);
                assert_eq!(
                    ours.is_match(p),
                    theirs.is_match(p),
                    "{g} on {}",
                    p.display()
                );
            }
            #[cfg(unix)]
            {
                use std::os::unix::ffi::OsStrExt;
                let odd = Path::new(std::ffi::OsStr::from_bytes(b"/w/runs/\xff.jsonl"));
                assert_eq!(ours.is_match(odd), theirs.is_match(odd), "{g} on non-UTF-8");
            }
        }
    }

    /// Glob text from pieces that exercise every token, and some that are not simple.
    fn glob_text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "a", "b", "é", ".", "/", "*", "**", "/**/", "**/", "/**", "?", "\\*", "[ab]", "{a,b}",
            " ", "-",
        ]);
        prop::collection::vec(piece, 0..8).prop_map(|p| format!("/w/{}", p.concat()))
    }

    fn path_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            &b"a"[..],
            b"b",
            "é".as_bytes(),
            b".",
            b"/",
            b"*",
            b"\xff",
            b"ab",
            b" ",
            b"-",
        ]);
        prop::collection::vec(piece, 0..10).prop_map(|p| {
            let mut v = b"/w/".to_vec();
            v.extend(p.concat());
            v
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn simple_matching_agrees_with_globset(g in glob_text(), paths in prop::collection::vec(path_bytes(), 1..6)) {
            let Ok(glob) = GlobBuilder::new(&g).literal_separator(true).backslash_escape(true).build() else {
                return Ok(());
            };
            let theirs = glob.compile_matcher();
            let ours = PathMatcher::new(&glob).unwrap();
            for p in &paths {
                #[cfg(unix)]
                let path = {
                    use std::os::unix::ffi::OsStrExt;
                    Path::new(std::ffi::OsStr::from_bytes(p))
                };
                #[cfg(not(unix))]
                let path = Path::new(std::str::from_utf8(p).unwrap_or("/w/x"));
                prop_assert_eq!(ours.is_match(path), theirs.is_match(path), "{} ({}) on {:?}", g, glob.regex(), String::from_utf8_lossy(p));
            }
        }
    }
}
