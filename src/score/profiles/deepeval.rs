//! DeepEval `ToolCorrectnessMetric` 4.3.1 (`deepeval/metrics/tool_correctness/tool_correctness.py`).
//!
//! Input line: `{id, input?, tools_called[T], expected_tools[T], options{evaluation_params,
//! should_consider_ordering, should_exact_match, strict_mode, threshold, available_tools,
//! llm_tool_selection_score, judge}}` with `T = {name, input_parameters, output, type?,
//! description?, reasoning?}`. The tool-selection part (an LLM asked about `available_tools`)
//! is answered by `llm_tool_selection_score` (the oracle's stub), else by the `judge` command
//! (see [`super::judge`]), else scores 1 as DeepEval does without available tools.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fast::Parser;
use super::judge::{self, JudgeRequest};
use super::text::{py_json_indent, py_repr, py_str_list};
use super::value::{from_line, lazy_py_eq, py_eq, Lazy, Val};
use super::{raw_id, write_head, write_opt_bool, LineError, Outcome};

/// One `ToolCall` as pydantic validates it.
#[derive(Deserialize, Debug)]
pub(crate) struct Tool<'a> {
    #[serde(borrow)]
    pub(crate) name: Cow<'a, str>,
    #[serde(borrow, default)]
    pub(crate) input_parameters: Option<Lazy<'a>>,
    #[serde(borrow, default)]
    pub(crate) output: Option<Lazy<'a>>,
    #[serde(borrow, default, rename = "type")]
    pub(crate) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) description: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) reasoning: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Options<'a> {
    #[serde(borrow, default)]
    evaluation_params: Vec<Cow<'a, str>>,
    #[serde(default, deserialize_with = "py_truthy")]
    should_consider_ordering: bool,
    #[serde(default, deserialize_with = "py_truthy")]
    should_exact_match: bool,
    #[serde(default, deserialize_with = "py_truthy")]
    strict_mode: bool,
    #[serde(default = "default_threshold")]
    threshold: Option<f64>,
    #[serde(borrow, default)]
    available_tools: Option<Vec<Tool<'a>>>,
    #[serde(default)]
    llm_tool_selection_score: Option<f64>,
    #[serde(borrow, default)]
    judge: Option<Cow<'a, str>>,
}

/// The oracle passes these flags as `bool(opts.get(...))`: Python truthiness of any JSON value
/// (`null`, `0`, `""`, `[]`, `{}` are false).
fn py_truthy<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(match Val::deserialize(d)? {
        Val::Null => false,
        Val::Bool(b) => b,
        Val::Int(i) => i != 0,
        Val::UInt(u) => u != 0,
        Val::Float(f) => f != 0.0,
        Val::Str(s) => !s.is_empty(),
        Val::Arr(items) => !items.is_empty(),
        Val::Obj(entries) => !entries.is_empty(),
    })
}

#[allow(clippy::unnecessary_wraps)]
fn default_threshold() -> Option<f64> {
    Some(0.5)
}

/// DeepEval's defaults: what the oracle passes for a line without `options` (or `null`).
impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            evaluation_params: Vec::new(),
            should_consider_ordering: false,
            should_exact_match: false,
            strict_mode: false,
            threshold: default_threshold(),
            available_tools: None,
            llm_tool_selection_score: None,
            judge: None,
        }
    }
}

#[derive(Deserialize)]
struct Case<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tools_called: Vec<Tool<'a>>,
    #[serde(borrow)]
    expected_tools: Vec<Tool<'a>>,
    #[serde(borrow, default)]
    options: Option<Options<'a>>,
}

