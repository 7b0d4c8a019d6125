//! `pass_rate >= r`: the statement → [`PassRate`], the share of a spec's transcripts that must
//! pass.
//!
//! Input: the comparison, the number and a `%` if one is written. Output: the setting, or
//! `None` with a located `invalid-pass-rate` diagnostic: a comparison other than `>=` (a rate is
//! a floor), a `%` (rates are fractions: `0.9`, not `90%`), a value outside [0, 1].

use super::FileCx;
use crate::code::Code;
use crate::config::PassRate;
use crate::source::{SourceFile, Span};
use crate::syntax::ast;
use crate::syntax::SpecDiagnostic;

impl FileCx {
    /// Lower `pass_rate OP RATE[%]` written at `span`.
    pub(super) fn pass_rate(
        &mut self,
        src: &SourceFile,
        span: Span,
        op: &ast::Ident,
        rate: &ast::Num,
        percent: Option<Span>,
    ) -> Option<PassRate> {
        let written = src.text[rate.span.start..rate.span.end].trim();
        // What was most likely meant: a percentage read as a fraction.
        let percentage = percent.is_some() || (2.0..=100.0).contains(&rate.value);
        let meant = if percentage {
            (rate.value / 100.0).to_string()
        } else {
            written.to_owned()
        };
        let mut ok = true;
        if op.name != ">=" {
            ok = false;
            self.diags.push(
                SpecDiagnostic::error(
                    Code::InvalidPassRate,
                    src,
                    format!("`pass_rate {}` is not a floor", op.name),
                )
                .label(op.span, "write `>=`")
                .help(format!(
                    "a pass rate is the least share of the spec's transcripts that must pass: \
                     `pass_rate >= {meant}`"
                )),
            );
        }
        if let Some(p) = percent {
            ok = false;
            self.diags.push(
                SpecDiagnostic::error(
                    Code::InvalidPassRate,
                    src,
                    format!("`pass_rate` is a fraction, not a percentage: `{written}%`"),
                )
                .label(Span::new(rate.span.start, p.end), "a percentage")
                .help(format!(
                    "write the share as a number in [0, 1]: `pass_rate >= {meant}`"
                )),
            );
        } else if !(0.0..=1.0).contains(&rate.value) {
            ok = false;
            let help = if percentage {
                format!("a pass rate is a share in [0, 1]; for {written} % write `pass_rate >= {meant}`")
            } else {
                "a pass rate is a share in [0, 1]: 0.9 means 9 transcripts in 10 must pass"
                    .to_owned()
            };
            self.diags.push(
                SpecDiagnostic::error(
                    Code::InvalidPassRate,
                    src,
                    format!("pass_rate {written} is outside [0, 1]"),
                )
                .label(rate.span, "must be between 0 and 1")
                .help(help),
            );
        }
        ok.then_some(PassRate {
            min: rate.value,
            span,
        })
    }
}
