//! Section rules are scoped (issue "What a new user hits first", part 7):
//! rules written for one algorithm do not put the others into one section,
//! `[algorithm.NAME]` tables apply to that algorithm only, and a rule that
//! matches nothing is reported once with a `tracing` warning.

use std::sync::{Arc, Mutex};

use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};

static SERVER: GraphInfo = GraphInfo {
    algorithm: "server",
    file: "",
    nodes: &[
        NodeInfo { name: "server/accept#1", kind: OpKind::Call, depth: 0, label: "accept", replicable: false, line: 0 },
        NodeInfo { name: "server/parse#2", kind: OpKind::Call, depth: 0, label: "parse", replicable: false, line: 0 },
        NodeInfo { name: "server/reply#3", kind: OpKind::Call, depth: 0, label: "reply", replicable: false, line: 0 },
    ],
    arcs: &[],
};

static OTHER: GraphInfo = GraphInfo {
    algorithm: "other",
    file: "",
    nodes: &[
        NodeInfo { name: "other/a#1", kind: OpKind::Call, depth: 0, label: "a", replicable: false, line: 0 },
        NodeInfo { name: "other/b#2", kind: OpKind::Call, depth: 0, label: "b", replicable: false, line: 0 },
        NodeInfo { name: "other/c#3", kind: OpKind::Call, depth: 0, label: "c", replicable: false, line: 0 },
        NodeInfo { name: "other/d#4", kind: OpKind::Call, depth: 0, label: "d", replicable: false, line: 0 },
    ],
    arcs: &[],
};

fn sections_of(g: &GraphInfo, d: &Deployment) -> usize {
    plan(g, d).sections
}

/// What `auto` gives `g` with `d`'s workers.
fn auto_sections(g: &GraphInfo, d: &Deployment) -> usize {
    sections_of(g, &d.clone().sections(SectionStrategy::Auto))
}

#[test]
fn process_wide_rules_do_not_serialise_an_algorithm_they_do_not_match() {
    let d = Deployment::from_toml_str("workers = 2\n[[section]]\nops = [\"server/accept#.*\"]\n").unwrap();
    // `server`: the rule's section plus one for the rest.
    assert_eq!(plan(&SERVER, &d).section_of, vec![0, 1, 1]);
    // `other`: no rule matches any of its operators, so `auto` (2 sections
    // on 2 workers), not one section holding everything.
    assert_eq!(sections_of(&OTHER, &d), auto_sections(&OTHER, &d));
    assert_eq!(sections_of(&OTHER, &d), 2);
}

#[test]
fn an_algorithm_table_applies_to_that_algorithm_only() {
    let d = Deployment::from_toml_str(
        r#"
        workers = 2
        sections = "single"
        [algorithm.server]
        sections = "per-op"
        [algorithm.other]
        [[algorithm.other.section]]
        ops = ["other/a#.*", "other/b#.*"]
        "#,
    )
    .unwrap();
    assert_eq!(sections_of(&SERVER, &d), 3, "server: per-op");
    assert_eq!(plan(&OTHER, &d).section_of, vec![0, 0, 1, 1], "other: its rules");
    let unlisted = GraphInfo { algorithm: "unlisted", file: "", ..SERVER };
    assert_eq!(sections_of(&unlisted, &d), 1, "unlisted: the process-wide `single`");
    assert!(d.sections.to_string().starts_with("per-algorithm["), "{}", d.sections);
}

#[test]
fn an_algorithm_table_is_checked_like_the_rest_of_the_file() {
    let err = Deployment::from_toml_str("[algorithm.server]\nsections = \"fastest\"\n").unwrap_err();
    assert!(err.to_string().contains("fastest"), "{err}");
    let err = Deployment::from_toml_str("[algorithm.server]\nworkers = 3\n").unwrap_err();
    assert!(err.to_string().contains("workers"), "unknown key in an algorithm table: {err}");
    let err = Deployment::from_toml_str("[[algorithm.server.section]]\nops = [\"(\"]\n").unwrap_err();
    assert!(err.to_string().contains("invalid section rule pattern"), "{err}");
}

/// Captures what `tracing` prints while `f` runs.
fn warnings_of(f: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    tracing::subscriber::with_default(subscriber, f);
    let text = buffer.0.lock().unwrap().clone();
    String::from_utf8(text).unwrap()
}

#[test]
fn a_rule_that_matches_nothing_is_reported_once() {
    let d = Deployment::from_toml_str(
        "[algorithm.server]\n[[algorithm.server.section]]\nops = [\"server/acept#.*\"]\n[[algorithm.server.section]]\nops = [\"server/reply#.*\"]\n",
    )
    .unwrap();
    let log = warnings_of(|| {
        for _ in 0..3 {
            plan(&SERVER, &d);
        }
    });
    assert_eq!(log.matches("WARN").count(), 1, "{log}");
    assert!(log.contains("server/acept#.*") && log.contains("`server`"), "{log}");
    assert!(!log.contains("server/reply"), "a rule that matches was reported: {log}");
}

#[test]
fn a_process_wide_rule_is_reported_only_where_the_rules_applied() {
    let d = Deployment::from_toml_str("[[section]]\nops = [\"other/a#.*\"]\n[[section]]\nops = [\"other/zzz#.*\"]\n")
        .unwrap();
    let log = warnings_of(|| {
        plan(&SERVER, &d); // the rules are not for `server`: no warning
    });
    assert!(log.is_empty(), "{log}");
    let log = warnings_of(|| {
        plan(&OTHER, &d);
        plan(&OTHER, &d);
    });
    assert_eq!(log.matches("WARN").count(), 1, "{log}");
    assert!(log.contains("other/zzz#.*"), "{log}");
}
