//! What a JSONPath query can cost, read from its text before it runs.
//!
//! `serde_json_path` evaluates a query in one call, with no way to count the nodes it visits or
//! to stop it, and keeps its syntax tree private; so the cost is bounded up front. The text has
//! already been parsed by `serde_json_path` (RFC 9535), so this scanner only follows its shape:
//! the segments of each query, the selectors of each bracket, and the queries inside filters
//! (`@…` relative to the node tested, `$…` from the root).
//!
//! The bound, for a scope of `n` nodes (the document for a query from the root, a node's subtree
//! for a relative one) in a document of `N` nodes and depth `D`, is `a × n + b` node visits:
//! - a segment of name and index selectors costs its selectors per node of the list it reads, a
//!   list of known length while the query has been singular so far;
//! - any other segment (a wildcard, a slice, a filter, `..`) may reach every node of the scope
//!   once per way of reaching it: `μ` ways, the product of the selectors of the brackets so
//!   far, times `D` for each `..` after the first (the first starts from nodes none of which
//!   holds another);
//! - a filter is evaluated on each node it tests, and costs there what its queries cost: a
//!   query from the root (`$…`) costs its own bound over the root's scope each time, so
//!   absolute queries nested in filters multiply (`N^(k+1)` for `k` of them); a relative query
//!   (`@…`) costs its bound over the tested node's subtree, and those subtrees add up to at most
//!   `D` times the scope (each node lies in at most `D` of them), so it is charged `D × a' + b'`
//!   per node tested.

/// The shape of one query: what its cost depends on.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Shape {
    /// From the root (`$`), not from the current node (`@`).
    absolute: bool,
    segments: Vec<Segment>,
}

/// One segment of a query.
#[derive(Debug, Default, Clone, PartialEq)]
struct Segment {
    /// A descendant segment (`..`).
    descendant: bool,
    /// Its selectors (1 for `.name`, `.*` and `..name`).
    selectors: u64,
    /// Only name and index selectors: at most one node per selector and node read.
    singular: bool,
    /// The queries inside its filters.
    subqueries: Vec<Shape>,
}

/// The size of what a query runs over.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scale {
    /// Nodes of the scope a query from the root (`$`) runs over.
    pub root_nodes: u64,
    /// The deepest path from a node to a leaf, counted in nodes (a scalar is 1 deep).
    pub depth: u64,
}

/// An upper bound of what one query costs over a scope of `n` nodes: `per_node × n + fixed`
/// visits, and at most `results` nodes selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cost {
    pub per_node: u64,
    pub fixed: u64,
    /// `Some(k)`: at most `k` nodes whatever the scope (a singular prefix); `None`: `ways × n`.
    pub results: Option<u64>,
    /// How often one node of the scope may be selected.
    pub ways: u64,
}

impl Cost {
    /// The visits over a scope of `n` nodes.
    pub(super) fn visits(&self, n: u64) -> u64 {
        self.per_node.saturating_mul(n).saturating_add(self.fixed)
    }

    /// The most nodes selected over a scope of `n` nodes.
    pub(super) fn selected(&self, n: u64) -> u64 {
        self.results.unwrap_or_else(|| self.ways.saturating_mul(n))
    }
}

impl Shape {
    /// The shape of a query text `serde_json_path` accepted (starting with `$` or `@`).
    pub(super) fn of(text: &str) -> Shape {
        let mut s = Scanner {
            b: text.trim().as_bytes(),
            i: 0,
        };
        match s.peek() {
            Some(b'$' | b'@') => s.query(),
            _ => Shape::default(),
        }
    }

    /// Whether each query starts at the root: this one, then those inside its filters, depth
    /// first in written order.
    pub(super) fn roots(&self) -> Vec<bool> {
        let mut out = vec![self.absolute];
        for seg in &self.segments {
            for q in &seg.subqueries {
                out.extend(q.roots());
            }
        }
        out
    }

