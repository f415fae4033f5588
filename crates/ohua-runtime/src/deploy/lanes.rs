//! What the lanes of replicated calls carry: values, or values as bytes.

use std::fmt;
use std::str::FromStr;

use super::DeployError;

/// What a replicated call's lanes carry between its scatter, its replicas
/// and its gather. The default passes the values themselves. `serialized`
/// sends every argument tuple and every result tuple of a call of a
/// `#[ohua::algorithm(cluster)]` algorithm through bytes and back, in this
/// process: what a lane to a replica in another process does
/// (`crates/ohua-cluster`), so that an algorithm can be checked against
/// sequential execution with its values crossing as bytes, and the bytes
/// per item it would send are in the report ([`crate::report::EncodedStats`]).
/// Calls of other algorithms, and calls that run once, are not affected.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::deploy::*; }
/// use ohua::Lanes;
/// assert_eq!("serialized".parse::<Lanes>().unwrap(), Lanes::Serialized);
/// assert_eq!(Lanes::default().to_string(), "values");
/// assert!("bytes".parse::<Lanes>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lanes {
    /// The values themselves (moved, never copied).
    #[default]
    Values,
    /// Arguments and results as bytes (`ohua_runtime::codec`), where the
    /// algorithm is marked `cluster`.
    Serialized,
    /// A `cluster` algorithm's distributable calls served by every process
    /// of the cluster this process joined (`ohua_cluster::join`,
    /// [`crate::remote`]); in a process that joined none, as
    /// [`Lanes::Serialized`].
    Cluster,
}

impl FromStr for Lanes {
    type Err = DeployError;
    fn from_str(s: &str) -> Result<Self, DeployError> {
        match s.trim() {
            "values" => Ok(Lanes::Values),
            "serialized" => Ok(Lanes::Serialized),
            "cluster" => Ok(Lanes::Cluster),
            other => Err(DeployError::Value {
                key: "lanes".to_string(),
                value: other.to_string(),
                reason: "expected `values`, `serialized` or `cluster`",
            }),
        }
    }
}

impl fmt::Display for Lanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lanes::Values => "values",
            Lanes::Serialized => "serialized",
            Lanes::Cluster => "cluster",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{file, from_env_with, Deployment};
    use super::Lanes;

    #[test]
    fn lanes_come_from_the_file_and_the_environment() {
        let d = file::apply_toml(Deployment::default(), "lanes = \"serialized\"").unwrap();
        assert_eq!(d.lanes, Lanes::Serialized);
        let env = |k: &str| (k == "OHUA_LANES").then(|| "serialized".to_string());
        assert_eq!(from_env_with(env).unwrap().lanes, Lanes::Serialized);
        assert_eq!(from_env_with(|_| None).unwrap().lanes, Lanes::Values);
        let bad = |k: &str| (k == "OHUA_LANES").then(|| "bytes".to_string());
        let err = from_env_with(bad).unwrap_err().to_string();
        assert!(err.contains("OHUA_LANES") && err.contains("`values`, `serialized` or `cluster`"), "{err}");
    }
}
