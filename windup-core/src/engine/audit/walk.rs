//! A person's moves. At every step of a walk, every move a person could make on what the page
//! shows now — focus a field, type a few keys and leave them, press Enter, Escape, Tab,
//! Backspace or Delete in the focused element, click, double-click or hover anything that listens, click a
//! link, click the background, go back, forward, reload — each with a weight for how often a
//! person does it; and, with the coverage strategy, weighted again toward what the run has not
//! tried yet in a state like this one. Every move is plan actions, so it shrinks, replays and
//! becomes a regression step.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::browser::{Control, PageDigest};
use crate::model::invariant::location_of;
use crate::model::plan::Action;

use super::moves::{self, Value};
use super::rng::Rng;
use super::{AuditConfig, Strategy};

/// A move a person could make now: what kind of move on what (the same on every page of this
/// state, for coverage), how often a person makes it, and its actions.
#[derive(Debug, Clone)]
pub(super) struct Move {
    pub(super) key: String,
    pub(super) weight: f64,
    pub(super) actions: Vec<Action>,
}

/// Where the walk has been, for the moves of the browser's own buttons.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct History {
    /// The walk has left its first location, so back stays in the app.
    pub(super) went: bool,
    /// The last move that changed the history was back, so forward has somewhere to go.
    pub(super) came_back: bool,
    /// The last move was back: a person often goes forward again at once
    /// ([`JUST_BACK_FORWARD_SHARE`]).
    pub(super) just_back: bool,
    /// The last move put the focus somewhere (a click, a double-click, focus, Tab): a person who
    /// has just entered a text field types in it ([`ENTERED_FIELD_SHARE`]).
    pub(super) entered: bool,
    /// The last moves typed into the focused field (since it got the focus): what is in it is
    /// the person's, pending, and the field a state of its own for coverage.
    pub(super) typed: bool,
}

/// Short texts a person types: words, a space alone, a number.
const WORDS: [&str; 8] = ["a", "milk", "Tea time", "x", " ", "42", "ab", "Ok"];

/// What a person types into a number field: numbers, a decimal, a sign.
const NUMBERS: [&str; 6] = ["1", "5", "12", "42", "0.5", "-1"];

/// Single keys typed one at a time into the focused field.
const LETTERS: [&str; 5] = ["a", "b", "e", " ", "1"];
const DIGITS: [&str; 4] = ["1", "5", "0", "."];

/// How much more a person uses what has just appeared (the checkbox of the item just added, the
/// button that shows once something is ticked) than what was there before.
const NEW_ON_THE_PAGE: f64 = 3.0;

/// The share of a walk's next moves a person makes in the text field they are in (typing on,
/// Enter, Escape, Tab, Backspace): someone editing goes on editing, or leaves the field, far
/// more often than they start something else. In any other focused element (a button just
/// clicked, a choice in a list) keys are a smaller share.
const FOCUSED_FIELD_SHARE: f64 = 0.6;
const FOCUSED_ELEMENT_SHARE: f64 = 0.2;

/// A text field the person has just entered (a click, a double-click on what opens an editor,
/// Tab) is typed in (or erased) before anything else: its share of the moves, and how much
/// more typing weighs there than the keys that leave it. Someone seldom opens an editor to close it at once.
const ENTERED_FIELD_SHARE: f64 = 0.8;
const TYPING_FIRST: f64 = 3.0;

/// Once something is typed, the person finishes: types on, or ends the edit with Enter,
/// Escape, Tab or a click beside the field, which weigh twice what they did; seldom do they
/// wander off to another control with a draft pending.
const TYPED_FIELD_SHARE: f64 = 0.75;
const FINISHING: f64 = 2.0;

/// The share of the moves right after back that go forward again: a person who went back to
/// look often returns at once.
const JUST_BACK_FORWARD_SHARE: f64 = 0.25;

/// What a page shows a person can act on, by [`what`] each is: to tell what has just appeared.
pub(super) fn shown(digest: &PageDigest) -> HashSet<String> {
    digest
        .controls
        .iter()
        .chain(&digest.actables)
        .map(what)
        .collect()
}

