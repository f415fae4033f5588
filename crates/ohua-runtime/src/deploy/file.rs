//! The TOML deployment file.

use serde::Deserialize;

use super::{DeployError, Deployment, ReplicaRule, Replication, SectionRule, SectionStrategy};

/// The file as written; every key optional so it layers over other sources.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    workers: Option<i64>,
    batch_size: Option<i64>,
    arc_capacity: Option<i64>,
    sections: Option<String>,
    #[serde(default)]
    section: Vec<RuleConfig>,
    /// `auto`, `off` or `random:MAX:SEED` (rules are `[[replicate]]` tables).
    replicas: Option<String>,
    #[serde(default)]
    replicate: Vec<ReplicateConfig>,
    /// `concurrent`, `serial` or `unbatched`.
    io: Option<String>,
    /// `throughput` or `p99=<n>ms` (`replicas = "elastic"`'s policy).
    scaling: Option<String>,
    /// `values` or `serialized`.
    lanes: Option<String>,
    /// `[algorithm.NAME]`: sections of one algorithm only.
    #[serde(default)]
    algorithm: std::collections::BTreeMap<String, AlgorithmConfig>,
}

/// One `[algorithm.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlgorithmConfig {
    sections: Option<String>,
    #[serde(default)]
    section: Vec<RuleConfig>,
}

/// One `[[section]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleConfig {
    ops: Vec<String>,
}

/// One `[[replicate]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplicateConfig {
    ops: Vec<String>,
    replicas: i64,
}

/// Override the settings of `base` that the TOML document `s` sets.
///
/// # Errors
///
/// See [`Deployment::from_toml_str`].
pub(super) fn apply_toml(mut base: Deployment, s: &str) -> Result<Deployment, DeployError> {
    let cfg: FileConfig = toml::from_str(s).map_err(|e| DeployError::Toml { error: Box::new(e) })?;
    // Numbers are read as i64 so that `workers = -1` is reported as a bad
    // value of `workers` rather than as an opaque type error.
    if let Some(w) = cfg.workers {
        base.workers = positive("workers", w)?;
    }
    if let Some(b) = cfg.batch_size {
        base.batch_size = positive("batch_size", b)?;
    }
    if let Some(c) = cfg.arc_capacity {
        base.arc_capacity = positive("arc_capacity", c)?;
    }
    if let Some(s) = strategy(cfg.sections.as_deref(), &cfg.section)? {
        base.sections = s;
    }
    if let Some(r) = replication(cfg.replicas.as_deref(), &cfg.replicate)? {
        base.replicas = r;
    }
    if let Some(io) = &cfg.io {
        base.io = io.parse()?;
    }
    if let Some(lanes) = &cfg.lanes {
        base.lanes = lanes.parse()?;
    }
    if let Some(scaling) = &cfg.scaling {
        base.scaling = scaling.parse()?;
    }
    if !cfg.algorithm.is_empty() {
        let mut algorithms = Vec::new();
        for (name, a) in &cfg.algorithm {
            // A table that sets nothing keeps the process-wide default.
            if let Some(s) = strategy(a.sections.as_deref(), &a.section)? {
                shadowed(&base.sections, name)?;
                algorithms.push((name.clone(), s));
            }
        }
        base.sections = SectionStrategy::PerAlgorithm { default: Box::new(base.sections), algorithms };
    }
    Ok(base)
}

/// The strategy a table sets: its rules if it has `[[section]]` tables
/// (they win over `sections`), else its `sections` string, else none.
fn strategy(sections: Option<&str>, rules: &[RuleConfig]) -> Result<Option<SectionStrategy>, DeployError> {
    if !rules.is_empty() {
        let rules = rules.iter().map(|r| SectionRule::new(&r.ops)).collect::<Result<Vec<_>, _>>()?;
        return Ok(Some(SectionStrategy::Rules(rules)));
    }
    sections.map(str::parse).transpose()
}

/// The replication a file sets: its `[[replicate]]` rules (which win over
/// `replicas`), else its `replicas` string, else none.
fn replication(replicas: Option<&str>, rules: &[ReplicateConfig]) -> Result<Option<Replication>, DeployError> {
    if !rules.is_empty() {
        let rules = rules
            .iter()
            .map(|r| ReplicaRule::new(SectionRule::new(&r.ops)?, positive("replicas", r.replicas)?))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Some(Replication::Rules(rules)));
    }
    replicas.map(str::parse).transpose()
}

/// A process-wide rule written for `algorithm` (`algorithm/..` patterns)
/// would never apply, as that algorithm's own table sets its sections:
/// rejected, saying where the rule belongs, rather than silently dropped.
fn shadowed(process_wide: &SectionStrategy, algorithm: &str) -> Result<(), DeployError> {
    let SectionStrategy::Rules(rules) = process_wide else { return Ok(()) };
    match rules.iter().find(|r| r.algorithm() == Some(algorithm)) {
        Some(rule) => Err(DeployError::Value {
            key: "section".to_string(),
            value: format!("ops = [\"{}\"]", rule.patterns().join("\", \"")),
            reason: "this process-wide [[section]] rule names an algorithm that has its own \
                     [algorithm.NAME] table, so it would never apply; move it into that table as \
                     [[algorithm.NAME.section]]",
        }),
        None => Ok(()),
    }
}

/// `v` as a `usize` if it is at least 1.
fn positive(key: &str, v: i64) -> Result<usize, DeployError> {
    usize::try_from(v).ok().filter(|&v| v > 0).ok_or_else(|| DeployError::not_positive(key, v))
}
