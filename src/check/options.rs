//! Options of a check: what to check beyond the settings, as the caller gives it.
//!
//! Input: the caller's choices (command-line paths, `--spec`, standard input, the judge, what
//! the caller found in the environment). Output: [`CheckOptions`]. Cannot fail.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::score::profiles;
use crate::transcript::Format;

/// What to check, beyond the settings.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Folders, spec files or transcript files; empty means the current folder.
    pub paths: Vec<PathBuf>,
    /// Let spec globs reach outside the project root.
    pub allow_outside_root: bool,
    /// The judge for DeepEval's tool-selection part (`--judge CMD`; only the command line
    /// gives one).
    pub judge: Option<Arc<dyn profiles::Judge>>,
    /// For `watch`: the last text of each spec file that compiled. A spec that stops compiling
    /// mid-edit is reported and checked in its last good version; every spec that compiles is
    /// remembered here.
    pub last_good: Option<LastGood>,
    /// `--spec FILE`: check the transcripts named in `paths` (and [`Self::stdin`]) against
    /// every spec in this file, whatever its globs say; `paths` then name transcript files only.
    pub spec: Option<PathBuf>,
    /// A transcript read from standard input (`-` on the command line), shown as
    /// [`STDIN_NAME`]; checked against the specs of [`Self::spec`] (no glob names it).
    pub stdin: Option<Arc<[u8]>>,
    /// `--input-format`: read every transcript of the run as this format (over a spec's
    /// `format` and the `[formats]` of the settings).
    pub input_format: Option<Format>,
    /// `--input-format NAME` naming a custom mapping of the settings (`[formats.NAME]`) rather
    /// than a built-in reader: read every transcript of the run with it, standard input
    /// included (over a spec's `format` and the `[formats]` globs).
    pub input_mapping: Option<String>,
    /// The caller found that git's global excludes file cannot apply (no git config file names
    /// an `excludesFile` and the default one does not exist): folders are walked without
    /// looking for it. `false` (the default): the walker looks for it, as git does. The library
    /// does not read the environment (`HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_*`) to find out;
    /// the command line does.
    pub no_git_global_excludes: bool,
    /// Name each file of a walked folder that is passed over — it does not read as a
    /// transcript, or holds no tool call — with why, as a `skipped-file` note (`--strict`,
    /// `-v`); by default such files are passed over without a word.
    pub name_skipped: bool,
    /// `--force-exclude`: files named in `paths` that the settings' `exclude` matches are left
    /// out, as a folder walk leaves them out (by default a file named is checked even so).
    pub force_exclude: bool,
    /// `--whole-rates`: a spec with a `pass_rate` that a transcript named in `paths` brings in
    /// is judged over every transcript its globs name, as a check of its spec file judges it,
    /// not over the transcripts named alone (the pre-commit hooks pass it: a commit that stages
    /// one run of a spec judged at 90 % is judged by the spec's rate over all its runs).
    pub whole_rates: bool,
    /// `--partial`: judge each transcript as the beginning of a run that may go on: each result
    /// says which statements of its spec are violated, pending or met, and passes unless one is
    /// violated (`docs/engine.md`, *Verdicts on an unfinished run*).
    pub partial: bool,
    /// `--select`: only these built-in rules (over the settings' `[rules] select`).
    pub select: Option<Vec<crate::code::Code>>,
    /// `--ignore`: not these built-in rules (besides the settings' `[rules] ignore`).
    pub ignore: Vec<crate::code::Code>,
}

/// How a transcript read from standard input is shown in reports.
pub const STDIN_NAME: &str = "<stdin>";

/// The last text of each spec file that compiled (shared between runs of a watch).
#[derive(Debug, Clone, Default)]
pub struct LastGood(Arc<Mutex<HashMap<PathBuf, String>>>);

impl LastGood {
    /// The last text of `path` that compiled.
    pub(super) fn get(&self, path: &Path) -> Option<String> {
        self.0.lock().ok()?.get(path).cloned()
    }

    /// Remember `text` as the last of `path` that compiled.
    pub(super) fn set(&self, path: &Path, text: &str) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(path.to_path_buf(), text.to_owned());
        }
    }
}
