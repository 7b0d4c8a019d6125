//! Gemini API: REST request bodies (camelCase), python-genai histories (snake_case),
//! `GenerateContentResponse` documents and gemini-cli `{method, response}` replays.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, s, Args, Sink};
use super::super::spans::Seg;

/// Read a Gemini document (or one line of a Gemini JSONL session).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if v.get("candidates").is_some() {
        response(v, &[], sink);
        return Ok(());
    }
    if let Some(r) = v.get("response") {
        match r {
            Value::Array(chunks) => {
                for (k, c) in chunks.iter().enumerate() {
                    response(c, &[Seg::K("response"), Seg::I(k)], sink);
                }
            }
            other => response(other, &[Seg::K("response")], sink),
        }
        return Ok(());
    }
    for t in arr(v, "tools") {
        for key in ["functionDeclarations", "function_declarations"] {
            for d in arr(t, key) {
                let params = d
                    .get("parameters")
                    .or(d.get("parametersJsonSchema"))
                    .or(d.get("parameters_json_schema"));
                sink.declare(s(d, "name").unwrap_or(""), d.get("description"), params);
            }
        }
    }
    let (contents, root): (&[Value], &[Seg]) =
        if let Some(c) = v.get("contents").and_then(Value::as_array) {
            (c, &[Seg::K("contents")])
        } else if let Some(h) = v.get("history").and_then(Value::as_array) {
            (h, &[Seg::K("history")])
        } else if let Value::Array(a) = v {
            (a, &[])
        } else {
            return Err(format!(
                "expected `contents`, `candidates` or a `{{role, parts}}` list; found {}",
                detect::describe(v)
            ));
        };
    for (i, c) in contents.iter().enumerate() {
        let mut p = root.to_vec();
        p.push(Seg::I(i));
        content(c, &p, sink);
    }
    Ok(())
}

fn response(r: &Value, path: &[Seg], sink: &mut Sink) {
    for (c, cand) in arr(r, "candidates").iter().enumerate() {
        if let Some(content_v) = cand.get("content") {
            let mut p = path.to_vec();
            p.extend([Seg::K("candidates"), Seg::I(c), Seg::K("content")]);
            content(content_v, &p, sink);
        }
    }
}

fn content(c: &Value, path: &[Seg], sink: &mut Sink) {
    for (j, part) in arr(c, "parts").iter().enumerate() {
        if let Some(fc) = part
            .get("functionCall")
            .or(part.get("function_call"))
            .filter(|f| f.is_object())
        {
            let args = fc
                .get("args")
                .filter(|a| !a.is_null())
                .map(Args::Value)
                .unwrap_or(Args::Empty);
            let mut p = path.to_vec();
            p.extend([Seg::K("parts"), Seg::I(j)]);
            let l = sink.at(&p);
            sink.call(
                s(fc, "name").unwrap_or(""),
                args,
                s(fc, "id").map(str::to_string),
                l,
            );
        }
        if let Some(fr) = part
            .get("functionResponse")
            .or(part.get("function_response"))
            .filter(|f| f.is_object())
        {
            let out = fr.get("response").cloned();
            let err = out.as_ref().is_some_and(|o| o.get("error").is_some());
            let linked = match s(fr, "id") {
                Some(id) if sink.has_id(id) => sink.answer_id(id, out.clone(), err),
                _ => false,
            };
            if !linked {
                sink.answer_name(s(fr, "name").unwrap_or(""), out, err);
            }
        }
    }
}
