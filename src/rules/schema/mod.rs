//! `schema-violation` and `invalid-schema`: each call's arguments against the JSON Schema the
//! transcript declares for its tool, with the `jsonschema` crate.
//!
//! The validator never reaches outside the schema: it is built `offline()` (a `$ref` to
//! anything but the schema itself is an `invalid-schema` finding, never fetched or read), and
//! with the `jsonschema` crate's default features off (no HTTP or file retriever is compiled
//! in).
//!
//! Everything a schema makes the checker do is budgeted per transcript, and past a budget the
//! user gets a `rule-limit` note at the call where it was reached, never a failed allocation:
//! - a schema is compiled on the first call that needs it and shared by every tool that
//!   declares the same one; a schema larger than [`MAX_SCHEMA_BYTES`] or nested deeper than
//!   [`MAX_SCHEMA_DEPTH`] is not compiled, nor any once the distinct schemas compiled reach
//!   [`MAX_COMPILED_SCHEMA_BYTES`];
//! - a run compiles each distinct schema once ([`SchemaCache`], keyed by the schema's text,
//!   shared by the checks of every transcript of the run): a transcript whose schemas were
//!   compiled by an earlier one takes them, and their patterns, into its own budgets exactly as
//!   compiling them would, and compiles a schema itself whenever compiling it would give another
//!   result there (its pattern budget would run out). The cache holds at most
//!   [`MAX_SHARED_SCHEMA_BYTES`] of schemas and [`MAX_SHARED_PATTERN_BYTES`] of their patterns;
//!   past that, schemas are compiled per transcript;
//! - patterns run on the `regex` engine (linear time), each compiled once per transcript and
//!   all within [`MAX_PATTERN_BYTES`] (`patterns`); a pattern that cannot be compiled leaves
//!   only its own keyword unchecked (`invalid-schema`, naming where it is);
//! - before the crate checks a call, the work it will do, `$ref`s expanded, is counted
//!   (`expansion`): a call past [`MAX_CALL_WORK`] or nesting deeper than
//!   [`MAX_SCHEMA_NESTING`] is not checked, one past [`MAX_DETAILED_WORK`] is checked for
//!   validity alone (the crate's error tree for it would be too large), and the checks of one
//!   transcript stop at [`MAX_TRANSCRIPT_WORK`];
//! - at most [`MAX_ERRORS_PER_CALL`] violations are reported per call.

mod expansion;
mod keywords;
mod patterns;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

pub use expansion::{Over, Work, MAX_SCHEMA_NESTING};
pub use patterns::{MAX_PATTERN_BYTES, PATTERN_LIMITS};

use super::{clip, Capped, RuleFinding, RuleSet, View};
use crate::code::Code;
use crate::source::Span;
use expansion::{Index, Meter};
use patterns::{PatternLog, Patterns, Problem, Why};

/// A declared schema larger than this (compact JSON, in bytes) is not checked.
pub const MAX_SCHEMA_BYTES: usize = 256 << 10;

/// A declared schema nested deeper than this is not checked.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// The distinct schemas compiled for one transcript hold at most this many bytes (compact
/// JSON) together; past it, no more are compiled.
pub const MAX_COMPILED_SCHEMA_BYTES: usize = 4 << 20;

/// At most this much work ([`Work::weight`]) checking one call; past it the call is not
/// checked.
pub const MAX_CALL_WORK: u64 = 1_000_000;

/// A call whose check takes more work than this is checked for validity alone: a failing one
/// gets one finding that does not list the keywords (the crate's error tree would be too
/// large).
pub const MAX_DETAILED_WORK: u64 = 100_000;

/// At most this much work checking the calls of one transcript against their schemas.
pub const MAX_TRANSCRIPT_WORK: u64 = 20_000_000;

/// At most this many violations of one call are reported.
pub const MAX_ERRORS_PER_CALL: usize = 20;

/// A run's [`SchemaCache`] keeps schemas (compact JSON) of at most this many bytes together.
pub const MAX_SHARED_SCHEMA_BYTES: usize = 4 << 20;

/// A run's [`SchemaCache`] keeps schemas whose patterns take at most this many bytes together
/// (each counted as in [`MAX_PATTERN_BYTES`]).
pub const MAX_SHARED_PATTERN_BYTES: usize = 16 << 20;

