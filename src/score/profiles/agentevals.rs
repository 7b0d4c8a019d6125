//! LangChain agentevals 0.0.9 (Python) `create_trajectory_match_evaluator`
//! (`agentevals/trajectory/{match,strict,unordered,subset,superset,utils}.py`).
//!
//! Input line: `{id, outputs, reference_outputs, trajectory_match_mode, tool_args_match_mode,
//! tool_args_match_overrides}` with OpenAI chat messages. The result is a boolean: `score` is 1
//! or 0 and `passed` the boolean, plus agentevals' `key`.

use std::borrow::Cow;

use serde::Deserialize;

use super::judge::Judge;
use super::{on_deep_stack, write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch};
use crate::config::profile::{ProfileSpec, AGENTEVALS};
use crate::json::keys;
use crate::json::read::Runtime;
use crate::json::text::json_str;
use crate::json::value::{py_eq, Val};

#[derive(Deserialize)]
#[allow(dead_code)]
struct Case<'a> {
    /// Read for its shape; printed back as written ([`CaseLine::raw`]).
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow, default)]
    outputs: Option<Val<'a>>,
    #[serde(borrow, default)]
    reference_outputs: Option<Val<'a>>,
    /// `None` when absent (agentevals' default); an explicit `null` is `Some(Val::Null)`.
    #[serde(borrow, default, deserialize_with = "crate::json::value::present")]
    trajectory_match_mode: Option<Val<'a>>,
    #[serde(borrow, default, deserialize_with = "crate::json::value::present")]
    tool_args_match_mode: Option<Val<'a>>,
    #[serde(borrow, default)]
    tool_args_match_overrides: Option<Val<'a>>,
}

/// A tool call after LangChain's normalisation: name and parsed args (a dict).
pub(crate) struct Call<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) args: Val<'a>,
}

/// A message after normalisation: its role and its tool calls (empty = none).
pub(crate) struct Msg<'a> {
    role: Cow<'a, str>,
    calls: Vec<Call<'a>>,
}

/// How two calls' arguments are compared.
#[derive(Clone)]
pub(crate) enum ArgMode<'v> {
    Exact,
    Ignore,
    Subset,
    Superset,
    Keys(&'v [Val<'v>]),
}

/// Python's `str()` of an option value, as the error messages print it.
fn py_str(v: &Val<'_>) -> String {
    match v {
        Val::Str(s) => s.to_string(),
        other => {
            let mut t = String::new();
            crate::json::text::py_repr(&mut t, other);
            t
        }
    }
}

/// `tool_args_match_mode`, checked when the evaluator is created.
fn arg_mode(v: &Val<'_>) -> Result<ArgMode<'static>, String> {
    match v.as_str().and_then(known_arg_mode) {
        Some(m) => Ok(m),
        None => Err(format!(
            "ValueError: Invalid tool args match mode: `{}`. Must be either `exact`, `ignore`, `subset`, or `superset`.",
            py_str(v)
        )),
    }
}

fn known_arg_mode(s: &str) -> Option<ArgMode<'static>> {
    Some(match s {
        "exact" => ArgMode::Exact,
        "ignore" => ArgMode::Ignore,
        "subset" => ArgMode::Subset,
        "superset" => ArgMode::Superset,
        _ => return None,
    })
}

/// The trajectory modes.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum TrajMode {
    Strict,
    Unordered,
    Subset,
    Superset,
}

impl TrajMode {
    pub(crate) fn parse(v: &Val<'_>) -> Result<TrajMode, String> {
        Ok(match v.as_str() {
            Some("strict") => TrajMode::Strict,
            Some("unordered") => TrajMode::Unordered,
            Some("subset") => TrajMode::Subset,
            Some("superset") => TrajMode::Superset,
            _ => {
                return Err(format!(
                    "ValueError: Invalid trajectory match type: `{}`. Must be one of `strict`, `unordered`, `subset`, or `superset`.",
                    py_str(v)
                ))
            }
        })
    }
    fn key(self) -> &'static str {
        match self {
            TrajMode::Strict => "trajectory_strict_match",
            TrajMode::Unordered => "trajectory_unordered_match",
            TrajMode::Subset => "trajectory_subset_match",
            TrajMode::Superset => "trajectory_superset_match",
        }
    }
}

/// How LangChain reads `function.arguments`: `json.loads(arguments, strict=False)`, a few frames
/// deeper than the line's own `json.loads`.
const ARGUMENTS: Runtime = Runtime::Python {
    strict: false,
    depth: crate::json::read::PY311_DEPTH - 20,
};

