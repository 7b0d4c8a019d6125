//! A transcript read from standard input (`-` on the command line).

use std::io::Read;

/// The most bytes read from standard input: as much as a transcript file read whole. Past it
/// the run stops with an error (save the transcript to a file: files are streamed).
pub(crate) const STDIN_LIMIT: u64 = 64 << 20;

/// The name `-` that stands for standard input among paths.
pub(crate) fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Standard input, whole, up to [`STDIN_LIMIT`] bytes; an error message past it.
pub(crate) fn read() -> Result<Vec<u8>, String> {
    read_from(std::io::stdin().lock(), STDIN_LIMIT)
}

fn read_from(r: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "standard input holds more than {} MiB: save the transcript to a file and name the \
             file instead (large files are streamed)",
            limit >> 20
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_past_the_limit_is_an_error_and_up_to_it_is_read() {
        assert_eq!(read_from(&b"[]"[..], 2).unwrap(), b"[]");
        let err = read_from(&b"[ ]"[..], 2).unwrap_err();
        assert!(err.contains("more than"), "{err}");
    }
}
