//! A spec's regular expression: compiled once, matched in linear time, and cheap to build.
//!
//! A `regex::Regex` is built for long haystacks: literal prefilters, a lazy DFA whose cache is
//! filled as it searches, reverse engines. A spec's regexes mostly match short arguments (file
//! paths, commands, ids) a few times per run; in a pre-commit run of one spec, building the
//! spec's regexes and filling their caches was a fifth of all instructions. So a pattern is
//! matched one of three ways, all with the `regex` crate's own syntax and meaning:
//! - literal text, maybe anchored (`test`, `^ORD-`, `\.rs$`): `str::contains`, `starts_with`,
//!   `ends_with` or equality, with nothing to build;
//! - arguments up to [`SHORT_MAX`] bytes: a `regex-automata` meta regex (the engine inside
//!   `regex`) without its lazy DFA, one-pass DFA or prefilters, which runs the bounded
//!   backtracker (or the PikeVM) on the compiled NFA;
//! - longer arguments: the full `regex::Regex`, built the first time one comes.

use std::sync::{Arc, OnceLock};

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_syntax::ast::{self, Ast};

/// Arguments longer than this (bytes) are matched by the full `regex::Regex`. Kept small: the
/// bounded backtracker covers fewer bytes as the NFA grows (a Unicode class is hundreds of
/// states), and past it the PikeVM costs a few hundred instructions a byte.
pub(crate) const SHORT_MAX: usize = 2 * 1024;

/// A regular expression that serializes as its source text and compiles once, when built or
/// deserialized. Matching is linear-time (no engine here backtracks without bound).
///
/// Clones share the compiled engines and their search caches: a spec that writes one pattern
/// for a thousand expectations holds one program and, per thread that matches it, one cache.
#[derive(Clone)]
pub struct Pattern {
    source: Arc<str>,
    engine: Arc<Engine>,
}

enum Engine {
    /// Literal text, maybe anchored at the start (`^`) or the end (`$`) of the argument.
    Literal {
        text: String,
        start: bool,
        end: bool,
    },
    /// The NFA engines for short arguments, and the full regex, built when an argument longer
    /// than [`SHORT_MAX`] comes (`None` if it could not be: the NFA engines then match that
    /// argument too).
    Regex {
        short: meta::Regex,
        full: OnceLock<Option<regex::Regex>>,
        limits: Limits,
    },
    /// The full regex for every argument (a pattern the NFA engines alone would not build).
    Full(regex::Regex, Limits),
}

/// The most bytes one pattern's compiled program may take (the `regex` crate's `size_limit`,
/// and the NFA size limit of the short-argument engines), and the most its lazy DFA may cache
/// (`dfa_size_limit`). Past it, [`Pattern::new`] fails with `regex::Error::CompiledTooBig`.
pub(crate) const SIZE_LIMIT: usize = 1 << 22;

/// How large a pattern may compile: its program, and each lazy DFA cache of the full regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes the program may take (the `regex` crate's `size_limit`, and the NFA size
    /// limit of the short-argument engines).
    pub program: usize,
    /// The most bytes each lazy DFA of the full regex may cache (`dfa_size_limit`).
    pub dfa: usize,
}

impl Limits {
    /// A spec's regular expressions: [`SIZE_LIMIT`] for both.
    pub const SPEC: Limits = Limits {
        program: SIZE_LIMIT,
        dfa: SIZE_LIMIT,
    };
}

/// The `regex` crate's regex, within `limits`.
fn full(source: &str, limits: Limits) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(source)
        .size_limit(limits.program)
        .dfa_size_limit(limits.dfa)
        .build()
}

/// A meta regex configuration for short haystacks: the bounded backtracker and the PikeVM on
/// the NFA, without the lazy DFA, the one-pass DFA and prefilters (which cost more to build
/// than they save on a few short searches), and no capture groups beyond the match. The pool
/// of search caches is sized here, not from the machine's parallelism (whose query reads
/// cgroup files at start-up); more threads than that share it by making spare caches.
pub(crate) fn short_config() -> meta::Config {
    meta::Config::new()
        .hybrid(false)
        .dfa(false)
        .onepass(false)
        .auto_prefilter(false)
        .which_captures(WhichCaptures::Implicit)
        .pool_capacity(16)
}

