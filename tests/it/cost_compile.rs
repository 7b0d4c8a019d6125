//! Spec inputs that used to end the run or take minutes to compile: each is built at the size
//! that did, and must now compile (or fail with a located diagnostic) like any other file.

use std::path::Path;
use std::process::{Command, Output};

use toolspec::code::Code;
use toolspec::compile::{compile, MapLoader};
use toolspec::source::{SourceFile, Span};

fn toolspec(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit status 2 (errors found), not a crash; stderr names `code`; the valid `other.toolspec`
/// named after the broken file is still compiled.
fn assert_located(out: &Output, code: &str, file: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stderr: {}",
        &stderr[..stderr.len().min(4000)]
    );
    assert!(
        stderr.contains(code),
        "no {code} in {}",
        &stderr[..stderr.len().min(4000)]
    );
    assert!(
        stderr.contains(file),
        "not located in {file}: {}",
        &stderr[..stderr.len().min(4000)]
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\"other\""),
        "the other file was not compiled: {stdout}"
    );
}

const OTHER: &str = "spec other {\n  call lookup\n}\n";

/// An include chain of 2 000 files overflowed the stack (the resolver recursed once per file,
/// exit 134). The walk keeps its own stack and stops at 64 files, at the `include` past it.
#[test]
fn a_long_include_chain_is_a_located_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2000;
    for i in 0..n {
        let body = if i + 1 < n {
            format!("include \"f{}.toolspec\"\ntool t{i}(x: 1)\n", i + 1)
        } else {
            "tool last(x: 1)\n".to_owned()
        };
        std::fs::write(dir.path().join(format!("f{i}.toolspec")), body).unwrap();
    }
    std::fs::write(
        dir.path().join("main.toolspec"),
        "include \"f0.toolspec\"\nspec main {\n  call t0\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("other.toolspec"), OTHER).unwrap();
    let out = toolspec(dir.path(), &["compile", "main.toolspec", "other.toolspec"]);
    assert_located(&out, "toolspec::include-too-deep", "f62.toolspec");
    // Once, at the 64th file.
    assert_eq!(text(&out.stderr).matches("include-too-deep").count(), 1);
}

/// The same through the library, with the chain at exactly the limit compiling.
#[test]
fn an_include_chain_of_64_files_compiles_and_65_does_not() {
    let chain = |n: usize| {
        let mut loader = MapLoader::new();
        for i in 1..n {
            let next = if i + 1 < n {
                format!("include \"f{}.toolspec\"\n", i + 1)
            } else {
                String::new()
            };
            loader.insert(&format!("f{i}.toolspec"), &format!("{next}tool t{i}()\n"));
        }
        let main = SourceFile::new(
            "f0.toolspec",
            "include \"f1.toolspec\"\nspec s {\n  call t1\n}\n",
        );
        compile(&main, &loader)
    };
    let ok = chain(toolspec::compile::MAX_INCLUDE_DEPTH);
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let deep = chain(toolspec::compile::MAX_INCLUDE_DEPTH + 1);
    let codes: Vec<Code> = deep.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::IncludeTooDeep]);
    assert_eq!(deep.diagnostics[0].source_name, "f63.toolspec");
    let span = deep.diagnostics[0].span().unwrap();
    assert_eq!(
        &deep.diagnostics[0].source_text()[span.start..span.end],
        "include \"f64.toolspec\""
    );
}

/// 100 000 included files: each was compared with every file read before it (`Vec::contains`,
/// minutes in a debug build). Files are looked up in a set, and reading stops at 4 096 files,
/// at the `include` past it.
#[test]
fn a_hundred_thousand_includes_stop_at_the_file_budget() {
    let n = 100_000;
    let mut loader = MapLoader::new();
    let mut main = String::new();
    for i in 0..n {
        loader.insert(&format!("inc/f{i}.toolspec"), &format!("tool t{i}()\n"));
        main.push_str(&format!("include \"inc/f{i}.toolspec\"\n"));
        // Every file is named twice: the second is found in the set, not read again.
        main.push_str(&format!("include \"inc/./f{i}.toolspec\"\n"));
    }
    main.push_str("spec s {\n  call t0\n}\n");
    let r = compile(&SourceFile::new("main.toolspec", main.as_str()), &loader);
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::IncludeLimit]);
    let d = &r.diagnostics[0];
    let span = d.span().unwrap();
    let limit = toolspec::compile::MAX_INCLUDED_FILES;
    assert_eq!(
        &main[span.start..span.end],
        format!("include \"inc/f{limit}.toolspec\"")
    );

    // Under the budget, a file named many times is read once.
    let mut main = String::new();
    for i in 0..n {
        main.push_str(&format!("include \"inc/f{}.toolspec\"\n", i % 1000));
    }
    main.push_str("spec s {\n  call t999\n}\n");
    let r = compile(&SourceFile::new("main.toolspec", main.as_str()), &loader);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

