//! The work of checking one value against one JSON Schema, counted before the `jsonschema`
//! crate is asked to do it.
//!
//! The crate applies every subschema to the part of the value it names, expanding each `$ref`
//! where it is used: a schema whose `$ref`s form a DAG under `anyOf`/`allOf`/`oneOf` doubles
//! its work (and the error tree it builds for a value that fails) with each level, and a
//! recursive schema does so with each level of the value. Nothing in the crate bounds that, so
//! [`Meter`] counts it first: every (subschema, part of the value) application with references
//! expanded, memoised on the pair (so the count itself is linear in the distinct pairs), with
//! the nesting of each application (the crate's recursion depth, and the length of the paths
//! its errors carry). The count is an upper bound: a keyword of any draft counts, every
//! `patternProperties` entry counts for every property, every `$ref` target that could be
//! meant counts. A cycle that does not go deeper into the value counts once (the crate stops
//! there too). The meter stops as soon as the count passes its cap.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::keywords::{self, Applies};

/// The most nested applications (subschemas inside subschemas, `$ref`s followed, levels of the
/// value entered) one check may need; deeper, the call is not checked.
pub const MAX_SCHEMA_NESTING: usize = 256;

/// Steps counted per part of a value checked against a schema the transcript does not hold (a
/// `$ref` to one of the meta-schemas the `jsonschema` crate knows, the only documents it
/// reaches offline), and the nesting counted per level of that part.
const EXTERNAL_STEPS: u64 = 256;
const EXTERNAL_NESTING: usize = 4;

/// Keywords whose check reads the whole part of the value it applies to (a string's characters,
/// a structure's every node): each counts one more step per [`BYTES_PER_STEP`] of that part.
const READ_WHOLE: &[&str] = &[
    "pattern",
    "format",
    "enum",
    "const",
    "uniqueItems",
    "minLength",
    "maxLength",
    "contentMediaType",
    "contentEncoding",
];

/// How many bytes of a value one step stands for where a keyword reads it whole.
const BYTES_PER_STEP: u64 = 64;

/// What one check costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Keywords applied: every keyword of every subschema applied to every part of the value.
    pub steps: u64,
    /// The sum, over those steps, of one plus their nesting: what the crate's error paths and
    /// its repeated validity checks (an `anyOf` checks each branch, then each again for its
    /// errors) cost; the budgets are counted in it.
    pub weight: u64,
    /// How deeply the applications nest.
    pub depth: usize,
}

impl Work {
    /// `child`, applied one level below `self`'s subschema, added to it.
    fn add(&mut self, child: Work) {
        self.steps = self.steps.saturating_add(child.steps);
        self.weight = self
            .weight
            .saturating_add(child.weight)
            .saturating_add(child.steps);
        self.depth = self.depth.max(child.depth.saturating_add(1));
    }
}

/// Why a check was not measured to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// The work passed the cap.
    Work,
    /// The applications nest deeper than [`MAX_SCHEMA_NESTING`].
    Nesting,
}

/// Where a schema's references can lead: its resources (the root and every object with an
/// `$id`), anchors by name, dynamic anchors by name, and `$recursiveAnchor` targets, each as a
/// JSON pointer into the schema. Built once per schema.
#[derive(Debug, Default)]
pub(super) struct Index {
    resources: Vec<(String, Option<String>)>,
    anchors: HashMap<String, Vec<String>>,
    dynamic: HashMap<String, Vec<String>>,
    recursive: Vec<String>,
}

