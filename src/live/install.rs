//! `toolspec guard install claude-code`: the guard's hook entries merged into a Claude Code
//! settings file (`.claude/settings.json`).
//!
//! Input: the file's text (if it exists) and the hook command. Output: the new text and what
//! changed per event. Merging: every entry already there is kept as it is, in its place; an
//! event with an entry that runs `toolspec guard claude-code` has it set to this command (so a
//! second install with other `--spec` updates rather than duplicates); an event without one
//! gains an entry at the end. Installing twice changes nothing (the text is returned as it was).
//! Keys keep their order (serde_json's `preserve_order`); the file is rewritten with two-space
//! indentation. A file that is not a JSON object, or whose `hooks` are not shaped as Claude Code
//! reads them, is an error and is not touched.

use serde_json::{json, Map, Value};

/// The events the guard hooks, and whether each takes a tool-name matcher.
pub const EVENTS: &[(&str, bool)] = &[
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("PostToolUseFailure", true),
    ("Stop", false),
    ("SubagentStop", false),
];

/// What a command of the guard starts with.
pub const COMMAND: &str = "toolspec guard claude-code";

/// What installing did to one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// An entry was added.
    Added,
    /// The guard's entry was there with another command, now this one.
    Updated,
    /// The guard's entry was there already, as it is.
    Kept,
}

/// The merged settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// The new text of the file (the old text itself when nothing changed).
    pub text: String,
    /// Per event, what changed.
    pub changes: Vec<(&'static str, Change)>,
}

impl Installed {
    /// Whether the file changes.
    pub fn changed(&self) -> bool {
        self.changes.iter().any(|(_, c)| *c != Change::Kept)
    }
}

/// The hook command: `toolspec guard claude-code` with each spec file and spec name, quoted
/// for the shell Claude Code runs it with where needed.
pub fn command(specs: &[String], names: &[String]) -> String {
    let mut out = COMMAND.to_owned();
    for s in specs {
        out.push_str(" --spec ");
        out.push_str(&quote(s));
    }
    for n in names {
        out.push_str(" --spec-name ");
        out.push_str(&quote(n));
    }
    out
}

/// `s` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-:=@%+,".contains(c));
    if safe {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Merge the guard's hooks running `command` into the settings `existing` (`None`: no file).
pub fn install(existing: Option<&str>, command: &str) -> Result<Installed, String> {
    let mut root: Value = match existing {
        Some(text) if !text.trim().is_empty() => {
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?
        }
        _ => Value::Object(Map::new()),
    };
    let Some(obj) = root.as_object_mut() else {
        return Err("not a JSON object".to_owned());
    };
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err("`hooks` is not an object".to_owned());
    };
    let mut changes = Vec::new();
    for &(event, matcher) in EVENTS {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(format!("`hooks.{event}` is not an array"));
        };
        let mut change = None;
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            for h in list.iter_mut() {
                let Some(c) = h.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if c == command {
                    change = Some(Change::Kept);
                } else if is_ours(c) && change.is_none() {
                    h["command"] = Value::String(command.to_owned());
                    change = Some(Change::Updated);
                }
            }
        }
        let change = change.unwrap_or_else(|| {
            let hook = json!({"type": "command", "command": command});
            groups.push(if matcher {
                json!({"matcher": "*", "hooks": [hook]})
            } else {
                json!({"hooks": [hook]})
            });
            Change::Added
        });
        changes.push((event, change));
    }
    let mut installed = Installed {
        text: String::new(),
        changes,
    };
    installed.text = match existing {
        Some(text) if !installed.changed() => text.to_owned(),
        _ => serde_json::to_string_pretty(&root).map_err(|e| e.to_string())? + "\n",
    };
    Ok(installed)
}

/// Whether a hook command is the guard's (`toolspec guard claude-code …`, by any path to
/// `toolspec`).
fn is_ours(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let first = words.next().unwrap_or("");
    (first == "toolspec" || first.ends_with("/toolspec"))
        && words.next() == Some("guard")
        && words.next() == Some("claude-code")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_what_the_shell_would_split() {
        assert_eq!(
            command(&["specs/a.toolspec".into()], &[]),
            "toolspec guard claude-code --spec specs/a.toolspec"
        );
        assert_eq!(
            command(&["my specs/it's.toolspec".into()], &["fix".into()]),
            r"toolspec guard claude-code --spec 'my specs/it'\''s.toolspec' --spec-name fix"
        );
        assert_eq!(quote("$(rm -rf x)"), "'$(rm -rf x)'");
    }

    #[test]
    fn installing_merges_keeps_others_and_is_idempotent() {
        let theirs = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    ]
  }
}"#;
        let cmd = command(&["a.toolspec".into()], &[]);
        let first = install(Some(theirs), &cmd).unwrap();
        assert!(first.changed());
        assert!(first.changes.iter().all(|(_, c)| *c == Change::Added));
        let v: Value = serde_json::from_str(&first.text).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "./lint.sh"
        );
        assert_eq!(
            v["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
            cmd.as_str()
        );
        assert!(v["hooks"]["Stop"][0].get("matcher").is_none());
        // Keys keep their order.
        assert!(first.text.find("\"model\"") < first.text.find("\"hooks\""));
        let second = install(Some(&first.text), &cmd).unwrap();
        assert!(!second.changed());
        assert_eq!(second.text, first.text);
        // Another spec: the guard's entries are updated, not doubled.
        let other = command(&["b.toolspec".into()], &[]);
        let third = install(Some(&first.text), &other).unwrap();
        assert!(third.changes.iter().all(|(_, c)| *c == Change::Updated));
        let v: Value = serde_json::from_str(&third.text).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert!(install(None, &cmd).unwrap().changed());
        for bad in ["[1]", "{\"hooks\": 3}", "{\"hooks\": {\"Stop\": {}}}", "{"] {
            assert!(install(Some(bad), &cmd).is_err(), "{bad}");
        }
    }
}
