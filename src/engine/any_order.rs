//! Optimal any-order assignment: maximum-gain b-matching as a min-cost flow.
//!
//! Expectations with different normalised names never compete for a call, so the problem splits
//! into one independent flow per tool name. In each: source → call (capacity 1) → slot node →
//! sink, with a *required* node per expectation (capacity `min`, full or name-only gain) and an
//! *optional* node (capacity `max − min`, full matches only). The flow is augmented along
//! shortest (most profitable) paths, all paths of equal cost at once (primal-dual: Dijkstra on
//! reduced costs, then a blocking flow on the zero-reduced-cost edges), and stops as soon as the
//! best path no longer gains: the result maximises total gain, which greedy first-match pairing
//! does not.
//!
//! Each slot node keeps only its `C` best incoming edges, `C` being the group's total slot
//! capacity: an optimal assignment never needs a worse one, since at most `C − 1` other calls
//! can be matched. So a group of `e` expectations with capacity 1 and `c` calls has at most
//! `e · min(c, e)` edges, whatever `c` is.
//!
//! Cost per group: O(P · E log V), P the number of distinct path costs (few: gains take few
//! values), E the kept edges, V the nodes; in practice near-linear in the pairs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::align::{Candidate, Slots};

/// The calls (ascending) assigned to each expectation.
pub(crate) fn align(
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    group_of: &[usize],
) -> (Vec<Vec<usize>>, bool) {
    let m = slots.len();
    let mut failed = false;
    let mut out = vec![Vec::new(); m];
    let groups = group_of.iter().copied().max().map_or(0, |g| g + 1);
    let mut exps_in: Vec<Vec<usize>> = vec![Vec::new(); groups];
    for (j, &g) in group_of.iter().enumerate() {
        exps_in[g].push(j);
    }
    let mut calls_in: Vec<Vec<usize>> = vec![Vec::new(); groups];
    for (i, cands) in by_call.iter().enumerate() {
        if let Some(c) = cands.first() {
            calls_in[group_of[c.exp]].push(i);
        }
    }
    for g in 0..groups {
        if exps_in[g].is_empty() || calls_in[g].is_empty() {
            continue;
        }
        match solve_group(slots, by_call, &exps_in[g], &calls_in[g]) {
            Some(pairs) => {
                for (j, i) in pairs {
                    out[j].push(i);
                }
            }
            None => failed = true,
        }
    }
    for calls in &mut out {
        calls.sort_unstable();
    }
    (out, failed)
}

/// One tool name's assignment, as (expectation, call) pairs; `None` if its graph could not be
/// allocated.
fn solve_group(
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    exps: &[usize],
    calls: &[usize],
) -> Option<Vec<(usize, usize)>> {
    let c = calls.len();
    let mut g = Graph::default();
    let (s, t) = (g.node(), g.node());
    let call_node: Vec<usize> = calls.iter().map(|_| g.node()).collect();
    // Slot nodes: (expectation, required?, node, capacity).
    let mut slot_nodes = Vec::new();
    let mut node_of = std::collections::HashMap::new();
    for &j in exps {
        let sl = &slots[j];
        let req = sl.min.min(c);
        let opt = match sl.max {
            Some(mx) => (mx - sl.min).min(c),
            None => c,
        };
        for (required, cap) in [(true, req), (false, opt)] {
            if cap > 0 {
                let node = g.node();
                node_of.insert((j, required), slot_nodes.len());
                slot_nodes.push((j, required, node, cap));
            }
        }
    }
    let capacity: usize = slot_nodes.iter().map(|x| x.3).sum::<usize>().min(c);
    // Candidate edges per slot node, best first, pruned to the group's capacity.
    let mut incoming: Vec<Vec<(i128, usize)>> = vec![Vec::new(); slot_nodes.len()];
    for (ci, &i) in calls.iter().enumerate() {
        for cand in &by_call[i] {
            let sl = &slots[cand.exp];
            if let Some(&sn) = node_of.get(&(cand.exp, true)) {
                let gain = if cand.full { sl.req_full } else { sl.req_name } + cand.bonus();
                incoming[sn].push((gain, ci));
            }
            if cand.full {
                if let Some(&sn) = node_of.get(&(cand.exp, false)) {
                    incoming[sn].push((sl.opt_full + cand.bonus(), ci));
                }
            }
        }
    }
    for edges in &mut incoming {
        let key = |&(gain, ci): &(i128, usize)| (Reverse(gain), ci);
        if edges.len() > capacity && capacity > 0 {
            edges.select_nth_unstable_by_key(capacity - 1, key);
        }
        edges.truncate(capacity);
        edges.sort_by_key(key);
    }
    // The edge lists are sized once: a group of 100 000 calls has 300 000 edges, and growing
    // the lists by doubling would reserve up to twice that.
    let edges = incoming.iter().map(Vec::len).sum::<usize>() + c + slot_nodes.len();
    g.try_reserve_edges(edges).ok()?;
    for (sn, edges) in incoming.iter().enumerate() {
        let node = slot_nodes[sn].2;
        for &(gain, ci) in edges {
            g.edge(call_node[ci], node, 1, -gain);
        }
    }
    drop(incoming);
    for &cn in &call_node {
        g.edge(s, cn, 1, 0);
    }
    for &(_, _, node, cap) in &slot_nodes {
        g.edge(node, t, cap as i64, 0);
    }
    g.max_gain_flow(s, t);
    let mut exp_at = vec![None; g.adj.len()];
    for &(j, _, node, _) in &slot_nodes {
        exp_at[node] = Some(j);
    }
    let mut pairs = Vec::new();
    for (ci, &cn) in call_node.iter().enumerate() {
        for &e in &g.adj[cn] {
            // Forward edges have even ids; a saturated call→slot edge carries the call.
            if e % 2 == 0 && g.cap[e] == 0 {
                if let Some(j) = exp_at[g.to[e]] {
                    pairs.push((j, calls[ci]));
                }
            }
        }
    }
    Some(pairs)
}

