//! How deep a predicate nests, read from its text before anything recursive reads it.
//!
//! CEL's parser, the tree it builds and the evaluation all recurse once per level of nesting,
//! and in an unoptimized build a level of brackets takes the parser about 170 KiB of stack: an
//! input nested a few dozen deep would overflow a thread and abort the process. So a predicate
//! is measured here, in one pass with no recursion, and refused past [`MAX_NESTING`].
//!
//! The measure is an upper bound on the depth of the syntax tree: a bracket (`(`, `[`, `{`) is a
//! level, and so is every operator (`+`, `&&`, `?`, `!`, `.`, `in`…) in the same bracket and
//! between the same commas, since a chain of operators nests one inside another.

/// The deepest predicate taken. Real predicates nest four or five deep; a parse at this depth
/// needs about 4 MiB of stack in an unoptimized build (the parser runs on a thread of its own,
/// `PARSER_STACK`), and its evaluation under 1 MiB.
pub const MAX_NESTING: usize = 24;

/// Nesting past the limit: how deep, and the 1-based column (in characters) where it was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TooDeep {
    pub(super) depth: usize,
    pub(super) column: usize,
}

/// One open bracket (or the whole text), as the scan stands in it.
#[derive(Debug, Default, Clone, Copy)]
struct Group {
    /// Operators so far in the current comma-separated part.
    operators: usize,
    /// The deepest bracket closed so far in the current part.
    inner: usize,
    /// The deepest part before the current one.
    deepest: usize,
}

impl Group {
    fn part(&self) -> usize {
        self.operators + self.inner
    }

    fn end_part(&mut self) {
        self.deepest = self.deepest.max(self.part());
        self.operators = 0;
        self.inner = 0;
    }
}

/// Measures `source`; `Err` when it nests deeper than `limit`.
pub(super) fn check(source: &str, limit: usize) -> Result<usize, TooDeep> {
    let chars: Vec<char> = source.chars().collect();
    let mut stack = vec![Group::default()];
    let mut i = 0;
    let too_deep = |depth: usize, at: usize| {
        (depth > limit).then_some(TooDeep {
            depth,
            column: at + 1,
        })
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                i = skip_string(&chars, i);
                continue;
            }
            '(' | '[' | '{' => {
                stack.push(Group::default());
                // Brackets alone, before any operator is counted: refused early and cheaply.
                if let Some(err) = too_deep(stack.len() - 1, i) {
                    return Err(err);
                }
            }
            ')' | ']' | '}' if stack.len() > 1 => close(&mut stack),
            ',' => stack.last_mut().expect("a group").end_part(),
            '+' | '*' | '/' | '%' | '?' | '.' | '<' | '>' | '!' | '-' => {
                count_operator(&mut stack, &chars, i);
            }
            '=' | '&' | '|' if chars.get(i + 1) == Some(&c) => {
                count_operator(&mut stack, &chars, i);
                i += 1;
            }
            _ if is_word(c) => {
                let start = i;
                while i < chars.len() && is_word(chars[i]) {
                    i += 1;
                }
                if chars[start..i] == ['i', 'n'] {
                    count_operator(&mut stack, &chars, start);
                }
                continue;
            }
            _ => {}
        }
        if let Some(err) = too_deep(depth_so_far(&stack), i) {
            return Err(err);
        }
        i += 1;
    }
    // Brackets left open close at the end (the parser will say they are unbalanced).
    while stack.len() > 1 {
        close(&mut stack);
    }
    let mut root = stack.pop().expect("the text's own group");
    root.end_part();
    match too_deep(root.deepest, chars.len().saturating_sub(1)) {
        Some(err) => Err(err),
        None => Ok(root.deepest),
    }
}

/// Closes the innermost bracket: its depth counts in the part of the group around it.
fn close(stack: &mut Vec<Group>) {
    let mut group = stack.pop().expect("a bracket above the text's own group");
    group.end_part();
    let top = stack.last_mut().expect("the text's own group");
    top.inner = top.inner.max(group.deepest + 1);
}

/// The depth the open groups reach already, whatever follows.
fn depth_so_far(stack: &[Group]) -> usize {
    stack.iter().map(Group::part).sum::<usize>() + stack.len() - 1
}