/// `function.arguments` as LangChain reads it: a string is parsed with
/// `json.loads(arguments, strict=False)`, anything else is taken as is (pydantic then wants a
/// dict in an AI message).
fn parse_args<'a>(raw: &Val<'a>) -> Result<Val<'a>, String> {
    Ok(match raw {
        // Raw control characters in strings, `NaN`, `1e400`, integers of any size: Python's
        // reading.
        Val::Str(s) => match crate::json::read::read(s, ARGUMENTS) {
            Ok((v, _)) => into_owned(v),
            Err(e) => return Err(format!("JSONDecodeError: {}", e.message)),
        },
        other => other.clone(),
    })
}

const VALIDATION: &str = "ValidationError: 1 validation error for AIMessage";

/// Detach a value from the temporary string it was parsed from.
fn into_owned(v: Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(b),
        Val::Int(i) => Val::Int(i),
        Val::UInt(u) => Val::UInt(u),
        Val::Float(f) => Val::Float(f),
        Val::BigInt(d) => Val::BigInt(Cow::Owned(d.into_owned())),
        Val::Str(s) => Val::Str(Cow::Owned(s.into_owned())),
        Val::Arr(items) => Val::Arr(items.into_iter().map(into_owned).collect()),
        Val::Obj(e) => Val::Obj(
            e.into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), into_owned(v)))
                .collect(),
        ),
    }
}

/// What `for x in value` yields, for the JSON types (a string yields its characters, a dict
/// its keys); numbers, booleans and `None` are not iterable. A list is borrowed.
fn py_iter<'v, 'a>(v: &'v Val<'a>) -> Result<Cow<'v, [Val<'a>]>, String> {
    match v {
        Val::Arr(items) => Ok(Cow::Borrowed(items)),
        Val::Str(s) => Ok(s
            .chars()
            .map(|c| Val::Str(Cow::Owned(c.to_string())))
            .collect()),
        Val::Obj(entries) => Ok(entries.iter().map(|(k, _)| Val::Str(k.clone())).collect()),
        other => Err(format!(
            "TypeError: '{}' object is not iterable",
            other.py_type_name()
        )),
    }
}

/// The roles `_create_message_from_message_type` accepts, mapped as
/// `convert_to_openai_messages` prints them (`remove` builds a message it then cannot print).
fn openai_role<'a>(r: &Val<'a>) -> Result<Cow<'a, str>, String> {
    let name = match r {
        Val::Str(s) => s.as_ref(),
        _ => "",
    };
    Ok(match name {
        "human" | "user" => Cow::Borrowed("user"),
        "ai" | "assistant" => Cow::Borrowed("assistant"),
        "system" | "developer" | "function" | "tool" => match r {
            Val::Str(s) => s.clone(),
            _ => Cow::Borrowed(""),
        },
        "remove" => {
            return Err(
                "ValueError: Unknown BaseMessage type <class 'langchain_core.messages.modifier.RemoveMessage'>"
                    .to_owned(),
            )
        }
        _ => {
            let shown = match r {
                Val::Str(s) => s.to_string(),
                Val::Null => "None".to_owned(),
                other => {
                    let mut t = String::new();
                    crate::json::text::py_repr(&mut t, other);
                    t
                }
            };
            return Err(format!(
                "ValueError: Unexpected message type: '{shown}'. Use one of 'human', 'user', 'ai', 'assistant', 'function', 'tool', 'system', or 'developer'."
            ));
        }
    })
}

