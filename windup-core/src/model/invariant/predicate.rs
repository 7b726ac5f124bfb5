//! Predicates: CEL expressions (github.com/google/cel-spec) over values extracted from the live
//! page. CEL is small, total and side-effect free: no loops but bounded macros (`all`, `exists`,
//! `map`, `filter`), no I/O, no way to define a function — so a predicate, like a plan, is data.
//!
//! The page is read through functions that each take one CSS selector literal, so every value a
//! predicate needs is known before it runs and is extracted in one script:
//! `text`, `texts`, `count`, `visible`, `number`, `numbers`, `money`, `moneys`, `input`,
//! `inputs`, `focused`; the state before the action through `before.` (`before.count(".row")`).

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use cel::{Context, Env, ExecutionError, FunctionContext, IdedExpr, Program, Value};

use super::Reading;
use super::amount::{Number, parse_money, parse_number};
use super::nesting::{self, MAX_NESTING};
use super::observation::{ActionFacts, Field, Observation, Probe};

/// A page-reading function of the predicate language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Extract {
    Text,
    Texts,
    Count,
    Visible,
    Number,
    Numbers,
    Money,
    Moneys,
    Value,
    Values,
    Focused,
}

impl Extract {
    pub const ALL: [Extract; 11] = [
        Extract::Text,
        Extract::Texts,
        Extract::Count,
        Extract::Visible,
        Extract::Number,
        Extract::Numbers,
        Extract::Money,
        Extract::Moneys,
        Extract::Value,
        Extract::Values,
        Extract::Focused,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Extract::Text => "text",
            Extract::Texts => "texts",
            Extract::Count => "count",
            Extract::Visible => "visible",
            Extract::Number => "number",
            Extract::Numbers => "numbers",
            Extract::Money => "money",
            Extract::Moneys => "moneys",
            Extract::Value => "input",
            Extract::Values => "inputs",
            Extract::Focused => "focused",
        }
    }

    fn named(name: &str) -> Option<Extract> {
        Extract::ALL.into_iter().find(|e| e.name() == name)
    }

    fn field(self) -> Field {
        match self {
            Extract::Value | Extract::Values => Field::Value,
            Extract::Focused => Field::Focus,
            _ => Field::Text,
        }
    }
}

/// The variables every predicate may read.
pub const VARIABLES: [&str; 13] = [
    "url",
    "path",
    "hash",
    "title",
    "status",
    "errors",
    "console_errors",
    "dialogs",
    "failed_requests",
    "markers",
    "broken_texts",
    "negative_amounts",
    "action",
];

/// What `before.` may name besides the page-reading functions.
const BEFORE_FIELDS: [&str; 6] = ["url", "path", "hash", "title", "status", "negative_amounts"];

/// CEL's own functions a predicate may call (operators and macros aside).
const STANDARD_FUNCTIONS: [&str; 15] = [
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "type",
    "dyn",
    "has",
    "max",
    "min",
];

/// A predicate that does not parse, or names what cannot be read from a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PredicateError {
    /// 1-based column in the predicate's text; 0 when unknown.
    pub column: usize,
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

/// A parsed predicate: its text, its program, and what it reads from the page.
#[derive(Clone)]
pub struct Predicate {
    source: String,
    program: Arc<Program>,
    probes: BTreeSet<(Extract, String)>,
    /// The page variables it reads (`markers`), and those it reads through `before.`.
    variables: BTreeSet<String>,
    before_fields: BTreeSet<String>,
    before: bool,
    action: bool,
}

impl std::fmt::Debug for Predicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Predicate").field(&self.source).finish()
    }
}

impl PartialEq for Predicate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for Predicate {}

/// What a check of a predicate says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    /// It is false; `seen` is every value it read, as `money(".total") = 4500`.
    Violated {
        seen: Vec<String>,
    },
    /// It says nothing here: an element it reads one of is missing, a number does not parse,
    /// or it compares with a before that does not exist.
    NotApplicable {
        why: String,
    },
    /// It cannot be evaluated at all (a type error): the invariant is wrong, not the page.
    Broken {
        error: String,
    },
}

