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
/// use ohua_runtime::deploy::SectionRule;
/// let rule = SectionRule::new(&["word_freq/split#.*", "word_freq/norm.*"]).unwrap();
/// assert!(rule.matches("word_freq/split#3"));
/// assert!(rule.matches("word_freq/normalize#4"));
/// assert!(!rule.matches("word_freq/split_lines#2"));
/// assert!(!rule.matches("other/word_freq/split#3"));
/// ```
#[derive(Debug, Clone)]
pub struct SectionRule {
    patterns: Vec<String>,
    regexes: Vec<regex::Regex>,
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
        let mut rule = SectionRule { patterns: Vec::new(), regexes: Vec::new() };
        for p in patterns {
            let p = p.as_ref();
            // Anchor around a non-capturing group so alternations such as
            // `a|b` are anchored as a whole.
            let re = regex::Regex::new(&format!("^(?:{p})$"))
                .map_err(|e| DeployError::Regex { pattern: p.to_string(), error: Box::new(e) })?;
            rule.patterns.push(p.to_string());
            rule.regexes.push(re);
        }
        Ok(rule)
    }

    /// Whether the operator named `name` belongs to this section.
    pub fn matches(&self, name: &str) -> bool {
        self.regexes.iter().any(|re| re.is_match(name))
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
