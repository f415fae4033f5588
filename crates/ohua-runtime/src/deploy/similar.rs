//! Whether two algorithm names look like one was a misspelling of the other.
//!
//! Used to report configuration written for an algorithm name that never
//! runs (`[algorithm.wordfreq]` while `word_freq` runs): such a name cannot
//! be told from one whose algorithm simply has not run yet, so it is only
//! reported when an algorithm with a *similar* name runs without
//! configuration of its own.

/// Whether `a` and `b` differ but look alike: equal up to case, `_` and `-`,
/// or within a small edit distance (1 for names up to 5 characters, 2 for
/// longer ones; names shorter than 3 characters are never alike).
pub(super) fn alike(a: &str, b: &str) -> bool {
    if a == b || a.len() < 3 || b.len() < 3 {
        return false;
    }
    let loose =
        |s: &str| s.chars().filter(|c| !matches!(c, '_' | '-')).flat_map(char::to_lowercase).collect::<String>();
    if loose(a) == loose(b) {
        return true;
    }
    let allowed = if a.len().min(b.len()) <= 5 { 1 } else { 2 };
    edit_distance(a, b) <= allowed
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{alike, edit_distance};

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("word_freq", "word_freq"), 0);
    }

    #[test]
    fn misspellings_are_alike_and_other_names_are_not() {
        assert!(alike("word_freq", "wordfreq"));
        assert!(alike("WordFreq", "word_freq"));
        assert!(alike("server", "sever"));
        assert!(alike("pipeline", "pipelnie"));
        assert!(!alike("server", "server"), "the same name is not a misspelling");
        assert!(!alike("server", "client"));
        assert!(!alike("ab", "ac"), "too short to tell");
        assert!(!alike("parse", "pause1"));
    }
}
