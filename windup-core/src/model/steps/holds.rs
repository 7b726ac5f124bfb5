//! `expect holds PREDICATE [since step N]`: a predicate of the invariant language as a step.
//!
//! The predicate is the rest of the step, written in one of three ways:
//!
//! - in double quotes, with `\"` for a double quote and `\\` for a backslash inside (any other
//!   backslash is kept as written, for CEL's own escapes): `expect holds "count('.row') == 2"`;
//! - in single quotes, with `\'` and `\\` likewise: `expect holds 'count(".row") == 2'`;
//! - bare, as written to the end of the step: `expect holds count(".row") == 2`.
//!
//! A quoted form is one quoted text that ends the step; anything else is the bare form. CEL takes
//! strings in either quote, so `'.row'` and `".row"` are the same selector.

use super::{Expectation, StepError};
use crate::model::invariant::Predicate;

/// How the predicate may use `before.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A step of its own: it acts on nothing, so `before.` needs `since step N`.
    Step,
    /// A scenario's `expect:` item, checked after the last step: `before.` is the page just
    /// before that step.
    End,
}

/// Where the predicate starts when `text` is a `holds` expectation: after `expect holds` (the
/// `expect` optional at the end of a scenario), in characters.
pub(super) fn start(text: &str, place: Place) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    let after_expect = keyword_end(&chars, 0, "expect");
    let from = match (place, after_expect) {
        (_, Some(end)) => end,
        (Place::Step, None) => return None,
        (Place::End, None) => 0,
    };
    keyword_end(&chars, from, "holds")
}

/// Parses a `holds` expectation whose predicate starts at character `start` of `text`.
pub(super) fn parse(text: &str, start: usize, place: Place) -> Result<Expectation, StepError> {
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    let since = since(&chars, start, &mut end)?;
    let (source, columns) = written(&chars, start, end)?;
    let predicate = Predicate::parse(&source).map_err(|err| StepError {
        column: columns
            .get(err.column.saturating_sub(1))
            .or(columns.first())
            .copied()
            .unwrap_or(start + 1),
        message: err.message,
        hint: err.hint,
    })?;
    if place == Place::Step && since.is_none() && predicate.reads_before() {
        return Err(StepError {
            column: columns.first().copied().unwrap_or(start + 1),
            message: "`before.` in an `expect holds` step needs `since step N`".to_owned(),
            hint: "an expect step does nothing, so the page just before it is the page the step \
                   above left; name the step whose page to compare with: `expect holds \
                   \"count('.row') == before.count('.row') + 1\" since step 2`, or move it to the \
                   scenario's `expect:`, where `before.` is the page before the last step"
                .to_owned(),
        });
    }
    Ok(Expectation::Holds { predicate, since })
}

/// The end of `keyword` when it is the next word at or after `from` (any case).
fn keyword_end(chars: &[char], from: usize, keyword: &str) -> Option<usize> {
    let mut at = from;
    while at < chars.len() && chars[at].is_whitespace() {
        at += 1;
    }
    let end = at + keyword.chars().count();
    let word: String = chars.get(at..end)?.iter().collect();
    let ends = chars.get(end).is_none_or(|c| c.is_whitespace());
    (word.eq_ignore_ascii_case(keyword) && ends).then_some(end)
}