/// The schemas a run has compiled, by their text (compact JSON), shared by the checks of all
/// its transcripts (on every thread): each distinct schema is compiled once per run instead of
/// once per transcript. Within [`MAX_SHARED_SCHEMA_BYTES`] and [`MAX_SHARED_PATTERN_BYTES`].
#[derive(Default)]
pub struct SchemaCache {
    inner: Mutex<Shared>,
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shared = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("SchemaCache")
            .field("schemas", &shared.by_text.len())
            .field("bytes", &shared.bytes)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Shared {
    by_text: HashMap<String, Arc<Kept>>,
    /// The bytes of the texts kept.
    bytes: usize,
    /// The bytes of their patterns.
    pattern_bytes: usize,
}

/// A schema compiled in some transcript of the run, and what compiling it took of that
/// transcript's pattern budget.
struct Kept {
    compiled: Arc<Compiled>,
    patterns: PatternLog,
}

impl SchemaCache {
    fn get(&self, text: &str) -> Option<Arc<Kept>> {
        let shared = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        shared.by_text.get(text).cloned()
    }

    /// Keep `kept` under `text`, if within the bounds.
    fn keep(&self, text: &str, kept: Kept) {
        let pattern_bytes = kept.patterns.bytes();
        let mut shared = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if shared.by_text.contains_key(text)
            || shared.bytes + text.len() > MAX_SHARED_SCHEMA_BYTES
            || shared.pattern_bytes.saturating_add(pattern_bytes) > MAX_SHARED_PATTERN_BYTES
        {
            return;
        }
        shared.bytes += text.len();
        shared.pattern_bytes += pattern_bytes;
        shared.by_text.insert(text.to_owned(), Arc::new(kept));
    }
}

/// The work of checking `value` against `schema` as the rule counts it before checking (see
/// [`Work`]; `$ref`s expanded), or why the count stopped: past `cap` (in [`Work::weight`]) or
/// nested deeper than [`MAX_SCHEMA_NESTING`]. The rule checks a call only within
/// [`MAX_CALL_WORK`]; the fuzz target `schema_rules` holds the count to be at least what the
/// `jsonschema` crate does.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"properties": {"a": {"type": "string"}}});
/// let work = toolspec::rules::schema_work(&schema, &json!({"a": "x"}), 1_000).unwrap();
/// assert_eq!((work.steps, work.depth), (4, 1));
/// ```
pub fn schema_work(schema: &Value, value: &Value, cap: u64) -> Result<Work, Over> {
    let index = Index::new(schema);
    Meter::new(schema, &index).measure(value, cap).0
}

/// A schema compiled for checking.
struct Compiled {
    /// The schema as checked (OpenAPI type names lowered, patterns that are not checked taken
    /// out).
    schema: Value,
    index: Index,
    validator: jsonschema::Validator,
    /// Its patterns that are not checked.
    problems: Vec<Problem>,
}

/// A schema's compilation: compiled, or why not.
#[derive(Clone)]
enum Outcome {
    Checked(Arc<Compiled>),
    /// Not a schema the crate can check: its words.
    Invalid(String),
    /// A bound reached: the note's words (about the tool named `{tool}`).
    Limit(String),
}

/// The schema checks of one transcript.
struct Checker<'t> {
    set: &'t RuleSet,
    /// The run's compiled schemas.
    cache: &'t SchemaCache,
    by_tool: HashMap<&'t str, Option<Arc<Compiled>>>,
    by_schema: HashMap<String, Outcome>,
    patterns: Arc<Mutex<Patterns>>,
    compiled_bytes: usize,
    work_left: u64,
    violations: Capped,
    invalid: Capped,
    notes: Capped,
    /// Patterns left out for the budget: how many, and the first one's note.
    over_budget: Option<(RuleFinding, usize)>,
}

/// Check every call of a declared tool that has a schema, with the schemas compiled in `cache`
/// (and the schemas compiled here kept there).
pub(super) fn check(set: &RuleSet, t: &View<'_>, cache: &SchemaCache, out: &mut Vec<RuleFinding>) {
    let schemas: HashMap<&str, &Value> = t
        .tools
        .iter()
        .filter_map(|d| d.parameters.as_ref().map(|p| (d.name.as_str(), p)))
        .collect();
    if schemas.is_empty() {
        return;
    }
    let mut c = Checker::new(set, cache);
    for i in 0..t.calls.count() {
        if c.violations.full() && c.violations.dropped > 10 * super::MAX_FINDINGS_PER_RULE {
            // Counting further would only make the note's number larger.
            break;
        }
        let name = t.calls.name(i);
        let Some((&name, &schema)) = schemas.get_key_value(name) else {
            continue;
        };
        let span = t.span(i);
        let Some(compiled) = c.compiled(name, schema, span) else {
            continue;
        };
        if !set.is_on(Code::SchemaViolation) {
            continue;
        }
        let args = t.calls.args(i);
        // Not kept (`null`), or not JSON at all (`invalid-arguments` says so): nothing to check.
        if args.is_null() || args.is_string() {
            continue;
        }
        if !c.check_call(name, &compiled, &args, span, t.text) {
            break;
        }
    }
    c.finish(out);
}

