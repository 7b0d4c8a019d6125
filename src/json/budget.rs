//! JSON text → a serde_json [`Value`] within a memory budget.
//!
//! A parsed value can take far more memory than its text: `{"a":0},` is 8 bytes of text and
//! about 400 bytes of `Value` (an object is an ordered map with its own table), so 64 MiB of
//! such objects take 4 GB. [`from_slice`] and [`from_str`] build the same `Value` that
//! `serde_json::from_slice` builds, counting as they go what each node costs (the 32-byte
//! `Value`, each array's capacity, each object's table and entries, each string's bytes, with
//! the allocator's rounding), and stop at the first node past the budget. So a reader's memory
//! is bounded by what the value takes, whatever the text's shape, and nothing past the budget is
//! ever allocated. The estimate is an upper bound of the bytes the value holds on the heap
//! (checked with a counting allocator in `tests/readers_big.rs`).
//!
//! serde_json's recursion limit (128 levels) applies as it does to `serde_json::from_slice`.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Bytes of one `Value` (an enum of 32 bytes on 64-bit targets).
pub(crate) const VALUE: usize = std::mem::size_of::<Value>();
/// What the allocator adds to each allocation, and its smallest chunk.
const CHUNK_OVERHEAD: usize = 16;
const MIN_CHUNK: usize = 32;
/// An object's ordered map: each entry holds its hash, key and value (64 bytes), and its table
/// an index and a control byte; its first allocation holds 3 entries.
const ENTRY: usize = 8 + std::mem::size_of::<String>() + VALUE;
pub(crate) const FIRST_ENTRIES: usize = 3;

/// Why a text was not read.
#[derive(Debug)]
pub enum Refusal {
    /// The text is not JSON (serde_json's error, with its position).
    Json(serde_json::Error),
    /// The value would take more than the budget; it stopped at this 1-based line and column.
    TooLarge {
        /// 1-based line where it stopped.
        line: usize,
        /// 1-based column where it stopped.
        column: usize,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Json(e) => e.fmt(f),
            Refusal::TooLarge { line, column } => write!(
                f,
                "the parsed value takes more memory than its budget (stopped at line {line} column {column})"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// `bytes` parsed as one JSON value taking at most `budget` bytes (see the module's docs).
pub fn from_slice(bytes: &[u8], budget: usize) -> Result<Value, Refusal> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    read(&mut de, &Meter::new(budget))
}

/// [`from_slice`] for text already known to be UTF-8.
pub fn from_str(text: &str, budget: usize) -> Result<Value, Refusal> {
    let mut de = serde_json::Deserializer::from_str(text);
    read(&mut de, &Meter::new(budget))
}

/// [`from_str`], drawing on `meter` (shared by several values: what one takes, the next cannot).
pub fn from_str_metered(text: &str, meter: &Meter) -> Result<Value, Refusal> {
    let mut de = serde_json::Deserializer::from_str(text);
    read(&mut de, meter)
}

/// The bytes `value` takes, as the parser counts them: what a budget of [`from_slice`] must be
/// for the value to be read (tests compare it with what the allocator saw).
pub fn cost(value: &Value) -> usize {
    let mut total = VALUE;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total += string(s.len()),
            Value::Array(a) => {
                total += chunk(a.capacity() * VALUE);
                stack.extend(a.iter());
            }
            Value::Object(m) => {
                total += map_base(m.len()) + m.len().saturating_sub(FIRST_ENTRIES) * map_grow();
                for (k, x) in m {
                    total += string(k.len());
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    total
}

fn read<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    meter: &Meter,
) -> Result<Value, Refusal> {
    let refusal = |e: serde_json::Error| meter.refusal(e);
    meter.charge(VALUE).map_err(refusal)?;
    let value = Seed(meter).deserialize(&mut *de).map_err(refusal)?;
    de.end().map_err(Refusal::Json)?;
    Ok(value)
}

/// An allocation of `n` bytes, rounded as the allocator rounds it.
pub(crate) fn chunk(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n + CHUNK_OVERHEAD).next_multiple_of(16).max(MIN_CHUNK)
    }
}

/// A string of `len` bytes.
pub(crate) fn string(len: usize) -> usize {
    chunk(len)
}

/// A non-empty object's first allocations: room for 3 entries and a table of 4 slots.
pub(crate) fn map_base(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        chunk(FIRST_ENTRIES * ENTRY) + chunk(4 * 9 + 16)
    }
}

/// Each entry past the first 3: its share of the entries and of the table, which grow by
/// doubling (so up to twice the room in use), and of the copy a growth makes.
pub(crate) fn map_grow() -> usize {
    4 * (ENTRY + 9)
}

