//! `toolspec lsp`, in process: a client on one end of `Connection::memory()`, the server on the
//! other, JSON-RPC messages between them. Answers are snapshot-tested with the repository's
//! path written `$ROOT`.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use insta::assert_json_snapshot;
use serde_json::{json, Value};
use toolspec::lsp::{serve, Connection};

use lsp_server::{Message, Notification, Request, RequestId};

/// How long a test waits for a message the server owes it.
const WAIT: Duration = Duration::from_secs(20);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `file:` URI of an absolute path (no character of the test paths needs encoding, but a
/// temporary folder's might: encoded as the server does).
fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), toolspec::lsp::ServeError>>>,
    next: i32,
    /// Notifications received while waiting for something else.
    queue: Vec<Notification>,
    /// Replaced by `$ROOT` in snapshots.
    roots: Vec<String>,
}

impl Client {
    /// A server for the workspace `root`; `utf8`: the client offers UTF-8 positions.
    fn start(root: &Path, utf8: bool) -> Client {
        let (server_end, client_end) = Connection::memory();
        let server = std::thread::spawn(move || serve(&server_end));
        let mut client = Client {
            conn: client_end,
            server: Some(server),
            next: 0,
            queue: Vec::new(),
            roots: vec![uri(root), root.display().to_string()],
        };
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        let init = client.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {"general": {"positionEncodings": encodings}},
            }),
        );
        assert!(init["result"]["capabilities"].is_object(), "{init}");
        client.notify("initialized", json!({}));
        client
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_owned(),
                params,
            )))
            .unwrap();
    }

    /// Send a request and wait for its response, as JSON (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_owned(),
                params,
            )))
            .unwrap();
        let deadline = Instant::now() + WAIT;
        loop {
            match self.conn.receiver.recv_deadline(deadline) {
                Ok(Message::Response(r)) if r.id == id => {
                    return serde_json::to_value(&r).unwrap();
                }
                Ok(Message::Notification(n)) => self.queue.push(n),
                Ok(other) => panic!("unexpected {other:?}"),
                Err(e) => panic!("no answer to {method}: {e}"),
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Value {
        if let Some(i) = self.queue.iter().position(|n| is_for(n, uri)) {
            return self.queue.remove(i).params;
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.conn.receiver.recv_deadline(deadline) {
                Ok(Message::Notification(n)) if is_for(&n, uri) => return n.params,
                Ok(Message::Notification(n)) => self.queue.push(n),
                Ok(other) => panic!("unexpected {other:?}"),
                Err(e) => panic!("no diagnostics for {uri}: {e}"),
            }
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "toolspec", "version": 1, "text": text}}),
        );
        self.diagnostics(uri)
    }

    fn change(&mut self, uri: &str, version: i32, text: &str) -> Value {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
        self.diagnostics(uri)
    }

    /// `value` with the workspace's path written `$ROOT`.
    fn redact(&self, value: &Value) -> Value {
        let mut text = value.to_string();
        for r in &self.roots {
            text = text.replace(r.as_str(), "$ROOT");
        }
        serde_json::from_str(&text).unwrap()
    }

    fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let served = self.server.take().unwrap().join().unwrap();
        assert!(served.is_ok(), "{served:?}");
    }
}

fn is_for(n: &Notification, uri: &str) -> bool {
    n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri
}

/// The codes of a diagnostics notification, in order.
fn codes(published: &Value) -> Vec<String> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The edits of a formatting answer applied to `text` (whole-document edits, as the server
/// makes them).
fn apply(text: &str, answer: &Value) -> String {
    let edits = answer["result"].as_array().expect("edits");
    match edits.as_slice() {
        [] => text.to_owned(),
        [one] => {
            assert_eq!(one["range"]["start"], json!({"line": 0, "character": 0}));
            one["newText"].as_str().unwrap().to_owned()
        }
        more => panic!("{more:?}"),
    }
}

const SPEC: &str = "spec edit_flow {\n  transcripts \"runs/coding/claude-code-session.jsonl\"\n  order in_order\n  read: call Read\n  call Edit(file_path: read.args.file_path)\n  read before Edit\n}\n";

#[test]
fn a_misspelled_tool_name_gets_its_code_one_change_later() {
    let root = repo();
    let mut client = Client::start(&root, false);
    let doc = uri(&root.join("examples/lsp_edit_flow.toolspec"));
    let first = client.open(&doc, SPEC);
    assert_eq!(codes(&first), Vec::<String>::new(), "{first}");
    let misspelled = SPEC.replace("read before Edit", "read before Edti");
    let second = client.change(&doc, 2, &misspelled);
    assert_eq!(codes(&second), ["toolspec::unknown-expectation"]);
    assert_json_snapshot!("misspelled_tool_name", client.redact(&second));
    // Its did-you-mean is a quick fix.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc}, "range": second["diagnostics"][0]["range"], "context": {"diagnostics": second["diagnostics"]}}),
    );
    let edit = &actions["result"][0]["edit"]["changes"][&doc][0];
    assert_eq!(edit["newText"], "Edit", "{actions}");
    assert_eq!(edit["range"], second["diagnostics"][0]["range"]);
    client.shutdown();
}