/// Every move a person could make on `digest`, with its weight before coverage; what is not in
/// `before` (what the page showed before the last move) weighs more.
pub(super) fn moves(
    config: &AuditConfig,
    digest: &PageDigest,
    before: Option<&HashSet<String>>,
    rng: &mut Rng,
    marker: &str,
    history: History,
) -> Vec<Move> {
    let deny = &config.deny;
    let usable = |c: &&Control| {
        c.enabled
            && !c.off_origin
            && !deny.denies_name(c.called())
            && c.href
                .as_deref()
                .is_none_or(|h| !deny.denies_location(&location_of(h)))
    };
    let mut out = Moves::default();
    let fresh = |c: &Control| before.is_some_and(|b| !b.contains(&what(c)));
    let mut in_focus = Vec::new();
    for control in digest.controls.iter().filter(usable) {
        let from = out.0.len();
        control_moves(config, control, &digest.url, rng, marker, &mut out);
        if fresh(control) {
            out.weigh_since(from, NEW_ON_THE_PAGE);
        }
        if control.focused && control.is_text_field() {
            in_focus.extend(from..out.0.len());
        }
    }
    for element in digest.actables.iter().filter(usable) {
        let from = out.0.len();
        actable_moves(element, &mut out);
        if fresh(element) {
            out.weigh_since(from, NEW_ON_THE_PAGE);
        }
    }
    form_moves(config, digest, &mut out);
    let focused = digest
        .controls
        .iter()
        .chain(&digest.actables)
        .find(|c| c.focused);
    let from = out.0.len();
    match focused {
        Some(control) if usable(&control) => key_moves(Some(control), rng, &mut out),
        Some(_) => {}
        None if digest.focused.is_some() => key_moves(None, rng, &mut out),
        None => {}
    }
    in_focus.extend(from..out.0.len());
    let in_field = focused.is_some_and(Control::is_text_field);
    if let Some(leave) = background_move(digest, in_field, &mut out)
        && in_field
    {
        in_focus.push(leave);
    }
    if history.went {
        out.add("back", 1.2, vec![moves::back()]);
    }
    let forward = history.came_back.then(|| {
        out.add("forward", 1.0, vec![moves::forward()]);
        out.0.len() - 1
    });
    out.add("reload", 1.0, vec![moves::reload()]);
    out.lean_into_focus(&in_focus, in_field, history);
    if let (Some(forward), true) = (forward, history.just_back) {
        out.share(&[forward], JUST_BACK_FORWARD_SHARE);
    }
    out.0
}

/// A click on the page's background, when it has one: how a person most often leaves a text
/// field, and sometimes another focused element. Its index among the moves.
fn background_move(digest: &PageDigest, in_field: bool, out: &mut Moves) -> Option<usize> {
    let background = digest.background.as_ref()?;
    let weight = match (in_field, digest.focused.is_some()) {
        (true, _) => 1.5,
        (false, true) => 1.0,
        (false, false) => 0.2,
    };
    out.add("click background", weight, vec![moves::click(background)]);
    Some(out.0.len() - 1)
}

#[derive(Default)]
struct Moves(Vec<Move>);

impl Moves {
    /// Multiplies the weights of the moves added since `from`.
    fn weigh_since(&mut self, from: usize, by: f64) {
        for added in &mut self.0[from..] {
            added.weight *= by;
        }
    }

    /// Gives the moves in the focused element (`in_focus`) their share: in a text field
    /// just entered, mostly typing; in one typed in, typing on or finishing the edit; in
    /// another element, its keys.
    fn lean_into_focus(&mut self, in_focus: &[usize], in_field: bool, history: History) {
        let (lean, by, share): (fn(&str) -> bool, f64, f64) = match in_field {
            true if history.typed => (finishes_an_edit, FINISHING, TYPED_FIELD_SHARE),
            true if history.entered => (edits, TYPING_FIRST, ENTERED_FIELD_SHARE),
            true => (|_| false, 1.0, FOCUSED_FIELD_SHARE),
            false => (|_| false, 1.0, FOCUSED_ELEMENT_SHARE),
        };
        for &i in in_focus {
            if lean(&self.0[i].key) {
                self.0[i].weight *= by;
            }
        }
        self.share(in_focus, share);
    }

    /// Scales the moves at `these` so that together they weigh `share` of all the moves (the
    /// others keep their weights relative to each other).
    fn share(&mut self, these: &[usize], share: f64) {
        let total: f64 = self.0.iter().map(|m| m.weight).sum();
        let theirs: f64 = these.iter().map(|&i| self.0[i].weight).sum();
        let rest = total - theirs;
        if theirs <= 0.0 || rest <= 0.0 {
            return;
        }
        let by = share / (1.0 - share) * rest / theirs;
        for &i in these {
            self.0[i].weight *= by;
        }
    }

    fn add(&mut self, key: impl Into<String>, weight: f64, actions: Vec<Action>) {
        self.0.push(Move {
            key: key.into(),
            weight,
            actions,
        });
    }
}

