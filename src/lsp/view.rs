//! A document as the requests that take a position see it: its syntax tree (of its text, or,
//! while that does not parse, of its text with the cursor's line blanked), the names written in
//! it, the spec around the cursor, the tools declared in it and in the files it includes, and
//! the transcripts that spec's globs match.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use lsp_types::{CompletionItem, CompletionResponse, Position, Uri};

use super::complete::{self, Known, Place};
use super::outline::{self, Occ};
use super::runs::Seen;
use super::{Project, Server};
use crate::compile::{FsLoader, SourceLoader};
use crate::config::MatcherConfig;
use crate::guard::RootGuard;
use crate::source::SourceFile;
use crate::syntax::ast::{File, Item, Seg};

/// Most files the include walk of navigation and completion reads.
const MAX_NAVIGATED_FILES: usize = 64;

/// A file reached through includes: its path, text and tree.
pub(crate) struct Included {
    pub(crate) path: PathBuf,
    pub(crate) source: SourceFile,
    pub(crate) file: File,
}

/// What the position requests read.
pub(crate) struct View {
    /// The text parsed (the document's, or with the cursor's line blanked).
    pub(crate) text: String,
    /// Its tree, if it parses.
    pub(crate) file: Option<File>,
    /// The names written in it.
    pub(crate) occs: Vec<Occ>,
    /// The spec around the cursor: its place among the items, and its name.
    pub(crate) spec: Option<(usize, String)>,
    /// The document's file.
    pub(crate) path: PathBuf,
    pub(crate) project: Project,
    /// The files it includes, transitively (at most [`MAX_NAVIGATED_FILES`]).
    pub(crate) included: Vec<Included>,
}

impl View {
    /// The argument keys of every `tool` declaration, in the file and its includes.
    pub(crate) fn declared(&self) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        let files = self
            .file
            .iter()
            .chain(self.included.iter().map(|i| &i.file));
        for f in files {
            for item in &f.items {
                let Item::Tool(t) = item else { continue };
                let keys = t
                    .args
                    .args
                    .iter()
                    .filter_map(|a| match a.path.segs.first() {
                        Some(Seg::Key { name, .. }) => Some(name.clone()),
                        _ => None,
                    })
                    .collect();
                out.entry(t.name.name.clone()).or_insert(keys);
            }
        }
        out
    }
}

/// `text` with the line holding `offset` blanked (its bytes spaces, its line break kept), so
/// that the statement being written does not keep the rest from parsing.
fn blank_line(text: &str, offset: usize) -> String {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    out.extend(std::iter::repeat_n(' ', text[start..end].len()));
    out.push_str(&text[end..]);
    out
}

impl Server<'_> {
    /// The view of document `uri` at byte `offset`; `writing`: for completion, the line at
    /// `offset` being written.
    pub(crate) fn view(&mut self, uri: &Uri, offset: usize, writing: bool) -> Option<View> {
        let buffers = self.buffers();
        let doc = self.docs.get(uri)?;
        if doc.dropped.is_some() {
            return None;
        }
        let path = self.file_of(uri, doc);
        let project = self.project(&path);
        let name = path.display().to_string();
        let parse = |text: &str| crate::syntax::parse(&SourceFile::new(name.clone(), text)).ok();
        // The line being written is left out for completion (`call ` would take the next
        // line's first word as its tool), and whenever the text does not parse with it.
        let blank = || blank_line(&doc.text, offset.min(doc.text.len()));
        let (text, file) = if writing {
            let blanked = blank();
            match parse(&blanked) {
                Some(f) => (blanked, Some(f)),
                None => (doc.text.clone(), parse(&doc.text)),
            }
        } else if let Some(f) = parse(&doc.text) {
            (doc.text.clone(), Some(f))
        } else {
            let blanked = blank();
            let f = parse(&blanked);
            (blanked, f)
        };
        let occs = file.as_ref().map(outline::occurrences).unwrap_or_default();
        let spec = file.as_ref().and_then(|f| {
            f.items.iter().enumerate().find_map(|(i, item)| match item {
                Item::Spec(s) if s.span.start <= offset && offset <= s.span.end => {
                    Some((i, s.name.name.clone()))
                }
                _ => None,
            })
        });
        let included = match &file {
            Some(f) => includes(&path, f, &project, buffers),
            None => Vec::new(),
        };
        Some(View {
            text,
            file,
            occs,
            spec,
            path,
            project,
            included,
        })
    }

    /// The compiled spec of the view's spec: of the view's text when it compiles, else of the
    /// document's last text that did.
    pub(crate) fn compiled(
        &mut self,
        uri: &Uri,
        view: &View,
    ) -> Option<(MatcherConfig, Vec<crate::check::bind::BoundGlob>)> {
        let (_, name) = view.spec.as_ref()?;
        let buffers = self.buffers();
        let now = crate::check::run::diagnose(
            &view.path,
            view.text.clone(),
            &view.project.settings,
            &view.project.cwd,
            Some(buffers),
        );
        let pick = |specs: &[(MatcherConfig, Vec<crate::check::bind::BoundGlob>)]| {
            specs.iter().find(|(c, _)| c.name == *name).cloned()
        };
        pick(&now.specs).or_else(|| self.docs.get(uri).and_then(|d| pick(&d.specs)))
    }

    /// What the transcripts the spec's globs match show.
    pub(crate) fn seen(&mut self, uri: &Uri, view: &View) -> Seen {
        let (format, globs) = match self.compiled(uri, view) {
            Some((config, globs)) => (config.format, globs),
            None => match written_globs(view) {
                Some(found) => found,
                None => return Seen::default(),
            },
        };
        let files = expand(&globs);
        let guard = guard_of(&view.project);
        let format = format.as_deref().and_then(|f| f.parse().ok());
        self.runs
            .seen(&files, &guard, &view.project.settings, format)
    }

    /// Read the transcripts of a document's specs in the background, so that the first
    /// completion finds them read.
    pub(crate) fn warm(&self, uri: &Uri) {
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        if doc.specs.is_empty() {
            return;
        }
        let specs = doc.specs.clone();
        let path = self.file_of(uri, doc);
        let Project { cwd, settings, .. } = self.project(&path);
        let project = Project {
            cwd,
            settings,
            error: None,
        };
        let runs = self.runs.clone();
        let spawned = std::thread::Builder::new()
            .name("toolspec-lsp-runs".into())
            .spawn(move || {
                let guard = guard_of(&project);
                for (config, globs) in specs.iter() {
                    let format = config.format.as_deref().and_then(|f| f.parse().ok());
                    runs.seen(&expand(globs), &guard, &project.settings, format);
                }
            });
        // Without a thread, the first completion reads them.
        drop(spawned);
    }

    /// Completion at `pos` of `uri`.
    pub(crate) fn completion(&mut self, uri: &Uri, pos: Position) -> Option<CompletionResponse> {
        let doc = self.docs.get(uri)?;
        if doc.dropped.is_some() {
            return None;
        }
        let offset = doc.lines.offset(&doc.text, pos, self.enc);
        let place = complete::place(&doc.text[..offset]);
        if place == Place::Nothing {
            return Some(CompletionResponse::Array(Vec::new()));
        }
        let view = self.view(uri, offset, true)?;
        let needs_runs = matches!(
            place,
            Place::Tool
                | Place::ToolOrLabel
                | Place::ArgKey(_)
                | Place::OutputKey(_)
                | Place::LabelField { .. }
        );
        let seen = if needs_runs {
            self.seen(uri, &view)
        } else {
            Seen::default()
        };
        let declared = view.declared();
        let known = Known {
            occs: &view.occs,
            spec: view.spec.as_ref().map(|(i, _)| *i),
            declared: &declared,
            seen: &seen,
        };
        let items: Vec<CompletionItem> = complete::items(&place, &known);
        Some(CompletionResponse::Array(items))
    }
}