/// The fast reader (see [`super::fast`]) for a whole line: `None` sends the line to serde_json.
/// Reproduces the derived structs: known fields at most once, required fields present, `null`
/// for an `Option` is `None`, `threshold` defaults to 0.5 only when absent.
fn fast_case(line: &str) -> Option<Case<'_>> {
    let mut p = Parser::new(line);
    p.eat(b'{')?;
    let mut c = Case {
        id: None,
        input: None,
        tools_called: Vec::new(),
        expected_tools: Vec::new(),
        options: None,
    };
    let mut seen = [false; 5];
    loop {
        let k = p.string()?;
        p.eat(b':')?;
        let slot = match k {
            "id" => 0,
            "input" => 1,
            "tools_called" => 2,
            "expected_tools" => 3,
            "options" => 4,
            _ => 5,
        };
        if slot < 5 {
            if seen[slot] {
                return None;
            }
            seen[slot] = true;
        }
        match slot {
            0 => c.id = Some(raw(p.skip_value()?)?),
            1 => c.input = Some(raw(p.skip_value()?)?).filter(|r| r.get() != "null"),
            2 => c.tools_called = fast_tools(&mut p)?,
            3 => c.expected_tools = fast_tools(&mut p)?,
            4 => c.options = fast_options(&mut p)?,
            _ => {
                p.skip_value()?;
            }
        }
        if !p.comma_or(b'}')? {
            break;
        }
    }
    (seen[2] && seen[3] && p.at_end()).then_some(c)
}

/// A checked raw text as a `RawValue` (it parses, so this only wraps it).
fn raw(s: &str) -> Option<&RawValue> {
    serde_json::from_str(s).ok()
}

fn is_null(p: &mut Parser<'_>) -> Option<bool> {
    p.ws();
    if p.peek()? == b'n' {
        p.value()?;
        Some(true)
    } else {
        Some(false)
    }
}

fn fast_opt_str<'a>(p: &mut Parser<'a>) -> Option<Option<Cow<'a, str>>> {
    if is_null(p)? {
        return Some(None);
    }
    Some(Some(Cow::Borrowed(p.string()?)))
}

fn fast_opt_f64(p: &mut Parser<'_>) -> Option<Option<f64>> {
    match p.value()? {
        Val::Null => Some(None),
        v => Some(Some(v.as_f64()?)),
    }
}

fn fast_bool(p: &mut Parser<'_>) -> Option<bool> {
    match p.value()? {
        Val::Bool(b) => Some(b),
        _ => None,
    }
}

fn fast_lazy<'a>(p: &mut Parser<'a>) -> Option<Option<Lazy<'a>>> {
    let raw = p.skip_value()?;
    Some((raw != "null").then(|| Lazy::checked(raw)))
}

fn fast_tools<'a>(p: &mut Parser<'a>) -> Option<Vec<Tool<'a>>> {
    p.eat(b'[')?;
    let mut tools = Vec::new();
    p.ws();
    if p.peek()? == b']' {
        p.eat(b']')?;
        return Some(tools);
    }
    loop {
        tools.push(fast_tool(p)?);
        if !p.comma_or(b']')? {
            break;
        }
    }
    Some(tools)
}

fn fast_tool<'a>(p: &mut Parser<'a>) -> Option<Tool<'a>> {
    p.eat(b'{')?;
    let mut t = Tool {
        name: Cow::Borrowed(""),
        input_parameters: None,
        output: None,
        kind: None,
        description: None,
        reasoning: None,
    };
    let mut seen = [false; 6];
    loop {
        let k = p.string()?;
        p.eat(b':')?;
        let slot = match k {
            "name" => 0,
            "input_parameters" => 1,
            "output" => 2,
            "type" => 3,
            "description" => 4,
            "reasoning" => 5,
            _ => 6,
        };
        if slot < 6 {
            if seen[slot] {
                return None;
            }
            seen[slot] = true;
        }
        match slot {
            0 => t.name = Cow::Borrowed(p.string()?),
            1 => t.input_parameters = fast_lazy(p)?,
            2 => t.output = fast_lazy(p)?,
            3 => t.kind = fast_opt_str(p)?,
            4 => t.description = fast_opt_str(p)?,
            5 => t.reasoning = fast_opt_str(p)?,
            _ => {
                p.skip_value()?;
            }
        }
        if !p.comma_or(b'}')? {
            break;
        }
    }
    seen[0].then_some(t)
}

