//! The regular expressions of a transcript's schemas (`pattern` values, `patternProperties`
//! names), compiled once per transcript within one budget.
//!
//! The `jsonschema` crate compiles a schema's patterns itself, each with its own engines and
//! caches, again for every tool whose schema repeats them. Here `pattern` is the crate's custom
//! keyword hook ([`keyword`]): every `pattern` of every schema of a transcript is translated
//! from ECMA-262 as the crate translates it (`jsonschema_regex::to_rust_regex`) and compiled
//! once as a [`Pattern`] (linear time; clones share one program and cache), counted at its
//! [`Pattern::footprint`] against [`MAX_PATTERN_BYTES`]. A `patternProperties` name stays the
//! crate's to compile (it decides which properties the other keywords see), so it is measured
//! the same way ([`Patterns::check_pattern_properties`]) and counted again for each schema that
//! holds it. A pattern that cannot be compiled (look-around, backreferences), is too large, or
//! comes after the budget is spent, leaves only its own keyword unchecked: a `Problem` says
//! where, and the rest of the schema is checked.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

use super::keywords::{self, Inner};
use crate::config::pattern::Limits;
use crate::config::Pattern;

/// The most bytes the patterns of one transcript's schemas may hold together, each counted at
/// its [`Pattern::footprint`] (once per distinct `pattern`; a `patternProperties` name once per
/// schema that holds it, which the `jsonschema` crate compiles for itself).
pub const MAX_PATTERN_BYTES: usize = 64 << 20;

/// The limits of one schema pattern: 1 MiB of program, 64 KiB per lazy DFA cache (the DFA is
/// used on strings over 2 KiB; with a small cache it gives way to the NFA engines sooner).
pub const PATTERN_LIMITS: Limits = Limits {
    program: 1 << 20,
    dfa: 64 << 10,
};

/// The patterns compiling one schema looked up (in order, with what each gave), and how many
/// copies it counted again and their bytes: what that compile took of its transcript's budget.
#[derive(Default)]
pub(super) struct PatternLog {
    looked_up: Vec<(String, Result<Pattern, Why>)>,
    recounts: usize,
    recounted: usize,
}

impl PatternLog {
    /// The bytes of the compiled patterns it holds (each distinct one once).
    pub(super) fn bytes(&self) -> usize {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut bytes = self.recounted;
        for (ecma, found) in &self.looked_up {
            if let Ok(p) = found {
                if seen.insert(ecma) {
                    bytes = bytes.saturating_add(p.footprint());
                }
            }
        }
        bytes
    }
}

/// Why a pattern is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Why {
    /// Syntax the `regex` engine does not run (look-around, backreferences…), with its words.
    Unsupported(String),
    /// Compiles to more than [`PATTERN_LIMITS`].
    TooLarge,
    /// [`MAX_PATTERN_BYTES`] is spent.
    OverBudget,
    /// A keyword whose meaning depends on a `patternProperties` name that is not checked
    /// (`additionalProperties` beside it, `unevaluatedProperties`).
    DependsOnPattern,
}

/// A pattern that is not checked: where it is in its schema, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    /// The JSON pointer of the keyword in the schema (`/properties/code/pattern`).
    pub at: String,
    /// The pattern as written.
    pub pattern: String,
    pub why: Why,
}

/// The compiled patterns of one transcript, and what they hold.
#[derive(Default)]
pub(super) struct Patterns {
    compiled: HashMap<String, Result<Pattern, Why>>,
    /// Bytes counted against [`MAX_PATTERN_BYTES`].
    pub used: usize,
    /// The budget was spent: no more patterns are compiled.
    spent: bool,
    /// Problems found since the last [`Patterns::take_problems`].
    problems: Vec<Problem>,
    /// Every pattern looked up since the last [`Patterns::take_log`], with what it gave.
    looked_up: Vec<(String, Result<Pattern, Why>)>,
    /// Copies counted again since then ([`Patterns::count_again`]), and their bytes.
    recounts: usize,
    recounted: usize,
}

