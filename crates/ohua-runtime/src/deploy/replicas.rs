//! How many replicas each replicable operator runs on.

use std::fmt;
use std::str::FromStr;

use super::{DeployError, SectionRule};

/// Upper bound on an operator's replicas: more would only add threads.
pub const MAX_REPLICAS: usize = 64;

/// How many replicas the deployment gives each replicable operator (a
/// call without state inside a loop, [`crate::graph::NodeInfo::replicable`]).
///
/// A replicated operator's firings run on several threads at once; its
/// results are merged back into iteration order, so every operator after it
/// sees exactly the sequence it would see without replicas. Operators that
/// are not replicable (state objects, captured values, control operators)
/// always run once, whatever the setting says.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::Replication;
/// let r: Replication = "word_freq/normalize#.*=2; other/f#3=4".parse().unwrap();
/// assert_eq!(r.to_string(), "word_freq/normalize#.*=2; other/f#3=4");
/// assert_eq!("off".parse::<Replication>().unwrap(), Replication::Off);
/// assert_eq!("elastic".parse::<Replication>().unwrap(), Replication::Elastic);
/// assert!("normalize=0".parse::<Replication>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Replication {
    /// Chosen by measured cost: with `sections = "auto"`, once a run of the
    /// graph has measured its operators, a replicable operator that is the
    /// bottleneck and costs enough per firing to outweigh the hand-over is
    /// replicated across the workers (`deploy/stages.rs`). With any other
    /// section strategy nothing is replicated.
    #[default]
    Auto,
    /// As [`Replication::Auto`], and the replicated operators follow their
    /// load for the whole run: their replicas open and close as the items
    /// arriving per second and the measured cost per item say
    /// ([`crate::deploy::needed_replicas`], DS2's rule), so a service gives
    /// cores back when its load falls. A first run's elastic replicas
    /// follow it too. Keyed calls keep their replicas.
    Elastic,
    /// Nothing is replicated.
    Off,
    /// The first rule matching an operator's name sets its replica count;
    /// operators no rule matches run once.
    Rules(Vec<ReplicaRule>),
    /// Every replicable operator gets a uniformly random count in
    /// `1..=max`, its replicas placed in random sections (reproducible from
    /// `seed`); used to test that replication never changes a result.
    Random {
        /// Largest replica count drawn.
        max: usize,
        /// Seed of the random generator.
        seed: u64,
    },
}

/// One replica rule: operators whose name matches `ops` run on `replicas`
/// replicas.
///
/// Made by [`ReplicaRule::new`], which checks the count, or parsed with a
/// [`Replication`]; the struct is `#[non_exhaustive]`, so a struct literal
/// does not compile outside this crate.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{ReplicaRule, SectionRule};
/// let rule = ReplicaRule::new(SectionRule::new(["pipe/parse#.*"]).unwrap(), 3).unwrap();
/// assert_eq!(rule.replicas, 3);
/// assert!(rule.ops.matches("pipe/parse#2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplicaRule {
    /// The operators the rule applies to (anchored patterns, as for sections).
    pub ops: SectionRule,
    /// Replicas for each of them (1 turns replication off for them).
    pub replicas: usize,
}

impl ReplicaRule {
    /// A rule giving the operators matching `ops` `replicas` replicas.
    ///
    /// # Errors
    ///
    /// [`DeployError::Value`] if `replicas` is 0 or more than [`MAX_REPLICAS`].
    pub fn new(ops: SectionRule, replicas: usize) -> Result<Self, DeployError> {
        if replicas == 0 || replicas > MAX_REPLICAS {
            return Err(DeployError::Value {
                key: "replicas".into(),
                value: replicas.to_string(),
                reason: "expected a replica count from 1 to 64",
            });
        }
        Ok(ReplicaRule { ops, replicas })
    }
}

impl Replication {
    /// The replica count the rules give operator `name` (1 if none
    /// matches); `None` for the strategies that are not rules.
    pub fn by_rules(&self, name: &str) -> Option<usize> {
        match self {
            Replication::Rules(rules) => Some(rules.iter().find(|r| r.ops.matches(name)).map_or(1, |r| r.replicas)),
            _ => None,
        }
    }
}

impl FromStr for Replication {
    type Err = DeployError;

    /// Parse `auto`, `elastic`, `off`, `random:MAX:SEED`, or rules
    /// `PATTERN=N; PATTERN=N` (`;`-separated, as patterns may hold commas).
    ///
    /// # Errors
    ///
    /// [`DeployError::Value`] for anything else, an invalid pattern
    /// ([`DeployError::Regex`]) or a count outside `1..=64`.
    fn from_str(s: &str) -> Result<Self, DeployError> {
        let bad = |reason| DeployError::Value { key: "replicas".into(), value: s.to_string(), reason };
        const FORMS: &str = "expected `auto`, `elastic`, `off`, `random:MAX:SEED` or `PATTERN=N; PATTERN=N`";
        match s.trim() {
            "auto" => return Ok(Replication::Auto),
            "elastic" => return Ok(Replication::Elastic),
            "off" => return Ok(Replication::Off),
            _ => {}
        }
        if let Some(rest) = s.trim().strip_prefix("random:") {
            let (max, seed) = rest.split_once(':').ok_or_else(|| bad(FORMS))?;
            let max: usize = max.parse().ok().filter(|m| (1..=MAX_REPLICAS).contains(m)).ok_or_else(|| bad(FORMS))?;
            let seed: u64 = seed.parse().map_err(|_| bad(FORMS))?;
            return Ok(Replication::Random { max, seed });
        }
        let mut rules = Vec::new();
        for part in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (pattern, n) = part.rsplit_once('=').ok_or_else(|| bad(FORMS))?;
            let n: usize = n.trim().parse().map_err(|_| bad(FORMS))?;
            let ops = SectionRule::new([pattern.trim()])?;
            rules.push(ReplicaRule::new(ops, n).map_err(|_| bad("expected replica counts from 1 to 64"))?);
        }
        if rules.is_empty() {
            return Err(bad(FORMS));
        }
        Ok(Replication::Rules(rules))
    }
}

impl fmt::Display for Replication {
    /// The textual form accepted by [`FromStr`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replication::Auto => f.write_str("auto"),
            Replication::Elastic => f.write_str("elastic"),
            Replication::Off => f.write_str("off"),
            Replication::Random { max, seed } => write!(f, "random:{max}:{seed}"),
            Replication::Rules(rules) => {
                let each: Vec<String> =
                    rules.iter().map(|r| format!("{}={}", r.ops.patterns().join("|"), r.replicas)).collect();
                f.write_str(&each.join("; "))
            }
        }
    }
}