/// The marker of an extraction that has nothing to read, turned into [`Verdict::NotApplicable`].
const NOT_APPLICABLE: &str = "not applicable: ";

fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| Arc::new(Env::stdlib())))
}

/// The stack of the thread a predicate is parsed on: CEL's parser takes about 170 KiB a level
/// of brackets in an unoptimized build, so [`MAX_NESTING`] levels need about 4 MiB, more than a
/// tokio worker's 2 MiB; this leaves four times that.
pub(crate) const PARSER_STACK: usize = 16 << 20;

const HINT: &str = "write a CEL expression, such as `count(\".row\") == number(\".count\")`";

impl Predicate {
    /// Parses `source` and checks that it reads only what a page can give. Its nesting is
    /// measured first, without recursion, and refused past [`MAX_NESTING`]; the parse runs on
    /// a thread of its own whose stack takes that depth whatever thread calls.
    pub fn parse(source: &str) -> Result<Predicate, PredicateError> {
        if let Err(too_deep) = nesting::check(source, MAX_NESTING) {
            return Err(PredicateError {
                column: too_deep.column,
                message: format!(
                    "the predicate nests more than {MAX_NESTING} deep (brackets, calls and \
                     operators one inside another), the most Windup takes"
                ),
                hint: "split it into several invariants, each a simpler rule".to_owned(),
            });
        }
        std::thread::scope(|scope| {
            let parser = std::thread::Builder::new()
                .name("windup-predicate".to_owned())
                .stack_size(PARSER_STACK)
                .spawn_scoped(scope, || Predicate::parse_here(source))
                .map_err(|e| PredicateError {
                    column: 0,
                    message: format!("cannot start the predicate parser: {e}"),
                    hint: "the machine is out of threads or memory; try again".to_owned(),
                })?;
            parser.join().unwrap_or_else(|_| {
                Err(PredicateError {
                    column: 0,
                    message: "the predicate parser failed on this text".to_owned(),
                    hint: HINT.to_owned(),
                })
            })
        })
    }

    /// Parses `source` on this thread (its nesting already measured).
    fn parse_here(source: &str) -> Result<Predicate, PredicateError> {
        let program = env().compile(source).map_err(|errors| {
            let text = errors.to_string();
            PredicateError {
                column: parse_column(&text),
                message: format!("the predicate does not parse: {}", first_line(&text)),
                hint: HINT.to_owned(),
            }
        })?;
        let mut walk = Walk {
            source: source.to_owned(),
            ..Walk::default()
        };
        walk.expr(program.expression(), &program)?;
        Ok(Predicate {
            source: source.to_owned(),
            program: Arc::new(program),
            probes: walk.probes,
            variables: walk.variables,
            before_fields: walk.before_fields,
            before: walk.before,
            action: walk.action,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Its syntax tree, for a translation into another language.
    pub(crate) fn expression(&self) -> &IdedExpr {
        self.program.expression()
    }

    /// Whether it compares with the state before an action, or reads the action.
    pub fn is_transition(&self) -> bool {
        self.before || self.action
    }

    /// Whether it reads the state before the action.
    pub fn reads_before(&self) -> bool {
        self.before
    }

    /// What the page must be asked for to check it.
    pub fn probes(&self) -> BTreeSet<Probe> {
        self.probes
            .iter()
            .map(|(extract, selector)| Probe {
                selector: selector.clone(),
                field: extract.field(),
            })
            .collect()
    }

    /// Checks it against `now`, with `before` and the action for a transition.
    pub fn check(
        &self,
        now: &Observation,
        before: Option<&Observation>,
        action: Option<&ActionFacts>,
    ) -> Verdict {
        if self.before && before.is_none() {
            return Verdict::NotApplicable {
                why: "it compares with a state before an action, and there is none".to_owned(),
            };
        }
        let now = Arc::new(now.clone());
        let before = before.map(|b| Arc::new(b.clone()));
        let mut context = Context::with_env(env());
        bind(&mut context, &now, before.as_ref(), action);
        match self.program.execute(&context) {
            Ok(Value::Bool(true)) => Verdict::Holds,
            Ok(Value::Bool(false)) => Verdict::Violated {
                seen: self.seen(&now, before.as_deref()),
            },
            Ok(other) => Verdict::Broken {
                error: format!("it gave {}, not true or false", show(&other)),
            },
            Err(error) => {
                let text = error.to_string();
                match text.find(NOT_APPLICABLE) {
                    Some(at) => Verdict::NotApplicable {
                        why: text[at + NOT_APPLICABLE.len()..].to_owned(),
                    },
                    None => Verdict::Broken { error: text },
                }
            }
        }
    }

    /// Every value the predicate read, in words.
    fn seen(&self, now: &Observation, before: Option<&Observation>) -> Vec<String> {
        let mut seen = Vec::new();
        for (extract, selector) in &self.probes {
            let call = format!("{}({selector:?})", extract.name());
            seen.push(format!("{call} = {}", describe(*extract, selector, now)));
            if let Some(before) = before.filter(|_| self.before) {
                seen.push(format!(
                    "before.{call} = {}",
                    describe(*extract, selector, before)
                ));
            }
        }
        let values = page_values(now);
        for (name, value) in values.iter().filter(|(n, _)| self.variables.contains(*n)) {
            seen.push(format!("{name} = {}", show(value)));
        }
        if let Some(before) = before {
            let values = page_values(before);
            for (name, value) in values
                .iter()
                .filter(|(n, _)| self.before_fields.contains(*n))
            {
                seen.push(format!("before.{name} = {}", show(value)));
            }
        }
        seen
    }
}

impl serde::Serialize for Predicate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.source)
    }
}

