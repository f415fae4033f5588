//! The cycle a loop's feedback closes: which operators an iteration passes
//! through before the loop head can start the next one.

use super::GraphInfo;

impl GraphInfo {
    /// Loop heads: the nodes a feedback arc goes into (a `for` loop's
    /// carry, a `while` loop's operator), indexed by node id.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
    /// const fn arc(from: u32, to: u32, feedback: bool) -> ArcInfo {
    ///     ArcInfo { from, from_port: 0, to, to_port: 0, feedback }
    /// }
    /// const fn node(name: &'static str) -> NodeInfo {
    ///     NodeInfo { name, kind: OpKind::Call, depth: 1, label: "", replicable: false, line: 0 }
    /// }
    /// // 0 -> 1 -> 2 -> 3, and 2 feeds back into 1.
    /// static G: GraphInfo = GraphInfo {
    ///     algorithm: "g",
    ///     file: "",
    ///     nodes: &[node("g/a"), node("g/head"), node("g/body"), node("g/out")],
    ///     arcs: &[arc(0, 1, false), arc(1, 2, false), arc(2, 3, false), arc(2, 1, true)],
    /// };
    /// assert_eq!(G.loop_heads(), vec![false, true, false, false]);
    /// assert_eq!(G.loop_cycle(1), vec![false, true, true, false]);
    /// ```
    pub fn loop_heads(&self) -> Vec<bool> {
        let mut heads = vec![false; self.nodes.len()];
        for a in self.arcs.iter().filter(|a| a.feedback) {
            heads[a.to as usize] = true;
        }
        heads
    }

    /// The nodes on a cycle through loop head `head`, indexed by node id:
    /// reachable from `head` over forward arcs, and reaching the source of
    /// one of its feedback arcs (the head itself included). Empty (all
    /// `false`) if `head` is not a loop head.
    pub fn loop_cycle(&self, head: usize) -> Vec<bool> {
        let n = self.nodes.len();
        let forward = self.reach(&[head], |a| (a.from as usize, a.to as usize));
        let ends: Vec<usize> =
            self.arcs.iter().filter(|a| a.feedback && a.to as usize == head).map(|a| a.from as usize).collect();
        if ends.is_empty() {
            return vec![false; n];
        }
        let backward = self.reach(&ends, |a| (a.to as usize, a.from as usize));
        (0..n).map(|i| forward[i] && backward[i]).collect()
    }

    /// Nodes reachable from `start` over the forward (non-feedback) arcs,
    /// each arc read as `(from, to)` by `ends`. Adjacency lists first, so
    /// the walk is linear in the graph (a plan is made at every call).
    fn reach(&self, start: &[usize], ends: impl Fn(&super::ArcInfo) -> (usize, usize)) -> Vec<bool> {
        let n = self.nodes.len();
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (from, to) in self.arcs.iter().filter(|a| !a.feedback).map(&ends) {
            next[from].push(to);
        }
        let mut seen = vec![false; n];
        let mut todo: Vec<usize> = start.to_vec();
        for &s in start {
            seen[s] = true;
        }
        while let Some(i) = todo.pop() {
            for &to in &next[i] {
                if !seen[to] {
                    seen[to] = true;
                    todo.push(to);
                }
            }
        }
        seen
    }
}