/// One message through agentevals' `_convert_to_openai_message` and LangChain's round trip,
/// reduced to what the modes read: the role and, for an AI message, its tool calls.
fn normalize_message<'a>(m: &Val<'a>) -> Result<Msg<'a>, String> {
    let Val::Obj(_) = m else {
        // `dict(message)` on a non-dict.
        return Err(match m {
            Val::Str(_) | Val::Arr(_) => {
                "ValueError: dictionary update sequence element #0 has length 1; 2 is required"
                    .to_owned()
            }
            other => format!(
                "TypeError: '{}' object is not iterable",
                other.py_type_name()
            ),
        });
    };
    // `role`, else `type` (a present `role` wins even when null).
    let Some(role) = m.get("role").or_else(|| m.get("type")) else {
        return Err("ValueError: Message dict must contain 'role' and 'content' keys".to_owned());
    };
    let ai_by_role = matches!(m.get("role"), Some(Val::Str(r)) if r == "ai" || r == "assistant");
    let tool_calls = m.get("tool_calls").filter(|t| !matches!(t, Val::Null));
    // `[{**tc, "id": tc.get("id", "")} for tc in tool_calls]` for an AI message (by `role`)
    // with truthy tool calls: every item must be a mapping, and gets an `id`.
    if ai_by_role {
        if let Some(tcs) = tool_calls.filter(|t| t.py_truthy()) {
            for tc in py_iter(tcs)?.iter() {
                if !matches!(tc, Val::Obj(_)) {
                    return Err(format!(
                        "TypeError: '{}' object is not a mapping",
                        tc.py_type_name()
                    ));
                }
            }
        }
    }
    // `content or ""`: anything truthy must be a string or a list of strings and dicts.
    if let Some(c) = m.get("content").filter(|c| c.py_truthy()) {
        let ok = match c {
            Val::Str(_) => true,
            Val::Arr(items) => items.iter().all(|x| matches!(x, Val::Str(_) | Val::Obj(_))),
            _ => false,
        };
        if !ok {
            return Err(
                "ValidationError: content: Input should be a valid string or list".to_owned(),
            );
        }
    }
    // `_create_message_from_message_type` converts every message's tool calls (OpenAI shape:
    // `function.arguments` parsed, `function.name`, `id`), then checks the role; pydantic then
    // validates the calls of an AI message only (`name` a string, `args` a dict, `id` a string
    // or None). Only an AI message keeps its calls, and an empty list is dropped.
    let role = openai_role(role);
    let ai = matches!(&role, Ok(r) if r == "assistant");
    let mut calls = Vec::new();
    let mut invalid = false;
    if let Some(tcs) = tool_calls {
        let items = py_iter(tcs)?;
        for tc in items.iter() {
            let function = match tc {
                Val::Obj(_) => tc.get("function"),
                Val::Str(s) => s.contains("function").then_some(&Val::Null),
                Val::Arr(items) => items
                    .iter()
                    .any(|x| matches!(x, Val::Str(s) if s == "function"))
                    .then_some(&Val::Null),
                other => {
                    return Err(format!(
                        "TypeError: argument of type '{}' is not iterable",
                        other.py_type_name()
                    ))
                }
            };
            let (name, args, id) = match function {
                // LangChain's own `{name, args, id}`, taken as is.
                None => (tc.get("name"), tc.get("args").cloned(), tc.get("id")),
                Some(f @ Val::Obj(_)) => {
                    let Some(raw_args) = f.get("arguments") else {
                        return Err("KeyError: 'arguments'".to_owned());
                    };
                    let args = parse_args(raw_args)?;
                    let Some(name) = f.get("name") else {
                        return Err("KeyError: 'name'".to_owned());
                    };
                    // The id was defaulted to "" for an AI message (by `role`); otherwise it
                    // must be there.
                    let id = tc.get("id");
                    if id.is_none() && !ai_by_role {
                        return Err("KeyError: 'id'".to_owned());
                    }
                    (Some(name), Some(args), id)
                }
                Some(other) => {
                    return Err(format!(
                        "TypeError: '{}' object is not subscriptable",
                        if matches!(tc, Val::Obj(_)) {
                            other.py_type_name()
                        } else {
                            "str"
                        }
                    ))
                }
            };
            if !ai {
                continue;
            }
            match (name, args, id) {
                (
                    Some(Val::Str(name)),
                    Some(args @ Val::Obj(_)),
                    None | Some(Val::Null | Val::Str(_)),
                ) => {
                    calls.push(Call {
                        name: name.clone(),
                        args,
                    });
                }
                _ => invalid = true,
            }
        }
    }
    let role = role?;
    if invalid {
        return Err(VALIDATION.to_owned());
    }
    Ok(Msg { role, calls })
}

/// `_normalize_to_openai_messages_list` plus LangChain's round trip, reduced to what the modes
/// read: roles (aliases mapped) and tool calls (empty lists dropped, arguments parsed).
pub(crate) fn normalize<'a>(v: Option<&Val<'a>>) -> Result<Vec<Msg<'a>>, String> {
    let list: Vec<&Val<'a>> = match v {
        None | Some(Val::Null) => Vec::new(),
        Some(Val::Arr(items)) => items.iter().collect(),
        Some(obj @ Val::Obj(_)) => {
            if obj.get("role").is_some() {
                vec![obj]
            } else if let Some(inner) = obj.get("messages") {
                match inner {
                    Val::Arr(items) => items.iter().collect(),
                    // A non-list is wrapped in a list.
                    other => vec![other],
                }
            } else {
                return Err(
                    "ValueError: if messages is a dict, it must contain a 'messages' key"
                        .to_owned(),
                );
            }
        }
        // A non-list is wrapped in a list.
        Some(other) => vec![other],
    };
    list.into_iter().map(normalize_message).collect()
}

