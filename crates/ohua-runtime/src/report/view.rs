//! A run's report as the live view's data (`ohua_view::RunView`): what
//! `OHUA_VIEW` serves while the process runs and what a saved report file
//! holds (`RunReport::to_view_json`, `ohua view report.json`).

use std::time::Instant;

use ohua_view::{Event, IoSiteView, IoSource, Operator, RunView, Series, Snapshots, View};

use super::RunReport;

impl RunReport {
    /// The run as the view shows it, with times on an axis that starts at
    /// `origin` (the run's own start for a saved report, the view's start
    /// in a live process). Its `series` is left empty: a single run has no
    /// history (the live view fills it from many).
    ///
    /// # Example
    ///
    /// A report from `ohua::profile` turned into the view's data, as in
    /// the `ohua` crate's documentation of the view.
    pub fn to_view(&self, origin: Instant) -> RunView {
        let wall_s = self.wall.as_secs_f64();
        let per_wall = |x: f64| if wall_s > 0.0 { x / wall_s } else { 0.0 };
        let id_of = |name: &str| self.graph.nodes.iter().position(|n| n.name == name);
        let operators = self
            .nodes
            .iter()
            .enumerate()
            .map(|(id, n)| {
                let info = self.graph.nodes.get(id);
                let busy_s = n.busy.as_secs_f64();
                Operator {
                    id,
                    name: n.name.to_string(),
                    kind: n.kind.to_string(),
                    label: info.map_or_else(String::new, |i| i.label.to_string()),
                    // 0: the compiler did not know it.
                    line: info.map(|i| i.line).filter(|&l| l > 0),
                    depth: info.map_or(0, |i| i.depth),
                    section: n.section,
                    replicas: self.plan.replicas.get(id).copied().unwrap_or(1).max(n.replicas.len()).max(1),
                    // A running run's replicas have no statistics yet: the plan's.
                    replica_sections: if n.replicas.is_empty() {
                        self.plan.replica_sections.get(id).cloned().unwrap_or_default()
                    } else {
                        n.replicas.iter().map(|r| r.section).collect()
                    },
                    fused_into: n.fused_into.and_then(id_of),
                    firings: n.firings,
                    busy_ms: busy_s * 1e3,
                    busy_pct: per_wall(busy_s) * 100.0,
                    items_per_s: per_wall(n.firings as f64),
                    queue_fill: None,
                }
            })
            .collect();
        let arcs = self
            .graph
            .arcs
            .iter()
            .map(|a| ohua_view::Edge { from: a.from as usize, to: a.to as usize, feedback: a.feedback })
            .collect();
        RunView {
            algorithm: self.algorithm.to_string(),
            file: Some(self.graph.file).filter(|f| !f.is_empty()).map(str::to_string),
            running: false,
            probed: false,
            calls: 1,
            wall_ms: wall_s * 1e3,
            sections: self.sections,
            operators,
            arcs,
            io: self.io_view(),
            events: self.events(origin),
            series: Series::default(),
            snapshots: Snapshots { taken: self.snapshots.taken, copies: self.snapshots.copies },
            panicked: self.panicked.map(str::to_string),
        }
    }

    /// The run as a saved view document (JSON), for `ohua view FILE`: what
    /// `OHUA_VIEW_SAVE=<dir>` writes for each run.
    ///
    /// # Example
    ///
    /// See the `ohua` crate's documentation of the view.
    pub fn to_view_json(&self) -> String {
        View::new(false, vec![self.to_view(self.started)]).to_json()
    }

    fn io_view(&self) -> Vec<IoSource> {
        self.io
            .iter()
            .map(|s| IoSource {
                source: s.source.clone(),
                fetches: s.fetches,
                calls: s.calls,
                requests: s.requests,
                deduplicated: s.deduplicated,
                cached: s.cached,
                errors: s.errors,
                mean_batch: if s.calls > 0 { s.requests as f64 / s.calls as f64 } else { 0.0 },
                sites: self
                    .io_sites
                    .iter()
                    .filter(|site| site.source == s.source)
                    .map(|site| IoSiteView {
                        operator: site.operator.to_string(),
                        request: site.request.clone(),
                        fetches: site.fetches,
                        cached: site.cached,
                        rounds: site.rounds.clone(),
                    })
                    .collect(),
            })
            .collect()
    }

    /// Markers, re-cuts and scaling decisions, in time order.
    fn events(&self, origin: Instant) -> Vec<Event> {
        let since_origin = |at: Instant| at.saturating_duration_since(origin).as_secs_f64();
        let run_start = since_origin(self.started);
        let mut events: Vec<Event> = self
            .markers
            .iter()
            .map(|m| {
                let kind = if m.saved.is_empty() { "update" } else { "checkpoint" };
                let what = if m.saved.is_empty() {
                    format!("marker {}: {} operator(s) adopted it", m.id, m.adopted.len())
                } else {
                    format!("marker {}: {} state(s) saved", m.id, m.saved.len())
                };
                Event {
                    kind: kind.into(),
                    at_s: since_origin(m.requested),
                    cut_ms: Some(m.until_cut.as_secs_f64() * 1e3),
                    complete_ms: Some(m.until_complete.as_secs_f64() * 1e3),
                    text: format!("{what}, after {} item(s)", m.items_before()),
                }
            })
            .collect();
        events.extend(self.recuts.iter().map(|r| Event {
            kind: "recut".into(),
            at_s: run_start + r.at.as_secs_f64(),
            text: r.to_string(),
            ..Event::default()
        }));
        for n in &self.nodes {
            events.extend(n.decisions.iter().map(|d| Event {
                kind: "scaling".into(),
                at_s: run_start + d.at.as_secs_f64(),
                text: format!("{}: {d}", n.name),
                ..Event::default()
            }));
        }
        events.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        events
    }
}
