//! Reading the deployment from the environment.

use std::path::PathBuf;

use super::{file, DeployError, Deployment};

/// Names the TOML configuration file.
pub const OHUA_CONFIG: &str = "OHUA_CONFIG";
/// Overrides [`Deployment::workers`].
pub const OHUA_WORKERS: &str = "OHUA_WORKERS";
/// Overrides [`Deployment::sections`].
pub const OHUA_SECTIONS: &str = "OHUA_SECTIONS";
/// Overrides [`Deployment::batch_size`].
pub const OHUA_BATCH: &str = "OHUA_BATCH";
/// Overrides [`Deployment::arc_capacity`].
pub const OHUA_ARC_CAPACITY: &str = "OHUA_ARC_CAPACITY";
/// Overrides [`Deployment::replicas`] (`auto`, `off`, `random:MAX:SEED` or
/// `PATTERN=N; PATTERN=N`, see [`super::Replication`]).
pub const OHUA_REPLICAS: &str = "OHUA_REPLICAS";
/// Overrides [`Deployment::io`] (`concurrent`, `serial` or `unbatched`).
pub const OHUA_IO: &str = "OHUA_IO";
/// Overrides [`Deployment::lanes`] (`values` or `serialized`).
pub const OHUA_LANES: &str = "OHUA_LANES";
/// Overrides [`Deployment::scaling`] (`throughput` or `p99=<n>ms`).
pub const OHUA_SCALING: &str = "OHUA_SCALING";

/// The deployment from the process environment: defaults, then the file in
/// `OHUA_CONFIG`, then the `OHUA_*` variables.
///
/// # Errors
///
/// See [`from_env_with`].
pub fn from_env() -> Result<Deployment, DeployError> {
    from_env_with(|k| std::env::var(k).ok())
}

/// Like [`from_env`], with variables looked up through `lookup`, so the
/// layering can be tested without touching the process environment.
///
/// # Errors
///
/// [`DeployError::File`] (or [`DeployError::Io`]) if the file named by
/// `OHUA_CONFIG` is unreadable or invalid, [`DeployError::Env`] naming the
/// variable if an `OHUA_*` variable is invalid.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{from_env_with, SectionStrategy};
/// let env = |k: &str| match k {
///     "OHUA_WORKERS" => Some("3".to_string()),
///     "OHUA_SECTIONS" => Some("single".to_string()),
///     _ => None,
/// };
/// let d = from_env_with(env).unwrap();
/// assert_eq!((d.workers, d.sections), (3, SectionStrategy::Single));
///
/// let bad = |k: &str| (k == "OHUA_BATCH").then(|| "lots".to_string());
/// assert!(from_env_with(bad).unwrap_err().to_string().contains("OHUA_BATCH"));
/// ```
pub fn from_env_with(lookup: impl Fn(&str) -> Option<String>) -> Result<Deployment, DeployError> {
    // Empty values count as unset, the usual shell convention (`OHUA_X= cmd`).
    let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
    let mut d = Deployment::default();
    if let Some(path) = get(OHUA_CONFIG) {
        let path = PathBuf::from(path);
        let text = std::fs::read_to_string(&path).map_err(|error| DeployError::Io { path: path.clone(), error })?;
        d = file::apply_toml(d, &text).map_err(|e| DeployError::File { path, error: Box::new(e) })?;
    }
    let in_var = |var: &'static str| move |e: DeployError| DeployError::Env { var, error: Box::new(e) };
    if let Some(v) = get(OHUA_WORKERS) {
        d.workers = positive("workers", &v).map_err(in_var(OHUA_WORKERS))?;
    }
    if let Some(v) = get(OHUA_SECTIONS) {
        d.sections = v.parse().map_err(in_var(OHUA_SECTIONS))?;
    }
    if let Some(v) = get(OHUA_BATCH) {
        d.batch_size = positive("batch_size", &v).map_err(in_var(OHUA_BATCH))?;
    }
    if let Some(v) = get(OHUA_ARC_CAPACITY) {
        d.arc_capacity = positive("arc_capacity", &v).map_err(in_var(OHUA_ARC_CAPACITY))?;
    }
    if let Some(v) = get(OHUA_REPLICAS) {
        d.replicas = v.parse().map_err(in_var(OHUA_REPLICAS))?;
    }
    if let Some(v) = get(OHUA_IO) {
        d.io = v.parse().map_err(in_var(OHUA_IO))?;
    }
    if let Some(v) = get(OHUA_LANES) {
        d.lanes = v.parse().map_err(in_var(OHUA_LANES))?;
    }
    if let Some(v) = get(OHUA_SCALING) {
        d.scaling = v.parse().map_err(in_var(OHUA_SCALING))?;
    }
    Ok(d)
}

/// Parse a positive integer setting.
fn positive(key: &str, v: &str) -> Result<usize, DeployError> {
    v.trim().parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| DeployError::not_positive(key, v))
}
