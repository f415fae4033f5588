//! Reporting section rules that match no operator, once per process.
//!
//! A rule that matches nothing is almost always a typo or a rule written
//! for an algorithm that was renamed; it silently changes nothing. So it is
//! reported with a `tracing` warning, once per rule and process:
//!
//! * a rule of an algorithm's own table (`[algorithm.NAME]`) that matches
//!   none of that algorithm's operators, at its first run;
//! * a process-wide rule (`[[section]]`) that matches nothing in an
//!   algorithm the rules were applied to (another of the rules matched one
//!   of its operators) and has not matched any operator of any algorithm
//!   run before in this process. Process-wide rules shared by several
//!   algorithms can thus be reported before the algorithm they were
//!   written for has run; per-algorithm tables avoid that.

use std::collections::HashSet;

use super::SectionRule;
use crate::sync::process::Mutex;

/// Rules (by their patterns) that matched something, and rules reported.
struct Seen {
    matched: HashSet<Vec<String>>,
    reported: HashSet<Vec<String>>,
}

static SEEN: Mutex<Option<Seen>> = Mutex::new(None);

/// Record which of `rules` matched an operator of `algorithm` (`matched`,
/// by index) and warn about the ones that match nothing, as described in the
/// module documentation. `scoped`: the rules are `algorithm`'s own.
pub(super) fn report(algorithm: &str, rules: &[SectionRule], matched: &[bool], scoped: bool) {
    if matched.iter().all(|&m| m) {
        return; // the common case costs no lock
    }
    let applied = matched.contains(&true);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(|| Seen { matched: HashSet::new(), reported: HashSet::new() });
    for (rule, &hit) in rules.iter().zip(matched) {
        if hit {
            seen.matched.insert(rule.patterns().to_vec());
        }
    }
    if !scoped && !applied {
        return; // rules for other algorithms: this one keeps `auto`
    }
    for (rule, _) in rules.iter().zip(matched).filter(|(_, &hit)| !hit) {
        let key = rule.patterns().to_vec();
        if (!scoped && seen.matched.contains(&key)) || !seen.reported.insert(key) {
            continue;
        }
        let patterns = rule.patterns().join("\", \"");
        if scoped {
            tracing::warn!(
                "ohua: the section rule [\"{patterns}\"] for algorithm `{algorithm}` matches none of its \
                 operators; the rule has no effect (operator names: `{algorithm}/function#callsite`, see \
                 `OHUA_REPORT=1`)"
            );
        } else {
            tracing::warn!(
                "ohua: the section rule [\"{patterns}\"] matches no operator of `{algorithm}` nor of any \
                 algorithm run before it; the rule has no effect so far (operator names: \
                 `algorithm/function#callsite`, see `OHUA_REPORT=1`)"
            );
        }
    }
}
