//! DeepEval `ToolCorrectnessMetric` 4.3.1 (`deepeval/metrics/tool_correctness/tool_correctness.py`).
//!
//! Input line: `{id, input?, tools_called[T], expected_tools[T], options{evaluation_params,
//! should_consider_ordering, should_exact_match, strict_mode, threshold, available_tools,
//! llm_tool_selection_score, judge}}` with `T = {name, input_parameters, output, type?,
//! description?, reasoning?}`. The tool-selection part (an LLM asked about `available_tools`)
//! is answered by `llm_tool_selection_score` (the oracle's stub), else by the judge given on the
//! command line (see [`super::judge`]), else scores 1 as DeepEval does without available tools.
//! A `judge` option in the line is an error line: a judge command is never read from data.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;

use super::judge::{Judge, JudgeRequest};
use super::read::{self, Raw, TapeProfile};
use crate::json::pyset::StrSet;
use crate::json::read::Runtime;
use crate::json::scan::plain_run_end;
use crate::json::scan::{same_bytes, same_str};
use crate::json::tape::V;
use crate::json::text::{json_str_body, plain_repr_json, py_json_indent, py_repr, py_str};
use smallvec::SmallVec;

use super::{write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch, Work};
use crate::config::profile::{ProfileSpec, DEEPEVAL};
use crate::json::keys::Keyed;
use crate::json::value::{depth_of, py_eq, py_eq_item, Val};
use crate::json::view::{Json, Kind};

/// One `ToolCall` as pydantic validates it, read from the case's tape.
#[derive(Debug)]
pub(crate) struct Tool<'t> {
    pub(crate) name: &'t str,
    /// `None` for absent or `null`.
    pub(crate) input_parameters: Option<V<'t>>,
    /// `None` for absent or `null`.
    pub(crate) output: Option<V<'t>>,
    pub(crate) kind: Option<&'t str>,
    pub(crate) description: Option<&'t str>,
    pub(crate) reasoning: Option<&'t str>,
}

#[derive(Default)]
struct Options<'t> {
    evaluation_params: Params<'t>,
    should_consider_ordering: bool,
    should_exact_match: bool,
    strict_mode: bool,
    threshold: Option<f64>,
    /// A `threshold` that is neither a number, a bool nor `null` (a string, list or dict):
    /// DeepEval's `score >= threshold` raises, and it takes the case as not successful.
    threshold_other: bool,
    available_tools: Option<Vec<Tool<'t>>>,
    llm_tool_selection_score: Option<f64>,
    /// The line sets a (non-null) `judge` option: an error, never a command to run.
    judge_in_line: bool,
}

/// A case: its tools and options (the raw id and input are read from the line).
pub(crate) struct Case<'t> {
    /// `tools_called` and `expected_tools`, in one list, the worker's ([`Work::tools`]): no
    /// allocation per case.
    tools: Vec<Tool<'t>>,
    /// Where `tools_called` and `expected_tools` are in `tools`.
    called: std::ops::Range<usize>,
    expected: std::ops::Range<usize>,
    options: Options<'t>,
}

impl<'t> Case<'t> {
    fn tools_called(&self) -> &[Tool<'t>] {
        self.tools.get(self.called.clone()).unwrap_or_default()
    }

    fn expected_tools(&self) -> &[Tool<'t>] {
        self.tools.get(self.expected.clone()).unwrap_or_default()
    }
}

/// The list of tools of a worker ([`Work::tools`]), empty, for a case of any line: its
/// allocation is kept (collected in place), its tools dropped.
pub(crate) fn recycle<'b>(mut tools: Vec<Tool<'_>>) -> Vec<Tool<'b>> {
    tools.clear();
    tools.into_iter().map(|_| Tool::empty()).collect()
}

/// The line's shape as serde_json checks it: this reader gives the error of a line the tape
/// reader leaves to it, and the raw id and input of a line it then reads from a [`Val`] tape.
/// Its fields are only validated (what the metric reads comes from the tape).
#[derive(Deserialize)]
#[allow(dead_code)]
struct SerdeTool<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    input_parameters: Option<Val<'a>>,
    #[serde(borrow, default)]
    output: Option<Val<'a>>,
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    description: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SerdeOptions<'a> {
    #[serde(borrow, default)]
    evaluation_params: Vec<Cow<'a, str>>,
    // The oracle reads the flags with `bool(...)`: any JSON value.
    #[serde(borrow, default)]
    should_consider_ordering: Option<Val<'a>>,
    #[serde(borrow, default)]
    should_exact_match: Option<Val<'a>>,
    #[serde(borrow, default)]
    strict_mode: Option<Val<'a>>,
    // Any JSON value: a bool is Python's 0 or 1, other types make no case successful.
    #[serde(borrow, default)]
    threshold: Option<Val<'a>>,
    #[serde(borrow, default)]
    available_tools: Option<Vec<SerdeTool<'a>>>,
    #[serde(default)]
    llm_tool_selection_score: Option<f64>,
    #[serde(borrow, default)]
    judge: Option<Val<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SerdeCase<'a> {
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow, default)]
    input: Option<Val<'a>>,
    #[serde(borrow)]
    tools_called: Vec<SerdeTool<'a>>,
    #[serde(borrow)]
    expected_tools: Vec<SerdeTool<'a>>,
    #[serde(borrow, default)]
    options: Option<SerdeOptions<'a>>,
}

/// `Some(v)` for a present, non-null value.
fn non_null(v: V<'_>) -> Option<V<'_>> {
    (!v.is_null()).then_some(v)
}

/// A string or `null` (`None`); anything else does not read.
fn opt_str(v: V<'_>) -> Option<Option<&str>> {
    match v.kind() {
        Kind::Null => Some(None),
        Kind::Str(s) => Some(Some(s)),
        _ => None,
    }
}

/// A number or `null` (`None`).
fn opt_f64(v: V<'_>) -> Option<Option<f64>> {
    match v.kind() {
        Kind::Null => Some(None),
        _ => v.as_f64().map(Some),
    }
}

/// Python `bool(...)` of a JSON value, as the oracle reads DeepEval's flags: `null`, `false`,
/// zero, `""`, `[]` and `{}` are false.
fn py_truthy(v: V<'_>) -> bool {
    match v.kind() {
        Kind::Null => false,
        Kind::Bool(b) => b,
        Kind::Int(i) => i != 0,
        Kind::UInt(u) => u != 0,
        Kind::Float(f) => f != 0.0,
        Kind::Str(s) => !s.is_empty(),
        Kind::Arr => v.items().len() > 0,
        Kind::Obj => v.entries().len() > 0,
    }
}

/// Reads the case from its tape as the serde reader does (required fields present, `null` for
/// an `Option` is `None`, the flags by Python truthiness, `threshold` 0.5 when absent, as without
/// `options`), or `None` where that reader would fail.
fn case_of<'t>(root: V<'t>, work: &mut Work) -> Option<Case<'t>> {
    let mut tools = recycle(std::mem::take(&mut work.tools));
    if let Some((called, expected, options)) = read_case(root, &mut tools) {
        Some(Case {
            tools,
            called,
            expected,
            options,
        })
    } else {
        work.tools = recycle(tools);
        None
    }
}

/// [`case_of`]: the tools into `tools`, and where each list of them is.
#[allow(clippy::type_complexity)]
fn read_case<'t>(
    root: V<'t>,
    tools: &mut Vec<Tool<'t>>,
) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>, Options<'t>)> {
    if !root.is_obj() {
        return None;
    }
    let mut options = Options {
        threshold: Some(0.5),
        ..Options::default()
    };
    let (mut called, mut expected) = (None, None);
    for (k, v) in root.members() {
        match k {
            b"tools_called" => called = Some(tools_into(v, tools)?),
            b"expected_tools" => expected = Some(tools_into(v, tools)?),
            b"options" if !v.is_null() => options = options_of(v)?,
            _ => {}
        }
    }
    Some((called?, expected?, options))
}

/// The tools of list `v`, added to `tools`: where they are in it.
fn tools_into<'t>(v: V<'t>, tools: &mut Vec<Tool<'t>>) -> Option<std::ops::Range<usize>> {
    if !v.is_arr() {
        return None;
    }
    let start = tools.len();
    for x in v.items() {
        // Filled in place (a tool is 96 bytes: no copy of one built aside).
        tools.push(Tool::empty());
        tool_of(x, tools.last_mut()?)?;
    }
    Some(start..tools.len())
}

