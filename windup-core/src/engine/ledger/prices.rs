//! Dated per-model prices, in USD per million tokens.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;
use time::macros::{date, format_description};
use time::{Date, Month};
use toml::Spanned;

use super::{LedgerError, LlmCall};

/// The project's price list, next to `windup.toml`.
pub const PRICES_FILE: &str = "windup-prices.toml";

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

impl Price {
    /// The USD cost of a call with these token counts.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input + output_tokens as f64 * self.output) / 1_000_000.0
    }
}

/// The price of one model from a date on, until a later entry of the same model.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceEntry {
    pub provider: String,
    pub model: String,
    pub effective_from: Date,
    pub price: Price,
}

/// Prices by provider, model and date.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PriceTable {
    /// Sorted by provider, model, date; provider lowercase.
    entries: Vec<PriceEntry>,
}

impl PriceTable {
    /// A table of `entries`; an entry must have a provider and a model, finite non-negative
    /// prices, and no other entry of the same model on the same date.
    pub(super) fn new(entries: Vec<PriceEntry>) -> Result<Self, String> {
        let mut seen = BTreeSet::new();
        let mut table = PriceTable::default();
        for mut entry in entries {
            check_entry(&entry, &mut seen)?;
            entry.provider = entry.provider.to_ascii_lowercase();
            table.entries.push(entry);
        }
        table.sort();
        Ok(table)
    }

    /// A few current models of OpenAI, Gemini and Anthropic, at their standard (non-batch,
    /// uncached) rates.
    ///
    /// Assumed current on 2025-11-01 (the providers' published rates as known then; the same
    /// rates still appeared in third-party summaries of March 2026). They MUST be checked
    /// against openai.com/api/pricing, ai.google.dev/gemini-api/docs/pricing and
    /// docs.anthropic.com/en/docs/about-claude/pricing; correct or extend them in
    /// `windup-prices.toml`. Each entry runs from the model's release at that price.
    pub fn builtin() -> Self {
        let entry = |provider: &str, model: &str, effective_from, input, output| PriceEntry {
            provider: provider.to_owned(),
            model: model.to_owned(),
            effective_from,
            price: Price { input, output },
        };
        let entries = vec![
            entry("openai", "gpt-4o-mini", date!(2024 - 07 - 18), 0.15, 0.60),
            entry("openai", "gpt-4.1", date!(2025 - 04 - 14), 2.00, 8.00),
            entry("openai", "gpt-4.1-mini", date!(2025 - 04 - 14), 0.40, 1.60),
            entry("openai", "gpt-5", date!(2025 - 08 - 07), 1.25, 10.00),
            entry("openai", "gpt-5-mini", date!(2025 - 08 - 07), 0.25, 2.00),
            // Gemini 2.5 Pro costs more for prompts over 200k tokens; planner prompts stay far below.
            entry(
                "gemini",
                "gemini-2.5-pro",
                date!(2025 - 06 - 17),
                1.25,
                10.00,
            ),
            entry(
                "gemini",
                "gemini-2.5-flash",
                date!(2025 - 06 - 17),
                0.30,
                2.50,
            ),
            entry(
                "gemini",
                "gemini-2.5-flash-lite",
                date!(2025 - 07 - 22),
                0.10,
                0.40,
            ),
            entry(
                "anthropic",
                "claude-opus-4-1",
                date!(2025 - 08 - 05),
                15.00,
                75.00,
            ),
            entry(
                "anthropic",
                "claude-sonnet-4-5",
                date!(2025 - 09 - 29),
                3.00,
                15.00,
            ),
            entry(
                "anthropic",
                "claude-haiku-4-5",
                date!(2025 - 10 - 15),
                1.00,
                5.00,
            ),
        ];
        PriceTable::new(entries).unwrap_or_default()
    }

    /// The `[[prices]]` entries of a TOML document (see the module docs).
    pub fn from_toml_str(text: &str) -> Result<Self, LedgerError> {
        parse(text, "the price table")
    }

    /// The built-in prices, corrected by `root/windup-prices.toml` when there is one.
    pub fn for_project(root: &Path) -> Result<Self, LedgerError> {
        let path = root.join(PRICES_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(
                PriceTable::builtin().with_overrides(parse(&text, &path.display().to_string())?)
            ),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(PriceTable::builtin()),
            Err(source) => Err(LedgerError::PricesIo { path, source }),
        }
    }

    /// This table, where every model `overrides` lists takes only the prices listed there.
    pub fn with_overrides(mut self, overrides: PriceTable) -> Self {
        let listed: BTreeSet<(String, String)> = overrides.entries.iter().map(model_key).collect();
        self.entries.retain(|e| !listed.contains(&model_key(e)));
        self.entries.extend(overrides.entries);
        self.sort();
        self
    }

    pub fn entries(&self) -> &[PriceEntry] {
        &self.entries
    }

