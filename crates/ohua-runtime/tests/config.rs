//! Deployment configuration: the TOML file, environment variables and their
//! precedence (through the injectable lookup, so no process env is touched).

use std::collections::HashMap;
use std::path::PathBuf;

use ohua_runtime::deploy::{from_env_with, DeployError, Deployment, IoMode, Replication, SectionRule, SectionStrategy};

fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |k| map.get(k).cloned()
}

/// A config file unique to this test, removed when dropped.
struct TempConfig(PathBuf);

impl TempConfig {
    fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("ohua-runtime-config-{}-{name}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempConfig(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempConfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn toml_with_every_key() {
    let d = Deployment::from_toml_str(
        r#"
        workers = 2
        batch_size = 64
        arc_capacity = 8
        sections = "random:3:42"
        "#,
    )
    .unwrap();
    let want = Deployment::default()
        .workers(2)
        .sections(SectionStrategy::Random { sections: 3, seed: 42 })
        .batch_size(64)
        .arc_capacity(8);
    assert_eq!(d, want);
}

#[test]
fn toml_rules_win_over_sections() {
    let d = Deployment::from_toml_str(
        r#"
        sections = "single"
        [[section]]
        ops = ["word_freq/split#.*", "word_freq/normalize#.*"]
        [[section]]
        ops = ["word_freq/merge#.*"]
        "#,
    )
    .unwrap();
    let want = vec![
        SectionRule::new(["word_freq/split#.*", "word_freq/normalize#.*"]).unwrap(),
        SectionRule::new(["word_freq/merge#.*"]).unwrap(),
    ];
    assert_eq!(d.sections, SectionStrategy::Rules(want));
    assert_eq!(d.batch_size, ohua_runtime::deploy::DEFAULT_BATCH_SIZE, "unset keys keep their defaults");
}

#[test]
fn empty_toml_is_the_default() {
    assert_eq!(Deployment::from_toml_str("").unwrap(), Deployment::default());
}

#[test]
fn toml_errors() {
    let err = |s: &str| Deployment::from_toml_str(s).unwrap_err();
    assert!(matches!(err("wrokers = 2"), DeployError::Toml { .. }));
    assert!(err("wrokers = 2").to_string().contains("wrokers"));
    assert!(matches!(err("[[section]]\nops = [\"a\"]\nname = \"x\""), DeployError::Toml { .. }));
    assert!(matches!(err("workers = \"two\""), DeployError::Toml { .. }));
    assert!(matches!(err("workers = 0"), DeployError::Value { .. }));
    assert!(matches!(err("batch_size = -3"), DeployError::Value { .. }));
    assert!(matches!(err("sections = \"fast\""), DeployError::Strategy(_)));
    assert!(matches!(err("sections = \"random:0:1\""), DeployError::Strategy(_)));
    let bad_regex = err("[[section]]\nops = [\"split(\"]");
    assert!(matches!(bad_regex, DeployError::Regex { .. }));
    assert!(bad_regex.to_string().contains("split("));
}

#[test]
fn strategy_strings() {
    for (s, want) in [
        ("auto", SectionStrategy::Auto),
        ("single", SectionStrategy::Single),
        ("per-op", SectionStrategy::PerOperator),
        ("random:2:9", SectionStrategy::Random { sections: 2, seed: 9 }),
    ] {
        assert_eq!(s.parse::<SectionStrategy>().unwrap(), want);
        assert_eq!(want.to_string(), s);
    }
    for bad in ["", "random", "random:2", "random:x:1", "random:2:-1", "Auto"] {
        assert!(bad.parse::<SectionStrategy>().is_err(), "{bad:?}");
    }
}

#[test]
fn env_without_variables_is_the_default() {
    assert_eq!(from_env_with(lookup(&[])).unwrap(), Deployment::default());
    // Empty values count as unset.
    assert_eq!(from_env_with(lookup(&[("OHUA_WORKERS", "")])).unwrap(), Deployment::default());
}

#[test]
fn env_variables() {
    let d = from_env_with(lookup(&[
        ("OHUA_WORKERS", "3"),
        ("OHUA_SECTIONS", "per-op"),
        ("OHUA_BATCH", "16"),
        ("OHUA_ARC_CAPACITY", "4"),
    ]))
    .unwrap();
    let want = Deployment::default().workers(3).sections(SectionStrategy::PerOperator).batch_size(16).arc_capacity(4);
    assert_eq!(d, want);
}

#[test]
fn the_scaling_policy_from_the_environment() {
    let d = from_env_with(lookup(&[("OHUA_SCALING", "p99=800us")])).unwrap();
    assert_eq!(d.scaling.to_string(), "p99=800us");
    let bad = from_env_with(lookup(&[("OHUA_SCALING", "p99=5")])).unwrap_err().to_string();
    assert!(bad.contains("OHUA_SCALING") && bad.contains("unit"), "{bad}");
}

#[test]
fn env_overrides_the_file_which_overrides_defaults() {
    let file = TempConfig::new("layers", "workers = 5\nbatch_size = 7\n[[section]]\nops = [\".*\"]");
    let d = from_env_with(lookup(&[("OHUA_CONFIG", file.path()), ("OHUA_WORKERS", "2")])).unwrap();
    assert_eq!(d.workers, 2, "env beats file");
    assert_eq!(d.batch_size, 7, "file beats default");
    assert_eq!(d.arc_capacity, ohua_runtime::deploy::DEFAULT_ARC_CAPACITY, "default where nobody says");
    assert!(matches!(d.sections, SectionStrategy::Rules(_)));
    let d = from_env_with(lookup(&[("OHUA_CONFIG", file.path()), ("OHUA_SECTIONS", "single")])).unwrap();
    assert_eq!(d.sections, SectionStrategy::Single, "env sections beat file rules");
}

#[test]
fn env_errors_name_the_variable() {
    for (var, value) in [
        ("OHUA_WORKERS", "zero"),
        ("OHUA_WORKERS", "0"),
        ("OHUA_SECTIONS", "random:1"),
        ("OHUA_BATCH", "-1"),
        ("OHUA_ARC_CAPACITY", "1k"),
        ("OHUA_REPLICAS", "many"),
        ("OHUA_REPLICAS", "alg/f#.*=0"),
        ("OHUA_REPLICAS", "random:0:1"),
    ] {
        let err = from_env_with(lookup(&[(var, value)])).unwrap_err();
        assert!(matches!(err, DeployError::Env { var: v, .. } if v == var), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(var) && text.contains(value), "{text}");
    }
}

#[test]
fn file_errors_name_the_file() {
    let missing = "/nonexistent/ohua/deploy.toml";
    let err = from_env_with(lookup(&[("OHUA_CONFIG", missing)])).unwrap_err();
    assert!(matches!(err, DeployError::Io { .. }));
    assert!(err.to_string().contains(missing));

    let file = TempConfig::new("bad", "workers = 1\nthreads = 4\n");
    let err = from_env_with(lookup(&[("OHUA_CONFIG", file.path())])).unwrap_err();
    assert!(matches!(&err, DeployError::File { error, .. } if matches!(**error, DeployError::Toml { .. })));
    let text = err.to_string();
    assert!(text.contains(file.path()) && text.contains("threads"), "{text}");
}

// Scoped rules (issue 9, part 7): what a rule applies to and when a rule
// that has no effect is reported. Each test uses its own algorithm names,
// as the record of reported rules is per process.

mod scoping {
    use std::sync::{Arc, Mutex};

