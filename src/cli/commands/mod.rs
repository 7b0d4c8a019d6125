//! One file per command.

pub mod calls;
pub mod compile;
pub mod fmt;
pub mod init;
