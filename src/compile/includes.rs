//! Resolving `include`s: load, parse and collect the `tool` declarations of every included file,
//! depth first, each file once; cycles and unreadable files are diagnostics.
//!
//! The walk keeps its own stack (no recursion), so a chain of included files costs heap, not
//! call stack, and it stops at the budgets below with a diagnostic at the `include` that
//! crosses one: [`MAX_INCLUDE_DEPTH`] files on one chain, [`MAX_INCLUDED_FILES`] files and
//! [`MAX_INCLUDED_BYTES`] bytes of included text in all.

use std::collections::HashSet;

use super::diags::Diags;
use super::loader::{normalize, resolve_include, SourceLoader};
use super::lower::top_keywords;
use super::suggest::did_you_mean;
use crate::code::Code;
use crate::guard::Refused;
use crate::source::SourceFile;
use crate::syntax::ast::{File, Include, Item};
use crate::syntax::{parse, SpecDiagnostic};

/// Most files on one include chain, the compiled file included (`a` includes `b` includes
/// `c`: three).
pub const MAX_INCLUDE_DEPTH: usize = 64;
/// Most distinct files one compilation reads through includes.
pub const MAX_INCLUDED_FILES: usize = 4096;
/// Most bytes of included text one compilation reads, all included files together.
pub const MAX_INCLUDED_BYTES: usize = 64 << 20;

/// A file reached through includes, parsed.
pub(crate) struct Included {
    pub source: SourceFile,
    pub file: File,
}

/// A file on the include chain: where its walk is.
struct Frame<'r> {
    /// The file (`None`: the compiled file, `root`).
    own: Option<Included>,
    root: (&'r SourceFile, &'r File),
    /// Index of the next item to look at.
    next: usize,
}

impl Frame<'_> {
    fn parts(&self) -> (&SourceFile, &File) {
        match &self.own {
            Some(inc) => (&inc.source, &inc.file),
            None => self.root,
        }
    }
}

/// Load everything `root` includes, transitively. Returns the included files in the order their
/// declarations should be read (dependencies first).
pub(crate) fn resolve(
    root: &SourceFile,
    root_file: &File,
    loader: &dyn SourceLoader,
    diags: &mut Diags,
) -> Vec<Included> {
    let mut out = Vec::new();
    let root_name = normalize(&root.name);
    // The names of the files on the stack, in order, and as a set.
    let mut chain = vec![root_name.clone()];
    let mut on_chain: HashSet<String> = HashSet::from([root_name.clone()]);
    // Every file read (or being read), by name.
    let mut done: HashSet<String> = HashSet::from([root_name]);
    let mut bytes = 0usize;
    let mut stack = vec![Frame {
        own: None,
        root: (root, root_file),
        next: 0,
    }];
    while let Some(top) = stack.last_mut() {
        let (_, file) = top.parts();
        let found = file.items[top.next..]
            .iter()
            .position(|i| matches!(i, Item::Include(_)));
        let Some(k) = found else {
            let frame = stack.pop().expect("the top frame");
            if let Some(inc) = frame.own {
                on_chain.remove(&chain.pop().expect("a frame per chain entry"));
                out.push(inc);
            }
            continue;
        };
        top.next += k + 1;
        let top = stack.last().expect("the top frame");
        let (from, file) = top.parts();
        let Item::Include(inc) = &file.items[top.next - 1] else {
            unreachable!("found above")
        };
        match step(from, inc, loader, &chain, &on_chain, &mut done, &mut bytes) {
            Step::Skip => {}
            Step::Diag(d) => diags.push(d),
            Step::Stop(d) => {
                // A budget is spent: nothing more is read.
                diags.push(d);
                break;
            }
            Step::Enter(name, included, found) => {
                diags.extend(found);
                on_chain.insert(name.clone());
                chain.push(name);
                stack.push(Frame {
                    own: Some(*included),
                    root: (root, root_file),
                    next: 0,
                });
            }
        }
    }
    out
}

/// What to do about one `include` statement.
enum Step {
    /// Nothing: the file was read already.
    Skip,
    /// Report this and go on.
    Diag(SpecDiagnostic),
    /// Report this and read nothing more.
    Stop(SpecDiagnostic),
    /// Walk the file (named so) next; report what its own items have wrong.
    Enter(String, Box<Included>, Vec<SpecDiagnostic>),
}