/// The included text of one compilation is capped (64 MiB), at the `include` past it. (The
/// files start with a syntax error, so that the test does not wait for 60 MiB to be parsed.)
#[test]
fn included_bytes_are_capped() {
    let big = format!("}}\n{}", "# padding\n".repeat(2 << 20)); // 20 MiB
    let mut loader = MapLoader::new();
    let mut main = String::new();
    for i in 0..5 {
        loader.insert(&format!("b{i}.toolspec"), &big);
        main.push_str(&format!("include \"b{i}.toolspec\"\n"));
    }
    main.push_str("spec s {\n  call t0\n}\n");
    let r = compile(&SourceFile::new("main.toolspec", main.as_str()), &loader);
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [Code::Syntax, Code::Syntax, Code::Syntax, Code::IncludeLimit]
    );
    let span = r.diagnostics[3].span().unwrap();
    assert_eq!(&main[span.start..span.end], "include \"b3.toolspec\"");
}

/// 40 000 diagnostics in a 200 KB spec: each held its own copy of the file (8 GB: the process
/// aborted). They share one copy now, and a file shows its first 100, then one diagnostic that
/// counts the rest.
#[test]
fn forty_thousand_diagnostics_share_the_source_and_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = String::from("spec big {\n");
    for _ in 0..40_000 {
        spec.push_str("  xq\n");
    }
    spec.push_str("}\n");
    std::fs::write(dir.path().join("big.toolspec"), &spec).unwrap();
    std::fs::write(dir.path().join("other.toolspec"), OTHER).unwrap();
    let out = toolspec(dir.path(), &["compile", "big.toolspec", "other.toolspec"]);
    assert_located(&out, "toolspec::too-many-diagnostics", "big.toolspec");
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("toolspec::unknown-keyword").count(), 100);
    assert!(
        stderr.contains("and 39900 more diagnostics in this file (39900 errors), not shown"),
        "{}",
        &stderr[stderr.len().saturating_sub(2000)..]
    );
    // The count points at the first one left out: line 102.
    assert!(
        stderr.contains("big.toolspec:102:3"),
        "{}",
        &stderr[stderr.len().saturating_sub(2000)..]
    );

    // `check` reports the same, and still checks the other spec's pairs.
    let out = toolspec(dir.path(), &["check", "big.toolspec", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        all.contains("too-many-diagnostics"),
        "{}",
        &all[..all.len().min(3000)]
    );
}

/// Through the library: every kept diagnostic of a file shares one copy of its text.
#[test]
fn diagnostics_of_a_file_share_one_copy_of_it() {
    let mut spec = String::from("spec big {\n");
    for _ in 0..500 {
        spec.push_str("  xq\n");
    }
    spec.push_str("}\n");
    let r = compile(&SourceFile::new("big.toolspec", spec), &MapLoader::new());
    assert_eq!(
        r.diagnostics.len(),
        toolspec::compile::MAX_DIAGNOSTICS_PER_FILE + 1
    );
    let first = r.diagnostics[0].source_text().as_ptr();
    assert!(r
        .diagnostics
        .iter()
        .all(|d| d.source_text().as_ptr() == first));
    let last = r.diagnostics.last().unwrap();
    assert_eq!(last.code, Code::TooManyDiagnostics);
    assert!(last.is_error());
}

/// A diagnostic on a line of more than 65 535 columns made miette's renderer panic (exit 101)
/// in `compile`, `fmt --check` and `fmt --stdout`. They cut the line around the span, as
/// `check` does, with the same function.
#[test]
fn a_diagnostic_on_a_very_long_line_renders_a_window_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(70_000);
    // A syntax error (every command) and a compile error (compile), each on a long line.
    std::fs::write(
        dir.path().join("syntax.toolspec"),
        format!("spec s {{\n  call f(a: \"{long}\", ,)\n}}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("semantic.toolspec"),
        format!("spec s {{\n  call f(a: \"{long}\") zz\n  never g\n}}\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("other.toolspec"), OTHER).unwrap();
    for file in ["syntax.toolspec", "semantic.toolspec"] {
        let out = toolspec(dir.path(), &["compile", file, "other.toolspec"]);
        let code = if file == "syntax.toolspec" {
            "toolspec::syntax"
        } else {
            "toolspec::unknown-keyword"
        };
        assert_located(&out, code, file);
        let stderr = text(&out.stderr);
        assert!(stderr.len() < 4000, "{} bytes of stderr", stderr.len());
        assert!(stderr.contains(&format!("{file}:2:")), "{stderr}");
    }
    for mode in ["--check", "--stdout"] {
        let out = toolspec(
            dir.path(),
            &["fmt", mode, "syntax.toolspec", "other.toolspec"],
        );
        let stderr = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            &stderr[..stderr.len().min(2000)]
        );
        assert!(
            stderr.contains("toolspec::syntax") && stderr.len() < 4000,
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        if mode == "--stdout" {
            assert_eq!(
                text(&out.stdout),
                OTHER,
                "the other file is still formatted"
            );
        }
    }
}

/// Each `/\w{200}/` compiles to about 2.9 MB; a spec of 1 000 of them held 2.9 GB. A file's
/// regular expressions may take 32 MiB together: the one past it is an error at its literal,
/// and those after it are not compiled.
#[test]
fn a_thousand_large_regexes_stop_at_the_file_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = String::from("spec big {\n");
    for i in 0..1000 {
        spec.push_str(&format!("  call f{i}(a: /\\w{{200}}{i}/)\n"));
    }
    spec.push_str("}\n");
    std::fs::write(dir.path().join("big.toolspec"), &spec).unwrap();
    std::fs::write(dir.path().join("other.toolspec"), OTHER).unwrap();
    let out = toolspec(dir.path(), &["compile", "big.toolspec", "other.toolspec"]);
    assert_located(&out, "toolspec::regex-too-large", "big.toolspec");

    let r = compile(
        &SourceFile::new("big.toolspec", spec.as_str()),
        &MapLoader::new(),
    );
    let first = &r.diagnostics[0];
    assert_eq!(first.code, Code::RegexTooLarge);
    let span = first.span().unwrap();
    // About 3.5 MB each: the tenth goes past 32 MiB.
    assert_eq!(&spec[span.start..span.end], "\\w{200}9");
    assert!(r
        .diagnostics
        .iter()
        .all(|d| d.code == Code::RegexTooLarge || d.code == Code::TooManyDiagnostics));

    // One regular expression over the limit of one (4 MiB) is an error of the same code.
    let one = "spec s {\n  call f(a: /\\w{2000}/)\n}\n";
    let r = compile(&SourceFile::new("one.toolspec", one), &MapLoader::new());
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::RegexTooLarge]);
    let span = r.diagnostics[0].span().unwrap();
    assert_eq!(&one[span.start..span.end], "\\w{2000}");
}