impl Index {
    /// The index of `root`: every object of it (data positions too, which can only add
    /// targets), without recursion.
    pub(super) fn new(root: &Value) -> Index {
        let mut index = Index {
            resources: vec![(String::new(), id_of(root).map(str::to_owned))],
            recursive: vec![String::new()],
            ..Index::default()
        };
        let mut stack = vec![(String::new(), root)];
        while let Some((at, v)) = stack.pop() {
            match v {
                Value::Object(o) => {
                    if !at.is_empty() {
                        index.note(&at, o);
                    }
                    for (k, x) in o {
                        if x.is_object() || x.is_array() {
                            stack.push((
                                format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                                x,
                            ));
                        }
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        if x.is_object() || x.is_array() {
                            stack.push((format!("{at}/{i}"), x));
                        }
                    }
                }
                _ => {}
            }
        }
        index
    }

    fn note(&mut self, at: &str, o: &Map<String, Value>) {
        if let Some(id) = id_of_object(o) {
            match id.split_once('#') {
                // `"$id": "#name"` (drafts 4 to 7): an anchor.
                Some(("", name)) => self.anchor(name, at),
                _ => self.resources.push((at.to_owned(), Some(id.to_owned()))),
            }
        }
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(name)) = o.get(key) {
                self.anchor(name, at);
                if key == "$dynamicAnchor" {
                    self.dynamic
                        .entry(name.clone())
                        .or_default()
                        .push(at.to_owned());
                }
            }
        }
        if o.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
            self.recursive.push(at.to_owned());
        }
    }

    fn anchor(&mut self, name: &str, at: &str) {
        self.anchors
            .entry(name.to_owned())
            .or_default()
            .push(at.to_owned());
    }

    /// Every subschema `reference` (the value of `keyword`) may lead to; `true` beside them
    /// when it may lead out of the schema.
    fn targets<'s>(
        &self,
        root: &'s Value,
        keyword: &str,
        reference: &str,
    ) -> (Vec<&'s Value>, bool) {
        let resolve = |pointers: &[String]| -> Vec<&'s Value> {
            pointers.iter().filter_map(|p| root.pointer(p)).collect()
        };
        if keyword == "$recursiveRef" {
            let mut all = resolve(&self.recursive);
            all.extend(self.resources.iter().filter_map(|(p, _)| root.pointer(p)));
            return (all, false);
        }
        let (base, fragment) = match reference.split_once('#') {
            Some((b, f)) => (b, Some(f)),
            None => (reference, None),
        };
        let resources: Vec<&str> = if base.is_empty() {
            self.resources.iter().map(|(p, _)| p.as_str()).collect()
        } else {
            self.resources
                .iter()
                .filter(|(_, id)| id.as_deref().is_some_and(|id| same_document(id, base)))
                .map(|(p, _)| p.as_str())
                .collect()
        };
        let mut found: Vec<&'s Value> = match fragment {
            None | Some("") => resources.iter().filter_map(|p| root.pointer(p)).collect(),
            Some(f) if f.starts_with('/') => {
                let f = percent_decoded(f);
                resources
                    .iter()
                    .filter_map(|p| root.pointer(&format!("{p}{f}")))
                    .collect()
            }
            Some(name) => self
                .anchors
                .get(name)
                .map_or_else(Vec::new, |ps| resolve(ps)),
        };
        if keyword == "$dynamicRef" {
            if let Some(name) = fragment.filter(|f| !f.starts_with('/')) {
                found.extend(
                    self.dynamic
                        .get(name)
                        .map_or_else(Vec::new, |ps| resolve(ps)),
                );
            }
        }
        let outside = found.is_empty();
        (found, outside)
    }
}

/// The `$id` (or draft 4's `id`) of a schema object, when it is a string.
fn id_of(v: &Value) -> Option<&str> {
    v.as_object().and_then(id_of_object)
}

fn id_of_object(o: &Map<String, Value>) -> Option<&str> {
    o.get("$id").or_else(|| o.get("id")).and_then(Value::as_str)
}

/// Whether the reference base `base` may name the resource whose `$id` is `id` (without
/// resolving URIs: the same text, or one ending in the other after a `/`).
fn same_document(id: &str, base: &str) -> bool {
    let id = id.split('#').next().unwrap_or(id).trim_end_matches('/');
    let base = base.trim_end_matches('/');
    !id.is_empty()
        && (id == base
            || id.ends_with(&format!("/{base}"))
            || base.ends_with(&format!("/{id}"))
            || id.rsplit('/').next() == base.rsplit('/').next())
}

