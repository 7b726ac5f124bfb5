//! Markup nobody here designed for Windup: the pages of `tests/fixtures/patterns/`, written from the
//! patterns real apps use (opacity-0 checkboxes, labels in every form, open and nested shadow
//! roots, same- and cross-origin frames, hover-only buttons, modal dialogs, sticky headers,
//! virtual lists, custom comboboxes, editors, re-rendered lists). Each has an explicit-step
//! scenario that must plan offline, then replay from the cache with no planning at all, and a
//! decoy (a hidden or disabled twin, or a same-named control elsewhere) that writes "DECOY" on
//! the page if anything acts on it. Fail-closed replays are checked inside shadow roots and
//! frames.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::patterns::PatternSite;
use url::Url;
use windup_core::browser::{BrowserError, BrowserKind, ProbeState};
use windup_core::config::Settings;
use windup_core::engine::executor::{ExecOptions, Executor, FailureCause, NoValues};
use windup_core::engine::ledger::CacheOutcome;
use windup_core::model::plan::{Plan, Rules};
use windup_core::model::scenario::{self, Scenario};
use windup_core::model::steps::Expectation;
use windup_core::run::failure::FailureClass;
use windup_core::run::outcome::Outcome;
use windup_core::run::pool::SessionPool;
use windup_core::run::runner::run_scenario;
use windup_core::{browser::Browser, browser::Session};

/// Every pattern whose scenario must pass, in the order they run.
const PASSING: &[&str] = &[
    "opacity-checkbox",
    "label-for",
    "input-over-label",
    "shadow",
    "iframe-same",
    "iframe-cross",
    "hover-row",
    "dialog",
    "sticky-header",
    "virtual-list",
    "combobox",
    "contenteditable",
    "rerender",
    "animated",
    "toggle-switch",
    "tabs",
    "row-menu",
    "input-covers-label",
    "visually-hidden-input",
    "clip-path-input",
    "clip-rect-input",
    "one-pixel-input",
    "zero-size-input",
    "offscreen-input",
    "switch-under-slider",
    "keys-editor",
];

/// The patterns of a control a person cannot click (hidden, clipped, off the page, under its own
/// label's slider, or with its centre covered) and a label that shows: each step aims at the
/// label, in the page and in an open shadow root.
const THROUGH_LABEL: &[&str] = &[
    "input-covers-label",
    "visually-hidden-input",
    "clip-path-input",
    "clip-rect-input",
    "one-pixel-input",
    "zero-size-input",
    "offscreen-input",
    "switch-under-slider",
];

/// A project in a temporary directory holding the pattern scenarios.
struct Patterns {
    dir: tempfile::TempDir,
}

impl Patterns {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = dir.path().join("scenarios");
        std::fs::create_dir_all(&scenarios).unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            "scenarios = \"scenarios\"\n",
        )
        .unwrap();
        for entry in std::fs::read_dir(PatternSite::dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                std::fs::copy(&path, scenarios.join(path.file_name().unwrap())).unwrap();
            }
        }
        Self { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Settings as a developer's machine has them: plans may be made.
    fn settings(&self) -> Settings {
        self.settings_in(BrowserKind::Chromium)
    }

    /// The same, driving `kind`.
    fn settings_in(&self, kind: BrowserKind) -> Settings {
        let toml = format!(
            "scenarios = \"scenarios\"\nbrowser = \"{}\"\n",
            kind.as_str()
        );
        Settings::from_parts(self.root(), Some(&toml), &|_: &str| None).unwrap()
    }

    fn scenario(&self, name: &str) -> Scenario {
        let root = self.root().join("scenarios");
        scenario::load(&root.join(format!("{name}.yaml")), &root)
            .unwrap_or_else(|e| panic!("pattern scenario {name} does not load: {e}"))
    }

    /// The plan a first run made, as written for review.
    fn planned(&self, name: &str) -> Plan {
        let path: PathBuf = windup_core::engine::lockfile::pending_path(
            &self.root().join(format!("scenarios/{name}.yaml")),
        );
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
        Plan::from_json_str(&text, &Rules::default())
            .unwrap_or_else(|e| panic!("{} is not a valid plan: {e}", path.display()))
    }
}

