//! The audit's efficacy, kept: each app of the corpus (`examples/corpus`, small apps on real UI
//! frameworks with bugs only a person's moves reach) is audited once with its bugs on, and at
//! least as many of its bugs as the audit is known to find in one seeded run must be found, each
//! under its own invariant; each finding's regression test must fail against the bugs and pass
//! against the correct build; and the correct build, audited too, must have no finding. The
//! full table, over many seeds, is `cargo bench -p windup-corpus --bench efficacy`.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use windup_core::config::Settings;
use windup_corpus::efficacy::{Plan, trial};

/// The audit of the bugs, counted in actions so that a busy machine audits as an idle one does;
/// it stops as soon as every bug is found. The time is only a backstop.
const STEPS: usize = 400;
const TIME: Duration = Duration::from_secs(600);

/// The correct build's audit: long enough for the walks to reach every kind of state the bugs
/// are found in (the benchmark audits the correct builds for as long as the buggy ones).
const CORRECT_STEPS: usize = 80;

/// Audits app `name`; at least `floor` of its bugs must be found.
async fn audit_app(name: &str, floor: usize) {
    let app = windup_corpus::app(name).expect("the app is in the corpus");
    let project = tempfile::tempdir().unwrap();
    let plan = Plan {
        seed: 1,
        time: TIME,
        steps: Some(STEPS),
        strategy: Default::default(),
        stop_after: Some(floor),
        emit: true,
    };
    let buggy = trial(&app, true, plan, project.path()).await;
    assert!(buggy.error.is_none(), "{name}: {:?}", buggy.error);
    let missed: Vec<String> = app
        .bugs
        .iter()
        .filter(|b| !buggy.broken.contains_key(&b.invariant))
        .map(|b| format!("{} ({}: {})", b.id, b.invariant, b.reach))
        .collect();
    if app.bugs.len() - missed.len() < floor {
        let log = std::env::temp_dir().join(format!("windup-corpus-{name}.steps"));
        std::fs::write(&log, buggy.steps.join("\n")).unwrap();
        panic!(
            "{name}: found fewer than {floor} bugs: missed {missed:#?}; found {:?} in {:.0} s and {} actions; its steps are in {}",
            buggy.broken,
            buggy.runtime.as_secs_f64(),
            buggy.actions,
            log.display()
        );
    }
    // The tests the findings became: failing while the bugs are there, passing once they are
    // not, from their pinned plans, with no model.
    let settings = || {
        Settings::from_parts(
            project.path(),
            Some("scenarios = \"scenarios\"\n"),
            &|name| (name == "CI").then(|| "true".to_owned()),
        )
        .unwrap()
    };
    let with_bugs = windup_corpus::serve(&app, &app.all_bugs()).await.unwrap();
    let against_bugs = common::replay_audit_tests(settings(), &with_bugs.url()).await;
    with_bugs.stop().await;
    assert!(!against_bugs.is_empty(), "{name}: tests were written");
    let passing: Vec<&String> = against_bugs
        .iter()
        .filter(|(_, passed)| **passed)
        .map(|(id, _)| id)
        .collect();
    assert!(
        passing.is_empty(),
        "{name}: pass against the bugs: {passing:?}"
    );
    let correct = windup_corpus::serve(&app, &[]).await.unwrap();
    let against_correct = common::replay_audit_tests(settings(), &correct.url()).await;
    correct.stop().await;
    let failing: Vec<&String> = against_correct
        .iter()
        .filter(|(_, passed)| !**passed)
        .map(|(id, _)| id)
        .collect();
    assert!(
        failing.is_empty(),
        "{name}: fail against the correct build: {failing:?}"
    );
    // What a bug can only be reached by is in the test its finding became.
    for bug in app
        .bugs
        .iter()
        .filter(|b| buggy.broken.contains_key(&b.invariant))
    {
        let made = buggy
            .kinds_by_invariant
            .get(&bug.invariant)
            .cloned()
            .unwrap_or_default();
        if let Some(kind) = bug.missing_move(&made) {
            panic!("{name}: the test of {} makes no {kind:?}: {made:?}", bug.id);
        }
    }
    eprintln!("{name}: the regression tests' moves: {:?}", buggy.kinds());

    let clean_project = tempfile::tempdir().unwrap();
    let clean = trial(
        &app,
        false,
        Plan {
            steps: Some(CORRECT_STEPS),
            emit: false,
            ..plan
        },
        clean_project.path(),
    )
    .await;
    assert!(clean.error.is_none(), "{name}: {:?}", clean.error);
    assert!(
        clean.broken.is_empty(),
        "{name}: the correct build broke {:?}",
        clean.broken
    );
    assert!(clean.actions > 0, "{name}: the correct build was used");
}

macro_rules! corpus_apps {
    ($($test:ident => $app:literal finds $floor:literal),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                audit_app($app, $floor).await;
            }
        )*

        #[test]
        fn every_app_of_the_corpus_has_its_test() {
            let tested: BTreeSet<&str> = [$($app),*].into_iter().collect();
            let apps: BTreeSet<String> = windup_corpus::apps()
                .unwrap()
                .into_iter()
                .map(|a| a.name)
                .collect();
            let apps: BTreeSet<&str> = apps.iter().map(String::as_str).collect();
            assert_eq!(apps, tested);
        }
    };
}

// How many bugs of each app one seeded run of 400 actions must find: what such runs found on
// 2026-12-06, less one where a bug is found in some seeds and not others (see the table of
// `cargo bench -p windup-corpus --bench efficacy` for the bugs missed and why).
corpus_apps! {
    alpine_settings => "alpine-settings" finds 2,
    lit_notes => "lit-notes" finds 3,
    preact_kanban => "preact-kanban" finds 1,
    react_groceries => "react-groceries" finds 3,
    solid_expenses => "solid-expenses" finds 1,
    svelte_playlist => "svelte-playlist" finds 2,
    vanilla_quiz => "vanilla-quiz" finds 2,
    vue_contacts => "vue-contacts" finds 2,
}
