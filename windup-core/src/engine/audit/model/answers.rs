//! What the model answers in the audit, and how each answer is read: three schemas written for
//! the strictest structured-output mode (every object closed, every property required, `null`
//! for what does not apply), and the checks an answer passes before Windup uses it. An answer
//! that fails them goes back to the model with its problems, as a plan does.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::model::invariant::{Invariant, Predicate, Severity, Source, Surface};
use crate::model::plan::{self, Action, Envelope, GeneratedBy, PlannerKind, Rules};

/// The schema names, also the names of Anthropic's forced tools.
pub(crate) const RULES_SCHEMA: &str = "windup_rules";
pub(crate) const ATTACK_SCHEMA: &str = "windup_attack";
pub(crate) const JUDGE_SCHEMA: &str = "windup_judge";

/// The most rules one answer may propose.
pub(crate) const MAX_RULES: usize = 8;
/// The most actions one attack may take.
pub(crate) const MAX_ATTACK_ACTIONS: usize = 12;

fn object(fields: &[(&str, Value)]) -> Value {
    plan::strict_object(
        fields
            .iter()
            .map(|(name, schema)| ((*name).to_owned(), schema.clone()))
            .collect(),
    )
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn severity() -> Value {
    json!({ "type": "string", "enum": ["low", "medium", "high", "critical"] })
}

/// `{ invariants: [{ id, statement, surface, predicate, severity }] }`.
pub(crate) fn rules_schema() -> Value {
    let rule = object(&[
        (
            "id",
            string("A short kebab-case name: cart-total-is-sum-of-lines."),
        ),
        ("statement", string("The rule in one sentence.")),
        (
            "surface",
            string("A glob over the page path where it applies: /cart, /products/*, /**."),
        ),
        (
            "predicate",
            string("A CEL expression over the page that is true while the rule holds."),
        ),
        ("severity", severity()),
    ]);
    object(&[(
        "invariants",
        json!({ "type": "array", "description": "The rules, most likely broken first.", "items": rule }),
    )])
}

/// `{ invariant_id, rationale, actions: [plan actions], watch: [selectors] }`.
pub(crate) fn attack_schema() -> Value {
    let actions = plan::answer_schema()["properties"]["actions"].clone();
    object(&[
        ("invariant_id", string("The id of the rule attacked.")),
        (
            "rationale",
            string("Why these actions could break it, in one sentence."),
        ),
        ("actions", actions),
        (
            "watch",
            json!({ "type": "array", "description": "CSS selectors of the readings that should show the rule breaking.", "items": { "type": "string" } }),
        ),
    ])
}

/// `{ violated, severity, actual, impact, reason }`.
pub(crate) fn judge_schema() -> Value {
    object(&[
        (
            "violated",
            json!({ "type": "boolean", "description": "true confirms the violation; false vetoes it." }),
        ),
        ("severity", severity()),
        ("actual", string("What the app did, in one sentence.")),
        ("impact", string("Who is hurt and how, in one sentence.")),
        (
            "reason",
            string("Why you confirm or veto, in one sentence."),
        ),
    ])
}

/// A rule as the model wrote it.
#[derive(Debug, Deserialize)]
struct ProposedRule {
    id: String,
    statement: String,
    surface: String,
    predicate: String,
    severity: Severity,
}

#[derive(Debug, Deserialize)]
struct RulesAnswer {
    invariants: Vec<ProposedRule>,
}

fn json_of(text: &str) -> Result<Value, Vec<String>> {
    serde_json::from_str(text.trim()).map_err(|err| vec![format!("the answer is not JSON: {err}")])
}

/// The rules of an answer as invariants of source `model`: the good ones, and the problems of
/// the others, each naming the rule and what to write instead. `taken` are the ids already in
/// use (the generic oracles', the user's): a rule may not reuse one.
pub(crate) fn read_rules(text: &str, taken: &[&str]) -> (Vec<Invariant>, Vec<String>) {
    let answer: RulesAnswer = match json_of(text).and_then(|v| {
        serde_json::from_value(v)
            .map_err(|e| vec![format!("the answer does not match the schema: {e}")])
    }) {
        Ok(answer) => answer,
        Err(problems) => return (Vec::new(), problems),
    };
    let mut invariants: Vec<Invariant> = Vec::new();
    let mut problems = Vec::new();
    for (n, rule) in answer.invariants.into_iter().enumerate() {
        if n >= MAX_RULES {
            problems.push(format!(
                "only {MAX_RULES} rules are read; rule {:?} and those after it were dropped",
                rule.id
            ));
            break;
        }
        match read_rule(rule, taken, &invariants) {
            Ok(invariant) => invariants.push(invariant),
            Err(problem) => problems.push(problem),
        }
    }
    (invariants, problems)
}

fn read_rule(
    rule: ProposedRule,
    taken: &[&str],
    so_far: &[Invariant],
) -> Result<Invariant, String> {
    let id = rule.id.trim().to_owned();
    let well_named = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !well_named {
        return Err(format!(
            "rule {id:?}: the id must be kebab-case letters, digits and dashes, at most 64"
        ));
    }
    if taken.contains(&id.as_str()) || so_far.iter().any(|i| i.id == id) {
        return Err(format!(
            "rule {id:?}: the id is already taken; give it another"
        ));
    }
    let surface = Surface::new(rule.surface.trim(), None)
        .map_err(|err| format!("rule {id:?}: surface {err}"))?;
    let predicate = Predicate::parse(&rule.predicate).map_err(|err| {
        format!(
            "rule {id:?}: the predicate `{}` does not parse: {err} ({})",
            rule.predicate, err.hint
        )
    })?;
    if predicate.probes().is_empty() {
        return Err(format!(
            "rule {id:?}: the predicate reads nothing from the page; read the values the rule is about with text(), money(), count(), …"
        ));
    }
    Ok(Invariant::new(
        id,
        rule.statement.trim(),
        surface,
        None,
        predicate,
        Source::Model,
        rule.severity,
    ))
}

/// A model's attack: the actions to run from the page it was shown, and what it watches.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedAttack {
    pub(crate) rationale: String,
    pub(crate) actions: Vec<Action>,
    pub(crate) watch: Vec<String>,
}