/// Counts the operator at `i`, unless it is the second half of `!=`, `<=`, `>=` or `->`, or the
/// dot of a number.
fn count_operator(stack: &mut [Group], chars: &[char], i: usize) {
    let next = chars.get(i + 1).copied();
    let previous = i.checked_sub(1).map(|p| chars[p]);
    let part_of_number = chars[i] == '.'
        && previous.is_some_and(|p| p.is_ascii_digit())
        && next.is_some_and(|n| n.is_ascii_digit());
    if part_of_number {
        return;
    }
    // `!=`, `<=` and `>=` are one operator, counted at their first character.
    if chars[i] == '=' && matches!(previous, Some('!' | '<' | '>' | '=')) {
        return;
    }
    stack.last_mut().expect("a group").operators += 1;
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index after the string literal that opens at `start` (quoted once or three times; raw
/// when an `r` or `R` prefixes it, where a backslash escapes nothing).
fn skip_string(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut prefix = start;
    while prefix > 0 && matches!(chars[prefix - 1], 'r' | 'R' | 'b' | 'B') {
        prefix -= 1;
    }
    let raw = chars[prefix..start].iter().any(|c| matches!(c, 'r' | 'R'))
        && (prefix == 0 || !is_word(chars[prefix - 1]));
    let triple = chars.get(start + 1) == Some(&quote) && chars.get(start + 2) == Some(&quote);
    let mut i = start + if triple { 3 } else { 1 };
    while i < chars.len() {
        if chars[i] == '\\' && !raw {
            i += 2;
            continue;
        }
        if chars[i] == quote {
            if !triple {
                return i + 1;
            }
            if chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote) {
                return i + 3;
            }
        }
        i += 1;
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(source: &str) -> usize {
        check(source, usize::MAX).unwrap()
    }

    #[test]
    fn brackets_and_operators_count_strings_do_not() {
        assert_eq!(depth("true"), 0);
        assert_eq!(depth("count(\".row\") == 2"), 2);
        assert_eq!(depth("((((1))))"), 4);
        assert_eq!(depth("1 + 1 + 1 + 1"), 3);
        assert_eq!(depth("!!!!x"), 4);
        assert_eq!(depth("a.b.c"), 2);
        assert_eq!(depth("1.5 > 2"), 1, "the dot of a number is no operator");
        assert_eq!(depth("x != 1 && y >= 2 || z <= 3"), 5);
        assert_eq!(depth("'((((' == \"[[[[\""), 1);
        assert_eq!(
            depth(r#""a\"((((" == 'b'"#),
            1,
            "an escaped quote ends nothing"
        );
        assert_eq!(
            depth(r#"r"\" == '((('"#),
            1,
            "a raw string ends at its quote"
        );
        assert_eq!(depth("'''((( ''' == 'x'"), 1);
        assert_eq!(depth("x in [1, 2]"), 2);
        assert_eq!(
            depth("index > 0"),
            1,
            "a word that starts with `in` is no operator"
        );
    }

    #[test]
    fn the_parts_of_a_list_or_a_call_nest_side_by_side() {
        let long_list = format!("size([{}]) > 0", vec!["1 + 1"; 500].join(", "));
        assert_eq!(depth(&long_list), 4);
        assert_eq!(depth("f(a + b, c + d + e)"), 3);
        assert_eq!(depth("(1 + (2 + (3)))"), 5);
    }

    #[test]
    fn too_deep_says_how_deep_and_where() {
        let nested = format!("{}1{} == 1", "(".repeat(30), ")".repeat(30));
        assert_eq!(
            check(&nested, 24),
            Err(TooDeep {
                depth: 25,
                column: 25
            })
        );
        let chain = format!("1{} == 1", " + 1".repeat(40));
        let err = check(&chain, 24).unwrap_err();
        assert_eq!(err.depth, 25);
        // Unbalanced brackets are the parser's to report; the measure still ends.
        assert_eq!(check("((1", 24), Ok(2));
        assert_eq!(check("1))", 24), Ok(0));
        assert_eq!(check("'unterminated ((((", 24), Ok(0));
    }
}
