//! `toolspec.toml`: project settings found by walking up from the working directory.
//!
//! ```toml
//! # Transcript globs for specs that name none, relative to each spec file's folder.
//! # `{stem}` is the spec file's name without extension, `{spec}` the spec's name.
//! transcripts = ["runs/{stem}/*.jsonl"]
//! # Paths never checked (globs relative to this file's folder).
//! exclude = ["vendor/**", "**/fixtures/broken/**"]
//! # Profile for specs that choose none (a name, or a table with `name` and options).
//! profile = "deepeval"
//!
//! # Transcript format overrides, by glob relative to this file's folder.
//! [formats]
//! "logs/**/*.log" = "mcp_jsonrpc"
//!
//! # A custom mapping: JSONPath expressions for a log no built-in reader knows.
//! [formats.events]
//! files = ["runs/**/*.json"]
//! calls = "$.events[?@.kind == 'tool']"
//! name = "$.tool.fn"
//! ```
//!
//! Paths in the file are relative to the file's own folder, never to the working directory.
//!
//! A repository's settings never widen what is read or run: `allow_outside_root = true` and a
//! profile's `judge` are errors that name the command-line flag to use instead. The file is read
//! through the root guard ([`crate::guard`]): a regular file of at most
//! [`crate::guard::SETTINGS_LIMIT`] bytes, and a discovered one must resolve inside its own
//! folder (a committed `toolspec.toml` linking elsewhere is refused).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::Profile;
use crate::guard::RootGuard;
use crate::transcript::mapping::{Mapping, MappingQuery, ResultsMapping};

/// File names looked for, in order, in each folder while walking up.
pub const SETTINGS_FILES: &[&str] = &["toolspec.toml", ".toolspec.toml"];

/// Project settings, as written in `toolspec.toml` (all optional).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Default transcript globs for specs that name none.
    #[serde(default)]
    pub transcripts: Vec<String>,
    /// Globs of paths never checked.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Default profile for specs that choose none.
    #[serde(default)]
    pub profile: Option<ProfileSetting>,
    /// Transcript format by glob (`"glob" = "reader"`), and custom mappings by name
    /// (`[formats.NAME]` tables).
    #[serde(default)]
    pub formats: BTreeMap<String, FormatSetting>,
    /// Only `false` is accepted: leaving the project root is the command line's choice
    /// (`--allow-outside-root`), never a repository's.
    #[serde(default)]
    pub allow_outside_root: bool,
    /// `[rules]`: which built-in rules apply, and their options (`docs/rules.md`).
    #[serde(default)]
    pub rules: RulesSetting,
    /// `[guard]`: what `toolspec guard` enforces while an agent runs (`docs/guard.md`).
    #[serde(default)]
    pub guard: GuardSetting,
}

/// `[guard]`: the specs `toolspec guard` enforces, and where it keeps its journals.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardSetting {
    /// Spec files, relative to the settings file's folder (`--spec` replaces them).
    #[serde(default)]
    pub specs: Vec<String>,
    /// Only the specs of these names among those files (default: every spec of the files;
    /// `--spec-name` replaces them).
    #[serde(default)]
    pub names: Vec<String>,
    /// The state folder, relative to the settings file's folder (default `.toolspec/guard`;
    /// `--state` replaces it).
    #[serde(default)]
    pub state: Option<String>,
}

/// `[rules]`: which built-in rules apply (`select`, `ignore`: rule codes), and per-rule options
/// (`[rules.repeated-call]`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSetting {
    /// Only these rules (default: every rule on by default).
    #[serde(default)]
    pub select: Option<Vec<toml::Spanned<String>>>,
    /// Not these rules.
    #[serde(default)]
    pub ignore: Vec<toml::Spanned<String>>,
    /// `[rules.repeated-call]`.
    #[serde(default, rename = "repeated-call")]
    pub repeated_call: Option<RepeatedCallSetting>,
}

/// `[rules.repeated-call]`: its options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatedCallSetting {
    /// How many identical calls in a row make a loop (at least 2).
    pub count: toml::Spanned<i64>,
}

/// What `[rules]` chose, checked: rule codes and options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleChoice {
    /// `select`, if given.
    pub select: Option<Vec<crate::code::Code>>,
    /// `ignore`.
    pub ignore: Vec<crate::code::Code>,
    /// `[rules.repeated-call] count`.
    pub repeat_count: usize,
}

