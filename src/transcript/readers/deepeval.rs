//! DeepEval: `LLMTestCase` dumps (snake_case and camelCase), the generic
//! `{"tools_called": [...]}` shape, traces (`toolSpans`) and test runs (`testCases`).

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, field, s, Args, Sink};
use super::super::spans::Seg;

/// Read a DeepEval document.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if let Some(cases) = field(v, "testCases").and_then(Value::as_array) {
        for (i, tc) in cases.iter().enumerate() {
            case(tc, &[Seg::K("testCases"), Seg::I(i)], sink);
        }
        return Ok(());
    }
    if let Value::Array(cases) = v {
        for (i, tc) in cases.iter().enumerate() {
            case(tc, &[Seg::I(i)], sink);
        }
        return Ok(());
    }
    if !v.is_object() {
        return Err(format!(
            "expected a test case, trace or test run object; found {}",
            detect::describe(v)
        ));
    }
    case(v, &[], sink);
    Ok(())
}

fn case(v: &Value, path: &[Seg], sink: &mut Sink) {
    let trace_spans = field(v, "toolSpans").map(|_| (v, None)).or_else(|| {
        field(v, "trace")
            .filter(|t| field(t, "toolSpans").is_some())
            .map(|t| (t, Some(Seg::K("trace"))))
    });
    if let Some((trace, seg)) = trace_spans {
        let mut base = path.to_vec();
        base.extend(seg);
        base.push(Seg::K("toolSpans"));
        spans(arr(trace, "toolSpans"), &base, sink);
        return;
    }
    for key in ["tools_called", "toolsCalled"] {
        for (j, t) in arr(v, key).iter().enumerate() {
            let args = t
                .get("input_parameters")
                .or(field(t, "inputParameters"))
                .or(field(t, "args"))
                .or(field(t, "arguments"))
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::Value);
            let l = sink.at_in(path, &[Seg::K(key), Seg::I(j)]);
            let i = sink.call_unique(s(t, "name").unwrap_or(""), args, None, l);
            sink.answer(
                i,
                field(t, "output").filter(|o| !o.is_null()).cloned(),
                false,
            );
        }
    }
}

/// Trace tool spans: one call per span with an input, ordered by start time.
fn spans(items: &[Value], base: &[Seg], sink: &mut Sink) {
    let mut order: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].get("input").is_some())
        .collect();
    order.sort_by(|&a, &b| {
        s(&items[a], "startTime")
            .unwrap_or("")
            .cmp(s(&items[b], "startTime").unwrap_or(""))
    });
    for i in order {
        let sp = &items[i];
        let args = sp
            .get("input")
            .filter(|a| !a.is_null())
            .map_or(Args::Empty, Args::Value);
        let mut p = base.to_vec();
        p.push(Seg::I(i));
        let l = sink.at(&p);
        let c = sink.call_unique(s(sp, "name").unwrap_or(""), args, None, l);
        let out = field(sp, "output").filter(|o| !o.is_null()).cloned();
        sink.answer(c, out, s(sp, "status") == Some("ERRORED"));
    }
}

/// The test cases of a test run (`testCases`) or of a top-level list, when there are several.
pub(crate) fn cases(v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    let (items, root): (&[Value], Option<Seg>) = match v {
        Value::Array(a) => (a, None),
        _ => (
            field(v, "testCases")?.as_array()?,
            Some(Seg::K("testCases")),
        ),
    };
    if items.len() < 2 {
        return None;
    }
    Some(super::parts(items, root))
}

/// Read one test case found at `path`.
pub(crate) fn read_case(v: &Value, path: &[Seg], sink: &mut Sink) {
    case(v, path, sink);
}