    /// Its cost over a scope, in a document of this scale.
    pub(super) fn cost(&self, scale: Scale) -> Cost {
        let depth = scale.depth.max(1);
        let mut per_node = 0u64;
        let mut fixed = 0u64;
        // Ways one node of the scope can be in the list so far.
        let mut ways = 1u64;
        // The list's length while it is known without the scope (only names and indexes so far).
        let mut known: Option<u64> = Some(1);
        let mut descended = false;
        for seg in &self.segments {
            let k = seg.selectors.max(1);
            if seg.singular && !seg.descendant {
                ways = ways.saturating_mul(k);
                match known {
                    Some(len) => {
                        fixed = fixed.saturating_add(len.saturating_mul(k));
                        known = Some(len.saturating_mul(k));
                    }
                    None => per_node = per_node.saturating_add(ways),
                }
                continue;
            }
            if seg.descendant {
                if descended {
                    ways = ways.saturating_mul(depth);
                }
                descended = true;
            }
            ways = ways.saturating_mul(k);
            known = None;
            // Each node tested costs one visit, and its filters' queries.
            let mut each = 1u64;
            for q in &seg.subqueries {
                let c = q.cost(scale);
                let scope = if q.absolute { scale.root_nodes } else { depth };
                each = each.saturating_add(c.visits(scope));
            }
            per_node = per_node.saturating_add(ways.saturating_mul(each));
        }
        Cost {
            per_node,
            fixed,
            results: known,
            ways,
        }
    }
}

