//! Section rules: regular expressions over operator names.

use super::DeployError;

/// One section of a rule-based deployment: the operators whose names match
/// any of its patterns.
///
/// Patterns are anchored: the *whole* name (`algorithm/function#callsite`)
/// must match, so `word_freq/split#.*` does not accidentally catch
/// `word_freq/split_lines#2`.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::SectionRule;
/// let rule = SectionRule::new(&["word_freq/split#.*", "word_freq/norm.*"]).unwrap();
/// assert!(rule.matches("word_freq/split#3"));
/// assert!(rule.matches("word_freq/normalize#4"));
/// assert!(!rule.matches("word_freq/split_lines#2"));
/// assert!(!rule.matches("other/word_freq/split#3"));
/// ```
#[derive(Debug, Clone)]
pub struct SectionRule {
    patterns: Vec<String>,
    /// All patterns as one anchored alternation, shared by the clones of the
    /// rule: a run clones its deployment, and a cloned `Regex` starts with
    /// empty match caches, which made planning a two-section run cost more
    /// than running a small algorithm.
    regex: std::sync::Arc<regex::Regex>,
}

impl SectionRule {
    /// A rule matching any of `patterns`.
    ///
    /// # Errors
    ///
    /// [`DeployError::Regex`] if a pattern is not a valid regular expression.
    pub fn new<I, S>(patterns: I) -> Result<Self, DeployError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut written = Vec::new();
        for p in patterns {
            let p = p.as_ref();
            // Each pattern alone first, so an error names the pattern.
            regex::Regex::new(p).map_err(|e| DeployError::Regex { pattern: p.to_string(), error: Box::new(e) })?;
            written.push(p.to_string());
        }
        // Anchor around non-capturing groups so alternations such as `a|b`
        // are anchored as a whole. A rule with no pattern matches nothing.
        let alternation = written.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|");
        let anchored = if written.is_empty() { "[^\\s\\S]".to_string() } else { format!("^(?:{alternation})$") };
        let regex = regex::Regex::new(&anchored)
            .map_err(|e| DeployError::Regex { pattern: written.join(", "), error: Box::new(e) })?;
        Ok(SectionRule { patterns: written, regex: std::sync::Arc::new(regex) })
    }

    /// Whether the operator named `name` belongs to this section.
    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }

    /// The patterns as written (without the anchors this rule adds).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

impl PartialEq for SectionRule {
    /// Rules are equal when written with the same patterns.
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for SectionRule {}