fn tools_of(v: V<'_>) -> Option<Vec<Tool<'_>>> {
    let mut tools = Vec::new();
    tools_into(v, &mut tools)?;
    Some(tools)
}

/// Reads a tool into `t` (an empty one), or `None` where the serde reader would fail.
fn tool_of<'t>(v: V<'t>, t: &mut Tool<'t>) -> Option<()> {
    if !v.is_obj() {
        return None;
    }
    let mut named = false;
    for (k, x) in v.members() {
        match k {
            b"name" => {
                t.name = x.as_str()?;
                named = true;
            }
            b"input_parameters" => t.input_parameters = non_null(x),
            b"output" => t.output = non_null(x),
            b"type" => t.kind = opt_str(x)?,
            b"description" => t.description = opt_str(x)?,
            b"reasoning" => t.reasoning = opt_str(x)?,
            _ => {}
        }
    }
    named.then_some(())
}

fn options_of(v: V<'_>) -> Option<Options<'_>> {
    if !v.is_obj() {
        return None;
    }
    let mut o = Options {
        threshold: Some(0.5),
        ..Options::default()
    };
    for (k, x) in v.members() {
        match k {
            // The oracle iterates whatever it is: a list's items, a dict's keys, a string's
            // characters.
            b"evaluation_params" => {
                o.evaluation_params = Params::default();
                match x.kind() {
                    Kind::Arr => {
                        for p in x.items() {
                            o.evaluation_params.push(p.as_str()?);
                        }
                    }
                    Kind::Obj => {
                        for (p, _) in x.entries() {
                            o.evaluation_params.push(p);
                        }
                    }
                    Kind::Str(text) => {
                        for (i, c) in text.char_indices() {
                            o.evaluation_params.push(text.get(i..i + c.len_utf8())?);
                        }
                    }
                    _ => return None,
                }
            }
            b"should_consider_ordering" => o.should_consider_ordering = py_truthy(x),
            b"should_exact_match" => o.should_exact_match = py_truthy(x),
            b"strict_mode" => o.strict_mode = py_truthy(x),
            b"threshold" => match x.kind() {
                Kind::Bool(t) => o.threshold = Some(f64::from(u8::from(t))),
                Kind::Str(_) | Kind::Arr | Kind::Obj => {
                    o.threshold = None;
                    o.threshold_other = true;
                }
                _ => o.threshold = opt_f64(x)?,
            },
            b"available_tools" => {
                o.available_tools = match non_null(x) {
                    Some(x) => Some(tools_of(x)?),
                    None => None,
                }
            }
            b"llm_tool_selection_score" => o.llm_tool_selection_score = opt_f64(x)?,
            b"judge" => o.judge_in_line = !x.is_null(),
            _ => {}
        }
    }
    Some(o)
}

impl<'t> Tool<'t> {
    /// A tool with no fields yet.
    const fn empty() -> Tool<'t> {
        Tool {
            name: "",
            input_parameters: None,
            output: None,
            kind: None,
            description: None,
            reasoning: None,
        }
    }

    fn kind(&self) -> &str {
        self.kind.unwrap_or("FUNCTION")
    }
    fn validate(&self) -> Result<(), String> {
        if !matches!(self.kind(), "FUNCTION" | "MCP") {
            return Err(format!(
                "ValidationError: type: Input should be 'FUNCTION' or 'MCP' (got {:?})",
                self.kind()
            ));
        }
        match self.input_parameters {
            Some(p) if !p.is_obj() => Err(format!(
                "ValidationError: input_parameters: Input should be a valid dictionary (got {})",
                p.type_name()
            )),
            _ => Ok(()),
        }
    }
}

/// Python `==` of two optional values (`None` is `null`); equal texts are equal at once.
fn opt_eq(a: Option<V<'_>>, b: Option<V<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x.same_text(y) || py_eq(x, y),
        _ => false,
    }
}

/// [`opt_eq`] of two fields of pydantic models, which compare their `__dict__`s: identity
/// first ([`py_eq_item`]).
fn opt_eq_item(a: Option<V<'_>>, b: Option<V<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x.same_text(y) || py_eq_item(x, y),
        _ => false,
    }
}

/// `ToolCall.__eq__`: name, input_parameters and output (not the type).
fn call_eq(a: &Tool<'_>, b: &Tool<'_>) -> bool {
    same_str(a.name, b.name)
        && opt_eq_item(a.input_parameters, b.input_parameters)
        && opt_eq_item(a.output, b.output)
}

fn same_tool(e: &Tool<'_>, c: &Tool<'_>) -> bool {
    same_str(e.name, c.name) && same_str(e.kind(), c.kind())
}

const NONE_KEYS: &str = "AttributeError: 'NoneType' object has no attribute 'keys'";

/// `_compare_dicts(d1 = expected, d2 = called)` of two dicts, and whether they are equal
/// (Python `==`): `(1.0, true)` for equal ones, as its first step `if d1 == d2: return 1.0`
/// gives; else the share of the keys whose values are equal, a nested pair of unequal dicts
/// counting for its own share.
///
/// The equality comes out of the same pass over the members (equal key sets, every value
/// equal), so two dicts are not compared twice, once whole and once member by member; nor is a
/// nested pair of dicts.
fn dict_score(a: V<'_>, b: V<'_>) -> (f64, bool) {
    // `d2`'s value for each key of `d1`, keys compared as bytes. For up to `SMALL` keys, found
    // first (they also give the total): the member at the same position when the two have their
    // keys in the same order (the usual case), else the one found by key (keys are unique in a
    // tape, so both find the same member). Larger dicts look each key up as they go.
    const SMALL: usize = 16;
    let mut pairs: [Option<V<'_>>; SMALL] = [None; SMALL];
    let (na, nb) = (a.entries().len(), b.entries().len());
    let small = na <= SMALL;
    // Larger dicts look their keys up in sorted indexes: O(K log K) in any key order.
    let (keyed_a, keyed_b) = if small {
        (None, None)
    } else {
        (Some(Keyed::new(a.members())), Some(Keyed::new(b.members())))
    };
    // `len(d1) + len(d2.keys() - d1.keys())`.
    let total = if small {
        let mut found = 0;
        let mut same_place = b.members();
        for ((k, _), slot) in a.members().zip(&mut pairs) {
            *slot = match same_place.next() {
                Some((k2, v2)) if same_bytes(k, k2) => Some(v2),
                _ => b.get_bytes(k),
            };
            found += usize::from(slot.is_some());
        }
        na + (nb - found)
    } else {
        let keyed_a = keyed_a.as_ref();
        na + b
            .members()
            .filter(|(k, _)| keyed_a.and_then(|a| a.get(k)).is_none())
            .count()
    };
    // The same keys: every key of `d1` in `d2`, and no other.
    let mut equal = total == na && na == nb;
    let share = 1.0 / total as f64;
    let mut s = 0.0;
    // The shares of nested dicts that are not equal, by their key's place in `d1`: their sum
    // depends on the order of the terms, which is Python's set order (see below).
    let mut partial: SmallVec<[(usize, f64); 4]> = SmallVec::new();
    for (i, (k, v1)) in a.members().enumerate() {
        let v2 = match &keyed_b {
            None => pairs[i],
            Some(b) => b.get(k),
        };
        let Some(v2) = v2 else { continue };
        if v1.same_text(v2) {
            s += share;
        } else if v1.is_obj() && v2.is_obj() {
            match dict_score(v1, v2) {
                (_, true) => s += share,
                (x, false) => {
                    s += x / total as f64;
                    partial.push((i, x / total as f64));
                    equal = false;
                }
            }
        } else if py_eq(v1, v2) {
            s += share;
        } else if !py_eq_item(v1, v2) {
            // `dict1 == dict2` compares items identity first (the one `NaN` equals itself
            // there), `dict1[key] == dict2[key]` does not.
            equal = false;
        }
    }
    if equal {
        (1.0, true)
    } else if partial.is_empty() || (partial.len() == 1 && s == partial[0].1) {
        // Equal shares (and one other term alone) add up alike in any order.
        (s, false)
    } else {
        (in_set_order(a, b, share, &partial), false)
    }
}

/// `_compare_dicts`'s sum over `set(d1.keys()).intersection(set(d2.keys()))`, term by term in
/// that set's order as CPython 3.11 keeps it with `PYTHONHASHSEED=0`: `share` for a key whose
/// values are equal, the `partial` share of a nested pair of unequal dicts (by its key's place
/// in `d1`), nothing for other keys.
fn in_set_order(a: V<'_>, b: V<'_>, share: f64, partial: &[(usize, f64)]) -> f64 {
    let keys_a = StrSet::from_strs(a.entries().map(|(k, _)| k));
    let common = keys_a.intersection(&StrSet::from_strs(b.entries().map(|(k, _)| k)));
    let in_a: HashMap<&str, (usize, V<'_>)> = a
        .entries()
        .enumerate()
        .map(|(i, (k, v))| (k, (i, v)))
        .collect();
    let in_b: HashMap<&str, V<'_>> = b.entries().collect();
    let mut s = 0.0;
    for k in common.iter() {
        let (Some(&(i, v1)), Some(&v2)) = (in_a.get(k), in_b.get(k)) else {
            continue;
        };
        if let Some(&(_, x)) = partial.iter().find(|(j, _)| *j == i) {
            s += x;
        } else if v1.same_text(v2) || py_eq(v1, v2) || (v1.is_obj() && v2.is_obj()) {
            s += share;
        }
    }
    s
}

#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    ip: bool,
    out: bool,
}

/// `evaluation_params` as the metric uses them (no list kept): which of the two are there,
/// and the first one that is neither (DeepEval's `ToolCallParams(p)` fails on it).
#[derive(Default)]
struct Params<'t> {
    flags: Flags,
    invalid: Option<&'t str>,
}

