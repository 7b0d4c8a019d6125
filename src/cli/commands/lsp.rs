//! `toolspec lsp`: the language server ([`toolspec::lsp`]) on standard input and output.

use crate::cli::output::{self, exit};

/// Serve the editor on stdio until it shuts the server down.
pub(crate) fn run() -> u8 {
    let (connection, threads) = toolspec::lsp::Connection::stdio();
    let served = toolspec::lsp::serve(&connection);
    // The writer thread ends when the connection's sender is dropped.
    drop(connection);
    let joined = threads.join();
    match (served, joined) {
        (Ok(()), _) => exit::OK,
        (Err(e), _) => {
            output::err(&format!("error: {}\n", output::esc(&e.to_string())));
            exit::ERROR
        }
    }
}
