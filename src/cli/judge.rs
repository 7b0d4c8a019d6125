//! The judge command given with `--judge CMD`: the only place toolspec runs a program.
//!
//! The command runs with `sh -c CMD` once per case that asks (see `docs/parity.md` for the
//! protocol): the request on its stdin, its answer read from stdout. It is bounded: past
//! `--judge-timeout` seconds it is killed, and more than [`MAX_ANSWER`] bytes on stdout is a
//! failure (the command is killed too). Any failure is that case's error, never the run's end.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use toolspec::score::profiles::judge::parse_answer;
use toolspec::score::profiles::{Judge, JudgeAnswer, JudgeError, JudgeRequest};

/// The most a judge may print on stdout (an answer is a number or a short object).
pub(crate) const MAX_ANSWER: usize = 64 << 10;
/// The most of a judge's stderr kept for the error message (the rest is read and dropped).
const MAX_STDERR: usize = 4 << 10;
/// The default `--judge-timeout`, in seconds.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

/// A judge command from the command line.
#[derive(Debug, Clone)]
pub(crate) struct CommandJudge {
    command: String,
    timeout: Duration,
}

impl CommandJudge {
    /// The command (run with `sh -c`), killed after `timeout`.
    pub(crate) fn new(command: String, timeout: Duration) -> CommandJudge {
        CommandJudge { command, timeout }
    }
}

/// What a reader thread read: the bytes kept, and whether there was more than the cap.
type Capped = std::io::Result<(Vec<u8>, bool)>;

/// Read `from` to its end, keeping at most `cap` bytes; with `stop_past_cap`, stop reading as
/// soon as there is more (the caller then kills the command).
fn read_capped(mut from: impl Read, cap: usize, stop_past_cap: bool) -> Capped {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    let mut over = false;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok((kept, over)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = cap.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
        if n > room {
            over = true;
            if stop_past_cap {
                return Ok((kept, over));
            }
        }
    }
}

/// Kill the command and everything it started (it leads its own process group).
fn kill_all(child: &mut Child) {
    // `kill -KILL -PGID` reaches the command's children too (a shell's `sleep`), which would
    // otherwise hold its stdout open; best effort, then the command itself.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

impl Judge for CommandJudge {
    fn ask(&self, request: &JudgeRequest<'_, '_>) -> Result<JudgeAnswer, JudgeError> {
        let shown = &self.command;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| JudgeError(format!("cannot run `{shown}`: {e}")))?;
        let deadline = Instant::now() + self.timeout;
        // The request is written, and both outputs read, by threads of their own, so a command
        // that prints before it reads (or never reads) cannot block toolspec.
        if let Some(mut stdin) = child.stdin.take() {
            let body = request.to_json();
            thread::spawn(move || {
                // A judge that exits without reading its input is allowed.
                let _ = stdin.write_all(body.as_bytes());
            });
        }
        let (out_tx, out_rx) = mpsc::channel::<Capped>();
        if let Some(stdout) = child.stdout.take() {
            let tx = out_tx.clone();
            thread::spawn(move || {
                let _ = tx.send(read_capped(stdout, MAX_ANSWER, true));
            });
        }
        let (err_tx, err_rx) = mpsc::channel::<Capped>();
        if let Some(stderr) = child.stderr.take() {
            thread::spawn(move || {
                let _ = err_tx.send(read_capped(stderr, MAX_STDERR, false));
            });
        }
        drop(out_tx);
        // The answer first: a command whose stdout stays open past the deadline, or which
        // prints more than the cap, is killed.
        let left = deadline.saturating_duration_since(Instant::now());
        let stdout = match out_rx.recv_timeout(left) {
            Ok(Ok((bytes, false))) => bytes,
            Ok(Ok((_, true))) => {
                kill_all(&mut child);
                return Err(JudgeError(format!(
                    "`{shown}` printed more than {} KiB on stdout (an answer is a number or {{\"score\", \"reason\"}})",
                    MAX_ANSWER >> 10
                )));
            }
            Ok(Err(e)) => {
                kill_all(&mut child);
                return Err(JudgeError(format!(
                    "cannot read the answer of `{shown}`: {e}"
                )));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Vec::new(),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                kill_all(&mut child);
                return Err(timed_out(shown, self.timeout));
            }
        };
        // Its stdout is closed: wait for it to exit, within what is left of the deadline.
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() >= deadline => {
                    kill_all(&mut child);
                    return Err(timed_out(shown, self.timeout));
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    kill_all(&mut child);
                    return Err(JudgeError(format!("`{shown}` failed: {e}")));
                }
            }
        };
        if !status.success() {
            // Whatever it printed on stderr by now (a child it left running may hold it open).
            let stderr = err_rx
                .recv_timeout(Duration::from_millis(100))
                .ok()
                .and_then(Result::ok)
                .map(|(bytes, _)| String::from_utf8_lossy(&bytes).trim().to_owned())
                .unwrap_or_default();
            return Err(JudgeError(format!(
                "`{shown}` exited with {status}: {stderr}"
            )));
        }
        parse_answer(&String::from_utf8_lossy(&stdout))
    }
}

fn timed_out(shown: &str, timeout: Duration) -> JudgeError {
    JudgeError(format!(
        "`{shown}` gave no answer within {} s (--judge-timeout); it was stopped",
        timeout.as_secs_f64()
    ))
}

/// The judge of `--judge CMD --judge-timeout SECONDS`, if one was given; an unusable timeout is
/// an error message.
pub(crate) fn from_args(
    command: Option<&str>,
    timeout_secs: f64,
) -> Result<Option<CommandJudge>, String> {
    let Some(command) = command else {
        return Ok(None);
    };
    if !(timeout_secs.is_finite() && timeout_secs > 0.0 && timeout_secs <= 86_400.0) {
        return Err(format!(
            "--judge-timeout must be a number of seconds in (0, 86400], got {timeout_secs}"
        ));
    }
    Ok(Some(CommandJudge::new(
        command.to_owned(),
        Duration::from_secs_f64(timeout_secs),
    )))
}