impl<'t> Params<'t> {
    /// The next item of the list.
    fn push(&mut self, p: &'t str) {
        if same_str(p, "INPUT_PARAMETERS") {
            self.flags.ip = true;
        } else if same_str(p, "OUTPUT") {
            self.flags.out = true;
        } else if self.invalid.is_none() {
            self.invalid = Some(p);
        }
    }
}

fn pair_score(e: &Tool<'_>, c: &Tool<'_>, f: Flags) -> Result<f64, String> {
    let mut s = 1.0;
    if f.ip {
        match (e.input_parameters, c.input_parameters) {
            // `d1 == d2` and `_compare_dicts` in one pass (equal dicts score 1).
            (Some(a), Some(b)) if a.is_obj() && b.is_obj() => {
                if !a.same_text(b) {
                    s = dict_score(a, b).0;
                }
            }
            // Unequal values that are not both dicts: DeepEval's `.keys()` fails on them.
            (a, b) => {
                if !opt_eq(a, b) {
                    return Err(NONE_KEYS.to_owned());
                }
            }
        }
    }
    if f.out && !opt_eq(e.output, c.output) {
        s = 0.0;
    }
    Ok(s)
}

fn exact_score(exp: &[Tool<'_>], called: &[Tool<'_>], f: Flags) -> f64 {
    if called.len() != exp.len() {
        return 0.0;
    }
    for (c, e) in called.iter().zip(exp) {
        if !same_str(c.name, e.name) || !same_str(c.kind(), e.kind()) {
            return 0.0;
        }
        if f.ip && !opt_eq(c.input_parameters, e.input_parameters) {
            return 0.0;
        }
        if f.out && !opt_eq(c.output, e.output) {
            return 0.0;
        }
    }
    1.0
}

/// The called tools of each name, ascending: DeepEval's unordered score and its reason
/// compare only tools of the same name (`ToolCall.__eq__` and the match both need it), so
/// 40 000 tools of distinct names cost 40 000 look-ups, not 1.6 billion comparisons. A map past
/// a handful of called tools; below, a scan of them (no allocation for the usual case).
struct ByName<'t> {
    map: Option<HashMap<&'t str, Vec<usize>>>,
}

impl<'t> ByName<'t> {
    fn new(called: &[Tool<'t>]) -> Self {
        let map = (called.len() > 16).then(|| {
            let mut map: HashMap<&'t str, Vec<usize>> = HashMap::new();
            for (i, c) in called.iter().enumerate() {
                map.entry(c.name).or_default().push(i);
            }
            map
        });
        ByName { map }
    }

    /// The called tools named `name`, ascending (`buf` holds them when there is no map).
    fn of<'b>(
        &'b self,
        called: &[Tool<'_>],
        name: &str,
        buf: &'b mut SmallVec<[usize; 16]>,
    ) -> &'b [usize] {
        if let Some(map) = &self.map {
            map.get(name).map_or(&[], Vec::as_slice)
        } else {
            buf.clear();
            buf.extend((0..called.len()).filter(|&i| same_str(called[i].name, name)));
            buf
        }
    }
}

/// The most pairs of same-named tools DeepEval's unordered score and its reason may compare for
/// one case (see [`unordered_pairs`]): 16 777 216, e.g. 2 000 expected and 2 000 called tools
/// all of one name. Past it the case is an error line.
pub(crate) const UNORDERED_PAIRS: usize = 1 << 24;

/// The pairs of tools the unordered score and its reason compare at most: each called tool
/// with the earlier called tools of its name (its class), each expected tool with the called
/// tools of its name twice (the match, and whether it is missing), and each expected tool with
/// the earlier expected tools of its name (the missing list has no repeats).
fn unordered_pairs(exp: &[Tool<'_>], called: &[Tool<'_>], by_name: &ByName<'_>) -> usize {
    let mut buf = SmallVec::new();
    let mut pairs = 0usize;
    for (i, c) in called.iter().enumerate() {
        let group = by_name.of(called, c.name, &mut buf);
        pairs = pairs.saturating_add(group.partition_point(|&j| j < i));
    }
    let mut earlier: HashMap<&str, usize> = HashMap::new();
    for (k, e) in exp.iter().enumerate() {
        let group = by_name.of(called, e.name, &mut buf).len();
        let before = if exp.len() > 16 {
            let n = earlier.entry(e.name).or_default();
            *n += 1;
            *n - 1
        } else {
            exp[..k].iter().filter(|x| same_str(x.name, e.name)).count()
        };
        pairs = pairs
            .saturating_add(group.saturating_mul(2))
            .saturating_add(before);
    }
    pairs
}