impl Default for RuleChoice {
    fn default() -> Self {
        RuleChoice {
            select: None,
            ignore: Vec::new(),
            repeat_count: crate::rules::DEFAULT_REPEAT_COUNT,
        }
    }
}

impl RuleChoice {
    /// The rules that apply, with `select` and `ignore` of the command line (`select` replaces
    /// the settings' own; `ignore` adds to theirs).
    pub fn rule_set(
        &self,
        select: Option<&[crate::code::Code]>,
        ignore: &[crate::code::Code],
    ) -> crate::rules::RuleSet {
        let mut set = crate::rules::RuleSet::default();
        if let Some(codes) = select.or(self.select.as_deref()) {
            set = set.select(codes);
        }
        set = set.ignore(&self.ignore).ignore(ignore);
        set.repeat_count = self.repeat_count;
        set
    }
}

impl RulesSetting {
    /// The codes and options, or the byte range of the first wrong value and what is wrong.
    pub fn check(&self) -> Result<RuleChoice, (std::ops::Range<usize>, String)> {
        let code = |key: &str, v: &toml::Spanned<String>| {
            crate::rules::Rule::named(v.get_ref())
                .map(|r| r.code)
                .ok_or_else(|| {
                    (
                        v.span(),
                        format!(
                            "rules.{key}: `{}` is not a rule (`toolspec rules` lists them: {})",
                            v.get_ref(),
                            rule_names()
                        ),
                    )
                })
        };
        let select = match &self.select {
            Some(list) => Some(
                list.iter()
                    .map(|v| code("select", v))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        };
        let ignore = self
            .ignore
            .iter()
            .map(|v| code("ignore", v))
            .collect::<Result<Vec<_>, _>>()?;
        let repeat_count = match &self.repeated_call {
            Some(r) => {
                let n = *r.count.get_ref();
                usize::try_from(n)
                    .ok()
                    .filter(|&n| n >= 2)
                    .ok_or_else(|| {
                        (
                            r.count.span(),
                            format!(
                                "rules.repeated-call.count: {n} is not a count of repeated calls (2 or more)"
                            ),
                        )
                    })?
            }
            None => crate::rules::DEFAULT_REPEAT_COUNT,
        };
        Ok(RuleChoice {
            select,
            ignore,
            repeat_count,
        })
    }
}

/// Every rule's code, for messages.
pub fn rule_names() -> String {
    crate::rules::RULES
        .iter()
        .map(|r| r.code.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One entry of `[formats]`: a reader for the files a glob matches, or a custom mapping.
#[derive(Debug, Clone, PartialEq)]
pub enum FormatSetting {
    /// `"glob" = "reader-name"`.
    Reader(String),
    /// `[formats.NAME]`: a custom mapping.
    Mapping(Box<MappingSetting>),
}

impl<'de> Deserialize<'de> for FormatSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = FormatSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a reader name (`\"glob\" = \"openai-chat\"`) or a mapping table (`[formats.NAME]` with `calls` and `name`)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FormatSetting, E> {
                Ok(FormatSetting::Reader(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<FormatSetting, A::Error> {
                MappingSetting::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|m| FormatSetting::Mapping(Box::new(m)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `[formats.NAME]` table: JSONPath expressions (RFC 9535) saying where a log keeps its calls.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MappingSetting {
    /// Globs of the transcript files read with this mapping (relative to this file's folder).
    #[serde(default)]
    pub files: Vec<toml::Spanned<String>>,
    /// Selects the call nodes.
    pub calls: toml::Spanned<QuerySetting>,
    /// The tool name, relative to a call node.
    pub name: toml::Spanned<QuerySetting>,
    /// The arguments (a JSON string is parsed), relative to a call node.
    #[serde(default)]
    pub arguments: Option<toml::Spanned<QuerySetting>>,
    /// The call id, relative to a call node.
    #[serde(default)]
    pub id: Option<toml::Spanned<QuerySetting>>,
    /// The output, relative to a call node.
    #[serde(default)]
    pub output: Option<toml::Spanned<QuerySetting>>,
    /// The error flag, relative to a call node.
    #[serde(default)]
    pub error: Option<toml::Spanned<QuerySetting>>,
    /// Results recorded apart from their calls.
    #[serde(default)]
    pub results: Option<ResultsSetting>,
}

/// `[formats.NAME.results]`: results recorded apart from their calls, linked by id.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsSetting {
    /// Selects the result nodes.
    pub path: toml::Spanned<QuerySetting>,
    /// The id of the call a result answers, relative to a result node.
    pub id: toml::Spanned<QuerySetting>,
    /// The output, relative to a result node.
    #[serde(default)]
    pub output: Option<toml::Spanned<QuerySetting>>,
    /// The error flag, relative to a result node.
    #[serde(default)]
    pub error: Option<toml::Spanned<QuerySetting>>,
}

impl MappingSetting {
    /// Compile the mapping named `name`; an error gives the byte range of the offending value
    /// in the settings text and what is wrong.
    pub fn compile(&self, name: &str) -> Result<Mapping, (std::ops::Range<usize>, String)> {
        let path = |key: &str, v: &toml::Spanned<QuerySetting>| {
            let key = format!("formats.{name}.{key}");
            match v.get_ref() {
                QuerySetting::One(text) => MappingQuery::new(&key, &[text])
                    .map_err(|(_, e)| (v.span(), format!("{key}: {e}"))),
                QuerySetting::Steps(steps) => {
                    let texts: Vec<&str> = steps.iter().map(|s| s.get_ref().as_str()).collect();
                    MappingQuery::new(&key, &texts).map_err(|(i, e)| {
                        let span = steps.get(i).map_or(v.span(), toml::Spanned::span);
                        let key = if steps.len() > 1 {
                            format!("{key}[{i}]")
                        } else {
                            key.clone()
                        };
                        (span, format!("{key}: {e}"))
                    })
                }
            }
        };
        let opt = |key: &str, v: &Option<toml::Spanned<QuerySetting>>| {
            v.as_ref().map(|v| path(key, v)).transpose()
        };
        for f in &self.files {
            if let Err(e) = globset::GlobBuilder::new(f.get_ref())
                .literal_separator(true)
                .build()
            {
                return Err((
                    f.span(),
                    format!(
                        "formats.{name}.files: `{}` is not a valid glob: {}",
                        f.get_ref(),
                        e.kind()
                    ),
                ));
            }
        }
        let results = match &self.results {
            None => None,
            Some(r) => Some(ResultsMapping {
                path: path("results.path", &r.path)?,
                id: path("results.id", &r.id)?,
                output: opt("results.output", &r.output)?,
                error: opt("results.error", &r.error)?,
            }),
        };
        Ok(Mapping {
            name: name.to_owned(),
            files: self.files.iter().map(|f| f.get_ref().clone()).collect(),
            calls: path("calls", &self.calls)?,
            tool: path("name", &self.name)?,
            arguments: opt("arguments", &self.arguments)?,
            id: opt("id", &self.id)?,
            output: opt("output", &self.output)?,
            error: opt("error", &self.error)?,
            results,
        })
    }
}

/// A query of a mapping: one JSONPath expression, or a list of them where each after the first
/// runs on the JSON text held in the strings the one before selects.
#[derive(Debug, Clone, PartialEq)]
pub enum QuerySetting {
    /// `calls = "$.events[*]"`.
    One(String),
    /// `calls = ["$.entries[*].body", "$.calls[*]"]`.
    Steps(Vec<toml::Spanned<String>>),
}

impl<'de> Deserialize<'de> for QuerySetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = QuerySetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSONPath expression, or a list of them (each after the first reads the JSON text held in the strings the one before selects)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<QuerySetting, E> {
                Ok(QuerySetting::One(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<QuerySetting, A::Error> {
                let mut steps = Vec::new();
                while let Some(s) = seq.next_element::<toml::Spanned<String>>()? {
                    steps.push(s);
                }
                Ok(QuerySetting::Steps(steps))
            }
        }
        d.deserialize_any(V)
    }
}

/// A profile in settings: a bare name or a table `{ name = "...", ...options }`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ProfileSetting {
    /// Just the name; the profile's default options.
    Name(String),
    /// Name and options.
    Table(BTreeMap<String, toml::Value>),
}

impl ProfileSetting {
    /// Resolve into a [`Profile`], or explain what is wrong.
    pub fn resolve(&self) -> Result<Profile, String> {
        let (name, options) = match self {
            ProfileSetting::Name(n) => (n.clone(), serde_json::Map::new()),
            ProfileSetting::Table(t) => {
                let name = match t.get("name") {
                    Some(toml::Value::String(s)) => s.clone(),
                    _ => return Err("a profile table needs `name = \"...\"`".into()),
                };
                let mut options = serde_json::Map::new();
                for (k, v) in t.iter().filter(|(k, _)| k.as_str() != "name") {
                    let json = serde_json::to_value(v).map_err(|e| e.to_string())?;
                    options.insert(k.clone(), json);
                }
                (name, options)
            }
        };
        Profile::from_options(&name, options).map_err(|e| e.to_string())
    }
}

/// Settings together with where they were found.
#[derive(Debug, Clone, Default)]
pub struct LoadedSettings {
    /// The settings file, if one was used.
    pub path: Option<PathBuf>,
    /// The folder paths in the settings are relative to (the file's folder, or the start folder).
    pub root: PathBuf,
    /// The settings (defaults when no file was used).
    pub settings: Settings,
    /// The custom mappings of `[formats.NAME]` tables, compiled, in name order.
    pub mappings: Vec<std::sync::Arc<Mapping>>,
    /// `[rules]`, checked.
    pub rules: RuleChoice,
}

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SettingsError {
    /// The file could not be read.
    #[error("cannot read {path}: {cause}")]
    #[diagnostic(
        code(toolspec::settings::io),
        help("check that the settings file exists and is readable (a --config path is relative to the working folder)")
    )]
    Io {
        /// The file.
        path: String,
        /// The I/O error (in the message; not a `source`, or renderers would print it twice).
        cause: std::io::Error,
    },
    /// The file is not valid settings.
    #[error("invalid settings in {path}: {message}")]
    #[diagnostic(
        code(toolspec::settings::invalid),
        help("see `toolspec check --help` and docs/cli.md for the keys of toolspec.toml")
    )]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong (with line and column from the TOML parser).
        message: String,
    },
    /// A key or value in the file is wrong (TOML syntax, an unknown key, a custom mapping's
    /// JSONPath or glob), at its line and column.
    #[error("{path}:{line}:{col}: {message}")]
    #[diagnostic(
        code(toolspec::settings::invalid),
        help("see docs/cli.md for the keys of toolspec.toml, docs/formats.md (Custom mappings) for a `[formats.NAME]` table; JSONPath follows RFC 9535")
    )]
    Located {
        /// The file.
        path: String,
        /// 1-based line of the value.
        line: usize,
        /// 1-based column of the value.
        col: usize,
        /// What is wrong.
        message: String,
        /// The settings text.
        #[source_code]
        src: miette::NamedSource<String>,
        /// The offending value.
        #[label("here")]
        span: miette::SourceSpan,
    },
}

