//! A predicate's CEL, as a JavaScript expression over the spec's runtime (`runtime.ts`): `now`
//! and `before` read the page, `action` is the action's facts, and `cel.*` gives CEL's
//! operators their CEL meaning (deep equality, error-absorbing `&&` and `||`, list `+`). A
//! comprehension (`all`, `exists`, `map`, `filter`) becomes the loop CEL defines it as.

use cel::IdedExpr;
use cel::common::ast::{EntryExpr, Expr, LiteralValue};

use crate::model::invariant::Predicate;

/// What a predicate uses that the spec's runtime does not give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the predicate uses {0}, which a Playwright spec cannot check")]
pub struct Untranslatable(pub String);

/// The predicate as a JavaScript expression of `now`, `before` and `action`.
pub(super) fn translate(predicate: &Predicate) -> Result<String, Untranslatable> {
    expr(predicate.expression())
}

fn expr(node: &IdedExpr) -> Result<String, Untranslatable> {
    match &node.expr {
        Expr::Literal(literal) => literal_js(literal),
        Expr::Ident(name) => Ok(ident(name)),
        Expr::Select(select) => {
            if let Expr::Ident(name) = &select.operand.expr
                && name == "before"
            {
                return Ok(format!("before.{}", select.field));
            }
            let operand = expr(&select.operand)?;
            let field = json(&select.field);
            Ok(if select.test {
                format!("cel.has({operand}, {field})")
            } else {
                format!("cel.select({operand}, {field})")
            })
        }
        Expr::Call(call) => {
            let args = call.args.iter().map(expr).collect::<Result<Vec<_>, _>>()?;
            let target = match call.target.as_deref() {
                Some(IdedExpr {
                    expr: Expr::Ident(name),
                    ..
                }) if name == "before" => Some("before".to_owned()),
                Some(target) => Some(expr(target)?),
                None => None,
            };
            call_js(&call.func_name, target, args)
        }
        Expr::List(list) => {
            let elements = list
                .elements
                .iter()
                .map(expr)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!("[{}]", elements.join(", ")))
        }
        Expr::Map(map) => {
            let mut entries = Vec::new();
            for entry in &map.entries {
                match &entry.expr {
                    EntryExpr::MapEntry(entry) => {
                        entries.push(format!("[{}, {}]", expr(&entry.key)?, expr(&entry.value)?));
                    }
                    EntryExpr::StructField(_) => {
                        return Err(Untranslatable("a message field".to_owned()));
                    }
                }
            }
            Ok(format!("cel.map([{}])", entries.join(", ")))
        }
        Expr::Comprehension(c) => {
            if c.iter_var2.is_some() {
                return Err(Untranslatable("a two-variable comprehension".to_owned()));
            }
            let (item, accu) = (ident(&c.iter_var), ident(&c.accu_var));
            Ok(format!(
                "((range: unknown) => {{ let {accu}: any = {init}; for (const {item} of cel.items(range)) {{ \
                 if (!({cond})) break; {accu} = {step}; }} return {result}; }})({range})",
                init = expr(&c.accu_init)?,
                cond = expr(&c.loop_cond)?,
                step = expr(&c.loop_step)?,
                result = expr(&c.result)?,
                range = expr(&c.iter_range)?,
            ))
        }
        Expr::Struct(_) => Err(Untranslatable("a message".to_owned())),
        Expr::Unspecified => Err(Untranslatable("an empty expression".to_owned())),
    }
}

/// A page variable is a field of `now`; a comprehension's variable gets a name no page
/// variable and no JavaScript word can have.
fn ident(name: &str) -> String {
    match name {
        "action" => "action".to_owned(),
        _ if crate::model::invariant::VARIABLES.contains(&name) => format!("now.{name}"),
        _ => {
            let safe: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("v_{safe}")
        }
    }
}

