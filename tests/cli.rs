//! CLI golden tests: every command, every output format and every exit code, run on the bundled
//! `examples/` project and small broken fixtures (`tests/cmd/*.toml`; bless with
//! `TRYCMD=overwrite cargo test --test cli`).

#[test]
fn cli_goldens() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .case("tests/cmd/*.toml");
}
