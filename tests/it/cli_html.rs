//! `--format html --output-file`: the page is written to the file (nothing on stdout), and data
//! from a hostile transcript and spec (markup, attribute breakers, `</style>`, ANSI escapes,
//! `javascript:`) lands in it as text only.

use std::process::Command;

const BAD: &str =
    "<script>alert(1)</script>\\\"><img src=x onerror=alert(2)></style>\\u001b[31mred";

/// A project whose transcript's tool names and arguments, and whose file name, carry markup
/// and control sequences; the page written with `--output-file` shows them as text.
#[test]
fn hostile_data_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    std::fs::write(
        root.join("s.toolspec"),
        "spec s {\n  transcripts \"runs/*.json\"\n  extra forbid\n  call lookup(q: \"x\")\n  \
         call refund(amount: 1..=10)\n  never close_account\n}\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("runs")).unwrap();
    let transcript = format!(
        "[{{\"name\": \"lookup\", \"args\": {{\"q\": \"{BAD}\"}}}},\
          {{\"name\": \"{BAD}\", \"args\": {{\"{BAD}\": \"javascript:alert(3)\"}}}},\
          {{\"name\": \"refund\", \"args\": {{\"amount\": \"{BAD}\"}}}},\
          {{\"name\": \"close_account\", \"args\": {{\"why\": \"{BAD}\"}}}}]"
    );
    std::fs::write(root.join("runs/<b>x\"'.json"), transcript).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args([
            "check",
            ".",
            "--format",
            "html",
            "--output-file",
            "report.html",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let page = std::fs::read_to_string(root.join("report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "one script: the page's own"
    );
    assert_eq!(page.matches("</style>").count(), 1);
    assert!(!page.contains("<img"));
    assert!(!page.contains("<b>x"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        page.contains("runs/&lt;b&gt;x\"'.json"),
        "the file name as text"
    );
    assert!(
        page.contains("\\u{1b}[31mred"),
        "ANSI escapes shown as text"
    );
    assert!(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'"));
    for c in page.chars() {
        assert!(
            c == '\n' || !toolspec::text::is_control(c),
            "control character {c:?} in the page"
        );
    }
    for url in page.split("href=\"").skip(1) {
        let url = &url[..url.find('"').unwrap()];
        assert!(
            url.starts_with("#src-"),
            "a link that is not a fragment: {url}"
        );
    }
    assert!(!page.contains("src=\""));
    // The timeline: the forbidden call and the failing constraint with its actual value.
    assert!(page.contains("<span class=\"st bad\">forbidden</span>"));
    assert!(page.contains("class=\"act\""));
}