fn unordered_score(
    exp: &[Tool<'_>],
    called: &[Tool<'_>],
    by_name: &ByName<'_>,
    f: Flags,
) -> Result<f64, String> {
    // DeepEval skips a called tool equal (`ToolCall.__eq__`) to one matched already. Equality
    // is an equivalence (Python `==` on JSON values), so each called tool gets the index of the
    // first one equal to it, its class, and a matched tool takes its whole class: one
    // comparison per pair of called tools of the same name at most, instead of one per
    // (expected, called, matched) triple. `slots[i]` = (class of tool i, whether class i is
    // taken); no allocation for the usual handful of calls.
    let mut small = [(0usize, false); 16];
    let mut large = Vec::new();
    let slots: &mut [(usize, bool)] = if let Some(s) = small.get_mut(..called.len()) {
        s
    } else {
        large.resize(called.len(), (0, false));
        &mut large
    };
    let mut buf = SmallVec::new();
    for (i, c) in called.iter().enumerate() {
        let group = by_name.of(called, c.name, &mut buf);
        let earlier = &group[..group.partition_point(|&j| j < i)];
        let class = earlier
            .iter()
            .copied()
            .find(|&j| call_eq(c, &called[j]))
            .unwrap_or(i);
        slots[i].0 = class;
    }
    let mut total = 0.0;
    for e in exp {
        let mut best = 0.0;
        let mut best_c = None;
        for &ci in by_name.of(called, e.name, &mut buf) {
            if slots[slots[ci].0].1 {
                continue;
            }
            let c = &called[ci];
            if same_tool(e, c) {
                let s = pair_score(e, c, f)?;
                if s > best {
                    best = s;
                    best_c = Some(ci);
                }
            }
        }
        if best > 0.0 {
            total += best;
            if let Some(ci) = best_c {
                let class = slots[ci].0;
                slots[class].1 = true;
            }
        }
    }
    Ok(if exp.is_empty() && called.is_empty() {
        1.0
    } else if exp.is_empty() {
        0.0
    } else {
        total / exp.len() as f64
    })
}

/// The expected indices of a weighted LCS (on the stack for the usual handful of tools).
type Lcs = SmallVec<[usize; 16]>;

/// The largest weighted-LCS table built for `should_consider_ordering`: `(expected + 1) ×
/// (called + 1)` cells of 8 bytes, 4 194 304 cells (32 MiB; e.g. 2 047 tools on each side).
/// DeepEval's reason needs the table's backtrack (which expected tools are out of order, and the
/// score summed along it), so past it a case is scored only when the exact shortcut of
/// [`all_in_order`] settles it, and is otherwise an error line.
pub(crate) const LCS_CELLS: usize = 1 << 22;

/// Whether every expected tool is matched, in order, by a called tool of full weight, when each
/// pair's weight is 0 or 1 (no `INPUT_PARAMETERS`): then the weighted LCS is the whole expected
/// list, its weight (an integer sum, exact) is their number, and the score is 1.0, which is
/// all DeepEval's reason needs. Greedy matching decides a subsequence exactly.
fn all_in_order(exp: &[Tool<'_>], called: &[Tool<'_>], f: Flags) -> bool {
    let mut rest = called.iter();
    exp.iter()
        .all(|e| rest.any(|c| same_tool(e, c) && (!f.out || opt_eq(e.output, c.output))))
}

/// `_compute_weighted_lcs`: the LCS (expected indices) and its weight summed on the backtrack.
fn weighted_lcs(exp: &[Tool<'_>], called: &[Tool<'_>], f: Flags) -> Result<(Lcs, f64), String> {
    let (m, n) = (exp.len(), called.len());
    let w = n + 1;
    let cells = (m + 1).saturating_mul(w);
    if cells > LCS_CELLS {
        if !f.ip && all_in_order(exp, called, f) {
            return Ok((Lcs::new(), m as f64));
        }
        return Err(format!(
            "toolspec: should_consider_ordering with {m} expected and {n} called tools needs a \
             table of {cells} cells, past the budget of {LCS_CELLS} (the case is not scored)"
        ));
    }
    // On the stack for up to 7 tools on each side.
    let mut dp: SmallVec<[f64; 64]> = smallvec::smallvec![0.0f64; (m + 1) * w];
    for i in 1..=m {
        for j in 1..=n {
            let (e, c) = (&exp[i - 1], &called[j - 1]);
            let up = dp[(i - 1) * w + j];
            let left = dp[i * w + j - 1];
            if !same_tool(e, c) {
                dp[i * w + j] = up.max(left);
                continue;
            }
            let s = pair_score(e, c, f)?;
            let diag = if s > 0.0 {
                dp[(i - 1) * w + j - 1] + s
            } else {
                0.0
            };
            dp[i * w + j] = py_max3(up, left, diag);
        }
    }
    let (mut i, mut j, mut total) = (m, n, 0.0);
    let mut lcs = Lcs::new();
    while i > 0 && j > 0 {
        if dp[i * w + j] == dp[(i - 1) * w + j] {
            i -= 1;
        } else if dp[i * w + j] == dp[i * w + j - 1] {
            j -= 1;
        } else {
            lcs.push(i - 1);
            total += dp[i * w + j] - dp[(i - 1) * w + j - 1];
            i -= 1;
            j -= 1;
        }
    }
    lcs.reverse();
    Ok((lcs, total))
}

/// Python `max(a, b, c)`: the first of the largest.
fn py_max3(a: f64, b: f64, c: f64) -> f64 {
    let mut m = a;
    if b > m {
        m = b;
    }
    if c > m {
        m = c;
    }
    m
}

/// Escape, for the body of a JSON string, what was written to `s` from `mark` on (with `ESC`;
/// without it, nothing is done): the pieces of a reason whose text is only known at run time
/// are escaped as they are added, so the reason is built escaped.
fn escape_from<const ESC: bool>(s: &mut String, mark: usize) {
    if !ESC {
        return;
    }
    let Some(b) = s.as_bytes().get(mark..) else {
        return;
    };
    // Escaped bytes are ASCII, so the first one is a char boundary.
    let at = mark + plain_run_end(b, 0);
    if at < s.len() {
        let tail = s.split_off(at);
        json_str_body(s, &tail);
    }
}

/// `text` as is, or (with `ESC`) escaped for the body of a JSON string.
fn push_text<const ESC: bool>(out: &mut String, text: &str) {
    if ESC {
        json_str_body(out, text);
    } else {
        out.push_str(text);
    }
}

/// `ToolCall.__repr__` (with `ESC`, escaped for the body of a JSON string as it is written).
/// `_indent_nested_field(json.dumps(v, indent=4, ensure_ascii=False))`: the dump with every
/// line after the first indented once more, the same as dumping one level deeper. The lines are
/// Python's `splitlines()`, which also breaks at U+0085, U+2028 and U+2029 (the dump keeps them
/// raw): each becomes a new indented line.
fn nested_field<const ESC: bool>(out: &mut String, v: V<'_>) {
    if !has_line_break(v) {
        py_json_indent::<_, ESC>(out, v, 1);
        return;
    }
    let mut plain = String::new();
    py_json_indent::<_, false>(&mut plain, v, 1);
    let split = plain.replace(['\u{85}', '\u{2028}', '\u{2029}'], "\n    ");
    push_text::<ESC>(out, &split);
}

/// Whether a string or key in `v` holds a line break only `splitlines()` knows of.
fn has_line_break(v: V<'_>) -> bool {
    // Their UTF-8 starts with C2 or E2: a text without either byte has none.
    let breaks = |s: &str| {
        memchr::memchr2(0xc2, 0xe2, s.as_bytes()).is_some()
            && s.contains(['\u{85}', '\u{2028}', '\u{2029}'])
    };
    match v.kind() {
        Kind::Str(s) => breaks(s),
        Kind::Arr => v.items().any(has_line_break),
        Kind::Obj => v.entries().any(|(k, x)| breaks(k) || has_line_break(x)),
        _ => false,
    }
}

fn tool_repr<const ESC: bool>(out: &mut String, t: &Tool<'_>) {
    // The fixed text with its newlines and quotes, as is or escaped.
    let (head, sep, quote, end, nl) = if ESC {
        ("ToolCall(\\n    ", ",\\n    ", "\\\"", "\\n)", "\\n")
    } else {
        ("ToolCall(\n    ", ",\n    ", "\"", "\n)", "\n")
    };
    out.push_str(head);
    let mut first = true;
    let mut field = |out: &mut String, label: &str| {
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(label);
        out.push('=');
    };
    let mut quoted = |out: &mut String, label: &str, text: &str| {
        field(out, label);
        out.push_str(quote);
        push_text::<ESC>(out, text);
        out.push_str(quote);
    };
    if !t.name.is_empty() {
        quoted(out, "name", t.name);
    }
    quoted(out, "type", t.kind());
    if let Some(d) = t.description.filter(|d| !d.is_empty()) {
        quoted(out, "description", d);
    }
    if let Some(r) = t.reasoning.filter(|r| !r.is_empty()) {
        quoted(out, "reasoning", r);
    }
    // `json.dumps(indent=4)` with every line after the first indented once more: the same as
    // dumping one level deeper.
    if let Some(v) = t.input_parameters {
        if v.is_obj() && v.entries().len() > 0 {
            field(out, "input_parameters");
            nested_field::<ESC>(out, v);
        }
    }
    match t.output {
        None => {}
        Some(v) if v.is_obj() => {
            field(out, "output");
            nested_field::<ESC>(out, v);
            // `_indent_nested_field` adds "\n" + the lines after the first: a one-line dump
            // (`{}`) ends with an empty line.
            if v.entries().len() == 0 {
                out.push_str(nl);
            }
        }
        Some(v) => {
            field(out, "output");
            let mark = out.len();
            py_repr(out, v);
            escape_from::<ESC>(out, mark);
        }
    }
    out.push_str(end);
}

/// For each expected tool, in order, whether a called tool of its name has the other type (the
/// two types are `FUNCTION` and `MCP`; DeepEval names the first such called tool's type).
fn type_mismatches(exp: &[Tool<'_>], called: &[Tool<'_>]) -> Vec<String> {
    let mut v = Vec::new();
    let mcp = |t: &Tool<'_>| same_str(t.kind(), "MCP");
    if !exp.iter().chain(called).any(mcp) {
        return v;
    }
    // The types each called name has, for more than a handful of pairs: O(n) instead of n².
    let mut kinds: HashMap<&str, [bool; 2]> = HashMap::new();
    let indexed =
        exp.len().saturating_mul(called.len()) > 256 && kinds.try_reserve(called.len()).is_ok();
    if indexed {
        for c in called {
            kinds.entry(c.name).or_default()[usize::from(mcp(c))] = true;
        }
    }
    for e in exp {
        let other = !mcp(e);
        let found = if indexed {
            kinds.get(e.name).is_some_and(|k| k[usize::from(other)])
        } else {
            called
                .iter()
                .any(|c| same_str(e.name, c.name) && mcp(c) == other)
        };
        if found {
            v.push(format!(
                "{} (expected {}, called {})",
                e.name,
                e.kind(),
                if other { "MCP" } else { "FUNCTION" }
            ));
        }
    }
    v
}

fn names_repr<const ESC: bool>(out: &mut String, tools: &[Tool<'_>]) {
    str_list::<ESC>(out, tools.iter().map(|t| t.name));
}

/// [`crate::json::text::py_str_list`], escaped with `ESC`: a plain string (the usual name) is copied between its
/// quotes, the others are escaped as they are added.
fn str_list<'s, const ESC: bool>(out: &mut String, items: impl IntoIterator<Item = &'s str>) {
    out.push('[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if plain_repr_json(s.as_bytes()) {
            out.push('\'');
            out.push_str(s);
            out.push('\'');
        } else {
            let mark = out.len();
            py_str(out, s);
            escape_from::<ESC>(out, mark);
        }
    }
    out.push(']');
}

/// Issues joined by `sep`.
struct Issues<'s> {
    out: &'s mut String,
    sep: &'static str,
    any: bool,
}