impl Patterns {
    /// The compiled `ecma` pattern (counted the first time), or why there is none.
    fn get(&mut self, ecma: &str) -> Result<Pattern, Why> {
        let found = self.lookup(ecma);
        self.looked_up.push((ecma.to_owned(), found.clone()));
        found
    }

    fn lookup(&mut self, ecma: &str) -> Result<Pattern, Why> {
        if let Some(known) = self.compiled.get(ecma) {
            return known.clone();
        }
        let compiled = if self.spent {
            Err(Why::OverBudget)
        } else {
            compile(ecma).and_then(|p| {
                if self.used.saturating_add(p.footprint()) > MAX_PATTERN_BYTES {
                    self.spent = true;
                    Err(Why::OverBudget)
                } else {
                    self.used += p.footprint();
                    Ok(p)
                }
            })
        };
        self.compiled.insert(ecma.to_owned(), compiled.clone());
        compiled
    }

    /// Count another copy of a compiled pattern (the crate's own, of a `patternProperties`
    /// name), or refuse it past the budget.
    fn count_again(&mut self, p: &Pattern) -> Result<(), Why> {
        if self.spent || self.used.saturating_add(p.footprint()) > MAX_PATTERN_BYTES {
            self.spent = true;
            return Err(Why::OverBudget);
        }
        self.used += p.footprint();
        self.recounts += 1;
        self.recounted += p.footprint();
        Ok(())
    }

    /// What was looked up and counted again since the last call: what compiling one schema
    /// took of the budget, to take it again in another transcript ([`Patterns::adopt`]).
    pub(super) fn take_log(&mut self) -> PatternLog {
        PatternLog {
            looked_up: std::mem::take(&mut self.looked_up),
            recounts: std::mem::take(&mut self.recounts),
            recounted: std::mem::take(&mut self.recounted),
        }
    }

    /// Take `log` (of a schema compiled in another transcript) into this transcript's
    /// patterns and budget as compiling the schema here would, if compiling it here would give
    /// the same patterns: every pattern within the budget, none refused for it. `false` (and
    /// nothing taken) when it would not: the schema is then compiled here.
    pub(super) fn adopt(&mut self, log: &PatternLog) -> bool {
        let mut new: Vec<&(String, Result<Pattern, Why>)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut bytes = log.recounted;
        for entry in &log.looked_up {
            match self.compiled.get(&entry.0) {
                Some(Err(Why::OverBudget)) => return false,
                Some(_) => {}
                None if self.spent => return false,
                None => {
                    if seen.insert(&entry.0) {
                        bytes =
                            bytes.saturating_add(entry.1.as_ref().map_or(0, Pattern::footprint));
                        new.push(entry);
                    }
                }
            }
        }
        // Once the budget is spent, every copy counted again is refused, even one of no bytes
        // (an empty `patternProperties` name).
        if (self.spent && log.recounts > 0) || self.used.saturating_add(bytes) > MAX_PATTERN_BYTES {
            return false;
        }
        for (ecma, found) in new {
            self.compiled.insert(ecma.clone(), found.clone());
        }
        self.used += bytes;
        true
    }

    /// The problems found since the last call.
    pub(super) fn take_problems(&mut self) -> Vec<Problem> {
        std::mem::take(&mut self.problems)
    }

    /// Measure every `patternProperties` name of `schema` (within [`MAX_PATTERN_BYTES`]) and
    /// take out of it those that are not checked, with what depends on them: the
    /// `additionalProperties` beside them (which properties it covers depends on every name),
    /// and, if any was taken out, every `unevaluatedProperties` of the schema.
    pub(super) fn check_pattern_properties(&mut self, schema: &mut Value) {
        // (pointer of the `patternProperties` object, name, problem)
        let mut out: Vec<(String, String)> = Vec::new();
        let mut unevaluated = Vec::new();
        for (at, object) in keywords::schema_objects(schema) {
            if object.contains_key("unevaluatedProperties") {
                unevaluated.push(at.clone());
            }
            let Some(Value::Object(names)) = object.get("patternProperties") else {
                continue;
            };
            for name in names.keys() {
                let problem = match self.get(name) {
                    Ok(p) => match self.count_again(&p) {
                        Ok(()) => continue,
                        Err(why) => why,
                    },
                    Err(why) => why,
                };
                self.problems.push(Problem {
                    at: keywords::pointer(&at, "patternProperties", Inner::Name(name)),
                    pattern: name.clone(),
                    why: problem,
                });
                out.push((at.clone(), name.clone()));
            }
        }
        if out.is_empty() {
            return;
        }
        for (at, name) in &out {
            let Some(Value::Object(object)) = schema.pointer_mut(at) else {
                continue;
            };
            if let Some(Value::Object(names)) = object.get_mut("patternProperties") {
                names.remove(name);
            }
            drop_keyword(object, "additionalProperties", at, &mut self.problems);
        }
        for at in unevaluated {
            if let Some(Value::Object(object)) = schema.pointer_mut(&at) {
                drop_keyword(object, "unevaluatedProperties", &at, &mut self.problems);
            }
        }
    }
}

