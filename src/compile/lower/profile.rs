//! Profiles: a spec's `profile NAME { options }` → a [`Profile`].
//!
//! Input: the profile's name and options as written. Output: the profile with its options,
//! checked against what that profile accepts. Failure: an unknown profile or option, an option
//! given twice, an option only the command line may give (`judge`), a threshold outside
//! [0, 1], or a value of the wrong type, each pushed to the file's diagnostics; the spec then
//! has no profile.

use std::collections::HashMap;

use super::{check_threshold, duplicate, FileCx};
use crate::code::Code;
use crate::compile::suggest::{did_you_mean, one_of};
use crate::config::profile::{ProfileError, COMMAND_LINE_ONLY, PROFILES};
use crate::config::Profile;
use crate::source::{SourceFile, Span};
use crate::syntax::ast;
use crate::syntax::SpecDiagnostic;

impl FileCx {
    pub(super) fn profile(
        &mut self,
        src: &SourceFile,
        name: &ast::Ident,
        options: &[(ast::Ident, ast::Json)],
    ) -> Option<Profile> {
        let Some(known) = Profile::spec_of(&name.name).map(|p| p.options) else {
            let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            let hint = did_you_mean(&name.name, names.iter().copied());
            self.diags.push(
                SpecDiagnostic::error(
                    Code::UnknownProfile,
                    src,
                    format!("unknown profile `{}`", name.name),
                )
                .label(
                    name.span,
                    match hint {
                        Some(h) => format!("did you mean `{h}`?"),
                        None => "no such profile".into(),
                    },
                )
                .help(format!("profiles: {}", one_of(&names))),
            );
            return None;
        };
        let mut ok = true;
        let mut map = serde_json::Map::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (k, v) in options {
            if let Some(first) = seen.insert(k.name.as_str(), k.span) {
                self.diags.push(duplicate(
                    src,
                    Code::DuplicateSetting,
                    format!("profile option `{}` is set twice", k.name),
                    first,
                    k.span,
                    "keep one",
                ));
                ok = false;
            }
            if let Some((_, flag)) = COMMAND_LINE_ONLY.iter().find(|(o, _)| *o == k.name) {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::CommandLineOnly,
                        src,
                        format!(
                            "profile option `{}` is accepted only on the command line",
                            k.name
                        ),
                    )
                    .label(k.span, "a spec never chooses a command to run")
                    .help(format!(
                        "remove it and pass `{flag} CMD` to `toolspec check` (see docs/security.md)"
                    )),
                );
                ok = false;
                continue;
            }
            if !known.contains(&k.name.as_str()) {
                let hint = did_you_mean(&k.name, known.iter().copied());
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownProfileOption,
                        src,
                        format!("profile `{}` has no option `{}`", name.name, k.name),
                    )
                    .label(
                        k.span,
                        match hint {
                            Some(h) => format!("did you mean `{h}`?"),
                            None => "unknown option".into(),
                        },
                    )
                    .help(format!(
                        "`{}` options: {}",
                        name.name,
                        one_of(known)
                    )),
                );
                ok = false;
                continue;
            }
            // A threshold written in a spec is a fraction whatever the profile; the peers take
            // any number, but above 1 nothing passes and below 0 everything does.
            if k.name.ends_with("threshold") {
                if let ast::JsonKind::Number(n) = &v.kind {
                    let value = n.as_f64().unwrap_or(f64::NAN);
                    let num = ast::Num {
                        value,
                        span: v.span,
                    };
                    let before = self.diags.len();
                    check_threshold(src, &num, &mut self.diags);
                    ok &= self.diags.len() == before;
                }
            }
            map.insert(k.name.clone(), v.to_value());
        }
        if !ok {
            return None;
        }
        match Profile::from_options(&name.name, map) {
            Ok(p) => Some(p),
            Err(ProfileError::InvalidValue { option, message }) => {
                let at = options
                    .iter()
                    .find(|(k, _)| k.name == option)
                    .map_or(name.span, |(_, v)| v.span);
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::InvalidProfileOption,
                        src,
                        format!("invalid value for profile option `{option}`"),
                    )
                    .label(at, message)
                    .help("see docs/parity.md for each profile's options and their types"),
                );
                None
            }
            Err(other) => {
                self.diags.push(
                    SpecDiagnostic::error(Code::UnknownProfile, src, other.to_string())
                        .label(name.span, "")
                        .help("see docs/parity.md"),
                );
                None
            }
        }
    }
}
