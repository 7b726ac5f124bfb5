//! `cargo windup new "instruction"`: a scenario written for review from a person's words,
//! anchored in the site map and the project's accounts. With a model, one call drafts it with
//! explicit steps where the map knows the elements; with none, or when the model gives nothing
//! usable, a scaffold around the page that matches best. Credentials typed into the
//! instruction never reach the scenario, a prompt or the output: each value goes to
//! `.env.local`, its variable's name to `windup.toml`'s `[accounts]`, and the scenario says
//! `account.KEY`. The file is never written over another; it is planned on its first run like
//! any scenario.

mod credentials;
mod draft;
mod project;

use std::path::PathBuf;

use crate::config::Settings;
use crate::engine::ask::{Ask, Question};
use crate::engine::ledger::{LlmCall, PriceTable, RecordKind};
use crate::engine::planner::llm::RunSpend;
use crate::engine::planner::prompt::Redactor;
use crate::engine::sitemap::MapFile;
use crate::llm::{Message, Prompt, Role};
use crate::model::secret::SecretValue;
use crate::model::sitemap::SiteMap;

pub use credentials::{Taken, take};

/// What to write.
#[derive(Debug, Clone, Default)]
pub struct NewScenario {
    /// The person's words, credentials and all.
    pub instruction: String,
    /// The file's name under `scenarios/` without `.yaml`; else from the task.
    pub name: Option<String>,
    /// Draft a scaffold even when a model is configured.
    pub no_model: bool,
}

/// Who drafted the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftedBy {
    Model,
    Scaffold,
}

/// What `author` wrote.
#[derive(Debug)]
pub struct Authored {
    pub path: PathBuf,
    pub by: DraftedBy,
    pub account: Option<String>,
    /// Variables added to `.env.local`, by name.
    pub stored: Vec<String>,
    /// Whether `windup.toml` gained the account's keys.
    pub mapped: bool,
    /// Whether `.gitignore` gained `.env.local`.
    pub ignored: bool,
    /// Why a model was asked and its draft not used, in words.
    pub notes: Vec<String>,
    pub calls: Vec<(LlmCall, Option<f64>)>,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthorError {
    #[error("the instruction is empty: say what the scenario should do")]
    Empty,
    #[error(
        "{} exists and is never written over: choose another name with --name",
        path.display()
    )]
    Exists { path: PathBuf },
    #[error(
        "{} holds {variable} with another value: change it there, or leave the value out of \
         the instruction",
        path.display()
    )]
    Conflict { path: PathBuf, variable: String },
    #[error("{}: {detail}", path.display())]
    Io { path: PathBuf, detail: String },
    #[error(transparent)]
    Map(#[from] crate::engine::sitemap::MapFileError),
}

/// Drafts the scenario and writes it with its credentials moved out.
pub async fn author(settings: &Settings, request: &NewScenario) -> Result<Authored, AuthorError> {
    let taken = take(&request.instruction);
    if taken.task.trim().is_empty() {
        return Err(AuthorError::Empty);
    }
    let account = account_of(settings, &taken);
    let variables: Vec<(String, String, SecretValue)> = taken
        .values
        .iter()
        .filter_map(|(key, value)| {
            let account = account.as_deref()?;
            Some((
                key.clone(),
                project::variable(settings, account, key),
                value.clone(),
            ))
        })
        .collect();
    conflicts(settings, &variables)?;
    let map = MapFile::of(&settings.root).read()?;
    let mut keys: Vec<String> = account
        .as_ref()
        .and_then(|a| settings.accounts.get(a))
        .map(|k| k.keys().cloned().collect())
        .unwrap_or_default();
    keys.extend(variables.iter().map(|(key, ..)| key.clone()));
    keys.sort();
    keys.dedup();
    let mut secrets = crate::engine::secret::all(settings);
    secrets.extend(
        variables
            .iter()
            .map(|(key, _, value)| (format!("account.{key}"), value.clone())),
    );
    let redactor = Redactor::new(secrets);
    let drafting = Drafting {
        settings,
        task: &taken.task,
        account: account.as_deref(),
        keys: &keys,
        map: &map,
        redactor: &redactor,
    };
    let drafted = drafting.draft(request.no_model).await;
    let name = request.name.clone().unwrap_or_else(|| drafted.name.clone());
    let path = project::write_scenario(&settings.scenarios_dir, &name, &drafted.yaml)?;
    let values: Vec<(String, SecretValue)> = variables
        .iter()
        .map(|(_, variable, value)| (variable.clone(), value.clone()))
        .collect();
    let stored = project::store_values(&settings.root, &values)?;
    let mapped = match &account {
        Some(account) if !variables.is_empty() => {
            let pairs: Vec<(String, String)> = variables
                .iter()
                .map(|(key, variable, _)| (key.clone(), variable.clone()))
                .collect();
            project::map_account(&settings.root, account, &pairs)?
        }
        _ => false,
    };
    let ignored = !variables.is_empty() && project::ignore_env_file(&settings.root)?;
    Ok(Authored {
        path,
        by: drafted.by,
        account,
        stored,
        mapped,
        ignored,
        notes: drafted.notes,
        calls: drafted.calls,
    })
}

