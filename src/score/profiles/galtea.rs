//! Galtea "Tool Correctness": set equality of normalised tool names (1 or 0).
//!
//! Galtea scores this on its servers and publishes only a description ("sanitize formatting and
//! strip equivalent prefixes", "deduplicate by canonical name"), so the normalisation is an
//! explicit, configurable reading of it, identical to `../shared/oracles/galtea/oracle.py`.
//! Input line: `{id, tools_called | tools_used, expected_tools, options{galtea{profile,
//! prefixes, camel_to_snake}}}`; list items are `{name, ...}` objects or plain strings.

use serde::Deserialize;

use super::judge::Judge;
use super::{on_deep_stack, write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch};
use crate::config::profile::{ProfileSpec, GALTEA};
use crate::json::lone;
use crate::json::read::Runtime;
use crate::json::text::{json_str, py_str_list};
use crate::json::value::Val;

/// The default prefixes `doc_guess` strips (a guess, see `docs/parity.md`).
pub(super) const DEFAULT_PREFIXES: &[&str] = &[
    "functions.",
    "function.",
    "tools.",
    "tool.",
    "default_api.",
    "tools/",
    "functions/",
    "mcp.",
];

/// A member that is there, whatever its value (`null` included).
fn present<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Val<'a>>, D::Error> {
    Val::deserialize(d).map(Some)
}

#[derive(Deserialize, Default)]
struct GalteaOpts<'a> {
    // Any JSON value, `null` kept (`Some(Null)`): it and other types are unknown profiles, as
    // in the oracle.
    #[serde(borrow, default, deserialize_with = "present")]
    profile: Option<Val<'a>>,
    /// `None` when absent; `null` and other values are iterated as the oracle's
    /// `opts.get("prefixes", DEFAULT)` is ([`prefix_list`]).
    #[serde(borrow, default, deserialize_with = "present")]
    prefixes: Option<Val<'a>>,
    /// Read with Python truthiness (`opts.get("camel_to_snake", False)`).
    #[serde(borrow, default)]
    camel_to_snake: Option<Val<'a>>,
}

/// The prefixes `doc_guess` strips: the oracle's `[p.lower() for p in prefixes]` over any
/// JSON value (a string is its characters, a dict its keys), or its `TypeError` or
/// `AttributeError`.
fn prefix_list(v: Option<&Val<'_>>) -> Result<Option<Vec<String>>, String> {
    let not_iterable = |t: &str| format!("TypeError: '{t}' object is not iterable");
    Ok(Some(match v {
        None => return Ok(None),
        Some(Val::Str(s)) => s.chars().map(|c| py_lower(&c.to_string())).collect(),
        Some(Val::Obj(members)) => members.iter().map(|(k, _)| py_lower(k)).collect(),
        Some(Val::Arr(items)) => items
            .iter()
            .map(|x| match x {
                Val::Str(p) => Ok(py_lower(p)),
                other => Err(format!(
                    "AttributeError: '{}' object has no attribute 'lower'",
                    other.py_type_name()
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(not_iterable(other.py_type_name())),
    }))
}

/// A member that may be `null` (`Some(None)`) or absent (`None`).
fn present_list<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<Vec<Val<'a>>>>, D::Error> {
    Option::<Vec<Val<'a>>>::deserialize(d).map(Some)
}

#[derive(Deserialize, Default)]
struct Options<'a> {
    #[serde(borrow, default)]
    galtea: Option<GalteaOpts<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Case<'a> {
    /// Read for its shape; printed back as written ([`CaseLine::raw`]).
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow, default)]
    tools_called: Option<Vec<Val<'a>>>,
    /// Present (even `null`), it is the oracle's list: `case.get("tools_used",
    /// case.get("tools_called"))`.
    #[serde(borrow, default, deserialize_with = "present_list")]
    tools_used: Option<Option<Vec<Val<'a>>>>,
    #[serde(borrow, default)]
    expected_tools: Option<Vec<Val<'a>>>,
    #[serde(borrow, default)]
    options: Option<Options<'a>>,
}

/// The normalisation rules.
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    /// `exact`, `trim` or `doc_guess`.
    pub(crate) profile: String,
    /// Prefixes for `doc_guess`, lowercased.
    pub(crate) prefixes: Vec<String>,
    /// Split camelCase before folding.
    pub(crate) camel_to_snake: bool,
}

impl Rules {
    pub(crate) fn new(
        profile: Option<&str>,
        prefixes: Option<Vec<String>>,
        camel_to_snake: bool,
    ) -> Result<Rules, String> {
        let profile = profile.unwrap_or("doc_guess");
        if !matches!(profile, "exact" | "trim" | "doc_guess") {
            let mut s = String::from("ValueError: unknown galtea profile ");
            crate::json::text::py_str(&mut s, profile);
            return Err(s);
        }
        Ok(Rules {
            profile: profile.to_owned(),
            prefixes: match prefixes {
                Some(p) => p,
                None => DEFAULT_PREFIXES
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect(),
            },
            camel_to_snake,
        })
    }
}