fn fast_options<'a>(p: &mut Parser<'a>) -> Option<Option<Options<'a>>> {
    if is_null(p)? {
        return Some(None);
    }
    p.eat(b'{')?;
    let mut o = Options {
        threshold: default_threshold(),
        ..Options::default()
    };
    p.ws();
    if p.peek()? == b'}' {
        p.eat(b'}')?;
        return Some(Some(o));
    }
    let mut seen = [false; 8];
    loop {
        let k = p.string()?;
        p.eat(b':')?;
        let slot = match k {
            "evaluation_params" => 0,
            "should_consider_ordering" => 1,
            "should_exact_match" => 2,
            "strict_mode" => 3,
            "threshold" => 4,
            "available_tools" => 5,
            "llm_tool_selection_score" => 6,
            "judge" => 7,
            _ => 8,
        };
        if slot < 8 {
            if seen[slot] {
                return None;
            }
            seen[slot] = true;
        }
        match slot {
            0 => {
                p.eat(b'[')?;
                p.ws();
                if p.peek()? == b']' {
                    p.eat(b']')?;
                } else {
                    loop {
                        o.evaluation_params.push(Cow::Borrowed(p.string()?));
                        if !p.comma_or(b']')? {
                            break;
                        }
                    }
                }
            }
            1 => o.should_consider_ordering = fast_bool(p)?,
            2 => o.should_exact_match = fast_bool(p)?,
            3 => o.strict_mode = fast_bool(p)?,
            4 => o.threshold = fast_opt_f64(p)?,
            5 => {
                o.available_tools = if is_null(p)? {
                    None
                } else {
                    Some(fast_tools(p)?)
                }
            }
            6 => o.llm_tool_selection_score = fast_opt_f64(p)?,
            7 => o.judge = fast_opt_str(p)?,
            _ => {
                p.skip_value()?;
            }
        }
        if !p.comma_or(b'}')? {
            break;
        }
    }
    Some(Some(o))
}

impl<'a> Tool<'a> {
    fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("FUNCTION")
    }
    fn validate(&self) -> Result<(), String> {
        if !matches!(self.kind(), "FUNCTION" | "MCP") {
            return Err(format!(
                "ValidationError: type: Input should be 'FUNCTION' or 'MCP' (got {:?})",
                self.kind()
            ));
        }
        match &self.input_parameters {
            Some(p) if !p.is_null() && !p.is_obj() => Err(format!(
                "ValidationError: input_parameters: Input should be a valid dictionary (got {})",
                p.val().type_name()
            )),
            _ => Ok(()),
        }
    }
    /// `input_parameters`, `None` for absent or `null`.
    fn params(&self) -> Option<&Lazy<'a>> {
        self.input_parameters.as_ref().filter(|p| !p.is_null())
    }
    /// `output`, `None` for absent or `null`.
    fn out(&self) -> Option<&Lazy<'a>> {
        self.output.as_ref().filter(|p| !p.is_null())
    }
}

/// Python `==` of two optional values (`None` is `null`).
fn opt_eq(a: Option<&Lazy<'_>>, b: Option<&Lazy<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => lazy_py_eq(x, y),
        _ => false,
    }
}

fn val_opt_eq(a: Option<&Val<'_>>, b: Option<&Val<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    }
}

/// `ToolCall.__eq__`: name, input_parameters and output (not the type).
fn call_eq(a: &Tool<'_>, b: &Tool<'_>) -> bool {
    a.name == b.name && opt_eq(a.params(), b.params()) && opt_eq(a.out(), b.out())
}

fn same_tool(e: &Tool<'_>, c: &Tool<'_>) -> bool {
    e.name == c.name && e.kind() == c.kind()
}

const NONE_KEYS: &str = "AttributeError: 'NoneType' object has no attribute 'keys'";

/// `_compare_dicts(d1 = expected, d2 = called)`.
fn compare_dicts(d1: Option<&Val<'_>>, d2: Option<&Val<'_>>) -> Result<f64, String> {
    if val_opt_eq(d1, d2) {
        return Ok(1.0);
    }
    let (Some(Val::Obj(a)), Some(Val::Obj(b))) = (d1, d2) else {
        return Err(NONE_KEYS.to_owned());
    };
    let common = a.iter().filter(|(k, _)| b.iter().any(|(k2, _)| k2 == k));
    let total = (a.len()
        + b.iter()
            .filter(|(k, _)| !a.iter().any(|(k1, _)| k1 == k))
            .count()) as f64;
    let mut s = 0.0;
    for (k, v1) in common {
        let v2 = b.iter().find(|(k2, _)| k2 == k).map(|(_, v)| v);
        let Some(v2) = v2 else { continue };
        if py_eq(v1, v2) {
            s += 1.0 / total;
        } else if matches!((v1, v2), (Val::Obj(_), Val::Obj(_))) {
            s += compare_dicts(Some(v1), Some(v2))? / total;
        }
    }
    Ok(s)
}

