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
/// // A rule without patterns matches nothing.
/// assert!(!SectionRule::new(Vec::<String>::new()).unwrap().matches("word_freq/split#3"));
/// ```
///
/// The syntax is the `regex` crate's without Unicode classes (`\p{..}`;
/// `\w`, `\d` and `\s` are ASCII): patterns are compiled by `regex-lite`.
#[derive(Debug, Clone)]
pub struct SectionRule {
    patterns: Vec<String>,
    /// All patterns as one anchored alternation, shared by the clones of the
    /// rule: a run clones its deployment, and a cloned `Regex` starts with
    /// empty match caches, which made planning a two-section run cost more
    /// than running a small algorithm.
    regex: std::sync::Arc<regex_lite::Regex>,
    /// The algorithm every pattern names literally, if they agree (see
    /// [`SectionRule::algorithm`]).
    algorithm: Option<String>,
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
            regex_lite::Regex::new(p).map_err(|e| DeployError::Regex { pattern: p.to_string(), error: Box::new(e) })?;
            written.push(p.to_string());
        }
        // Anchor around non-capturing groups so alternations such as `a|b`
        // are anchored as a whole. A rule with no pattern matches nothing.
        let alternation = written.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|");
        let anchored = if written.is_empty() { "[^\\s\\S]".to_string() } else { format!("^(?:{alternation})$") };
        let regex = regex_lite::Regex::new(&anchored)
            .map_err(|e| DeployError::Regex { pattern: written.join(", "), error: Box::new(e) })?;
        let algorithm = common_algorithm(&written);
        Ok(SectionRule { patterns: written, regex: std::sync::Arc::new(regex), algorithm })
    }

    /// Whether the operator named `name` belongs to this section.
    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }

    /// The patterns as written (without the anchors this rule adds).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The algorithm this rule is written for: the literal name before the
    /// `/` that every one of its patterns starts with (`None` if a pattern
    /// starts otherwise, or the patterns name different algorithms). A rule
    /// for an algorithm that matches none of its operators is reported when
    /// that algorithm runs (`deploy/unmatched.rs`).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
    /// use ohua::SectionRule;
    /// let rule = |p: &[&str]| SectionRule::new(p).unwrap();
    /// assert_eq!(rule(&["word_freq/split#.*", "^word_freq/add#3$"]).algorithm(), Some("word_freq"));
    /// assert_eq!(rule(&[".*/split#.*"]).algorithm(), None);
    /// assert_eq!(rule(&["a/x#.*", "b/y#.*"]).algorithm(), None);
    /// assert_eq!(rule(&["a/x#1|b/y#2"]).algorithm(), None, "an alternation may name another");
    /// ```
    pub fn algorithm(&self) -> Option<&str> {
        self.algorithm.as_deref()
    }
}

/// The algorithm all `patterns` name literally, if any.
fn common_algorithm(patterns: &[String]) -> Option<String> {
    let mut names = patterns.iter().map(|p| literal_algorithm(p));
    let first = names.next()??;
    names.all(|n| n.as_deref() == Some(first.as_str())).then_some(first)
}

/// `name` if `pattern` (after an optional `^`) starts with the identifier
/// `name` and a `/`, and has no `|` outside a group or class, which could
/// let it match names of another algorithm.
fn literal_algorithm(pattern: &str) -> Option<String> {
    let body = pattern.strip_prefix('^').unwrap_or(pattern);
    let (name, _) = body.split_once('/')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let (mut depth, mut in_class, mut chars) = (0usize, false, body.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next(); // an escaped character is a literal
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth = depth.saturating_sub(1),
            '|' if !in_class && depth == 0 => return None,
            _ => {}
        }
    }
    Some(name.to_string())
}

impl PartialEq for SectionRule {
    /// Rules are equal when written with the same patterns.
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for SectionRule {}