/// Python `str.isspace()`.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// The end of a leading `mcp__<server>__` (regex `^mcp__.+?__(?=.)`, case-insensitive), if any.
fn mcp_prefix_end(n: &str) -> Option<usize> {
    let head = n.get(..5)?;
    if !head.eq_ignore_ascii_case("mcp__") {
        return None;
    }
    let rest = &n[5..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if first == '\n' {
        return None;
    }
    let mut pos = first.len_utf8();
    loop {
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("__") {
            if after.chars().next().is_some_and(|c| c != '\n') {
                return Some(5 + pos + 2);
            }
        }
        let c = tail.chars().next()?;
        if c == '\n' {
            return None;
        }
        pos += c.len_utf8();
    }
}

/// Python `str.casefold()`, as every Python from 3.9 to 3.13 folds ([`super::pycase`]).
fn casefold(s: &str) -> String {
    mapped(s, super::pycase::CASEFOLD)
}

/// Python `str.lower()`, as every Python from 3.9 to 3.13 lowercases.
pub(crate) fn py_lower(s: &str) -> String {
    mapped(s, super::pycase::LOWER)
}

fn mapped(s: &str, table: &[(u32, &str)]) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match table.binary_search_by_key(&(c as u32), |&(k, _)| k) {
            Ok(i) => out.push_str(table[i].1),
            Err(_) => out.push(c),
        }
    }
    out
}

/// `canon(name)` under the rules.
pub(crate) fn canon(name: &str, rules: &Rules) -> String {
    if rules.profile == "exact" {
        return name.to_owned();
    }
    let mut n: String = name.trim_matches(py_space).to_owned();
    if rules.profile == "trim" {
        return n;
    }
    let mut changed = true;
    while changed {
        changed = false;
        if let Some(end) = mcp_prefix_end(&n) {
            n = n[end..].to_owned();
            changed = true;
        }
        let low = py_lower(&n);
        // An empty prefix strips nothing (the reference oracle would loop forever on it).
        for p in rules.prefixes.iter().filter(|p| !p.is_empty()) {
            let plen = p.chars().count();
            if low.starts_with(p.as_str()) && n.chars().count() > plen {
                n = n.chars().skip(plen).collect();
                changed = true;
                break;
            }
        }
    }
    if rules.camel_to_snake {
        let mut s = String::with_capacity(n.len() + 4);
        let mut prev: Option<char> = None;
        for c in n.chars() {
            if c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
            {
                s.push('_');
            }
            s.push(c);
            prev = Some(c);
        }
        n = s;
    }
    let folded = casefold(&n);
    let mut out = String::with_capacity(folded.len());
    let mut in_sep = false;
    for c in folded.chars() {
        if py_space(c) || matches!(c, '-' | '.' | '/' | ':') {
            if !in_sep {
                out.push('_');
            }
            in_sep = true;
        } else {
            out.push(c);
            in_sep = false;
        }
    }
    out.trim_matches('_').to_owned()
}

/// The result: canonical sets and the differences, sorted.
pub(crate) struct Verdict {
    pub(crate) used: Vec<String>,
    pub(crate) expected: Vec<String>,
    pub(crate) missing: Vec<String>,
    pub(crate) extra: Vec<String>,
}

impl Verdict {
    pub(crate) fn score(&self) -> f64 {
        if self.missing.is_empty() && self.extra.is_empty() {
            1.0
        } else {
            0.0
        }
    }
    pub(crate) fn reason(&self) -> String {
        if self.score() == 1.0 {
            return "All expected tools were called and no unnecessary ones.".to_owned();
        }
        let mut parts = Vec::new();
        if !self.missing.is_empty() {
            let mut s = String::from("missing expected tools ");
            py_str_list(&mut s, self.missing.iter().map(String::as_str));
            parts.push(s);
        }
        if !self.extra.is_empty() {
            let mut s = String::from("unnecessary tools ");
            py_str_list(&mut s, self.extra.iter().map(String::as_str));
            parts.push(s);
        }
        parts.join("; ")
    }
}

/// Compare canonical name sets.
pub(crate) fn evaluate<'s>(
    used: impl IntoIterator<Item = &'s str>,
    expected: impl IntoIterator<Item = &'s str>,
    rules: &Rules,
) -> Verdict {
    // Python's `sorted(set(...))`: code point order, a lone surrogate at its own value.
    let set = |names: Vec<String>| {
        let mut v = names;
        v.sort_by(|a, b| lone::py_cmp(a, b));
        v.dedup();
        v
    };
    let cu = set(used.into_iter().map(|n| canon(n, rules)).collect());
    let ce = set(expected.into_iter().map(|n| canon(n, rules)).collect());
    let minus = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter()
            .filter(|n| b.binary_search_by(|x| lone::py_cmp(x, n)).is_err())
            .cloned()
            .collect()
    };
    Verdict {
        missing: minus(&ce, &cu),
        extra: minus(&cu, &ce),
        used: cu,
        expected: ce,
    }
}