fn has_decoy_check(scenario: &Scenario) -> bool {
    scenario
        .expect
        .iter()
        .any(|e| e.expectation == Expectation::NoText("DECOY".into()))
}

#[tokio::test]
async fn every_pattern_plans_offline_then_replays_from_the_cache_without_touching_its_decoy() {
    every_pattern_plans_then_replays(BrowserKind::Chromium).await;
}

async fn every_pattern_plans_then_replays(kind: BrowserKind) {
    let site = PatternSite::start().await;
    let project = Patterns::new();
    let settings = project.settings_in(kind);
    let browser = Browser::launch(settings.browser_config()).await.unwrap();
    let pool = SessionPool::new(browser, 1);
    let base: Url = site.url().parse().unwrap();
    let mut problems = Vec::new();
    for name in PASSING {
        let scenario = project.scenario(name);
        assert!(
            has_decoy_check(&scenario),
            "{name}: the scenario must expect no text \"DECOY\""
        );
        for (run, wanted) in [("first", CacheOutcome::Miss), ("replay", CacheOutcome::Hit)] {
            let result = run_scenario(&pool, &settings, &base, &scenario).await;
            match &result.outcome {
                Outcome::Passed { cache, .. } if *cache == wanted => {}
                Outcome::Passed { cache, .. } => problems.push(format!(
                    "{name} ({run} run in {kind}): cache {cache:?}, not {wanted:?}"
                )),
                Outcome::Failed(failure) => {
                    problems.push(format!("{name} ({run} run in {kind}) failed:\n{failure}"))
                }
            }
            assert!(
                result.details.llm_calls.is_empty(),
                "{name}: no model is ever called"
            );
        }
    }
    pool.close().await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));

    // What the plans say about where the elements were.
    let shadow = project.planned("shadow");
    let selectors: Vec<&str> = shadow
        .actions
        .iter()
        .filter_map(|a| a.target.as_ref().map(|t| t.selector.as_str()))
        .collect();
    assert!(
        selectors.iter().filter(|s| s.contains(">>>")).count() >= 3,
        "the shadow plan reaches into shadow roots, nested ones too: {selectors:?}"
    );
    let cross = project.planned("iframe-cross");
    for action in &cross.actions {
        let target = action
            .target
            .as_ref()
            .expect("every step of it has a target");
        assert_eq!(target.frames.len(), 1, "{}: {target:?}", action.id);
    }
    let hover = project.planned("hover-row");
    let kinds: Vec<&str> = hover.actions.iter().map(|a| a.kind.as_str()).collect();
    assert!(kinds.contains(&"hover"), "{kinds:?}");
    let unnamed = hover.actions[0].target.as_ref().unwrap();
    assert_eq!(unnamed.identity.within.as_deref(), Some("Walk the dog"));
    for name in THROUGH_LABEL {
        let plan = project.planned(name);
        for action in plan.actions.iter().filter(|a| a.target.is_some()) {
            let target = action.target.as_ref().unwrap();
            assert_eq!(
                target.identity.tag, "label",
                "{name}: the plan records the label clicked for {}: {target:?}",
                action.id
            );
        }
    }
    // A control that takes the pointer itself is clicked itself.
    let over = project.planned("input-over-label");
    let aimed = over.actions.iter().find_map(|a| a.target.as_ref()).unwrap();
    assert_eq!(aimed.identity.tag, "input", "{aimed:?}");
}

/// One session on the pattern site, to replay plans by hand.
struct Replay {
    site: PatternSite,
    options: ExecOptions,
    session: Session,
    _browser: Browser,
    _artifacts: tempfile::TempDir,
}

impl Replay {
    async fn start() -> Self {
        Self::start_in(common::browser_config().kind).await
    }