    use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
    use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};

    const fn call(name: &'static str) -> NodeInfo {
        NodeInfo { name, kind: OpKind::Call, depth: 0, label: name, replicable: false, line: 0 }
    }

    static SPLITTER: GraphInfo = GraphInfo {
        algorithm: "splitter",
        file: "",
        nodes: &[call("splitter/split#1"), call("splitter/count#2"), call("splitter/emit#3")],
        arcs: &[],
    };

    static WORD_FREQ: GraphInfo = GraphInfo {
        algorithm: "word_freq",
        file: "",
        nodes: &[call("word_freq/split#1"), call("word_freq/merge#2"), call("word_freq/top#3")],
        arcs: &[],
    };

    /// What `tracing` prints on this thread while `f` runs.
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
    fn a_misspelt_rule_for_an_algorithm_is_reported_though_no_rule_applies() {
        // The only rule names `splitter` but misspells its function: no rule
        // matches, so `splitter` keeps `auto`, which is reported once.
        let d = Deployment::from_toml_str("workers = 2\n[[section]]\nops = [\"splitter/splt#.*\"]\n").unwrap();
        let auto = d.clone().sections(SectionStrategy::Auto);
        let log = warnings_of(|| {
            for _ in 0..3 {
                assert_eq!(plan(&SPLITTER, &d), plan(&SPLITTER, &auto), "keeps auto");
            }
        });
        assert_eq!(log.matches("WARN").count(), 1, "{log}");
        assert!(log.contains("splitter/splt#.*") && log.contains("keeps `auto`"), "{log}");
    }

