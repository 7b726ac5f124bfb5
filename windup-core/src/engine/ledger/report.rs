//! `cargo windup costs`: runs, cache outcomes, tokens and USD, grouped, priced when asked.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use time::Date;

use super::{CacheOutcome, PRICES_FILE, PriceTable, RunRecord};

/// The group label of runs that made no model call, in a report by model.
const NO_MODEL: &str = "(no model calls)";

/// How [`costs`] groups runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Scenario,
    /// By `provider/model`; a run that used several models counts in each of their rows.
    Model,
    /// By the UTC date a run started on.
    Day,
}

impl GroupBy {
    fn heading(self) -> &'static str {
        match self {
            GroupBy::Scenario => "scenario",
            GroupBy::Model => "model",
            GroupBy::Day => "day",
        }
    }
}

impl FromStr for GroupBy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "scenario" => Ok(GroupBy::Scenario),
            "model" => Ok(GroupBy::Model),
            "day" => Ok(GroupBy::Day),
            other => Err(format!(
                "cannot group costs by `{other}`: use scenario, model or day"
            )),
        }
    }
}

/// One group of a [`CostReport`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostRow {
    pub group: String,
    pub runs: usize,
    pub hits: usize,
    pub misses: usize,
    pub replans: usize,
    pub llm_calls: usize,
    /// Calls with no known price: counted here, not in `usd`.
    pub unpriced_calls: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The priced calls' cost.
    pub usd: f64,
}

impl CostRow {
    fn count_run(&mut self, cache: CacheOutcome) {
        self.runs += 1;
        match cache {
            CacheOutcome::Hit => self.hits += 1,
            CacheOutcome::Miss => self.misses += 1,
            CacheOutcome::Replanned => self.replans += 1,
        }
    }
}

/// What the ledger's runs cost, grouped, with a total; `Display` prints it as a table.
#[derive(Debug, Clone, PartialEq)]
pub struct CostReport {
    pub by: GroupBy,
    pub since: Option<Date>,
    /// Sorted by group (so by date for [`GroupBy::Day`]).
    pub rows: Vec<CostRow>,
    /// The whole ledger in one row (group `total`). Not the sum of `rows`: by model, a run that
    /// used two models is in two rows but counts once here.
    pub total: CostRow,
    /// `provider/model` of every unpriced call, sorted.
    pub unpriced_models: Vec<String>,
    /// Records whose `started_at` is not a time: neither dated nor priced, left out.
    pub undated_runs: usize,
}

/// The cost of `records` started on or after `since` (UTC dates), grouped `by`, each call
/// priced by `prices` on its run's date.
pub fn costs(
    records: &[RunRecord],
    prices: &PriceTable,
    since: Option<Date>,
    by: GroupBy,
) -> CostReport {
    let mut groups: BTreeMap<String, CostRow> = BTreeMap::new();
    let mut total = CostRow {
        group: "total".to_owned(),
        ..CostRow::default()
    };
    let mut unpriced_models = BTreeSet::new();
    let mut undated_runs = 0;
    for record in records {
        let Some(day) = record.started_on() else {
            undated_runs += 1;
            continue;
        };
        if since.is_some_and(|since| day < since) {
            continue;
        }
        let is_run = record.kind == super::RecordKind::Run;
        if is_run {
            total.count_run(record.cache);
        }
        // The run's own group; by model, each call's model is its group instead.
        let run_group = match by {
            GroupBy::Scenario => Some(record.scenario_id.clone()),
            GroupBy::Day => Some(day.to_string()),
            GroupBy::Model => None,
        };
        let run_groups: BTreeSet<String> = match &run_group {
            Some(group) => BTreeSet::from([group.clone()]),
            None if record.llm_calls.is_empty() => BTreeSet::from([NO_MODEL.to_owned()]),
            None => record.llm_calls.iter().map(model_label).collect(),
        };
        for group in run_groups.iter().filter(|_| is_run) {
            row(&mut groups, group).count_run(record.cache);
        }
        for call in &record.llm_calls {
            let group = run_group.clone().unwrap_or_else(|| model_label(call));
            let cost = prices.cost(call, day);
            for target in [row(&mut groups, &group), &mut total] {
                target.llm_calls += 1;
                target.input_tokens += call.input_tokens;
                target.output_tokens += call.output_tokens;
                match cost {
                    Some(usd) => target.usd += usd,
                    None => target.unpriced_calls += 1,
                }
            }
            if cost.is_none() {
                unpriced_models.insert(model_label(call));
            }
        }
    }
    CostReport {
        by,
        since,
        rows: groups.into_values().collect(),
        total,
        unpriced_models: unpriced_models.into_iter().collect(),
        undated_runs,
    }
}