#[test]
fn formatting_equals_toolspec_fmt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("messy.toolspec");
    let messy = "# the flow\nspec   s{\n transcripts   \"runs/*.jsonl\"\n    a:call  f( x:1,y: \"é😀\" )   # why\n\n\n  never   g\n  a  before f\n}\n";
    std::fs::write(&path, messy).unwrap();
    let fmt = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["fmt", "--stdout"])
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(fmt.status.success(), "{fmt:?}");
    let mut client = Client::start(dir.path(), false);
    let doc = uri(&path);
    client.open(&doc, messy);
    let answer = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": doc}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let formatted = apply(messy, &answer);
    assert_eq!(formatted.as_bytes(), fmt.stdout.as_slice());
    // Formatting the formatted text changes nothing.
    client.change(&doc, 2, &formatted);
    let again = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": doc}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(again["result"], json!([]));
    // A text that does not parse is not formatted.
    client.change(&doc, 3, "spec s {\n  call f(a: )\n}\n");
    let none = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": doc}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(none["result"], Value::Null);
    client.shutdown();
}

/// The same diagnostic after a character outside the BMP: its column counts two UTF-16 code
/// units for it, or four bytes when the client took UTF-8.
#[test]
fn positions_count_utf16_units_unless_utf8_is_negotiated() {
    let text = "spec s {\n  transcripts \"r/*.jsonl\"\n  call f(x: \"😀\", y: 1, y: 2)\n}\n";
    let root = repo();
    let doc = uri(&root.join("examples/lsp_positions.toolspec"));
    let mut starts = Vec::new();
    for utf8 in [false, true] {
        let mut client = Client::start(&root, utf8);
        let published = client.open(&doc, text);
        assert_eq!(
            codes(&published),
            ["toolspec::duplicate-argument"],
            "{published}"
        );
        starts.push(published["diagnostics"][0]["range"]["start"].clone());
        client.shutdown();
    }
    let utf16 = "  call f(x: \"😀\", y: 1, ".encode_utf16().count();
    let utf8 = "  call f(x: \"😀\", y: 1, ".len();
    assert_eq!(starts[0], json!({"line": 2, "character": utf16}));
    assert_eq!(starts[1], json!({"line": 2, "character": utf8}));
}

#[test]
fn include_errors_are_shown_at_the_include_and_open_buffers_replace_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    std::fs::write(root.join("tools.toolspec"), "tool f(x: type string)\n").unwrap();
    let main = "include \"tools.toolspec\"\ninclude \"missing.toolspec\"\nspec s {\n  transcripts \"r/*.jsonl\"\n  call f(x: \"a\")\n}\n";
    std::fs::write(root.join("main.toolspec"), main).unwrap();
    let mut client = Client::start(&root, false);
    let main_uri = uri(&root.join("main.toolspec"));
    let first = client.open(&main_uri, main);
    assert_eq!(codes(&first), ["toolspec::include-not-found"]);
    assert_eq!(first["diagnostics"][0]["range"]["start"]["line"], 1);
    // The included file's buffer, not its file: a cycle back to main, and a syntax error.
    let tools_uri = uri(&root.join("tools.toolspec"));
    client.open(
        &tools_uri,
        "include \"main.toolspec\"\ntool f(x: type string)\ntool f()\n",
    );
    let second = client.diagnostics(&main_uri);
    assert_json_snapshot!("include_errors", client.redact(&second));
    client.shutdown();
}

#[test]
fn settings_errors_are_shown_on_the_settings_file_and_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("toolspec.toml"), "transcripts = 3\n").unwrap();
    let mut client = Client::start(&root, false);
    let spec_uri = uri(&root.join("a.toolspec"));
    let published = client.open(
        &spec_uri,
        "spec s {\n  transcripts \"r/*.jsonl\"\n  call f\n}\n",
    );
    assert_eq!(codes(&published), ["invalid-setting"]);
    let on_file = client.diagnostics(&uri(&root.join("toolspec.toml")));
    assert_json_snapshot!("settings_error", client.redact(&on_file));
    client.shutdown();
}