    /// The price of `provider`'s `model` in effect `on` a date; a dated snapshot name falls
    /// back to its model's price.
    pub fn price_for(&self, provider: &str, model: &str, on: Date) -> Option<Price> {
        self.exact_price(provider, model, on).or_else(|| {
            let base = undated(model)?;
            self.exact_price(provider, base, on)
        })
    }

    /// The USD cost of `call` at the prices in effect `on` a date; `None` when unpriced.
    pub fn cost(&self, call: &LlmCall, on: Date) -> Option<f64> {
        self.price_for(&call.provider, &call.model, on)
            .map(|price| price.cost(call.input_tokens, call.output_tokens))
    }

    fn exact_price(&self, provider: &str, model: &str, on: Date) -> Option<Price> {
        self.entries
            .iter()
            .filter(|e| {
                e.provider.eq_ignore_ascii_case(provider)
                    && e.model.eq_ignore_ascii_case(model)
                    && e.effective_from <= on
            })
            .max_by_key(|e| e.effective_from)
            .map(|e| e.price)
    }

    fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            (&a.provider, &a.model, a.effective_from).cmp(&(
                &b.provider,
                &b.model,
                b.effective_from,
            ))
        });
    }
}

fn model_key(entry: &PriceEntry) -> (String, String) {
    (
        entry.provider.to_ascii_lowercase(),
        entry.model.to_ascii_lowercase(),
    )
}

/// Checks one entry; `seen` holds the provider, model and date of the entries before it.
fn check_entry(
    entry: &PriceEntry,
    seen: &mut BTreeSet<(String, String, Date)>,
) -> Result<(), String> {
    if entry.provider.trim().is_empty() || entry.model.trim().is_empty() {
        return Err("provider and model must not be empty".to_owned());
    }
    for (name, value) in [("input", entry.price.input), ("output", entry.price.output)] {
        if !value.is_finite() || value < 0.0 {
            return Err(format!(
                "{}/{}: `{name}` must be a price of zero or more, not {value}",
                entry.provider, entry.model
            ));
        }
    }
    let (provider, model) = model_key(entry);
    if !seen.insert((provider, model, entry.effective_from)) {
        return Err(format!(
            "{}/{} has two prices from {}",
            entry.provider, entry.model, entry.effective_from
        ));
    }
    Ok(())
}

/// `model` without a trailing snapshot date (`-20250929` or `-2024-07-18`).
fn undated(model: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (base, suffix) = model.rsplit_once('-')?;
    if suffix.len() == 8 && digits(suffix) {
        return Some(base);
    }
    // `-YYYY-MM-DD`: the last three dash-separated parts are 4, 2 and 2 digits.
    let mut parts = model.rsplitn(4, '-');
    let (day, month, year, base) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let dated = year.len() == 4 && month.len() == 2 && day.len() == 2;
    (dated && digits(year) && digits(month) && digits(day)).then_some(base)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrices {
    #[serde(default)]
    prices: Vec<Spanned<RawEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    provider: String,
    model: String,
    effective_from: toml::Value,
    input: f64,
    output: f64,
}

fn parse(text: &str, origin: &str) -> Result<PriceTable, LedgerError> {
    let error = |offset: usize, message: String| LedgerError::Prices {
        origin: origin.to_owned(),
        line: line_of(text, offset),
        message,
    };
    let raw: RawPrices = toml::from_str(text).map_err(|err| {
        let offset = err.span().map_or(0, |span| span.start);
        error(offset, err.message().trim().to_owned())
    })?;
    let mut entries = Vec::with_capacity(raw.prices.len());
    let mut seen = BTreeSet::new();
    for spanned in raw.prices {
        let start = spanned.span().start;
        let raw = spanned.into_inner();
        let effective_from = entry_date(&raw.effective_from).ok_or_else(|| {
            error(
                start,
                format!(
                    "{}/{}: `effective_from` must be a date such as 2025-08-07",
                    raw.provider, raw.model
                ),
            )
        })?;
        let entry = PriceEntry {
            provider: raw.provider,
            model: raw.model,
            effective_from,
            price: Price {
                input: raw.input,
                output: raw.output,
            },
        };
        check_entry(&entry, &mut seen).map_err(|message| error(start, message))?;
        entries.push(entry);
    }
    PriceTable::new(entries).map_err(|message| error(0, message))
}

/// A TOML local date, or a `YYYY-MM-DD` string.
fn entry_date(value: &toml::Value) -> Option<Date> {
    match value {
        toml::Value::Datetime(datetime) if datetime.time.is_none() && datetime.offset.is_none() => {
            let date = datetime.date?;
            let month = Month::try_from(date.month).ok()?;
            Date::from_calendar_date(i32::from(date.year), month, date.day).ok()
        }
        toml::Value::String(text) => {
            Date::parse(text.trim(), format_description!("[year]-[month]-[day]")).ok()
        }
        _ => None,
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