impl<'t> Checker<'t> {
    /// A checker of one transcript: nothing compiled yet, the transcript's whole budget left.
    fn new(set: &'t RuleSet, cache: &'t SchemaCache) -> Self {
        Checker {
            set,
            cache,
            by_tool: HashMap::new(),
            by_schema: HashMap::new(),
            patterns: Arc::default(),
            compiled_bytes: 0,
            work_left: MAX_TRANSCRIPT_WORK,
            violations: Capped::new(Code::SchemaViolation),
            invalid: Capped::new(Code::InvalidSchema),
            notes: Capped::new(Code::RuleLimit),
            over_budget: None,
        }
    }

    /// The compiled schema of tool `name` (compiled on its first call, shared with every tool
    /// that declares the same schema), or `None` when it is not checked (the finding that
    /// says why is made at this first call).
    fn compiled(&mut self, name: &'t str, schema: &Value, span: Span) -> Option<Arc<Compiled>> {
        if let Some(known) = self.by_tool.get(name) {
            return known.clone();
        }
        let outcome = self.outcome(schema);
        let compiled = match outcome {
            Outcome::Checked(c) => {
                for p in &c.problems {
                    self.problem(name, p, span);
                }
                Some(c)
            }
            Outcome::Invalid(why) => {
                if self.set.is_on(Code::InvalidSchema) {
                    self.invalid.push(
                        format!(
                            "the declared schema of `{name}` is not a JSON Schema toolspec can check against: {why}"
                        ),
                        "fix the tool's `parameters` / `input_schema` where the agent defines it; \
                         its calls are not checked against it"
                            .into(),
                        span,
                    );
                }
                None
            }
            Outcome::Limit(words) => {
                self.notes.push(
                    words.replace("{tool}", name),
                    "the arguments of this tool are not checked against its schema".into(),
                    span,
                );
                None
            }
        };
        self.by_tool.insert(name, compiled.clone());
        compiled
    }

    /// Compile `schema`, or take the outcome of the same schema compiled before (in this
    /// transcript, or in another one of the run when that gives what compiling it here would).
    fn outcome(&mut self, schema: &Value) -> Outcome {
        if depth(schema) > MAX_SCHEMA_DEPTH {
            return Outcome::Limit(format!(
                "the schema of `{{tool}}` is nested deeper than {MAX_SCHEMA_DEPTH} levels; it is not checked"
            ));
        }
        let text = serde_json::to_string(schema).unwrap_or_default();
        if text.len() > MAX_SCHEMA_BYTES {
            return Outcome::Limit(format!(
                "the schema of `{{tool}}` is {} bytes, more than the {MAX_SCHEMA_BYTES} checked",
                text.len()
            ));
        }
        if let Some(known) = self.by_schema.get(&text) {
            return known.clone();
        }
        let outcome = if self.compiled_bytes + text.len() > MAX_COMPILED_SCHEMA_BYTES {
            Outcome::Limit(format!(
                "the schema of `{{tool}}` is not compiled: the distinct schemas compiled for this \
                 transcript already take {} KiB, and {} KiB is the most",
                self.compiled_bytes >> 10,
                MAX_COMPILED_SCHEMA_BYTES >> 10
            ))
        } else {
            self.compiled_bytes += text.len();
            match self.cache.get(&text) {
                Some(kept) if lock(&self.patterns).adopt(&kept.patterns) => {
                    Outcome::Checked(Arc::clone(&kept.compiled))
                }
                _ => match self.compile(schema) {
                    Ok((c, log)) => {
                        let c = Arc::new(c);
                        // A pattern refused for this transcript's budget makes a schema
                        // another transcript would compile otherwise: not kept.
                        if !c.problems.iter().any(|p| p.why == Why::OverBudget) {
                            self.cache.keep(
                                &text,
                                Kept {
                                    compiled: Arc::clone(&c),
                                    patterns: log,
                                },
                            );
                        }
                        Outcome::Checked(c)
                    }
                    Err(why) => Outcome::Invalid(why),
                },
            }
        };
        self.by_schema.insert(text, outcome.clone());
        outcome
    }