/// Walk a dotted path through dicts only; anything else on the way is `None`.
fn get_path<'v, 'a>(v: &'v Val<'a>, path: &str) -> Option<&'v Val<'a>> {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Val::Obj(_) => cur.get(part)?,
            _ => return None,
        };
    }
    match cur {
        Val::Null => None,
        x => Some(x),
    }
}

/// Python `==` between two values inside argument dicts. Every `NaN` there is the one float
/// object `json.loads` hands out, and container comparisons test identity first, so a `NaN`
/// inside a dict or a list equals a `NaN` (only `NaN` args come from `json.loads`).
fn eq_within(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Float(x), Val::Float(y)) if x.is_nan() && y.is_nan() => true,
        (Val::Arr(x), Val::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq_within(p, q))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let y = keys::of_val(y);
            x.iter()
                .all(|(k, v)| y.get(k.as_bytes()).is_some_and(|v2| eq_within(v, v2)))
        }
        _ => py_eq(a, b),
    }
}

/// Python `x == y` written out (the subset/superset matchers, key paths): `NaN == NaN` is false
/// here, there is no identity test.
fn eq_direct(a: &Val<'_>, b: &Val<'_>) -> bool {
    let nan = |v: &Val<'_>| matches!(v, Val::Float(x) if x.is_nan());
    !nan(a) && !nan(b) && eq_within(a, b)
}

fn args_match(mode: &ArgMode<'_>, a: &Val<'_>, b: &Val<'_>) -> Result<bool, String> {
    let (ao, bo) = (a.as_obj().unwrap_or(&[]), b.as_obj().unwrap_or(&[]));
    Ok(match mode {
        // `tool_call == reference_tool_call`: a dict comparison.
        ArgMode::Exact => eq_within(a, b),
        ArgMode::Ignore => true,
        ArgMode::Subset => {
            let b = keys::of_val(bo);
            ao.iter()
                .all(|(k, v)| b.get(k.as_bytes()).is_some_and(|bv| eq_direct(bv, v)))
        }
        ArgMode::Superset => {
            let a = keys::of_val(ao);
            bo.iter()
                .all(|(k, v)| a.get(k.as_bytes()).is_some_and(|av| eq_direct(av, v)))
        }
        // `all(get(a, key) == get(b, key) for key in keys)`: stops at the first difference; a
        // key that is not a string fails (`key.split`) when it is reached.
        ArgMode::Keys(paths) => {
            for p in *paths {
                let Val::Str(p) = p else {
                    return Err(format!(
                        "AttributeError: '{}' object has no attribute 'split'",
                        p.py_type_name()
                    ));
                };
                let same = match (get_path(a, p), get_path(b, p)) {
                    (None, None) => true,
                    (Some(x), Some(y)) => eq_direct(x, y),
                    _ => false,
                };
                if !same {
                    return Ok(false);
                }
            }
            true
        }
    })
}

/// The matcher settings: the default mode and the per-tool overrides, looked up (and checked)
/// each time a pair of same-name calls is compared, as `_get_matcher_for_tool_name` does.
pub(crate) struct Matcher<'v> {
    default: ArgMode<'v>,
    overrides: Option<&'v Val<'v>>,
}

impl<'v> Matcher<'v> {
    pub(crate) fn new(
        default: Option<&Val<'_>>,
        overrides: Option<&'v Val<'v>>,
    ) -> Result<Self, String> {
        let default = match default {
            None => ArgMode::Exact,
            Some(v) => arg_mode(v)?,
        };
        Ok(Matcher {
            default,
            overrides: overrides.filter(|o| !matches!(o, Val::Null)),
        })
    }

    fn matches(&self, name: &str, a: &Val<'_>, b: &Val<'_>) -> Result<bool, String> {
        let Some(overrides) = self.overrides else {
            return args_match(&self.default, a, b);
        };
        let Val::Obj(_) = overrides else {
            return Err(format!(
                "AttributeError: '{}' object has no attribute 'get'",
                overrides.py_type_name()
            ));
        };
        // `overrides.get(name, False)` must be truthy: "", [], {}, 0, false, null are ignored.
        let mode = match overrides.get(name).filter(|v| v.py_truthy()) {
            None => self.default.clone(),
            // An unknown mode string is not an error: it falls to `_ignore_match`.
            Some(Val::Str(s)) => known_arg_mode(s).unwrap_or(ArgMode::Ignore),
            Some(Val::Arr(items)) => ArgMode::Keys(items),
            Some(other) => {
                let mut shown = String::new();
                crate::json::text::py_repr(&mut shown, other);
                return Err(format!(
                    "ValueError: Invalid tool args match override: {shown}"
                ));
            }
        };
        args_match(&mode, a, b)
    }
}

