//! Scoring: the profiles that reproduce existing metrics (the native formula is `engine::native`).
//!
//! Input: a profile's own inputs (calls, expected calls, options).
//! Output: a score in [0, 1], pass/fail and the metric's own metadata.

pub mod profiles;