/// The account the scenario uses: the one the instruction names (`as the demo user`), when
/// the project has it or a credential was typed for it; else, for a typed credential, the
/// project's only account, else `default`. An instruction that names none and types none uses
/// none.
fn account_of(settings: &Settings, taken: &Taken) -> Option<String> {
    let typed = !taken.values.is_empty();
    let named = taken
        .account
        .clone()
        .filter(|name| settings.accounts.contains_key(name) || typed);
    let only = (settings.accounts.len() == 1)
        .then(|| settings.accounts.keys().next().cloned())
        .flatten();
    named.or_else(|| typed.then(|| only.unwrap_or_else(|| "default".to_owned())))
}

/// Refuses, before any work, a value `.env.local` already holds differently.
fn conflicts(
    settings: &Settings,
    variables: &[(String, String, SecretValue)],
) -> Result<(), AuthorError> {
    for (_, variable, value) in variables {
        if let Some(held) = settings.env_file.in_file(variable)
            && held != value.expose()
        {
            return Err(AuthorError::Conflict {
                path: settings.root.join(crate::config::ENV_FILE),
                variable: variable.clone(),
            });
        }
    }
    Ok(())
}

/// What a draft needs.
struct Drafting<'a> {
    settings: &'a Settings,
    task: &'a str,
    account: Option<&'a str>,
    /// The account's keys, names only.
    keys: &'a [String],
    map: &'a SiteMap,
    redactor: &'a Redactor,
}

/// A draft, before it is written.
struct Drafted {
    name: String,
    yaml: String,
    by: DraftedBy,
    notes: Vec<String>,
    calls: Vec<(LlmCall, Option<f64>)>,
}

impl Drafting<'_> {
    async fn draft(&self, no_model: bool) -> Drafted {
        let mut notes = Vec::new();
        let mut calls = Vec::new();
        if let Some(llm) = self.settings.llm.as_ref().filter(|_| !no_model) {
            match self.with_model(llm, &mut calls).await {
                Ok((name, yaml)) => {
                    return Drafted {
                        name,
                        yaml,
                        by: DraftedBy::Model,
                        notes,
                        calls,
                    };
                }
                Err(problem) => notes.push(problem),
            }
        }
        Drafted {
            name: draft::name_of(self.task),
            yaml: draft::scaffold(self.task, self.account, self.map),
            by: DraftedBy::Scaffold,
            notes,
            calls,
        }
    }

    /// One call, and as many more as `semantic_retries` allows for answers that do not load,
    /// each told what was wrong; the name and the file's text.
    async fn with_model(
        &self,
        llm: &crate::config::LlmSettings,
        calls: &mut Vec<(LlmCall, Option<f64>)>,
    ) -> Result<(String, String), String> {
        let client = crate::llm::client(llm).map_err(|e| e.to_string())?;
        let prices = PriceTable::for_project(&self.settings.root).map_err(|e| e.to_string())?;
        let spend = RunSpend::default();
        let ask = Ask {
            client: client.as_ref(),
            prices: &prices,
            limits: &llm.limits,
            root: &self.settings.root,
            spend: &spend,
            kind: RecordKind::New,
        };
        let account = self.account.map(|a| (a, self.keys));
        let mut prompt: Prompt = draft::prompt(self.task, account, self.map, self.redactor);
        let schema = draft::answer_schema();
        let mut problem = String::new();
        for _ in 0..=llm.limits.semantic_retries {
            let asked = ask
                .json(&Question {
                    purpose: "new",
                    subject: "(new scenario)",
                    prompt: &prompt,
                    schema_name: "windup_scenario",
                    schema: &schema,
                    max_output_tokens: llm.limits.max_output_tokens,
                })
                .await;
            calls.extend(asked.calls);
            let value = asked.answer?;
            let text = value.to_string();
            let problems = match serde_json::from_value::<draft::Answer>(value) {
                Ok(answer) => {
                    let yaml = self.file_of(&answer);
                    let problems = draft::check(
                        &yaml,
                        &answer,
                        self.keys,
                        &self.settings.root,
                        self.redactor,
                    );
                    if problems.is_empty() {
                        return Ok((draft::name_of(&answer.name), yaml));
                    }
                    problems
                }
                Err(err) => vec![format!("the answer does not fit the schema: {err}")],
            };
            problem = problems.join("; ");
            prompt
                .messages
                .push(Message::text(Role::Assistant, self.redactor.redact(&text)));
            prompt.messages.push(Message::text(
                Role::User,
                format!("That scenario cannot be used: {problem}. Answer again, corrected."),
            ));
        }
        Err(format!("the model's scenario could not be used: {problem}"))
    }

    /// The file for a model's answer.
    fn file_of(&self, answer: &draft::Answer) -> String {
        let uses_account = answer.steps.iter().any(|s| s.contains("account."));
        let text = draft::ScenarioText {
            task: answer.task.trim().to_owned(),
            start_url: answer.start_url.trim().to_owned(),
            account: self.account.filter(|_| uses_account).map(str::to_owned),
            hints: Vec::new(),
            steps: answer.steps.iter().map(|s| s.trim().to_owned()).collect(),
            expect: answer.expect.iter().map(|s| s.trim().to_owned()).collect(),
        };
        let header = "# Drafted by `cargo windup new` with a model, from the site map: review it, \
                      then run it.\n";
        text.yaml(header, "")
    }
}
