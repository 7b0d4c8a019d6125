//! LangChain agentevals 0.0.9 (Python) `create_trajectory_match_evaluator`
//! (`agentevals/trajectory/{match,strict,unordered,subset,superset,utils}.py`).
//!
//! Input line: `{id, outputs, reference_outputs, trajectory_match_mode, tool_args_match_mode,
//! tool_args_match_overrides}` with OpenAI chat messages. The result is a boolean: `score` is 1
//! or 0 and `passed` the boolean, plus agentevals' `key`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::pyjson;
use super::text::json_str;
use super::value::{py_eq, Val};
use super::{raw_id, write_head, LineError, Outcome};

#[derive(Deserialize)]
struct Case<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    outputs: Option<Val<'a>>,
    #[serde(borrow, default)]
    reference_outputs: Option<Val<'a>>,
    #[serde(borrow, default)]
    trajectory_match_mode: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_args_match_mode: Option<Cow<'a, str>>,
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

fn arg_mode(s: &str) -> Result<ArgMode<'static>, String> {
    Ok(match s {
        "exact" => ArgMode::Exact,
        "ignore" => ArgMode::Ignore,
        "subset" => ArgMode::Subset,
        "superset" => ArgMode::Superset,
        other => {
            return Err(format!(
                "ValueError: Invalid tool args match mode: {other}. Must be one of exact, ignore, subset, superset"
            ))
        }
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
    pub(crate) fn parse(s: &str) -> Result<TrajMode, String> {
        Ok(match s {
            "strict" => TrajMode::Strict,
            "unordered" => TrajMode::Unordered,
            "subset" => TrajMode::Subset,
            "superset" => TrajMode::Superset,
            other => {
                return Err(format!(
                    "ValueError: Invalid trajectory match type: {other}. Must be one of strict, unordered, subset, superset"
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

/// Parse `function.arguments` as Python's `json.loads` would, into a dict.
fn parse_args<'a>(raw: &Val<'a>) -> Result<Val<'a>, String> {
    let parsed = match raw {
        // LangChain parses with `json.loads(arguments, strict=False)`: what serde_json rejects
        // may still be Python JSON (raw control characters in strings, `NaN`, `1e400`).
        Val::Str(s) => match serde_json::from_str::<Val<'_>>(s) {
            Ok(v) => into_owned(v),
            Err(e) => pyjson::loads(s).map_err(|_| format!("JSONDecodeError: {e}"))?,
        },
        Val::Obj(_) => raw.clone(),
        Val::Null => Val::Obj(Vec::new()),
        other => other.clone(),
    };
    match parsed {
        Val::Obj(_) => Ok(parsed),
        _ => Err("ValidationError: 1 validation error for AIMessage".to_owned()),
    }
}

/// Detach a value from the temporary string it was parsed from.
fn into_owned(v: Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(b),
        Val::Int(i) => Val::Int(i),
        Val::UInt(u) => Val::UInt(u),
        Val::Float(f) => Val::Float(f),
        Val::Str(s) => Val::Str(Cow::Owned(s.into_owned())),
        Val::Arr(items) => Val::Arr(items.into_iter().map(into_owned).collect()),
        Val::Obj(e) => Val::Obj(
            e.into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), into_owned(v)))
                .collect(),
        ),
    }
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
            } else if let Some(Val::Arr(items)) = obj.get("messages") {
                items.iter().collect()
            } else {
                return Err("ValueError: Expected a list of messages, a message dict or a dict with a \"messages\" key".to_owned());
            }
        }
        Some(other) => {
            return Err(format!(
                "ValueError: Expected a list of messages, got a {}",
                other.type_name()
            ))
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for m in list {
        let Val::Obj(_) = m else {
            return Err(format!(
                "ValueError: Message must be a dict, got a {}",
                m.type_name()
            ));
        };
        let role: Cow<'a, str> = match m.get("role").or_else(|| m.get("type")) {
            Some(Val::Str(r)) => match r.as_ref() {
                "human" => Cow::Borrowed("user"),
                "ai" => Cow::Borrowed("assistant"),
                _ => r.clone(),
            },
            _ => {
                return Err(
                    "ValueError: Message dict must contain 'role' and 'content' keys".to_owned(),
                )
            }
        };
        let mut calls = Vec::new();
        if role == "assistant" {
            if let Some(Val::Arr(tcs)) = m.get("tool_calls") {
                for tc in tcs {
                    let (name, args) = match (tc.get("function"), tc.get("name")) {
                        (Some(f @ Val::Obj(_)), _) => (
                            f.get("name"),
                            parse_args(f.get("arguments").unwrap_or(&Val::Null))?,
                        ),
                        (_, Some(n)) => {
                            (Some(n), parse_args(tc.get("args").unwrap_or(&Val::Null))?)
                        }
                        _ => {
                            return Err(
                                "ValidationError: 1 validation error for AIMessage".to_owned()
                            )
                        }
                    };
                    let name = match name {
                        Some(Val::Str(s)) => s.clone(),
                        _ => {
                            return Err(
                                "ValidationError: 1 validation error for AIMessage".to_owned()
                            )
                        }
                    };
                    calls.push(Call { name, args });
                }
            }
        }
        out.push(Msg { role, calls });
    }
    Ok(out)
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
/// inside a dict or a list equals a `NaN` (only `NaN` args come from [`pyjson`]).
fn eq_within(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Float(x), Val::Float(y)) if x.is_nan() && y.is_nan() => true,
        (Val::Arr(x), Val::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq_within(p, q))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v2)| eq_within(v, v2))
                })
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