/// Whether the move keyed `key` ends an edit: Enter, Escape, Tab either way, a click beside
/// the field.
fn finishes_an_edit(key: &str) -> bool {
    key == "click background"
        || [
            "press Enter ",
            "press Escape ",
            "press Tab ",
            "press Shift+Tab ",
        ]
        .iter()
        .any(|k| key.starts_with(k))
}

/// Whether the move keyed `key` changes the text of the focused field.
fn edits(key: &str) -> bool {
    ["type ", "press Backspace ", "press Delete "]
        .iter()
        .any(|k| key.starts_with(k))
}

/// What a move on this control is called in coverage: its kind and what a person calls it;
/// rows of a list (elements beyond controls, named by their text) by what they are.
fn what(control: &Control) -> String {
    format!("{} {:?}", control.tag, control.called())
}

fn control_moves(
    config: &AuditConfig,
    control: &Control,
    here: &str,
    rng: &mut Rng,
    marker: &str,
    out: &mut Moves,
) {
    let it = what(control);
    if let Some(href) = &control.href {
        // A person seldom clicks the link to where they already are (the filter that is on).
        let weight = if location_of(href) == location_of(here) {
            0.5
        } else {
            3.0
        };
        out.add(format!("click {it}"), weight, vec![moves::click(control)]);
        out.add(format!("goto {it}"), 0.3, vec![moves::goto(href)]);
        return;
    }
    if control.is_toggle() {
        out.add(format!("toggle {it}"), 3.0, vec![moves::toggle(control)]);
        return;
    }
    if control.tag == "select" {
        if let Some(option) = rng.pick(&control.options) {
            out.add(
                format!("select {it}"),
                2.0,
                vec![moves::select(control, option)],
            );
        }
        return;
    }
    if control.is_text_field() {
        text_field_moves(config, control, rng, marker, out);
        return;
    }
    out.add(format!("click {it}"), 3.0, vec![moves::click(control)]);
    let double = if control.listens_for("dblclick") {
        1.5
    } else {
        0.2
    };
    out.add(
        format!("double-click {it}"),
        double,
        vec![moves::double_click(control)],
    );
    if control.listens_for("hover") || control.reveals {
        out.add(format!("hover {it}"), 1.0, vec![moves::hover(control)]);
    }
}

fn text_field_moves(
    config: &AuditConfig,
    control: &Control,
    rng: &mut Rng,
    marker: &str,
    out: &mut Moves,
) {
    let it = what(control);
    if !control.focused {
        out.add(format!("focus {it}"), 0.6, vec![moves::focus(control)]);
    }
    let fitting: &[&str] = if control.input_type.as_deref() == Some("number") {
        &NUMBERS
    } else {
        &WORDS
    };
    let mut words: Vec<String> = fitting.iter().map(|w| (*w).to_owned()).collect();
    if let Some(Value::Text(usual)) = moves::usual(control, config, false) {
        words.push(usual);
    }
    if let Some(word) = rng.pick(&words) {
        out.add(
            format!("type {it}"),
            2.5,
            vec![moves::type_text(control, word)],
        );
    }
    // Filled and sent at once: a value a person would give, or a hostile one.
    let standalone = control.form.is_none();
    let sent = |value: String| {
        let mut actions = vec![moves::fill(control, &Value::Text(value))];
        if standalone {
            actions.push(moves::press(Some(control), "Enter"));
        }
        actions
    };
    if let Some(Value::Text(usual)) = moves::usual(control, config, false) {
        out.add(format!("fill {it}"), 1.2, sent(usual));
    }
    let hostile: Vec<String> = moves::hostile(control, marker)
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    if let Some(value) = rng.pick(&hostile) {
        out.add(format!("fill hostile {it}"), 0.8, sent(value.clone()));
    }
    if control.empty == Some(false) {
        out.add(
            format!("clear {it}"),
            0.5,
            vec![moves::fill(control, &Value::Text(String::new()))],
        );
    }
}

/// Each form with a field to type in, filled as a person fills it and sent: the fields still
/// empty get usual values (what is typed and pending stays), then its button, or Enter.
fn form_moves(config: &AuditConfig, digest: &PageDigest, out: &mut Moves) {
    for form in 0..digest.forms.len() {
        let fields: Vec<&Control> = digest.fields_of(form);
        if !fields.iter().any(|c| c.is_text_field()) {
            continue;
        }
        // `filled` leaves the button alone; a text field typed in keeps its text.
        let empty: Vec<&Control> = fields
            .iter()
            .copied()
            .filter(|c| !c.is_text_field() || c.empty != Some(false))
            .collect();
        let Some(mut actions) = super::moves::filled(config, &empty, None) else {
            continue;
        };
        actions.extend(super::moves::send(&fields));
        let sender = fields
            .iter()
            .find(|c| c.submits)
            .map_or("Enter", |c| c.called());
        out.add(format!("send form {sender:?}"), 2.0, actions);
    }
}