impl SettingsError {
    /// The same error, naming the file `shown` (and its snippet too).
    fn shown_as(self, shown: String) -> Self {
        match self {
            SettingsError::Io { cause, .. } => SettingsError::Io { path: shown, cause },
            SettingsError::Invalid { message, .. } => SettingsError::Invalid {
                path: shown,
                message,
            },
            SettingsError::Located {
                line,
                col,
                message,
                src,
                span,
                ..
            } => SettingsError::Located {
                src: miette::NamedSource::new(shown.clone(), src.inner().clone()),
                path: shown,
                line,
                col,
                message,
                span,
            },
        }
    }
}

/// A glob of the settings rooted at `root` (the settings file's folder): how every path
/// pattern of toolspec.toml is matched.
pub fn rooted_glob(root: &Path, pattern: &str) -> Result<globset::Glob, globset::Error> {
    let full = format!(
        "{}/{}",
        globset::escape(&root.to_string_lossy()),
        pattern.trim_start_matches("./")
    );
    globset::GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
}

// A settings error carries the file's text for its snippet; it is built at most once a run.
#[allow(clippy::result_large_err)]
impl LoadedSettings {
    /// The first custom mapping (in name order) whose `files` match `path` (relative paths are
    /// taken from the working folder).
    pub fn mapping_for(&self, path: &Path) -> Option<&std::sync::Arc<Mapping>> {
        let root = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.mappings.iter().find(|m| {
            m.files
                .iter()
                .any(|f| rooted_glob(&root, f).is_ok_and(|g| g.compile_matcher().is_match(&path)))
        })
    }