#[test]
fn requests_it_cannot_read_get_errors_and_the_server_goes_on() {
    let root = repo();
    let mut client = Client::start(&root, false);
    let bad = client.request("textDocument/formatting", json!({"textDocument": 7}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let unknown = client.request("toolspec/nothing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // A notification it cannot read is dropped.
    client.notify("textDocument/didOpen", json!({"textDocument": []}));
    // A document past the size limit is not compiled.
    let doc = uri(&root.join("examples/lsp_huge.toolspec"));
    let huge = format!(
        "spec s {{\n{}}}\n",
        "  # a comment\n".repeat(toolspec::lsp::MAX_DOCUMENT / 14 + 1)
    );
    let published = client.open(&doc, &huge);
    assert_eq!(codes(&published), ["path-refused"]);
    // And the server still answers.
    let small = client.change(
        &doc,
        2,
        "spec s {\n  transcripts \"r/*.jsonl\"\n  call f\n}\n",
    );
    assert_eq!(codes(&small), Vec::<String>::new());
    client.shutdown();
}

/// The position just after the first `needle` of `text` (UTF-16 columns).
fn after(text: &str, needle: &str) -> Value {
    let at = text.find(needle).unwrap() + needle.len();
    let line = text[..at].matches('\n').count();
    let col = text[..at]
        .rsplit('\n')
        .next()
        .unwrap()
        .encode_utf16()
        .count();
    json!({"line": line, "character": col})
}

fn labels(answer: &Value) -> Vec<String> {
    answer["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn completion_after_call_lists_the_tools_of_the_runs_the_globs_match() {
    let root = repo();
    let mut client = Client::start(&root, false);
    let doc = uri(&root.join("examples/lsp_complete.toolspec"));
    // Being written: `call ` does not parse yet.
    let text = "spec edit_flow {\n  transcripts \"runs/coding/claude-code-session.jsonl\"\n  read: call Read\n  call \n}\n";
    client.open(&doc, text);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(text, "  call ")}),
    );
    assert_eq!(
        labels(&answer),
        ["Edit", "Bash", "TodoWrite", "Grep", "Read"],
        "{answer}"
    );
    assert_json_snapshot!("complete_after_call", client.redact(&answer));
    // With a statement on the next line (`call` would take its first word as the tool).
    let next = "spec edit_flow {\n  transcripts \"runs/coding/claude-code-session.jsonl\"\n  call \n  read: call Read\n  read before Edit\n}\n";
    client.change(&doc, 2, next);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(next, "  call ")}),
    );
    assert_eq!(
        labels(&answer),
        ["Edit", "Bash", "TodoWrite", "Grep", "Read"],
        "{answer}"
    );
    client.shutdown();
}

#[test]
fn completion_inside_a_calls_arguments_lists_its_keys() {
    let root = repo();
    let mut client = Client::start(&root, false);
    let doc = uri(&root.join("examples/lsp_complete_args.toolspec"));
    let text = "spec edit_flow {\n  transcripts \"runs/coding/claude-code-session.jsonl\"\n  read: call Read\n  call Edit(\n}\n";
    client.open(&doc, text);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(text, "call Edit(")}),
    );
    assert_json_snapshot!("complete_edit_arguments", client.redact(&answer));
    let keys = labels(&answer);
    assert!(
        keys == ["file_path", "old_string", "new_string"],
        "{keys:?}"
    );
    // A reference's fields: the label's tool's argument keys.
    let text2 = "spec edit_flow {\n  transcripts \"runs/coding/claude-code-session.jsonl\"\n  read: call Read\n  call Edit(file_path: read.args.\n}\n";
    client.change(&doc, 2, text2);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(text2, "read.args.")}),
    );
    assert_eq!(labels(&answer), ["file_path"], "{answer}");
    // A statement's start: keywords.
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(text2, "read: call Read\n  ")}),
    );
    assert!(labels(&answer).contains(&"never".to_owned()), "{answer}");
    client.shutdown();
}

