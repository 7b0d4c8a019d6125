//! Compile: AST → [`crate::config::MatcherConfig`]. Validates and resolves; collects every error
//! of a file, each a diagnostic with a stable code, a labelled span and help.
