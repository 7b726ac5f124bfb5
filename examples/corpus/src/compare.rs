//! Windup's audit and Bombadil side by side on the corpus: a markdown table per app (per bug the
//! runs that caught it, false alarms of the correct build, actions per second, crashes) and one
//! over all apps, a column per tool (and per strategy of Windup's).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::App;
use crate::efficacy::{Tool, Trial, median};

/// The column a trial belongs in: `Windup (novelty)`, `Bombadil`.
pub fn column(trial: &Trial) -> String {
    match trial.tool {
        Tool::Windup => format!(
            "Windup ({})",
            format!("{:?}", trial.strategy).to_lowercase()
        ),
        Tool::Bombadil => "Bombadil".to_owned(),
    }
}

/// The side-by-side tables of `trials` over `apps`.
pub fn table(apps: &[App], trials: &[Trial]) -> String {
    let mut columns: Vec<(Tool, String)> = trials.iter().map(|t| (t.tool, column(t))).collect();
    columns.sort();
    columns.dedup();
    let columns: Vec<String> = columns.into_iter().map(|(_, c)| c).collect();
    let mut out = summary(apps, trials, &columns);
    for app in apps {
        let mine: Vec<&Trial> = trials.iter().filter(|t| t.app == app.name).collect();
        if !mine.is_empty() {
            out.push_str(&app_table(app, &mine, &columns));
        }
    }
    out
}

fn header(first: &str, columns: &[String]) -> String {
    format!(
        "| {first} | {} |\n|---|{}\n",
        columns.join(" | "),
        "---|".repeat(columns.len())
    )
}

fn row(name: &str, cells: impl Iterator<Item = String>) -> String {
    format!("| {name} | {} |\n", cells.collect::<Vec<_>>().join(" | "))
}

fn of<'a>(trials: &[&'a Trial], column: &str, bugs_on: bool) -> Vec<&'a Trial> {
    trials
        .iter()
        .copied()
        .filter(|t| self::column(t) == column && t.bugs_on == bugs_on)
        .collect()
}

/// How often a bug's invariant broke in `buggy`, and the median time to its first sight.
fn caught(buggy: &[&Trial], invariant: &str) -> String {
    let found: Vec<Duration> = buggy
        .iter()
        .filter_map(|t| t.broken.get(invariant).copied())
        .collect();
    match median(found.clone()) {
        Some(first) => format!(
            "{}/{}, first at {:.1} s",
            found.len(),
            buggy.len(),
            first.as_secs_f64()
        ),
        None => format!("0/{}", buggy.len()),
    }
}

/// The invariants broken in `correct` runs (false alarms), each with its seed.
fn false_alarms(correct: &[&Trial]) -> String {
    let alarms: Vec<String> = correct
        .iter()
        .flat_map(|t| {
            t.broken
                .keys()
                .map(move |k| format!("`{k}` (seed {})", t.seed))
        })
        .collect();
    if alarms.is_empty() {
        format!("0 in {}", runs(correct.len()))
    } else {
        format!(
            "{} in {}: {}",
            alarms.len(),
            runs(correct.len()),
            alarms.join(", ")
        )
    }
}

fn runs(n: usize) -> String {
    format!("{n} run{}", if n == 1 { "" } else { "s" })
}

fn rate(trials: &[&Trial]) -> String {
    let ran: Vec<f64> = trials
        .iter()
        .filter(|t| t.actions > 0)
        .map(|t| t.actions_per_second())
        .collect();
    if ran.is_empty() {
        return "-".to_owned();
    }
    format!("{:.1}", ran.iter().sum::<f64>() / ran.len() as f64)
}

/// The median of `count` over the runs that acted, or `-` where the tool does not tell it (a
/// column whose runs all count zero: Bombadil's edges, an audit that did not count the code).
fn middle(trials: &[&Trial], count: impl Fn(&Trial) -> usize) -> String {
    let mut counts: Vec<usize> = trials
        .iter()
        .filter(|t| t.actions > 0)
        .map(|&t| count(t))
        .collect();
    if counts.iter().all(|&n| n == 0) {
        return "-".to_owned();
    }
    counts.sort_unstable();
    counts[(counts.len() - 1) / 2].to_string()
}