#[test]
fn hover_on_a_label_shows_its_lowered_check_and_definition_jumps_to_it() {
    let root = repo();
    let mut client = Client::start(&root, false);
    let doc = uri(&root.join("examples/lsp_edit_flow.toolspec"));
    client.open(&doc, SPEC);
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "file_path: rea")}),
    );
    let shown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("\"label\": \"read\""), "{shown}");
    assert!(shown.contains("Lowered check"), "{shown}");
    assert_json_snapshot!("hover_label", client.redact(&hover));
    // Definition on the reference `read.args.file_path` jumps to `read:`.
    let def = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "file_path: re")}),
    );
    assert_eq!(
        def["result"],
        json!([{"uri": doc, "range": {"start": {"line": 3, "character": 2}, "end": {"line": 3, "character": 6}}}]),
        "{def}"
    );
    // Its references: the reference and the `before` rule (and the label, when asked).
    let refs = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "  re"), "context": {"includeDeclaration": true}}),
    );
    let lines: Vec<u64> = refs["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 4, 5], "{refs}");
    // A keyword's documentation; a tool's calls in the transcripts.
    let kw = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "  order in_")}),
    );
    assert_eq!(kw["result"], Value::Null, "{kw}");
    let kw = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "  ord")}),
    );
    assert!(
        kw["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`order strict"),
        "{kw}"
    );
    let tool = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc}, "position": after(SPEC, "call Ed")}),
    );
    let shown = tool["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("3 calls in 1 of 1 file"), "{shown}");
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": doc}}),
    );
    assert_eq!(symbols["result"][0]["name"], "edit_flow");
    assert_eq!(symbols["result"][0]["children"][0]["name"], "read");
    client.shutdown();
}

#[test]
fn a_tools_definition_is_found_across_includes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    std::fs::create_dir(root.join("shared")).unwrap();
    std::fs::write(
        root.join("shared/tools.toolspec"),
        "# shared\ntool lookup(id: type string)\n",
    )
    .unwrap();
    let main = "include \"shared/tools.toolspec\"\nspec s {\n  transcripts \"r/*.jsonl\"\n  call lookup(id: \"7\")\n}\n";
    std::fs::write(root.join("main.toolspec"), main).unwrap();
    let mut client = Client::start(&root, false);
    let doc = uri(&root.join("main.toolspec"));
    client.open(&doc, main);
    let def = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": doc}, "position": after(main, "call look")}),
    );
    assert_eq!(
        def["result"],
        json!([{"uri": uri(&root.join("shared/tools.toolspec")), "range": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 11}}}]),
        "{def}"
    );
    let args = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(main, "call lookup(")}),
    );
    assert_eq!(labels(&args), ["id"], "{args}");
    client.shutdown();
}

/// Hostile review (docs/security.md): transcripts a spec's globs reach but the root guard
/// refuses are never read; names with control characters are not offered; positions past the
/// end, a garbage transcript and requests on unknown documents are answered, not fatal.
#[test]
fn completion_reads_only_what_the_guard_lets_through() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("project");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    let call = |name: &str| format!("{}\n", json!({"name": name, "args": {"k": 1}}));
    std::fs::write(outside.join("secret.jsonl"), call("SecretTool")).unwrap();
    std::fs::write(root.join("runs/ok.jsonl"), call("Visible")).unwrap();
    std::fs::write(root.join("runs/bidi.jsonl"), call("Evil\u{202e}Tool")).unwrap();
    std::fs::write(
        root.join("runs/garbage.jsonl"),
        "{\"not\": [1, 2\n\u{0}\u{1}",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), root.join("runs/link.jsonl")).unwrap();
    let mut client = Client::start(&root, false);
    client.roots.insert(0, uri(&base));
    let doc = uri(&root.join("s.toolspec"));
    let text = "spec s {\n  transcripts \"runs/*.jsonl\"\n  call \n}\n";
    client.open(&doc, text);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(text, "  call ")}),
    );
    assert_eq!(labels(&answer), ["Visible"], "{answer}");
    // A glob out of the root is an error, and nothing is read through it.
    let out = "spec s {\n  transcripts \"../outside/*.jsonl\"\n  call \n}\n";
    client.change(&doc, 2, out);
    let answer = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": doc}, "position": after(out, "  call ")}),
    );
    assert_eq!(labels(&answer), Vec::<String>::new(), "{answer}");
    let fixed = "spec s {\n  transcripts \"../outside/*.jsonl\"\n  call f\n}\n";
    let published = client.change(&doc, 3, fixed);
    assert_eq!(codes(&published), ["glob-outside-root"], "{published}");
    // Positions past the end, and documents never opened.
    for method in [
        "textDocument/completion",
        "textDocument/hover",
        "textDocument/definition",
    ] {
        let far = client.request(
            method,
            json!({"textDocument": {"uri": doc}, "position": {"line": 4_000_000_000u32, "character": 4_000_000_000u32}}),
        );
        assert!(far.get("error").is_none(), "{method}: {far}");
        let unknown = client.request(
            method,
            json!({"textDocument": {"uri": "file:///nowhere.toolspec"}, "position": {"line": 0, "character": 0}}),
        );
        assert_eq!(unknown["result"], Value::Null, "{method}: {unknown}");
    }
    client.shutdown();
}
