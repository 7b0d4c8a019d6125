//! `toolspec lsp`: a language server for `.toolspec` files over a JSON-RPC [`Connection`]
//! (the command line passes `Connection::stdio()`; tests pass `Connection::memory()`).
//!
//! Every answer comes from the code the command line runs: a buffer is compiled by the function
//! `toolspec check` compiles a spec file with ([`crate::check::run::diagnose`]), with the same
//! codes, labels and did-you-mean, its includes read through the project's root guard (open
//! buffers in place of their files); formatting is [`crate::syntax::format`], what `toolspec
//! fmt` writes. The server reads what a check of the workspace would read and nothing else; it
//! never prints and reads no environment.
//!
//! Bounds: a document of more than [`MAX_DOCUMENT`] bytes is not kept or compiled (one diagnostic
//! says so), nor one that would take the open documents past [`MAX_OPEN_BYTES`]; at most
//! [`MAX_DOCUMENTS`] documents are kept open; diagnostics wait for [`DEBOUNCE`]
//! of quiet after a change, and a request or notification whose handling panics is answered
//! with an internal error and the server goes on.

mod complete;
mod diagnostics;
mod navigate;
mod outline;
mod runs;
mod text;
mod view;

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use lsp_server::Connection;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    Diagnostic, DiagnosticSeverity, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentFormattingParams, InitializeParams, InitializeResult,
    NumberOrString, OneOf, PositionEncodingKind, PublishDiagnosticsParams, Range,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit,
    Uri,
};
pub use runs::{
    MAX_CACHED, MAX_FILES, MAX_FILE_BYTES, MAX_KEYS, MAX_READ_BYTES, MAX_SCHEMA_BYTES, MAX_TOOLS,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::check::paths::normalize;
use crate::check::settings::{LoadedSettings, SettingsError};
use crate::source::SourceFile;
use diagnostics::Target;
use text::{uri_path, Encoding, Lines};

/// The most bytes of one document the server compiles: what `toolspec` reads of a spec file
/// ([`crate::guard::SPEC_LIMIT`]). A larger document gets one diagnostic saying so.
pub const MAX_DOCUMENT: usize = crate::guard::SPEC_LIMIT as usize;
/// The most documents kept open at once; past it, an opened document is not kept (and a
/// message says so).
pub const MAX_DOCUMENTS: usize = 1024;
/// The most bytes of all open documents together; a document that would take them past it is
/// not kept (as a document over [`MAX_DOCUMENT`]).
pub const MAX_OPEN_BYTES: usize = 256 << 20;
/// The quiet time after a change before the document is compiled again.
pub const DEBOUNCE: Duration = Duration::from_millis(20);

/// Why the server stopped before the client asked it to.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ServeError(String);

/// Serve `connection` until the client shuts the server down (or the connection closes): the
/// initialization handshake, then the documents' diagnostics and the requests. `Ok` after a
/// `shutdown` request and the `exit` notification.
pub fn serve(connection: &Connection) -> Result<(), ServeError> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| ServeError(e.to_string()))?;
    // A client that sends parameters this server cannot read still gets a server, with the
    // protocol's defaults.
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let enc = encoding(&params);
    let result = InitializeResult {
        capabilities: capabilities(enc),
        server_info: Some(ServerInfo {
            name: "toolspec".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| ServeError(e.to_string()))?;
    connection
        .initialize_finish(id, result)
        .map_err(|e| ServeError(e.to_string()))?;
    let mut server = Server {
        conn: connection,
        enc,
        root: workspace_root(&params),
        docs: HashMap::new(),
        due: HashMap::new(),
        elsewhere: HashSet::new(),
        buffers: None,
        runs: Arc::new(runs::Runs::default()),
    };
    server.run()
}

/// UTF-8 positions when the client offers them, else the protocol's UTF-16.
fn encoding(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// The workspace's folder: the first workspace folder, else the root URI.
fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    let first = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri);
    #[allow(deprecated)]
    let uri = first.or(params.root_uri.as_ref())?;
    uri_path(uri).map(|p| normalize(&p))
}

