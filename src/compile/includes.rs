//! Resolving `include`s: load, parse and collect the `tool` declarations of every included file,
//! depth first, each file once; cycles and unreadable files are diagnostics.

use super::loader::{normalize, resolve_include, OutsideRoot, SourceLoader};
use super::lower::TOP_KEYWORDS;
use super::suggest::did_you_mean;
use crate::source::SourceFile;
use crate::syntax::ast::{File, Item};
use crate::syntax::{parse, Code, SpecDiagnostic};

/// A file reached through includes, parsed.
pub(crate) struct Included {
    pub source: SourceFile,
    pub file: File,
}

/// Load everything `root` includes, transitively. Returns the included files in the order their
/// declarations should be read (dependencies first).
pub(crate) fn resolve(
    root: &SourceFile,
    root_file: &File,
    loader: &dyn SourceLoader,
    diags: &mut Vec<SpecDiagnostic>,
) -> Vec<Included> {
    let mut out = Vec::new();
    let mut chain = vec![normalize(&root.name)];
    let mut done = vec![normalize(&root.name)];
    visit(
        root, root_file, loader, diags, &mut chain, &mut done, &mut out,
    );
    out
}

fn visit(
    from: &SourceFile,
    file: &File,
    loader: &dyn SourceLoader,
    diags: &mut Vec<SpecDiagnostic>,
    chain: &mut Vec<String>,
    done: &mut Vec<String>,
    out: &mut Vec<Included>,
) {
    for item in &file.items {
        let Item::Include(inc) = item else { continue };
        // Check the resolved name before loading too, so that a cycle is reported even through a
        // loader that cannot read the root file back (an editor buffer, a test map).
        let expected_name = resolve_include(&from.name, &inc.path.value);
        if let Some(d) = cycle(from, inc, chain, &expected_name) {
            diags.push(d);
            continue;
        }
        let loaded = match loader.load(from, &inc.path.value) {
            Ok(s) => s,
            Err(e) => {
                diags.push(
                    SpecDiagnostic::error(
                        Code::IncludeNotFound,
                        from,
                        format!("cannot read included file `{}`", inc.path.value),
                    )
                    .label(inc.path.span, e.to_string())
                    .help(if OutsideRoot::of(&e).is_some() {
                        "includes may not leave the project root; pass --allow-outside-root \
                         on the command line to allow it"
                    } else {
                        "the path is relative to the including file's folder"
                    }),
                );
                continue;
            }
        };
        let name = normalize(&loaded.name);
        if let Some(d) = cycle(from, inc, chain, &name) {
            diags.push(d);
            continue;
        }
        if done.contains(&name) {
            continue;
        }
        done.push(name.clone());
        let parsed = match parse(&loaded) {
            Ok(f) => f,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        for item in &parsed.items {
            match item {
                Item::Spec(s) => diags.push(
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
                Item::Unknown(u) => diags.push(unknown_top(&loaded, u)),
                _ => {}
            }
        }
        chain.push(name);
        visit(&loaded, &parsed, loader, diags, chain, done, out);
        chain.pop();
        out.push(Included {
            source: loaded,
            file: parsed,
        });
    }
}

/// The include-cycle diagnostic, if `name` is already on the include chain.
fn cycle(
    from: &SourceFile,
    inc: &crate::syntax::ast::Include,
    chain: &[String],
    name: &str,
) -> Option<SpecDiagnostic> {
    let pos = chain.iter().position(|n| n == name)?;
    let mut files: Vec<&str> = chain[pos..].iter().map(String::as_str).collect();
    files.push(name);
    Some(
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
        )),
    )
}

/// The diagnostic for an unknown word at the top level of `src`.
pub(crate) fn unknown_top(src: &SourceFile, u: &crate::syntax::ast::Unknown) -> SpecDiagnostic {
    let hint = did_you_mean(&u.word.name, TOP_KEYWORDS.iter().copied());
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
