//! The tool-use blocks of a provider's stream that are still open: per block index, the call it
//! opened and its argument text so far (Anthropic `input_json_delta` pieces, Bedrock
//! `toolUse.input` pieces). A stopped block's text becomes the call's arguments by the
//! argument-string rule (blank → `{}`).
//!
//! A block whose id is already in the transcript is recorded only when it stops: its arguments
//! then tell the same call sent again (counted once, FORMATS §0) from a reused id (a new call).
//! Blocks opened after it wait with it, so that calls keep the order their blocks opened in.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::super::sink::{Args, Loc, Sink};

/// Open blocks of the current message, by index.
#[derive(Default)]
pub(crate) struct OpenBlocks {
    /// Recorded calls still open: block index → (call position, argument text).
    open: HashMap<u64, (usize, String)>,
    /// Calls not recorded yet, in the order their blocks opened.
    waiting: VecDeque<Waiting>,
}

/// A call recorded when it and every call opened before it are complete.
struct Waiting {
    /// The block index while the block is open; `None` once stopped.
    index: Option<u64>,
    name: String,
    id: Option<String>,
    input: Option<Value>,
    loc: Loc,
    text: String,
}

impl OpenBlocks {
    /// Block `index` opened the call at position `call` of the sink.
    pub(crate) fn open(&mut self, index: u64, call: usize, sink: &mut Sink) {
        self.stop(index, sink);
        self.open.insert(index, (call, String::new()));
    }

    /// Open a call's block: recorded now, or, when its id is already in the sink (or an
    /// earlier call waits), at its stop. `input` is the block's own arguments, taken when no
    /// piece comes.
    pub(crate) fn open_call(
        &mut self,
        index: u64,
        sink: &mut Sink,
        name: &str,
        id: Option<&str>,
        input: Option<&Value>,
        loc: Loc,
    ) {
        let seen = id.is_some_and(|id| !id.is_empty() && sink.has_id(id));
        if seen || !self.waiting.is_empty() {
            self.stop(index, sink);
            self.waiting.push_back(Waiting {
                index: Some(index),
                name: name.to_string(),
                id: id.map(str::to_string),
                input: input.cloned(),
                loc,
                text: String::new(),
            });
        } else {
            let args = input.map_or(Args::Empty, Args::Value);
            let i = sink.call_unique(name, args, id.map(str::to_string), loc);
            self.open(index, i, sink);
        }
    }

    /// A piece of block `index`'s argument text (ignored for a block not open).
    pub(crate) fn push(&mut self, index: u64, piece: &str) {
        if let Some((_, text)) = self.open.get_mut(&index) {
            text.push_str(piece);
        } else if let Some(w) = self.waiting.iter_mut().find(|w| w.index == Some(index)) {
            w.text.push_str(piece);
        }
    }

    /// Block `index` stopped: its text becomes its call's arguments.
    pub(crate) fn stop(&mut self, index: u64, sink: &mut Sink) {
        if let Some((i, text)) = self.open.remove(&index) {
            if let Some(text) = args_text(text) {
                sink.set_args(i, Args::Owned(text));
            }
        } else if let Some(w) = self.waiting.iter_mut().find(|w| w.index == Some(index)) {
            w.index = None;
            while self.waiting.front().is_some_and(|w| w.index.is_none()) {
                if let Some(w) = self.waiting.pop_front() {
                    record(w, sink);
                }
            }
        }
    }

    /// A new message, or the end of input: every open block keeps the pieces received, in the
    /// order the blocks were opened.
    pub(crate) fn stop_all(&mut self, sink: &mut Sink) {
        let mut open: Vec<_> = self.open.drain().collect();
        open.sort_by_key(|(_, (i, _))| *i);
        for (index, o) in open {
            self.open.insert(index, o);
            self.stop(index, sink);
        }
        for w in std::mem::take(&mut self.waiting) {
            record(w, sink);
        }
    }
}

/// A block's text as arguments: none when blank (the block's own `input`, else `{}`).
fn args_text(text: String) -> Option<Value> {
    (!text.trim().is_empty()).then_some(Value::String(text))
}

fn record(w: Waiting, sink: &mut Sink) {
    let args = match (args_text(w.text), w.input) {
        (Some(text), _) => Args::Owned(text),
        (None, Some(input)) => Args::Owned(input),
        (None, None) => Args::Empty,
    };
    sink.call(&w.name, args, w.id, w.loc);
}