fn literal_js(literal: &LiteralValue) -> Result<String, Untranslatable> {
    Ok(match literal {
        LiteralValue::Boolean(b) => b.inner().to_string(),
        LiteralValue::Int(n) => n.inner().to_string(),
        LiteralValue::UInt(n) => n.inner().to_string(),
        LiteralValue::Double(f) => {
            let f = *f.inner();
            if f.is_finite() {
                format!("{f:?}")
            } else {
                return Err(Untranslatable("a number that is not finite".to_owned()));
            }
        }
        LiteralValue::String(s) => json(s.inner()),
        LiteralValue::Null => "null".to_owned(),
        LiteralValue::Bytes(_) => return Err(Untranslatable("bytes".to_owned())),
    })
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

fn call_js(
    name: &str,
    target: Option<String>,
    args: Vec<String>,
) -> Result<String, Untranslatable> {
    if let Some(extract) = crate::model::invariant::Extract::ALL
        .into_iter()
        .find(|e| e.name() == name)
    {
        let page = target.unwrap_or_else(|| "now".to_owned());
        return Ok(format!(
            "{page}.read({}, {})",
            json(extract.name()),
            args.join(", ")
        ));
    }
    if let Some(js) = operator(name, &args) {
        return Ok(js);
    }
    // A member call `x.size()` is the function of `x`; both forms are CEL's.
    let mut all = Vec::with_capacity(args.len() + 1);
    all.extend(target);
    all.extend(args);
    let one = |f: &str| match all.as_slice() {
        [x] => Ok(format!("cel.{f}({x})")),
        _ => Err(Untranslatable(format!(
            "{name} with {} arguments",
            all.len()
        ))),
    };
    let two = |f: &str| match all.as_slice() {
        [x, y] => Ok(f.replace("$0", x).replace("$1", y)),
        _ => Err(Untranslatable(format!(
            "{name} with {} arguments",
            all.len()
        ))),
    };
    match name {
        "size" | "int" | "double" | "string" | "sum" => one(name),
        "uint" => one("int"),
        "bool" => one("bool"),
        "dyn" => match all.as_slice() {
            [x] => Ok(x.clone()),
            _ => Err(Untranslatable("dyn with several arguments".to_owned())),
        },
        "contains" => two("cel.str($0).includes(cel.str($1))"),
        "startsWith" => two("cel.str($0).startsWith(cel.str($1))"),
        "endsWith" => two("cel.str($0).endsWith(cel.str($1))"),
        "matches" => two("new RegExp(cel.str($1), 'u').test(cel.str($0))"),
        "max" | "min" => Ok(format!("cel.{name}({})", all.join(", "))),
        other => Err(Untranslatable(format!("the function `{other}`"))),
    }
}

/// CEL's operators, by their internal names.
fn operator(name: &str, args: &[String]) -> Option<String> {
    let lazy = |x: &String| format!("() => {x}");
    Some(match (name, args) {
        ("_&&_", [a, b]) => format!("cel.and({}, {})", lazy(a), lazy(b)),
        ("_||_", [a, b]) => format!("cel.or({}, {})", lazy(a), lazy(b)),
        ("!_", [a]) => format!("!cel.bool({a})"),
        ("-_", [a]) => format!("(-cel.num({a}))"),
        ("_?_:_", [c, a, b]) => format!("(cel.bool({c}) ? {a} : {b})"),
        ("_==_", [a, b]) => format!("cel.eq({a}, {b})"),
        ("_!=_", [a, b]) => format!("!cel.eq({a}, {b})"),
        ("_<_", [a, b]) => format!("(cel.compare({a}, {b}) < 0)"),
        ("_<=_", [a, b]) => format!("(cel.compare({a}, {b}) <= 0)"),
        ("_>_", [a, b]) => format!("(cel.compare({a}, {b}) > 0)"),
        ("_>=_", [a, b]) => format!("(cel.compare({a}, {b}) >= 0)"),
        ("_+_", [a, b]) => format!("cel.add({a}, {b})"),
        ("_-_", [a, b]) => format!("(cel.num({a}) - cel.num({b}))"),
        ("_*_", [a, b]) => format!("(cel.num({a}) * cel.num({b}))"),
        ("_/_", [a, b]) => format!("cel.div({a}, {b})"),
        ("_%_", [a, b]) => format!("cel.mod({a}, {b})"),
        ("_[_]", [a, b]) => format!("cel.index({a}, {b})"),
        ("@in", [a, b]) => format!("cel.in({a}, {b})"),
        ("@not_strictly_false", [a]) => format!("cel.notStrictlyFalse({})", lazy(a)),
        _ => return None,
    })
}
