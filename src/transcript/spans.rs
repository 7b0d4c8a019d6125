//! Byte spans of JSON values: serde_json gives no offsets, so one linear, iterative pass over
//! the (already validated) bytes records where each value sits, down to a chosen depth.
//!
//! Readers name a value by its path (`messages/3/tool_calls/1`); [`SpanTree::locate`] maps the
//! path to its byte range. The scan never recurses, so nesting depth cannot overflow the stack.

use memchr::memchr2;

/// One step of a path into a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg {
    /// An object member, by key.
    K(&'static str),
    /// An array element, by position.
    I(usize),
}

/// One step of a path whose keys are borrowed from elsewhere (see [`SpanTree::locate_steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step<'k> {
    /// An object member, by key.
    K(&'k str),
    /// An array element, by position.
    I(usize),
}

#[derive(Debug, Clone, Copy)]
struct Node {
    start: usize,
    end: usize,
    key_start: usize,
    key_end: usize,
    kids_start: usize,
    kids_end: usize,
}

/// Positions of every value of a JSON text down to a maximum depth.
pub(crate) struct SpanTree<'a> {
    text: &'a [u8],
    nodes: Vec<Node>,
    kids: Vec<usize>,
}

struct Frame {
    node: usize,
    temp_start: usize,
    is_object: bool,
}

impl<'a> SpanTree<'a> {
    /// Index `text` (one valid JSON value, optionally surrounded by whitespace), recording values
    /// up to `max_depth` levels below the root. Malformed text yields a partial tree, never a panic.
    pub(crate) fn build(text: &'a [u8], max_depth: usize) -> Self {
        let mut tree = SpanTree {
            text,
            nodes: Vec::new(),
            kids: Vec::new(),
        };
        let mut temp: Vec<usize> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut pos = skip_ws(text, 0);
        let mut key = (0usize, 0usize);
        'values: loop {
            // A value starts at `pos`.
            if pos >= text.len() {
                break;
            }
            let idx = tree.nodes.len();
            tree.nodes.push(Node {
                start: pos,
                end: pos,
                key_start: key.0,
                key_end: key.1,
                kids_start: 0,
                kids_end: 0,
            });
            temp.push(idx);
            let b = text[pos];
            if (b == b'{' || b == b'[') && stack.len() < max_depth {
                stack.push(Frame {
                    node: idx,
                    temp_start: temp.len(),
                    is_object: b == b'{',
                });
                pos += 1;
            } else {
                let end = skip_value(text, pos);
                tree.nodes[idx].end = end;
                pos = end;
                if stack.is_empty() {
                    break;
                }
            }
            // Between values: commas, closings, keys.
            loop {
                pos = skip_ws(text, pos);
                if pos >= text.len() {
                    break 'values;
                }
                match text[pos] {
                    b',' => {
                        pos += 1;
                    }
                    b'}' | b']' => {
                        let Some(frame) = stack.pop() else {
                            break 'values;
                        };
                        let ks = tree.kids.len();
                        tree.kids.extend_from_slice(&temp[frame.temp_start..]);
                        temp.truncate(frame.temp_start);
                        let node = &mut tree.nodes[frame.node];
                        node.end = pos + 1;
                        node.kids_start = ks;
                        node.kids_end = tree.kids.len();
                        pos += 1;
                        if stack.is_empty() {
                            break 'values;
                        }
                    }
                    _ => {
                        let in_object = stack.last().is_some_and(|f| f.is_object);
                        if in_object {
                            if text[pos] != b'"' {
                                break 'values;
                            }
                            let kend = skip_string(text, pos);
                            key = (pos + 1, kend.saturating_sub(1).max(pos + 1));
                            pos = skip_ws(text, kend);
                            if pos >= text.len() || text[pos] != b':' {
                                break 'values;
                            }
                            pos = skip_ws(text, pos + 1);
                        } else {
                            key = (0, 0);
                        }
                        continue 'values;
                    }
                }
            }
        }
        tree
    }

    /// The byte range (relative to the indexed text) of the value at `path`, if recorded.
    pub(crate) fn locate(&self, path: &[Seg]) -> Option<(usize, usize)> {
        self.locate_steps(path.iter().map(|s| match *s {
            Seg::K(k) => Step::K(k),
            Seg::I(i) => Step::I(i),
        }))
    }

    /// [`Self::locate`] for a path whose keys are not static (a JSONPath result's normalized
    /// path). A key written with escapes in the file is not found (the caller falls back).
    pub(crate) fn locate_steps<'k>(
        &self,
        path: impl IntoIterator<Item = Step<'k>>,
    ) -> Option<(usize, usize)> {
        let mut node = *self.nodes.first()?;
        for seg in path {
            let kids = &self.kids[node.kids_start..node.kids_end];
            let next = match seg {
                Step::I(i) => kids.get(i).copied(),
                Step::K(k) => kids.iter().copied().find(|&c| {
                    let n = &self.nodes[c];
                    n.key_end >= n.key_start && &self.text[n.key_start..n.key_end] == k.as_bytes()
                }),
            }?;
            node = self.nodes[next];
        }
        Some((node.start, node.end))
    }
}

fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    while pos < text.len() && matches!(text[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

/// Position just past the string starting at `pos` (which holds `"`).
fn skip_string(text: &[u8], pos: usize) -> usize {
    let mut i = pos + 1;
    while i < text.len() {
        match memchr2(b'"', b'\\', &text[i..]) {
            Some(j) => {
                if text[i + j] == b'\\' {
                    i += j + 2;
                } else {
                    return i + j + 1;
                }
            }
            None => return text.len(),
        }
    }
    text.len()
}

/// Position just past the value starting at `pos`, iteratively (no recursion).
fn skip_value(text: &[u8], pos: usize) -> usize {
    match text[pos] {
        b'"' => skip_string(text, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = skip_string(text, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            text.len()
        }
        _ => {
            let mut i = pos;
            while i < text.len()
                && !matches!(text[i], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_members_and_elements() {
        let text = br#" {"a": [1, {"b": "x\"]}"}, [2]], "c": {"d": null}} "#;
        let tree = SpanTree::build(text, 4);
        let get = |p: &[Seg]| {
            tree.locate(p)
                .map(|(s, e)| std::str::from_utf8(&text[s..e]).unwrap())
        };
        assert_eq!(get(&[Seg::K("a"), Seg::I(1)]), Some(r#"{"b": "x\"]}"}"#));
        assert_eq!(
            get(&[Seg::K("a"), Seg::I(1), Seg::K("b")]),
            Some(r#""x\"]}""#)
        );
        assert_eq!(get(&[Seg::K("a"), Seg::I(2), Seg::I(0)]), Some("2"));
        assert_eq!(get(&[Seg::K("c"), Seg::K("d")]), Some("null"));
        assert_eq!(get(&[Seg::K("zz")]), None);
        assert_eq!(get(&[Seg::K("a"), Seg::I(7)]), None);
    }

    #[test]
    fn depth_limit_keeps_deeper_values_whole() {
        let text = br"[[[[1]]], 2]";
        let tree = SpanTree::build(text, 1);
        assert_eq!(tree.locate(&[Seg::I(0)]), Some((1, 8)));
        assert_eq!(tree.locate(&[Seg::I(0), Seg::I(0)]), None);
        assert_eq!(tree.locate(&[Seg::I(1)]), Some((10, 11)));
    }

    #[test]
    fn deep_nesting_and_garbage_do_not_panic() {
        let deep = "[".repeat(200_000) + &"]".repeat(200_000);
        let tree = SpanTree::build(deep.as_bytes(), usize::MAX);
        assert_eq!(tree.locate(&[]), Some((0, 400_000)));
        for junk in [&b"{\"a\":"[..], b"[1,", b"}", b"\"abc", b"{\"a\" 1}"] {
            let _ = SpanTree::build(junk, 8).locate(&[Seg::K("a")]);
        }
    }
}
