//! `include` through the file system: relative paths, shared files read once, cycles.

use toolspec::code::Code;
use toolspec::compile::{compile, FsLoader};
use toolspec::guard::RootGuard;
use toolspec::source::SourceFile;

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().replace('\\', "/")
}

#[test]
fn includes_resolve_relative_to_the_including_file_and_load_once() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shared/base.toolspec",
        "tool lookup(id: /^ORD-/)\n",
    );
    write(
        dir.path(),
        "shared/a.toolspec",
        "include \"base.toolspec\"\n",
    );
    write(
        dir.path(),
        "shared/b.toolspec",
        "include \"./base.toolspec\"\n",
    );
    let root = write(
        dir.path(),
        "specs/refund.toolspec",
        "include \"../shared/a.toolspec\"\ninclude \"../shared/b.toolspec\"\nspec s {\n  call lookup(id: present)\n}\n",
    );
    let text = std::fs::read_to_string(&root).unwrap();
    let r = compile(
        &SourceFile::new(root, text),
        &FsLoader::new(RootGuard::new(dir.path())),
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let e = &r.file.unwrap().specs[0].expectations[0];
    assert_eq!(
        e.args.checks.len(),
        1,
        "the explicit constraint wins over the declared one"
    );
}

#[test]
fn a_cycle_on_disk_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.toolspec", "include \"y.toolspec\"\n");
    write(dir.path(), "y.toolspec", "include \"x.toolspec\"\n");
    let root = write(
        dir.path(),
        "main.toolspec",
        "include \"x.toolspec\"\nspec s {\n  call f\n}\n",
    );
    let text = std::fs::read_to_string(&root).unwrap();
    let r = compile(
        &SourceFile::new(root, text),
        &FsLoader::new(RootGuard::new(dir.path())),
    );
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::IncludeCycle]);
    assert!(r.diagnostics[0].source_name.ends_with("y.toolspec"));
    assert!(r.file.is_none());
}

/// The loader reads through its root guard: an include that leaves the root is refused unread
/// (its content appears nowhere in the diagnostics), and read once the guard allows anywhere.
#[test]
fn an_include_outside_the_guards_root_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "outside/credentials",
        "aws_access_key_id = AKIAFAKE0LOADER0TEST\n",
    );
    let main = write(
        dir.path(),
        "repo/main.toolspec",
        "include \"../outside/credentials\"\nspec s {\n  call f\n}\n",
    );
    let text = std::fs::read_to_string(&main).unwrap();
    let source = SourceFile::new(main, text);
    let r = compile(
        &source,
        &FsLoader::new(RootGuard::new(&dir.path().join("repo"))),
    );
    let codes: Vec<Code> = r.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::IncludeNotFound]);
    let all = format!("{:?}", r.diagnostics);
    assert!(!all.contains("AKIAFAKE"), "{all}");
    assert!(all.contains("outside the project root"), "{all}");
    assert!(all.contains("--allow-outside-root"), "{all}");
    // Read once allowed: its syntax error is in the credentials file (and would quote it).
    let r = compile(&source, &FsLoader::new(RootGuard::anywhere()));
    assert!(
        r.diagnostics[0].source_name.ends_with("credentials"),
        "{:?}",
        r.diagnostics
    );
}
