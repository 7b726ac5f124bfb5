//! The generic oracles: invariants true of any correct web app, needing neither a model nor
//! knowledge of the site, written in the same predicate language as the user's.

use crate::model::invariant::{Invariant, Predicate, Severity, Source, Surface};

/// Id of the oracle that a form answered with a negative amount after a negative input.
pub(super) const NEGATIVE_AMOUNT: &str = "negative-amount-accepted";
/// Id of the oracle that one submission made more than one record.
pub(super) const DUPLICATE_RECORD: &str = "one-submission-one-record";
/// Id of the oracle that injected markup ran.
pub(super) const MARKUP_RAN: &str = "injected-markup-ran";

/// Every generic oracle.
pub fn generic() -> Vec<Invariant> {
    [
        (
            "no-server-error",
            "The app answers no page or request of its own with a server error (5xx).",
            "status < 500 && failed_requests.all(r, r.status < 500)",
            None,
            Severity::High,
        ),
        (
            "no-uncaught-exception",
            "The page throws no uncaught exception and leaves no promise rejection unhandled.",
            "size(errors) == 0",
            None,
            Severity::Medium,
        ),
        (
            "no-broken-value",
            "No value is shown as NaN, undefined, null or [object Object].",
            "size(broken_texts) == 0",
            None,
            Severity::Medium,
        ),
        (
            MARKUP_RAN,
            "Text typed into the app is shown as text: markup in it never runs.",
            "size(markers) == 0",
            None,
            Severity::Critical,
        ),
        (
            NEGATIVE_AMOUNT,
            "A negative number typed into a form is refused or corrected, never turned into a \
             negative amount of money.",
            "size(negative_amounts) <= size(before.negative_amounts)",
            Some("action.typed.exists(v, v.startsWith('-'))"),
            Severity::High,
        ),
    ]
    .into_iter()
    .map(|(id, statement, predicate, when, severity)| {
        Invariant::new(
            id,
            statement,
            Surface::everywhere(),
            when.map(|w| Predicate::parse(w).expect("a generic oracle's guard parses")),
            Predicate::parse(predicate).expect("a generic oracle parses"),
            Source::Generic,
            severity,
        )
    })
    .collect()
}

/// The oracle that one submission makes at most as many records as a single one does, for a
/// list counted by `selector` on the page where it is checked.
pub(super) fn one_record(selector: &str, per_submission: i64) -> Invariant {
    let quoted = cel_string(selector);
    Invariant::new(
        DUPLICATE_RECORD,
        format!(
            "One submission of a form creates at most what a single submission creates ({} \
             new {}).",
            per_submission,
            if per_submission == 1 {
                "record"
            } else {
                "records"
            }
        ),
        Surface::everywhere(),
        None,
        Predicate::parse(&format!(
            "count({quoted}) <= before.count({quoted}) + {per_submission}"
        ))
        .expect("the record oracle parses"),
        Source::Generic,
        Severity::High,
    )
}

/// A CEL string literal for `text`: single quotes, so that it sits inside double-quoted steps.
pub(super) fn cel_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracles_parse_and_have_distinct_ids() {
        let oracles = generic();
        let mut ids: Vec<&str> = oracles.iter().map(|o| o.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), oracles.len());
        assert!(one_record("tbody tr", 1).is_transition());
    }
}