/// The spec's globs as written (else the settings' default globs), bound as the planner binds
/// them, and its `format`: for a spec that does not compile yet (a `before` naming a call not
/// written yet), whose globs still say which transcripts it is about.
fn written_globs(view: &View) -> Option<(Option<String>, Vec<crate::check::bind::BoundGlob>)> {
    use crate::syntax::ast::StmtKind;
    let (i, name) = view.spec.as_ref()?;
    let Some(Item::Spec(spec)) = view.file.as_ref()?.items.get(*i) else {
        return None;
    };
    let mut patterns = Vec::new();
    let mut format = None;
    for st in &spec.stmts {
        match &st.kind {
            StmtKind::Transcripts(globs) => patterns.extend(globs.iter().map(|g| g.value.clone())),
            StmtKind::Format(f) => format = Some(f.name.clone()),
            _ => {}
        }
    }
    if patterns.is_empty() {
        let stem = view
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        patterns = view
            .project
            .settings
            .settings
            .transcripts
            .iter()
            .map(|p| p.replace("{stem}", &stem).replace("{spec}", name))
            .collect();
    }
    let base = view.path.parent()?;
    let root = std::path::absolute(&view.project.settings.root)
        .unwrap_or_else(|_| view.project.settings.root.clone());
    let globs = patterns
        .iter()
        .filter_map(|p| crate::check::bind::BoundGlob::new(p, base, &root, false).ok())
        .collect();
    Some((format, globs))
}

/// The project's root guard (never widened: `--allow-outside-root` is not the editor's).
pub(crate) fn guard_of(project: &Project) -> RootGuard {
    let root = std::path::absolute(&project.settings.root)
        .unwrap_or_else(|_| project.settings.root.clone());
    RootGuard::for_project(&root, false)
}

/// The files `globs` match, sorted, each once.
pub(crate) fn expand(globs: &[crate::check::bind::BoundGlob]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = Vec::new();
    for g in globs {
        if let Ok(found) = g.expand(false, &mut folders) {
            files.extend(found);
        }
    }
    files.sort();
    files.dedup();
    files
}

/// The files `file` (at `path`) includes, transitively, read as the compiler reads them (the
/// project's guard, open buffers first), each once, at most [`MAX_NAVIGATED_FILES`].
pub(crate) fn includes(
    path: &std::path::Path,
    file: &File,
    project: &Project,
    buffers: Arc<crate::compile::Buffers>,
) -> Vec<Included> {
    let loader = FsLoader::new(guard_of(project)).with_buffers(buffers);
    let mut out: Vec<Included> = Vec::new();
    let mut queue: Vec<(SourceFile, Vec<String>)> = Vec::new();
    let root = SourceFile::new(path.display().to_string(), String::new());
    queue.push((root, include_paths(file)));
    let mut done = std::collections::HashSet::from([path.to_path_buf()]);
    while let Some((from, paths)) = queue.pop() {
        for p in paths {
            if out.len() >= MAX_NAVIGATED_FILES {
                return out;
            }
            let Ok(source) = loader.load(&from, &p) else {
                continue;
            };
            let at = PathBuf::from(&source.name);
            if !done.insert(at.clone()) {
                continue;
            }
            let Ok(parsed) = crate::syntax::parse(&source) else {
                continue;
            };
            queue.push((
                SourceFile::new(source.name.clone(), String::new()),
                include_paths(&parsed),
            ));
            out.push(Included {
                path: at,
                source,
                file: parsed,
            });
        }
    }
    out
}

fn include_paths(file: &File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Include(inc) => Some(inc.path.value.clone()),
            _ => None,
        })
        .collect()
}