fn names<'v>(list: &'v [Val<'_>]) -> Result<Vec<&'v str>, String> {
    list.iter()
        .map(|t| match t {
            Val::Str(s) => Ok(s.as_ref()),
            Val::Obj(_) => match t.get("name") {
                Some(Val::Str(s)) => Ok(s.as_ref()),
                Some(other) => Err(format!(
                    "AttributeError: tool name must be a string, got a {}",
                    other.type_name()
                )),
                None => Err("KeyError: 'name'".to_owned()),
            },
            other => Err(format!(
                "TypeError: a tool must be a string or an object with a name, got a {}",
                other.type_name()
            )),
        })
        .collect()
}

fn write_list(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_str(out, s);
    }
    out.push(']');
}

/// The Galtea peer.
pub(crate) struct Galtea;

impl Peer for Galtea {
    const PROFILE: &'static ProfileSpec = &GALTEA;

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

/// Score one Galtea input line.
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
    let run = || -> Result<Verdict, String> {
        let g = case
            .options
            .as_ref()
            .and_then(|o| o.galtea.as_ref())
            .map_or_else(GalteaOpts::default, |g| GalteaOpts {
                profile: g.profile.clone(),
                prefixes: g.prefixes.clone(),
                camel_to_snake: g.camel_to_snake.clone(),
            });
        let profile = match &g.profile {
            None => None,
            Some(Val::Str(p)) => Some(p.as_ref()),
            Some(other) => {
                let mut s = String::from("ValueError: unknown galtea profile ");
                crate::json::text::py_repr(&mut s, other);
                return Err(s);
            }
        };
        let truthy = g.camel_to_snake.as_ref().is_some_and(Val::py_truthy);
        let used = match &case.tools_used {
            Some(listed) => listed.as_ref(),
            None => case.tools_called.as_ref(),
        };
        let used = names(used.map_or(&[][..], Vec::as_slice))?;
        let exp = names(case.expected_tools.as_deref().unwrap_or(&[]))?;
        // The prefixes are read (and fail) only when `doc_guess` canonicalises a name.
        let doc_guess = profile.is_none_or(|p| p == "doc_guess");
        let prefixes = if doc_guess && (!used.is_empty() || !exp.is_empty()) {
            prefix_list(g.prefixes.as_ref())?
        } else {
            None
        };
        let rules = Rules::new(profile, prefixes, truthy)?;
        Ok(evaluate(used, exp, &rules))
    };
    let v = run().map_err(|message| LineError::Rejected { id, message })?;
    let score = v.score();
    let pass = score == 1.0;
    write_head(out, id.unwrap_or("null"), Some(score), Some(pass));
    out.push_str(",\"success\":");
    out.push_str(if pass { "true" } else { "false" });
    out.push_str(",\"reason\":");
    json_str(out, &v.reason());
    out.push_str(",\"canonical_used\":");
    write_list(out, &v.used);
    out.push_str(",\"canonical_expected\":");
    write_list(out, &v.expected);
    out.push_str(",\"missing\":");
    write_list(out, &v.missing);
    out.push_str(",\"extra\":");
    write_list(out, &v.extra);
    out.push('}');
    Ok(Outcome::of(Some(pass)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty prefix in the options strips nothing (found by the engine fuzz target: it made
    /// the normalisation loop forever).
    #[test]
    fn empty_prefixes_strip_nothing() {
        let line = br#"{"id":1,"tools_called":[{"name":"mcp__github__create_issue"}],"expected_tools":[{"name":"create_issue"}],"options":{"galtea":{"prefixes":["", "git"]}}}"#;
        let out = super::super::score_line(super::super::peer("galtea").unwrap(), line);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["score"], 1.0, "{v}");
    }

    #[test]
    fn doc_guess_examples_from_the_oracle_readme() {
        let r = Rules::new(None, None, false).unwrap();
        for n in [
            " Search_Web\n",
            "search-web",
            "search web",
            "search.web",
            "functions.search_web",
            "FUNCTIONS.search_web",
            "mcp__my_srv__search_web",
            "tools/search_web",
            "default_api.search_web",
            "Tool.search_web",
        ] {
            assert_eq!(canon(n, &r), "search_web", "{n:?}");
        }
        assert_eq!(canon("searchWeb", &r), "searchweb");
        assert_eq!(canon("tool_search_web", &r), "tool_search_web");
        let camel = Rules::new(None, None, true).unwrap();
        assert_eq!(canon("searchWeb", &camel), "search_web");
        let trim = Rules::new(Some("trim"), None, false).unwrap();
        assert_eq!(canon(" A.b ", &trim), "A.b");
        assert!(Rules::new(Some("loose"), None, false).is_err());
    }

    #[test]
    fn scores_set_equality() {
        let r = Rules::new(None, None, false).unwrap();
        let v = evaluate(["a", "functions.a", "b"], ["b", "A"], &r);
        assert_eq!(v.score(), 1.0);
        let v = evaluate(["a", "c"], ["a", "b"], &r);
        assert_eq!(v.score(), 0.0);
        assert_eq!(
            v.reason(),
            "missing expected tools ['b']; unnecessary tools ['c']"
        );
    }
}