struct Flags {
    ip: bool,
    out: bool,
}

fn pair_score(e: &Tool<'_>, c: &Tool<'_>, f: &Flags) -> Result<f64, String> {
    let mut s = 1.0;
    if f.ip && !opt_eq(e.params(), c.params()) {
        s *= compare_dicts(e.params().map(Lazy::val), c.params().map(Lazy::val))?;
    }
    if f.out && !opt_eq(e.out(), c.out()) {
        s = 0.0;
    }
    Ok(s)
}

fn exact_score(exp: &[Tool<'_>], called: &[Tool<'_>], f: &Flags) -> f64 {
    if called.len() != exp.len() {
        return 0.0;
    }
    for (c, e) in called.iter().zip(exp) {
        if c.name != e.name || c.kind() != e.kind() {
            return 0.0;
        }
        if f.ip && !opt_eq(c.params(), e.params()) {
            return 0.0;
        }
        if f.out && !opt_eq(c.out(), e.out()) {
            return 0.0;
        }
    }
    1.0
}

fn unordered_score(exp: &[Tool<'_>], called: &[Tool<'_>], f: &Flags) -> Result<f64, String> {
    let mut total = 0.0;
    let mut matched: Vec<usize> = Vec::new();
    for e in exp {
        let mut best = 0.0;
        let mut best_c = None;
        for (ci, c) in called.iter().enumerate() {
            if matched.iter().any(|&m| call_eq(c, &called[m])) {
                continue;
            }
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
                matched.push(ci);
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

/// `_compute_weighted_lcs`: the LCS (expected indices) and its weight summed on the backtrack.
fn weighted_lcs(
    exp: &[Tool<'_>],
    called: &[Tool<'_>],
    f: &Flags,
) -> Result<(Vec<usize>, f64), String> {
    let (m, n) = (exp.len(), called.len());
    let w = n + 1;
    let mut dp = vec![0.0f64; (m + 1) * w];
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
    let mut lcs = Vec::new();
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

/// `ToolCall.__repr__`.
fn tool_repr(out: &mut String, t: &Tool<'_>) {
    out.push_str("ToolCall(\n    ");
    let mut first = true;
    let mut field = |out: &mut String, label: &str| {
        if !first {
            out.push_str(",\n    ");
        }
        first = false;
        out.push_str(label);
        out.push('=');
    };
    if !t.name.is_empty() {
        field(out, "name");
        out.push('"');
        out.push_str(&t.name);
        out.push('"');
    }
    field(out, "type");
    out.push('"');
    out.push_str(t.kind());
    out.push('"');
    if let Some(d) = t.description.as_deref().filter(|d| !d.is_empty()) {
        field(out, "description");
        out.push('"');
        out.push_str(d);
        out.push('"');
    }
    if let Some(r) = t.reasoning.as_deref().filter(|r| !r.is_empty()) {
        field(out, "reasoning");
        out.push('"');
        out.push_str(r);
        out.push('"');
    }
    // `json.dumps(indent=4)` with every line after the first indented once more: the same as
    // dumping one level deeper.
    if let Some(p) = t.params() {
        let v = p.val();
        if matches!(v, Val::Obj(e) if !e.is_empty()) {
            field(out, "input_parameters");
            py_json_indent(out, v, 1);
        }
    }
    match t.out().map(Lazy::val) {
        None | Some(Val::Null) => {}
        Some(v @ Val::Obj(entries)) => {
            field(out, "output");
            py_json_indent(out, v, 1);
            // `_indent_nested_field` adds "\n" + the lines after the first: a one-line dump
            // (`{}`) ends with an empty line.
            if entries.is_empty() {
                out.push('\n');
            }
        }
        Some(v) => {
            field(out, "output");
            py_repr(out, v);
        }
    }
    out.push_str("\n)");
}

fn type_mismatches(exp: &[Tool<'_>], called: &[Tool<'_>]) -> Vec<String> {
    let mut v = Vec::new();
    for e in exp {
        if let Some(c) = called
            .iter()
            .find(|c| e.name == c.name && e.kind() != c.kind())
        {
            v.push(format!(
                "{} (expected {}, called {})",
                e.name,
                e.kind(),
                c.kind()
            ));
        }
    }
    v
}

/// Distinct names in first-appearance order (DeepEval lists a Python set here, in hash order;
/// toolspec fixes the order so the text is reproducible).
fn distinct<'s>(names: impl Iterator<Item = &'s str>) -> Vec<&'s str> {
    let mut v: Vec<&str> = Vec::new();
    for n in names {
        if !v.contains(&n) {
            v.push(n);
        }
    }
    v
}

fn names_repr(out: &mut String, tools: &[Tool<'_>]) {
    py_str_list(out, tools.iter().map(|t| t.name.as_ref()));
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

/// `_generate_reason` (the tool-calling part), appended to `s`.
/// `raw` is the mode's score before strict mode and tool selection (what DeepEval recomputes
/// here), `lcs` the weighted LCS of ordering mode.
fn calling_reason(
    s: &mut String,
    exp: &[Tool<'_>],
    called: &[Tool<'_>],
    opts: &Options<'_>,
    raw: f64,
    lcs: &[usize],
) {
    let tm = type_mismatches(exp, called);
    let tail = |s: &mut String, end: &str| {
        s.push_str("; expected ");
        names_repr(s, exp);
        s.push_str(", called ");
        names_repr(s, called);
        s.push_str(end);
    };
    if opts.should_exact_match {
        s.push_str(if raw != 0.0 {
            "Exact match"
        } else {
            "Not an exact match"
        });
        s.push_str(": expected ");
        names_repr(s, exp);
        s.push_str(", called ");
        names_repr(s, called);
        s.push('.');
        if !tm.is_empty() {
            s.push_str(" Tool type mismatches: ");
            py_str_list(s, tm.iter().map(String::as_str));
            s.push('.');
        }
        s.push_str(" See details above.");
        return;
    }
    if opts.should_consider_ordering {
        if raw == 1.0 {
            s.push_str("Correct ordering: all expected tools ");
            names_repr(s, exp);
            s.push_str(" were called in the correct order.");
            return;
        }
        let exp_set = distinct(exp.iter().map(|t| t.name.as_ref()));
        let missing = exp_set
            .iter()
            .copied()
            .filter(|n| !called.iter().any(|c| c.name == *n));
        let out_of_order = exp_set
            .iter()
            .copied()
            .filter(|n| !lcs.iter().any(|&i| exp[i].name == *n));
        s.push_str("Incorrect tool usage: ");
        let mut issues = Issues {
            out: s,
            sep: " and ",
            any: false,
        };
        if missing.clone().next().is_some() {
            let o = issues.next();
            o.push_str("missing tools ");
            py_str_list(o, missing);
        }
        if out_of_order.clone().next().is_some() {
            let o = issues.next();
            o.push_str("out-of-order tools ");
            py_str_list(o, out_of_order);
        }
        if !tm.is_empty() {
            let o = issues.next();
            o.push_str("tool type mismatches ");
            py_str_list(o, tm.iter().map(String::as_str));
        }
        tail(s, ". See more details above.");
        return;
    }
    if raw == 1.0 {
        s.push_str("All expected tools ");
        names_repr(s, exp);
        s.push_str(" were called (order not considered).");
        return;
    }
    // set(expected) - (set(called) & set(expected)), by ToolCall equality.
    let mut missing: Vec<&Tool<'_>> = Vec::new();
    for e in exp {
        if !called.iter().any(|c| call_eq(c, e)) && !missing.iter().any(|m| call_eq(m, e)) {
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
            tool_repr(o, t);
        }
        o.push(']');
    }
    if !tm.is_empty() {
        let o = issues.next();
        o.push_str("tool type mismatches ");
        py_str_list(o, tm.iter().map(String::as_str));
    }
    tail(s, ". See more details above.");
}

/// The metric's result (the reason is written to a buffer the caller passes).
struct Verdict {
    score: f64,
    success: Option<bool>,
    threshold: Option<f64>,
}

const NO_TOOLS: &str = "No available tools were provided to assess tool selection criteria";

fn evaluate<'a>(
    exp: &[Tool<'a>],
    called: &[Tool<'a>],
    opts: &Options<'a>,
    input: Option<&'a RawValue>,
    reason: &mut String,
) -> Result<Verdict, String> {
    for t in exp.iter().chain(called) {
        t.validate()?;
    }
    for p in &opts.evaluation_params {
        if p != "INPUT_PARAMETERS" && p != "OUTPUT" {
            return Err(format!(
                "ValueError: '{p}' is not a valid ToolCallParams (INPUT_PARAMETERS, OUTPUT)"
            ));
        }
    }
    let f = Flags {
        ip: opts
            .evaluation_params
            .iter()
            .any(|p| p == "INPUT_PARAMETERS"),
        out: opts.evaluation_params.iter().any(|p| p == "OUTPUT"),
    };
    let threshold = if opts.strict_mode {
        Some(1.0)
    } else {
        opts.threshold
    };
    let below = |s: f64| threshold.is_some_and(|t| s < t);
    let mut lcs = Vec::new();
    let raw = if opts.should_exact_match {
        exact_score(exp, called, &f)
    } else if opts.should_consider_ordering {
        let (l, weight) = weighted_lcs(exp, called, &f)?;
        lcs = l;
        if exp.is_empty() && called.is_empty() {
            1.0
        } else if exp.is_empty() {
            0.0
        } else {
            weight / exp.len() as f64
        }
    } else {
        unordered_score(exp, called, &f)?
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
    } else if let Some(cmd) = opts.judge.as_deref() {
        let req = JudgeRequest {
            input,
            tools_called: called,
            available_tools: available,
        };
        let answer = judge::ask(cmd, &req)?;
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
    reason.push_str("[\n\t Tool Calling Reason: ");
    calling_reason(reason, exp, called, opts, raw, &lcs);
    reason.push_str("\n\t Tool Selection Reason: ");
    reason.push_str(&selection_reason);
    reason.push_str("\n]\n");
    Ok(Verdict {
        score: final_score,
        success: threshold.map(|t| final_score >= t),
        threshold,
    })
}

/// Score one DeepEval input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    score_with(line, out, true)
}

fn score_with<'a>(line: &'a str, out: &mut String, fast: bool) -> Result<Outcome, LineError<'a>> {
    thread_local! {
        // The reason is built before it is escaped into the line; one buffer per thread.
        static REASON: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let case: Case<'a> = match fast.then(|| fast_case(line)).flatten() {
        Some(c) => c,
        None => from_line(line)?,
    };
    let opts = case.options.unwrap_or_default();
    let id = raw_id(case.id);
    REASON.with_borrow_mut(|reason| {
        reason.clear();
        match evaluate(
            &case.expected_tools,
            &case.tools_called,
            &opts,
            case.input,
            reason,
        ) {
            Ok(v) => {
                write_head(out, id, Some(v.score), v.success);
                out.push_str(",\"success\":");
                write_opt_bool(out, v.success);
                out.push_str(",\"threshold\":");
                match v.threshold {
                    Some(t) => super::text::json_f64(out, t),
                    None => out.push_str("null"),
                }
                out.push_str(",\"reason\":");
                super::text::json_str(out, reason);
                out.push('}');
                Ok(Outcome::of(v.success))
            }
            Err(message) => Err(LineError::Rejected {
                id: case.id.map(RawValue::get),
                message,
            }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;

    fn run(line: &str, fast: bool) -> String {
        let mut out = String::new();
        match score_with(line, &mut out, fast) {
            Ok(_) => out,
            Err(LineError::Rejected { id, message }) => format!("{id:?} {message}"),
            Err(LineError::Malformed(m)) => m,
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
        let fast = lines.iter().filter(|l| fast_case(l).is_some()).count();
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
    }
}
