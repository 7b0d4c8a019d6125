//! Where a JSON Schema holds subschemas, and which part of the checked value each applies to:
//! the one table the work meter ([`super::expansion`]) and the pattern walk
//! ([`super::patterns`]) read. It is the union of every draft's applicators (4 to 2020-12 and
//! OpenAPI's), so a keyword one draft ignores is counted as if it applied: the meter's count
//! can only be too high.

use serde_json::{Map, Value};

/// What a keyword's subschemas apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Applies {
    /// One subschema, to the same value (`not`, `if`, `then`, `else`).
    Same,
    /// An array of subschemas, each to the same value (`allOf`, `anyOf`, `oneOf`).
    SameEach,
    /// An object of subschemas, each to the same value (`dependentSchemas`; `dependencies`,
    /// whose array members are property lists, not schemas).
    SameValues,
    /// An object of subschemas, each to the property of its name (`properties`).
    Properties,
    /// An object of subschemas keyed by a regular expression, each to every property whose
    /// name it matches (`patternProperties`; counted as if every name matched).
    PatternProperties,
    /// One subschema, to every property's value (`additionalProperties`,
    /// `unevaluatedProperties`; counted as if no other keyword took any).
    EveryProperty,
    /// One subschema, to every property's name (`propertyNames`).
    Names,
    /// One subschema to every item, or an array of subschemas by position (`items`).
    Items,
    /// An array of subschemas by position (`prefixItems`).
    Positional,
    /// One subschema, to every item (`additionalItems`, `unevaluatedItems`, `contains`).
    EveryItem,
    /// Subschemas that apply to nothing by themselves (`$defs`, `definitions`): reached only
    /// through references.
    Definitions,
}

/// Every keyword with subschemas.
pub(super) const APPLICATORS: &[(&str, Applies)] = &[
    ("not", Applies::Same),
    ("if", Applies::Same),
    ("then", Applies::Same),
    ("else", Applies::Same),
    ("allOf", Applies::SameEach),
    ("anyOf", Applies::SameEach),
    ("oneOf", Applies::SameEach),
    ("dependentSchemas", Applies::SameValues),
    ("dependencies", Applies::SameValues),
    ("properties", Applies::Properties),
    ("patternProperties", Applies::PatternProperties),
    ("additionalProperties", Applies::EveryProperty),
    ("unevaluatedProperties", Applies::EveryProperty),
    ("propertyNames", Applies::Names),
    ("items", Applies::Items),
    ("prefixItems", Applies::Positional),
    ("additionalItems", Applies::EveryItem),
    ("unevaluatedItems", Applies::EveryItem),
    ("contains", Applies::EveryItem),
    ("$defs", Applies::Definitions),
    ("definitions", Applies::Definitions),
];

/// How `keyword` applies its subschemas, if it has any.
pub(super) fn applies(keyword: &str) -> Option<Applies> {
    APPLICATORS
        .iter()
        .find(|(k, _)| *k == keyword)
        .map(|(_, a)| *a)
}

/// Whether `v` can be a schema (an object or a boolean).
pub(super) fn is_schema(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Bool(_))
}

/// Where a subschema is inside its keyword's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Inner<'s> {
    /// The value itself (`"not": {…}`).
    Whole,
    /// An array member (`"anyOf": [{…}]`).
    Index(usize),
    /// An object member (`"properties": {"city": {…}}`).
    Name(&'s str),
}

/// The subschemas of `keyword`, which applies them as `how` says, each with where it is.
pub(super) fn subschemas(value: &Value, how: Applies) -> Vec<(Inner<'_>, &Value)> {
    match (how, value) {
        (Applies::SameEach | Applies::Positional | Applies::Items, Value::Array(a)) => a
            .iter()
            .enumerate()
            .filter(|(_, v)| is_schema(v))
            .map(|(i, v)| (Inner::Index(i), v))
            .collect(),
        (
            Applies::Same
            | Applies::EveryProperty
            | Applies::Names
            | Applies::EveryItem
            | Applies::Items,
            v,
        ) if is_schema(v) => vec![(Inner::Whole, v)],
        (
            Applies::SameValues
            | Applies::Properties
            | Applies::PatternProperties
            | Applies::Definitions,
            Value::Object(o),
        ) => o
            .iter()
            .filter(|(_, v)| is_schema(v))
            .map(|(k, v)| (Inner::Name(k.as_str()), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// `at` + `/keyword` (+ `/inner`), as a JSON pointer.
pub(super) fn pointer(at: &str, keyword: &str, inner: Inner<'_>) -> String {
    let mut p = format!("{at}/{}", escape(keyword));
    match inner {
        Inner::Whole => {}
        Inner::Index(i) => p.push_str(&format!("/{i}")),
        Inner::Name(n) => {
            p.push('/');
            p.push_str(&escape(n));
        }
    }
    p
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Every schema object of `root` (itself included) with its JSON pointer, reached through the
/// keywords of [`APPLICATORS`] only (not through `const`, `enum`, `examples` or unknown
/// keywords, which hold data), without recursion.
pub(super) fn schema_objects(root: &Value) -> Vec<(String, &Map<String, Value>)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), root)];
    while let Some((at, v)) = stack.pop() {
        let Value::Object(o) = v else {
            continue;
        };
        for (k, sub) in o {
            if let Some(how) = applies(k) {
                for (inner, s) in subschemas(sub, how) {
                    stack.push((pointer(&at, k, inner), s));
                }
            }
        }
        out.push((at, o));
    }
    out
}