/// An attack answer read as a plan (sanitized, checked by the plan schema and its rules), for
/// the rule `invariant`. `account_keys` are the keys a `value_ref` may name.
pub(crate) fn read_attack(
    text: &str,
    invariant: &str,
    account_keys: &[String],
) -> Result<PlannedAttack, Vec<String>> {
    let answer = json_of(text)?;
    let rationale = answer
        .get("rationale")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let watch = answer
        .get("watch")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let envelope = Envelope {
        scenario_id: invariant,
        task: "attack",
        start_url: "/",
        generated_by: GeneratedBy {
            planner: PlannerKind::Llm,
            provider: None,
            model: None,
            at: "1970-01-01T00:00:00Z".to_owned(),
        },
    };
    let rules = Rules::with_account_keys(account_keys.iter().cloned());
    let plan = plan::parse_model_output(plan::plan_from_answer(answer, envelope), &rules)
        .map_err(|err| vec![err.to_string()])?;
    if plan.actions.len() > MAX_ATTACK_ACTIONS {
        return Err(vec![format!(
            "the attack has {} actions; give at most {MAX_ATTACK_ACTIONS}",
            plan.actions.len()
        )]);
    }
    if let Some(action) = plan.actions.iter().find(|a| a.value_ref.is_some()) {
        return Err(vec![format!(
            "action {}: an attack types no account value (the audit signs in on its own); \
             give a plain value or leave the field alone",
            action.id
        )]);
    }
    if plan.actions.iter().any(|a| a.kind == plan::ActionKind::Use) {
        return Err(vec![
            "an attack cannot `use` a fragment; write its actions out".to_owned(),
        ]);
    }
    Ok(PlannedAttack {
        rationale,
        actions: plan.actions,
        watch,
    })
}

/// The judge's word on a proven violation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct JudgeWord {
    pub(crate) violated: bool,
    pub(crate) severity: Severity,
    pub(crate) actual: String,
    pub(crate) impact: String,
    pub(crate) reason: String,
}

