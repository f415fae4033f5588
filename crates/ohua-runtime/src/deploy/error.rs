//! Why a deployment configuration was rejected.

use std::path::PathBuf;

/// A deployment configuration that cannot be used.
///
/// [`crate::exec::execute`] turns this into a panic naming the source (the
/// environment variable or the file) and the problem, because a misconfigured
/// deployment is a bug in how the program was started, not a runtime
/// condition the algorithm could handle.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{DeployError, Deployment};
/// let err = Deployment::from_toml_str("workers = 0").unwrap_err();
/// assert!(matches!(err, DeployError::Value { .. }));
/// assert!(err.to_string().contains("workers"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// A section rule pattern is not a valid regular expression.
    #[error("invalid section rule pattern `{pattern}`: {error}")]
    Regex {
        /// The pattern as written.
        pattern: String,
        /// What the regex parser said.
        error: Box<regex_lite::Error>,
    },
    /// A `sections` strategy string is not one of the known forms.
    #[error("invalid sections strategy `{0}` (expected `auto`, `single`, `per-op` or `random:N:SEED`)")]
    Strategy(String),
    /// A setting has a value outside its domain (for example `workers = 0`).
    #[error("invalid value `{value}` for `{key}`: {reason}")]
    Value {
        /// The setting.
        key: String,
        /// The offending value as written.
        value: String,
        /// What a valid value looks like.
        reason: &'static str,
    },
    /// An environment variable holds an invalid setting.
    #[error("environment variable {var}: {error}")]
    Env {
        /// The variable's name.
        var: &'static str,
        /// What is wrong with its value.
        error: Box<DeployError>,
    },
    /// The configuration file could not be read.
    #[error("cannot read deployment config file `{}`: {error}", path.display())]
    Io {
        /// The file named by `OHUA_CONFIG`.
        path: PathBuf,
        /// The I/O failure.
        error: std::io::Error,
    },
    /// The configuration is not valid TOML or has unknown keys.
    #[error("invalid deployment config: {error}")]
    Toml {
        /// The parser's message (with line and column).
        error: Box<toml::de::Error>,
    },
    /// The configuration file has an invalid setting.
    #[error("deployment config file `{}`: {error}", path.display())]
    File {
        /// The file named by `OHUA_CONFIG`.
        path: PathBuf,
        /// What is wrong with its contents.
        error: Box<DeployError>,
    },
}

impl DeployError {
    /// A [`DeployError::Value`] for a setting that must be a positive integer.
    pub(crate) fn not_positive(key: &str, value: impl ToString) -> Self {
        DeployError::Value { key: key.to_string(), value: value.to_string(), reason: "expected a positive integer" }
    }
}
