//! Whether git's global excludes file can apply to the folders a run walks: read from the
//! environment (`HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`), which only
//! the command line does, and handed to the library as a fact
//! (`CheckOptions::no_git_global_excludes`).

use std::path::PathBuf;

/// Whether git's global excludes file can apply: some git config file mentions
/// `excludesFile`, or the default file (`$XDG_CONFIG_HOME/git/ignore`, else
/// `~/.config/git/ignore`) exists.
///
/// The walker finds the global excludes file by parsing git's config files with a regular
/// expression it compiles on every run, which costs a pre-commit run about a fifth of its
/// instructions. Most machines have no global excludes file, and this looks for one the cheap
/// way: the walker's own lookup is kept whenever one may exist, so what is ignored never
/// changes.
pub(crate) fn may_apply() -> bool {
    static MAY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MAY.get_or_init(|| {
        #[allow(deprecated)] // as the walker does; its bugs are corner cases of Windows
        let home = std::env::home_dir();
        excludes_may_apply(|name| std::env::var_os(name).map(PathBuf::from), home)
    })
}

/// [`may_apply`] for the given environment and home folder.
fn excludes_may_apply(var: impl Fn(&str) -> Option<PathBuf>, home: Option<PathBuf>) -> bool {
    let var = |name: &str| var(name).filter(|v| !v.as_os_str().is_empty());
    let xdg = var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        var("GIT_CONFIG_GLOBAL"),
        home.as_ref().map(|h| h.join(".gitconfig")),
        xdg.as_ref().map(|x| x.join("git/config")),
        Some(var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig"))),
    ];
    let mentions = |path: &PathBuf| {
        std::fs::read(path).is_ok_and(|bytes| {
            bytes
                .windows(b"excludesfile".len())
                .any(|w| w.eq_ignore_ascii_case(b"excludesfile"))
        })
    };
    configs.iter().flatten().any(mentions) || xdg.is_some_and(|x| x.join("git/ignore").exists())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The global excludes lookup is skipped only when no config names an excludes file and
    /// the default one does not exist.
    #[test]
    fn global_excludes_are_looked_for_the_cheap_way() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let system = dir.path().join("gitconfig");
        fs::create_dir_all(home.join(".config/git")).unwrap();
        let env = |global: Option<PathBuf>| {
            let system = system.clone();
            move |name: &str| match name {
                "GIT_CONFIG_GLOBAL" => global.clone(),
                "GIT_CONFIG_SYSTEM" => Some(system.clone()),
                _ => None,
            }
        };
        let may = |global: Option<PathBuf>| excludes_may_apply(env(global), Some(home.clone()));
        fs::write(home.join(".gitconfig"), "[user]\n\tname = x\n").unwrap();
        assert!(!may(None));
        fs::write(&system, "[core]\n  ExcludesFile = ~/.gitignore_global\n").unwrap();
        assert!(may(None), "the system config names one");
        fs::remove_file(&system).unwrap();
        let global = dir.path().join("global.gitconfig");
        fs::write(&global, "[core]\n\texcludesfile=/tmp/x\n").unwrap();
        assert!(may(Some(global)), "GIT_CONFIG_GLOBAL names one");
        fs::write(home.join(".config/git/ignore"), "*.swp\n").unwrap();
        assert!(may(None), "the default file exists");
    }
}