fn capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match enc {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(lsp_types::CodeActionProviderCapability::Simple(true)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: Some([" ", "(", ".", ",", "{"].map(str::to_owned).to_vec()),
            ..lsp_types::CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// An open document.
struct Doc {
    /// Its file, absolute and normalised (`None`: not a `file:` URI; compiled as a file of the
    /// workspace's folder).
    path: Option<PathBuf>,
    /// Its file's real path, for includes (`None`: no file on disk).
    real: Option<PathBuf>,
    /// The text (empty when it was not kept: see `dropped`).
    text: String,
    /// The text as includes read it, shared.
    shared: Arc<str>,
    /// The size of a text not kept (past [`MAX_DOCUMENT`] or [`MAX_OPEN_BYTES`]).
    dropped: Option<usize>,
    lines: Lines,
    version: i32,
    /// The specs of its last text that compiled, with their globs bound: what completion and
    /// hover fall back on while the text does not compile.
    specs: Arc<
        Vec<(
            crate::config::MatcherConfig,
            Vec<crate::check::bind::BoundGlob>,
        )>,
    >,
}

/// The project a document belongs to: the folder names are shown relative to, and the settings.
struct Project {
    cwd: PathBuf,
    settings: LoadedSettings,
    error: Option<SettingsError>,
}

struct Server<'c> {
    conn: &'c Connection,
    enc: Encoding,
    root: Option<PathBuf>,
    docs: HashMap<Uri, Doc>,
    /// Documents to compile, and when.
    due: HashMap<Uri, Instant>,
    /// Files other than open documents that diagnostics were published for (a settings file).
    elsewhere: HashSet<Uri>,
    /// The open documents' texts by real path, for includes (rebuilt after a change).
    buffers: Option<Arc<crate::compile::Buffers>>,
    /// What the transcripts the specs' globs match say, by file.
    runs: Arc<runs::Runs>,
}

/// An error answer: its code and message.
type Failure = (ErrorCode, String);

fn params<P: DeserializeOwned>(value: Value) -> Result<P, Failure> {
    serde_json::from_value(value)
        .map_err(|e| (ErrorCode::InvalidParams, format!("invalid parameters: {e}")))
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), ServeError> {
        loop {
            let next = self.due.values().min().copied();
            let msg = match next {
                Some(at) => match self.conn.receiver.recv_deadline(at) {
                    Ok(m) => Some(m),
                    Err(e) if e.is_timeout() => None,
                    Err(_) => return Err(ServeError("the connection closed".into())),
                },
                None => match self.conn.receiver.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return Err(ServeError("the connection closed".into())),
                },
            };
            match msg {
                None => self.compile_due(),
                Some(Message::Request(req)) => {
                    let shutdown = self
                        .conn
                        .handle_shutdown(&req)
                        .map_err(|e| ServeError(e.to_string()))?;
                    if shutdown {
                        return Ok(());
                    }
                    let response = self.request(req);
                    self.send(response.into());
                }
                Some(Message::Notification(n)) => {
                    if n.method == "exit" {
                        return Ok(());
                    }
                    let method = n.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.notification(n))).is_err() {
                        self.show_error(&format!(
                            "toolspec: internal error while handling `{}`; please report it",
                            diagnostics::clean(&method)
                        ));
                    }
                }
                Some(Message::Response(_)) => {}
            }
        }
    }

    fn send(&self, msg: Message) {
        // A closed connection ends the loop at the next receive.
        let _ = self.conn.sender.send(msg);
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_owned(), params).into());
    }

    fn show_error(&self, message: &str) {
        self.notify::<lsp_types::notification::ShowMessage>(lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::ERROR,
            message: message.to_owned(),
        });
    }

    /// Answer a request; a panic while answering is an internal error, and the server goes on.
    fn request(&mut self, req: Request) -> Response {
        let id: RequestId = req.id.clone();
        let method = req.method.clone();
        match catch_unwind(AssertUnwindSafe(|| self.answer(req))) {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!(
                    "internal error while answering `{}`; please report it",
                    diagnostics::clean(&method)
                ),
            ),
        }
    }

    fn answer(&mut self, req: Request) -> Result<Value, Failure> {
        let value = match req.method.as_str() {
            "textDocument/formatting" => {
                let p: DocumentFormattingParams = params(req.params)?;
                serde_json::to_value(self.formatting(&p.text_document.uri))
            }
            "textDocument/completion" => {
                let p: lsp_types::CompletionParams = params(req.params)?;
                let at = p.text_document_position;
                serde_json::to_value(self.completion(&at.text_document.uri, at.position))
            }
            "textDocument/codeAction" => {
                let p: lsp_types::CodeActionParams = params(req.params)?;
                serde_json::to_value(code_actions(&p))
            }
            "textDocument/hover" => {
                let p: lsp_types::HoverParams = params(req.params)?;
                let at = p.text_document_position_params;
                serde_json::to_value(self.hover(&at.text_document.uri, at.position))
            }
            "textDocument/definition" => {
                let p: lsp_types::GotoDefinitionParams = params(req.params)?;
                let at = p.text_document_position_params;
                serde_json::to_value(self.definition(&at.text_document.uri, at.position))
            }
            "textDocument/references" => {
                let p: lsp_types::ReferenceParams = params(req.params)?;
                let at = p.text_document_position;
                serde_json::to_value(self.references(
                    &at.text_document.uri,
                    at.position,
                    p.context.include_declaration,
                ))
            }
            "textDocument/documentSymbol" => {
                let p: lsp_types::DocumentSymbolParams = params(req.params)?;
                serde_json::to_value(self.symbols(&p.text_document.uri))
            }
            other => {
                return Err((
                    ErrorCode::MethodNotFound,
                    format!("unknown method `{}`", diagnostics::clean(other)),
                ))
            }
        };
        value.map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = params::<DidOpenTextDocumentParams>(n.params) {
                    let d = p.text_document;
                    self.open(d.uri, d.text, d.version);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = params::<DidChangeTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri;
                    // Full synchronisation: the last change holds the whole text.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        if change.range.is_none() && self.docs.contains_key(&uri) {
                            self.change(uri, change.text, p.text_document.version);
                        }
                    }
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = params::<DidCloseTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri;
                    if self.docs.remove(&uri).is_some() {
                        self.buffers = None;
                        self.due.remove(&uri);
                        self.publish(uri, Vec::new(), None);
                        self.touch_others(None);
                    }
                }
            }
            // Saves, settings and the rest change nothing the server keeps.
            _ => {}
        }
    }

    fn open(&mut self, uri: Uri, text: String, version: i32) {
        if !self.docs.contains_key(&uri) && self.docs.len() >= MAX_DOCUMENTS {
            self.show_error(&format!(
                "toolspec: more than {MAX_DOCUMENTS} documents open; this one is not checked"
            ));
            return;
        }
        let path = uri_path(&uri).map(|p| normalize(&p));
        let real = path.as_ref().and_then(|p| std::fs::canonicalize(p).ok());
        let (text, dropped) = self.keep(&uri, text);
        self.docs.insert(
            uri.clone(),
            Doc {
                path,
                real,
                lines: Lines::new(&text),
                shared: Arc::from(text.as_str()),
                text,
                dropped,
                version,
                specs: Arc::default(),
            },
        );
        self.buffers = None;
        // Opening compiles at once; the documents that may include it after the quiet time.
        self.compile(&uri);
        self.touch_others(Some(&uri));
        self.warm(&uri);
    }

    /// `text` if it may be kept (the text of `uri`, replacing its old one), else nothing and
    /// its size.
    fn keep(&self, uri: &Uri, text: String) -> (String, Option<usize>) {
        let others: usize = self
            .docs
            .iter()
            .filter(|(u, _)| *u != uri)
            .map(|(_, d)| d.text.len())
            .sum();
        if text.len() > MAX_DOCUMENT || others + text.len() > MAX_OPEN_BYTES {
            (String::new(), Some(text.len()))
        } else {
            (text, None)
        }
    }

    fn change(&mut self, uri: Uri, text: String, version: i32) {
        let (text, dropped) = self.keep(&uri, text);
        if let Some(doc) = self.docs.get_mut(&uri) {
            doc.lines = Lines::new(&text);
            doc.shared = Arc::from(text.as_str());
            doc.text = text;
            doc.dropped = dropped;
            doc.version = version;
        }
        self.buffers = None;
        let at = Instant::now() + DEBOUNCE;
        self.due.insert(uri.clone(), at);
        self.touch_others(Some(&uri));
    }

    /// Compile the other open documents that include a file after the quiet time (one of
    /// them may include the document that changed).
    fn touch_others(&mut self, changed: Option<&Uri>) {
        let at = Instant::now() + DEBOUNCE;
        let others: Vec<Uri> = self
            .docs
            .iter()
            .filter(|(u, d)| Some(*u) != changed && d.text.contains("include"))
            .map(|(u, _)| u.clone())
            .collect();
        for u in others {
            self.due.entry(u).or_insert(at);
        }
    }

    fn compile_due(&mut self) {
        let now = Instant::now();
        let ready: Vec<Uri> = self
            .due
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in ready {
            self.due.remove(&uri);
            let outcome = catch_unwind(AssertUnwindSafe(|| self.compile(&uri)));
            if outcome.is_err() {
                self.show_error("toolspec: internal error while compiling; please report it");
            }
        }
    }

    /// The project of the file `path`: the workspace's folder when the file is in it (as
    /// `toolspec check` run there), else the file's folder; the settings found from there up.
    fn project(&self, path: &Path) -> Project {
        let folder = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        let cwd = match &self.root {
            Some(root) if path.starts_with(root) => root.clone(),
            _ => folder,
        };
        match LoadedSettings::discover(&cwd) {
            Ok(settings) => Project {
                cwd,
                settings,
                error: None,
            },
            Err(e) => Project {
                settings: LoadedSettings::defaults(&cwd),
                cwd,
                error: Some(e),
            },
        }
    }

    /// The file a document is compiled as: its own, or (not a `file:` URI) a file of that
    /// name in the workspace's folder.
    fn file_of(&self, uri: &Uri, doc: &Doc) -> PathBuf {
        doc.path.clone().unwrap_or_else(|| {
            let name = uri
                .as_str()
                .rsplit(['/', ':'])
                .next()
                .filter(|n| !n.is_empty())
                .unwrap_or("untitled.toolspec");
            let base = self.root.clone().unwrap_or_else(|| PathBuf::from("/"));
            base.join(name.replace('%', "_"))
        })
    }

    fn buffers(&mut self) -> Arc<crate::compile::Buffers> {
        if let Some(b) = &self.buffers {
            return b.clone();
        }
        let mut map = crate::compile::Buffers::new();
        for doc in self.docs.values() {
            if let (Some(real), None) = (&doc.real, doc.dropped) {
                map.insert(real.clone(), doc.shared.clone());
            }
        }
        let map = Arc::new(map);
        self.buffers = Some(map.clone());
        map
    }

    /// Compile a document and publish its diagnostics (and its settings file's).
    fn compile(&mut self, uri: &Uri) {
        let buffers = self.buffers();
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        let path = self.file_of(uri, doc);
        let version = Some(doc.version);
        if let Some(size) = doc.dropped {
            let d = Diagnostic {
                range: Range::default(),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(
                    crate::code::Code::PathRefused.id().to_owned(),
                )),
                source: Some(diagnostics::SOURCE.to_owned()),
                message: if size > MAX_DOCUMENT {
                    format!("this document is {size} bytes, more than the {MAX_DOCUMENT} bytes toolspec reads of a spec; it is not checked")
                } else {
                    format!("the open documents would take more than {MAX_OPEN_BYTES} bytes with this one; it is not checked (close some)")
                },
                ..Diagnostic::default()
            };
            self.publish(uri.clone(), vec![d], version);
            return;
        }
        let project = self.project(&path);
        let shown = crate::check::paths::display_path(&path, &project.cwd);
        let diagnosed = crate::check::run::diagnose(
            &path,
            doc.text.clone(),
            &project.settings,
            &project.cwd,
            Some(buffers),
        );
        let target = Target {
            path: &path,
            shown: &shown,
            text: &doc.text,
            lines: &doc.lines,
            cwd: &project.cwd,
        };
        let mut found = diagnostics::of_compilation(&target, &diagnosed, self.enc);
        let compiled = (!diagnosed.specs.is_empty()).then(|| Arc::new(diagnosed.specs));
        let mut settings_file = None;
        if let Some(e) = &project.error {
            let (in_spec, on_file) = diagnostics::of_settings(&project.cwd, e, self.enc);
            found.insert(0, in_spec);
            settings_file = on_file;
        }
        self.publish(uri.clone(), found, version);
        if let (Some(specs), Some(doc)) = (compiled, self.docs.get_mut(uri)) {
            doc.specs = specs;
        }
        // The settings file: its error, or none now.
        let settings_uri = settings_file.as_ref().map(|(u, _)| u.clone());
        for stale in self
            .elsewhere
            .iter()
            .filter(|u| Some(*u) != settings_uri.as_ref() && !self.docs.contains_key(*u))
            .cloned()
            .collect::<Vec<_>>()
        {
            self.elsewhere.remove(&stale);
            self.publish(stale, Vec::new(), None);
        }
        if let Some((u, d)) = settings_file {
            self.elsewhere.insert(u.clone());
            self.publish(u, vec![d], None);
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<Diagnostic>, version: Option<i32>) {
        self.notify::<lsp_types::notification::PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }

    /// The edit that makes the document what `toolspec fmt` writes: none when it already is,
    /// `None` when it does not parse (its diagnostics say why).
    fn formatting(&self, uri: &Uri) -> Option<Vec<TextEdit>> {
        let doc = self.docs.get(uri)?;
        if doc.dropped.is_some() {
            return None;
        }
        let name = self.file_of(uri, doc).display().to_string();
        let formatted = crate::syntax::format(&SourceFile::new(name, doc.text.clone())).ok()?;
        if formatted == doc.text {
            return Some(Vec::new());
        }
        let end = doc.lines.position(&doc.text, doc.text.len(), self.enc);
        Some(vec![TextEdit {
            range: Range::new(lsp_types::Position::new(0, 0), end),
            new_text: formatted,
        }])
    }
}