fn crashes(trials: &[&Trial]) -> String {
    let crashed = trials.iter().filter(|t| t.error.is_some()).count();
    format!("{crashed} of {}", trials.len())
}

/// One app's table, then what each crash said.
fn app_table(app: &App, trials: &[&Trial], columns: &[String]) -> String {
    let mut out = format!("\n### {} ({})\n\n", app.name, app.framework);
    out.push_str(&header("bug (its invariant)", columns));
    for bug in &app.bugs {
        let cells = columns
            .iter()
            .map(|c| caught(&of(trials, c, true), &bug.invariant));
        out.push_str(&row(&format!("`{}` (`{}`)", bug.id, bug.invariant), cells));
    }
    let extra = |c: &String| {
        let others: BTreeSet<&String> = of(trials, c, true)
            .into_iter()
            .flat_map(|t| t.broken.keys())
            .filter(|id| !app.bugs.iter().any(|b| &&b.invariant == id))
            .collect();
        let others: Vec<String> = others.into_iter().map(|id| format!("`{id}`")).collect();
        if others.is_empty() {
            "-".to_owned()
        } else {
            others.join(", ")
        }
    };
    out.push_str(&row(
        "also broken with the bugs on",
        columns.iter().map(extra),
    ));
    let correct = |c: &String| false_alarms(&of(trials, c, false));
    out.push_str(&row("false alarms (no bugs)", columns.iter().map(correct)));
    let mine = |c: &String| -> Vec<&Trial> {
        trials.iter().copied().filter(|t| column(t) == *c).collect()
    };
    out.push_str(&row("actions/s", columns.iter().map(|c| rate(&mine(c)))));
    out.push_str(&row("crashes", columns.iter().map(|c| crashes(&mine(c)))));
    out.push('\n');
    for t in trials.iter().filter(|t| t.error.is_some()) {
        out.push_str(&format!(
            "- {} crashed (seed {}, bugs {}): {}\n",
            column(t),
            t.seed,
            if t.bugs_on { "on" } else { "off" },
            t.error.as_deref().unwrap_or("")
        ));
    }
    out
}

