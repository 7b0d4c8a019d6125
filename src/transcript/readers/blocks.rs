//! The tool-use blocks of a provider's stream that are still open: per block index, the call it
//! opened and its argument text so far (Anthropic `input_json_delta` pieces, Bedrock
//! `toolUse.input` pieces). A stopped block's text becomes the call's arguments by the
//! argument-string rule (blank → `{}`).

use std::collections::HashMap;

use serde_json::Value;

use super::super::sink::{Args, Sink};

/// Open blocks of the current message, by index.
#[derive(Default)]
pub(crate) struct OpenBlocks {
    open: HashMap<u64, (usize, String)>,
}

impl OpenBlocks {
    /// Block `index` opened the call at position `call` of the sink.
    pub(crate) fn open(&mut self, index: u64, call: usize) {
        self.open.insert(index, (call, String::new()));
    }

    /// A piece of block `index`'s argument text (ignored for a block not open).
    pub(crate) fn push(&mut self, index: u64, piece: &str) {
        if let Some((_, text)) = self.open.get_mut(&index) {
            text.push_str(piece);
        }
    }

    /// Block `index` stopped: its text becomes its call's arguments.
    pub(crate) fn stop(&mut self, index: u64, sink: &mut Sink) {
        if let Some(open) = self.open.remove(&index) {
            close(open, sink);
        }
    }

    /// A new message, or the end of input: every open block keeps the pieces received, in call
    /// order.
    pub(crate) fn stop_all(&mut self, sink: &mut Sink) {
        let mut open: Vec<_> = self.open.drain().map(|(_, o)| o).collect();
        open.sort();
        for o in open {
            close(o, sink);
        }
    }
}

fn close((i, text): (usize, String), sink: &mut Sink) {
    if !text.trim().is_empty() {
        sink.set_args(i, Args::Owned(Value::String(text)));
    }
}
