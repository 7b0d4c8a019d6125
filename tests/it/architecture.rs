//! The module graph and the library's boundaries, as `docs/architecture.md` states them.
//!
//! Every `crate::MODULE` path (and every `super::` chain that reaches the crate root) in the
//! library's code is an edge from the top-level module of the file it is in to `MODULE`; each
//! edge must be in [`ALLOWED`] or, for the few that are known and due to go, in [`EXCEPTIONS`].
//! The library (everything but `src/main.rs` and `src/cli/`) must not start processes, read the
//! environment or print, and only `syntax` may name pest. Unit-test modules (`#[cfg(test)]`)
//! are left out: tests may build fixtures with any module. Comments and string literals are
//! blanked before scanning, so documentation links do not count.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Per top-level module, the modules its code may name (`crate::X`), besides `code`, which
/// every module may name. Mirrors the table of `docs/architecture.md`: change both together.
const ALLOWED: &[(&str, &[&str])] = &[
    ("text", &[]),
    ("code", &[]),
    ("json", &[]),
    ("source", &["text"]),
    ("guard", &["source"]),
    ("config", &["source"]),
    ("syntax", &["config", "source"]),
    (
        "compile",
        &["config", "guard", "rules", "source", "syntax", "transcript"],
    ),
    ("transcript", &["guard", "json", "source"]),
    ("engine", &["config", "json", "source", "transcript"]),
    (
        "score",
        &["config", "engine", "json", "source", "transcript"],
    ),
    ("report", &["engine", "source", "text"]),
    ("rules", &["config", "engine", "source", "transcript"]),
    (
        "check",
        &[
            "compile",
            "config",
            "engine",
            "guard",
            "report",
            "rules",
            "score",
            "source",
            "syntax",
            "transcript",
        ],
    ),
    (
        "lsp",
        &[
            "check",
            "compile",
            "config",
            "guard",
            "report",
            "source",
            "syntax",
            "text",
            "transcript",
        ],
    ),
    ("live", &["check", "config", "report", "text", "transcript"]),
];

/// Edges that exist today and are to be removed; each is allowed until then. Nothing else
/// may be added here without a plan to remove it.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// Code the library must not contain, outside unit tests: (text, why).
const FORBIDDEN: &[(&str, &str)] = &[
    ("std::process", "only src/cli starts processes or exits"),
    ("Command::new", "only src/cli starts processes"),
    ("env::var", "only src/cli reads the environment"),
    ("env::vars", "only src/cli reads the environment"),
    ("env::var_os", "only src/cli reads the environment"),
    ("env::home_dir", "only src/cli reads the environment"),
    ("env::args", "only src/cli reads the command line"),
    ("println!", "the library never prints"),
    ("eprintln!", "the library never prints"),
    ("print!", "the library never prints"),
    ("eprint!", "the library never prints"),
    ("dbg!", "the library never prints"),
];

