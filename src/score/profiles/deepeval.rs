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

#[derive(Deserialize, Default)]
struct Options<'a> {
    #[serde(borrow, default)]
    evaluation_params: Vec<Cow<'a, str>>,
    #[serde(default)]
    should_consider_ordering: bool,
    #[serde(default)]
    should_exact_match: bool,
    #[serde(default)]
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

#[allow(clippy::unnecessary_wraps)]
fn default_threshold() -> Option<f64> {
    Some(0.5)
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
        Some(v @ Val::Obj(_)) => {
            field(out, "output");
            py_json_indent(out, v, 1);
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
    thread_local! {
        // The reason is built before it is escaped into the line; one buffer per thread.
        static REASON: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let case: Case<'a> = from_line(line)?;
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
