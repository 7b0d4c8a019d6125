//! Hover, go-to-definition, references and document symbols, from the document's syntax tree,
//! the trees of the files it includes, its compiled specs and its transcripts.

use lsp_types::{
    DocumentSymbol, DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, Position, SymbolKind, Uri,
};

use super::outline::{self, Occ, Role, Target};
use super::text::{path_uri, Lines};
use super::view::View;
use super::Server;
use crate::source::Span;
use crate::syntax::ast::Item;
use crate::syntax::words::Keyword;

/// What hover says of a keyword.
pub(crate) fn keyword_doc(k: Keyword) -> &'static str {
    match k {
        Keyword::Include => "`include \"path\"`: read the `tool` declarations of another file (relative to this one, inside the project root).",
        Keyword::Tool => "`tool name(arg: constraint, ...)`: constraints every expectation of the tool gets, and the argument names it knows.",
        Keyword::Spec => "`spec name { ... }`: what runs of one prompt must do.",
        Keyword::Transcripts => "`transcripts \"glob\", ...`: the runs this spec checks, relative to the spec file's folder.",
        Keyword::Format => "`format name`: read the transcripts as this format instead of detecting it.",
        Keyword::Order => "`order strict | in_order | any`: how the expected calls must be ordered (default `in_order`).",
        Keyword::Args => "`args ignore | exact | subset | fuzzy >= t`: how argument literals compare (default `subset`).",
        Keyword::Names => "`names ignore_case, unify_separators, strip \"prefix\"`: how tool names compare.",
        Keyword::Strip => "`strip \"prefix\"` in `names`: a prefix dropped from tool names before comparing.",
        Keyword::Threshold => "`threshold t`: the score in [0, 1] a run needs to pass (default 1).",
        Keyword::PassRate => "`pass_rate >= r`: the fraction of the spec's runs that must pass.",
        Keyword::TotalCalls => "`total_calls <= n`: how many tool calls the run (or the block) makes.",
        Keyword::Extra => "`extra allow | forbid`: whether calls no expectation accounts for fail the run.",
        Keyword::Score => "`score { exact 1 name_only 0.5 extra 0 missing 0 }` or `score per_argument`: the native score's weights and mode.",
        Keyword::Binary => "`binary`: the score is 1 when every expectation holds, else 0.",
        Keyword::Profile => "`profile name { option: value }`: score as an existing metric does (docs/parity.md).",
        Keyword::Never => "`never tool(args) [errored]`: a call that must not happen (`never *` for any tool).",
        Keyword::Before => "`a before b`: expectation `a` (a label or a tool) is matched before `b`.",
        Keyword::Rules => "`rules deny code, ...`: the built-in rules whose findings fail this spec's runs.",
        Keyword::Call => "`[label:] [critical] [count] call tool(args) [-> output] [errored] [weight w]`: an expected call.",
        Keyword::Optional => "`optional call`: the call may be missing (0 or 1 times).",
        Keyword::AtLeast => "`at_least n call`: the call at least n times.",
        Keyword::AtMost => "`at_most n call`: the call at most n times.",
        Keyword::Exactly => "`exactly n call`: the call exactly n times.",
        Keyword::Between => "`between n and m call`: the call n to m times.",
        Keyword::And => "`C and D`: both constraints hold; `between n and m`: a count's range.",
        Keyword::Or => "`C or D`: one of the constraints holds; `either { ... } or { ... }`: one of the branches.",
        Keyword::Errored => "`errored [true|false]`: the call failed (or did not).",
        Keyword::Weight => "`weight w`: the expectation's weight in the native score (default 1).",
        Keyword::Exact => "`exact JSON`: equal to the JSON value, nothing more.",
        Keyword::Subset => "`subset JSON`: the JSON value's keys and items are present (others allowed).",
        Keyword::Fuzzy => "`fuzzy \"text\" >= t`: a string similar to the text (ratio in [0, 1]).",
        Keyword::Tokens => "`fuzzy tokens \"text\" >= t`: similar by the set of words, in any order.",
        Keyword::Type => "`type string|number|integer|boolean|array|object|null`: the value's JSON type.",
        Keyword::OneOf => "`one_of [v, ...]`: equal to one of the values.",
        Keyword::Contains => "`contains JSON`: a string holding the text, or an array holding the item.",
        Keyword::Present => "`present`: the argument is given, with any value.",
        Keyword::Absent => "`absent`: the argument is not given.",
        Keyword::Any => "`any`: no constraint on the value.",
        Keyword::Not => "`not C`: the constraint does not hold.",
        Keyword::In => "`in label.output.list[*]`: the value is one of the referenced values.",
        Keyword::Turn => "`turn N { ... }`, `turn last { ... }`: about the calls of that user turn.",
        Keyword::Last => "`turn last`, `after last tool`: the last one.",
        Keyword::First => "`after first tool { ... }`: after the first call of the tool (or label).",
        Keyword::After => "`after first|last tool { ... }`: about the calls after that call.",
        Keyword::Agent => "`agent \"name\" { ... }`: about the calls of that sub-agent; `agent \"name\" runs <= n`: how often it starts.",
        Keyword::Runs => "`agent \"name\" runs <= n`: how many times the sub-agent was started.",
        Keyword::Answer => "`answer C`: a constraint on the final assistant message.",
        Keyword::Either => "`either { ... } or { ... }`: one of the branches must hold; the best counts.",
        Keyword::Parallel => "`parallel { ... }`: the calls of the block in any order among themselves.",
        Keyword::Critical => "`critical`: if this is not met, the run fails whatever its score.",
    }
}