    /// Parse settings text; `path` names the file in errors and gives the root folder.
    pub fn parse(path: &Path, text: &str) -> Result<LoadedSettings, SettingsError> {
        let located = |range: std::ops::Range<usize>, message: String| {
            let at = crate::source::LineIndex::new(text.as_bytes())
                .line_col(text.as_bytes(), range.start);
            SettingsError::Located {
                path: path.display().to_string(),
                line: at.line,
                col: at.col,
                message,
                src: miette::NamedSource::new(path.display().to_string(), text.to_owned()),
                span: (range.start, range.len()).into(),
            }
        };
        let settings: Settings = toml::from_str(text).map_err(|e| match e.span() {
            // Located at the offending key or value, with the TOML parser's own message.
            Some(range) => located(range, e.message().trim_end().to_owned()),
            None => SettingsError::Invalid {
                path: path.display().to_string(),
                message: e.to_string().trim_end().to_owned(),
            },
        })?;
        if settings.allow_outside_root {
            return Err(SettingsError::Invalid {
                path: path.display().to_string(),
                message: "`allow_outside_root = true` is not accepted in a settings file: a repository cannot widen what toolspec reads; pass --allow-outside-root on the command line instead".into(),
            });
        }
        if let Some(p) = &settings.profile {
            p.resolve().map_err(|message| SettingsError::Invalid {
                path: path.display().to_string(),
                message: format!("profile: {message}"),
            })?;
        }
        let rules = settings
            .rules
            .check()
            .map_err(|(range, message)| located(range, message))?;
        let mut mappings = Vec::new();
        for (name, entry) in &settings.formats {
            let FormatSetting::Mapping(m) = entry else {
                continue;
            };
            let mapping = m
                .compile(name)
                .map_err(|(range, message)| located(range, message))?;
            mappings.push(std::sync::Arc::new(mapping));
        }
        // `--config toolspec.toml` has the empty parent "": that is the working folder.
        let root = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Ok(LoadedSettings {
            path: Some(path.to_path_buf()),
            root,
            settings,
            mappings,
            rules,
        })
    }

