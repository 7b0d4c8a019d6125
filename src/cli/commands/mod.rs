//! One file per command.

pub mod calls;
pub(crate) mod check;
pub(crate) mod compile;
pub(crate) mod fmt;
pub(crate) mod init;
pub(crate) mod rules;
pub(crate) mod score;
pub(crate) mod watch;