    async fn start_in(kind: BrowserKind) -> Self {
        let site = PatternSite::start().await;
        let config = windup_core::browser::BrowserConfig {
            kind,
            ..common::browser_config()
        };
        let browser = Browser::launch(config).await.unwrap();
        let session = browser.new_session().await.unwrap();
        let artifacts = tempfile::tempdir().unwrap();
        let mut options = ExecOptions::new(site.url().parse().unwrap());
        options.artifacts_dir = artifacts.path().to_owned();
        options.default_timeout = Duration::from_secs(5);
        Self {
            site,
            options,
            session,
            _browser: browser,
            _artifacts: artifacts,
        }
    }

    /// Plans a pattern's scenario offline on this session.
    async fn plan(&self, project: &Patterns, name: &str) -> Plan {
        self.session.reset().await.unwrap();
        let executor = Executor::new(&self.session, &self.options, &NoValues);
        windup_core::engine::planner::OfflinePlanner
            .plan(&project.scenario(name), &executor)
            .await
            .unwrap_or_else(|f| panic!("{name} plans: {f}"))
            .plan
    }

    async fn replay(
        &self,
        plan: &Plan,
    ) -> Result<(), Box<windup_core::engine::executor::StepFailure>> {
        self.session.reset().await.unwrap();
        Executor::new(&self.session, &self.options, &NoValues)
            .run(plan)
            .await
            .map(|_| ())
    }