fn args_match(mode: &ArgMode<'_>, a: &Val<'_>, b: &Val<'_>) -> bool {
    let (ao, bo) = (a.as_obj().unwrap_or(&[]), b.as_obj().unwrap_or(&[]));
    match mode {
        // `tool_call == reference_tool_call`: a dict comparison.
        ArgMode::Exact => eq_within(a, b),
        ArgMode::Ignore => true,
        ArgMode::Subset => ao
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|bv| eq_direct(bv, v))),
        ArgMode::Superset => bo
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| eq_direct(av, v))),
        ArgMode::Keys(paths) => paths.iter().all(|p| {
            let p = p.as_str().unwrap_or("");
            match (get_path(a, p), get_path(b, p)) {
                (None, None) => true,
                (Some(x), Some(y)) => eq_direct(x, y),
                _ => false,
            }
        }),
    }
}

/// The matcher settings: default mode and per-tool overrides.
pub(crate) struct Matcher<'v> {
    default: ArgMode<'v>,
    overrides: Vec<(&'v str, ArgMode<'v>)>,
}

impl<'v> Matcher<'v> {
    pub(crate) fn new(
        default: Option<&str>,
        overrides: Option<&'v Val<'v>>,
    ) -> Result<Self, String> {
        let default = arg_mode(default.unwrap_or("exact"))?;
        let mut list = Vec::new();
        match overrides {
            None | Some(Val::Null) => {}
            Some(Val::Obj(entries)) => {
                for (k, v) in entries {
                    // `overrides.get(name, False)` must be truthy: "" and [] are ignored.
                    let mode = match v {
                        Val::Str(s) if s.is_empty() => continue,
                        Val::Str(s) => arg_mode(s)?,
                        Val::Arr(items) if items.is_empty() => continue,
                        Val::Arr(items) => {
                            if items.iter().any(|p| p.as_str().is_none()) {
                                return Err(format!(
                                    "ValueError: override for {k:?}: key paths must be strings"
                                ));
                            }
                            ArgMode::Keys(items)
                        }
                        Val::Null | Val::Bool(false) => continue,
                        other => {
                            return Err(format!(
                                "ValueError: override for {k:?} must be a mode name or a list of keys, got a {}",
                                other.type_name()
                            ))
                        }
                    };
                    list.push((k.as_ref(), mode));
                }
            }
            Some(other) => {
                return Err(format!(
                    "ValueError: tool_args_match_overrides must be an object, got a {}",
                    other.type_name()
                ))
            }
        }
        Ok(Matcher {
            default,
            overrides: list,
        })
    }

    fn matches(&self, name: &str, a: &Val<'_>, b: &Val<'_>) -> bool {
        let mode = self
            .overrides
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| m)
            .unwrap_or(&self.default);
        args_match(mode, a, b)
    }
}

/// `_is_trajectory_superset(A, B)`: each call of B greedily takes the first unused call of A
/// with the same name and `m(a.args, b.args)`.
fn superset(a: &[&Call<'_>], b: &[&Call<'_>], m: &Matcher<'_>) -> bool {
    let mut used = vec![false; a.len()];
    'outer: for rc in b {
        for (i, oc) in a.iter().enumerate() {
            if !used[i] && oc.name == rc.name && m.matches(&rc.name, &oc.args, &rc.args) {
                used[i] = true;
                continue 'outer;
            }
        }
        return false;
    }
    true
}

fn strict(out: &[Msg<'_>], refs: &[Msg<'_>], m: &Matcher<'_>) -> bool {
    if out.len() != refs.len() {
        return false;
    }
    for (o, r) in out.iter().zip(refs) {
        if o.role != r.role || o.calls.is_empty() != r.calls.is_empty() {
            return false;
        }
        if o.calls.len() != r.calls.len() {
            return false;
        }
        let mut used = vec![false; r.calls.len()];
        for oc in &o.calls {
            let found = r.calls.iter().enumerate().position(|(i, rc)| {
                !used[i] && rc.name == oc.name && m.matches(&oc.name, &oc.args, &rc.args)
            });
            match found {
                Some(i) => used[i] = true,
                None => return false,
            }
        }
    }
    true
}

/// Score normalised trajectories.
pub(crate) fn evaluate(out: &[Msg<'_>], refs: &[Msg<'_>], mode: TrajMode, m: &Matcher<'_>) -> bool {
    let oc: Vec<&Call<'_>> = out.iter().flat_map(|x| x.calls.iter()).collect();
    let rc: Vec<&Call<'_>> = refs.iter().flat_map(|x| x.calls.iter()).collect();
    match mode {
        TrajMode::Strict => strict(out, refs, m),
        TrajMode::Superset => superset(&oc, &rc, m),
        TrajMode::Subset => superset(&rc, &oc, m),
        TrajMode::Unordered => superset(&oc, &rc, m) && superset(&rc, &oc, m),
    }
}

/// Score one agentevals input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let case: Case<'a> = serde_json::from_str(line)?;
    let id = case.id;
    let run = || -> Result<(bool, TrajMode), String> {
        let mode = TrajMode::parse(case.trajectory_match_mode.as_deref().unwrap_or("strict"))?;
        let m = Matcher::new(
            case.tool_args_match_mode.as_deref(),
            case.tool_args_match_overrides.as_ref(),
        )?;
        let o = normalize(case.outputs.as_ref())?;
        let r = normalize(case.reference_outputs.as_ref())?;
        Ok((evaluate(&o, &r, mode, &m), mode))
    };
    match run() {
        Ok((pass, mode)) => {
            write_head(
                out,
                raw_id(id),
                Some(if pass { 1.0 } else { 0.0 }),
                Some(pass),
            );
            out.push_str(",\"key\":");
            json_str(out, mode.key());
            out.push('}');
            Ok(Outcome::of(Some(pass)))
        }
        Err(message) => Err(LineError::Rejected {
            id: id.map(RawValue::get),
            message,
        }),
    }
}