impl<'de> serde::Deserialize<'de> for Predicate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let source = String::deserialize(d)?;
        Predicate::parse(&source).map_err(serde::de::Error::custom)
    }
}

fn parse_column(text: &str) -> usize {
    // `ERROR: <input>:1:4: Syntax error: …`
    text.split(':')
        .nth(3)
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0)
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or(text);
    line.split_once("Syntax error: ")
        .map_or(line, |(_, message)| message)
}

/// The walk over a program's tree that finds its probes and refuses what a page cannot give.
#[derive(Default)]
struct Walk {
    source: String,
    probes: BTreeSet<(Extract, String)>,
    variables: BTreeSet<String>,
    before_fields: BTreeSet<String>,
    bound: Vec<String>,
    before: bool,
    action: bool,
}

impl Walk {
    fn expr(&mut self, node: &IdedExpr, program: &Program) -> Result<(), PredicateError> {
        let column = || {
            program
                .source_info()
                .offset_for(node.id)
                .map_or(0, |(start, _)| char_column(&self.source, start as usize))
        };
        match &node.expr {
            Expr::Call(call) => {
                if let Some(extract) = Extract::named(&call.func_name) {
                    return self.extraction(extract, call, column());
                }
                if !is_known_function(&call.func_name) {
                    return Err(unknown_function(&call.func_name, column()));
                }
                if let Some(target) = &call.target {
                    self.expr(target, program)?;
                }
                for arg in &call.args {
                    self.expr(arg, program)?;
                }
                Ok(())
            }
            Expr::Comprehension(comprehension) => {
                self.expr(&comprehension.iter_range, program)?;
                self.bound.push(comprehension.iter_var.clone());
                self.bound.extend(comprehension.iter_var2.clone());
                self.bound.push(comprehension.accu_var.clone());
                for part in [
                    &comprehension.accu_init,
                    &comprehension.loop_cond,
                    &comprehension.loop_step,
                    &comprehension.result,
                ] {
                    self.expr(part, program)?;
                }
                Ok(())
            }
            Expr::Ident(name) => self.variable(name, column()),
            Expr::Select(select) => {
                if let Expr::Ident(name) = &select.operand.expr
                    && name == "before"
                {
                    return self.before_field(&select.field, column());
                }
                self.expr(&select.operand, program)
            }
            Expr::List(list) => list
                .elements
                .iter()
                .try_for_each(|element| self.expr(element, program)),
            Expr::Map(map) => map.entries.iter().try_for_each(|entry| match &entry.expr {
                EntryExpr::MapEntry(entry) => {
                    self.expr(&entry.key, program)?;
                    self.expr(&entry.value, program)
                }
                EntryExpr::StructField(field) => self.expr(&field.value, program),
            }),
            Expr::Struct(_) => Err(PredicateError {
                column: column(),
                message: "a predicate cannot build a message type".to_owned(),
                hint: "compare values read from the page".to_owned(),
            }),
            Expr::Literal(_) | Expr::Unspecified => Ok(()),
        }
    }