/// The word (letters, digits, `_`, `-`) around byte `at` of `text`, with its span.
fn word_at(text: &str, at: usize) -> Option<(&str, Span)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let at = at.min(text.len());
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| at + i);
    (start < end).then(|| (&text[start..end], Span::new(start, end)))
}

/// The first line of a statement, as hover quotes it.
fn quote(text: &str, span: Span) -> String {
    let s = text.get(span.start..span.end).unwrap_or("");
    let first = s.lines().next().unwrap_or("");
    crate::text::escape(first).into_owned()
}

fn code_block(lang: &str, body: &str) -> String {
    // A fence longer than any run of backquotes in the body.
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{body}\n{fence}")
}

impl Server<'_> {
    fn location_in(&self, uri: &Uri, text: &str, span: Span) -> Location {
        Location::new(uri.clone(), Lines::new(text).range(text, span, self.enc))
    }

    /// Where the target is defined: a label's definition, a tool's declaration (here or in an
    /// included file).
    fn definitions(&self, uri: &Uri, view: &View, target: &Target<'_>) -> Vec<Location> {
        match target {
            Target::Label(_, _, Some(def)) => vec![self.location_in(uri, &view.text, def.span)],
            Target::Label(..) => Vec::new(),
            Target::Tool(name) => {
                let mut out: Vec<Location> = view
                    .occs
                    .iter()
                    .filter(|o| o.role == Role::ToolDecl && o.name == *name)
                    .map(|o| self.location_in(uri, &view.text, o.span))
                    .collect();
                for inc in &view.included {
                    let Some(inc_uri) = path_uri(&inc.path) else {
                        continue;
                    };
                    for o in outline::occurrences(&inc.file) {
                        if o.role == Role::ToolDecl && o.name == *name {
                            out.push(self.location_in(&inc_uri, &inc.source.text, o.span));
                        }
                    }
                }
                out
            }
        }
    }

    fn position_view(&mut self, uri: &Uri, pos: Position) -> Option<(View, usize)> {
        let doc = self.docs.get(uri)?;
        if doc.dropped.is_some() {
            return None;
        }
        let offset = doc.lines.offset(&doc.text, pos, self.enc);
        let view = self.view(uri, offset, false)?;
        Some((view, offset))
    }

    /// Go to the definition of the label or tool at `pos`.
    pub(crate) fn definition(
        &mut self,
        uri: &Uri,
        pos: Position,
    ) -> Option<GotoDefinitionResponse> {
        let (view, offset) = self.position_view(uri, pos)?;
        let occ = outline::at(&view.occs, offset)?;
        let target = outline::target(&view.occs, occ);
        let found = self.definitions(uri, &view, &target);
        (!found.is_empty()).then_some(GotoDefinitionResponse::Array(found))
    }

    /// Every place that names the label or tool at `pos` (its definition too when asked).
    pub(crate) fn references(
        &mut self,
        uri: &Uri,
        pos: Position,
        declaration: bool,
    ) -> Option<Vec<Location>> {
        let (view, offset) = self.position_view(uri, pos)?;
        let occ = outline::at(&view.occs, offset)?;
        let target = outline::target(&view.occs, occ);
        let mut out: Vec<Location> = view
            .occs
            .iter()
            .filter(|o| target.named_by(&view.occs, o))
            .filter(|o| declaration || !matches!(o.role, Role::LabelDef | Role::ToolDecl))
            .map(|o| self.location_in(uri, &view.text, o.span))
            .collect();
        if declaration {
            if let Target::Tool(_) = target {
                for d in self.definitions(uri, &view, &target) {
                    if !out.contains(&d) {
                        out.push(d);
                    }
                }
            }
        }
        Some(out)
    }

    /// Hover: a label's definition and its lowered check; a tool's declaration, how the
    /// transcripts call it and the schema they declare; a keyword's documentation.
    pub(crate) fn hover(&mut self, uri: &Uri, pos: Position) -> Option<Hover> {
        let (view, offset) = self.position_view(uri, pos)?;
        let mut parts: Vec<String> = Vec::new();
        let occ = outline::at(&view.occs, offset).cloned();
        let span;
        if let Some(o) = &occ {
            span = o.span;
            match outline::target(&view.occs, o) {
                Target::Label(_, name, def) => {
                    self.hover_label(uri, &view, &name, def, &mut parts);
                }
                Target::Tool(name) => self.hover_tool(uri, &view, o, &name, &mut parts),
            }
        } else {
            let (word, at) = word_at(&view.text, offset)?;
            let k: Keyword = word.parse().ok()?;
            span = at;
            parts.push(keyword_doc(k).to_owned());
            // On `call`: the expectation's lowered check.
            if k == Keyword::Call {
                if let Some(check) = self.lowered_at(uri, &view, offset) {
                    parts.push(check);
                }
            }
        }
        if parts.is_empty() {
            return None;
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: parts.join("\n\n---\n\n"),
            }),
            range: Some(Lines::new(&view.text).range(&view.text, span, self.enc)),
        })
    }

    fn hover_label(
        &mut self,
        uri: &Uri,
        view: &View,
        name: &str,
        def: Option<&Occ>,
        parts: &mut Vec<String>,
    ) {
        let Some(def) = def else {
            parts.push(format!(
                "`{}`: no expectation of this spec has this label",
                crate::text::escape(name)
            ));
            return;
        };
        parts.push(format!(
            "label `{}`, defined by\n\n{}",
            crate::text::escape(name),
            code_block("toolspec", &quote(&view.text, def.stmt))
        ));
        if let Some((config, _)) = self.compiled(uri, view) {
            if let Some(e) = config
                .expectations
                .iter()
                .find(|e| e.label.as_deref() == Some(name))
            {
                parts.push(lowered(e));
            }
        }
    }

    fn hover_tool(
        &mut self,
        uri: &Uri,
        view: &View,
        occ: &Occ,
        name: &str,
        parts: &mut Vec<String>,
    ) {
        let shown = crate::text::escape(name);
        let mut head = format!("tool `{shown}`");
        let decl = view
            .occs
            .iter()
            .find(|o| o.role == Role::ToolDecl && o.name == name)
            .map(|o| quote(&view.text, o.stmt))
            .or_else(|| {
                view.included.iter().find_map(|inc| {
                    outline::occurrences(&inc.file)
                        .into_iter()
                        .find(|o| o.role == Role::ToolDecl && o.name == name)
                        .map(|o| quote(&inc.source.text, o.stmt))
                })
            });
        if let Some(d) = decl {
            head.push_str(&format!(", declared as\n\n{}", code_block("toolspec", &d)));
        }
        parts.push(head);
        if occ.role == Role::ToolUse {
            if let Some(check) = self.lowered_at(uri, view, occ.span.start) {
                parts.push(check);
            }
        }
        let seen = self.seen(uri, view);
        match seen.tools.get(name) {
            Some(t) => {
                let mut s = format!(
                    "In the transcripts this spec's globs match: {} call{} in {} of {} file{}.",
                    t.calls,
                    if t.calls == 1 { "" } else { "s" },
                    t.files,
                    seen.files,
                    if seen.files == 1 { "" } else { "s" },
                );
                if let Some(d) = &t.description {
                    s.push_str(&format!("\n\n{}", crate::text::escape_markdown(d)));
                }
                if let Some(schema) = &t.schema {
                    let pretty = crate::text::json::to_string_pretty(schema).unwrap_or_default();
                    s.push_str(&format!(
                        "\n\nDeclared parameters:\n\n{}",
                        code_block("json", &pretty)
                    ));
                }
                parts.push(s);
            }
            None if seen.files > 0 => parts.push(format!(
                "No call of it in the {} transcript file{} this spec's globs match.",
                seen.files,
                if seen.files == 1 { "" } else { "s" }
            )),
            None => {}
        }
    }

    /// The lowered check of the expectation written around byte `at`, as `toolspec compile`
    /// shows it.
    fn lowered_at(&mut self, uri: &Uri, view: &View, at: usize) -> Option<String> {
        let (config, _) = self.compiled(uri, view)?;
        let e = config
            .expectations
            .iter()
            .filter(|e| e.span.start <= at && at <= e.span.end)
            .min_by_key(|e| e.span.len())?;
        Some(lowered(e))
    }

    /// The document's specs, their labelled expectations, and its tool declarations.
    pub(crate) fn symbols(&mut self, uri: &Uri) -> Option<DocumentSymbolResponse> {
        let view = self.view(uri, 0, false)?;
        let file = view.file.as_ref()?;
        let lines = Lines::new(&view.text);
        let range = |s: Span| lines.range(&view.text, s, self.enc);
        let mut out = Vec::new();
        #[allow(deprecated)]
        for (i, item) in file.items.iter().enumerate() {
            match item {
                Item::Tool(t) => out.push(DocumentSymbol {
                    name: t.name.name.clone(),
                    detail: Some("tool".to_owned()),
                    kind: SymbolKind::FUNCTION,
                    tags: None,
                    deprecated: None,
                    range: range(t.span),
                    selection_range: range(t.name.span),
                    children: None,
                }),
                Item::Spec(s) => {
                    let mut children = Vec::new();
                    for o in &view.occs {
                        if o.role == Role::LabelDef && o.spec == Some(i) {
                            children.push(DocumentSymbol {
                                name: o.name.clone(),
                                detail: o.tool.as_ref().map(|t| format!("call {t}")),
                                kind: SymbolKind::FIELD,
                                tags: None,
                                deprecated: None,
                                range: range(o.stmt),
                                selection_range: range(o.span),
                                children: None,
                            });
                        }
                    }
                    out.push(DocumentSymbol {
                        name: s.name.name.clone(),
                        detail: Some("spec".to_owned()),
                        kind: SymbolKind::NAMESPACE,
                        tags: None,
                        deprecated: None,
                        range: range(s.span),
                        selection_range: range(s.name.span),
                        children: Some(children),
                    });
                }
                Item::Include(_) | Item::Unknown(_) => {}
            }
        }
        Some(DocumentSymbolResponse::Nested(out))
    }
}

/// An expectation's lowered check, as `toolspec compile` prints it.
fn lowered(e: &crate::config::Expectation) -> String {
    let json = crate::text::json::to_string_pretty(e).unwrap_or_default();
    format!(
        "Lowered check (`toolspec compile`):\n\n{}",
        code_block("json", &json)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_has_a_hover_that_names_it() {
        for k in Keyword::ALL {
            assert!(keyword_doc(*k).contains(k.as_str()), "{k}");
        }
    }

    #[test]
    fn code_blocks_outlast_the_backquotes_inside() {
        assert_eq!(code_block("json", "{}"), "```json\n{}\n```");
        assert!(code_block("", "a ```` b").starts_with("`````\n"));
    }
}