/// Moves on an element beyond the controls: what it listens for.
fn actable_moves(element: &Control, out: &mut Moves) {
    let kind = format!("{} {}", element.tag, element.listens.join("+"));
    if element.listens_for("click") {
        out.add(format!("click {kind}"), 2.5, vec![moves::click(element)]);
    }
    if element.listens_for("dblclick") {
        out.add(
            format!("double-click {kind}"),
            2.5,
            vec![moves::double_click(element)],
        );
    }
    if element.reveals || element.listens_for("hover") {
        out.add(format!("hover {kind}"), 2.0, vec![moves::hover(element)]);
    }
}

/// Keys pressed in the element that has the focus (by name when the walk knows it, so that a
/// replay presses them in the same place).
fn key_moves(focused: Option<&Control>, rng: &mut Rng, out: &mut Moves) {
    let typing = focused.is_some_and(Control::is_text_field);
    let empty = focused.and_then(|c| c.empty).unwrap_or(true);
    let at = focused.map(what).unwrap_or_else(|| "focus".to_owned());
    // In an empty field Backspace is as common as Enter or Escape: holding it to erase what was
    // typed goes past the start, and tag and list editors act on it there.
    let keys: &[(&str, f64)] = if typing {
        &[
            ("Enter", if empty { 1.0 } else { 2.5 }),
            ("Escape", if empty { 1.0 } else { 2.0 }),
            ("Backspace", 1.0),
            ("Tab", 0.7),
            ("Shift+Tab", 0.3),
            ("Delete", 0.2),
            ("ArrowLeft", 0.2),
            ("ArrowRight", 0.2),
        ]
    } else {
        // On a focused row, card or chip, Delete (Backspace on a Mac keyboard) is how list and
        // file views remove it.
        &[
            ("Enter", 1.0),
            ("Space", 0.6),
            ("Escape", 1.0),
            ("Tab", 0.5),
            ("Shift+Tab", 0.2),
            ("Delete", 0.4),
            ("Backspace", 0.2),
            ("ArrowDown", 0.2),
            ("ArrowUp", 0.2),
        ]
    };
    for (key, weight) in keys {
        out.add(
            format!("press {key} in {at}"),
            *weight,
            vec![moves::press(focused, key)],
        );
    }
    let keys: &[&str] = if focused.is_some_and(|f| f.input_type.as_deref() == Some("number")) {
        &DIGITS
    } else {
        &LETTERS
    };
    if let (true, Some(field), Some(letter)) = (typing, focused, rng.pick(keys)) {
        out.add(
            format!("type a key in {at}"),
            2.0,
            vec![moves::type_text(field, letter)],
        );
    }
}