    #[test]
    fn a_misspelt_algorithm_name_is_reported_when_a_similar_one_runs() {
        let d = Deployment::from_toml_str("workers = 2\n[algorithm.wordfreq]\nsections = \"single\"\n").unwrap();
        let log = warnings_of(|| {
            plan(&SPLITTER, &d); // not similar: nothing to say
        });
        assert!(log.is_empty(), "{log}");
        let log = warnings_of(|| {
            for _ in 0..3 {
                assert_eq!(plan(&WORD_FREQ, &d).sections, 2, "not configured: the default, auto");
            }
        });
        assert_eq!(log.matches("WARN").count(), 1, "{log}");
        assert!(log.contains("`wordfreq`") && log.contains("[algorithm.word_freq]"), "{log}");
    }

    /// The example file in the README's configuration section parses, and
    /// scopes as the README says.
    #[test]
    fn the_readme_example_file_is_valid() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("   ```toml\n").expect("a TOML block in the README") + "   ```toml\n".len();
        let end = start + readme[start..].find("   ```\n").expect("its end");
        let text: String = readme[start..end].lines().map(|l| format!("{}\n", l.trim_start())).collect();
        let d = Deployment::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let server = GraphInfo { algorithm: "server", file: "", ..SPLITTER };
        assert_eq!(plan(&server, &d).sections, 3, "server: its own per-op");
        assert_eq!(plan(&WORD_FREQ, &d).section_of, vec![0, 1, 2], "word_freq: the two rules and the rest");
    }

    #[test]
    fn a_process_wide_rule_for_an_algorithm_with_a_table_is_rejected() {
        let toml = "[[section]]\nops = [\"server/accept#.*\"]\n[algorithm.server]\nsections = \"per-op\"\n";
        let err = Deployment::from_toml_str(toml).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("server/accept#.*") && text.contains("[[algorithm.NAME.section]]"), "{text}");
        // Rules for other algorithms, and an empty table, are fine.
        Deployment::from_toml_str("[[section]]\nops = [\"other/a#.*\"]\n[algorithm.server]\nsections = \"single\"\n")
            .unwrap();
        Deployment::from_toml_str("[[section]]\nops = [\"server/accept#.*\"]\n[algorithm.server]\n").unwrap();
    }
}

#[test]
fn replicas_from_the_file_and_the_environment() {
    let d = Deployment::from_toml_str("replicas = \"off\"").unwrap();
    assert_eq!(d.replicas, Replication::Off);
    let d = Deployment::from_toml_str(
        r#"
        replicas = "off"
        [[replicate]]
        ops = ["alg/parse#.*", "alg/score#3"]
        replicas = 3
        [[replicate]]
        ops = [".*"]
        replicas = 1
        "#,
    )
    .unwrap();
    assert_eq!(d.replicas.by_rules("alg/parse#2"), Some(3), "rules win over `replicas`");
    assert_eq!(d.replicas.by_rules("alg/score#3"), Some(3));
    assert_eq!(d.replicas.by_rules("alg/other#4"), Some(1), "the first matching rule wins");
    let d = from_env_with(lookup(&[("OHUA_REPLICAS", "alg/parse#.*=2; alg/score#.*=4")])).unwrap();
    assert_eq!((d.replicas.by_rules("alg/parse#2"), d.replicas.by_rules("alg/score#9")), (Some(2), Some(4)));
    assert_eq!(d.replicas.by_rules("alg/other#1"), Some(1), "no rule: runs once");
    let d = from_env_with(lookup(&[("OHUA_REPLICAS", "random:4:7")])).unwrap();
    assert_eq!(d.replicas, Replication::Random { max: 4, seed: 7 });
    assert_eq!(Deployment::default().replicas, Replication::Auto);
}