/// A residual graph; edge `e ^ 1` is the reverse of edge `e`.
#[derive(Default)]
struct Graph {
    adj: Vec<Vec<usize>>,
    to: Vec<usize>,
    cap: Vec<i64>,
    cost: Vec<i128>,
}

const INF: i128 = i128::MAX / 4;

impl Graph {
    fn node(&mut self) -> usize {
        self.adj.push(Vec::new());
        self.adj.len() - 1
    }

    /// Room for `n` more edges (and their reverses), or an error if it cannot be allocated.
    fn try_reserve_edges(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        let n = n.saturating_mul(2);
        self.to.try_reserve_exact(n)?;
        self.cap.try_reserve_exact(n)?;
        self.cost.try_reserve_exact(n)
    }

    fn edge(&mut self, u: usize, v: usize, cap: i64, cost: i128) {
        for (a, b, c, k) in [(u, v, cap, cost), (v, u, 0, -cost)] {
            self.adj[a].push(self.to.len());
            self.to.push(b);
            self.cap.push(c);
            self.cost.push(k);
        }
    }

    /// Augment while a path of negative cost exists; costs are `-gain`.
    fn max_gain_flow(&mut self, s: usize, t: usize) {
        let n = self.adj.len();
        let mut pot = self.initial_potentials(s);
        loop {
            // Dijkstra on reduced costs (non-negative by the potentials' invariant).
            let mut dist = vec![INF; n];
            dist[s] = 0;
            let mut heap = BinaryHeap::new();
            heap.push(Reverse((0i128, s)));
            while let Some(Reverse((d, u))) = heap.pop() {
                if d > dist[u] {
                    continue;
                }
                for &e in &self.adj[u] {
                    if self.cap[e] <= 0 {
                        continue;
                    }
                    let v = self.to[e];
                    let nd = d + self.cost[e] + pot[u] - pot[v];
                    if nd < dist[v] {
                        dist[v] = nd;
                        heap.push(Reverse((nd, v)));
                    }
                }
            }
            if dist[t] >= INF {
                return;
            }
            for v in 0..n {
                if dist[v] < INF {
                    pot[v] += dist[v];
                }
            }
            if pot[t] - pot[s] >= 0 {
                return;
            }
            self.blocking_flow(s, t, &pot);
        }
    }

    /// Shortest distances from `s` in the initial, layered graph (source → calls → slots → sink).
    fn initial_potentials(&self, s: usize) -> Vec<i128> {
        let n = self.adj.len();
        let mut pot = vec![INF; n];
        pot[s] = 0;
        // Three relaxation rounds settle a graph whose longest path has three edges.
        for _ in 0..3 {
            for u in 0..n {
                if pot[u] >= INF {
                    continue;
                }
                for &e in &self.adj[u] {
                    if self.cap[e] > 0 && pot[u] + self.cost[e] < pot[self.to[e]] {
                        pot[self.to[e]] = pot[u] + self.cost[e];
                    }
                }
            }
        }
        for p in &mut pot {
            if *p >= INF {
                *p = 0;
            }
        }
        pot
    }