/// A state as coverage counts it: the location (path, query and fragment) and the set of what a
/// person can act on there, with each control's state (checked, empty, focused). Rows of a list
/// count by kind, so a list one longer is the same state. A focused field the walk has typed
/// into (`typed`) is another state than the same field as it was entered: Escape or a click
/// away, tried there before anything was typed, is still new once there is a draft to lose.
pub(super) fn state_of(digest: &PageDigest, typed: bool) -> u64 {
    let mut parts = BTreeSet::new();
    for control in &digest.controls {
        parts.insert(format!(
            "{} {:?} {:?} {:?} {}",
            control.tag,
            control.called(),
            control.checked,
            control.empty,
            control.focused
        ));
    }
    for element in &digest.actables {
        parts.insert(format!(
            "{} {} {} {}",
            element.tag,
            element.listens.join("+"),
            element.reveals,
            element.focused
        ));
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    location_of(&digest.url).hash(&mut hasher);
    parts.hash(&mut hasher);
    (typed && digest.focused.is_some()).hash(&mut hasher);
    hasher.finish()
}

/// What the run has met and tried: the states, how often each move was made in each, and, for
/// the coverage strategy, how often each move (in any state) reached code no walk had run.
#[derive(Debug, Default)]
pub(super) struct Visits {
    states: HashSet<u64>,
    tried: HashMap<(u64, String), u32>,
    gains: HashMap<String, Gain>,
}

/// A move's record in reaching new code: how often it was made, and how often that reached
/// edges no walk had reached before.
#[derive(Debug, Default, Clone, Copy)]
struct Gain {
    made: u32,
    found: u32,
}

impl Gain {
    /// The chance that making the move once more reaches new code, by its record (a move never
    /// made has even odds; each make that found nothing lowers them).
    fn odds(self) -> f64 {
        f64::from(self.found + 1) / f64::from(self.made + 2)
    }
}

impl Visits {
    pub(super) fn saw(&mut self, state: u64) {
        self.states.insert(state);
    }

    pub(super) fn made(&mut self, state: u64, key: &str) {
        *self.tried.entry((state, key.to_owned())).or_default() += 1;
    }

    /// A move was made and reached `new` edges no walk had reached.
    pub(super) fn gained(&mut self, key: &str, new: usize) {
        let gain = self.gains.entry(key.to_owned()).or_default();
        gain.made += 1;
        gain.found += u32::from(new > 0);
    }

    fn times(&self, state: u64, key: &str) -> u32 {
        self.tried
            .get(&(state, key.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    pub(super) fn coverage(&self) -> super::Coverage {
        super::Coverage {
            states: self.states.len(),
            moves: self.tried.len(),
        }
    }

    /// The move to make: by the weights alone (uniform over what a person does), or, for
    /// novelty, each weight times how new the move is in this state — a move never made here
    /// four times as likely, one made `n` times `1/(n+1)` as likely. Coverage weighs that again
    /// by the move's odds of reaching new code (from half to one and a half times): a move
    /// that keeps running only code already run loses its share to those that open new code.
    pub(super) fn choose(
        &self,
        strategy: Strategy,
        state: u64,
        moves: &[Move],
        rng: &mut Rng,
    ) -> Option<usize> {
        let weights: Vec<f64> = moves
            .iter()
            .map(|m| match strategy {
                Strategy::Uniform => m.weight,
                Strategy::Coverage | Strategy::Novelty => {
                    let novel = match self.times(state, &m.key) {
                        0 => m.weight * 4.0,
                        n => m.weight / f64::from(n + 1),
                    };
                    if strategy == Strategy::Coverage {
                        let gain = self.gains.get(&m.key).copied().unwrap_or_default();
                        novel * (0.5 + 2.0 * gain.odds())
                    } else {
                        novel
                    }
                }
            })
            .collect();
        rng.weighted(&weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::ActionKind;

    fn control(tag: &str, name: &str) -> Control {
        Control {
            tag: tag.to_owned(),
            role: None,
            name: Some(name.to_owned()),
            label: None,
            input_type: None,
            field: None,
            selector: format!("#{}", name.replace(' ', "-")),
            enabled: true,
            href: None,
            off_origin: false,
            form: None,
            submits: false,
            checked: None,
            options: Vec::new(),
            min: None,
            max: None,
            required: false,
            listens: Vec::new(),
            focused: false,
            empty: None,
            reveals: false,
        }
    }

    fn digest(controls: Vec<Control>, actables: Vec<Control>) -> PageDigest {
        PageDigest {
            url: "http://127.0.0.1/#/".to_owned(),
            title: String::new(),
            controls,
            forms: Vec::new(),
            actables,
            background: None,
            focused: None,
        }
    }

    fn config() -> AuditConfig {
        AuditConfig {
            target: "http://127.0.0.1/".parse().expect("a url"),
            seed: 1,
            budget: super::super::Budget::default(),
            strategy: Strategy::Coverage,
            coverage: true,
            invariants: Vec::new(),
            inputs: Vec::new(),
            login: None,
            deny: super::super::Deny::default(),
            allowed_origins: Vec::new(),
            artifacts_dir: std::path::PathBuf::new(),
            action_timeout: std::time::Duration::from_secs(1),
            ready_timeout: std::time::Duration::from_secs(1),
            frames: None,
        }
    }

    /// The moves offered on `page` at the start of a walk.
    fn offered(page: &PageDigest) -> Vec<Move> {
        moves(
            &config(),
            page,
            None,
            &mut Rng::new(1),
            "m",
            History::default(),
        )
    }

    fn kinds(moves: &[Move]) -> std::collections::HashSet<ActionKind> {
        moves
            .iter()
            .flat_map(|m| m.actions.iter().map(|a| a.kind))
            .collect()
    }

    #[test]
    fn a_focused_field_offers_keys_typing_and_leaving_it() {
        let mut field = control("input", "New todo");
        field.focused = true;
        field.empty = Some(false);
        let mut page = digest(vec![field], Vec::new());
        page.focused = Some("#New-todo".to_owned());
        page.background = Some(control("h1", "todos"));
        let history = History {
            went: true,
            came_back: true,
            ..History::default()
        };
        let moves = moves(&config(), &page, None, &mut Rng::new(1), "m", history);
        let kinds = kinds(&moves);
        for kind in [
            ActionKind::Type,
            ActionKind::Fill,
            ActionKind::Press,
            ActionKind::Click,
            ActionKind::Back,
            ActionKind::Forward,
            ActionKind::Reload,
        ] {
            assert!(kinds.contains(&kind), "{kind} in {moves:#?}");
        }
        let escape = moves
            .iter()
            .find(|m| m.key.starts_with("press Escape"))
            .expect("Escape is offered");
        let target = escape.actions[0]
            .target
            .as_ref()
            .expect("pressed in the field");
        assert_eq!(target.selector, "#New-todo");
        assert!(
            !moves.iter().any(|m| m.key.starts_with("focus ")),
            "a focused field is not focused again"
        );
    }

    #[test]
    fn a_focused_row_is_offered_the_keys_that_remove_it_but_not_typing() {
        let mut row = control("li", "So What");
        row.listens = vec!["keydown".to_owned()];
        let mut page = digest(Vec::new(), vec![row]);
        page.focused = Some("#So-What".to_owned());
        let moves = offered(&page);
        let pressed: Vec<_> = moves
            .iter()
            .filter_map(|m| m.actions.first())
            .filter(|a| a.kind == ActionKind::Press)
            .filter_map(|a| a.key.as_deref())
            .collect();
        for key in ["Delete", "Backspace", "Enter", "Escape"] {
            assert!(pressed.contains(&key), "{key} in {pressed:?}");
        }
        assert!(!kinds(&moves).contains(&ActionKind::Type), "{moves:#?}");
    }

    #[test]
    fn forward_is_offered_after_back_and_weighs_most_right_after_it() {
        let page = digest(vec![control("button", "Add")], Vec::new());
        let forward = |history: History| {
            moves(&config(), &page, None, &mut Rng::new(1), "m", history)
                .into_iter()
                .find(|m| m.key == "forward")
                .map(|m| m.weight)
        };
        let went = History {
            went: true,
            ..History::default()
        };
        assert_eq!(forward(went), None, "nowhere to go forward to");
        let later = forward(History {
            came_back: true,
            ..went
        })
        .expect("forward after back");
        let at_once = forward(History {
            came_back: true,
            just_back: true,
            ..went
        })
        .expect("forward right after back");
        assert!(at_once > later, "{at_once} > {later}");
        let all: f64 = moves(
            &config(),
            &page,
            None,
            &mut Rng::new(1),
            "m",
            History {
                came_back: true,
                just_back: true,
                ..went
            },
        )
        .iter()
        .map(|m| m.weight)
        .sum();
        assert!((at_once / all - JUST_BACK_FORWARD_SHARE).abs() < 1e-9);
    }

    #[test]
    fn a_number_field_gets_numbers_and_the_link_to_here_is_seldom_clicked() {
        let mut amount = control("input", "Amount");
        amount.input_type = Some("number".to_owned());
        amount.focused = true;
        let mut here = control("a", "All");
        here.href = Some("http://127.0.0.1/#/".to_owned());
        let mut there = control("a", "Food");
        there.href = Some("http://127.0.0.1/#/food".to_owned());
        let mut page = digest(vec![amount, here, there], Vec::new());
        page.focused = Some("#Amount".to_owned());
        for seed in 0..20 {
            let moves = moves(
                &config(),
                &page,
                None,
                &mut Rng::new(seed),
                "m",
                History::default(),
            );
            let typed: Vec<&Move> = moves
                .iter()
                .filter(|m| m.key.starts_with("type "))
                .collect();
            assert_eq!(typed.len(), 2, "a word and a key");
            for typed in typed {
                let text = typed.actions[0].value.as_deref().unwrap_or_default();
                assert!(text.parse::<f64>().is_ok() || text == ".", "{text:?} typed");
            }
            let click = |name: &str| {
                moves
                    .iter()
                    .find(|m| m.key == format!("click a {name:?}"))
                    .map(|m| m.weight)
                    .unwrap()
            };
            assert!(click("All") < click("Food") / 4.0);
        }
    }

    #[test]
    fn a_form_is_filled_where_empty_and_sent_keeping_what_was_typed() {
        let mut typed = control("input", "Description");
        typed.input_type = Some("text".to_owned());
        typed.empty = Some(false);
        let mut amount = control("input", "Amount");
        amount.input_type = Some("number".to_owned());
        amount.empty = Some(true);
        let mut add = control("button", "Add");
        add.submits = true;
        for c in [&mut typed, &mut amount, &mut add] {
            c.form = Some(0);
        }
        let mut page = digest(vec![typed, amount, add], Vec::new());
        page.forms = vec![crate::browser::FormInfo {
            selector: "form".to_owned(),
            action: page.url.clone(),
            method: "get".to_owned(),
        }];
        let moves = offered(&page);
        let sent = moves
            .iter()
            .find(|m| m.key == "send form \"Add\"")
            .expect("the form is sent");
        let steps: Vec<(ActionKind, &str)> = sent
            .actions
            .iter()
            .map(|a| (a.kind, a.target.as_ref().unwrap().selector.as_str()))
            .collect();
        assert_eq!(
            steps,
            [(ActionKind::Fill, "#Amount"), (ActionKind::Click, "#Add")]
        );
    }

    #[test]
    fn a_person_in_a_field_mostly_goes_on_in_it_however_busy_the_page() {
        let mut field = control("input", "Rename");
        field.focused = true;
        field.empty = Some(false);
        let mut controls: Vec<Control> = (0..30)
            .map(|n| control("button", &format!("Item {n}")))
            .collect();
        controls.push(field);
        let mut page = digest(controls, Vec::new());
        page.focused = Some("#Rename".to_owned());
        let moves = offered(&page);
        let total: f64 = moves.iter().map(|m| m.weight).sum();
        let in_field: f64 = moves
            .iter()
            .filter(|m| m.key.contains("\"Rename\""))
            .map(|m| m.weight)
            .sum();
        assert!(
            (in_field / total - FOCUSED_FIELD_SHARE).abs() < 1e-9,
            "{in_field} of {total}"
        );
        let escape = moves
            .iter()
            .find(|m| m.key.starts_with("press Escape"))
            .unwrap();
        assert!(escape.weight / total > 0.03, "Escape is a likely move");
        // Leaving the field by a click on the page beside it is one of the moves in it.
        page.background = Some(control("h1", "Items"));
        let moves = offered(&page);
        let total: f64 = moves.iter().map(|m| m.weight).sum();
        let editing: f64 = moves
            .iter()
            .filter(|m| m.key.contains("\"Rename\"") || m.key == "click background")
            .map(|m| m.weight)
            .sum();
        assert!(
            (editing / total - FOCUSED_FIELD_SHARE).abs() < 1e-9,
            "{editing} of {total}"
        );
    }

    #[test]
    fn what_listens_is_clicked_double_clicked_or_hovered_as_it_listens() {
        let mut label = control("label", "Buy milk");
        label.listens = vec!["dblclick".to_owned()];
        let mut row = control("li", "Walk the dog");
        row.reveals = true;
        let moves = offered(&digest(vec![control("button", "Add")], vec![label, row]));
        let keys: Vec<&str> = moves.iter().map(|m| m.key.as_str()).collect();
        assert!(keys.contains(&"double-click label dblclick"), "{keys:?}");
        assert!(keys.contains(&"hover li "), "{keys:?}");
        assert!(!keys.contains(&"click label dblclick"), "{keys:?}");
        assert!(!keys.iter().any(|k| k.starts_with("back")), "{keys:?}");
    }

    /// A page of two buttons: the moves that click them, and its state.
    fn two_buttons() -> (Vec<Move>, u64) {
        let page = digest(
            vec![control("button", "One"), control("button", "Two")],
            Vec::new(),
        );
        let moves: Vec<Move> = offered(&page)
            .into_iter()
            .filter(|m| m.key.starts_with("click"))
            .collect();
        (moves, state_of(&page, false))
    }

    #[test]
    fn coverage_leans_toward_moves_not_made_in_this_state() {
        let (moves, state) = two_buttons();
        let mut visits = Visits::default();
        for _ in 0..20 {
            visits.made(state, &moves[0].key);
        }
        let mut rng = Rng::new(9);
        let second = (0..1000)
            .filter(|_| visits.choose(Strategy::Novelty, state, &moves, &mut rng) == Some(1))
            .count();
        assert!(
            second > 950,
            "the untried move is chosen {second} times in 1000"
        );
        let uniform = (0..1000)
            .filter(|_| visits.choose(Strategy::Uniform, state, &moves, &mut rng) == Some(1))
            .count();
        assert!((400..600).contains(&uniform), "{uniform}");
    }

    #[test]
    fn coverage_leans_away_from_moves_that_keep_running_old_code() {
        let (moves, state) = two_buttons();
        let mut visits = Visits::default();
        // Both made as often here; the first found new code once in ten, the second each time.
        for n in 0..10 {
            visits.made(state, &moves[0].key);
            visits.gained(&moves[0].key, usize::from(n == 0));
            visits.made(state, &moves[1].key);
            visits.gained(&moves[1].key, 3);
        }
        let mut rng = Rng::new(3);
        let second = |visits: &Visits, strategy, rng: &mut Rng| {
            (0..1000)
                .filter(|_| visits.choose(strategy, state, &moves, rng) == Some(1))
                .count()
        };
        let coverage = second(&visits, Strategy::Coverage, &mut rng);
        assert!(
            (650..850).contains(&coverage),
            "the move that keeps finding code: {coverage} in 1000"
        );
        let novelty = second(&visits, Strategy::Novelty, &mut rng);
        assert!(
            (400..600).contains(&novelty),
            "novelty ignores code: {novelty}"
        );
    }

    #[test]
    fn what_has_just_appeared_weighs_more() {
        let before_page = digest(vec![control("button", "Add")], Vec::new());
        let after_page = digest(
            vec![
                control("button", "Add"),
                control("button", "Clear completed"),
            ],
            Vec::new(),
        );
        let before = shown(&before_page);
        let moves = moves(
            &config(),
            &after_page,
            Some(&before),
            &mut Rng::new(1),
            "m",
            History::default(),
        );
        let weight = |key: &str| {
            moves
                .iter()
                .find(|m| m.key == key)
                .map(|m| m.weight)
                .expect(key)
        };
        assert_eq!(
            weight("click button \"Clear completed\""),
            weight("click button \"Add\"") * NEW_ON_THE_PAGE
        );
    }

    #[test]
    fn a_longer_list_is_the_same_state_and_a_ticked_box_another() {
        let row = |name: &str| {
            let mut row = control("li", name);
            row.listens = vec!["click".to_owned()];
            row
        };
        let boxed = |checked: bool| {
            let mut toggle = control("input", "Done");
            toggle.checked = Some(checked);
            toggle
        };
        let one = digest(vec![boxed(false)], vec![row("a")]);
        let two = digest(vec![boxed(false)], vec![row("a"), row("b")]);
        let ticked = digest(vec![boxed(true)], vec![row("a")]);
        assert_eq!(state_of(&one, false), state_of(&two, false));
        assert_ne!(state_of(&one, false), state_of(&ticked, false));
        // A draft in the focused field is a state of its own; without a focus it is not.
        let mut editing = digest(vec![control("input", "Title")], Vec::new());
        editing.focused = Some("#Title".to_owned());
        assert_ne!(state_of(&editing, false), state_of(&editing, true));
        assert_eq!(state_of(&one, false), state_of(&one, true));
    }

    #[test]
    fn a_field_just_entered_is_typed_in_before_it_is_left() {
        let mut field = control("input", "Card title");
        field.focused = true;
        field.empty = Some(false);
        let mut page = digest(
            vec![field, control("button", "Add"), control("button", "Move")],
            Vec::new(),
        );
        page.focused = Some("#Card-title".to_owned());
        page.background = Some(control("h1", "Board"));
        let shares = |history: History| {
            let moves = moves(&config(), &page, None, &mut Rng::new(1), "m", history);
            let total: f64 = moves.iter().map(|m| m.weight).sum();
            let of = |keep: &dyn Fn(&Move) -> bool| {
                moves
                    .iter()
                    .filter(|m| keep(m))
                    .map(|m| m.weight)
                    .sum::<f64>()
                    / total
            };
            let typing = of(&|m| m.key.starts_with("type "));
            let leaving = of(&|m| {
                m.key.starts_with("press Enter")
                    || m.key.starts_with("press Escape")
                    || m.key == "click background"
            });
            (typing, leaving)
        };
        let entered = History {
            entered: true,
            ..History::default()
        };
        let (typing_entered, leaving_entered) = shares(entered);
        let (typing_then, leaving_then) = shares(History {
            typed: true,
            ..entered
        });
        assert!(
            typing_entered > 2.0 * leaving_entered,
            "just entered: typing {typing_entered}, leaving {leaving_entered}"
        );
        assert!(
            leaving_then > 2.0 * typing_then,
            "once typed: typing {typing_then}, leaving {leaving_then}"
        );
        // A field that kept the focus after Enter (or had it on load) is neither.
        let (typing, leaving) = shares(History::default());
        assert!(typing < typing_entered && leaving < leaving_then);
    }
}
