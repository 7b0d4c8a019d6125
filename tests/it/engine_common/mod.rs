//! Builders for engine tests: configs and calls by hand, no language front end needed.
#![allow(dead_code)]

use serde_json::Value;
use toolspec::config::*;
use toolspec::source::Span;
use toolspec::transcript::model::ToolCall;

/// A call with arguments and no output.
pub(crate) fn call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        name: name.into(),
        args,
        id: None,
        output: None,
        is_error: false,
        span: Span::default(),
        turn: None,
        agent: None,
        namespace: None,
        args_text: None,
    }
}

/// A call with arguments and an output.
pub(crate) fn call_out(name: &str, args: Value, output: Value) -> ToolCall {
    ToolCall {
        output: Some(output),
        ..call(name, args)
    }
}

/// `"a.b.0"` → `[Key(a), Key(b), Index(0)]`; `""` is the root.
pub(crate) fn path(p: &str) -> Path {
    if p.is_empty() {
        return Vec::new();
    }
    p.split('.')
        .map(|s| match s.parse::<usize>() {
            Ok(i) => PathSeg::Index(i),
            Err(_) => PathSeg::Key(s.into()),
        })
        .collect()
}

/// An expectation of `tool` with no constraints, once, weight 1.
pub(crate) fn exp(tool: &str) -> Expectation {
    Expectation {
        label: None,
        tool: tool.into(),
        namespace: None,
        args_mode: ArgsMode::Subset,
        args: ValueMatcher::any(),
        output: None,
        errored: None,
        repeat: Repeat::ONCE,
        weight: 1.0,
        span: Span::default(),
        name_span: Span::default(),
        scope: None,
        critical: false,
    }
}

/// Builder methods on expectations.
pub(crate) trait ExpExt: Sized {
    fn arg(self, p: &str, check: Check) -> Self;
    fn out(self, p: &str, check: Check) -> Self;
    fn exact_args(self) -> Self;
    fn repeat(self, min: u32, max: Option<u32>) -> Self;
    fn weight(self, w: f64) -> Self;
    fn label(self, l: &str) -> Self;
    fn errored(self, e: bool) -> Self;
    fn eq(self, p: &str, v: Value) -> Self {
        self.arg(p, Check::equals(v))
    }
}

impl ExpExt for Expectation {
    fn arg(mut self, p: &str, check: Check) -> Self {
        self.args.checks.push(PathCheck {
            path: path(p),
            check,
            span: Span::default(),
            declared: None,
        });
        self
    }
    fn out(mut self, p: &str, check: Check) -> Self {
        self.output
            .get_or_insert_with(ValueMatcher::any)
            .checks
            .push(PathCheck {
                path: path(p),
                check,
                span: Span::default(),
                declared: None,
            });
        self
    }
    fn exact_args(mut self) -> Self {
        self.args.allow_extra_keys = false;
        self.args_mode = ArgsMode::Exact;
        self
    }
    fn repeat(mut self, min: u32, max: Option<u32>) -> Self {
        self.repeat = Repeat { min, max };
        self
    }
    fn weight(mut self, w: f64) -> Self {
        self.weight = w;
        self
    }
    fn label(mut self, l: &str) -> Self {
        self.label = Some(l.into());
        self
    }
    fn errored(mut self, e: bool) -> Self {
        self.errored = Some(e);
        self
    }
}

/// A spec with default scoring, extra calls allowed, verbatim names.
pub(crate) fn spec(order: OrderMode, expectations: Vec<Expectation>) -> MatcherConfig {
    MatcherConfig {
        version: CONFIG_VERSION,
        name: "test".into(),
        span: Span::default(),
        transcripts: Vec::new(),
        format: None,
        order,
        before: Vec::new(),
        expectations,
        forbidden: Vec::new(),
        extra_calls: ExtraCalls::Allow,
        names: NameRules::default(),
        scoring: Scoring::default(),
        profile: None,
        deny_rules: Vec::new(),
        limits: Vec::new(),
        answer: None,
        groups: Vec::new(),
        pass_rate: None,
    }
}

/// A reference check.
pub(crate) fn reference(expectation: usize, label: &str, part: Part, p: &str) -> Check {
    Check::Ref {
        expectation,
        label: label.into(),
        part,
        path: path(p),
        op: RefOp::Eq,
    }
}

/// A reference check with an operator; `*` in `p` is `[*]`.
pub(crate) fn reference_op(
    expectation: usize,
    label: &str,
    part: Part,
    p: &str,
    op: RefOp,
) -> Check {
    let path = path(p)
        .into_iter()
        .map(|s| match s {
            PathSeg::Key(k) if k == "*" => PathSeg::Each,
            other => other,
        })
        .collect();
    Check::Ref {
        expectation,
        label: label.into(),
        part,
        path,
        op,
    }
}

/// A forbidden tool, optionally only with matching arguments.
pub(crate) fn forbid(tool: &str, args: Option<ValueMatcher>) -> Forbidden {
    Forbidden {
        tool: tool.into(),
        namespace: None,
        any_tool: false,
        args,
        errored: None,
        scope: None,
        span: Span::default(),
    }
}