    /// Push unit flows along zero-reduced-cost paths until none is left (Dinic on that subgraph).
    fn blocking_flow(&mut self, s: usize, t: usize, pot: &[i128]) {
        let n = self.adj.len();
        let admissible =
            |g: &Graph, e: usize, u: usize| g.cap[e] > 0 && g.cost[e] + pot[u] - pot[g.to[e]] == 0;
        loop {
            let mut level = vec![usize::MAX; n];
            level[s] = 0;
            let mut queue = std::collections::VecDeque::from([s]);
            while let Some(u) = queue.pop_front() {
                for &e in &self.adj[u] {
                    let v = self.to[e];
                    if level[v] == usize::MAX && admissible(self, e, u) {
                        level[v] = level[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
            if level[t] == usize::MAX {
                return;
            }
            let mut next = vec![0usize; n];
            // Iterative DFS: paths may be long (alternating through many calls).
            loop {
                let mut path: Vec<usize> = Vec::new();
                let mut u = s;
                let found = loop {
                    if u == t {
                        break true;
                    }
                    let mut advanced = false;
                    while next[u] < self.adj[u].len() {
                        let e = self.adj[u][next[u]];
                        let v = self.to[e];
                        if level[v] == level[u] + 1 && admissible(self, e, u) {
                            path.push(e);
                            u = v;
                            advanced = true;
                            break;
                        }
                        next[u] += 1;
                    }
                    if advanced {
                        continue;
                    }
                    // Dead end: retreat and skip the edge that led here.
                    level[u] = usize::MAX;
                    match path.pop() {
                        None => break false,
                        Some(e) => {
                            u = self.to[e ^ 1];
                            next[u] += 1;
                        }
                    }
                };
                if !found {
                    break;
                }
                for e in path {
                    self.cap[e] -= 1;
                    self.cap[e ^ 1] += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(min: usize, max: Option<usize>) -> Slots {
        Slots {
            min,
            max,
            req_full: 1000,
            req_name: 500,
            opt_full: 1,
            unit: 1,
        }
    }

    #[test]
    fn beats_greedy_first_match() {
        // Call 0 fully matches both A and B; call 1 fully matches only A. Greedy gives call 0 to
        // A and leaves B with a name-only call 1; the optimum is A←1, B←0.
        let s = [slots(1, Some(1)), slots(1, Some(1))];
        let by_call = vec![
            vec![
                Candidate {
                    exp: 0,
                    full: true,
                    capped: false,
                },
                Candidate {
                    exp: 1,
                    full: true,
                    capped: false,
                },
            ],
            vec![
                Candidate {
                    exp: 0,
                    full: true,
                    capped: false,
                },
                Candidate {
                    exp: 1,
                    full: false,
                    capped: false,
                },
            ],
        ];
        assert_eq!(align(&s, &by_call, &[0, 0]).0, vec![vec![1], vec![0]]);
    }

    #[test]
    fn repeats_and_optional_slots() {
        let s = [slots(1, None), slots(0, Some(1))];
        let by_call = vec![
            vec![
                Candidate {
                    exp: 0,
                    full: false,
                    capped: false,
                },
                Candidate {
                    exp: 1,
                    full: true,
                    capped: false,
                },
            ],
            vec![
                Candidate {
                    exp: 0,
                    full: true,
                    capped: false,
                },
                Candidate {
                    exp: 1,
                    full: false,
                    capped: false,
                },
            ],
            vec![Candidate {
                exp: 0,
                full: true,
                capped: false,
            }],
        ];
        assert_eq!(align(&s, &by_call, &[0, 0]).0, vec![vec![1, 2], vec![0]]);
    }

    #[test]
    fn groups_are_independent() {
        let s = [slots(1, Some(1)), slots(1, Some(1))];
        let by_call = vec![
            vec![Candidate {
                exp: 1,
                full: true,
                capped: false,
            }],
            vec![Candidate {
                exp: 0,
                full: false,
                capped: false,
            }],
        ];
        assert_eq!(align(&s, &by_call, &[0, 1]).0, vec![vec![1], vec![0]]);
    }
}