/// The table over every app.
fn summary(apps: &[App], trials: &[Trial], columns: &[String]) -> String {
    let all: Vec<&Trial> = trials.iter().collect();
    let bugs: Vec<(&str, &str)> = apps
        .iter()
        .filter(|a| trials.iter().any(|t| t.app == a.name))
        .flat_map(|a| {
            a.bugs
                .iter()
                .map(|b| (a.name.as_str(), b.invariant.as_str()))
        })
        .collect();
    let found = |c: &String| {
        let buggy = of(&all, c, true);
        let runs = |(app, invariant): &(&str, &str)| {
            buggy
                .iter()
                .filter(|t| t.app == *app && t.broken.contains_key(*invariant))
                .count()
        };
        let any = bugs.iter().filter(|b| runs(b) > 0).count();
        let bug_runs: usize = bugs.iter().map(runs).sum();
        let all_runs: usize = bugs
            .iter()
            .map(|(app, _)| buggy.iter().filter(|t| t.app == *app).count())
            .sum();
        (
            format!("{any} of {}", bugs.len()),
            format!("{bug_runs} of {all_runs}"),
        )
    };
    let mut out = String::from("### All apps\n\n");
    out.push_str(&header("", columns));
    out.push_str(&row(
        "bugs caught at least once",
        columns.iter().map(|c| found(c).0),
    ));
    out.push_str(&row("bug-runs caught", columns.iter().map(|c| found(c).1)));
    let alarms = |c: &String| {
        let correct = of(&all, c, false);
        let n: usize = correct.iter().map(|t| t.broken.len()).sum();
        format!("{n} in {}", runs(correct.len()))
    };
    out.push_str(&row("false alarms (no bugs)", columns.iter().map(alarms)));
    let mine =
        |c: &String| -> Vec<&Trial> { all.iter().copied().filter(|t| column(t) == *c).collect() };
    out.push_str(&row(
        "actions/s (mean of runs)",
        columns.iter().map(|c| rate(&mine(c))),
    ));
    out.push_str(&row(
        "edges of the app's code reached (median)",
        columns.iter().map(|c| middle(&mine(c), |t| t.edges)),
    ));
    out.push_str(&row(
        "distinct states (median)",
        columns.iter().map(|c| middle(&mine(c), |t| t.states)),
    ));
    out.push_str(&row("crashes", columns.iter().map(|c| crashes(&mine(c)))));
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::Bug;
    use crate::efficacy::Plan;
    use windup_core::engine::audit::Strategy;

    fn app() -> App {
        let bug = |id: &str, invariant: &str| Bug {
            id: id.into(),
            invariant: invariant.into(),
            kind: "other".into(),
            reach: String::new(),
            moves: Vec::new(),
        };
        App {
            name: "quiz".into(),
            framework: "none".into(),
            spec: String::new(),
            bugs: vec![
                bug("enter-twice", "score-ok"),
                bug("back-forgets", "back-keeps"),
            ],
            dir: Default::default(),
        }
    }

    fn run(tool: Tool, seed: u64, bugs_on: bool, broken: &[(&str, u64)]) -> Trial {
        let plan = Plan {
            seed,
            time: Duration::from_secs(20),
            steps: None,
            strategy: Strategy::Novelty,
            stop_after: None,
            emit: false,
        };
        let mut trial = Trial::new(&app(), bugs_on, plan, tool);
        trial.broken = broken
            .iter()
            .map(|(id, s)| ((*id).to_owned(), Duration::from_secs(*s)))
            .collect::<BTreeMap<_, _>>();
        trial.actions = 100;
        trial.runtime = Duration::from_secs(20);
        if tool == Tool::Windup {
            trial.edges = 40 + seed as usize;
        }
        trial.states = 10 * seed as usize;
        trial
    }

    #[test]
    fn each_tool_has_its_column_of_bugs_caught_false_alarms_rates_and_crashes() {
        let mut crashed = run(Tool::Bombadil, 2, true, &[]);
        crashed.error = Some("it exited with exit status: 1: no browser".into());
        crashed.actions = 0;
        let trials = vec![
            run(Tool::Windup, 1, true, &[("score-ok", 4), ("back-keeps", 9)]),
            run(
                Tool::Bombadil,
                1,
                true,
                &[("back-keeps", 2), ("no-uncaught-exception", 3)],
            ),
            run(Tool::Windup, 2, true, &[("score-ok", 6)]),
            crashed,
            run(Tool::Windup, 1, false, &[]),
            run(Tool::Bombadil, 1, false, &[("score-ok", 5)]),
        ];
        let table = table(&[app()], &trials);
        let expected = "\
### All apps

|  | Windup (novelty) | Bombadil |
|---|---|---|
| bugs caught at least once | 2 of 2 | 1 of 2 |
| bug-runs caught | 3 of 4 | 1 of 4 |
| false alarms (no bugs) | 0 in 1 run | 1 in 1 run |
| actions/s (mean of runs) | 5.0 | 5.0 |
| edges of the app's code reached (median) | 41 | - |
| distinct states (median) | 10 | 10 |
| crashes | 0 of 3 | 1 of 3 |

### quiz (none)

| bug (its invariant) | Windup (novelty) | Bombadil |
|---|---|---|
| `enter-twice` (`score-ok`) | 2/2, first at 4.0 s | 0/2 |
| `back-forgets` (`back-keeps`) | 1/2, first at 9.0 s | 1/2, first at 2.0 s |
| also broken with the bugs on | - | `no-uncaught-exception` |
| false alarms (no bugs) | 0 in 1 run | 1 in 1 run: `score-ok` (seed 1) |
| actions/s | 5.0 | 5.0 |
| crashes | 0 of 3 | 1 of 3 |

- Bombadil crashed (seed 2, bugs on): it exited with exit status: 1: no browser
";
        assert_eq!(table, expected);
    }
}