impl Issues<'_> {
    fn next(&mut self) -> &mut String {
        if self.any {
            self.out.push_str(self.sep);
        }
        self.any = true;
        self.out
    }
}

/// `_generate_reason` (the tool-calling part), appended to `s`; with `ESC`, escaped for the
/// body of a JSON string as it is built (the fixed text has nothing to escape outside
/// [`tool_repr`]; the names, type mismatches and values are escaped as they are added). `raw` is the mode's score before strict mode and tool selection (what DeepEval recomputes
/// here), `lcs` the weighted LCS of ordering mode.
fn calling_reason<const ESC: bool>(
    s: &mut String,
    exp: &[Tool<'_>],
    called: &[Tool<'_>],
    opts: &Options<'_>,
    raw: f64,
    lcs: &[usize],
    by_name: Option<&ByName<'_>>,
) {
    let tm = type_mismatches(exp, called);
    let tail = |s: &mut String, end: &str| {
        s.push_str("; expected ");
        names_repr::<ESC>(s, exp);
        s.push_str(", called ");
        names_repr::<ESC>(s, called);
        s.push_str(end);
    };
    if opts.should_exact_match {
        s.push_str(if raw == 0.0 {
            "Not an exact match"
        } else {
            "Exact match"
        });
        s.push_str(": expected ");
        names_repr::<ESC>(s, exp);
        s.push_str(", called ");
        names_repr::<ESC>(s, called);
        s.push('.');
        if !tm.is_empty() {
            s.push_str(" Tool type mismatches: ");
            str_list::<ESC>(s, tm.iter().map(String::as_str));
            s.push('.');
        }
        s.push_str(" See details above.");
        return;
    }
    if opts.should_consider_ordering {
        if raw == 1.0 {
            s.push_str("Correct ordering: all expected tools ");
            names_repr::<ESC>(s, exp);
            s.push_str(" were called in the correct order.");
            return;
        }
        // `set(expected_names) - set(called_names)` and `set(expected_names) - set(lcs_names)`,
        // listed in the order CPython 3.11 keeps them with `PYTHONHASHSEED=0`.
        let exp_set = StrSet::from_strs(exp.iter().map(|t| t.name));
        let missing = exp_set.difference(&StrSet::from_strs(called.iter().map(|t| t.name)));
        let out_of_order = exp_set.difference(&StrSet::from_strs(lcs.iter().map(|&i| exp[i].name)));
        s.push_str("Incorrect tool usage: ");
        let mut issues = Issues {
            out: s,
            sep: " and ",
            any: false,
        };
        if !missing.is_empty() {
            let o = issues.next();
            o.push_str("missing tools ");
            str_list::<ESC>(o, missing.iter());
        }
        if !out_of_order.is_empty() {
            let o = issues.next();
            o.push_str("out-of-order tools ");
            str_list::<ESC>(o, out_of_order.iter());
        }
        if !tm.is_empty() {
            let o = issues.next();
            o.push_str("tool type mismatches ");
            str_list::<ESC>(o, tm.iter().map(String::as_str));
        }
        tail(s, ". See more details above.");
        return;
    }
    if raw == 1.0 {
        s.push_str("All expected tools ");
        names_repr::<ESC>(s, exp);
        s.push_str(" were called (order not considered).");
        return;
    }
    // set(expected) - (set(called) & set(expected)), by ToolCall equality, which needs equal
    // names: each expected tool is compared with the called tools of its name, and with the
    // missing ones of its name listed so far.
    let built;
    let by_name = if let Some(b) = by_name {
        b
    } else {
        built = ByName::new(called);
        &built
    };
    let mut buf = SmallVec::new();
    let mut missing: SmallVec<[&Tool<'_>; 16]> = SmallVec::new();
    let mut missing_of: HashMap<&str, SmallVec<[usize; 2]>> = HashMap::new();
    for e in exp {
        let called_it = by_name
            .of(called, e.name, &mut buf)
            .iter()
            .any(|&ci| call_eq(&called[ci], e));
        if called_it {
            continue;
        }
        let listed = if exp.len() > 16 {
            missing_of
                .get(e.name)
                .is_some_and(|ms| ms.iter().any(|&k| call_eq(missing[k], e)))
        } else {
            missing.iter().any(|m| call_eq(m, e))
        };
        if !listed {
            if exp.len() > 16 {
                missing_of.entry(e.name).or_default().push(missing.len());
            }
            missing.push(e);
        }
    }
    s.push_str("Incomplete tool usage: ");
    let mut issues = Issues {
        out: s,
        sep: "; ",
        any: false,
    };
    if !missing.is_empty() || tm.is_empty() {
        let o = issues.next();
        o.push_str("missing tools [");
        for (i, t) in missing.iter().enumerate() {
            if i > 0 {
                o.push_str(", ");
            }
            tool_repr::<ESC>(o, t);
        }
        o.push(']');
    }
    if !tm.is_empty() {
        let o = issues.next();
        o.push_str("tool type mismatches ");
        str_list::<ESC>(o, tm.iter().map(String::as_str));
    }
    tail(s, ". See more details above.");
}

/// The metric's result. The reason is `[\n\t Tool Calling Reason: {calling}\n\t Tool
/// Selection Reason: {selection}\n]\n`, whose calling part is written to a buffer the caller
/// passes, already escaped for a JSON string ([`calling_reason`]): the caller writes the fixed
/// text as an escaped literal, copies the calling part and escapes the selection part.
struct Verdict<'s> {
    score: f64,
    success: Option<bool>,
    threshold: Option<f64>,
    selection_reason: Cow<'s, str>,
}

/// The fixed text of the reason around its two parts, escaped for a JSON string.
macro_rules! reason_head {
    () => {
        "[\\n\\t Tool Calling Reason: "
    };
}
macro_rules! reason_middle {
    () => {
        "\\n\\t Tool Selection Reason: "
    };
}
macro_rules! reason_tail {
    () => {
        "\\n]\\n"
    };
}
macro_rules! no_tools {
    () => {
        "No available tools were provided to assess tool selection criteria"
    };
}
const REASON_MIDDLE: &str = reason_middle!();
const REASON_TAIL: &str = reason_tail!();
const NO_TOOLS: &str = no_tools!();
/// The output line's text from the `reason` key to the calling part.
const REASON_START: &str = concat!(",\"reason\":\"", reason_head!());
/// The output line's text after the calling part, with the usual selection reason.
const NO_TOOLS_END: &str = concat!(reason_middle!(), no_tools!(), reason_tail!(), "\"}");

/// The nesting of a tool's `input_parameters` or `output` at which DeepEval's own recursion
/// reaches CPython 3.11's limit (between 495 and 500 levels, by the path the case takes).
const DEEPEVAL_DEPTH: usize = 495;

/// The error line of a case that sets `judge`.
const JUDGE_IN_LINE: &str = "the `judge` option is not read from case lines: a judge command runs only when the person running toolspec passes `--judge CMD` on the command line (see docs/security.md)";

/// `depth_bound`: no value of the line is nested deeper ([`Raw::depth_bound`]); a line
/// shallower than [`DEEPEVAL_DEPTH`] has no tool value to measure.
fn evaluate<'t, 'a>(
    exp: &[Tool<'t>],
    called: &[Tool<'t>],
    opts: &Options<'t>,
    depth_bound: usize,
    input: impl FnOnce() -> Option<&'a str>,
    calling: &mut String,
    judge: Option<&dyn Judge>,
) -> Result<Verdict<'t>, String> {
    if opts.judge_in_line {
        return Err(JUDGE_IN_LINE.to_owned());
    }
    for t in exp.iter().chain(called) {
        t.validate()?;
    }
    // DeepEval's own code recurses into tool values: past about 495 levels, Python's
    // recursion limit ends the case. The values are measured only in a line that deep.
    if depth_bound >= DEEPEVAL_DEPTH
        && exp.iter().chain(called).any(|t| {
            [t.input_parameters, t.output]
                .into_iter()
                .flatten()
                .any(|v| v.is_container() && depth_of(v) >= DEEPEVAL_DEPTH)
        })
    {
        return Err(
            "RecursionError: maximum recursion depth exceeded while calling a Python object"
                .to_owned(),
        );
    }
    if let Some(p) = opts.evaluation_params.invalid {
        return Err(format!(
            "ValueError: '{p}' is not a valid ToolCallParams (INPUT_PARAMETERS, OUTPUT)"
        ));
    }
    let f = opts.evaluation_params.flags;
    let threshold = if opts.strict_mode {
        Some(1.0)
    } else {
        opts.threshold
    };
    let below = |s: f64| threshold.is_some_and(|t| s < t);
    let mut lcs = Lcs::new();
    let mut by_name = None;
    let raw = if opts.should_exact_match {
        exact_score(exp, called, f)
    } else if opts.should_consider_ordering {
        let (l, weight) = weighted_lcs(exp, called, f)?;
        lcs = l;
        if exp.is_empty() && called.is_empty() {
            1.0
        } else if exp.is_empty() {
            0.0
        } else {
            weight / exp.len() as f64
        }
    } else {
        let by = by_name.insert(ByName::new(called));
        // At most `2 (n + m)²` pairs for `n` called and `m` expected tools: counted only
        // where that could pass the budget.
        let most = (exp.len() + called.len())
            .saturating_pow(2)
            .saturating_mul(2);
        let pairs = if most > UNORDERED_PAIRS {
            unordered_pairs(exp, called, by)
        } else {
            0
        };
        if pairs > UNORDERED_PAIRS {
            return Err(format!(
                "toolspec: DeepEval's unordered matching of {} expected and {} called tools \
                 compares {pairs} pairs of tools of the same name, past the budget of \
                 {UNORDERED_PAIRS} (the case is not scored)",
                exp.len(),
                called.len()
            ));
        }
        unordered_score(exp, called, by, f)?
    };
    let mut score = raw;
    if opts.strict_mode && below(score) {
        score = 0.0;
    }
    let available = opts.available_tools.as_deref().unwrap_or(&[]);
    let (selection, selection_reason): (f64, Cow<'_, str>) = if available.is_empty() {
        (1.0, NO_TOOLS.into())
    } else if let Some(x) = opts.llm_tool_selection_score {
        (x, "oracle stub tool-selection score".into())
    } else if let Some(judge) = judge {
        let req = JudgeRequest {
            input: input(),
            tools_called: called,
            available_tools: available,
        };
        let answer = judge.ask(&req).map_err(|e| e.to_string())?;
        (answer.score, answer.reason.into())
    } else {
        (
            1.0,
            "No judge configured: tool selection not assessed (toolspec scores it 1)".into(),
        )
    };
    let mut final_score = score.min(selection);
    if selection.is_nan() {
        final_score = selection;
    }
    if opts.strict_mode && below(final_score) {
        final_score = 0.0;
    }
    calling_reason::<true>(calling, exp, called, opts, raw, &lcs, by_name.as_ref());
    Ok(Verdict {
        score: final_score,
        success: if opts.threshold_other && !opts.strict_mode {
            Some(false)
        } else {
            threshold.map(|t| final_score >= t)
        },
        threshold,
        selection_reason,
    })
}

/// DeepEval's lines, read into a tape.
pub(crate) struct Deepeval;

impl Peer for Deepeval {
    const PROFILE: &'static ProfileSpec = &DEEPEVAL;

    fn score<'a>(
        line: &'a str,
        out: &mut String,
        reader: Reader,
        scratch: &mut Scratch,
        judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        read::score_line::<Deepeval>(line, out, reader, scratch, judge)
    }
}

impl TapeProfile for Deepeval {
    type Case<'t> = Case<'t>;
    const RUNTIME: Runtime = Runtime::PY311;
    const SHAPE: &'static str = "the case does not have DeepEval's input shape";

    fn case_of<'t>(root: V<'t>, work: &mut Work) -> Option<Case<'t>> {
        case_of(root, work)
    }

    fn check<'a>(line: &CaseLine<'a>) -> Result<(), LineError<'a>> {
        line.case::<SerdeCase<'_>>().map(drop)
    }

    /// The case's list of tools goes back to the worker.
    fn score<'a>(
        case: Case<'_>,
        raw: &Raw<'a, '_>,
        out: &mut String,
        work: &mut Work,
        judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        let result = score_case(&case, raw, out, &mut work.text, judge);
        work.tools = recycle(case.tools);
        result
    }
}

