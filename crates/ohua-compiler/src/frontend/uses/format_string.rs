//! Names captured implicitly by a format string: `{name}`, `{name:?}`,
//! `{:width$}`, `{:.prec$}` (Rust 2021 inline format arguments).

/// The identifiers a format string refers to by name, in order, each once.
/// Positional (`{}`, `{0}`) and escaped (`{{`, `}}`) parts name nothing.
pub(crate) fn captured_names(format: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut push = |name: &str| {
        if is_identifier(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let Some(close) = rest.find('}') else { break };
        let (argument, spec) = rest[..close].split_once(':').unwrap_or((&rest[..close], ""));
        push(argument.trim());
        // `name$` in the spec is a width or precision taken from a variable.
        let mut pieces = spec.split('$').peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_some() {
                let start = piece.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
                push(&piece[start..]);
            }
        }
        rest = &rest[close + 1..];
    }
    names
}

/// A Rust identifier that can name a variable (not a position, not `_`).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => s != "_" && chars.all(|c| c.is_alphanumeric() || c == '_'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::captured_names;

    #[test]
    fn finds_inline_names_only() {
        assert_eq!(captured_names("{a} {b:?} {c:>8} {} {0} {{d}} }}"), ["a", "b", "c"]);
        assert_eq!(captured_names("{x:>w$.p$} {x}"), ["x", "w", "p"]);
        assert_eq!(captured_names("{:1$} {:.*}"), Vec::<String>::new());
        assert_eq!(captured_names("{ a }"), ["a"]);
    }
}
