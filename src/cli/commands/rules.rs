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
    match Rule::named(code).and_then(Rule::docs) {
        Some(docs) => {
            let rule = Rule::named(code).map_or(&[][..], |r| r.options);
            let mut text = format!("{docs}\n");
            if !rule.is_empty() {
                text.push_str("\n### Options\n\n");
                for o in rule {
                    text.push_str(&format!("- {o}\n"));
                }
            }
            output::out(&text);
            exit::OK
        }
        None => {
            output::err(&format!(
                "error: `{}` is not a rule (`toolspec rules` lists them: {})\n",
                output::esc(code),
                toolspec::check::settings::rule_names()
            ));
            exit::ERROR
        }
    }
}
