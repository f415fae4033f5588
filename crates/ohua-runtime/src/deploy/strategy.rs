//! How operators are grouped into sections.

use std::fmt;
use std::str::FromStr;

use super::{DeployError, SectionRule};

/// How operators are mapped to sections.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::SectionStrategy;
/// let s: SectionStrategy = "random:3:42".parse().unwrap();
/// assert_eq!(s, SectionStrategy::Random { sections: 3, seed: 42 });
/// assert_eq!(s.to_string(), "random:3:42");
/// assert!("fastest".parse::<SectionStrategy>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SectionStrategy {
    /// Split the topological order into `workers` contiguous, cost-balanced
    /// chunks (one section if `workers <= 1`). The cost of an operator is its
    /// busy time measured by earlier runs of the same graph in this process;
    /// on a graph's first run (or after runs too short to measure, under
    /// 1 ms of busy time in all) it is guessed from the operator's kind.
    #[default]
    Auto,
    /// Everything in one section, run on the calling thread.
    Single,
    /// One section per operator.
    PerOperator,
    /// Each operator in a uniformly random section out of `sections`
    /// (reproducible from `seed`); used to test deployment independence.
    Random {
        /// Number of sections to draw from (empty ones are removed).
        sections: usize,
        /// Seed of the random generator.
        seed: u64,
    },
    /// One section per rule, in order; the first matching rule wins and
    /// operators matching no rule share one extra section. An algorithm none
    /// of whose operators any rule matches is planned as [`Self::Auto`]:
    /// rules written for one algorithm do not serialise the others.
    Rules(Vec<SectionRule>),
    /// A strategy per algorithm (by its name), and `default` for the
    /// algorithms not listed: the `[algorithm.NAME]` tables of the
    /// configuration file. A rule of an algorithm's own strategy that
    /// matches none of its operators is reported (a `tracing` warning).
    PerAlgorithm {
        /// The strategy of algorithms not listed.
        default: Box<SectionStrategy>,
        /// `(algorithm name, strategy)`; the first entry for a name wins.
        algorithms: Vec<(String, SectionStrategy)>,
    },
}

impl SectionStrategy {
    /// The strategy that applies to the algorithm named `algorithm`, and
    /// whether it was chosen for that algorithm by name.
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
    /// use ohua::SectionStrategy;
    /// let s = SectionStrategy::PerAlgorithm {
    ///     default: Box::new(SectionStrategy::Auto),
    ///     algorithms: vec![("server".into(), SectionStrategy::PerOperator)],
    /// };
    /// assert_eq!(s.for_algorithm("server"), (&SectionStrategy::PerOperator, true));
    /// assert_eq!(s.for_algorithm("other"), (&SectionStrategy::Auto, false));
    /// ```
    pub fn for_algorithm(&self, algorithm: &str) -> (&SectionStrategy, bool) {
        match self {
            SectionStrategy::PerAlgorithm { default, algorithms } => {
                match algorithms.iter().find(|(name, _)| name == algorithm) {
                    Some((_, s)) => (s.for_algorithm(algorithm).0, true),
                    None => (default.for_algorithm(algorithm).0, false),
                }
            }
            other => (other, false),
        }
    }
}

impl FromStr for SectionStrategy {
    type Err = DeployError;

    /// Parse `auto`, `single`, `per-op` or `random:N:SEED`.
    ///
    /// # Errors
    ///
    /// [`DeployError::Strategy`] for anything else, including
    /// `random` with a zero or non-numeric `N` or `SEED`.
    fn from_str(s: &str) -> Result<Self, DeployError> {
        let bad = || DeployError::Strategy(s.to_string());
        match s.trim() {
            "auto" => Ok(SectionStrategy::Auto),
            "single" => Ok(SectionStrategy::Single),
            "per-op" => Ok(SectionStrategy::PerOperator),
            other => {
                let rest = other.strip_prefix("random:").ok_or_else(bad)?;
                let (n, seed) = rest.split_once(':').ok_or_else(bad)?;
                let sections: usize = n.parse().map_err(|_| bad())?;
                let seed: u64 = seed.parse().map_err(|_| bad())?;
                if sections == 0 {
                    return Err(bad());
                }
                Ok(SectionStrategy::Random { sections, seed })
            }
        }
    }
}

impl fmt::Display for SectionStrategy {
    /// The textual form accepted by [`FromStr`]; rules print their patterns.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SectionStrategy::Auto => f.write_str("auto"),
            SectionStrategy::Single => f.write_str("single"),
            SectionStrategy::PerOperator => f.write_str("per-op"),
            SectionStrategy::Random { sections, seed } => write!(f, "random:{sections}:{seed}"),
            SectionStrategy::Rules(rules) => {
                let groups: Vec<String> = rules.iter().map(|r| r.patterns().join(", ")).collect();
                write!(f, "rules[{}]", groups.join(" | "))
            }
            SectionStrategy::PerAlgorithm { default, algorithms } => {
                let each: Vec<String> = algorithms.iter().map(|(name, s)| format!("{name}: {s}")).collect();
                write!(f, "per-algorithm[{}; others: {default}]", each.join("; "))
            }
        }
    }
}