    fn extraction(
        &mut self,
        extract: Extract,
        call: &cel::common::ast::CallExpr,
        column: usize,
    ) -> Result<(), PredicateError> {
        let name = extract.name();
        match call.target.as_deref().map(|t| &t.expr) {
            None => {}
            Some(Expr::Ident(target)) if target == "before" => self.before = true,
            Some(_) => {
                return Err(PredicateError {
                    column,
                    message: format!("`{name}` reads the page: only `before.` may come before it"),
                    hint: format!("write `{name}(\"SELECTOR\")` or `before.{name}(\"SELECTOR\")`"),
                });
            }
        }
        let selector = match call.args.as_slice() {
            [arg] => match &arg.expr {
                Expr::Literal(LiteralValue::String(selector)) => selector.inner().to_owned(),
                _ => None.ok_or_else(|| selector_needed(name, column))?,
            },
            _ => return Err(selector_needed(name, column)),
        };
        if selector.trim().is_empty() {
            return Err(selector_needed(name, column));
        }
        self.probes.insert((extract, selector));
        Ok(())
    }

    fn variable(&mut self, name: &str, column: usize) -> Result<(), PredicateError> {
        if self.bound.iter().any(|bound| bound == name) {
            return Ok(());
        }
        match name {
            "before" => {
                self.before = true;
                Ok(())
            }
            "action" => {
                self.action = true;
                Ok(())
            }
            _ if VARIABLES.contains(&name) => {
                self.variables.insert(name.to_owned());
                Ok(())
            }
            _ => Err(PredicateError {
                column,
                message: format!("`{name}` is not something a page has"),
                hint: format!(
                    "read the page with {}(\"SELECTOR\"), or use one of: {}, before.…",
                    Extract::ALL.map(Extract::name).join("/"),
                    VARIABLES.join(", ")
                ),
            }),
        }
    }

    fn before_field(&mut self, field: &str, column: usize) -> Result<(), PredicateError> {
        self.before = true;
        if BEFORE_FIELDS.contains(&field) {
            self.before_fields.insert(field.to_owned());
            return Ok(());
        }
        Err(PredicateError {
            column,
            message: format!("`before.{field}` is not something a page had"),
            hint: format!(
                "use before.{}(\"SELECTOR\"), or before.{}",
                Extract::ALL.map(Extract::name).join("/"),
                BEFORE_FIELDS.join("/before.")
            ),
        })
    }
}

/// The 1-based column, in characters on its line, of byte `offset` of `source`.
fn char_column(source: &str, offset: usize) -> usize {
    let Some(before) = source.get(..offset) else {
        return 0;
    };
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    before[line_start..].chars().count() + 1
}

fn is_known_function(name: &str) -> bool {
    // Operators (`_==_`, `!_`, `_[_]`, `@in`) and the macros' helpers (`@not_strictly_false`).
    !name.chars().all(|c| c.is_alphanumeric())
        || name == "sum"
        || STANDARD_FUNCTIONS.contains(&name)
}

fn unknown_function(name: &str, column: usize) -> PredicateError {
    PredicateError {
        column,
        message: format!("`{name}` is not a function of the predicate language"),
        hint: format!(
            "the page is read with {}; lists add up with sum(LIST); CEL also has {}",
            Extract::ALL.map(Extract::name).join(", "),
            STANDARD_FUNCTIONS.join(", ")
        ),
    }
}

fn selector_needed(name: &str, column: usize) -> PredicateError {
    PredicateError {
        column,
        message: format!("`{name}` takes one CSS selector, written in quotes"),
        hint: format!("write `{name}(\".total\")`"),
    }
}