/// `%XX` escapes of a URI fragment decoded (invalid ones kept as they are).
fn percent_decoded(f: &str) -> String {
    let bytes = f.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(b) = f
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Counts the [`Work`] of checking values against one schema.
pub(super) struct Meter<'s> {
    root: &'s Value,
    index: &'s Index,
}

/// One count: its memo, the pairs being counted, the cap.
struct Count<'s> {
    root: &'s Value,
    index: &'s Index,
    /// Finished pairs (subschema, part of the value; scalars are all one part, as their cost
    /// does not depend on them).
    memo: HashMap<(usize, usize), Work>,
    /// The pairs being counted, innermost last.
    stack: Vec<(usize, usize)>,
    /// Applications counted so far, and parts of values sized (the meter's own work).
    spent: u64,
    /// The size of each structure met, by address: its nodes and string bytes.
    sizes: HashMap<usize, u64>,
    cap: u64,
}

impl<'s> Meter<'s> {
    pub(super) fn new(root: &'s Value, index: &'s Index) -> Self {
        Meter { root, index }
    }

    /// The work of checking `value` against the schema, or why it passes `cap` (in
    /// [`Work::weight`]) or nests too deeply. The count itself takes at most about `cap`
    /// steps; the second number is how many it took.
    pub(super) fn measure(&self, value: &Value, cap: u64) -> (Result<Work, Over>, u64) {
        let mut count = Count {
            root: self.root,
            index: self.index,
            memo: HashMap::new(),
            stack: Vec::new(),
            spent: 0,
            sizes: HashMap::new(),
            cap,
        };
        let work = count.apply(self.root, value, 0).and_then(|(w, _)| {
            if w.weight > cap {
                Err(Over::Work)
            } else {
                Ok(w)
            }
        });
        (work, count.spent)
    }
}

/// A value's address, or 0 for every scalar but a string (whose cost depends on its length).
fn value_key(v: &Value) -> usize {
    match v {
        Value::Object(_) | Value::Array(_) | Value::String(_) => std::ptr::from_ref(v) as usize,
        _ => 0,
    }
}

impl<'s> Count<'s> {
    /// The work of `schema` applied to `value` at nesting `depth`, and the stack position of
    /// the outermost pair a cycle inside it came back to (`usize::MAX` if none: then it is
    /// memoised).
    fn apply(
        &mut self,
        schema: &'s Value,
        value: &Value,
        depth: usize,
    ) -> Result<(Work, usize), Over> {
        if depth > MAX_SCHEMA_NESTING {
            return Err(Over::Nesting);
        }
        self.spent += 1;
        if self.spent > self.cap {
            return Err(Over::Work);
        }
        let key = (std::ptr::from_ref(schema) as usize, value_key(value));
        if let Some(w) = self.memo.get(&key) {
            if depth + w.depth > MAX_SCHEMA_NESTING {
                return Err(Over::Nesting);
            }
            return Ok((*w, usize::MAX));
        }
        if let Some(at) = self.stack.iter().position(|k| *k == key) {
            // A cycle that stays on this part of the value: the crate stops here too.
            let one = Work {
                steps: 1,
                weight: 1,
                depth: 0,
            };
            return Ok((one, at));
        }
        let me = self.stack.len();
        self.stack.push(key);
        let counted = self.expand(schema, value, depth);
        self.stack.pop();
        let (work, cut) = counted?;
        if cut >= me {
            self.memo.insert(key, work);
            Ok((work, usize::MAX))
        } else {
            Ok((work, cut))
        }
    }

