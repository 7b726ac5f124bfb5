//! The predicate language: parse any text, and check what parses against a page built from the
//! rest of the input, so the evaluator and the page-reading functions run too.
//!
//! Input: the predicate, then a NUL and the page now, then a NUL and the page before the action.
//! A page is lines: its URL, its title, its HTTP status, then the texts every probe finds (and
//! the page's errors, markers and broken texts); a line `true` or `false` is a checkbox's state.

#![no_main]

use libfuzzer_sys::fuzz_target;
use windup_core::model::invariant::{
    ActionFacts, FailedRequest, Found, Observation, PageEvents, Predicate, Reading,
};
use windup_fuzz::{on_worker_stack, text};

fuzz_target!(|data: &[u8]| {
    let Some(input) = text(data) else { return };
    let mut parts = input.splitn(3, '\0');
    let source = parts.next().unwrap_or_default();
    let now = parts.next();
    let before = parts.next();
    on_worker_stack(|| {
        let Ok(predicate) = Predicate::parse(source) else {
            return;
        };
        let now = page(&predicate, now.unwrap_or_default());
        let before = before.map(|text| page(&predicate, text));
        let action = ActionFacts {
            kind: "click".to_owned(),
            typed: now
                .found
                .iter()
                .flat_map(|f| f.texts.iter().map(|r| r.text().into_owned()))
                .collect(),
            ..ActionFacts::default()
        };
        let _ = predicate.check(&now, before.as_ref(), Some(&action));
        let _ = predicate.check(&now, None, None);
    });
});

/// A line as a probe's reading: `true` and `false` as a checkbox's state, the rest as text.
fn reading(line: &str) -> Reading {
    match line {
        "true" => Reading::Checked(true),
        "false" => Reading::Checked(false),
        text => Reading::Text(text.to_owned()),
    }
}

/// The page `text` describes, with an answer for every probe of `predicate`.
fn page(predicate: &Predicate, text: &str) -> Observation {
    let mut lines = text.split('\n');
    let url = lines.next().unwrap_or_default().to_owned();
    let title = lines.next().unwrap_or_default().to_owned();
    let status = lines
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let texts: Vec<String> = lines.map(str::to_owned).collect();
    let found = predicate
        .probes()
        .into_iter()
        .map(|probe| Found {
            probe,
            texts: texts.iter().map(|text| reading(text)).collect(),
        })
        .collect();
    Observation {
        url,
        title,
        status,
        found,
        events: PageEvents {
            errors: texts.clone(),
            console_errors: texts.clone(),
            dialogs: texts.clone(),
            failed_requests: texts
                .iter()
                .map(|url| FailedRequest {
                    method: "GET".to_owned(),
                    url: url.clone(),
                    status,
                })
                .collect(),
            markers: texts.clone(),
        },
        broken_texts: texts.clone(),
        negative_amounts: texts,
        pending: 0,
        edges: Default::default(),
    }
}