/// Binds the page's variables and the page-reading functions for one check.
fn bind(
    context: &mut Context<'_, '_>,
    now: &Arc<Observation>,
    before: Option<&Arc<Observation>>,
    action: Option<&ActionFacts>,
) {
    for (name, value) in page_values(now) {
        context.add_variable_from_value(name, value);
    }
    let before_value = before.map_or(Value::Null, |before| {
        let fields: std::collections::HashMap<String, Value> = page_values(before)
            .into_iter()
            .filter(|(name, _)| BEFORE_FIELDS.contains(name))
            .map(|(name, value)| (name.to_owned(), value))
            .collect();
        Value::from(fields)
    });
    context.add_variable_from_value("before", before_value);
    let action = action.cloned().unwrap_or_default();
    let mut facts: std::collections::HashMap<String, Value> = [
        ("kind", action.kind),
        ("target", action.target),
        ("value", action.value),
        ("key", action.key),
        ("url", action.url),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), Value::from(v)))
    .collect();
    facts.insert("typed".to_owned(), Value::from(action.typed));
    context.add_variable_from_value("action", Value::from(facts));
    for extract in Extract::ALL {
        let now = Arc::clone(now);
        let before = before.cloned();
        // The names are ours, not the standard library's (tests call every one).
        context
            .add_function(
                extract.name(),
                move |ftx: &FunctionContext,
                      selector: Arc<String>|
                      -> Result<Value, ExecutionError> {
                    let page = match (&ftx.this, &before) {
                        (None, _) => &now,
                        (Some(_), Some(before)) => before,
                        (Some(_), None) => {
                            return Err(ftx.error(format!("{NOT_APPLICABLE}there is no before")));
                        }
                    };
                    read(extract, &selector, page).map_err(|why| ftx.error(why))
                },
            )
            .expect("a page-reading function's name is not CEL's");
    }
    context
        .add_function("sum", sum)
        .expect("`sum` is not CEL's");
    // CEL's `max` and `min` (of arguments, or of one list), which the standard environment
    // leaves undeclared.
    for (name, function) in [
        ("max", cel::functions::max as fn(_) -> _),
        ("min", cel::functions::min),
    ] {
        context
            .add_function(name, function)
            .expect("`max` and `min` are not declared");
    }
}

fn page_values(page: &Observation) -> Vec<(&'static str, Value)> {
    let strings = |list: &[String]| Value::from(list.to_vec());
    let (path, hash) = match url::Url::parse(&page.url) {
        Ok(url) => (
            url.path().to_owned(),
            url.fragment().map(|f| format!("#{f}")).unwrap_or_default(),
        ),
        Err(_) => (page.url.clone(), String::new()),
    };
    let requests: Vec<Value> = page
        .events
        .failed_requests
        .iter()
        .map(|r| {
            let map: std::collections::HashMap<String, Value> = [
                ("method".to_owned(), Value::from(r.method.clone())),
                ("url".to_owned(), Value::from(r.url.clone())),
                ("status".to_owned(), Value::Int(i64::from(r.status))),
            ]
            .into();
            Value::from(map)
        })
        .collect();
    let amounts: Vec<Value> = page
        .negative_amounts
        .iter()
        .map(|text| Value::Int(parse_money(text).unwrap_or(-1)))
        .collect();
    vec![
        ("url", Value::from(page.url.clone())),
        ("path", Value::from(path)),
        ("hash", Value::from(hash)),
        ("title", Value::from(page.title.clone())),
        ("status", Value::Int(i64::from(page.status))),
        ("errors", strings(&page.events.errors)),
        ("console_errors", strings(&page.events.console_errors)),
        ("dialogs", strings(&page.events.dialogs)),
        ("failed_requests", Value::List(Arc::new(requests))),
        ("markers", strings(&page.events.markers)),
        ("broken_texts", strings(&page.broken_texts)),
        ("negative_amounts", Value::List(Arc::new(amounts))),
    ]
}

