//! The TOML deployment file.

use serde::Deserialize;

use super::{DeployError, Deployment, SectionRule, SectionStrategy};

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
}

/// One `[[section]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleConfig {
    ops: Vec<String>,
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
    if let Some(s) = &cfg.sections {
        base.sections = s.parse()?;
    }
    if !cfg.section.is_empty() {
        let rules = cfg.section.iter().map(|r| SectionRule::new(&r.ops)).collect::<Result<Vec<_>, _>>()?;
        base.sections = SectionStrategy::Rules(rules);
    }
    Ok(base)
}

/// `v` as a `usize` if it is at least 1.
fn positive(key: &str, v: i64) -> Result<usize, DeployError> {
    usize::try_from(v).ok().filter(|&v| v > 0).ok_or_else(|| DeployError::not_positive(key, v))
}