    /// Read settings from an explicit file (a regular file of at most
    /// [`crate::guard::SETTINGS_LIMIT`] bytes, wherever it is).
    pub fn load(path: &Path) -> Result<LoadedSettings, SettingsError> {
        Self::load_guarded(path, &RootGuard::anywhere())
    }

    fn load_guarded(path: &Path, guard: &RootGuard) -> Result<LoadedSettings, SettingsError> {
        let text = guard
            .read_text(path, crate::guard::SETTINGS_LIMIT)
            .map_err(|e| SettingsError::Io {
                path: path.display().to_string(),
                cause: e.into(),
            })?;
        Self::parse(path, &text)
    }

    /// Walk up from `start` to the first folder holding a settings file and load it; with none,
    /// defaults rooted at the nearest folder holding `.git`, else at `start`. The root is the
    /// one [`project_root`] finds.
    pub fn discover(start: &Path) -> Result<LoadedSettings, SettingsError> {
        match settings_file(start) {
            Some((up, dir, name)) => {
                // Errors name the file relative to `start` (`toolspec.toml`,
                // `../toolspec.toml`), as reports name every other file.
                let shown = format!("{}{name}", "../".repeat(up));
                Self::load_guarded(&dir.join(name), &RootGuard::new(dir))
                    .map_err(|e| e.shown_as(shown))
            }
            None => Ok(Self::defaults(start)),
        }
    }

    /// The settings of the project rooted at `root`, as a caller states it (the Python
    /// module's `root=`): the settings file in `root` itself if there is one (through the
    /// guard of `root`), else defaults rooted at `root`. Nothing above `root` is looked at:
    /// the root stays the one stated.
    pub fn at_root(root: &Path) -> Result<LoadedSettings, SettingsError> {
        for name in SETTINGS_FILES {
            let candidate = root.join(name);
            if candidate.symlink_metadata().is_ok() {
                return Self::load_guarded(&candidate, &RootGuard::new(root))
                    .map_err(|e| e.shown_as(candidate.display().to_string()));
            }
        }
        Ok(LoadedSettings {
            root: root.to_path_buf(),
            ..LoadedSettings::default()
        })
    }

    /// Default settings rooted at the repository containing `start` (or `start` itself).
    pub fn defaults(start: &Path) -> LoadedSettings {
        LoadedSettings {
            path: None,
            root: repository_root(start),
            settings: Settings::default(),
            mappings: Vec::new(),
            rules: RuleChoice::default(),
        }
    }
}

/// The first settings file found walking up from `start`: how many folders up, its folder,
/// its name. Whatever it is (a link, a FIFO): the guard decides when it is read, and says why
/// not.
fn settings_file(start: &Path) -> Option<(usize, &Path, &'static str)> {
    start.ancestors().enumerate().find_map(|(up, dir)| {
        SETTINGS_FILES
            .iter()
            .find(|name| dir.join(name).symlink_metadata().is_ok())
            .map(|name| (up, dir, *name))
    })
}