/// One page-reading function's value; `Err` is an error message (not-applicable ones marked).
fn read(extract: Extract, selector: &str, page: &Observation) -> Result<Value, String> {
    let probe = Probe {
        selector: selector.to_owned(),
        field: extract.field(),
    };
    let Some(texts) = page.texts(&probe) else {
        return Err(format!(
            "{NOT_APPLICABLE}{selector:?} was not read from the page"
        ));
    };
    let first = || {
        texts.first().ok_or_else(|| {
            format!(
                "{NOT_APPLICABLE}nothing visible matches {selector:?} for {}()",
                extract.name()
            )
        })
    };
    let number = |text: &str| match parse_number(text) {
        Some(Number::Int(n)) => Some(Value::Int(n)),
        Some(Number::Float(f)) => Some(Value::Float(f)),
        None => None,
    };
    let not_a = |what: &str, text: &str| {
        format!("{NOT_APPLICABLE}the text of {selector:?} is not {what}: {text:?}")
    };
    // A field's value as the language holds it: a checkbox's or radio's state a bool.
    let value = |reading: &Reading| match reading {
        Reading::Checked(checked) => Value::Bool(*checked),
        Reading::Text(text) => Value::from(text.clone()),
    };
    let strings = || {
        texts
            .iter()
            .map(|r| r.text().into_owned())
            .collect::<Vec<_>>()
    };
    Ok(match extract {
        Extract::Text => Value::from(first()?.text().into_owned()),
        Extract::Value => value(first()?),
        Extract::Texts => Value::from(strings()),
        Extract::Values => Value::List(Arc::new(texts.iter().map(value).collect())),
        Extract::Count => Value::Int(i64::try_from(texts.len()).unwrap_or(i64::MAX)),
        Extract::Visible => Value::Bool(!texts.is_empty()),
        Extract::Focused => Value::Bool(texts.contains(&Reading::Checked(true))),
        Extract::Number => {
            let text = first()?.text();
            number(&text).ok_or_else(|| not_a("a number", &text))?
        }
        Extract::Money => {
            let text = first()?.text();
            Value::Int(parse_money(&text).ok_or_else(|| not_a("an amount", &text))?)
        }
        Extract::Numbers => Value::List(Arc::new(
            strings().iter().filter_map(|t| number(t)).collect(),
        )),
        Extract::Moneys => Value::List(Arc::new(
            strings()
                .iter()
                .filter_map(|t| parse_money(t).map(Value::Int))
                .collect(),
        )),
    })
}

/// `sum(list)`: integers add up to an integer; a list with a float adds up to a float.
fn sum(list: Arc<Vec<Value>>) -> Result<Value, ExecutionError> {
    let mut ints: i64 = 0;
    let mut floats: Option<f64> = None;
    for value in list.iter() {
        match value {
            Value::Int(n) => ints = ints.saturating_add(*n),
            Value::UInt(n) => ints = ints.saturating_add(i64::try_from(*n).unwrap_or(i64::MAX)),
            Value::Float(f) => *floats.get_or_insert(0.0) += f,
            other => {
                return Err(ExecutionError::function_error(
                    "sum",
                    format!("sum adds numbers, and the list holds {}", show(other)),
                ));
            }
        }
    }
    Ok(match floats {
        Some(f) => Value::Float(f + ints as f64),
        None => Value::Int(ints),
    })
}

/// What a page-reading function gave on `page`, in words, for a finding's "actual".
fn describe(extract: Extract, selector: &str, page: &Observation) -> String {
    match read(extract, selector, page) {
        Ok(value) => show(&value),
        Err(why) => why.replace(NOT_APPLICABLE, ""),
    }
}

/// A CEL value as a person reads it: `4500`, `"Buy milk"`, `[1, 2]`.
pub(crate) fn show(value: &Value) -> String {
    match value {
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => format!("{:?}", s.as_str()),
        Value::Null => "null".to_owned(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(map) => {
            let mut entries: Vec<String> = map
                .map
                .iter()
                .map(|(key, value)| format!("{key}: {}", show(value)))
                .collect();
            entries.sort();
            format!("{{{}}}", entries.join(", "))
        }
        other => format!("{other:?}"),
    }
}
