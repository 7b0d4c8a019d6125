//! The per-transcript collector readers push calls into: applies the universal argument and
//! output rules, links results to calls, and records where each call sits in the file.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher, RandomState};

use serde_json::Value;

use crate::code::Code;
use crate::json::budget::{self, Refusal};
use crate::json::view::{Json, Kind};
use crate::json::{owned_value, to_value};
use crate::source::Span;

use super::model::{AgentRun, CallTable, Symbols};
use super::spans::{Seg, SpanTree, Step};
use super::{Keep, ReadFinding, ToolCall, ToolDecl};

/// Where a call (or finding) sits: a known span, or a path into the current JSON document.
#[derive(Debug, Clone)]
pub(crate) enum Loc {
    Span(Span),
    Path(Vec<Seg>),
}

/// How a format gives a call's arguments.
pub(crate) enum Args<'a> {
    /// A JSON value; a string is decoded by the argument-string rule.
    Value(&'a Value),
    /// Owned value taken as is (already decoded).
    Owned(Value),
    /// A string, decoded by the argument-string rule.
    Text(&'a str),
    /// Freeform input (custom tools, `apply_patch`): always the raw string.
    Raw(String),
    /// No arguments recorded: `{}`.
    Empty,
}

/// Collects one transcript's calls.
#[derive(Default)]
pub(crate) struct Sink {
    store: Store,
    /// Calls located by a path into the current document, until [`Self::resolve_with`].
    pending: Vec<(usize, Vec<Seg>)>,
    answered: Vec<bool>,
    pub findings: Vec<(ReadFinding, Loc)>,
    pub tools: Vec<ToolDecl>,
    /// The names in `tools`: a repeated declaration is found in one look-up, not by scanning
    /// the list (a file declaring 100 000 tools would cost 10¹⁰ comparisons).
    declared: std::collections::HashSet<String>,
    /// For calls with an id whose arguments are not kept: a fingerprint of the arguments, so
    /// that a repeated call is still told from a reused id (see [`Self::call`]).
    fingerprints: HashMap<usize, u64>,
    /// Built on first use: only formats without ids link results by name.
    by_name: Option<HashMap<String, VecDeque<usize>>>,
    /// When set, every location is this span (one JSONL line = one record).
    pub line: Option<Span>,
    /// Path of the current record inside the document (prepended to paths given to `at`).
    pub prefix: Vec<Seg>,
    /// What to keep of each call (everything by default).
    pub keep: Keep,
    /// User turns seen so far ([`Self::user_turn`]); each call records it.
    turn: u32,
    /// The sub-agent whose calls are being read, as the reader last set it ([`Self::set_agent`]).
    agent: Option<String>,
    /// The last assistant text seen ([`Self::assistant_text`]).
    answer: Option<String>,
    /// The starts of sub-agents, when the format records them ([`Self::agent_run`]): the
    /// agent, the user turns seen before it (0: before the first), the calls before it.
    runs: Option<Vec<(String, u32, usize)>>,
    /// Calls whose arguments are a value of the document (or line) being read that may not
    /// hold a number as its text writes it ([`crate::json::may_be_inexact`]): the call and
    /// the address of that value, until [`Self::keep_written_args`] finds their text in the
    /// document's.
    unwritten: Vec<(usize, usize)>,
}

/// Where the calls are kept: as [`ToolCall`]s (by default), or compact ([`Keep::compact`]).
enum Store {
    Full {
        calls: Vec<ToolCall>,
        by_id: HashMap<String, usize>,
    },
    Compact {
        /// Boxed: a `Full` store (the common one) does not carry a table's size.
        table: Box<CallTable>,
        symbols: Symbols,
        /// Each id seen, by a 64-bit keyed hash (SipHash with this run's random keys): the ids
        /// themselves are not kept. Two ids of a transcript share a hash with probability about
        /// n² / 2⁶⁵ (below 10⁻⁸ for a million calls), and no input can aim at it.
        by_id: HashMap<u64, usize, PassThrough>,
        keys: RandomState,
    },
}

impl Store {
    fn compact() -> Store {
        Store::Compact {
            table: Box::default(),
            symbols: Symbols::default(),
            by_id: HashMap::default(),
            keys: RandomState::new(),
        }
    }

    /// The calls made compact (once a transcript passes [`Keep::compact`]'s limit).
    fn into_compact(self) -> Store {
        let Store::Full { calls, by_id } = self else {
            return self;
        };
        let mut store = Store::compact();
        if let Store::Compact {
            table,
            symbols,
            by_id: hashed,
            keys,
        } = &mut store
        {
            for c in calls {
                let i = table.push(symbols, &c.name, &c.args, c.args_text.as_deref(), c.span);
                table.set_error(i, c.is_error);
                table.set_namespace(i, c.namespace.as_deref());
                table.set_scope(i, c.turn, c.agent.as_deref());
                table.set_output(i, c.output);
            }
            hashed.extend(
                by_id
                    .into_iter()
                    .map(|(id, i)| (keys.hash_one(id.as_str()), i)),
            );
        }
        store
    }
}

impl Default for Store {
    fn default() -> Self {
        Store::Full {
            calls: Vec::new(),
            by_id: HashMap::new(),
        }
    }
}

/// A hasher for keys that are already hashes.
#[derive(Default, Clone, Copy)]
struct PassThrough;

impl BuildHasher for PassThrough {
    type Hasher = PassThroughHasher;
    fn build_hasher(&self) -> PassThroughHasher {
        PassThroughHasher(0)
    }
}

struct PassThroughHasher(u64);

impl Hasher for PassThroughHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// What a finished sink gives: the calls (as [`ToolCall`]s, or compact), the tools, the
/// findings.
pub(crate) struct Finished {
    pub calls: Vec<ToolCall>,
    pub table: Option<CallTable>,
    pub tools: Vec<ToolDecl>,
    pub answered: Vec<bool>,
    pub findings: Vec<ReadFinding>,
    pub turns: Option<u32>,
    pub answer: Option<String>,
    pub agent_runs: Option<Vec<AgentRun>>,
}

impl Sink {
    /// An empty sink that keeps of each call what `keep` asks for.
    pub(crate) fn keeping(keep: &Keep) -> Sink {
        let store = if keep.compact == Some(0) {
            Store::compact()
        } else {
            Store::default()
        };
        Sink {
            keep: keep.clone(),
            store,
            ..Sink::default()
        }
    }

    /// Number of calls recorded.
    pub(crate) fn len(&self) -> usize {
        self.answered.len()
    }

    /// The name of call `i`.
    fn name(&self, i: usize) -> &str {
        match &self.store {
            Store::Full { calls, .. } => calls.get(i).map_or("", |c| c.name.as_str()),
            Store::Compact { table, .. } => table.name(i),
        }
    }

    /// A location for the value at `path` in the current document (or the current line).
    pub(crate) fn at(&self, path: &[Seg]) -> Loc {
        self.at_in(path, &[])
    }

    /// A location for the value at `rest` under `path` (the two joined only when kept).
    pub(crate) fn at_in(&self, path: &[Seg], rest: &[Seg]) -> Loc {
        if let Some(s) = self.line {
            Loc::Span(s)
        } else if self.keep.unplaced {
            // Nobody asks where (see `resolve`): no path is kept.
            Loc::Span(Span::default())
        } else {
            let mut p = Vec::with_capacity(self.prefix.len() + path.len() + rest.len());
            p.extend_from_slice(&self.prefix);
            p.extend_from_slice(path);
            p.extend_from_slice(rest);
            Loc::Path(p)
        }
    }

    /// The call with this id, if one was recorded.
    fn by_id(&self, id: &str) -> Option<usize> {
        match &self.store {
            Store::Full { by_id, .. } => by_id.get(id).copied(),
            Store::Compact { by_id, keys, .. } => by_id.get(&keys.hash_one(id)).copied(),
        }
    }

    /// Whether a call with this id was already recorded.
    pub(crate) fn has_id(&self, id: &str) -> bool {
        self.by_id(id).is_some()
    }

    /// Record a call. A call whose id (not empty) was already seen, with the same name and
    /// arguments, is a duplicate (history resent, resumed session, provider-raw mirror) and is
    /// dropped: returns
    /// the existing call's index. The same id on a different call is a reused id (some
    /// OpenAI-compatible servers number calls per response): a new call, and results with that
    /// id link to it from then on.
    pub(crate) fn call(
        &mut self,
        name: &str,
        args: Args<'_>,
        id: Option<String>,
        loc: Loc,
    ) -> usize {
        // An empty id is no id: it cannot tell a call sent again from another.
        if let Some(id) = id.as_deref().filter(|id| !id.is_empty()) {
            if let Some(i) = self.by_id(id) {
                if self.name(i) == name && self.same_args(i, &args) {
                    return i;
                }
            }
        }
        self.call_unique(name, args, id, loc)
    }

    /// Whether `args` decode to the arguments call `i` holds (true when they were not kept, or
    /// this record gives none: nothing to tell them apart by).
    fn same_args(&self, i: usize, args: &Args<'_>) -> bool {
        if !self.keep.args_of(self.name(i)) {
            return matches!(args, Args::Empty)
                || self.fingerprints.get(&i) == Some(&args_fingerprint(args));
        }
        let parsed;
        let known = match &self.store {
            Store::Full { calls, .. } => match calls.get(i) {
                Some(c) => &c.args,
                None => return false,
            },
            Store::Compact { table, .. } => {
                parsed = table.args(i);
                &parsed
            }
        };
        let text = |s: &str| match parse_args_text(s) {
            Ok(v) => v == *known,
            Err(_) => known.as_str() == Some(s),
        };
        match args {
            Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => text(s),
            Args::Text(s) => text(s),
            Args::Value(v) => *v == known,
            Args::Owned(v) => v == known,
            Args::Raw(s) => known.as_str() == Some(s.as_str()),
            Args::Empty => true,
        }
    }

    /// Record a call without de-duplicating by id.
    pub(crate) fn call_unique(
        &mut self,
        name: &str,
        args: Args<'_>,
        id: Option<String>,
        loc: Loc,
    ) -> usize {
        let i = self.len();
        let (args, fp, exact, at) = self.decode_args(name, args, &loc, id.is_some());
        if let Some(fp) = fp {
            self.fingerprints.insert(i, fp);
        }
        if let Some(at) = at {
            self.unwritten.push((i, at));
        }
        let span = match loc {
            Loc::Span(s) => s,
            Loc::Path(p) => {
                self.pending.push((i, p));
                Span::default()
            }
        };
        if let Some(by_name) = &mut self.by_name {
            by_name.entry(name.to_string()).or_default().push_back(i);
        }
        match &mut self.store {
            Store::Full { calls, by_id } => {
                if let Some(id) = &id {
                    by_id.insert(id.clone(), i);
                }
                calls.push(ToolCall {
                    name: name.to_string(),
                    args: args.into_owned(),
                    id,
                    output: None,
                    is_error: false,
                    span,
                    turn: (self.turn > 0).then_some(self.turn),
                    agent: self.agent.clone(),
                    namespace: None,
                    args_text: exact,
                });
            }
            Store::Compact {
                table,
                symbols,
                by_id,
                keys,
            } => {
                if let Some(id) = &id {
                    by_id.insert(keys.hash_one(id.as_str()), i);
                }
                let i = table.push(symbols, name, &args, exact.as_deref(), span);
                table.set_scope(
                    i,
                    (self.turn > 0).then_some(self.turn),
                    self.agent.as_deref(),
                );
            }
        }
        self.answered.push(false);
        if let (Some(limit), Store::Full { calls, .. }) = (self.keep.compact, &self.store) {
            if calls.len() > limit {
                self.store = std::mem::take(&mut self.store).into_compact();
            }
        }
        i
    }

    /// Where call `i` is: its path while unresolved, else its span.
    fn loc_of(&self, i: usize) -> Loc {
        if let Ok(k) = self.pending.binary_search_by_key(&i, |(j, _)| *j) {
            return Loc::Path(self.pending[k].1.clone());
        }
        Loc::Span(match &self.store {
            Store::Full { calls, .. } => calls.get(i).map(|c| c.span).unwrap_or_default(),
            Store::Compact { table, .. } => table.span(i),
        })
    }

    /// Replace the arguments of call `i`, for formats that give them after the call starts
    /// (streams: the input arrives in later chunks). Same rules and findings as [`Self::call`].
    pub(crate) fn set_args(&mut self, i: usize, args: Args<'_>) {
        if i < self.len() {
            let name = self.name(i).to_owned();
            let loc = self.loc_of(i);
            let (args, fp, exact, at) =
                self.decode_args(&name, args, &loc, self.fingerprints.contains_key(&i));
            if let Some(fp) = fp {
                self.fingerprints.insert(i, fp);
            }
            self.unwritten.retain(|&(j, _)| j != i);
            if let Some(at) = at {
                self.unwritten.push((i, at));
            }
            match &mut self.store {
                Store::Full { calls, .. } => {
                    calls[i].args = args.into_owned();
                    calls[i].args_text = exact;
                }
                Store::Compact { table, .. } => table.set_args(i, &args, exact.as_deref()),
            }
        }
    }

    /// The argument rules (FORMATS §0): a string is decoded (blank → `{}`, not JSON → kept raw
    /// with an `invalid-arguments` finding), values are taken as is.
    ///
    /// Arguments that are not kept read as `null`; with `fingerprint`, the fingerprint of what
    /// they would have been is returned beside. Third: the text of arguments given as JSON
    /// text that their value does not hold as written ([`ToolCall::args_text`]). Fourth: for
    /// arguments given as a value that may not hold a number as written
    /// ([`crate::json::may_be_inexact`]), the value's address, by which
    /// [`Self::keep_written_args`] finds their text.
    fn decode_args<'a>(
        &mut self,
        name: &str,
        args: Args<'a>,
        loc: &Loc,
        fingerprint: bool,
    ) -> (Cow<'a, Value>, Option<u64>, Option<Box<str>>, Option<usize>) {
        if !self.keep.args_of(name) {
            // Not needed: nothing is kept or cloned, but arguments that are not valid JSON are
            // still reported, as when they are kept.
            let text = match &args {
                Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => Some(s.as_str()),
                Args::Text(s) => Some(*s),
                _ => None,
            };
            let fp = match text {
                Some(s) if fingerprint => Some(match parse_args_text(s) {
                    Ok(v) => fingerprint_of(&v),
                    Err(e) => {
                        self.invalid_args(&e, name, loc);
                        fingerprint_of_str(s)
                    }
                }),
                Some(s) => {
                    self.check_args_text(s, name, loc);
                    None
                }
                None => fingerprint.then(|| args_fingerprint(&args)),
            };
            return (Cow::Owned(Value::Null), fp, None, None);
        }
        let exact = exact_args_text;
        let (value, text) = match args {
            Args::Value(Value::String(s)) => {
                let v = self.args_text(s, name, loc);
                let text = exact(s, &v);
                (v, text)
            }
            Args::Text(s) => {
                let v = self.args_text(s, name, loc);
                let text = exact(s, &v);
                (v, text)
            }
            Args::Value(v) => {
                let at = crate::json::may_be_inexact(v).then(|| std::ptr::from_ref(v) as usize);
                return (Cow::Borrowed(v), None, None, at);
            }
            Args::Owned(Value::String(s)) => {
                let v = self.args_text(&s, name, loc);
                let text = exact(&s, &v);
                (v, text)
            }
            Args::Owned(v) => (v, None),
            Args::Raw(s) => (Value::String(s), None),
            Args::Empty => (Value::Object(Default::default()), None),
        };
        (Cow::Owned(value), None, text, None)
    }

    fn args_text(&mut self, s: &str, name: &str, loc: &Loc) -> Value {
        match parse_args_text(s) {
            Ok(v) => v,
            Err(e) => {
                self.invalid_args(&e, name, loc);
                Value::String(s.to_string())
            }
        }
    }

    /// [`Self::args_text`] without keeping the value: only the finding, if any.
    fn check_args_text(&mut self, s: &str, name: &str, loc: &Loc) {
        if s.trim().is_empty() {
            return;
        }
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(s) {
            self.invalid_args(&e, name, loc);
        }
    }

    fn invalid_args(&mut self, e: &serde_json::Error, name: &str, loc: &Loc) {
        self.findings.push((
            ReadFinding {
                code: Code::InvalidArguments.id(),
                message: format!(
                    "arguments of `{name}` are not valid JSON ({e}); kept as the raw string"
                ),
                span: Span::default(),
            },
            loc.clone(),
        ));
    }

    /// Set the result of call `i` (the first result wins; later copies are duplicates). A call
    /// already flagged by [`Self::flag_error`] stays an error.
    pub(crate) fn answer(&mut self, i: usize, output: Option<Value>, is_error: bool) {
        if i < self.len() && !self.answered[i] {
            self.answered[i] = true;
            let output = output.filter(|_| self.keep.output_of(self.name(i)));
            match &mut self.store {
                Store::Full { calls, .. } => {
                    calls[i].output = output;
                    calls[i].is_error |= is_error;
                }
                Store::Compact { table, .. } => {
                    table.set_output(i, output);
                    let was = table.is_error(i);
                    table.set_error(i, was | is_error);
                }
            }
        }
    }

    /// Mark call `i` as failed without answering it: the call record itself says it failed
    /// (`status: "failed"`), and its output may still follow in a later item.
    pub(crate) fn flag_error(&mut self, i: usize) {
        match &mut self.store {
            Store::Full { calls, .. } => {
                if let Some(c) = calls.get_mut(i) {
                    c.is_error = true;
                }
            }
            Store::Compact { table, .. } => table.set_error(i, true),
        }
    }

    /// Record the MCP server (or other namespace) of call `i`'s tool, as the format records it
    /// beside the name ([`ToolCall::namespace`]); an empty one is none.
    pub(crate) fn set_namespace(&mut self, i: usize, namespace: Option<&str>) {
        let namespace = namespace.filter(|n| !n.is_empty());
        match &mut self.store {
            Store::Full { calls, .. } => {
                if let Some(c) = calls.get_mut(i) {
                    c.namespace = namespace.map(str::to_owned);
                }
            }
            Store::Compact { table, .. } => table.set_namespace(i, namespace),
        }
    }

    /// Link a result to the call with this id; false if there is none.
    pub(crate) fn answer_id(&mut self, id: &str, output: Option<Value>, is_error: bool) -> bool {
        self.answer_id_with(id, || output, is_error)
    }

    /// [`Self::answer_id`] with the output made only when it is kept.
    pub(crate) fn answer_id_with(
        &mut self,
        id: &str,
        output: impl FnOnce() -> Option<Value>,
        is_error: bool,
    ) -> bool {
        match self.by_id(id) {
            Some(i) => {
                let wanted = !self.answered.get(i).copied().unwrap_or(true)
                    && self.keep.output_of(self.name(i));
                self.answer(i, if wanted { output() } else { None }, is_error);
                true
            }
            None => false,
        }
    }

    /// Link a result to the oldest unanswered call with this name; false if there is none.
    pub(crate) fn answer_name(
        &mut self,
        name: &str,
        output: Option<Value>,
        is_error: bool,
    ) -> bool {
        if self.by_name.is_none() {
            let mut m: HashMap<String, VecDeque<usize>> = HashMap::new();
            for i in 0..self.len() {
                m.entry(self.name(i).to_owned()).or_default().push_back(i);
            }
            self.by_name = Some(m);
        }
        let Some(q) = self.by_name.as_mut().and_then(|m| m.get_mut(name)) else {
            return false;
        };
        while let Some(&i) = q.front() {
            q.pop_front();
            if self.answered[i] {
                continue;
            }
            self.answer(i, output, is_error);
            return true;
        }
        false
    }

    /// A user message that is a prompt (not a tool result) starts the next turn: calls from
    /// here on belong to it.
    pub(crate) fn user_turn(&mut self) {
        self.turn = self.turn.saturating_add(1);
    }

    /// The turn of the calls read from here on, for formats that number turns themselves
    /// (toolspec's own calls format): `turn` when it is past the current one.
    pub(crate) fn reach_turn(&mut self, turn: u32) {
        self.turn = self.turn.max(turn);
    }

    /// The sub-agent making the calls read from here on (`None`: the main agent).
    pub(crate) fn set_agent(&mut self, agent: Option<&str>) {
        if self.agent.as_deref() != agent {
            self.agent = agent.map(str::to_owned);
        }
    }

    /// The format records when sub-agents start: a transcript without a start says none started
    /// (rather than that it cannot tell).
    pub(crate) fn records_runs(&mut self) {
        self.runs.get_or_insert_with(Vec::new);
    }

    /// Sub-agent `agent` starts here: its calls, if it makes any, are the next ones.
    pub(crate) fn agent_run(&mut self, agent: &str) {
        let at = self.len();
        let turn = self.turn;
        self.runs
            .get_or_insert_with(Vec::new)
            .push((agent.to_owned(), turn, at));
    }

    /// Text the assistant wrote: the final answer is the last such text (empty text is
    /// skipped).
    pub(crate) fn assistant_text(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.answer = Some(text.to_owned());
        }
    }

    /// Add a finding at `loc`.
    pub(crate) fn finding(&mut self, code: Code, message: String, loc: Loc) {
        self.findings.push((
            ReadFinding {
                code: code.id(),
                message,
                span: Span::default(),
            },
            loc,
        ));
    }

    /// Declare a tool (from a format's tool list), skipping repeats by name.
    pub(crate) fn declare<'s, J: Json<'s>>(
        &mut self,
        name: &str,
        description: Option<J>,
        parameters: Option<J>,
    ) {
        if name.is_empty() || !self.declared.insert(name.to_string()) {
            return;
        }
        self.tools.push(ToolDecl {
            name: name.to_string(),
            description: description.and_then(J::as_str).map(str::to_string),
            parameters: parameters.filter(|p| !p.is_null()).map(owned_value),
        });
    }

    /// Resolve path locations against the current document `text` (which starts at file
    /// offset `base`). Calls already located keep their spans.
    pub(crate) fn resolve<'t>(&mut self, text: impl FnOnce() -> &'t [u8], base: usize) {
        if self.keep.unplaced {
            // Nobody asks where: no index of the document is built (nor its text asked for).
            self.pending.clear();
            return;
        }
        let Some(depth) = self.path_depth() else {
            return;
        };
        let text = text();
        let tree = SpanTree::build(text, depth);
        self.resolve_with(&tree, base, Span::new(base, base + text.len()));
    }

    /// Give the calls whose arguments were values of the document `root` that may not hold a
    /// number as written ([`Self::decode_args`]) the text `root`'s JSON text (`text`) writes
    /// them in ([`ToolCall::args_text`]), where that text holds such a number: each value's
    /// place in `root` is found by its address (one visit per node, an explicit stack), then
    /// its span in `text` ([`SpanTree`], to that depth), and the text is kept when it reads
    /// back as the value. Called once a document or line is read, while `root` is alive (an
    /// address is only compared, never followed); arguments the reader made itself are not in
    /// `root` and keep their value only.
    pub(crate) fn keep_written_args<'v, 't>(
        &mut self,
        root: impl FnOnce() -> &'v Value,
        text: impl FnOnce() -> &'t [u8],
    ) {
        if self.unwritten.is_empty() {
            return;
        }
        let mut wanted: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, at) in std::mem::take(&mut self.unwritten) {
            wanted.entry(at).or_default().push(i);
        }
        let mut left = wanted.len();
        let mut found: Vec<(usize, Vec<Step<'v>>)> = Vec::new();
        let mut path: Vec<Step<'v>> = Vec::new();
        let mut stack: Vec<(&'v Value, usize, Option<Step<'v>>)> = vec![(root(), 0, None)];
        while let Some((v, depth, step)) = stack.pop() {
            path.truncate(depth.saturating_sub(1));
            path.extend(step);
            if let Some(calls) = wanted.get(&(std::ptr::from_ref(v) as usize)) {
                found.extend(calls.iter().map(|&i| (i, path.clone())));
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            match v {
                Value::Array(items) => stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(k, x)| (x, depth + 1, Some(Step::I(k)))),
                ),
                Value::Object(members) => stack.extend(
                    members
                        .iter()
                        .map(|(k, x)| (x, depth + 1, Some(Step::K(k.as_str())))),
                ),
                _ => {}
            }
        }
        let Some(depth) = found.iter().map(|(_, p)| p.len()).max() else {
            return;
        };
        let text = text();
        let tree = SpanTree::build(text, depth);
        for (i, p) in found {
            let Some(written) = tree
                .locate_steps(p.iter().copied())
                .and_then(|(s, e)| std::str::from_utf8(text.get(s..e)?).ok())
                .filter(|t| crate::json::inexact_in_value(t))
            else {
                continue;
            };
            match &mut self.store {
                Store::Full { calls, .. } => {
                    if let Some(c) = calls.get_mut(i) {
                        if parse_args_text(written).is_ok_and(|v| v == c.args) {
                            c.args_text = Some(written.into());
                        }
                    }
                }
                Store::Compact { table, .. } => {
                    let args = table.args(i);
                    if parse_args_text(written).is_ok_and(|v| v == args) {
                        table.set_args(i, &args, Some(written));
                    }
                }
            }
        }
    }

    /// Drop what [`Self::keep_written_args`] would look for, where the document's text is not
    /// at hand (its values are about to go, and an address must not be looked for among the
    /// values of another).
    pub(crate) fn forget_unwritten(&mut self) {
        self.unwritten.clear();
    }

    /// The longest path still to resolve, if any.
    pub(crate) fn path_depth(&self) -> Option<usize> {
        let calls = self.pending.iter().map(|(_, p)| p.len());
        let findings = self.findings.iter().filter_map(|(_, l)| match l {
            Loc::Path(p) => Some(p.len()),
            Loc::Span(_) => None,
        });
        calls.chain(findings).max()
    }

    /// Resolve path locations with an index built once for the document (offsets relative to
    /// file offset `base`; unresolvable paths get `whole`).
    pub(crate) fn resolve_with(&mut self, tree: &SpanTree<'_>, base: usize, whole: Span) {
        let place = |p: &[Seg]| {
            tree.locate(p)
                .map_or(whole, |(s, e)| Span::new(base + s, base + e))
        };
        for (i, p) in std::mem::take(&mut self.pending) {
            let span = place(&p);
            match &mut self.store {
                Store::Full { calls, .. } => {
                    if let Some(c) = calls.get_mut(i) {
                        c.span = span;
                    }
                }
                Store::Compact { table, .. } => table.set_span(i, span),
            }
        }
        for (_, l) in &mut self.findings {
            if let Loc::Path(p) = l {
                *l = Loc::Span(place(p));
            }
        }
    }

    /// Finish: the calls and findings with their spans (call `resolve` first for documents).
    pub(crate) fn finish(self) -> Finished {
        let findings = self
            .findings
            .into_iter()
            .map(|(mut f, l)| {
                if let Loc::Span(s) = l {
                    f.span = s;
                }
                f
            })
            .collect();
        let turns = (self.turn > 0).then_some(self.turn);
        let (mut calls, table) = match self.store {
            Store::Full { calls, .. } => (calls, None),
            Store::Compact { mut table, .. } => {
                table.shrink_to_fit();
                if turns.is_some() {
                    // Calls before the first user message belong to the opening turn.
                    for i in 0..table.len() {
                        if table.turn(i).is_none() {
                            let agent = table.agent(i).map(str::to_owned);
                            table.set_scope(i, Some(1), agent.as_deref());
                        }
                    }
                }
                (Vec::new(), Some(*table))
            }
        };
        if turns.is_some() {
            for c in &mut calls {
                c.turn.get_or_insert(1);
            }
        }
        Finished {
            calls,
            table,
            tools: self.tools,
            answered: self.answered,
            findings,
            turns,
            answer: self.answer,
            // A run before the first user message belongs to the opening turn, as calls do.
            agent_runs: self.runs.map(|runs| {
                runs.into_iter()
                    .map(|(agent, turn, first_call)| AgentRun {
                        agent,
                        turn: turns.map(|_| turn.max(1)),
                        first_call,
                    })
                    .collect()
            }),
        }
    }
}

