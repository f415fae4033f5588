//! Reporting configuration that has no effect, once per process.
//!
//! A section rule that matches nothing is almost always a typo or a rule
//! written for an algorithm that was renamed; it silently changes nothing
//! (the algorithm keeps `auto`). So it is reported with a `tracing` warning,
//! once per rule, when that can be decided:
//!
//! * a rule written for an algorithm (in its `[algorithm.NAME]` table, or a
//!   process-wide rule whose patterns all start with `NAME/`, see
//!   [`SectionRule::algorithm`]) that matches none of that algorithm's
//!   operators, at the algorithm's first run;
//! * any other process-wide rule (`.*/split#.*`) that matches nothing in an
//!   algorithm the rules were applied to (another of the rules matched one
//!   of its operators) and has not matched any operator of any algorithm
//!   run before in this process;
//! * configuration for an algorithm name that has not run (an
//!   `[algorithm.NAME]` table, or rules naming `NAME/`), when an algorithm
//!   with a similar name (`similar.rs`) runs without configuration of its
//!   own: a likely misspelling. A name that is not similar to any algorithm
//!   that runs cannot be told from one whose algorithm runs later, so it is
//!   not reported.
//!
//! [`reset`] (called by [`super::reload`]) forgets what was reported, so a
//! new configuration is checked anew.

use std::collections::{HashMap, HashSet};

use super::{similar, SectionRule, SectionStrategy};
use crate::sync::process::Mutex;

/// What the process has seen; keys of rules are their patterns.
#[derive(Default)]
struct Seen {
    /// Algorithms planned so far.
    ran: HashSet<&'static str>,
    /// Rules that matched an operator of some algorithm.
    matched: HashSet<Vec<String>>,
    /// Rules reported.
    reported: HashSet<Vec<String>>,
    /// Configured names compared with each algorithm that ran without
    /// configuration of its own (reported or not).
    compared: HashMap<&'static str, HashSet<String>>,
}

static SEEN: Mutex<Option<Seen>> = Mutex::new(None);

fn with_seen<T>(f: impl FnOnce(&mut Seen) -> T) -> T {
    f(SEEN.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(Seen::default))
}

/// Forget what was reported and matched (not which algorithms ran).
pub(super) fn reset() {
    with_seen(|seen| {
        seen.matched.clear();
        seen.reported.clear();
        seen.compared.clear();
    });
}

/// Record which of `rules` matched an operator of `algorithm` (`matched`,
/// by index) and warn about the ones that match nothing, as described in the
/// module documentation. `scoped`: the rules are `algorithm`'s own table.
pub(super) fn rules(algorithm: &str, rules: &[SectionRule], matched: &[bool], scoped: bool) {
    if matched.iter().all(|&m| m) {
        return; // the common case costs no lock
    }
    let applied = matched.contains(&true);
    with_seen(|seen| {
        for (rule, _) in rules.iter().zip(matched).filter(|(_, &hit)| hit) {
            if !seen.matched.contains(rule.patterns()) {
                seen.matched.insert(rule.patterns().to_vec());
            }
        }
        for (rule, _) in rules.iter().zip(matched).filter(|(_, &hit)| !hit) {
            let written_for_this = scoped || rule.algorithm() == Some(algorithm);
            let decided =
                written_for_this || (rule.algorithm().is_none() && applied && !seen.matched.contains(rule.patterns()));
            if !decided || seen.reported.contains(rule.patterns()) {
                continue;
            }
            seen.reported.insert(rule.patterns().to_vec());
            let patterns = rule.patterns().join("\", \"");
            let effect = if applied { "the rule has no effect" } else { "the algorithm keeps `auto`" };
            if written_for_this {
                tracing::warn!(
                    "ohua: the section rule [\"{patterns}\"] for algorithm `{algorithm}` matches none of its \
                     operators; {effect} (operator names: `{algorithm}/function#callsite`, see `OHUA_REPORT=1`)"
                );
            } else {
                tracing::warn!(
                    "ohua: the section rule [\"{patterns}\"] matches no operator of `{algorithm}` nor of any \
                     algorithm run before it; the rule has no effect so far (operator names: \
                     `algorithm/function#callsite`, see `OHUA_REPORT=1`)"
                );
            }
        }
    });
}

/// Record that `algorithm` is being planned under `sections`. If it runs
/// without settings of its own (`own` false: no table of its name, no rule
/// matched), warn about configured algorithm names that have not run and
/// look like a misspelling of `algorithm`.
pub(super) fn planned(algorithm: &'static str, own: bool, sections: &SectionStrategy) {
    let names = if own { Vec::new() } else { configured_names(sections) };
    with_seen(|seen| {
        seen.ran.insert(algorithm);
        for name in names {
            if seen.ran.contains(name) || seen.compared.get(algorithm).is_some_and(|c| c.contains(name)) {
                continue;
            }
            seen.compared.entry(algorithm).or_default().insert(name.to_string());
            if similar::alike(algorithm, name) {
                tracing::warn!(
                    "ohua: the deployment configuration has section settings for algorithm `{name}`, which has \
                     not run, while `{algorithm}` runs without settings of its own (the process-wide default); if they were \
                     meant for `{algorithm}`, rename them (`[algorithm.{algorithm}]`, rules `{algorithm}/..`)"
                );
            }
        }
    });
}

/// Algorithm names the configuration has settings for: its tables and the
/// algorithms its rules are written for.
fn configured_names(sections: &SectionStrategy) -> Vec<&str> {
    fn rules_for(s: &SectionStrategy) -> Vec<&str> {
        match s {
            SectionStrategy::Rules(rules) => rules.iter().filter_map(SectionRule::algorithm).collect(),
            _ => Vec::new(),
        }
    }
    match sections {
        SectionStrategy::PerAlgorithm { default, algorithms } => {
            let mut names: Vec<&str> = algorithms.iter().map(|(name, _)| name.as_str()).collect();
            names.extend(rules_for(default));
            names
        }
        other => rules_for(other),
    }
}