/// The fixes the diagnostics already suggest: a did-you-mean (`did you mean `order`?`) replaces
/// the word it is about.
// `WorkspaceEdit::changes` is keyed by `Uri`, whose hash and equality are its text (the lint
// sees the parsed form's cells, which neither reads).
#[allow(clippy::mutable_key_type)]
fn code_actions(p: &lsp_types::CodeActionParams) -> Vec<lsp_types::CodeActionOrCommand> {
    let mut out = Vec::new();
    for d in &p.context.diagnostics {
        if d.source.as_deref() != Some(diagnostics::SOURCE) {
            continue;
        }
        let Some(rest) = d.message.split("did you mean `").nth(1) else {
            continue;
        };
        let Some(word) = rest.split("`?").next().filter(|w| !w.contains('`')) else {
            continue;
        };
        let edit = TextEdit {
            range: d.range,
            new_text: word.to_owned(),
        };
        let changes = HashMap::from([(p.text_document.uri.clone(), vec![edit])]);
        out.push(lsp_types::CodeActionOrCommand::CodeAction(
            lsp_types::CodeAction {
                title: format!("Replace with `{word}`"),
                kind: Some(lsp_types::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(lsp_types::WorkspaceEdit::new(changes)),
                is_preferred: Some(true),
                ..lsp_types::CodeAction::default()
            },
        ));
    }
    out
}