/// The argument-string rule: blank → `{}`, valid JSON → the value, else an error.
/// The fingerprint of the arguments a call would keep (the argument rules of
/// [`Sink::decode_args`], without their findings).
fn args_fingerprint(args: &Args<'_>) -> u64 {
    match args {
        Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => text_fingerprint(s),
        Args::Text(s) => text_fingerprint(s),
        Args::Value(v) => fingerprint_of(v),
        Args::Owned(v) => fingerprint_of(v),
        Args::Raw(s) => fingerprint_of_str(s),
        Args::Empty => fingerprint_of(&Value::Object(Default::default())),
    }
}

/// A 64-bit fingerprint of a JSON value, equal for values serde_json calls equal (objects
/// compared as maps, whatever their members' order).
fn fingerprint_of(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    fn hash_of(f: impl FnOnce(&mut std::collections::hash_map::DefaultHasher)) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f(&mut h);
        h.finish()
    }
    match v {
        Value::Null => hash_of(|h| 0u8.hash(h)),
        Value::Bool(b) => hash_of(|h| (1u8, b).hash(h)),
        Value::Number(n) => hash_of(|h| (2u8, n).hash(h)),
        Value::String(s) => fingerprint_of_str(s),
        Value::Array(items) => hash_of(|h| {
            4u8.hash(h);
            for item in items {
                fingerprint_of(item).hash(h);
            }
        }),
        // Member order does not count: the members' hashes are summed.
        Value::Object(members) => {
            let sum = members.iter().fold(0u64, |acc, (k, v)| {
                acc.wrapping_add(hash_of(|h| (k, fingerprint_of(v)).hash(h)))
            });
            hash_of(|h| (5u8, sum, members.len()).hash(h))
        }
    }
}