/// What is left of a budget, drawn on by each value [`Seed`] builds.
#[derive(Debug)]
pub struct Meter {
    left: Cell<usize>,
    over: Cell<bool>,
}

impl Meter {
    /// A budget of `budget` bytes.
    pub fn new(budget: usize) -> Meter {
        Meter {
            left: Cell::new(budget),
            over: Cell::new(false),
        }
    }

    /// The bytes left.
    pub fn left(&self) -> usize {
        self.left.get()
    }

    /// Whether a value was refused for want of budget.
    pub fn exceeded(&self) -> bool {
        self.over.get()
    }

    /// Take `n` bytes, or fail (and remember it) when fewer are left.
    pub fn charge<E: serde::de::Error>(&self, n: usize) -> Result<(), E> {
        if self.take(n) {
            Ok(())
        } else {
            Err(E::custom("the parsed value is past its memory budget"))
        }
    }

    /// Take `n` bytes if that many are left; `false` (remembered) when fewer are.
    pub fn take(&self, n: usize) -> bool {
        if let Some(left) = self.left.get().checked_sub(n) {
            self.left.set(left);
            true
        } else {
            self.over.set(true);
            false
        }
    }

    /// serde_json's error `e`, as the refusal it is: the budget's, if it was exceeded.
    pub fn refusal(&self, e: serde_json::Error) -> Refusal {
        if self.exceeded() {
            Refusal::TooLarge {
                line: e.line(),
                column: e.column(),
            }
        } else {
            Refusal::Json(e)
        }
    }
}

/// Builds a [`Value`] (as a seed, or as the visitor of a value already begun) drawing on a
/// [`Meter`]: what a walk through JSON text uses where it keeps a value.
#[derive(Clone, Copy)]
pub struct Seed<'m>(pub &'m Meter);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        self.0.charge(string(s.len()))?;
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        self.0.charge(string(s.len()))?;
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items: Vec<Value> = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            if items.len() == items.capacity() {
                // The growth `push` would make (to 4, then doubling), charged before it is made.
                let grown = (items.capacity() * 2).max(4);
                self.0
                    .charge(chunk(grown * VALUE).saturating_sub(chunk(items.capacity() * VALUE)))?;
                items.reserve_exact(grown - items.len());
            }
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let cost = match out.len() {
                0 => map_base(1),
                n if n < FIRST_ENTRIES => 0,
                _ => map_grow(),
            };
            self.0.charge(cost + string(key.len()))?;
            let value = map.next_value_seed(self)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let want = serde_json::from_str::<Value>(text);
        let got = from_str(text, usize::MAX);
        match (want, got) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(a), Err(Refusal::Json(b))) => {
                assert_eq!(a.to_string(), b.to_string(), "{text}");
            }
            (a, b) => panic!("{text}: serde_json {a:?}, budgeted {b:?}"),
        }
        assert_eq!(
            from_slice(text.as_bytes(), usize::MAX).map_err(|e| e.to_string()),
            from_str(text, usize::MAX).map_err(|e| e.to_string())
        );
    }

    #[test]
    fn builds_what_serde_json_builds_and_fails_where_it_fails() {
        for text in [
            "0",
            "-1",
            "18446744073709551615",
            "1.5e300",
            "-0.0",
            "\"a\\u00e9\\n\"",
            "[1, [2, [3]], {}]",
            "{\"b\": 1, \"a\": [true, false, null], \"b\": 2}",
            "{\"k\": {\"k\": {\"k\": \"v\"}}}",
            "[1, 2",
            "{\"a\" 1}",
            "[1] x",
            "1e400",
            "\"\\ud800\"",
            "",
        ] {
            same(text);
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        same(&deep);
    }

    #[test]
    fn stops_at_the_node_past_the_budget() {
        let text = format!("[{}0]", "{\"a\":0},".repeat(1000));
        let v = from_str(&text, usize::MAX).unwrap();
        let need = cost(&v);
        assert!(need > 1000 * 300, "{need}");
        assert_eq!(from_str(&text, need).unwrap(), v);
        match from_str(&text, need / 2) {
            Err(Refusal::TooLarge { line, column }) => {
                assert_eq!(line, 1);
                assert!(column > 8 * 400 && column < text.len(), "{column}");
            }
            other => panic!("{other:?}"),
        }
        // A long string costs its bytes, charged before it is copied.
        let long = format!("\"{}\"", "x".repeat(10_000));
        assert!(matches!(
            from_str(&long, 5_000),
            Err(Refusal::TooLarge { .. })
        ));
        assert!(from_str(&long, 20_000).is_ok());
    }
}
