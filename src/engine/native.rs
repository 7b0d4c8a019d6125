//! Native scoring: credit for matched calls, penalties, clamping, threshold and binary mode.
//!
//! Input: the tallies of an engine alignment ([`NativeInputs`]) and the spec's [`Scoring`].
//! Output: the score in [0, 1] and pass/fail. Nothing can fail: non-finite or negative weights
//! count as 0. The formula (stated and defended in `docs/scoring.md`):
//!
//! ```text
//! score = clamp((earned − extra_call·U − wrong_or_missing·unmet) / W, 0, 1)
//! ```
//!
//! `W` is the total weight of the required call slots (Σ weight × minimum count). When `W = 0`
//! (nothing is required) the score is `clamp(1 − extra_call·U, 0, 1)`: a spec that demands nothing
//! is satisfied unless penalties apply. Binary mode replaces the score by 1 when every expectation
//! is met and nothing failed hard, else 0.

use serde::{Deserialize, Serialize};

use crate::config::Scoring;

/// Tolerance when comparing the score with the threshold, so that `0.1 + 0.7` reaches `0.8`.
pub const THRESHOLD_EPSILON: f64 = 1e-9;

/// Whether two scores are the same within [`THRESHOLD_EPSILON`]: sums of the same credits in
/// another order may differ in their last bits, and such scores are equal to the engine when it
/// chooses between verdicts.
pub(crate) fn same_score(a: f64, b: f64) -> bool {
    (a - b).abs() <= THRESHOLD_EPSILON
}

/// What the native formula needs from an alignment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct NativeInputs {
    /// Σ over filled required slots of weight × (`exact_match` or `name_only`).
    pub earned: f64,
    /// `W`: Σ over expectations of weight × minimum count.
    pub required_weight: f64,
    /// `U`: calls no expectation accounts for (forbidden calls included).
    pub unaccounted: usize,
    /// Σ over required slots left empty or filled name-only, of the expectation's weight.
    pub unmet_weight: f64,
    /// Whether every expectation is met (every required slot filled by a full match).
    pub all_met: bool,
    /// Whether something failed the spec regardless of score (forbidden call, extra call under a
    /// `forbid` policy or in strict order, broken `before` rule).
    pub hard_failure: bool,
}

/// The native score and decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NativeScore {
    /// In [0, 1].
    pub score: f64,
    /// `score ≥ threshold` (within [`THRESHOLD_EPSILON`]) and no hard failure.
    pub passed: bool,
}

fn sane(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        0.0
    }
}

/// The threshold in effect: the configured one, or 1 when it is not a finite number.
pub fn threshold(scoring: &Scoring) -> f64 {
    if scoring.threshold.is_finite() {
        scoring.threshold
    } else {
        1.0
    }
}

/// Score an alignment's tallies under `scoring`.
pub fn score(scoring: &Scoring, inputs: &NativeInputs) -> NativeScore {
    let score = if scoring.binary {
        if inputs.all_met && !inputs.hard_failure {
            1.0
        } else {
            0.0
        }
    } else {
        let penalties = sane(scoring.extra_call) * inputs.unaccounted as f64
            + sane(scoring.wrong_or_missing) * sane(inputs.unmet_weight);
        let w = sane(inputs.required_weight);
        let raw = if w > 0.0 {
            (sane(inputs.earned) - penalties) / w
        } else {
            1.0 - penalties
        };
        if raw.is_finite() {
            raw.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let threshold = threshold(scoring);
    NativeScore {
        score,
        passed: !inputs.hard_failure && score + THRESHOLD_EPSILON >= threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(earned: f64, w: f64, u: usize, unmet: f64) -> NativeInputs {
        NativeInputs {
            earned,
            required_weight: w,
            unaccounted: u,
            unmet_weight: unmet,
            all_met: unmet == 0.0,
            hard_failure: false,
        }
    }

    #[test]
    fn defaults_give_half_credit_for_name_only() {
        let s = Scoring::default();
        let r = score(&s, &inputs(1.5, 2.0, 3, 0.5));
        assert_eq!(r.score, 0.75);
        assert!(!r.passed);
    }

    #[test]
    fn penalties_clamp_at_zero() {
        let s = Scoring {
            extra_call: 1.0,
            ..Scoring::default()
        };
        assert_eq!(score(&s, &inputs(1.0, 1.0, 5, 0.0)).score, 0.0);
        assert_eq!(score(&s, &inputs(0.0, 0.0, 0, 0.0)).score, 1.0);
    }

    #[test]
    fn threshold_tolerates_rounding() {
        let s = Scoring {
            threshold: 0.8,
            ..Scoring::default()
        };
        assert!(score(&s, &inputs(0.1 + 0.7, 1.0, 0, 0.0)).passed);
    }

    #[test]
    fn binary_and_hard_failures() {
        let s = Scoring {
            binary: true,
            threshold: 0.0,
            ..Scoring::default()
        };
        assert_eq!(score(&s, &inputs(1.5, 2.0, 0, 1.0)).score, 0.0);
        assert_eq!(score(&s, &inputs(2.0, 2.0, 4, 0.0)).score, 1.0);
        let mut hard = inputs(2.0, 2.0, 0, 0.0);
        hard.hard_failure = true;
        let r = score(&s, &hard);
        assert_eq!((r.score, r.passed), (0.0, false));
    }

    #[test]
    fn garbage_weights_do_not_poison_the_score() {
        let s = Scoring {
            extra_call: f64::NAN,
            wrong_or_missing: -3.0,
            ..Scoring::default()
        };
        let r = score(&s, &inputs(1.0, 1.0, 2, 1.0));
        assert_eq!(r.score, 1.0);
    }
}