pub(crate) fn read_judge(text: &str) -> Result<JudgeWord, Vec<String>> {
    let value = json_of(text)?;
    serde_json::from_value(value)
        .map_err(|err| vec![format!("the answer does not match the schema: {err}")])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_schemas_suit_strict_structured_output() {
        for (name, schema) in [
            (RULES_SCHEMA, rules_schema()),
            (ATTACK_SCHEMA, attack_schema()),
            (JUDGE_SCHEMA, judge_schema()),
        ] {
            plan::check_strict(&schema, name);
        }
    }

    #[test]
    fn rules_that_do_not_parse_or_read_nothing_are_problems_naming_the_rule() {
        let answer = json!({ "invariants": [
            { "id": "cart-total", "statement": "The total is the sum.", "surface": "/cart",
              "predicate": "money(\"#total\") == sum(moneys(\".line\"))", "severity": "high" },
            { "id": "broken", "statement": "x", "surface": "/cart", "predicate": "money(#total) ==", "severity": "low" },
            { "id": "nothing", "statement": "x", "surface": "/cart", "predicate": "1 == 1", "severity": "low" },
            { "id": "server-error", "statement": "x", "surface": "/**", "predicate": "status < 500", "severity": "low" },
            { "id": "Bad Id", "statement": "x", "surface": "/", "predicate": "count(\"a\") > 0", "severity": "low" },
        ]});
        let (rules, problems) = read_rules(&answer.to_string(), &["server-error"]);
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].id, "cart-total");
        assert_eq!(rules[0].source, Source::Model);
        assert_eq!(rules[0].severity, Severity::High);
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(
            problems[0].starts_with("rule \"broken\": the predicate"),
            "{}",
            problems[0]
        );
        assert!(problems[1].contains("reads nothing"), "{}", problems[1]);
        assert!(problems[2].contains("already taken"), "{}", problems[2]);
        assert!(problems[3].contains("kebab-case"), "{}", problems[3]);
        let (none, problems) = read_rules("not json", &[]);
        assert!(none.is_empty());
        assert!(problems[0].starts_with("the answer is not JSON"));
    }

    fn click(id: &str, selector: &str) -> Value {
        json!({
            "id": id, "type": "click",
            "target": { "selector": selector, "identity": { "tag": "button", "role": "button", "name": "Add", "label": null } },
            "value": null, "value_ref": null, "url": null, "key": null, "use": null,
            "expect": [{ "kind": "url_matches", "pattern": "/cart" }], "timeout_ms": null
        })
    }

    #[test]
    fn an_attack_is_read_as_a_checked_plan() {
        let answer = json!({
            "invariant_id": "cart-total", "rationale": "Add twice.",
            "actions": [click("a1", "#add"), click("a2", "#add")],
            "watch": ["#total"]
        });
        let attack = read_attack(&answer.to_string(), "cart-total", &[]).expect("an attack");
        assert_eq!(attack.actions.len(), 2);
        assert_eq!(attack.watch, ["#total"]);
        let fills_a_secret = json!({
            "invariant_id": "x", "rationale": "",
            "actions": [{
                "id": "a1", "type": "fill",
                "target": { "selector": "#email", "identity": { "tag": "input", "role": "textbox", "name": "Email", "label": null } },
                "value": null, "value_ref": "account.email", "url": null, "key": null, "use": null,
                "expect": [{ "kind": "url_matches", "pattern": "/cart" }], "timeout_ms": null
            }],
            "watch": []
        });
        let problems = read_attack(&fills_a_secret.to_string(), "x", &[]).unwrap_err();
        assert!(problems[0].contains("value_ref"), "{problems:?}");
        let problems =
            read_attack(&fills_a_secret.to_string(), "x", &["email".to_owned()]).unwrap_err();
        assert!(
            problems[0].contains("types no account value"),
            "{problems:?}"
        );
        let long: Vec<Value> = (1..=13).map(|n| click(&format!("a{n}"), "#add")).collect();
        let answer = json!({ "invariant_id": "x", "rationale": "", "actions": long, "watch": [] });
        let problems = read_attack(&answer.to_string(), "x", &[]).unwrap_err();
        assert!(problems[0].contains("at most 12"), "{problems:?}");
    }

    #[test]
    fn a_judge_answer_is_read_whole_or_not_at_all() {
        let word = read_judge(
            &json!({ "violated": false, "severity": "low", "actual": "a", "impact": "b", "reason": "c" }).to_string(),
        )
        .expect("a word");
        assert!(!word.violated);
        assert!(read_judge(&json!({ "violated": "yes" }).to_string()).is_err());
    }
}
