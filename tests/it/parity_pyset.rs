//! `json::pyset` against CPython: the order of `set(a)`, `a - b` and `a & b` for thousands of
//! generated lists of strings (every storage width, lone surrogates, the empty string,
//! duplicates, sets small and large enough to grow their table and to take `set_difference`'s
//! copy-and-delete path), as CPython run with `PYTHONHASHSEED=0` lists them.
//!
//! `recorded_answers_agree` checks the answers of CPython 3.11.7 to the first 2 000 cases, kept
//! in `tests/fixtures/pyset/cpython311.jsonl.gz` (no interpreter needed; 3.12.1 and 3.13.0
//! give the same answers);
//! `live_interpreters_agree` asks every interpreter it finds (`python3`, `python3.11`,
//! `python3.12`, and those named in `PYSET_PYTHONS`, separated by spaces) through
//! `tests/fixtures/pyset/answer.py`, and with `PYSET_RECORD=1` writes the recorded file from
//! the first one.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use flate2::read::GzDecoder;
use toolspec::json::lone;
use toolspec::json::pyset::StrSet;
use toolspec::json::read::{read, Runtime};
use toolspec::json::value::Val;

const RECORDED: &str = "tests/fixtures/pyset/cpython311.jsonl.gz";
const ANSWER: &str = "tests/fixtures/pyset/answer.py";
/// Cases asked of each interpreter, and the first of them kept in [`RECORDED`].
const CASES: usize = 3000;
const RECORD: usize = 2000;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A character of one storage width of CPython's strings, or a lone surrogate.
fn char_of_class(r: &mut Rng, class: usize) -> char {
    let pick = |r: &mut Rng, lo: u32, hi: u32| lo + r.below((hi - lo) as usize) as u32;
    let c = match class {
        0 => pick(r, u32::from(b'a'), u32::from(b'f')),
        1 => pick(r, 0x20, 0x7f),
        2 => pick(r, 0x80, 0x100),
        3 => pick(r, 0x100, 0xd800),
        4 => pick(r, 0xe000, 0x1_0000),
        5 => pick(r, 0x1_0000, 0x3_0000),
        _ => return lone::char_of(pick(r, 0xd800, 0xe000)).unwrap(),
    };
    char::from_u32(c).unwrap_or('x')
}

/// A generated string; a lone high surrogate is never followed by a lone low one (JSON would
/// read the two escapes as one pair).
fn key(r: &mut Rng) -> String {
    let mut prev_high = false;
    key_chars(r)
        .chars()
        .map(|c| {
            let unit = lone::unit_of(c);
            let c = match unit {
                Some(0xdc00..=0xdfff) if prev_high => 'x',
                _ => c,
            };
            prev_high = c != 'x' && matches!(unit, Some(0xd800..=0xdbff));
            c
        })
        .collect()
}

fn key_chars(r: &mut Rng) -> String {
    match r.below(20) {
        0 => String::new(),
        1..=9 => {
            // Names as tools and keys are written: few letters, so lists repeat them.
            let n = 1 + r.below(3);
            (0..n).map(|_| char_of_class(r, 0)).collect()
        }
        10..=12 => format!("tool_{}", r.below(400)),
        _ => {
            let n = 1 + r.below(9);
            let class = r.below(7);
            (0..n)
                .map(|_| {
                    if r.below(4) == 0 {
                        let any = r.below(7);
                        char_of_class(r, any)
                    } else {
                        char_of_class(r, class)
                    }
                })
                .collect()
        }
    }
}

fn size(r: &mut Rng) -> usize {
    match r.below(10) {
        0..=5 => r.below(12),
        6..=8 => r.below(60),
        _ => r.below(400),
    }
}

/// The generated cases: two lists of strings each, drawn from a shared pool so they overlap.
fn cases(n: usize) -> Vec<(Vec<String>, Vec<String>)> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            let pool: Vec<String> = (0..=r.below(300)).map(|_| key(&mut r)).collect();
            let (na, nb) = (size(&mut r), size(&mut r));
            let mut list = |len: usize| -> Vec<String> {
                (0..len)
                    .map(|_| {
                        if r.below(5) == 0 {
                            key(&mut r)
                        } else {
                            pool[r.below(pool.len())].clone()
                        }
                    })
                    .collect()
            };
            let a = list(na);
            (a, list(nb))
        })
        .collect()
}