/// Forbidden code that exists today and is to be removed: (file, text).
const FORBIDDEN_EXCEPTIONS: &[(&str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The Rust files under `dir`, in the order `tree::files` walks them.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    crate::tree::files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect()
}

/// The library's files: (path relative to the repository, module path from the crate root).
fn library_files() -> Vec<(String, Vec<String>)> {
    let files = rust_files(&src());
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(src()).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if parts[0] == "cli" || parts[0] == "main.rs" || parts[0] == "lib.rs" {
            continue;
        }
        let mut module: Vec<String> = parts
            .iter()
            .map(|p| p.strip_suffix(".rs").unwrap_or(p).to_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        out.push((format!("src/{}", parts.join("/")), module));
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with comments and the contents of string and character literals replaced by spaces
/// (newlines kept, so lines stay where they were).
fn code_only(text: &str) -> Vec<char> {
    let s: Vec<char> = text.chars().collect();
    let mut out = s.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(s.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        match s[i] {
            '/' if s.get(i + 1) == Some(&'/') => {
                let end = s[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(s.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            '/' if s.get(i + 1) == Some(&'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < s.len() && depth > 0 {
                    if s[j] == '/' && s.get(j + 1) == Some(&'*') {
                        depth += 1;
                        j += 2;
                    } else if s[j] == '*' && s.get(j + 1) == Some(&'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            'r' if !prev_ident || (i >= 1 && s[i - 1] == 'b' && (i < 2 || !is_ident(s[i - 2]))) => {
                let hashes = s[i + 1..].iter().take_while(|&&c| c == '#').count();
                if s.get(i + 1 + hashes) == Some(&'"') {
                    let close: Vec<char> = std::iter::once('"')
                        .chain(std::iter::repeat_n('#', hashes))
                        .collect();
                    let start = i + 2 + hashes;
                    let end = (start..s.len())
                        .find(|&j| s[j..].starts_with(&close))
                        .map_or(s.len(), |j| j + close.len());
                    blank(&mut out, start, end.saturating_sub(close.len()));
                    i = end;
                } else {
                    i += 1;
                }
            }
            '"' => {
                let mut j = i + 1;
                while j < s.len() && s[j] != '"' {
                    j += if s[j] == '\\' { 2 } else { 1 };
                }
                blank(&mut out, i + 1, j);
                i = j + 1;
            }
            '\'' => {
                if s.get(i + 1) == Some(&'\\') {
                    let mut j = i + 3;
                    while j < s.len() && s[j] != '\'' {
                        j += 1;
                    }
                    blank(&mut out, i + 1, j);
                    i = j + 1;
                } else if s.get(i + 2) == Some(&'\'') {
                    blank(&mut out, i + 1, i + 2);
                    i += 3;
                } else {
                    i += 1; // a lifetime
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `code` without the items under a `#[cfg(...)]` that needs `test` (`cfg(test)`,
/// `cfg(all(test, unix))`), blanked with newlines kept.
fn without_tests(mut code: Vec<char>) -> Vec<char> {
    let mark: Vec<char> = "#[cfg(".chars().collect();
    let mut i = 0;
    while i + mark.len() <= code.len() {
        if !code[i..].starts_with(&mark) {
            i += 1;
            continue;
        }
        let Some(close) = (i..code.len()).find(|&j| code[j] == ']') else {
            break;
        };
        let cond: String = code[i + mark.len()..close].iter().collect();
        let needs_test = cond.split(|c: char| !is_ident(c)).any(|w| w == "test")
            && !cond.contains("not(")
            && !cond.contains("any(");
        if !needs_test {
            i = close;
            continue;
        }
        // The item: up to its first `;`, or its first `{` and the matching `}`.
        let mut j = close + 1;
        while j < code.len() && code[j] != ';' && code[j] != '{' {
            j += 1;
        }
        if j < code.len() && code[j] == '{' {
            let mut depth = 0;
            while j < code.len() {
                match code[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        let end = (j + 1).min(code.len());
        for c in &mut code[i..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    code
}

/// The extents of the inline modules (`mod name { ... }`) in `code`.
fn inline_modules(code: &[char]) -> Vec<(usize, usize)> {
    let word: Vec<char> = "mod".chars().collect();
    let mut out = Vec::new();
    for i in 0..code.len() {
        let boundary = i == 0 || !is_ident(code[i - 1]);
        if !(boundary && code[i..].starts_with(&word)) {
            continue;
        }
        let after = i + word.len();
        if !code.get(after).is_some_and(|c| c.is_whitespace()) {
            continue;
        }
        let (name, mut j) = ident_at(code, after);
        while j < code.len() && code[j].is_whitespace() {
            j += 1;
        }
        if name.is_empty() || code.get(j) != Some(&'{') {
            continue;
        }
        let mut depth = 0;
        let start = j;
        while j < code.len() {
            match code[j] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        out.push((start, j));
    }
    out
}

fn line_of(code: &[char], at: usize) -> usize {
    code[..at].iter().filter(|&&c| c == '\n').count() + 1
}

fn ident_at(code: &[char], mut i: usize) -> (String, usize) {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    let start = i;
    while i < code.len() && is_ident(code[i]) {
        i += 1;
    }
    (code[start..i].iter().collect(), i)
}

/// The top-level modules named at `at` (just after `crate::`): one, or each of a `{...}` group.
fn targets_at(code: &[char], at: usize) -> Vec<String> {
    let mut i = at;
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    if code.get(i) != Some(&'{') {
        return vec![ident_at(code, i).0];
    }
    let mut out = Vec::new();
    let (mut depth, mut expect_item) = (0, true);
    while i < code.len() {
        match code[i] {
            '{' => {
                depth += 1;
                expect_item = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect_item = true,
            c if expect_item && depth == 1 && is_ident(c) => {
                let (name, end) = ident_at(code, i);
                out.push(name);
                expect_item = false;
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Every `crate::` edge in a file's code: (line, target module).
fn edges(code: &[char], module_depth: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let krate: Vec<char> = "crate::".chars().collect();
    let sup: Vec<char> = "super::".chars().collect();
    let inline = inline_modules(code);
    let mut i = 0;
    while i < code.len() {
        let boundary = i == 0 || !is_ident(code[i - 1]) && code[i - 1] != ':';
        if boundary && code[i..].starts_with(&krate) {
            for t in targets_at(code, i + krate.len()) {
                if t.is_empty() {
                    continue;
                }
                out.push((line_of(code, i), t));
            }
            i += krate.len();
        } else if boundary && code[i..].starts_with(&sup) {
            let mut j = i;
            let mut k = 0;
            while code[j..].starts_with(&sup) {
                k += 1;
                j += sup.len();
            }
            let inline = inline.iter().filter(|(a, b)| *a < i && i < *b).count();
            if k == module_depth + inline {
                for t in targets_at(code, j).into_iter().filter(|t| !t.is_empty()) {
                    out.push((line_of(code, i), t));
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn allowed(from: &str, to: &str) -> bool {
    from == to
        || (to == "code" && from != "code")
        || ALLOWED
            .iter()
            .any(|(m, list)| *m == from && list.contains(&to))
        || EXCEPTIONS.iter().any(|(a, b, _)| *a == from && *b == to)
}

#[test]
fn the_module_graph_has_only_the_documented_edges() {
    let modules: Vec<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    let mut problems = String::new();
    let mut seen = 0;
    for (file, module) in library_files() {
        let from = module[0].as_str();
        if !modules.contains(&from) {
            writeln!(
                problems,
                "{file}: top-level module `{from}` is not in the table of tests/it/architecture.rs \
                 and docs/architecture.md"
            )
            .unwrap();
            continue;
        }
        let text = std::fs::read_to_string(src().join(file.strip_prefix("src/").unwrap())).unwrap();
        let code = without_tests(code_only(&text));
        for (line, to) in edges(&code, module.len()) {
            seen += 1;
            if !modules.contains(&to.as_str()) && to != "self" {
                writeln!(
                    problems,
                    "{file}:{line}: `crate::{to}` names no top-level module"
                )
                .unwrap();
            } else if !allowed(from, &to) {
                let may = ALLOWED
                    .iter()
                    .find(|(m, _)| *m == from)
                    .map(|(_, l)| l.join(", "))
                    .unwrap_or_default();
                writeln!(
                    problems,
                    "{file}:{line}: new edge {from} -> {to} (`crate::{to}`); {from} may use only: \
                     {may}. See docs/architecture.md before adding it to tests/it/architecture.rs."
                )
                .unwrap();
            }
        }
    }
    assert!(
        seen > 50,
        "the scan found only {seen} edges: is it still reading src/?"
    );
    assert!(problems.is_empty(), "\n{problems}");
}

#[test]
fn the_library_never_spawns_reads_the_environment_or_prints() {
    let mut problems = String::new();
    for (file, module) in library_files() {
        let text = std::fs::read_to_string(src().join(file.strip_prefix("src/").unwrap())).unwrap();
        let code = without_tests(code_only(&text));
        let lines: Vec<String> = code
            .split(|&c| c == '\n')
            .map(|l| l.iter().collect())
            .collect();
        for (n, line) in lines.iter().enumerate() {
            for (needle, why) in FORBIDDEN {
                let hit = line.match_indices(needle).any(|(at, _)| {
                    let before = line[..at].chars().next_back();
                    let after = line[at + needle.len()..].chars().next();
                    let starts_word = !before.is_some_and(is_ident);
                    let ends_word = !needle.ends_with(is_ident) || !after.is_some_and(is_ident);
                    starts_word && ends_word
                });
                let excepted = FORBIDDEN_EXCEPTIONS
                    .iter()
                    .any(|(f, t)| *f == file && t == needle);
                if hit && !excepted {
                    writeln!(problems, "{file}:{}: `{needle}`: {why}", n + 1).unwrap();
                }
            }
            let pest = ["pest::", "pest_derive"].iter().any(|p| {
                line.match_indices(p)
                    .any(|(at, _)| !line[..at].ends_with(is_ident))
            });
            if pest && module[0] != "syntax" {
                writeln!(problems, "{file}:{}: pest outside src/syntax", n + 1).unwrap();
            }
        }
    }
    assert!(problems.is_empty(), "\n{problems}");
}

/// Where a file may be opened without a project's root guard (`RootGuard::anywhere()`,
/// `open_regular`): (file, why). Every other read — each command, each function of the Python
/// module — states the guard of its project.
const UNGUARDED_READS: &[(&str, &str)] = &[
    ("src/guard.rs", "the guard itself"),
    (
        "src/transcript/mod.rs",
        "a `Reader` that is given no guard (library users naming their own file)",
    ),
    (
        "src/check/settings.rs",
        "`--config FILE`: a settings file the command line names",
    ),
    (
        "src/check/locate.rs",
        "a transcript read again to place findings, once the guard let it through",
    ),
    (
        "src/cli/sources.rs",
        "the snippets of files a finding names, read through the guard first",
    ),
];

/// One guard for every way a spec enters: the only loaders of included files are `FsLoader`
/// (from disk, through the root guard it is built with) and `MapLoader` (from memory), and no
/// code outside [`UNGUARDED_READS`] opens a file without a project's guard — not a command of
/// `src/cli`, not the Python module.
#[test]
fn every_include_and_file_is_read_through_a_root_guard() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = rust_files(&src());
    files.extend(rust_files(&root.join("python/src")));
    let mut problems = String::new();
    let mut loaders = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = without_tests(code_only(&text)).into_iter().collect();
        for (n, line) in code.lines().enumerate() {
            if let Some(at) = line.find("SourceLoader for ") {
                let ty: String = line[at + "SourceLoader for ".len()..]
                    .chars()
                    .take_while(|&c| is_ident(c))
                    .collect();
                loaders.push(format!("{rel}: {ty}"));
            }
            let unguarded = ["RootGuard::anywhere()", "open_regular("]
                .iter()
                .any(|needle| line.contains(needle));
            if unguarded && !UNGUARDED_READS.iter().any(|(f, _)| *f == rel) {
                writeln!(
                    problems,
                    "{rel}:{}: a file opened without the project's root guard; build one with \
                     `RootGuard::for_project` (see docs/security.md)",
                    n + 1
                )
                .unwrap();
            }
        }
    }
    assert_eq!(
        loaders,
        [
            "src/compile/loader.rs: FsLoader",
            // Wraps another loader (FsLoader in every run) and only records what it loaded.
            "src/compile/loader.rs: Recording",
            "src/compile/loader.rs: MapLoader"
        ],
        "the loaders of included files"
    );
    assert!(problems.is_empty(), "\n{problems}");
}

#[test]
fn the_scanner_reads_code_not_comments_strings_or_tests() {
    let text = r##"
use crate::{config::{Part, Check}, source};
// crate::syntax in a comment
/* crate::compile /* nested */ crate::report */
let s = "crate::engine \" crate::check";
let r = r#"crate::score "quoted" crate::text"#;
let c = '"'; let l: &'static str = x; let q = '\'';
fn f() { crate::transcript::read(); super::guard::open(); }
#[cfg(test)]
mod tests { use crate::syntax; fn g() { let x = "}"; crate::compile::x(); } }
crate::
    report::x();
"##;
    let code = without_tests(code_only(text));
    let found: Vec<(usize, String)> = edges(&code, 1);
    let names: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(names, ["config", "source", "transcript", "guard", "report"]);
    assert_eq!(found[2].0, 8);
    assert_eq!(found[4].0, 11);
    // A `super::` chain reaches the root only from as deep as the file's module, inline
    // modules included; `cfg(all(test, ...))` is a test too.
    assert!(edges(&code_only("use super::guard;"), 2).is_empty());
    let nested = "pub mod json { use super::is_control; fn f() { super::super::report::x(); } }";
    let found = edges(&code_only(nested), 1);
    assert_eq!(found, [(1, "report".to_owned())]);
    let unix_test = "#[cfg(all(test, unix))]\nmod tests { use crate::check; }\nuse crate::text;";
    let found = edges(&without_tests(code_only(unix_test)), 1);
    assert_eq!(found, [(3, "text".to_owned())]);
}

/// The Python package's extension runs the library's command line (`toolspec::cli`), compiled
/// once with the library: no `#[path]` module compiles `src/cli` into it a second time, and its
/// crate keeps no copy of the command line's dependencies (every crate it depends on is named by
/// its own code).
#[test]
fn the_python_crate_compiles_no_second_command_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("python/Cargo.toml")).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let deps: Vec<String> = doc["dependencies"]
        .as_table()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let code: String = rust_files(&root.join("python/src"))
        .iter()
        .map(|f| {
            code_only(&std::fs::read_to_string(f).unwrap())
                .into_iter()
                .collect::<String>()
        })
        .collect();
    assert!(
        !code.contains("#[path"),
        "python/src compiles a module by #[path]: call the library's instead"
    );
    // Dependencies python/Cargo.toml declares for their features alone (so that the wheel's
    // graph has the features `cargo test --workspace` turns on, and reuses its units): named in
    // no code, and listed here so that no other dependency goes unused.
    const FEATURES_ONLY: [&str; 2] = ["getrandom", "toml_edit"];
    let unused: Vec<&String> = deps
        .iter()
        .filter(|d| !FEATURES_ONLY.contains(&d.as_str()))
        .filter(|d| {
            let ident = d.replace('-', "_");
            // `ident::` as a path's first segment (not `other::ident::`).
            !code.match_indices(&format!("{ident}::")).any(|(at, _)| {
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| is_ident(c) || c == ':')
            })
        })
        .collect();
    assert!(
        unused.is_empty(),
        "python/Cargo.toml depends on {unused:?}, which python/src does not name"
    );
}
