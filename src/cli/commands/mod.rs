//! One file per command.

pub mod calls;
pub mod check;
pub mod compile;
pub mod fmt;
pub mod init;
pub mod score;
pub mod watch;