/// 40 000 `never` rules and 40 000 expectations: each rule was compared with every expectation
/// (27 s in a release build); `before` rules, tool declarations and declared arguments were
/// looked up by scanning too. All are looked up in maps now.
#[test]
fn forty_thousand_never_rules_and_expectations_compile_with_lookups() {
    let spec = |n: usize, conflict: bool| {
        let mut spec = String::new();
        for i in 0..n / 4 {
            spec.push_str(&format!("tool t{i}(x: 1, y: any)\n"));
        }
        spec.push_str("spec big {\n  order any\n");
        for i in 0..n {
            spec.push_str(&format!("  call t{i}(y: 2)\n"));
        }
        for i in 0..n {
            spec.push_str(&format!("  never u{i}\n"));
        }
        for i in 0..n / 4 {
            spec.push_str(&format!("  t{} before t{}\n", 2 * i, 2 * i + 1));
        }
        if conflict {
            // One rule forbids an expected tool.
            spec.push_str(&format!("  never t{}\n", n - 1));
        }
        spec.push_str("}\n");
        spec
    };
    let n = 40_000;
    let big = spec(n, true);
    let r = compile(
        &SourceFile::new("big.toolspec", big.as_str()),
        &MapLoader::new(),
    );
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::ExpectedAndForbidden]);
    let span = r.diagnostics[0].span().unwrap();
    assert_eq!(&big[span.start..span.end], format!("t{}", n - 1));
    let labels: Vec<Span> = r.diagnostics[0].labels.iter().map(|l| l.0).collect();
    assert_eq!(&big[labels[1].start..labels[1].end], format!("t{}", n - 1));
    assert!(labels[1].start < span.start);

    // Smaller, and without the conflict: what the lookups found.
    let n = 4000;
    let small = spec(n, false);
    let r = compile(
        &SourceFile::new("small.toolspec", small.as_str()),
        &MapLoader::new(),
    );
    assert!(r.diagnostics.is_empty(), "{:?}", &r.diagnostics[..1]);
    let file = r.file.unwrap();
    let cfg = &file.specs[0];
    assert_eq!((cfg.expectations.len(), cfg.forbidden.len()), (n, n));
    assert_eq!(cfg.before.len(), n / 4);
    assert_eq!((cfg.before[3].first, cfg.before[3].then), (6, 7));
    // The declaration's `x: 1` is inherited where the expectation does not write `x`, for the
    // tools declared (the first quarter).
    assert_eq!(cfg.expectations[7].args.checks.len(), 2);
    assert_eq!(cfg.expectations[n - 1].args.checks.len(), 1);
}

/// `fmt` placed each comment by scanning every statement of its block: 40 000 commented
/// statements were quadratic. The lookups are binary searches now.
#[test]
fn fmt_places_forty_thousand_comments_by_binary_search() {
    let mut spec = String::from("spec big {\n");
    for i in 0..40_000 {
        spec.push_str(&format!("  # before {i}\n  call t{i}   # after {i}\n"));
    }
    spec.push_str("}\n");
    let out = toolspec::syntax::format(&SourceFile::new("big.toolspec", spec.as_str())).unwrap();
    assert_eq!(out, spec.replace("   #", "  #"));
}