/// A trailing `since step N`, cut off `end`.
fn since(chars: &[char], start: usize, end: &mut usize) -> Result<Option<usize>, StepError> {
    let words = words(chars, start, *end);
    let n = words.len();
    let is = |i: usize, word: &str| words[i].1.eq_ignore_ascii_case(word);
    let usage = "write `since step N`, N the number of an earlier step (1 for the first)";
    if n >= 3 && is(n - 3, "since") && is(n - 2, "step") {
        let (column, number) = &words[n - 1];
        return match number.parse::<usize>() {
            Ok(step) if step > 0 => {
                *end = words[n - 3].0 - 1;
                while *end > start && chars[*end - 1].is_whitespace() {
                    *end -= 1;
                }
                Ok(Some(step))
            }
            _ => Err(StepError {
                column: *column,
                message: format!("`{number}` is not a step number"),
                hint: usage.to_owned(),
            }),
        };
    }
    // `since 2`, `since s2`, a `since` alone at the end: a since meant, and misspelled.
    let plain = |word: &str| word.chars().all(char::is_alphanumeric);
    match words
        .iter()
        .rposition(|(_, word)| word.eq_ignore_ascii_case("since"))
    {
        Some(at) if at + 1 == n || (at + 2 == n && plain(&words[n - 1].1)) => Err(StepError {
            column: words[at].0,
            message: "`since` needs `step N`".to_owned(),
            hint: usage.to_owned(),
        }),
        _ => Ok(None),
    }
}

/// The whitespace-separated words of `chars[start..end]`, each with its 1-based column.
fn words(chars: &[char], start: usize, end: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        if chars[at].is_whitespace() {
            at += 1;
            continue;
        }
        let from = at;
        while at < end && !chars[at].is_whitespace() {
            at += 1;
        }
        out.push((from + 1, chars[from..at].iter().collect()));
    }
    out
}

/// The predicate as written (quoted or bare), and the step column of each of its characters.
fn written(chars: &[char], start: usize, end: usize) -> Result<(String, Vec<usize>), StepError> {
    let mut from = start;
    while from < end && chars[from].is_whitespace() {
        from += 1;
    }
    if from == end {
        return Err(StepError {
            column: end + 1,
            message: "expected a predicate after `holds`".to_owned(),
            hint: "write what must be true of the page, e.g. `expect holds \"count('.row') == \
                   number('.count')\"`"
                .to_owned(),
        });
    }
    if let Some(quoted) = quoted(chars, from, end) {
        return Ok(quoted);
    }
    // One column per character, and one just past the end for an error there.
    let bare = chars[from..end].iter().collect();
    Ok((bare, (from + 1..=end + 1).collect()))
}

/// The text of one quoted text spanning exactly `chars[from..end]`, if it is one.
fn quoted(chars: &[char], from: usize, end: usize) -> Option<(String, Vec<usize>)> {
    let quote = chars[from];
    if quote != '"' && quote != '\'' {
        return None;
    }
    let mut text = String::new();
    let mut columns = Vec::new();
    let mut at = from + 1;
    while at < end {
        match chars[at] {
            c if c == quote => {
                // An error at the end of the predicate points at the closing quote.
                columns.push(at + 1);
                return (at + 1 == end).then_some((text, columns));
            }
            '\\' if matches!(chars.get(at + 1), Some(&c) if c == quote || c == '\\') => {
                text.push(chars[at + 1]);
                columns.push(at + 2);
                at += 2;
            }
            c => {
                text.push(c);
                columns.push(at + 1);
                at += 1;
            }
        }
    }
    None
}

/// A `since step N` names a step before step `before` (1-based): the step the expectation is,
/// or, for a scenario's `expect:` item, the last step, which it is checked after.
pub(super) fn check_since(
    expectation: &Expectation,
    written: &str,
    before: usize,
) -> Result<(), StepError> {
    let Expectation::Holds {
        since: Some(step), ..
    } = expectation
    else {
        return Ok(());
    };
    let lower = written.to_lowercase();
    let column = lower
        .rfind("since")
        .map_or(1, |at| lower[..at].chars().count() + 1);
    if *step < before {
        return Ok(());
    }
    let last = before.saturating_sub(1);
    let (message, hint) = if last == 0 {
        (
            format!("`since step {step}` names a step, and no step comes before this"),
            "compare with an earlier step: `since step N` needs a step before the expectation"
                .to_owned(),
        )
    } else {
        (
            format!("`since step {step}` does not name a step before this one"),
            match last {
                1 => "name step 1".to_owned(),
                _ => format!("name one of steps 1 to {last}"),
            },
        )
    };
    Err(StepError {
        message,
        column,
        hint,
    })
}
