//! Reporters: verdicts and diagnostics → human, JSON, JUnit, SARIF and GitHub output.