    /// The validator of `schema` and what compiling it took of the pattern budget, or the
    /// crate's words for why there is none.
    fn compile(&mut self, schema: &Value) -> Result<(Compiled, PatternLog), String> {
        let mut schema = openapi_types(schema);
        {
            let mut patterns = lock(&self.patterns);
            patterns.take_log();
            patterns.check_pattern_properties(&mut schema);
        }
        let built = jsonschema::options()
            .offline()
            .should_validate_formats(true)
            .with_pattern_options(
                jsonschema::PatternOptions::regex()
                    .size_limit(PATTERN_LIMITS.program)
                    .dfa_size_limit(PATTERN_LIMITS.dfa),
            )
            .with_keyword("pattern", patterns::keyword(Arc::clone(&self.patterns)))
            .build(&schema);
        let (problems, log) = {
            let mut patterns = lock(&self.patterns);
            (patterns.take_problems(), patterns.take_log())
        };
        let validator = built.map_err(|e| clip(&e.to_string(), 240))?;
        Ok((
            Compiled {
                index: Index::new(&schema),
                schema,
                validator,
                problems,
            },
            log,
        ))
    }

    /// The finding about a pattern of `name`'s schema that is not checked.
    fn problem(&mut self, name: &str, p: &Problem, span: Span) {
        let what = if p.at.ends_with("/pattern") {
            format!("the `pattern` at `{}` (`{}`)", p.at, clip(&p.pattern, 80))
        } else if p.pattern.is_empty() {
            format!("the keyword at `{}`", p.at)
        } else {
            format!("the `patternProperties` name at `{}`", p.at)
        };
        match &p.why {
            Why::Unsupported(words) => {
                if self.set.is_on(Code::InvalidSchema) {
                    self.invalid.push(
                        format!(
                            "in the schema of `{name}`, {what} is not checked: {words}; the rest of the schema is"
                        ),
                        "schema patterns run on a linear-time engine without look-around or \
                         backreferences; write the pattern without them, or silence this: \
                         `--ignore invalid-schema`"
                            .into(),
                        span,
                    );
                }
            }
            Why::DependsOnPattern => {
                if self.set.is_on(Code::InvalidSchema) {
                    self.invalid.push(
                        format!(
                            "in the schema of `{name}`, {what} is not checked: which properties it \
                             covers depends on a `patternProperties` name that is not checked"
                        ),
                        "see the finding about that name".into(),
                        span,
                    );
                }
            }
            Why::TooLarge => self.notes.push(
                format!(
                    "in the schema of `{name}`, {what} compiles to more than {} KiB; it is not checked",
                    PATTERN_LIMITS.program >> 10
                ),
                "bounded repetitions of Unicode classes (`\\p{L}{20}`, `\\w{200}`) are large; \
                 the rest of the schema is checked"
                    .into(),
                span,
            ),
            Why::OverBudget => match &mut self.over_budget {
                Some((_, more)) => *more += 1,
                None => {
                    self.over_budget = Some((
                        RuleFinding {
                            code: Code::RuleLimit,
                            message: format!(
                                "the patterns of this transcript's schemas reached their budget of \
                                 {} MiB compiled: in the schema of `{name}`, {what}",
                                MAX_PATTERN_BYTES >> 20
                            ),
                            help: "these patterns are not checked; the rest of each schema is"
                                .into(),
                            span,
                        },
                        0,
                    ));
                }
            },
        }
    }

    /// Check one call; `false` once the transcript's budget is spent (the note is made).
    fn check_call(
        &mut self,
        name: &str,
        c: &Compiled,
        args: &Value,
        span: Span,
        text: Option<&[u8]>,
    ) -> bool {
        let cap = MAX_CALL_WORK.min(self.work_left);
        let (measured, spent) = Meter::new(&c.schema, &c.index).measure(args, cap);
        self.work_left = self.work_left.saturating_sub(spent);
        let work = match measured {
            Ok(w) => w,
            Err(Over::Work) if cap < MAX_CALL_WORK => {
                self.notes.push(
                    format!(
                        "the schema checks of this transcript reached their budget of \
                         {MAX_TRANSCRIPT_WORK} steps at this call of `{name}`; it and the later \
                         calls are not checked against their schemas"
                    ),
                    "split the transcript, or silence the rule: `--ignore schema-violation`".into(),
                    span,
                );
                return false;
            }
            Err(over) => {
                let why = match over {
                    Over::Work => format!(
                        "would take more than {MAX_CALL_WORK} steps (its `$ref`s expanded)"
                    ),
                    Over::Nesting => format!(
                        "nests more than {MAX_SCHEMA_NESTING} subschemas deep (its `$ref`s expanded)"
                    ),
                };
                self.notes.push(
                    format!("checking this call of `{name}` against its schema {why}; it is not checked"),
                    "a schema whose `$ref`s branch under `anyOf`/`allOf`/`oneOf` at every level \
                     grows with each level; the other calls are checked"
                        .into(),
                    span,
                );
                return true;
            }
        };
        self.work_left = self.work_left.saturating_sub(work.weight);
        if c.validator.is_valid(args) {
            return true;
        }
        if work.weight > MAX_DETAILED_WORK {
            self.violations.push(
                format!(
                    "`{name}` arguments break its declared schema (which keywords is not worked \
                     out: listing them would take more than {MAX_DETAILED_WORK} steps)"
                ),
                format!(
                    "the transcript declares a JSON Schema for `{name}` and this call breaks it; \
                     silence it: `--ignore schema-violation`"
                ),
                span,
            );
            return true;
        }
        for e in c.validator.iter_errors(args).take(MAX_ERRORS_PER_CALL) {
            let path = e.instance_path().as_str().to_owned();
            let keyword = e.kind().keyword();
            let at = if path.is_empty() {
                "arguments".to_owned()
            } else {
                format!("argument `{}`", clip(&path[1..], 120))
            };
            self.violations.push(
                format!(
                    "`{name}` {at}: {} (schema keyword `{keyword}`)",
                    clip(&e.to_string(), 240)
                ),
                format!(
                    "the transcript declares a JSON Schema for `{name}` and this call breaks it; \
                     tighten the tool description or use strict tool calling, or silence it: \
                     `--ignore schema-violation`"
                ),
                text.and_then(|text| locate_argument(text, span, &path))
                    .unwrap_or(span),
            );
        }
        true
    }