    async fn page_text(&self) -> String {
        self.session
            .execute_script("return document.body.innerText")
            .await
            .unwrap()
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    async fn close(self) {
        self.session.close().await.unwrap();
        drop(self.site);
    }
}

/// The corpus in Firefox, and across browsers: each pattern is planned in Chromium and replayed
/// in Firefox, then planned in Firefox (a verified run there, expectations and decoy included)
/// and replayed in Chromium.
#[tokio::test]
async fn every_pattern_plans_in_firefox_and_a_plan_made_in_one_browser_replays_in_the_other() {
    let project = Patterns::new();
    let chromium = Replay::start_in(BrowserKind::Chromium).await;
    let firefox = Replay::start_in(BrowserKind::Firefox).await;
    let mut problems = Vec::new();
    for name in PASSING {
        for (made, maker, player) in [
            (BrowserKind::Chromium, &chromium, &firefox),
            (BrowserKind::Firefox, &firefox, &chromium),
        ] {
            let plan = maker.plan(&project, name).await;
            if let Err(failure) = player.replay(&plan).await {
                problems.push(format!("{name}, made in {made}:\n{failure}"));
            } else if player.page_text().await.contains("DECOY") {
                problems.push(format!("{name}, made in {made}: the decoy was acted on"));
            }
        }
    }
    chromium.close().await;
    firefox.close().await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

fn refused_as_stranger(failure: &windup_core::engine::executor::StepFailure) -> bool {
    matches!(&failure.cause, FailureCause::NotActionable { probe, .. } if probe.state == ProbeState::IdentityMismatch)
}

#[tokio::test]
async fn a_replay_refuses_a_changed_element_inside_a_shadow_root_and_inside_a_frame() {
    let project = Patterns::new();
    let rig = Replay::start().await;
    for (name, swapped) in [
        ("shadow", "Delete everything"),
        ("iframe-cross", "Cancel payment"),
    ] {
        let mut plan = rig.plan(&project, name).await;
        rig.replay(&plan)
            .await
            .unwrap_or_else(|f| panic!("{name} replays as planned: {f}"));
        // The same selectors, on a page where that element now does something else.
        plan.start_url = format!("{}?swap=1", plan.start_url);
        for action in &mut plan.actions {
            action.timeout_ms = Some(800);
        }
        let failure = rig
            .replay(&plan)
            .await
            .expect_err("a replay never acts on an element that is not the planned one");
        assert!(refused_as_stranger(&failure), "{name}: {failure}");
        assert!(failure.to_string().contains(swapped), "{name}: {failure}");
        let text = rig.page_text().await;
        assert!(
            !text.contains("DECOY") && !text.contains("Deleted everything"),
            "{name}: nothing was acted on: {text}"
        );
    }
    rig.close().await;
}

#[tokio::test]
async fn a_control_without_a_name_is_refused_when_its_row_moved() {
    let project = Patterns::new();
    let rig = Replay::start().await;
    let mut plan = rig.plan(&project, "hover-row").await;
    let tick = plan.actions[0].target.clone().unwrap();
    assert_eq!(tick.identity.name, None, "the row's checkbox has no name");
    assert_eq!(tick.identity.within.as_deref(), Some("Walk the dog"));
    rig.replay(&plan)
        .await
        .unwrap_or_else(|f| panic!("replays: {f}"));

    // The same rows the other way round: the planned selector now finds the other row's box.
    plan.start_url = "/hover-row.html?reverse=1".to_owned();
    plan.actions[0].timeout_ms = Some(800);
    let failure = rig
        .replay(&plan)
        .await
        .expect_err("the other row is not ticked");
    assert!(refused_as_stranger(&failure), "{failure}");
    assert!(
        failure.to_string().contains("not in \"Walk the dog\""),
        "{failure}"
    );
    let text = rig.page_text().await;
    assert!(
        !text.contains("DECOY") && !text.contains("Checked"),
        "{text}"
    );
    rig.close().await;
}

#[tokio::test]
async fn the_snapshot_and_the_signature_see_into_open_shadow_roots() {
    let rig = Replay::start().await;
    rig.session
        .goto(&format!("{}/shadow.html", rig.site.url()))
        .await
        .unwrap();
    let snapshot = rig.session.snapshot().await.unwrap();
    let add = snapshot
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some("Add") && e.enabled && e.visible)
        .unwrap_or_else(|| panic!("the shadow root's Add button is listed: {snapshot:#?}"));
    assert!(add.selectors[0].contains(" >>> "), "{:?}", add.selectors);
    assert!(
        snapshot
            .elements
            .iter()
            .any(|e| e.name.as_deref() == Some("3 stars")),
        "the nested shadow root's buttons are listed"
    );
    assert!(
        snapshot.outline.contains("button \"3 stars\""),
        "{}",
        snapshot.outline
    );
    // The light structure script gives the same signature as the full snapshot, so it too
    // counts what is inside the shadow roots.
    let structure = rig.session.structure().await.unwrap();
    assert_eq!(
        structure.signature(),
        windup_core::engine::signature::of(&snapshot)
    );
    rig.close().await;
}

#[tokio::test]
async fn a_closed_shadow_root_is_named_and_a_hover_only_control_says_how_to_reach_it() {
    let project = Patterns::new();
    let mut rig = Replay::start().await;
    rig.options.default_timeout = Duration::from_millis(800);
    let executor = Executor::new(&rig.session, &rig.options, &NoValues);
    let closed = windup_core::engine::planner::OfflinePlanner
        .plan(&project.scenario("closed-shadow"), &executor)
        .await
        .expect_err("a closed shadow root cannot be typed into");
    let message = closed.to_string();
    assert!(message.contains("secure-field"), "{message}");
    assert!(message.contains("closed shadow root"), "{message}");
    assert!(message.contains("(#3 of 3"), "fails at the fill: {message}");

    // The delete button shows only on hover: without the hover step, the error says to add it.
    let root = project.root().join("scenarios");
    let no_hover = scenario::parse(
        "task: Delete Buy milk.\nstart_url: /hover-row.html\nsteps:\n  - click \"Delete\" in \"Buy milk\"\n",
        &root.join("no-hover.yaml"),
        &root,
    )
    .unwrap();
    let failure = windup_core::engine::planner::OfflinePlanner
        .plan(&no_hover, &executor)
        .await
        .expect_err("a hidden button cannot be clicked");
    let message = failure.to_string();
    assert!(message.contains("display:none"), "{message}");
    assert!(message.contains("add `hover \"Buy milk\"`"), "{message}");
    rig.close().await;
}

/// A real obstruction is no label: a plain checkbox and a visually hidden one styled through its
/// label, both under a consent overlay, are refused with the overlay named, in each browser.
#[tokio::test]
async fn a_control_or_its_label_under_an_unrelated_overlay_is_refused_naming_the_overlay() {
    for kind in common::browsers() {
        let project = Patterns::new();
        let mut rig = Replay::start_in(kind).await;
        rig.options.default_timeout = Duration::from_millis(800);
        let root = project.root().join("scenarios");
        // What was aimed at, and how it stands to its pair: the plain checkbox itself, and the
        // label of the hidden one.
        for (name, aimed) in [
            ("Keep me signed in", "input#signed-in (the control of label"),
            ("Email me a receipt", "(a label of input#email"),
        ] {
            let text = format!(
                "task: Tick {name}.\nstart_url: /label-overlay.html\nsteps:\n  - check \"{name}\"\n"
            );
            let scenario = scenario::parse(&text, &root.join("overlay.yaml"), &root).unwrap();
            rig.session.reset().await.unwrap();
            let executor = Executor::new(&rig.session, &rig.options, &NoValues);
            let failure = windup_core::engine::planner::OfflinePlanner
                .plan(&scenario, &executor)
                .await
                .expect_err("nothing under an overlay can be clicked");
            let message = failure.to_string();
            assert!(
                message.contains("covered by div#consent"),
                "{kind}, {name}: {message}"
            );
            assert!(
                message.contains("not one of its label/control pair"),
                "{kind}, {name}: {message}"
            );
            assert!(message.contains(aimed), "{kind}, {name}: {message}");
            assert!(
                !rig.page_text().await.contains("DECOY"),
                "{kind}, {name}: nothing was ticked"
            );
        }
        rig.close().await;
    }
}

#[tokio::test]
async fn a_site_that_is_down_or_a_missing_start_page_is_a_navigation_failure() {
    let project = Patterns::new();
    let settings = project.settings();
    let browser = Browser::launch(settings.browser_config()).await.unwrap();
    let pool = SessionPool::new(browser, 1);
    let scenario = project.scenario("animated");

    // A port where nothing listens.
    let closed = common::closed_port();
    let port = closed.port();
    let down: Url = format!("http://127.0.0.1:{port}").parse().unwrap();
    let result = run_scenario(&pool, &settings, &down, &scenario).await;
    let Outcome::Failed(failure) = &result.outcome else {
        panic!("a run against a closed port passed");
    };
    let (message, class) = (&failure.to_string(), &failure.class());
    assert_eq!(*class, FailureClass::Navigation, "{message}");
    assert!(
        message.contains(&format!(
            "the site at http://127.0.0.1:{port}/animated.html is not reachable (connection refused, ERR_CONNECTION_REFUSED): is the server running?"
        )),
        "{message}"
    );
    assert!(
        message.contains("failed opening its start page"),
        "{message}"
    );
    assert!(
        !message.contains("Accept cookies"),
        "no step was resolved: {message}"
    );

    // A start page the server does not have.
    let site = PatternSite::start().await;
    let root = project.root().join("scenarios");
    let missing = scenario::parse(
        "task: Open a page that is not there.\nstart_url: /no-such-page.html\nsteps:\n  - click \"Accept cookies\"\n",
        &root.join("missing.yaml"),
        &root,
    )
    .unwrap();
    let base: Url = site.url().parse().unwrap();
    let result = run_scenario(&pool, &settings, &base, &missing).await;
    let Outcome::Failed(failure) = &result.outcome else {
        panic!("a missing start page passed");
    };
    let (message, class) = (&failure.to_string(), &failure.class());
    assert_eq!(*class, FailureClass::Navigation, "{message}");
    assert!(
        message.contains("answered HTTP 404 (Not Found)"),
        "{message}"
    );
    pool.close().await;
}

#[tokio::test]
async fn a_navigation_error_is_typed_at_the_browser_boundary() {
    let rig = Replay::start().await;
    let closed = common::closed_port();
    let port = closed.port();
    let err = rig
        .session
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .expect_err("nothing listens there");
    match err {
        BrowserError::Navigation(unreachable) => {
            assert_eq!(unreachable.code, "ERR_CONNECTION_REFUSED")
        }
        other => panic!("not a navigation error: {other}"),
    }
    rig.close().await;
}
