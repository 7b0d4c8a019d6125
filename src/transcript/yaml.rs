//! A transcript file's text as one YAML document ([`crate::json::yaml`]): its checks (binary
//! data, UTF-8) and its errors (`invalid-yaml`, `value-too-large`), located in the file.

use crate::json::yaml::{self, Parsed};

use super::error::Locator;
use super::text::{check_text, check_utf8_at};
use super::{ReadError, PARSED_BUDGET};

/// `bytes` (the text of the file `name`) as one YAML document within [`PARSED_BUDGET`], the
/// positions of its nodes kept `depth` levels deep; `help` says what to do about invalid YAML.
pub(super) fn parse(
    name: &str,
    bytes: &[u8],
    depth: usize,
    help: &str,
) -> Result<Parsed, ReadError> {
    check_text(name, bytes)?;
    let Some(text) = crate::source::utf8(bytes) else {
        check_utf8_at(name, bytes, 0, 1)?;
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    };
    let loc = Locator {
        name,
        text: bytes,
        base: 0,
        first_line: 1,
    };
    yaml::from_str(text, PARSED_BUDGET, depth)
        .map_err(|r| loc.yaml_error(&r, "the file's YAML document", help))
}
