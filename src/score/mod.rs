//! Scoring: the native formula and the profiles that reproduce existing metrics.
