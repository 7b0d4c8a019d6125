//! CLI golden tests: every command, every output format and every exit code, run on the bundled
//! `examples/` project and small broken fixtures (`tests/cmd/*.toml`; bless with
//! `TRYCMD=overwrite cargo test --test it cli::`).

#[test]
fn cli_goldens() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .case("tests/cmd/*.toml");
}

/// `--color auto` (the default) off a terminal: plain, unless `CLICOLOR_FORCE` asks for colour;
/// `NO_COLOR` wins over both. (Not a golden: the goldens run with `NO_COLOR` set.)
#[test]
fn color_auto_follows_no_color_and_clicolor_force() {
    let run = |env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec"));
        cmd.args(["check", "prompts/research.toolspec"])
            .current_dir("examples")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().contains("\x1b[")
    };
    assert!(!run(&[]), "a pipe is not coloured");
    assert!(run(&[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!run(&[("CLICOLOR_FORCE", "0")]));
}
