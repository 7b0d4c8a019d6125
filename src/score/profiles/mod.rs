//! Profiles: each reproduces an existing metric exactly, quirks included (see `docs/parity.md`).