/// [`Deepeval`]'s [`TapeProfile::score`]; `calling` holds the calling part of the reason,
/// built escaped for the line.
fn score_case<'a>(
    case: &Case<'_>,
    raw: &Raw<'a, '_>,
    out: &mut String,
    calling: &mut String,
    judge: Option<&dyn Judge>,
) -> Result<Outcome, LineError<'a>> {
    let id = raw.get("id");
    calling.clear();
    // `LLMTestCase(input=...)` takes a string (an absent input is the oracle's default).
    if raw.get("input").is_some_and(|i| !i.starts_with('"')) {
        return Err(LineError::Rejected {
            id,
            message: "ValidationError: input: Input should be a valid string".to_owned(),
        });
    }
    let result = evaluate(
        case.expected_tools(),
        case.tools_called(),
        &case.options,
        raw.depth_bound(),
        // The judge is given the input as written.
        || raw.get("input").filter(|i| *i != "null"),
        calling,
        judge,
    );
    match result {
        Ok(v) => {
            write_head(out, id.unwrap_or("null"), Some(v.score), v.success);
            // `success` (the same flag as `passed`) with the fixed text around it.
            out.push_str(match v.success {
                Some(true) => ",\"success\":true,\"threshold\":",
                Some(false) => ",\"success\":false,\"threshold\":",
                None => ",\"success\":null,\"threshold\":",
            });
            match v.threshold {
                Some(t) => crate::json::text::json_f64(out, t),
                None => out.push_str("null"),
            }
            out.push_str(REASON_START);
            // Built escaped.
            out.push_str(calling);
            match &v.selection_reason {
                // The usual one: nothing in it to escape.
                Cow::Borrowed(NO_TOOLS) => out.push_str(NO_TOOLS_END),
                other => {
                    out.push_str(REASON_MIDDLE);
                    json_str_body(out, other);
                    out.push_str(REASON_TAIL);
                    out.push_str("\"}");
                }
            }
            Ok(Outcome::of(v.success))
        }
        Err(message) => Err(LineError::Rejected { id, message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::profiles::{read, Reader};

    use std::io::BufRead;

    fn reads_fast(line: &str) -> bool {
        read::testing::reads_fast::<Deepeval>(line)
    }

    fn run(line: &str, fast: bool) -> String {
        run_with(line, if fast { Reader::Tape } else { Reader::Serde })
    }

    fn run_with(line: &str, reader: Reader) -> String {
        read::testing::run::<Deepeval>(line, reader)
    }

    /// A called tool equal to one matched already is skipped, however it is written (`1` and
    /// `1.0` are equal in Python), and a different one is not.
    #[test]
    fn called_tools_equal_to_a_matched_one_are_skipped() {
        let opts = r#""options":{"evaluation_params":["INPUT_PARAMETERS"]}"#;
        for (called, want) in [
            (
                r#"[{"name":"a","input_parameters":{"x":1}},{"name":"a","input_parameters":{"x":1.0}}]"#,
                0.5,
            ),
            (
                r#"[{"name":"a","input_parameters":{"x":1}},{"name":"a","input_parameters":{"x":1,"y":2}}]"#,
                0.75,
            ),
            (
                r#"[{"name":"a","input_parameters":{"x":1}},{"name":"b"},{"name":"a","input_parameters":{"x":1}}]"#,
                0.5,
            ),
        ] {
            let line = format!(
                r#"{{"tools_called":{called},"expected_tools":[{{"name":"a","input_parameters":{{"x":1}}}},{{"name":"a","input_parameters":{{"x":1}}}}],{opts}}}"#
            );
            for fast in [true, false] {
                let v: serde_json::Value = serde_json::from_str(&run(&line, fast)).unwrap();
                assert_eq!(v["score"], want, "{line}");
            }
        }
    }

    /// The calling reason built escaped is the escape of the reason built as text, whatever
    /// its names, types, descriptions and values hold: quotes, backslashes, control bytes,
    /// non-ASCII text, names Python quotes with `"` (they hold a `'`) or escapes.
    #[test]
    fn calling_reason_built_escaped_is_the_escaped_text() {
        let names = [
            "plain",
            "q\"uote",
            "it's",
            "both'\"",
            "back\\slash",
            "nl\nt\tcr\r",
            "ctl\u{1}\u{1f}\u{7f}",
            "é😀\u{2028}",
            "",
        ];
        let values = [
            r#"{"a":"x\"y\\z\n\u0001é","b":[1,2.5,-3,true,null,{"c":"'"}],"k\"ey":{}}"#,
            r"{}",
            r#"{"x":1e300,"y":[],"z":{"w":"\u2028😀"}}"#,
            r#""s'tr\"ing\n""#,
            r#"[1,"a\\b",{"k":"v"}]"#,
            r"7.0",
            r"null",
        ];
        let mut lines = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let name = serde_json::to_string(name).unwrap();
            let other = serde_json::to_string(names[(i + 3) % names.len()]).unwrap();
            let v1 = values[i % values.len()];
            let v2 = values[(i + 2) % values.len()];
            let desc = serde_json::to_string(names[(i + 1) % names.len()]).unwrap();
            let tools_called = format!(
                r#"[{{"name":{name},"input_parameters":{v2},"output":{v1},"type":"MCP"}},{{"name":{other},"output":{v2}}}]"#
            );
            let expected_tools = format!(
                r#"[{{"name":{name},"input_parameters":{v1},"output":{v2},"description":{desc},"reasoning":{other}}},{{"name":{other},"input_parameters":{{"p":{v1}}},"output":{v1},"type":"MCP"}}]"#
            );
            lines.push(format!(
                r#"{{"tools_called":{tools_called},"expected_tools":{expected_tools}}}"#
            ));
            lines.push(format!(
                r#"{{"tools_called":[],"expected_tools":{expected_tools}}}"#
            ));
        }
        let mut checked = 0;
        for line in &lines {
            let mut bufs = crate::json::tape::Buffers::default();
            let tape = crate::json::tape::Tape::parse(line, &mut bufs).expect(line);
            let case = case_of(tape.root(), &mut Work::default()).expect(line);
            let (exp, called) = (case.expected_tools(), case.tools_called());
            let lcs: Vec<usize> = (0..exp.len()).step_by(2).collect();
            for (exact, ordering) in [(false, false), (false, true), (true, false)] {
                for raw in [0.0, 0.5, 1.0] {
                    let opts = Options {
                        should_exact_match: exact,
                        should_consider_ordering: ordering,
                        ..Options::default()
                    };
                    let mut text = String::new();
                    calling_reason::<false>(&mut text, exp, called, &opts, raw, &lcs, None);
                    let mut want = String::new();
                    json_str_body(&mut want, &text);
                    let mut got = String::from("prefix ");
                    calling_reason::<true>(&mut got, exp, called, &opts, raw, &lcs, None);
                    assert_eq!(got, format!("prefix {want}"), "{line}");
                    checked += usize::from(text.contains("ToolCall("));
                }
            }
        }
        assert!(checked > 0);
    }

    /// `dict_score`'s equality is Python's `d1 == d2` (key order ignored, `1 == 1.0 == True`,
    /// nested dicts and lists), equal dicts score 1, and unequal ones score what
    /// `_compare_dicts` gives (here written out plainly: a share per key of either dict, a point
    /// for an equal value, a nested share for a pair of unequal dicts).
    #[test]
    fn dict_score_is_python_equality_and_compare_dicts() {
        fn reference(a: V<'_>, b: V<'_>) -> f64 {
            let keys_b: Vec<&[u8]> = b.members().map(|(k, _)| k).collect();
            let total =
                a.entries().len() + keys_b.iter().filter(|k| a.get_bytes(k).is_none()).count();
            let mut s = 0.0;
            for (k, v1) in a.members() {
                let Some(v2) = b.get_bytes(k) else { continue };
                if py_eq(v1, v2) {
                    s += 1.0 / total as f64;
                } else if v1.is_obj() && v2.is_obj() {
                    s += reference(v1, v2) / total as f64;
                }
            }
            s
        }
        let values = [
            "1",
            "1.0",
            "true",
            "2",
            "0",
            "false",
            "\"a\"",
            "null",
            "[1,2]",
            "[1.0,2]",
            "[2,1]",
            "{\"x\":1}",
            "{\"x\":1.0}",
            "{\"x\":2}",
            "{\"y\":1}",
            "{\"x\":{\"z\":[1]}}",
        ];
        // Dicts of up to three keys, in both orders, values from the pool.
        let mut dicts = vec!["{}".to_owned()];
        for (i, v) in values.iter().enumerate() {
            let w = values[(i * 7 + 3) % values.len()];
            let u = values[(i * 5 + 1) % values.len()];
            dicts.push(format!("{{\"a\":{v}}}"));
            dicts.push(format!("{{\"a\":{v},\"b\":{w}}}"));
            dicts.push(format!("{{\"b\":{w},\"a\":{v}}}"));
            dicts.push(format!("{{\"a\":{v},\"b\":{w},\"c\":{u}}}"));
            dicts.push(format!("{{\"c\":{u},\"a\":{v}}}"));
        }
        let (mut equal, mut unequal) = (0, 0);
        for x in &dicts {
            for y in &dicts {
                let text = format!("[{x},{y}]");
                let mut bufs = crate::json::tape::Buffers::default();
                let t = crate::json::tape::Tape::parse(&text, &mut bufs).expect(&text);
                let mut items = t.root().items();
                let (a, b) = (items.next().unwrap(), items.next().unwrap());
                let (score, eq) = dict_score(a, b);
                assert_eq!(eq, py_eq(a, b), "{text}");
                if eq {
                    assert_eq!(score, 1.0, "{text}");
                    equal += 1;
                } else {
                    assert_eq!(score, reference(a, b), "{text}");
                    assert!(score < 1.0, "{text}");
                    unequal += 1;
                }
            }
        }
        // Equal pairs with different texts are among them (`1` against `1.0`, key order).
        assert!(equal > dicts.len() && unequal > 0, "{equal} {unequal}");
    }

    /// `_compare_dicts` gives the same share whatever the key order, up to and past the size
    /// where the members are paired before scoring (16 keys): `len(d1) + len(d2 - d1)` in the
    /// denominator, a point per equal value, a nested share per pair of unequal dicts.
    #[test]
    fn compare_dicts_is_the_same_in_any_key_order_and_size() {
        for n in [1usize, 3, 15, 16, 17, 24] {
            // d1: k0..k{n-1}; d2: the same keys but every third missing, every fourth value
            // different, every fifth a nested dict half equal, and two keys of its own.
            let d1: Vec<String> = (0..n)
                .map(|i| match i % 5 {
                    4 => format!(r#""k{i}":{{"a":1,"b":2}}"#),
                    _ => format!(r#""k{i}":{i}"#),
                })
                .collect();
            let mut d2: Vec<String> = (0..n)
                .filter(|i| i % 3 != 2)
                .map(|i| match i % 5 {
                    4 => format!(r#""k{i}":{{"a":1,"b":3}}"#),
                    _ if i % 4 == 3 => format!(r#""k{i}":"x""#),
                    _ => format!(r#""k{i}":{i}"#),
                })
                .chain([r#""extra1":1"#.to_owned(), r#""extra2":2"#.to_owned()])
                .collect();
            let (present, mut points) = (d2.len() - 2, 0.0);
            let total = (n + 2) as f64;
            for i in (0..n).filter(|i| i % 3 != 2) {
                points += match i % 5 {
                    4 => 0.5,
                    _ if i % 4 == 3 => 0.0,
                    _ => 1.0,
                };
            }
            assert!(present <= n);
            let want = points / total;
            let line = |d: &[String]| format!("[{{{}}},{{{}}}]", d1.join(","), d.join(","));
            for reversed in [false, true] {
                if reversed {
                    d2.reverse();
                }
                let text = line(&d2);
                let mut bufs = crate::json::tape::Buffers::default();
                let t = crate::json::tape::Tape::parse(&text, &mut bufs).expect(&text);
                let mut items = t.root().items();
                let (a, b) = (items.next(), items.next());
                let got = dict_score(a.unwrap(), b.unwrap()).0;
                assert!(
                    (got - want).abs() < 1e-12,
                    "{n} keys, reversed {reversed}: {got} against {want}"
                );
            }
        }
    }

    /// The selection reason written without escaping needs none.
    #[test]
    fn no_tools_reason_needs_no_escaping() {
        let mut escaped = String::new();
        json_str_body(&mut escaped, NO_TOOLS);
        assert_eq!(escaped, NO_TOOLS);
    }

    /// Without `options` (absent or `null`) the threshold is DeepEval's default 0.5, as the
    /// oracle builds the metric (`opts = case.get("options") or {}`).
    #[test]
    fn absent_options_keep_the_default_threshold() {
        for line in [
            r#"{"id":1,"tools_called":[{"name":"a"}],"expected_tools":[{"name":"a"},{"name":"b"}]}"#,
            r#"{"id":1,"tools_called":[{"name":"a"}],"expected_tools":[{"name":"a"},{"name":"b"}],"options":null}"#,
        ] {
            for fast in [true, false] {
                let v: serde_json::Value = serde_json::from_str(&run(line, fast)).unwrap();
                assert_eq!(v["threshold"], 0.5, "{line}");
                assert_eq!(v["score"], 0.5, "{line}");
                assert_eq!(v["success"], true, "{line}");
            }
        }
    }

    /// The fast reader and serde_json give the same output on every vector combination and on
    /// odd lines.
    #[test]
    fn fast_reader_agrees_with_serde() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/vectors/deepeval.jsonl.gz"
        );
        let file = std::fs::File::open(path).unwrap();
        let mut lines = Vec::new();
        for l in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let l = l.unwrap();
            let v: serde_json::Value = serde_json::from_str(&l).unwrap();
            for r in v["results"].as_array().into_iter().flatten() {
                lines.push(
                    serde_json::json!({"id": v["id"], "tools_called": v["tools_called"],
                        "expected_tools": v["expected_tools"], "options": r["options"]})
                    .to_string(),
                );
            }
            lines.push(l);
        }
        let fast = lines.iter().filter(|l| reads_fast(l)).count();
        assert!(fast > lines.len() / 2, "{fast} of {}", lines.len());
        let t = r#"{"name":"a","input_parameters":{"x":[1,2.5]},"output":null,"type":"MCP","description":"d","reasoning":null,"z":1}"#;
        for extra in [
            format!(r#"{{"id":"x","input":{{"q":1}},"tools_called":[{t}],"expected_tools":[{t}],"options":{{}}}}"#),
            format!(r#"{{"id":1,"tools_called":[{t}],"expected_tools":[],"options":null}}"#),
            format!(r#"{{"tools_called":[{t}],"expected_tools":[{t}],"options":{{"threshold":null,"strict_mode":true,"evaluation_params":["INPUT_PARAMETERS","OUTPUT"]}}}}"#),
            format!(r#"{{"tools_called":[],"expected_tools":[{t}],"options":{{"available_tools":[{t}],"llm_tool_selection_score":0.25,"should_consider_ordering":true}}}}"#),
            r#"{"tools_called":[],"expected_tools":[],"options":{"strict_mode":null}}"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[],"tools_called":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":null}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","input_parameters":[1e400]}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","input_parameters":{"s":"\u00e9"}}],"expected_tools":[{"name":"a","input_parameters":{"s":"é"}}],"options":{"evaluation_params":["INPUT_PARAMETERS"]}}"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[]}"#.to_owned(),
        ] {
            lines.push(extra);
        }
        for l in &lines {
            assert_eq!(run(l, true), run(l, false), "{l}");
        }
        // The same lines with spaces.
        for l in &lines {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(l) else {
                continue;
            };
            let spaced = serde_json::to_string_pretty(&v).unwrap().replace('\n', " ");
            assert_eq!(run(&spaced, true), run(&spaced, false), "{spaced}");
        }
    }

    /// The usual lines, and what the tape reader leaves to serde_json (repeated or escaped
    /// keys, shapes the case does not have, values past the tape's limits, malformed lines):
    /// every line gives the same output whichever reader starts.
    #[test]
    fn odd_lines_score_alike_with_either_reader() {
        let t =
            r#"{"name":"a","input_parameters":{"x":[1,2.5,{"y":null}],"z":"\u00e9"},"output":"o"}"#;
        let opts = r#"{"evaluation_params":["INPUT_PARAMETERS","OUTPUT"],"should_consider_ordering":false,"should_exact_match":false,"strict_mode":false,"threshold":0.5}"#;
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let taken = [
            format!(r#"{{"id":"c1","tools_called":[{t}],"expected_tools":[{t}],"options":{opts}}}"#),
            format!(r#" {{ "id" : 7 , "input" : {{"q":[1]}} , "tools_called" : [ {t} ] , "expected_tools" : [ ] , "options" : null }} "#),
            format!(r#"{{"tools_called":[{t}],"expected_tools":[{{"name":"\ta","type":"MCP","description":null,"reasoning":"r","extra":[1,{{"k":true}}]}}]}}"#),
            format!(r#"{{"x":{{"a":1}},"tools_called":[{{"name":"a","input_parameters":null,"output":null}}],"expected_tools":[{t}],"options":{{}}}}"#),
            // Options of every kind.
            format!(r#"{{"tools_called":[{t}],"expected_tools":[{t}],"options":{{"available_tools":[{t}],"llm_tool_selection_score":0.25,"strict_mode":1}}}}"#),
            format!(r#"{{"tools_called":[{t}],"expected_tools":[{t}],"options":{{"threshold":7,"should_exact_match":true,"evaluation_params":["OUTPUT","X"]}}}}"#),
            // Tools that the validation rejects are still read (the error is the metric's).
            format!(r#"{{"tools_called":[{{"name":"a","type":"OTHER","input_parameters":[1]}}],"expected_tools":[{t}]}}"#),
            // A number beyond 64 bits, as serde_json reads it (a float).
            r#"{"tools_called":[],"expected_tools":[],"options":{"threshold":123456789012345678901234567890}}"#.to_owned(),
            // A repeated unknown key is ignored, as serde_json ignores it.
            format!(r#"{{"z":1,"z":2,"tools_called":[{t}],"expected_tools":[]}}"#),
            // A threshold of another type, read from the tape.
            r#"{"tools_called":[],"expected_tools":[],"options":{"threshold":"x"}}"#.to_owned(),
        ];
        let left = [
            // Repeated known keys: serde_json's error.
            format!(r#"{{"tools_called":[{t}],"tools_called":[],"expected_tools":[]}}"#),
            r#"{"id":1,"id":2,"tools_called":[],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","name":"b"}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[],"options":{"strict_mode":true,"strict_mode":false}}"#.to_owned(),
            // A repeated key inside a value: Python keeps the last one.
            r#"{"tools_called":[{"name":"a","input_parameters":{"x":1,"x":2}}],"expected_tools":[{"name":"a","input_parameters":{"x":2}}],"options":{"evaluation_params":["INPUT_PARAMETERS"]}}"#.to_owned(),
            // An escaped key.
            r#"{"tools_c\u0061lled":[],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"n\u0061me":"a"}],"expected_tools":[]}"#.to_owned(),
            // Shapes the case does not have.
            r#"{"tools_called":[{"name":null}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":1}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","type":2}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"input_parameters":{}}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[]}"#.to_owned(),
            r#"{"tools_called":null,"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[1],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[],"options":[1]}"#.to_owned(),
            // What the tape reader leaves to serde_json, in a value.
            r#"{"tools_called":[{"name":"a","output":1e400}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","output":"\ud83d\ude00"}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[],"options":{"threshold":1e400}}"#.to_owned(),
            format!(r#"{{"tools_called":[{{"name":"a","output":{deep}}}],"expected_tools":[]}}"#),
            // Malformed lines.
            r#"{"tools_called":[],"expected_tools":[]} x"#.to_owned(),
            r#"{"tools_called":[],"expected_tools":[],}"#.to_owned(),
            r#"{"tools_called":[{"name":"a",}],"expected_tools":[]}"#.to_owned(),
            r#"{"tools_called":[{"name":"a","output":nul}],"expected_tools":[]}"#.to_owned(),
            "{\"tools_called\":[{\"name\":\"a\u{1}\"}],\"expected_tools\":[]}".to_owned(),
            r#"{"tools_called":[],"expected_tools":[],"options":{"strict_mode":truex}}"#.to_owned(),
        ];
        for l in taken.iter().chain(&left) {
            assert_eq!(run(l, true), run(l, false), "{l}");
        }
    }
}