#[test]
fn bad_replica_settings_are_rejected_with_the_value() {
    for (toml, fragment) in [
        ("[[replicate]]\nops = [\"a/b#.*\"]\nreplicas = 0", "replicas"),
        ("[[replicate]]\nops = [\"a/b#.*\"]\nreplicas = 65", "65"),
        ("[[replicate]]\nops = [\"a/(b#.*\"]\nreplicas = 2", "a/(b#.*"),
        ("[[replicate]]\nops = [\"a/b#.*\"]", "replicas"),
        ("replicas = \"sometimes\"", "sometimes"),
    ] {
        let err = Deployment::from_toml_str(toml).unwrap_err().to_string();
        assert!(err.contains(fragment), "{toml}: {err}");
    }
}

/// Each builder method sets the field it names and nothing else: the
/// result equals the default with that one field assigned by hand (`==`
/// compares every field, so also fields added later).
#[test]
fn each_builder_sets_exactly_its_field() {
    let base = Deployment::default();
    let rule = SectionRule::new(["alg/f#.*"]).unwrap();
    let sections = SectionStrategy::Rules(vec![rule]);
    let replicas: Replication = "alg/f#.*=3".parse().unwrap();
    let workers = base.workers + 1;
    // Every value differs from the default, so a builder that ignored its
    // argument would fail too.
    assert_ne!(sections, base.sections);
    assert_ne!(base.batch_size, 7);
    assert_ne!(base.arc_capacity, 9);
    assert_ne!(replicas, base.replicas);
    assert_ne!(IoMode::Unbatched, base.io);

    let by_hand = |set: &dyn Fn(&mut Deployment)| {
        let mut d = base.clone();
        set(&mut d);
        d
    };
    assert_eq!(base.clone().workers(workers), by_hand(&|d| d.workers = workers));
    assert_eq!(base.clone().sections(sections.clone()), by_hand(&|d| d.sections = sections.clone()));
    assert_eq!(base.clone().batch_size(7), by_hand(&|d| d.batch_size = 7));
    assert_eq!(base.clone().arc_capacity(9), by_hand(&|d| d.arc_capacity = 9));
    assert_eq!(base.clone().replicas(replicas.clone()), by_hand(&|d| d.replicas = replicas.clone()));
    assert_eq!(base.clone().io(IoMode::Unbatched), by_hand(&|d| d.io = IoMode::Unbatched));

    // All of them, in either order, and the last call of one method wins.
    let all = base
        .clone()
        .workers(workers)
        .sections(sections.clone())
        .batch_size(7)
        .arc_capacity(9)
        .replicas(replicas.clone())
        .io(IoMode::Unbatched);
    let reversed = base
        .clone()
        .io(IoMode::Unbatched)
        .replicas(replicas.clone())
        .arc_capacity(9)
        .batch_size(7)
        .sections(sections.clone())
        .workers(1)
        .workers(workers);
    assert_eq!(all, reversed);
    assert_eq!(
        (all.workers, &all.sections, all.batch_size, all.arc_capacity, &all.replicas, all.io),
        (workers, &sections, 7, 9, &replicas, IoMode::Unbatched)
    );
}

#[test]
#[should_panic(expected = "Deployment::workers(0): expected a positive number")]
fn zero_workers_are_rejected() {
    let _ = Deployment::default().workers(0);
}

#[test]
#[should_panic(expected = "Deployment::batch_size(0): expected a positive number")]
fn a_zero_batch_size_is_rejected() {
    let _ = Deployment::default().batch_size(0);
}

#[test]
#[should_panic(expected = "Deployment::arc_capacity(0): expected a positive number")]
fn a_zero_arc_capacity_is_rejected() {
    let _ = Deployment::default().arc_capacity(0);
}
