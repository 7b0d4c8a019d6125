//! Scoring: the native formula and the profiles that reproduce existing metrics.
//!
//! Input: an engine verdict (native) or a profile's own inputs (calls, expected calls, options).
//! Output: a score in [0, 1], pass/fail and the metric's own metadata.

pub mod native;
pub mod profiles;
