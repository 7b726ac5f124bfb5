//! How deep a YAML text's flow collections (`[…]`, `{…}`) nest, measured before any YAML parser
//! runs. libyaml's scanner, under serde_yaml, takes time that grows with the square of that depth
//! (10,000 brackets in 20 KB take 5 s in a release build, 50 s in a debug one), and serde_yaml's
//! own limit of 128 levels is applied only once the whole text is scanned. So a text whose flow
//! collections nest deeper than serde_yaml would ever take is refused first, at the bracket that
//! goes past the limit, and no parser sees it.
//!
//! Block nesting (by indentation) is not counted: its cost grows with the text's length alone,
//! and serde_yaml's limit answers it.

/// The most levels of `[`/`{` a YAML text may open: serde_yaml's own limit, so nothing it would
/// read is refused here.
pub const MAX_FLOW_DEPTH: usize = 128;

/// Where a text first nests past [`MAX_FLOW_DEPTH`]: the bracket's line and column, from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
}

impl TooDeep {
    /// The message every YAML reader gives, after the file, line and column.
    pub fn message(&self) -> String {
        format!("the YAML nests `[` and `{{` more than {MAX_FLOW_DEPTH} levels deep")
    }
}

/// Where `text` opens its flow collection number [`MAX_FLOW_DEPTH`] + 1 of one nest, if it does.
///
/// The reading is YAML's, simplified where only a text that is no YAML people write could tell:
/// quoted scalars and comments are skipped, and so are block scalars (`|`, `>`); in block
/// context a bracket opens a collection where a node starts (a line's start, after `- `, `? ` or
/// `: `), in flow context wherever it stands.
pub fn too_deep(text: &str) -> Option<TooDeep> {
    let mut scan = Scan::default();
    for (index, line) in text.split('\n').enumerate() {
        if let Some(column) = scan.line(line) {
            return Some(TooDeep {
                line: index + 1,
                column,
            });
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Single,
    Double,
}

#[derive(Debug, Default)]
struct Scan {
    depth: usize,
    quote: Option<Quote>,
    /// The last character was a backslash of a double-quoted scalar, or the first quote of a
    /// `''` in a single-quoted one: the next is taken as it is.
    escaped: bool,
    /// Inside a block scalar whose indicator stood on a line indented this much: the lines
    /// indented more (and blank ones) are its text.
    block_scalar: Option<usize>,
}

impl Scan {
    /// Reads one line; the column (from 1) of a bracket past the limit, if there is one.
    fn line(&mut self, line: &str) -> Option<usize> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(parent) = self.block_scalar {
            if line.trim().is_empty() || indent > parent {
                return None;
            }
            self.block_scalar = None;
        }
        let chars: Vec<char> = line.chars().collect();
        // In block context, whether the next character starts a node.
        let mut node_start = true;
        for (at, &c) in chars.iter().enumerate() {
            let before = at.checked_sub(1).map(|i| chars[i]);
            let after = chars.get(at + 1).copied();
            if self.in_quote(c, after) {
                continue;
            }
            let spaced_before = before.is_none_or(|b| b == ' ' || b == '\t');
            let spaced_after = after.is_none_or(|a| a == ' ' || a == '\t');
            let flow = self.depth > 0;
            match c {
                ' ' | '\t' => continue,
                '#' if spaced_before => break,
                '"' | '\'' if node_start || (flow && token_start(before)) => {
                    self.quote = Some(if c == '"' {
                        Quote::Double
                    } else {
                        Quote::Single
                    });
                }
                '[' | '{' if flow || node_start => {
                    self.depth += 1;
                    if self.depth > MAX_FLOW_DEPTH {
                        return Some(at + 1);
                    }
                }
                ']' | '}' if flow => self.depth -= 1,
                '|' | '>' if !flow && node_start => {
                    self.block_scalar = Some(indent);
                    break;
                }
                '-' | '?' if !flow && node_start && spaced_after => continue,
                ':' if !flow && spaced_after => {
                    node_start = true;
                    continue;
                }
                _ => {}
            }
            node_start = false;
        }
        None
    }

    /// Takes `c` when a quoted scalar is open; false when none is.
    fn in_quote(&mut self, c: char, after: Option<char>) -> bool {
        let Some(quote) = self.quote else {
            return false;
        };
        if self.escaped {
            self.escaped = false;
            return true;
        }
        match (quote, c) {
            (Quote::Double, '\\') => self.escaped = true,
            (Quote::Double, '"') => self.quote = None,
            // `''` is a quote inside a single-quoted scalar.
            (Quote::Single, '\'') if after == Some('\'') => self.escaped = true,
            (Quote::Single, '\'') => self.quote = None,
            _ => {}
        }
        true
    }
}

/// Whether a quote after `before` opens a quoted scalar in flow context.
fn token_start(before: Option<char>) -> bool {
    before.is_none_or(|b| matches!(b, ' ' | '\t' | '[' | '{' | ',' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest(open: &str, close: &str, depth: usize) -> String {
        format!("{}1{}", open.repeat(depth), close.repeat(depth))
    }

    #[test]
    fn flow_collections_up_to_the_limit_pass_and_one_more_is_refused_at_its_bracket() {
        let ok = format!("steps: {}\n", nest("[", "]", MAX_FLOW_DEPTH));
        assert_eq!(too_deep(&ok), None);
        let deep = format!("task: t\nsteps: {}\n", nest("[", "]", MAX_FLOW_DEPTH + 1));
        assert_eq!(
            too_deep(&deep),
            Some(TooDeep {
                line: 2,
                column: 8 + MAX_FLOW_DEPTH
            })
        );
        let mixed = format!("a:\n  - {}", nest("{a: [", "]}", 65));
        assert!(too_deep(&mixed).is_some());
        let unclosed = "[".repeat(10_000);
        assert_eq!(too_deep(&unclosed).map(|at| at.column), Some(129));
        // Across lines, the way a flow collection may be written.
        let tall = format!("x: {}", "[\n".repeat(200));
        assert_eq!(too_deep(&tall).map(|at| at.line), Some(129));
    }

    #[test]
    fn brackets_in_scalars_comments_and_block_scalars_are_text() {
        let many = "[".repeat(500);
        for text in [
            format!("task: \"{many}\"\n"),
            format!("task: '{many}'\n"),
            format!("task: 'it''s {many}'\n"),
            format!("task: \"a \\\" {many}\"\n"),
            format!("task: the {many} button\n"),
            format!("task: t # {many}\n"),
            format!("steps:\n  - click {many}\n  - a: b {many}\n"),
            format!("hints: |\n  {many}\n\n  {many}\nsteps: []\n"),
            format!("hints: >-\n    {many}\n"),
            format!("steps: ['{many}', \"{many}\", {{a: '{many}'}}]\n"),
            format!("a: \"multi\n  line {many}\n\"\n"),
            format!("url: http://x/{many}\n"),
        ] {
            assert_eq!(too_deep(&text), None, "{text}");
        }
    }

    #[test]
    fn after_a_scalar_the_counting_goes_on() {
        let deep = nest("[", "]", MAX_FLOW_DEPTH + 1);
        for text in [
            format!("a: \"x\"\nb: {deep}\n"),
            format!("a: 'it''s'\nb: {deep}\n"),
            format!("a: |\n  text\nb: {deep}\n"),
            format!("a: [\"]\", ']', {deep}]\n"),
            format!("- # note\n  {deep}\n"),
            format!("? {deep}\n"),
        ] {
            assert!(too_deep(&text).is_some(), "{text}");
        }
    }
}
