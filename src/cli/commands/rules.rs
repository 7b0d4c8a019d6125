//! `toolspec rules`: the built-in rules, from the one registry (`toolspec::rules::RULES`) and
//! their documentation (`docs/rules.md`, embedded).

use toolspec::rules::{Rule, RULES};

use crate::cli::args::RulesArgs;
use crate::cli::output::{self, exit};

/// Without a code: one line per rule (code, `on`/`off` by default, description). With a code:
/// that rule's section of `docs/rules.md`; an unknown code is an error (exit 2).
pub(crate) fn run(args: &RulesArgs) -> u8 {
    let Some(code) = &args.code else {
        let width = RULES.iter().map(|r| r.code.name().len()).max().unwrap_or(0);
        let mut text = String::new();
        for r in RULES {
            text.push_str(&format!(
                "{:<width$}  {:<3}  {}\n",
                r.code.name(),
                if r.default { "on" } else { "off" },
                r.code.description()
            ));
        }
        text.push_str("\n`toolspec rules CODE` prints a rule's documentation (docs/rules.md).\n");
        output::out(&text);
        return exit::OK;
    };
    let Some((rule, docs)) = Rule::named(code).and_then(|r| Some((r, r.docs()?))) else {
        output::err(&format!(
            "error: `{}` is not a rule (`toolspec rules` lists them: {})\n",
            output::esc(code),
            toolspec::check::settings::rule_names()
        ));
        return exit::ERROR;
    };
    let mut text = format!("{docs}\n");
    if !rule.options.is_empty() {
        text.push_str("\n### Options\n\n");
        for o in rule.options {
            text.push_str(&format!("- {o}\n"));
        }
    }
    output::out(&text);
    exit::OK
}