/// Take `keyword` out of `object` (at `at`), as a problem of its own: what it checks depends
/// on a pattern that is not checked.
fn drop_keyword(
    object: &mut Map<String, Value>,
    keyword: &str,
    at: &str,
    problems: &mut Vec<Problem>,
) {
    if object.remove(keyword).is_some() {
        problems.push(Problem {
            at: keywords::pointer(at, keyword, Inner::Whole),
            pattern: String::new(),
            why: Why::DependsOnPattern,
        });
    }
}

/// `ecma` translated as the `jsonschema` crate translates it, compiled within
/// [`PATTERN_LIMITS`].
fn compile(ecma: &str) -> Result<Pattern, Why> {
    let Ok(rust) = jsonschema_regex::to_rust_regex(ecma) else {
        return Err(Why::Unsupported(
            "it is not an ECMA-262 regular expression the checker can translate".into(),
        ));
    };
    match Pattern::with_limits(&rust, PATTERN_LIMITS) {
        Ok(p) => Ok(p),
        Err(regex::Error::CompiledTooBig(_)) => Err(Why::TooLarge),
        Err(e) => Err(Why::Unsupported(unsupported(&e))),
    }
}

/// The `regex` crate's words for what it does not support, on one line.
fn unsupported(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let words = last.strip_prefix("error: ").unwrap_or(last);
    if words.is_empty() {
        "the checker's regex engine does not run it".into()
    } else {
        super::super::clip(words, 160)
    }
}

/// What the `jsonschema` crate's keyword factory returns: a keyword, or why the schema is not one.
type Built<'a> = Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>>;

/// The `pattern` keyword, on the compiled patterns of `shared`: a pattern that is not checked
/// is recorded as a [`Problem`] and accepts every string.
pub(super) fn keyword(
    shared: Arc<Mutex<Patterns>>,
) -> impl for<'a> Fn(&'a Map<String, Value>, &'a Value, Location) -> Built<'a> + Send + Sync + 'static
{
    move |_, value, at| {
        let Some(ecma) = value.as_str() else {
            return Err(ValidationError::schema("`pattern` must be a string"));
        };
        let mut patterns = shared.lock().unwrap_or_else(PoisonError::into_inner);
        let regex = match patterns.get(ecma) {
            Ok(p) => Some(p),
            Err(why) => {
                patterns.problems.push(Problem {
                    at: at.as_str().to_owned(),
                    pattern: ecma.to_owned(),
                    why,
                });
                None
            }
        };
        Ok(Box::new(PatternKeyword {
            regex,
            ecma: ecma.to_owned(),
        }))
    }
}

/// One `pattern` keyword: a string must match somewhere (ECMA-262's `pattern` is unanchored).
struct PatternKeyword {
    /// `None`: not checked (its problem is reported).
    regex: Option<Pattern>,
    ecma: String,
}

impl<'i> Keyword<'i> for PatternKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        // As the crate words its own `pattern` errors.
        Err(ValidationError::custom(format!(
            "{} does not match \"{}\"",
            super::super::clip(&instance.to_string(), 200),
            self.ecma
        )))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match (&self.regex, instance.as_str()) {
            (Some(re), Some(s)) => re.is_match(s),
            _ => true,
        }
    }
}