/// A string as a JSON string for Python: every character past ASCII escaped, a lone
/// surrogate as its one unit.
fn py_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match lone::unit_of(c) {
            Some(u) => out.push_str(&format!("\\u{u:04x}")),
            None if c == '"' || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            None if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            None => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

fn case_line(a: &[String], b: &[String]) -> String {
    let mut out = String::from("{\"a\": [");
    for (i, s) in a.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_json_str(&mut out, s);
    }
    out.push_str("], \"b\": [");
    for (i, s) in b.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_json_str(&mut out, s);
    }
    out.push_str("]}");
    out
}

fn strings(v: Option<&Val<'_>>) -> Vec<String> {
    match v {
        Some(Val::Arr(items)) => items
            .iter()
            .map(|x| match x {
                Val::Str(s) => s.to_string(),
                other => panic!("not a string: {other:?}"),
            })
            .collect(),
        other => panic!("not a list: {other:?}"),
    }
}

fn indexes(v: Option<&Val<'_>>) -> Vec<usize> {
    match v {
        Some(Val::Arr(items)) => items
            .iter()
            .map(|x| match x {
                Val::Int(i) => usize::try_from(*i).unwrap(),
                Val::UInt(i) => usize::try_from(*i).unwrap(),
                other => panic!("not an index: {other:?}"),
            })
            .collect(),
        other => panic!("not a list: {other:?}"),
    }
}

/// Compares one answered line with `StrSet`; the differences, described.
fn check_answer(line: &str) -> Option<String> {
    let (v, _) = read(line, Runtime::PY311).unwrap_or_else(|e| panic!("{e:?}: {line}"));
    let (a, b) = (strings(v.get("a")), strings(v.get("b")));
    let all: Vec<&str> = a.iter().chain(&b).map(String::as_str).collect();
    let first = |s: &str| all.iter().position(|x| *x == s).unwrap();
    let sa = StrSet::from_strs(a.iter().map(String::as_str));
    let sb = StrSet::from_strs(b.iter().map(String::as_str));
    let ours = |s: StrSet<'_>| s.iter().map(first).collect::<Vec<_>>();
    let mut bad = Vec::new();
    for (name, got) in [
        ("set_a", ours(sa.clone())),
        ("a_minus_b", ours(sa.difference(&sb))),
        ("b_minus_a", ours(sb.difference(&sa))),
        ("a_and_b", ours(sa.intersection(&sb))),
        ("b_and_a", ours(sb.intersection(&sa))),
    ] {
        let want = indexes(v.get(name));
        if got != want {
            bad.push(format!("{name}: python {want:?}, toolspec {got:?}"));
        }
    }
    (!bad.is_empty()).then(|| {
        let short: String = line.chars().take(300).collect();
        format!("{short}\n  {}", bad.join("\n  "))
    })
}

fn check_all(lines: &[String], who: &str) {
    let bad: Vec<String> = lines.iter().filter_map(|l| check_answer(l)).collect();
    assert!(
        bad.is_empty(),
        "{who}: {} of {} cases differ; first 5:\n{}",
        bad.len(),
        lines.len(),
        bad.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn recorded_answers_agree() {
    let mut text = String::new();
    GzDecoder::new(std::fs::File::open(RECORDED).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), RECORD, "recorded cases");
    check_all(&lines, "CPython 3.11.7 (recorded)");
}

/// The answers of `python` (with `PYTHONHASHSEED=0`) to `input`, or `None` when there is no
/// such interpreter.
fn ask(python: &str, input: &str) -> Option<Vec<String>> {
    let ok = Command::new(python)
        .arg("-c")
        .arg("import sys; assert sys.version_info >= (3, 11)")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let mut child = Command::new(python)
        .arg(ANSWER)
        .env("PYTHONHASHSEED", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(Result::unwrap)
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success(), "{python} {ANSWER} failed");
    Some(lines)
}

#[test]
fn live_interpreters_agree() {
    let input: String = cases(CASES)
        .iter()
        .map(|(a, b)| case_line(a, b) + "\n")
        .collect();
    let mut pythons: Vec<String> = ["python3", "python3.11", "python3.12"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    if let Ok(more) = std::env::var("PYSET_PYTHONS") {
        pythons.extend(more.split_whitespace().map(str::to_owned));
    }
    let mut asked = 0;
    for python in &pythons {
        let Some(lines) = ask(python, &input) else {
            continue;
        };
        assert_eq!(lines.len(), CASES, "{python}");
        if asked == 0 && std::env::var_os("PYSET_RECORD").is_some() {
            let file = std::fs::File::create(RECORDED).unwrap();
            let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::best());
            for l in lines.iter().take(RECORD) {
                writeln!(gz, "{l}").unwrap();
            }
            gz.finish().unwrap();
        }
        check_all(&lines, python);
        asked += 1;
    }
    eprintln!("pyset: {asked} interpreter(s) asked");
}