    fn expand(
        &mut self,
        schema: &'s Value,
        value: &Value,
        depth: usize,
    ) -> Result<(Work, usize), Over> {
        let Value::Object(o) = schema else {
            return Ok((
                Work {
                    steps: 1,
                    weight: 1,
                    depth: 0,
                },
                usize::MAX,
            ));
        };
        let mut own = 1 + o.len() as u64;
        if o.keys().any(|k| READ_WHOLE.contains(&k.as_str())) {
            let whole = o
                .keys()
                .filter(|k| READ_WHOLE.contains(&k.as_str()))
                .count() as u64;
            own = own.saturating_add(whole.saturating_mul(self.size(value)? / BYTES_PER_STEP));
        }
        let mut work = Work {
            steps: own,
            weight: own,
            depth: 0,
        };
        let mut cut = usize::MAX;
        for (k, x) in o {
            if matches!(k.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef") {
                let Some(reference) = x.as_str() else {
                    continue;
                };
                let (targets, outside) = self.index.targets(self.root, k, reference);
                for t in targets {
                    self.child(&mut work, &mut cut, t, value, depth)?;
                }
                if outside {
                    let (w, parts) = outside_work(value)?;
                    self.spent = self.spent.saturating_add(parts);
                    work.add(w);
                    if self.spent > self.cap || work.weight > self.cap {
                        return Err(Over::Work);
                    }
                }
                continue;
            }
            let Some(how) = keywords::applies(k) else {
                continue;
            };
            for (inner, sub) in keywords::subschemas(x, how) {
                match how {
                    Applies::Same | Applies::SameEach | Applies::SameValues => {
                        self.child(&mut work, &mut cut, sub, value, depth)?;
                    }
                    Applies::Properties => {
                        if let (keywords::Inner::Name(name), Value::Object(v)) = (inner, value) {
                            if let Some(part) = v.get(name) {
                                self.child(&mut work, &mut cut, sub, part, depth)?;
                            }
                        }
                    }
                    Applies::PatternProperties | Applies::EveryProperty => {
                        if let Value::Object(v) = value {
                            for part in v.values() {
                                self.child(&mut work, &mut cut, sub, part, depth)?;
                            }
                        }
                    }
                    Applies::Names => {
                        // Each name is a string the subschema checks: counted as an empty one,
                        // then every step again per 64 bytes of the name.
                        if let Value::Object(v) = value {
                            for name in v.keys() {
                                let before = work.steps;
                                self.child(&mut work, &mut cut, sub, &Value::Null, depth)?;
                                let extra = (work.steps - before)
                                    .saturating_mul(name.len() as u64 / BYTES_PER_STEP);
                                work.steps = work.steps.saturating_add(extra);
                                work.weight = work.weight.saturating_add(extra);
                                if work.weight > self.cap {
                                    return Err(Over::Work);
                                }
                            }
                        }
                    }
                    Applies::Items | Applies::Positional | Applies::EveryItem => {
                        if let Value::Array(items) = value {
                            match inner {
                                keywords::Inner::Index(i) => {
                                    if let Some(part) = items.get(i) {
                                        self.child(&mut work, &mut cut, sub, part, depth)?;
                                    }
                                }
                                _ => {
                                    for part in items {
                                        self.child(&mut work, &mut cut, sub, part, depth)?;
                                    }
                                }
                            }
                        }
                    }
                    Applies::Definitions => {}
                }
            }
        }
        Ok((work, cut))
    }