/// `_is_trajectory_superset(A, B)`: each call of B greedily takes the first unused call of A
/// with the same name and `m(a.args, b.args)`.
fn superset(a: &[&Call<'_>], b: &[&Call<'_>], m: &Matcher<'_>) -> Result<bool, String> {
    let mut used = vec![false; a.len()];
    'outer: for rc in b {
        for (i, oc) in a.iter().enumerate() {
            if !used[i] && oc.name == rc.name && m.matches(&rc.name, &oc.args, &rc.args)? {
                used[i] = true;
                continue 'outer;
            }
        }
        return Ok(false);
    }
    Ok(true)
}

fn strict(out: &[Msg<'_>], refs: &[Msg<'_>], m: &Matcher<'_>) -> Result<bool, String> {
    if out.len() != refs.len() {
        return Ok(false);
    }
    for (o, r) in out.iter().zip(refs) {
        if o.role != r.role || o.calls.is_empty() != r.calls.is_empty() {
            return Ok(false);
        }
        if o.calls.len() != r.calls.len() {
            return Ok(false);
        }
        let mut used = vec![false; r.calls.len()];
        for oc in &o.calls {
            let mut found = None;
            for (i, rc) in r.calls.iter().enumerate() {
                if !used[i] && rc.name == oc.name && m.matches(&oc.name, &oc.args, &rc.args)? {
                    found = Some(i);
                    break;
                }
            }
            match found {
                Some(i) => used[i] = true,
                None => return Ok(false),
            }
        }
    }
    Ok(true)
}

/// Score normalised trajectories.
pub(crate) fn evaluate(
    out: &[Msg<'_>],
    refs: &[Msg<'_>],
    mode: TrajMode,
    m: &Matcher<'_>,
) -> Result<bool, String> {
    let oc: Vec<&Call<'_>> = out.iter().flat_map(|x| x.calls.iter()).collect();
    let rc: Vec<&Call<'_>> = refs.iter().flat_map(|x| x.calls.iter()).collect();
    match mode {
        TrajMode::Strict => strict(out, refs, m),
        TrajMode::Superset => superset(&oc, &rc, m),
        TrajMode::Subset => superset(&rc, &oc, m),
        TrajMode::Unordered => Ok(superset(&oc, &rc, m)? && superset(&rc, &oc, m)?),
    }
}

/// The Agentevals peer.
pub(crate) struct Agentevals;

impl Peer for Agentevals {
    const PROFILE: &'static ProfileSpec = &AGENTEVALS;

    fn score<'a>(
        line: &'a str,
        out: &mut String,
        _reader: Reader,
        _scratch: &mut Scratch,
        _judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        score(line, out)
    }
}

/// Score one agentevals input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let c = CaseLine::read(line, RUNTIME)?;
    on_deep_stack(c.shape.depth, || score_case(&c, out))
}

/// How the peer's runtime reads a line.
const RUNTIME: Runtime = Runtime::PY311;

/// Score the case of a line read by the peer's runtime.
fn score_case<'a>(c: &CaseLine<'a>, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let case: Case<'_> = c.case()?;
    let id = c.raw("id");
    let run = || -> Result<(bool, TrajMode), String> {
        let mode = match &case.trajectory_match_mode {
            None => TrajMode::Strict,
            Some(v) => TrajMode::parse(v)?,
        };
        let m = Matcher::new(
            case.tool_args_match_mode.as_ref(),
            case.tool_args_match_overrides.as_ref(),
        )?;
        let o = normalize(case.outputs.as_ref())?;
        let r = normalize(case.reference_outputs.as_ref())?;
        Ok((evaluate(&o, &r, mode, &m)?, mode))
    };
    match run() {
        Ok((pass, mode)) => {
            write_head(
                out,
                id.unwrap_or("null"),
                Some(if pass { 1.0 } else { 0.0 }),
                Some(pass),
            );
            out.push_str(",\"key\":");
            json_str(out, mode.key());
            out.push('}');
            Ok(Outcome::of(Some(pass)))
        }
        Err(message) => Err(LineError::Rejected { id, message }),
    }
}
