//! Live enforcement: the specs that check recorded runs, enforced while an agent runs
//! (`toolspec guard claude-code`, `docs/guard.md`). Not [`crate::guard`], the root guard that
//! decides which files toolspec may read.
//!
//! A hook process is stateless, so the guard keeps a journal per session ([`journal`]) and
//! judges each event ([`event`]) on it with the one verdict of a run that may go on
//! ([`decide`], through `toolspec check --partial`'s path). The library decides (event +
//! journal → decision, lines to journal, answer); it never prints, spawns, reads the
//! environment or touches the state folder: the command line reads standard input, locks and
//! writes the journal, and prints the [`Response`]. [`install`] merges the hook entries into a
//! Claude Code settings file.

pub mod decide;
pub mod event;
pub mod install;
pub mod journal;

pub use decide::{decide, Decision, Outcome, Specs, MAX_STOP_BLOCKS};
pub use event::{journal_file_name, Event, Kind};

use serde_json::json;

/// What the hook process answers Claude Code: standard output, standard error, exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Standard output (JSON, or nothing).
    pub stdout: String,
    /// Standard error (a message, or nothing).
    pub stderr: String,
    /// The exit code: 0, 2 (blocks a `PreToolUse`, the reason on standard error), 1 (an error
    /// that blocks nothing).
    pub exit: u8,
}

/// Exit code that makes Claude Code block the call (`PreToolUse`), its reason read from
/// standard error.
pub const EXIT_BLOCK: u8 = 2;

/// The answer to an event (`name`: its `hook_event_name`, `None` when it could not be read)
/// with the guard's outcome or the error that kept it from deciding. An error **fails closed**
/// for a `PreToolUse` (and an event that could not be read at all): exit 2, which blocks the
/// call, the reason on standard error. For other events an error is exit 1: said to the user,
/// blocking nothing (a `Stop` the guard cannot judge does not keep the agent going).
pub fn respond(name: Option<&str>, outcome: &Result<Outcome, String>) -> Response {
    let clean = |s: &str| crate::text::escape_keeping_lines(s).into_owned();
    match outcome {
        Err(e) => {
            let closed = name.is_none_or(|n| n == "PreToolUse");
            let stderr = if closed {
                format!("toolspec guard could not decide, so the call is blocked: {e}\n")
            } else {
                format!("toolspec guard: {e}\n")
            };
            Response {
                stdout: String::new(),
                stderr: clean(&stderr),
                exit: if closed { EXIT_BLOCK } else { 1 },
            }
        }
        Ok(o) => {
            let stdout = match &o.decision {
                Decision::None => match &o.note {
                    Some(note) => json!({ "systemMessage": note }).to_string() + "\n",
                    None => String::new(),
                },
                Decision::Deny(reason) => {
                    json!({
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": reason,
                        }
                    })
                    .to_string()
                        + "\n"
                }
                Decision::Block(reason) => {
                    json!({ "decision": "block", "reason": reason }).to_string() + "\n"
                }
            };
            Response {
                stdout,
                stderr: String::new(),
                exit: 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_fail_closed_for_pre_tool_use_only() {
        let e: Result<Outcome, String> = Err("boom\u{1b}[2J".into());
        let r = respond(Some("PreToolUse"), &e);
        assert_eq!(r.exit, EXIT_BLOCK);
        assert!(r.stderr.contains("blocked: boom\\u{1b}[2J"), "{}", r.stderr);
        assert_eq!(respond(None, &e).exit, EXIT_BLOCK);
        assert_eq!(respond(Some("Stop"), &e).exit, 1);
        let deny = Ok(Outcome {
            decision: Decision::Deny("no".into()),
            append: String::new(),
            note: None,
        });
        let r = respond(Some("PreToolUse"), &deny);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(r.exit, 0);
    }
}