/// The fingerprint of an argument string, decoded by the argument-string rule.
fn text_fingerprint(s: &str) -> u64 {
    match parse_args_text(s) {
        Ok(v) => fingerprint_of(&v),
        Err(_) => fingerprint_of_str(s),
    }
}

fn fingerprint_of_str(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (3u8, s).hash(&mut h);
    h.finish()
}

/// The text of arguments written as JSON text, where their value `v` (as parsed) does not give
/// it back as written ([`ToolCall::args_text`]); `None` for text kept as a string.
pub(crate) fn exact_args_text(s: &str, v: &Value) -> Option<Box<str>> {
    (!v.is_string() && crate::json::inexact_in_value(s)).then(|| s.into())
}

/// Arguments written as JSON text, parsed (blank → `{}`) within the budget of a parsed value:
/// past it, an error that keeps them as the raw string they are.
pub(crate) fn parse_args_text(s: &str) -> Result<Value, serde_json::Error> {
    if s.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    budget::from_str(s, super::PARSED_BUDGET).map_err(|e| match e {
        Refusal::Json(e) => e,
        Refusal::TooLarge { .. } => serde::de::Error::custom(format!(
            "not parsed: they would take more than {} MiB of memory",
            super::PARSED_BUDGET >> 20
        )),
    })
}