    /// The size of `value`: a string's bytes; a structure's nodes and string bytes (sized once
    /// each, without recursion); 0 for other scalars.
    fn size(&mut self, value: &Value) -> Result<u64, Over> {
        match value {
            Value::String(s) => return Ok(s.len() as u64),
            Value::Object(_) | Value::Array(_) => {}
            _ => return Ok(0),
        }
        let key = std::ptr::from_ref(value) as usize;
        if let Some(&n) = self.sizes.get(&key) {
            return Ok(n);
        }
        let mut n = 0u64;
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            n += 1;
            match v {
                Value::String(s) => n += s.len() as u64,
                Value::Object(o) => {
                    n += o.keys().map(|k| k.len() as u64).sum::<u64>();
                    stack.extend(o.values());
                }
                Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
        self.spent = self.spent.saturating_add(n / BYTES_PER_STEP);
        if self.spent > self.cap {
            return Err(Over::Work);
        }
        self.sizes.insert(key, n);
        Ok(n)
    }

    fn child(
        &mut self,
        work: &mut Work,
        cut: &mut usize,
        schema: &'s Value,
        value: &Value,
        depth: usize,
    ) -> Result<(), Over> {
        let (w, c) = self.apply(schema, value, depth + 1)?;
        work.add(w);
        *cut = (*cut).min(c);
        if work.weight > self.cap {
            return Err(Over::Work);
        }
        Ok(())
    }
}

/// The work counted for checking `value` against a schema outside the transcript, and how many
/// parts `value` has.
fn outside_work(value: &Value) -> Result<(Work, u64), Over> {
    let mut parts = 0u64;
    let mut deepest = 0usize;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        parts += 1;
        deepest = deepest.max(d);
        match v {
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    let depth = (deepest + 1).saturating_mul(EXTERNAL_NESTING);
    if depth > MAX_SCHEMA_NESTING {
        return Err(Over::Nesting);
    }
    let steps = parts.saturating_mul(EXTERNAL_STEPS);
    let work = Work {
        steps,
        weight: steps.saturating_mul(depth as u64 + 1),
        depth,
    };
    Ok((work, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    fn measure(schema: &Value, value: &Value, cap: u64) -> (Result<Work, Over>, u64) {
        let index = Index::new(schema);
        Meter::new(schema, &index).measure(value, cap)
    }

    /// `levels` of `anyOf` whose two branches both refer to the next level.
    fn dag(levels: usize) -> Value {
        let mut defs = Map::new();
        for i in 0..levels {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"anyOf": [next, next]}));
        }
        defs.insert(format!("d{levels}"), json!({"type": "string"}));
        json!({"$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}})
    }

    #[test]
    fn a_plain_schema_counts_its_keywords_on_the_parts_of_the_value() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
        let (w, spent) = measure(&schema, &json!({"a": "x", "c": 1}), 1000);
        // The root's 2 keywords + itself, then `a`'s schema (1 keyword + itself) one level down.
        assert_eq!(
            w,
            Ok(Work {
                steps: 5,
                weight: 7,
                depth: 1
            })
        );
        assert_eq!(spent, 2);
    }

    /// The DAG that doubles with each level is counted in linear time, and refused at the cap
    /// after about the cap's worth of counting.
    #[test]
    fn a_ref_dag_doubles_per_level_and_is_counted_in_linear_time() {
        let value = json!({"x": 1});
        let mut last = 0;
        for levels in [4, 8, 12] {
            let (w, spent) = measure(&dag(levels), &value, u64::MAX);
            let w = w.unwrap();
            assert!(w.steps >= 1 << levels, "{levels}: {w:?}");
            assert!(w.steps > last * 8);
            last = w.steps;
            // Each distinct (subschema, part) pair counted once, then taken from the memo.
            assert!(spent < 8 * levels as u64 + 16, "{levels}: {spent}");
        }
        let (w, spent) = measure(&dag(60), &value, 1_000_000);
        assert_eq!(w, Err(Over::Work));
        assert!(spent <= 1_000_000, "{spent}");
    }

    /// A recursive schema costs with each level of the value; a cycle that stays on one part of
    /// the value counts once.
    #[test]
    fn recursion_follows_the_value_and_cycles_stop() {
        let tree = json!({"$defs": {"n": {"anyOf": [
            {"properties": {"c": {"$ref": "#/$defs/n"}}},
            {"properties": {"c": {"$ref": "#/$defs/n"}}}
        ]}}, "$ref": "#/$defs/n"});
        let mut value = json!(1);
        for _ in 0..40 {
            value = json!({ "c": value });
        }
        assert_eq!(measure(&tree, &value, 10_000_000).0, Err(Over::Work));
        let mut shallow = json!(1);
        for _ in 0..5 {
            shallow = json!({ "c": shallow });
        }
        assert!(measure(&tree, &shallow, 10_000_000).0.is_ok());
        let cycle = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "string"}]},
                                      "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                           "$ref": "#/$defs/a"});
        let w = measure(&cycle, &json!(1), 1000).0.unwrap();
        assert!(w.steps < 20, "{w:?}");
    }

    /// Keywords that read a whole string or structure count its size: a hundred patterns on a
    /// 1 MB string are a hundred scans of it.
    #[test]
    fn keywords_that_read_the_whole_value_count_its_size() {
        let branches: Vec<Value> = (0..100)
            .map(|i| json!({"pattern": format!("x{i}$")}))
            .collect();
        let schema = json!({ "anyOf": branches });
        let long = json!("a".repeat(1_000_000));
        assert_eq!(measure(&schema, &long, 1_000_000).0, Err(Over::Work));
        let w = measure(&schema, &json!("short"), 1_000_000).0.unwrap();
        assert!(w.steps < 400, "{w:?}");
        let names = json!({"propertyNames": {"pattern": "^a"}});
        let mut wide = Map::new();
        wide.insert("k".repeat(640), json!(1));
        let w = measure(&names, &Value::Object(wide), 1_000_000).0.unwrap();
        assert!(w.steps >= 10 * 2, "{w:?}");
    }

    #[test]
    fn nesting_past_the_bound_is_refused() {
        let mut defs = Map::new();
        for i in 0..300 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d300".into(), json!({"type": "string"}));
        let chain = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        assert_eq!(measure(&chain, &json!(1), 1_000_000).0, Err(Over::Nesting));
    }

    /// Anchors, `$id`s, escaped pointers and dynamic anchors lead where the crate goes; a
    /// reference to a meta-schema counts per part of the value.
    #[test]
    fn references_of_every_form_are_followed() {
        let d = dag(6);
        let defs = &d["$defs"];
        let big = measure(&d, &json!({"x": 1}), u64::MAX).0.unwrap().steps;
        for (schema, what) in [
            (
                json!({"$defs": {"x": {"$anchor": "here", "anyOf": defs["d0"]["anyOf"]}, "d1": defs["d1"], "d2": defs["d2"], "d3": defs["d3"], "d4": defs["d4"], "d5": defs["d5"], "d6": defs["d6"]},
                    "properties": {"x": {"$ref": "#here"}}}),
                "anchor",
            ),
            (
                json!({"$defs": {"a/b": defs["d0"], "d1": defs["d1"], "d2": defs["d2"], "d3": defs["d3"], "d4": defs["d4"], "d5": defs["d5"], "d6": defs["d6"]},
                    "properties": {"x": {"$ref": "#/$defs/a~1b"}}}),
                "escaped",
            ),
            (
                json!({"$defs": {"a%b": defs["d0"], "d1": defs["d1"], "d2": defs["d2"], "d3": defs["d3"], "d4": defs["d4"], "d5": defs["d5"], "d6": defs["d6"]},
                    "properties": {"x": {"$ref": "#/$defs/a%25b"}}}),
                "percent",
            ),
            (
                json!({"$id": "https://example.com/root.json", "$defs": {"d0": defs["d0"], "d1": defs["d1"], "d2": defs["d2"], "d3": defs["d3"], "d4": defs["d4"], "d5": defs["d5"], "d6": defs["d6"]},
                    "properties": {"x": {"$ref": "root.json#/$defs/d0"}}}),
                "by id",
            ),
            (
                json!({"$defs": {"d0": {"$dynamicAnchor": "n", "anyOf": defs["d0"]["anyOf"]}, "d1": defs["d1"], "d2": defs["d2"], "d3": defs["d3"], "d4": defs["d4"], "d5": defs["d5"], "d6": defs["d6"]},
                    "properties": {"x": {"$dynamicRef": "#n"}}}),
                "dynamic",
            ),
        ] {
            let w = measure(&schema, &json!({"x": 1}), u64::MAX).0.unwrap();
            assert!(w.steps + 4 >= big, "{what}: {w:?} against {big}");
        }
        let meta =
            json!({"properties": {"x": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}});
        let w = measure(&meta, &json!({"x": {"a": [1, 2, 3]}}), u64::MAX)
            .0
            .unwrap();
        assert!(w.steps >= 5 * EXTERNAL_STEPS, "{w:?}");
    }

    /// Every schema object of `schema` with `"x-count": true`.
    fn counted(mut schema: Value) -> Value {
        let at: Vec<String> = keywords::schema_objects(&schema)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        for p in at {
            if let Some(Value::Object(o)) = schema.pointer_mut(&p) {
                o.insert("x-count".into(), Value::Bool(true));
            }
        }
        schema
    }

    struct Tick(Arc<AtomicU64>);

    impl<'i> jsonschema::Keyword<'i> for Tick {
        fn validate(&self, _: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        fn is_valid(&self, _: &'i Value) -> bool {
            self.0.fetch_add(1, Ordering::Relaxed);
            true
        }
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!(true)),
            Just(json!({"type": "string"})),
            Just(json!({"type": "integer", "minimum": 3})),
            Just(json!({"required": ["a"]})),
            (0..4usize).prop_map(|i| json!({"$ref": format!("#/$defs/d{i}")})),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"anyOf": v})),
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"allOf": v})),
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v})),
                inner.clone().prop_map(|s| json!({"not": s})),
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| json!({"properties": {"a": a, "b": b}})),
                inner.clone().prop_map(|s| json!({"items": s})),
                inner
                    .clone()
                    .prop_map(|s| json!({"additionalProperties": s})),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(i, t, e)| json!({"if": i, "then": t, "else": e})),
            ]
        })
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(1)),
            Just(json!(5)),
            Just(json!("s")),
            Just(json!(null))
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("a".to_owned()),
                        Just("b".to_owned()),
                        Just("c".to_owned())
                    ],
                    inner,
                    0..3
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The count is an upper bound of what the crate does: every subschema application
        /// it makes, checking validity and then listing every error, is within the count's
        /// weight (a keyword in every schema object counts them).
        #[test]
        fn the_weight_bounds_the_crates_work(
            root in schema(),
            defs in prop::collection::vec(schema(), 4),
            value in value(),
        ) {
            let mut schema = root;
            if let Value::Object(o) = &mut schema {
                o.insert("$defs".into(), json!({"d0": defs[0], "d1": defs[1], "d2": defs[2], "d3": defs[3]}));
            } else {
                schema = json!({"allOf": [schema], "$defs": {"d0": defs[0], "d1": defs[1], "d2": defs[2], "d3": defs[3]}});
            }
            let schema = counted(schema);
            let ticks = Arc::new(AtomicU64::new(0));
            let t = Arc::clone(&ticks);
            let Ok(validator) = jsonschema::options()
                .offline()
                .with_keyword("x-count", move |_, _, _| Ok(Box::new(Tick(Arc::clone(&t)))))
                .build(&schema)
            else {
                return Ok(());
            };
            let (w, _) = measure(&schema, &value, 50_000_000);
            let Ok(w) = w else { return Ok(()); };
            let _ = validator.is_valid(&value);
            let errors = validator.iter_errors(&value).count();
            let done = ticks.load(Ordering::Relaxed);
            prop_assert!(done <= w.weight, "the crate applied {} schemas ({} errors), the count says {:?}", done, errors, w);
        }
    }
}