/// The NFA engines of `source` ([`short_config`]). The syntax settings are `regex`'s defaults
/// (Unicode, UTF-8, nesting limit 250).
fn short(source: &str, limits: Limits) -> Option<meta::Regex> {
    meta::Builder::new()
        .configure(short_config().nfa_size_limit(Some(limits.program)))
        .build(source)
        .ok()
}

impl Pattern {
    /// Compile `source` within [`Limits::SPEC`]. The error is the `regex` crate's, which names
    /// the offending position.
    pub fn new(source: &str) -> Result<Self, regex::Error> {
        Pattern::with_limits(source, Limits::SPEC)
    }

    /// Compile `source` within `limits` (a schema's `pattern` gets smaller ones than a spec's
    /// regex).
    pub fn with_limits(source: &str, limits: Limits) -> Result<Self, regex::Error> {
        let engine = match literal(source) {
            Some((text, start, end)) => Engine::Literal { text, start, end },
            None => match short(source, limits) {
                Some(short) => Engine::Regex {
                    short,
                    full: OnceLock::new(),
                    limits,
                },
                None => Engine::Full(full(source, limits)?, limits),
            },
        };
        Ok(Pattern {
            source: source.into(),
            engine: Arc::new(engine),
        })
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the expression matches somewhere in `haystack`.
    pub fn is_match(&self, haystack: &str) -> bool {
        match &*self.engine {
            Engine::Literal { text, start, end } => match (start, end) {
                (false, false) => haystack.contains(text.as_str()),
                (true, false) => haystack.starts_with(text.as_str()),
                (false, true) => haystack.ends_with(text.as_str()),
                (true, true) => haystack == text,
            },
            Engine::Regex {
                short,
                full: f,
                limits,
            } => {
                if haystack.len() > SHORT_MAX {
                    if let Some(re) = f.get_or_init(|| full(&self.source, *limits).ok()) {
                        return re.is_match(haystack);
                    }
                }
                short.is_match(haystack)
            }
            Engine::Full(re, _) => re.is_match(haystack),
        }
    }

    /// Bytes the compiled pattern holds: its program (the NFA of the short-argument engines;
    /// for a pattern compiled by the full regex only, its size limit), or its literal text.
    /// In use it holds more: see [`Pattern::footprint`].
    pub fn memory_usage(&self) -> usize {
        match &*self.engine {
            Engine::Literal { text, .. } => text.len(),
            Engine::Regex { short, .. } => short.memory_usage(),
            Engine::Full(_, limits) => limits.program,
        }
    }

    /// The most bytes the pattern holds once one thread has matched it against arguments of
    /// every length: the program ([`Pattern::memory_usage`]), a search cache of the
    /// short-argument engines (about the program's size again), and, built for the first
    /// argument over [`SHORT_MAX`] bytes, the full regex (its forward and reverse programs,
    /// about three times the program, and two lazy DFA caches of at most `Limits::dfa`).
    /// Each further thread that matches it adds a search cache. Literal text holds itself.
    pub fn footprint(&self) -> usize {
        match &*self.engine {
            Engine::Literal { text, .. } => text.len(),
            Engine::Regex { short, limits, .. } => {
                let program = short.memory_usage();
                program
                    .saturating_mul(5)
                    .saturating_add(limits.dfa.saturating_mul(2))
            }
            Engine::Full(_, limits) => limits.program.saturating_add(limits.dfa.saturating_mul(2)),
        }
    }

    /// Whether the pattern is matched as literal text.
    pub fn is_literal(&self) -> bool {
        matches!(*self.engine, Engine::Literal { .. })
    }
}

/// `source` as literal text, maybe anchored (`^` and `$` without flags are the argument's
/// start and end): the text and whether it is anchored at the start and at the end.
fn literal(source: &str) -> Option<(String, bool, bool)> {
    let ast = ast::parse::ParserBuilder::new()
        .nest_limit(8)
        .build()
        .parse(source)
        .ok()?;
    let items = match &ast {
        Ast::Concat(c) => c.asts.as_slice(),
        one => std::slice::from_ref(one),
    };
    let anchor = |a: Option<&Ast>, kind: ast::AssertionKind| matches!(a, Some(Ast::Assertion(x)) if x.kind == kind);
    let start = anchor(items.first(), ast::AssertionKind::StartLine);
    let end = items.len() > usize::from(start) && anchor(items.last(), ast::AssertionKind::EndLine);
    let mut text = String::new();
    for item in &items[usize::from(start)..items.len() - usize::from(end)] {
        match item {
            Ast::Literal(l) => text.push(l.c),
            Ast::Empty(_) => {}
            _ => return None,
        }
    }
    Some((text, start, end))
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pattern({:?})", self.source)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl serde::Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.source)
    }
}

impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let source = String::deserialize(d)?;
        Pattern::new(&source).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn memory_usage_counts_the_program_and_the_limit_holds() {
        let w = Pattern::new(r"\w{200}").unwrap();
        assert!(w.memory_usage() > 1 << 20, "{}", w.memory_usage());
        assert!(Pattern::new("abc").unwrap().memory_usage() == 3);
        assert!(matches!(
            Pattern::new(r"\w{2000}"),
            Err(regex::Error::CompiledTooBig(SIZE_LIMIT))
        ));
    }

    #[test]
    fn pattern_round_trips_as_its_source() {
        let p = Pattern::new("^ORD-[0-9]+$").unwrap();
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#""^ORD-[0-9]+$""#);
        let back: Pattern = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert!(back.is_match("ORD-42"));
        assert!(serde_json::from_str::<Pattern>(r#""(unclosed""#).is_err());
    }

    #[test]
    fn literal_patterns_match_as_the_regex_crate_does() {
        let haystacks = [
            "",
            "test",
            "a test run",
            "testing",
            "pytest",
            "te\nst",
            "^test$",
            "é.py",
        ];
        for p in [
            "test",
            "^test",
            "test$",
            "^test$",
            "",
            "^",
            "$",
            "^$",
            r"\.py",
            r"é\.py$",
            r"\^test\$",
            "^^test",
            "test$$",
            "(?m)^test$",
            "t.st",
            "te|st",
            "(?i)TEST",
        ] {
            let ours = Pattern::new(p).unwrap();
            let re = regex::Regex::new(p).unwrap();
            for h in haystacks {
                assert_eq!(ours.is_match(h), re.is_match(h), "{p} on {h:?}");
            }
        }
        assert!(matches!(
            *Pattern::new("^ab$").unwrap().engine,
            Engine::Literal {
                start: true,
                end: true,
                ..
            }
        ));
        for p in [
            "(?i)test",
            "te.t",
            r"\btest",
            "(?m)^test$",
            "^^test",
            "test{2}",
        ] {
            assert!(!Pattern::new(p).unwrap().is_literal(), "{p}");
        }
    }

    #[test]
    fn invalid_patterns_keep_the_regex_crates_error() {
        for p in [
            "(unclosed",
            "a{2,1}",
            r"\q",
            "[z-a]",
            "(?P<1>x)",
            "*",
            r"\p{Nope}",
        ] {
            let ours = Pattern::new(p).err().map(|e| e.to_string());
            let theirs = regex::Regex::new(p).err().map(|e| e.to_string());
            assert!(ours.is_some(), "{p}");
            assert_eq!(ours, theirs, "{p}");
        }
    }

    #[test]
    fn long_arguments_are_matched_by_the_full_crate() {
        let p = Pattern::new(r"\.(rs|py)$").unwrap();
        assert!(!p.is_literal());
        let long = format!("{}main.rs", "é/".repeat(SHORT_MAX));
        assert!(p.is_match(&long));
        assert!(!p.is_match(&format!("{long}x")));
        assert!(p.is_match("src/lib.rs"));
        assert!(!p.is_match("src/lib.rsx"));
    }

    proptest! {
        /// Every engine agrees with `regex::Regex`, Unicode classes, case folding and word
        /// boundaries included, on text with multi-byte characters, new lines and case
        /// variants (`K` folds with the Kelvin sign), short and long.
        #[test]
        fn every_engine_agrees_with_the_regex_crate(
            pattern in r"(\^|\$|[abé.]|\[\^?[a-cé]\]|\(\?[imsx]\)|\\[dwsb]|[*+?]|\{1,2\}|\||\(|\)){0,8}",
            haystack in "[abcABCé \n.K\u{212a}_1]{0,12}",
        ) {
            match (Pattern::new(&pattern), regex::Regex::new(&pattern)) {
                (Ok(p), Ok(re)) => {
                    prop_assert_eq!(p.is_match(&haystack), re.is_match(&haystack), "{} on {:?}", pattern, haystack);
                    let long = format!("{}{haystack}", " ".repeat(SHORT_MAX));
                    prop_assert_eq!(p.is_match(&long), re.is_match(&long), "{} on a long argument", pattern);
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "{}: {:?} against {:?}", pattern, a.err(), b.err()),
            }
        }
    }
}