/// The output rule: strings verbatim; a non-empty list made only of text blocks → the texts
/// joined with `"\n"`; anything else as JSON.
pub(crate) fn norm_output<'s, J: Json<'s>>(v: J) -> Value {
    joined_text(v).unwrap_or_else(|| owned_value(v))
}

/// [`norm_output`] of a value owned (not copied when kept as is).
pub(crate) fn norm_output_owned(v: Value) -> Value {
    joined_text(&v).unwrap_or(v)
}

/// A non-empty list made only of text blocks: the texts joined with `"\n"`.
fn joined_text<'s, J: Json<'s>>(v: J) -> Option<Value> {
    let items = v.as_items()?;
    if items.len() == 0 || !items.clone().all(is_text_block) {
        return None;
    }
    let texts: Vec<&str> = items.filter_map(|b| b.str_of("text")).collect();
    Some(Value::String(texts.join("\n")))
}

fn is_text_block<'s, J: Json<'s>>(b: J) -> bool {
    matches!(
        b.str_of("type"),
        Some("text" | "input_text" | "output_text")
    ) && b.get("text").is_some_and(J::is_str)
}

/// The text of a message's `content`: a string, or the text blocks of a list joined with
/// `"\n"` (other blocks skipped); `None` when it holds no text.
pub(crate) fn content_text<'s, J: Json<'s>>(content: Option<J>) -> Option<String> {
    let content = content?;
    match content.kind() {
        Kind::Str(s) => Some(s.to_string()),
        Kind::Arr => {
            let texts: Vec<&str> = content
                .items()
                .filter(|b| matches!(b.str_of("type"), Some("text" | "output_text")))
                .filter_map(|b| b.str_of("text"))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// Whether a user message's `content` is a prompt: a string, or a list with some block that
/// is not a tool result.
pub(crate) fn is_prompt<'s, J: Json<'s>>(content: Option<J>) -> bool {
    let Some(content) = content else {
        return false;
    };
    match content.kind() {
        Kind::Str(_) => true,
        Kind::Arr => content
            .items()
            .any(|b| !b.str_of("type").is_some_and(|t| t.ends_with("tool_result"))),
        _ => false,
    }
}

impl<'a> Args<'a> {
    /// Arguments given as a JSON value: a serde_json `Value` is borrowed, a string of another
    /// view is decoded by the argument-string rule, and other values are copied.
    pub(crate) fn of<J: Json<'a>>(v: J) -> Args<'a> {
        match (v.as_value(), v.as_str()) {
            (Some(v), _) => Args::Value(v),
            (None, Some(s)) => Args::Text(s),
            (None, None) => Args::Owned(to_value(v)),
        }
    }
}

/// A string field of an object.
pub(crate) fn s<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    field(v, key).and_then(Value::as_str)
}

/// A JSON value or object whose members [`field`] looks up.
pub(crate) trait Members {
    /// The members, `None` for a value that is not an object.
    fn members(&self) -> Option<&serde_json::Map<String, Value>>;
}

impl Members for Value {
    fn members(&self) -> Option<&serde_json::Map<String, Value>> {
        self.as_object()
    }
}

impl Members for serde_json::Map<String, Value> {
    fn members(&self) -> Option<&serde_json::Map<String, Value>> {
        Some(self)
    }
}

impl<T: Members + ?Sized> Members for &T {
    fn members(&self) -> Option<&serde_json::Map<String, Value>> {
        (**self).members()
    }
}

/// Member `key` of `v` when `v` is an object (`None` otherwise): what `get(key)` gives, found
/// as [`crate::json::view::member`] finds it.
pub(crate) fn field<'v, T: Members + ?Sized>(v: &'v T, key: &str) -> Option<&'v Value> {
    crate::json::view::member(v.members()?, key)
}