/// The nearest folder from `start` up holding `.git`, else `start`.
fn repository_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// The project root of the working folder `start`, as `toolspec check` finds it without
/// reading the settings: the folder of the first `toolspec.toml` (or `.toolspec.toml`) from
/// `start` up, else the enclosing git repository, else `start`. The commands that read no
/// settings (`compile`, `fmt`, `calls`, `init`) guard what they read with it, so they refuse
/// what `check` refuses.
pub fn project_root(start: &Path) -> PathBuf {
    match settings_file(start) {
        Some((_, dir, _)) => dir.to_path_buf(),
        None => repository_root(start),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key() {
        let text = r#"
transcripts = ["runs/{stem}/*.jsonl"]
exclude = ["vendor/**"]
profile = { name = "axion", strict_order = true }
allow_outside_root = false
[formats]
"logs/**/*.log" = "mcp_jsonrpc"
"#;
        let loaded = LoadedSettings::parse(Path::new("proj/toolspec.toml"), text).unwrap();
        assert_eq!(loaded.root, Path::new("proj"));
        let s = &loaded.settings;
        assert_eq!(s.transcripts, ["runs/{stem}/*.jsonl"]);
        assert_eq!(s.exclude, ["vendor/**"]);
        assert!(!s.allow_outside_root);
        let err = LoadedSettings::parse(Path::new("t.toml"), "allow_outside_root = true")
            .unwrap_err()
            .to_string();
        assert!(err.contains("--allow-outside-root"), "{err}");
        let err = LoadedSettings::parse(
            Path::new("t.toml"),
            "profile = { name = \"deepeval\", judge = \"touch x\" }",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("--judge"), "{err}");
        assert_eq!(
            s.formats["logs/**/*.log"],
            FormatSetting::Reader("mcp_jsonrpc".into())
        );
        let profile = s.profile.as_ref().unwrap().resolve().unwrap();
        assert_eq!(profile.name(), "axion");
    }

    #[test]
    fn rejects_unknown_keys_and_bad_profiles_with_the_file_name() {
        let err = LoadedSettings::parse(Path::new("t.toml"), "transcript = []").unwrap_err();
        assert!(err.to_string().contains("t.toml"), "{err}");
        assert!(err.to_string().contains("transcript"), "{err}");
        let err = LoadedSettings::parse(Path::new("t.toml"), "profile = \"axon\"").unwrap_err();
        assert!(err.to_string().contains("unknown profile"), "{err}");
    }

    #[test]
    fn a_bare_file_name_is_rooted_at_the_working_folder() {
        let loaded = LoadedSettings::parse(Path::new("alt.toml"), "exclude = [\"x\"]").unwrap();
        assert_eq!(loaded.root, Path::new("."));
        let loaded = LoadedSettings::parse(Path::new("cfg/alt.toml"), "").unwrap();
        assert_eq!(loaded.root, Path::new("cfg"));
    }

    #[test]
    fn discovery_walks_up_to_the_nearest_file() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(dir.path().join("a/toolspec.toml"), "exclude = [\"x\"]").unwrap();
        let loaded = LoadedSettings::discover(&nested).unwrap();
        assert_eq!(loaded.root, dir.path().join("a"));
        assert_eq!(loaded.settings.exclude, ["x"]);
        let none = LoadedSettings::discover(dir.path()).unwrap();
        assert!(none.path.is_none());
    }

    /// `project_root` is the root `discover` (and `defaults`) give, without reading the file;
    /// `at_root` keeps the root stated, never looking above it.
    #[test]
    fn the_project_root_is_found_once_and_a_stated_root_kept() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("repo/a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        assert_eq!(project_root(&nested), dir.path().join("repo"));
        assert_eq!(
            LoadedSettings::discover(&nested).unwrap().root,
            project_root(&nested)
        );
        // A broken settings file: its folder is the root all the same.
        std::fs::write(dir.path().join("repo/a/toolspec.toml"), "not = [toml").unwrap();
        assert_eq!(project_root(&nested), dir.path().join("repo/a"));
        assert!(LoadedSettings::discover(&nested).is_err());
        // A stated root: its own file, or defaults rooted there, never the file above it.
        let stated = LoadedSettings::at_root(&nested).unwrap();
        assert_eq!(stated.root, nested);
        assert!(stated.path.is_none());
        std::fs::write(nested.join("toolspec.toml"), "exclude = [\"x\"]").unwrap();
        let stated = LoadedSettings::at_root(&nested).unwrap();
        assert_eq!(stated.settings.exclude, ["x"]);
        assert_eq!(stated.root, nested);
    }
}