    fn finish(mut self, out: &mut Vec<RuleFinding>) {
        if let Some((mut note, more)) = self.over_budget.take() {
            if more > 0 {
                note.message
                    .push_str(&format!(" and {more} more are not checked"));
            } else {
                note.message.push_str(" is not checked");
            }
            out.push(note);
        }
        self.violations.finish(out);
        self.invalid.finish(out);
        self.notes.finish(out);
    }
}

fn lock(p: &Mutex<Patterns>) -> std::sync::MutexGuard<'_, Patterns> {
    p.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How deeply `v` nests (a scalar is 0), counted without recursion.
fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// The schema with OpenAPI's upper-case type names (`"STRING"`, as Gemini's function
/// declarations write them) in JSON Schema's lower case; any other schema unchanged.
fn openapi_types(schema: &Value) -> Value {
    const TYPES: [&str; 7] = [
        "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
    ];
    let mut out = schema.clone();
    let mut stack = vec![&mut out];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k == "type" {
                        if let Some(s) = x.as_str().filter(|s| TYPES.contains(s)) {
                            *x = Value::String(s.to_ascii_lowercase());
                            continue;
                        }
                    }
                    stack.push(x);
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    out
}

/// Where the argument at JSON pointer `path` is written inside the call at `call`: the last
/// property name of the path, found key by key from the start of the call (written as JSON, or
/// escaped inside a JSON string as OpenAI's `arguments` are). `None` when a key is not found
/// (the call is then the place).
fn locate_argument(text: &[u8], call: Span, path: &str) -> Option<Span> {
    let within = text.get(call.start..call.end)?;
    let mut from = 0;
    let mut found = None;
    for seg in path.split('/').skip(1) {
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            continue; // an array index: the next key is searched from here
        }
        let key = seg.replace("~1", "/").replace("~0", "~");
        let plain = serde_json::to_string(&key).ok()?;
        let escaped = serde_json::to_string(&plain).ok()?;
        let escaped = &escaped[1..escaped.len() - 1];
        let (at, len) = [plain.as_str(), escaped]
            .iter()
            .filter_map(|p| find(&within[from..], p.as_bytes()).map(|at| (at + from, p.len())))
            .min()?;
        from = at + len;
        found = Some(Span::new(call.start + at, call.start + at + len));
    }
    found
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ToolCall, ToolDecl};
    use serde_json::json;

    fn view_check(tools: &[ToolDecl], calls: &[ToolCall], text: &[u8]) -> Vec<RuleFinding> {
        view_check_in(&SchemaCache::default(), tools, calls, text)
    }

    /// [`view_check`] with the schemas a run compiled before.
    fn view_check_in(
        cache: &SchemaCache,
        tools: &[ToolDecl],
        calls: &[ToolCall],
        text: &[u8],
    ) -> Vec<RuleFinding> {
        let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
        let calls = calls.to_vec();
        let t = View {
            calls: &calls,
            spans: &spans,
            tools,
            answered: &[],
            text: Some(text),
        };
        let mut out = Vec::new();
        check(&RuleSet::default(), &t, cache, &mut out);
        out
    }

    fn decl(name: &str, parameters: Value) -> ToolDecl {
        ToolDecl {
            name: name.into(),
            description: None,
            parameters: Some(parameters),
        }
    }

    fn call(name: &str, args: Value, span: Span) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            id: None,
            output: None,
            is_error: false,
            span,
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        }
    }

    #[test]
    fn one_finding_per_violated_keyword_at_the_argument() {
        let text = br#"{"name": "get_weather", "arguments": "{\"city\": 75, \"unit\": \"K\"}"}"#;
        let tools = [decl(
            "get_weather",
            json!({"type": "object", "required": ["city", "day"], "properties": {
                "city": {"type": "string"}, "unit": {"enum": ["C", "F"]}, "day": {"type": "string"}
            }}),
        )];
        let calls = [call(
            "get_weather",
            json!({"city": 75, "unit": "K"}),
            Span::new(0, text.len()),
        )];
        let found = view_check(&tools, &calls, text);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(found.len(), 3, "{messages:#?}");
        let city = found
            .iter()
            .find(|f| f.message.contains("argument `city`"))
            .unwrap();
        assert!(
            city.message.contains("schema keyword `type`"),
            "{messages:?}"
        );
        assert_eq!(
            &text[city.span.start..city.span.end],
            br#"\"city\""#.as_slice()
        );
        assert!(found.iter().any(|f| f.message.contains("`required`")));
        assert!(found.iter().any(|f| f.message.contains("`enum`")));
    }

    #[test]
    fn gemini_types_remote_refs_and_deep_schemas() {
        let tools = [
            decl(
                "g",
                json!({"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}),
            ),
            decl("r", json!({"$ref": "https://example.com/s.json"})),
            decl("d", (0..80).fold(json!({}), |s, _| json!({"not": s}))),
        ];
        let calls = [
            call("g", json!({"n": 1}), Span::new(0, 1)),
            call("g", json!({"n": "x"}), Span::new(1, 2)),
            call("r", json!({}), Span::new(2, 3)),
            call("d", json!({}), Span::new(3, 4)),
        ];
        let found = view_check(&tools, &calls, b"....");
        let codes: Vec<(Code, Span)> = found.iter().map(|f| (f.code, f.span)).collect();
        assert_eq!(
            codes,
            [
                (Code::SchemaViolation, Span::new(1, 2)),
                (Code::InvalidSchema, Span::new(2, 3)),
                (Code::RuleLimit, Span::new(3, 4)),
            ]
        );
    }

    /// `levels` of `anyOf` whose two branches both refer to the next level, for `x`.
    fn dag(levels: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..levels {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"anyOf": [next, next]}));
        }
        defs.insert(format!("d{levels}"), json!({"type": "string"}));
        json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}})
    }

    fn codes(found: &[RuleFinding]) -> Vec<Code> {
        found.iter().map(|f| f.code).collect()
    }

    /// A look-ahead leaves its own keyword unchecked, named by where it is; the rest of the
    /// schema is checked.
    #[test]
    fn an_ecma_look_ahead_voids_only_its_keyword() {
        let tools = [decl(
            "t",
            json!({"type": "object", "properties": {
                "a": {"type": "string", "pattern": "^(?=x)x"},
                "b": {"type": "integer"},
                "c": {"type": "string", "pattern": "^[a-z]+$"}
            }}),
        )];
        let calls = [call(
            "t",
            json!({"a": "y", "b": "no", "c": "A"}),
            Span::new(0, 4),
        )];
        let found = view_check(&tools, &calls, b"....");
        assert_eq!(
            codes(&found),
            [
                Code::SchemaViolation,
                Code::SchemaViolation,
                Code::InvalidSchema
            ],
            "{found:#?}"
        );
        let invalid = &found[2];
        assert!(
            invalid.message.contains("`/properties/a/pattern`"),
            "{}",
            invalid.message
        );
        assert!(
            invalid.message.contains("look-around"),
            "{}",
            invalid.message
        );
        assert!(found.iter().any(|f| f.message.contains("argument `b`")));
        assert!(found
            .iter()
            .any(|f| f.message.contains(r#""A" does not match "^[a-z]+$""#)));
    }

    /// A `patternProperties` name that cannot be compiled is taken out with the
    /// `additionalProperties` beside it (which would otherwise reject what the name covers).
    #[test]
    fn an_unusable_pattern_property_takes_its_neighbour_with_it() {
        let tools = [decl(
            "t",
            json!({"type": "object", "required": ["n"],
                   "patternProperties": {"^(?!x)": {"type": "string"}, "^n$": {"type": "integer"}},
                   "additionalProperties": false}),
        )];
        let calls = [call(
            "t",
            json!({"n": "one", "other": "s"}),
            Span::new(0, 4),
        )];
        let found = view_check(&tools, &calls, b"....");
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            codes(&found),
            [
                Code::SchemaViolation,
                Code::InvalidSchema,
                Code::InvalidSchema
            ],
            "{messages:#?}"
        );
        assert!(messages[0].contains("argument `n`"), "{messages:#?}");
        assert!(messages
            .iter()
            .any(|m| m.contains("`/patternProperties/^(?!x)`")));
        assert!(messages
            .iter()
            .any(|m| m.contains("`/additionalProperties`")));
    }

    /// Tools that declare the same schema share one validator, and a pattern written in many
    /// schemas is compiled and counted once.
    #[test]
    fn schemas_and_patterns_are_compiled_once_per_transcript() {
        let same = json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]{3}$"}}});
        let other = json!({"type": "object", "properties": {"z": {"pattern": "^[a-z]{3}$"}}});
        let set = RuleSet::default();
        let cache = SchemaCache::default();
        let mut c = Checker::new(&set, &cache);
        let a = c.compiled("a", &same, Span::default()).unwrap();
        let b = c.compiled("b", &same, Span::default()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let used = lock(&c.patterns).used;
        assert!(used > 0);
        c.compiled("c", &other, Span::default()).unwrap();
        assert_eq!(lock(&c.patterns).used, used);
        assert_eq!(c.by_schema.len(), 2);
    }

    /// A run compiles each distinct schema once: the next transcript takes the compiled schema,
    /// its patterns counted in that transcript's budget as compiling them there counts them.
    #[test]
    fn a_run_compiles_each_schema_once() {
        let schema = json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]{3}$"}}});
        let set = RuleSet::default();
        let cache = SchemaCache::default();
        let mut first = Checker::new(&set, &cache);
        let a = first.compiled("a", &schema, Span::default()).unwrap();
        let mut next = Checker::new(&set, &cache);
        let b = next.compiled("b", &schema, Span::default()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let used = lock(&first.patterns).used;
        assert!(used > 0);
        assert_eq!(lock(&next.patterns).used, used);
        // Alone (its own cache), the same schema is compiled again.
        let alone = SchemaCache::default();
        let c = Checker::new(&set, &alone)
            .compiled("a", &schema, Span::default())
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
    }

    /// What a transcript's checks find does not depend on what the run compiled before: a
    /// schema compiled by an earlier transcript is compiled again where this transcript's
    /// pattern budget would refuse some of its patterns (the budget spent by a schema declared
    /// before it), with the same findings as a run that never saw it.
    #[test]
    fn findings_do_not_depend_on_the_schemas_compiled_before() {
        let props = |n: usize| -> serde_json::Map<String, Value> {
            (0..n)
                .map(|i| {
                    (
                        format!("p{i}"),
                        json!({"type": "string", "pattern": format!(r"\p{{L}}{{20}}{i}")}),
                    )
                })
                .collect()
        };
        let big = decl("big", json!({"type": "object", "properties": props(200)}));
        let small = decl(
            "small",
            json!({"type": "object", "properties": {"q": {"type": "string", "pattern": r"\p{L}{20}x"}}}),
        );
        let calls = [
            call("big", json!({"p0": "x"}), Span::new(0, 4)),
            call("small", json!({"q": "y"}), Span::new(4, 8)),
        ];
        let cache = SchemaCache::default();
        // An earlier transcript of the run declared `small` alone: compiled and kept.
        let earlier = view_check_in(
            &cache,
            std::slice::from_ref(&small),
            &calls[1..],
            b"........",
        );
        assert!(format!("{cache:?}").contains("schemas: 1"), "{cache:?}");
        assert_eq!(
            earlier,
            view_check(std::slice::from_ref(&small), &calls[1..], b"........")
        );
        // This one spends its budget on `big` first: `small`'s pattern is refused here.
        let tools = [big, small];
        let shared = view_check_in(&cache, &tools, &calls, b"........");
        let alone = view_check(&tools, &calls, b"........");
        assert_eq!(shared, alone);
        assert!(
            alone.iter().any(|f| f.message.contains("budget of 64 MiB")),
            "{alone:#?}"
        );
    }

    /// The same where the schema taken from the run holds a `patternProperties` name of no
    /// bytes (``, matched as literal text): known to this transcript before its budget was
    /// spent, it is still counted again for the schema, and refused once the budget is spent.
    #[test]
    fn an_empty_pattern_property_past_the_budget_is_refused_as_when_compiled() {
        let props: serde_json::Map<String, Value> = (0..200)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "pattern": format!(r"\p{{L}}{{20}}{i}")}),
                )
            })
            .collect();
        let empty = decl(
            "empty",
            json!({"type": "object", "properties": {"e": {"type": "string", "pattern": ""}}}),
        );
        let big = decl("big", json!({"type": "object", "properties": props}));
        let named = decl(
            "named",
            json!({"type": "object", "patternProperties": {"": {"type": "string"}}}),
        );
        let calls = [
            call("empty", json!({"e": "x"}), Span::new(0, 4)),
            call("big", json!({"p0": "x"}), Span::new(4, 8)),
            call("named", json!({"n": 1}), Span::new(8, 12)),
        ];
        let text = b"............";
        let cache = SchemaCache::default();
        let earlier = view_check_in(&cache, std::slice::from_ref(&named), &calls[2..], text);
        assert_eq!(codes(&earlier), [Code::SchemaViolation], "{earlier:#?}");
        assert!(format!("{cache:?}").contains("schemas: 1"), "{cache:?}");
        let tools = [empty, big, named];
        let alone = view_check(&tools, &calls, text);
        // Alone, the name is refused (counted in the budget's note) and `n` is not checked.
        assert!(
            alone.iter().any(|f| f.message.contains("budget of 64 MiB")),
            "{alone:#?}"
        );
        assert!(
            !alone.iter().any(|f| f.span == Span::new(8, 12)),
            "{alone:#?}"
        );
        assert_eq!(view_check_in(&cache, &tools, &calls, text), alone);
    }

    /// Past the budget of compiled patterns, one note counts the patterns left out; the other
    /// keywords of the schema are still checked.
    #[test]
    fn patterns_past_the_budget_are_counted_in_one_note() {
        let props: serde_json::Map<String, Value> = (0..200)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "pattern": format!(r"\p{{L}}{{20}}{i}")}),
                )
            })
            .collect();
        let tools = [decl(
            "t",
            json!({"type": "object", "properties": props, "required": ["zz"]}),
        )];
        let calls = [call("t", json!({"p0": 1}), Span::new(0, 4))];
        let found = view_check(&tools, &calls, b"....");
        let note = found
            .iter()
            .find(|f| f.code == Code::RuleLimit)
            .expect("a note");
        assert!(
            note.message.contains("budget of 64 MiB"),
            "{}",
            note.message
        );
        assert!(
            note.message.contains("more are not checked"),
            "{}",
            note.message
        );
        assert_eq!(
            found.iter().filter(|f| f.code == Code::RuleLimit).count(),
            1
        );
        let violations: Vec<&str> = found
            .iter()
            .filter(|f| f.code == Code::SchemaViolation)
            .map(|f| f.message.as_str())
            .collect();
        assert!(
            violations.iter().any(|m| m.contains("`required`")),
            "{violations:#?}"
        );
        assert!(
            violations.iter().any(|m| m.contains("argument `p0`")),
            "{violations:#?}"
        );
    }

    /// A `$ref` DAG under `anyOf`: the calls whose check would pass the bound get a note each,
    /// the others are checked; a failing call between the detailed and the call bound gets one
    /// finding that lists no keyword.
    #[test]
    fn ref_dags_are_bounded_per_call() {
        let tools = [
            decl("deep", dag(40)),
            decl("mid", dag(12)),
            decl("n", json!({"type": "object", "required": ["k"]})),
        ];
        let calls = [
            call("deep", json!({"x": 1}), Span::new(0, 1)),
            call("n", json!({}), Span::new(1, 2)),
            call("mid", json!({"x": 1}), Span::new(2, 3)),
            call("mid", json!({"x": "ok"}), Span::new(3, 4)),
        ];
        let mut found = view_check(&tools, &calls, b"....");
        found.sort_by_key(|f| f.span);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            codes(&found),
            [
                Code::RuleLimit,
                Code::SchemaViolation,
                Code::SchemaViolation
            ],
            "{messages:#?}"
        );
        assert!(
            messages[0].contains("more than 1000000 steps"),
            "{messages:#?}"
        );
        assert!(messages[1].contains("`required`"), "{messages:#?}");
        assert!(
            messages[2].contains("which keywords is not worked out"),
            "{messages:#?}"
        );
    }

    /// The checks of one transcript stop at its budget, with one note where they stopped.
    #[test]
    fn the_transcript_budget_stops_the_checks_with_a_note() {
        let tools = [decl("mid", dag(12))];
        let calls: Vec<ToolCall> = (0..400)
            .map(|i| call("mid", json!({"x": "ok"}), Span::new(i, i + 1)))
            .collect();
        let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
        let t = View {
            calls: &calls,
            spans: &spans,
            tools: &tools,
            answered: &[],
            text: None,
        };
        let mut found = Vec::new();
        check(&RuleSet::default(), &t, &SchemaCache::default(), &mut found);
        assert_eq!(codes(&found), [Code::RuleLimit], "{found:#?}");
        assert!(
            found[0].message.contains("reached their budget"),
            "{}",
            found[0].message
        );
        assert!(found[0].span.start > 10, "{:?}", found[0].span);
    }
}