fn step(
    from: &SourceFile,
    inc: &Include,
    loader: &dyn SourceLoader,
    chain: &[String],
    on_chain: &HashSet<String>,
    done: &mut HashSet<String>,
    bytes: &mut usize,
) -> Step {
    // Check the resolved name before loading too, so that a cycle is reported even through a
    // loader that cannot read the root file back (an editor buffer, a test map), and a file
    // read already is not read again.
    let expected_name = resolve_include(&from.name, &inc.path.value);
    if on_chain.contains(&expected_name) {
        return Step::Diag(cycle(from, inc, chain, &expected_name));
    }
    if done.contains(&expected_name) {
        return Step::Skip;
    }
    if chain.len() >= MAX_INCLUDE_DEPTH {
        return Step::Stop(
            SpecDiagnostic::error(
                Code::IncludeTooDeep,
                from,
                format!(
                    "include chain too deep: `{}` would be file {} of one chain (at most {MAX_INCLUDE_DEPTH})",
                    inc.path.value,
                    chain.len() + 1
                ),
            )
            .label(inc.span, "this include goes past the limit")
            .help(format!(
                "an include chain holds at most {MAX_INCLUDE_DEPTH} files, starting from `{}`; include the shared files from fewer levels",
                chain[0]
            )),
        );
    }
    if done.len() > MAX_INCLUDED_FILES {
        return Step::Stop(budget(
            from,
            inc,
            format!("more than {MAX_INCLUDED_FILES} included files"),
        ));
    }
    let loaded = match loader.load(from, &inc.path.value) {
        Ok(s) => s,
        Err(e) => {
            return Step::Diag(
                SpecDiagnostic::error(
                    Code::IncludeNotFound,
                    from,
                    format!("cannot read included file `{}`", inc.path.value),
                )
                .label(inc.path.span, e.to_string())
                .help(
                    if matches!(Refused::of(&e), Some(Refused::OutsideRoot { .. })) {
                        "includes may not leave the project root; pass --allow-outside-root \
                     on the command line to allow it"
                    } else {
                        "the path is relative to the including file's folder"
                    },
                ),
            );
        }
    };
    let name = normalize(&loaded.name);
    if on_chain.contains(&name) {
        return Step::Diag(cycle(from, inc, chain, &name));
    }
    if !done.insert(name.clone()) {
        return Step::Skip;
    }
    *bytes = bytes.saturating_add(loaded.text.len());
    if *bytes > MAX_INCLUDED_BYTES {
        return Step::Stop(budget(
            from,
            inc,
            format!(
                "more than {} MiB of included text",
                MAX_INCLUDED_BYTES >> 20
            ),
        ));
    }
    let parsed = match parse(&loaded) {
        Ok(f) => f,
        Err(d) => return Step::Diag(d),
    };
    let mut found = Vec::new();
    for item in &parsed.items {
        match item {
            Item::Spec(s) => found.push(
                SpecDiagnostic::error(
                    Code::SpecInInclude,
                    &loaded,
                    format!("included file declares spec `{}`", s.name.name),
                )
                .label(s.name.span, "specs are not shared through `include`")
                .help(format!(
                    "an included file holds `tool` declarations (and includes); compile `{}` on its own to check this spec",
                    loaded.name
                )),
            ),
            Item::Unknown(u) => found.push(unknown_top(&loaded, u)),
            _ => {}
        }
    }
    Step::Enter(
        name,
        Box::new(Included {
            source: loaded,
            file: parsed,
        }),
        found,
    )
}

/// The diagnostic for an include past the budget of files or bytes.
fn budget(from: &SourceFile, inc: &Include, what: String) -> SpecDiagnostic {
    SpecDiagnostic::error(
        Code::IncludeLimit,
        from,
        format!("too much included: `{}` would make {what}", inc.path.value),
    )
    .label(inc.span, "this include goes past the limit")
    .help(format!(
        "one compilation reads at most {MAX_INCLUDED_FILES} included files and {} MiB of included text; share fewer, smaller files",
        MAX_INCLUDED_BYTES >> 20
    ))
}

/// The include-cycle diagnostic for `name`, which is on the include chain.
fn cycle(from: &SourceFile, inc: &Include, chain: &[String], name: &str) -> SpecDiagnostic {
    let pos = chain.iter().position(|n| n == name).unwrap_or(0);
    let mut files: Vec<&str> = chain[pos..].iter().map(String::as_str).collect();
    files.push(name);
    SpecDiagnostic::error(
        Code::IncludeCycle,
        from,
        format!(
            "include cycle: `{}` is already being included",
            inc.path.value
        ),
    )
    .label(inc.span, "this include closes the cycle")
    .help(format!(
        "{}; move the shared declarations into a file that includes none of these",
        files.join(" includes ")
    ))
}

/// The diagnostic for an unknown word at the top level of `src`.
pub(crate) fn unknown_top(src: &SourceFile, u: &crate::syntax::ast::Unknown) -> SpecDiagnostic {
    let hint = did_you_mean(&u.word.name, top_keywords());
    SpecDiagnostic::error(
        Code::UnknownKeyword,
        src,
        format!("unknown keyword `{}`", u.word.name),
    )
    .label(
        u.word.span,
        match hint {
            Some(h) => format!("did you mean `{h}`?"),
            None => "not a keyword".into(),
        },
    )
    .help("a file holds `include \"path\"`, `tool name(...)` and `spec name { ... }` items")
}