/// A forward scan of a query text.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// A query, at its `$` or `@`: the identifier, then its segments (blank space allowed
    /// between them).
    fn query(&mut self) -> Shape {
        let absolute = self.peek() == Some(b'$');
        self.i += 1;
        let mut segments = Vec::new();
        loop {
            let at = self.i;
            self.blank();
            match self.peek() {
                Some(b'.') if self.b.get(self.i + 1) == Some(&b'.') => {
                    self.i += 2;
                    let mut seg = if self.peek() == Some(b'[') {
                        self.bracket()
                    } else {
                        self.name_or_wildcard()
                    };
                    seg.descendant = true;
                    segments.push(seg);
                }
                Some(b'.') => {
                    self.i += 1;
                    segments.push(self.name_or_wildcard());
                }
                Some(b'[') => segments.push(self.bracket()),
                _ => {
                    self.i = at;
                    break;
                }
            }
        }
        Shape { absolute, segments }
    }

    /// `*` or a member name, after `.` or `..`.
    fn name_or_wildcard(&mut self) -> Segment {
        if self.peek() == Some(b'*') {
            self.i += 1;
            return Segment {
                selectors: 1,
                ..Segment::default()
            };
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
        {
            self.i += 1;
        }
        Segment {
            selectors: 1,
            singular: true,
            ..Segment::default()
        }
    }

    /// A bracketed selection, at its `[`: selectors up to the matching `]`.
    fn bracket(&mut self) -> Segment {
        self.i += 1;
        let mut seg = Segment {
            singular: true,
            ..Segment::default()
        };
        loop {
            self.blank();
            let Some(c) = self.peek() else { break };
            seg.selectors += 1;
            match c {
                b'\'' | b'"' => self.string(),
                b'*' => {
                    self.i += 1;
                    seg.singular = false;
                }
                b'?' => {
                    self.i += 1;
                    seg.singular = false;
                    self.filter(&mut seg.subqueries);
                }
                _ => {
                    // An index or a slice: digits, `-`, `:` and blank space.
                    while let Some(c) = self.peek() {
                        if c == b',' || c == b']' {
                            break;
                        }
                        if c == b':' {
                            seg.singular = false;
                        }
                        self.i += 1;
                    }
                }
            }
            self.blank();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                // Not RFC 9535 text: stop where the scan cannot follow.
                _ => break,
            }
        }
        seg
    }

    /// A filter's logical expression, up to the `,` or `]` that ends it: the queries in it.
    fn filter(&mut self, out: &mut Vec<Shape>) {
        let mut parens = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'\'' | b'"' => self.string(),
                b'$' | b'@' => out.push(self.query()),
                b'(' => {
                    parens += 1;
                    self.i += 1;
                }
                b')' => {
                    parens = parens.saturating_sub(1);
                    self.i += 1;
                }
                b',' | b']' if parens == 0 => return,
                _ => self.i += 1,
            }
        }
    }

    /// A string literal, at its opening quote.
    fn string(&mut self) {
        let Some(quote) = self.peek() else { return };
        self.i += 1;
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == b'\\' {
                self.i += 1;
            } else if c == quote {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(q: &str, root_nodes: u64, depth: u64) -> Cost {
        serde_json_path::JsonPath::parse(q).expect("valid");
        Shape::of(q).cost(Scale { root_nodes, depth })
    }

    /// `(per_node, fixed)`.
    fn affine(q: &str, n: u64, d: u64) -> (u64, u64) {
        let c = cost(q, n, d);
        (c.per_node, c.fixed)
    }

    #[test]
    fn singular_queries_cost_their_steps_whatever_the_document() {
        assert_eq!(affine("$.a.b[0]['c']", 1_000_000, 50), (0, 4));
        assert_eq!(affine("$", 10, 2), (0, 0));
        assert_eq!(cost("$.a.b", 10, 2).results, Some(1));
        // Several names per bracket: the list grows by each.
        assert_eq!(affine("$[0,1]['a','b','c']", 10, 2), (0, 2 + 6));
        assert_eq!(cost("$[0,1]['a','b','c']", 10, 2).results, Some(6));
    }

    #[test]
    fn wildcards_filters_and_descendants_cost_per_node_of_the_scope() {
        assert_eq!(affine("$[*]", 100, 3), (1, 0));
        assert_eq!(cost("$[*]", 100, 3).selected(100), 100);
        // The usual mapping: a name, then a filter testing one member of each event.
        assert_eq!(affine("$.events[?@.kind == 'tool']", 100, 3), (2, 1));
        // One `..` is free; each further one may reach a node through each ancestor.
        assert_eq!(affine("$..x", 100, 7), (1, 0));
        assert_eq!(affine("$..x..y", 100, 7), (1 + 7, 0));
        assert_eq!(cost("$..x..y", 100, 7).ways, 7);
        // Selectors multiply the ways, a name after a multiple one costs per node.
        assert_eq!(cost("$[*,*][*,*]", 100, 3).ways, 4);
        assert_eq!(affine("$[*].a", 100, 3), (2, 0));
    }

    #[test]
    fn relative_queries_in_filters_are_charged_the_depth_per_node_tested() {
        // `@..x` on each node tested: its subtree, which adds up to the depth per node.
        assert_eq!(affine("$[*][?@..x]", 100, 5), (1 + 1 + 5, 0));
        // A relative query's own selectors count, not only the outer brackets'.
        let inner = "[0,0,0,0,0,0,0,0,0,0]".repeat(6);
        let (a, _) = affine(&format!("$[?@{inner}]"), 10, 3);
        assert_eq!(a, 1 + 1_111_110, "{a}");
    }

    #[test]
    fn absolute_queries_in_filters_cost_the_whole_document_each_time() {
        let n = 60;
        // One level: each of the n nodes tested runs `$[*]` over the document.
        assert_eq!(affine("$[?$[*]]", n, 2), (1 + n, 0));
        // Nested k deep: N^(k+1).
        let (a, _) = affine("$[?$[?$[?$[?$[*]]]]]", n, 2);
        assert!(a * n >= n.pow(5), "{a}");
        // A singular one is a few look-ups.
        assert_eq!(affine("$[?@.id == $.meta.id]", n, 2), (1 + 1 + 2, 0));
        // In function arguments and parentheses, both sides of a comparison.
        let (a, _) = affine("$[?count($..x) > 1 && (value($[*].y) == @.z)]", n, 4);
        assert_eq!(a, 1 + n + 2 * n + 1);
        // Saturates rather than overflows.
        let deep = format!("${}", "[?$[*,*,*,*,*,*,*,*,*,*]".repeat(15)) + &"]".repeat(15);
        assert_eq!(cost(&deep, 1 << 40, 100).per_node, u64::MAX);
    }

    #[test]
    fn strings_blank_space_and_odd_names_do_not_fool_the_scan() {
        assert_eq!(Shape::of("$['a]$[?$..x]']"), Shape::of("$['b']"));
        assert_eq!(affine(r#"$["\"$..x"]"#, 100, 3), (0, 1));
        assert_eq!(affine("$ .a [ ?@ .b ]", 100, 3), (2, 1));
        assert_eq!(affine("$.été[*]", 100, 3), (1, 1));
        assert_eq!(affine("$[1:5:2]", 100, 3), (1, 0));
        assert_eq!(affine("$[-1]", 100, 3), (0, 1));
        // Not a query: nothing to run.
        assert_eq!(
            Shape::of("")
                .cost(Scale {
                    root_nodes: 9,
                    depth: 9
                })
                .visits(9),
            0
        );
    }
}