fn row<'a>(groups: &'a mut BTreeMap<String, CostRow>, group: &str) -> &'a mut CostRow {
    groups.entry(group.to_owned()).or_insert_with(|| CostRow {
        group: group.to_owned(),
        ..CostRow::default()
    })
}

fn model_label(call: &super::LlmCall) -> String {
    format!("{}/{}", call.provider, call.model)
}

impl fmt::Display for CostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let since = self
            .since
            .map(|date| format!(" since {date}"))
            .unwrap_or_default();
        if self.total.runs == 0 {
            writeln!(f, "No runs recorded{since}.")?;
            return self.write_notes(f);
        }
        writeln!(
            f,
            "Costs by {}{since}, each model call priced on its run's date (USD):",
            self.by.heading()
        )?;
        let header = [
            self.by.heading().to_uppercase(),
            "RUNS".into(),
            "HITS".into(),
            "MISSES".into(),
            "REPLANS".into(),
            "MODEL CALLS".into(),
            "UNPRICED".into(),
            "INPUT TOKENS".into(),
            "OUTPUT TOKENS".into(),
            "USD".into(),
        ];
        let mut lines = vec![header];
        lines.extend(self.rows.iter().map(cells));
        lines.push(cells(&self.total));
        let mut widths = [0usize; 10];
        for line in &lines {
            for (width, cell) in widths.iter_mut().zip(line) {
                *width = (*width).max(cell.chars().count());
            }
        }
        for (index, line) in lines.iter().enumerate() {
            if index == lines.len() - 1 {
                let rule: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
                writeln!(f, "{}", "-".repeat(rule))?;
            }
            let mut text = String::new();
            for (column, (cell, width)) in line.iter().zip(widths).enumerate() {
                if column == 0 {
                    text.push_str(&format!("{cell:<width$}"));
                } else {
                    text.push_str(&format!("  {cell:>width$}"));
                }
            }
            writeln!(f, "{}", text.trim_end())?;
        }
        self.write_notes(f)
    }
}

impl CostReport {
    fn write_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.total.unpriced_calls > 0 {
            let calls = plural(self.total.unpriced_calls, "model call", "model calls");
            let their = if self.unpriced_models.len() == 1 {
                "its"
            } else {
                "their"
            };
            writeln!(
                f,
                "Not in USD (marked + or ?): {calls} with no known price ({}); add {their} price \
                 to {PRICES_FILE}.",
                self.unpriced_models.join(", ")
            )?;
        }
        if self.undated_runs > 0 {
            let runs = plural(self.undated_runs, "run", "runs");
            writeln!(f, "Left out: {runs} with no valid start time.")?;
        }
        Ok(())
    }
}

fn cells(row: &CostRow) -> [String; 10] {
    [
        row.group.clone(),
        row.runs.to_string(),
        row.hits.to_string(),
        row.misses.to_string(),
        row.replans.to_string(),
        row.llm_calls.to_string(),
        row.unpriced_calls.to_string(),
        thousands(row.input_tokens),
        thousands(row.output_tokens),
        usd_cell(row),
    ]
}

/// The USD of a row, marked `+` (at least) when some calls are unpriced, `?` when all are.
fn usd_cell(row: &CostRow) -> String {
    if row.unpriced_calls == 0 {
        format!("{} ", usd(row.usd))
    } else if row.unpriced_calls == row.llm_calls {
        "? ".to_owned()
    } else {
        format!("{}+", usd(row.usd))
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Four decimals; a cost too small for them still never reads as zero.
fn usd(value: f64) -> String {
    if value > 0.0 && value < 0.00005 {
        "<0.0001".to_owned()
    } else {
        format!("{value:.4}")
    }
}