/// An id as a string: strings as is, numbers in decimal.
pub(crate) fn id_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An array field (empty slice if absent or not an array).
pub(crate) fn arr<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    field(v, key)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::view::SCAN_FIELDS;

    proptest::proptest! {
        /// `field` finds what `Value::get` finds, in objects of every size around the scan
        /// limit, for keys present and absent, and in values that are not objects.
        #[test]
        fn field_is_get(
            keys in proptest::collection::vec("[a-c]{0,3}", 0..2 * SCAN_FIELDS),
            key in "[a-c]{0,3}",
            array in proptest::bool::ANY,
        ) {
            let map: serde_json::Map<String, Value> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), Value::from(i)))
                .collect();
            let v = if array {
                Value::Array(vec![Value::Object(map)])
            } else {
                Value::Object(map)
            };
            proptest::prop_assert_eq!(field(&v, &key), v.get(key.as_str()));
        }
    }
    use serde_json::json;

    /// Each call records the turn and agent current when it is read; calls before the first
    /// user prompt are in turn 1; a transcript without prompts records no turns. Full and
    /// compact sinks agree.
    #[test]
    fn calls_record_their_turn_and_agent() {
        let run = |keep: &Keep, prompts: bool| {
            let mut s = Sink::keeping(keep);
            let at = |o| Loc::Span(Span::point(o));
            s.call("boot", Args::Empty, None, at(0));
            if prompts {
                s.user_turn();
            }
            s.call("a", Args::Empty, None, at(1));
            s.set_agent(Some("researcher"));
            s.call("b", Args::Empty, None, at(2));
            s.set_agent(None);
            s.assistant_text("first");
            if prompts {
                s.user_turn();
            }
            s.call("c", Args::Empty, None, at(3));
            s.assistant_text("  ");
            s.assistant_text("the answer");
            s.finish()
        };
        for prompts in [true, false] {
            let full = run(&Keep::default(), prompts);
            let compact = run(
                &Keep {
                    compact: Some(0),
                    ..Keep::default()
                },
                prompts,
            );
            let seen: Vec<(Option<u32>, Option<&str>)> = full
                .calls
                .iter()
                .map(|c| (c.turn, c.agent.as_deref()))
                .collect();
            let turns = |t: [u32; 4]| t.map(|t| prompts.then_some(t));
            let [t0, t1, t2, t3] = turns([1, 1, 1, 2]);
            assert_eq!(
                seen,
                [(t0, None), (t1, None), (t2, Some("researcher")), (t3, None)]
            );
            assert_eq!(full.turns, prompts.then_some(2));
            assert_eq!(full.answer.as_deref(), Some("the answer"));
            let table = compact.table.expect("compact");
            let mut want = full.calls.clone();
            for c in &mut want {
                c.id = None;
            }
            assert_eq!(table.to_calls(), want);
            assert_eq!((compact.turns, compact.answer), (full.turns, full.answer));
        }
    }

    /// Arguments written as text that their value does not hold as written keep their text,
    /// in a full sink and in a compact one; other arguments keep none.
    #[test]
    fn inexact_argument_text_is_kept_as_written() {
        let big = r#"{"n": 18446744073709551617, "z": -0}"#;
        for compact in [None, Some(0)] {
            let mut s = Sink::keeping(&Keep {
                compact,
                ..Keep::default()
            });
            let at = |o| Loc::Span(Span::point(o));
            s.call("a", Args::Text(big), None, at(0));
            s.call("b", Args::Value(&json!(big)), None, at(1));
            s.call("c", Args::Text(r#"{"n": 1}"#), None, at(2));
            s.call("d", Args::Value(&json!({"n": 1})), None, at(3));
            let i = s.call("e", Args::Empty, None, at(4));
            s.set_args(i, Args::Owned(json!(big)));
            let f = s.finish();
            let calls = match f.table {
                Some(t) => t.to_calls(),
                None => f.calls,
            };
            let texts: Vec<Option<&str>> = calls.iter().map(|c| c.args_text.as_deref()).collect();
            assert_eq!(
                texts,
                [Some(big), Some(big), None, None, Some(big)],
                "compact {compact:?}"
            );
            // The value is serde_json's reading all the same.
            assert_eq!(calls[0].args, serde_json::from_str::<Value>(big).unwrap());
        }
    }

    /// Arguments given as a value of the document that may not hold a number as written keep
    /// the document's text of them, found by the value's place, in a full sink and a compact
    /// one; arguments whose text writes no such number, arguments the reader made, and values
    /// not found in the document keep none.
    #[test]
    fn argument_values_keep_the_documents_text() {
        let text = r#"{"calls": [
            {"args": {"n": 18446744073709551617}},
            {"args": {"z": -0, "k": [1, {"m": -0}]}},
            {"args": {"x": -0.0, "y": 1e19}},
            {"args": {"n": 1}}
        ]}"#;
        let doc: Value = serde_json::from_str(text).unwrap();
        let elsewhere = json!({"n": 18446744073709551617u128 as f64});
        for compact in [None, Some(0)] {
            let mut s = Sink::keeping(&Keep {
                compact,
                ..Keep::default()
            });
            let at = |o| Loc::Span(Span::point(o));
            for (k, c) in doc["calls"].as_array().unwrap().iter().enumerate() {
                s.call("f", Args::Value(&c["args"]), None, at(k));
            }
            s.call("g", Args::Value(&elsewhere), None, at(9));
            s.call(
                "h",
                Args::Owned(doc["calls"][0]["args"].clone()),
                None,
                at(9),
            );
            s.keep_written_args(|| &doc, || text.as_bytes());
            let f = s.finish();
            let calls = match f.table {
                Some(t) => t.to_calls(),
                None => f.calls,
            };
            let texts: Vec<Option<&str>> = calls.iter().map(|c| c.args_text.as_deref()).collect();
            assert_eq!(
                texts,
                [
                    Some(r#"{"n": 18446744073709551617}"#),
                    Some(r#"{"z": -0, "k": [1, {"m": -0}]}"#),
                    None,
                    None,
                    None,
                    None
                ],
                "compact {compact:?}"
            );
        }
    }

    #[test]
    fn argument_rule() {
        assert_eq!(parse_args_text("  ").unwrap(), json!({}));
        assert_eq!(parse_args_text("{\"a\":1}").unwrap(), json!({"a": 1}));
        assert!(parse_args_text("{\"a\":").is_err());
    }

    #[test]
    fn output_rule() {
        let blocks = json!([{"type":"text","text":"a"},{"type":"output_text","text":"b"}]);
        assert_eq!(norm_output(&blocks), json!("a\nb"));
        let mixed = json!([{"type":"text","text":"a"},{"type":"image"}]);
        assert_eq!(norm_output(&mixed), mixed);
        assert_eq!(norm_output(&json!([])), json!([]));
        assert_eq!(norm_output(&json!("{\"x\":1}")), json!("{\"x\":1}"));
    }

    #[test]
    fn a_reused_id_on_another_call_is_a_new_call_and_results_link_to_the_latest() {
        let mut s = Sink::default();
        let at = |o| Loc::Span(Span::point(o));
        let a = s.call(
            "f",
            Args::Value(&json!("{\"x\":1}")),
            Some("c0".into()),
            at(0),
        );
        assert!(s.answer_id("c0", Some(json!("one")), false));
        // Same id, same call (resent): the same call.
        let again = s.call("f", Args::Value(&json!({"x": 1})), Some("c0".into()), at(3));
        assert_eq!(a, again);
        // Same id, other arguments or name: new calls.
        let b = s.call(
            "f",
            Args::Value(&json!("{\"x\":2}")),
            Some("c0".into()),
            at(5),
        );
        assert_ne!(a, b);
        assert!(s.answer_id("c0", Some(json!("two")), false));
        let c = s.call(
            "g",
            Args::Value(&json!("{\"x\":2}")),
            Some("c0".into()),
            at(9),
        );
        assert_ne!(b, c);
        let calls = s.finish().calls;
        let got: Vec<_> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.output.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("f", Some(json!("one"))),
                ("f", Some(json!("two"))),
                ("g", None)
            ]
        );
    }

    #[test]
    fn duplicates_by_id_are_counted_once_and_results_link() {
        let mut s = Sink::default();
        let a = s.call(
            "f",
            Args::Value(&json!("{\"x\":1}")),
            Some("1".into()),
            Loc::Span(Span::point(0)),
        );
        let b = s.call(
            "f",
            Args::Empty,
            Some("1".into()),
            Loc::Span(Span::point(5)),
        );
        assert_eq!(a, b);
        s.call(
            "g",
            Args::Value(&json!("{bad")),
            None,
            Loc::Span(Span::point(9)),
        );
        assert!(s.answer_id("1", Some(json!("ok")), false));
        assert!(s.answer_name("g", Some(json!("no")), true));
        assert!(!s.answer_name("g", None, false));
        let Finished {
            calls, findings, ..
        } = s.finish();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].args, json!("{bad"));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].span, Span::point(9));
    }

    #[test]
    fn a_compact_sink_drops_repeats_and_links_results_by_id_as_a_full_one_does() {
        let run = |keep: &Keep| {
            let mut s = Sink::keeping(keep);
            let at = |o| Loc::Span(Span::point(o));
            let a = s.call("f", Args::Value(&json!({"x": 1})), Some("c0".into()), at(0));
            // A repeat (resumed session): the same call.
            assert_eq!(
                s.call(
                    "f",
                    Args::Value(&json!("{\"x\":1}")),
                    Some("c0".into()),
                    at(2)
                ),
                a
            );
            let b = s.call("f", Args::Value(&json!({"x": 2})), Some("c0".into()), at(4));
            assert_ne!(a, b);
            assert!(s.has_id("c0") && !s.has_id("c1"));
            assert!(s.answer_id("c0", Some(json!("two")), true));
            assert!(!s.answer_id("c1", None, false));
            s.call("g", Args::Raw("*** patch".into()), None, at(6));
            s.call("h", Args::Value(&json!("{bad")), Some("c2".into()), at(8));
            assert!(s.answer_name("g", Some(json!("done")), false));
            s.flag_error(3);
            s.finish()
        };
        let full = run(&Keep::default());
        let compact = run(&Keep {
            compact: Some(0),
            ..Keep::default()
        });
        // Made compact after two calls: the same table.
        let later = run(&Keep {
            compact: Some(2),
            ..Keep::default()
        });
        assert_eq!(later.table, compact.table);
        assert!(later.calls.is_empty());
        let table = compact.table.expect("compact");
        assert!(compact.calls.is_empty());
        let mut want = full.calls.clone();
        for c in &mut want {
            c.id = None;
        }
        assert_eq!(table.to_calls(), want);
        assert_eq!(want.len(), 4);
        assert_eq!(want[1].output, Some(json!("two")));
        assert_eq!(compact.findings, full.findings);
        assert_eq!(full.findings.len(), 1);
    }

    #[test]
    fn a_compact_sink_places_calls_located_by_path() {
        let doc = br#"{"calls": [{"n": 1}, {"n": 2}]}"#;
        for compact in [None, Some(0), Some(1)] {
            let mut s = Sink::keeping(&Keep {
                compact,
                ..Keep::default()
            });
            let p0 = s.at(&[Seg::K("calls"), Seg::I(0)]);
            let p1 = s.at(&[Seg::K("calls"), Seg::I(1)]);
            s.call_unique("f", Args::Empty, None, p0);
            s.call_unique("f", Args::Value(&json!("{\"n\": 2}")), None, p1);
            assert_eq!(s.path_depth(), Some(2));
            s.resolve(|| doc, 100);
            let f = s.finish();
            let spans: Vec<Span> = match f.table {
                Some(t) => t.spans().to_vec(),
                None => f.calls.iter().map(|c| c.span).collect(),
            };
            assert_eq!(
                spans,
                [Span::new(111, 119), Span::new(121, 129)],
                "compact {compact:?}"
            );
        }
    }
}
