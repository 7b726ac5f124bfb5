//! Branch coverage of the app under audit: its scripts rewritten, as they load, with a counter on
//! every edge of its control flow, so that the audit can tell which of its moves ran code nothing
//! had run before (docs/audit.md#coverage).
//!
//! An edge is one outcome of a decision: the true and the false way out of an `if`, a loop's
//! test, a conditional (`?:`); the right side of `&&`, `||` and `??` being evaluated; a `case`
//! entered; a `catch` entered; a function entered. Each gets a number in its script and a byte in
//! the script's counter array, set when the edge is taken. Scripts are parsed with oxc (a real
//! JavaScript parser: modules, JSX-free modern syntax, directives, hashbangs), and the counters are
//! *inserted* into the source text at the parser's spans, never printed anew: nothing else in the
//! script changes, no inserted text holds a line break, so every line number in a stack trace is
//! the app's own (columns on an instrumented line move right).
//!
//! The counters of a script live in `globalThis.__windupEdges[id]`, `id` being the first 12 hex
//! digits of the SHA-256 of the script's text: the same code has the same edges in every session.
//! A script declares one function, hoisted, that sets them, so code that runs before the script's
//! first statement (a module imported in a cycle) counts too. The observation that follows every
//! action reads the edges taken since the last one (`observe.js`).

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    ConditionalExpression, DoWhileStatement, Expression, ForStatement, FunctionBody, IfStatement,
    LogicalExpression, Program, Statement, SwitchCase, WhileStatement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::{GetSpan, SourceType, Span};
use sha2::{Digest, Sha256};

/// A script with its edge counters in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumented {
    pub code: String,
    /// The script's id: where its counters are kept.
    pub id: String,
    /// How many edges it has.
    pub edges: u32,
}

/// What kind of script a text is, when the page says (`<script type="module">`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Module,
    Classic,
    /// A file fetched by URL: a module when it imports or exports, a classic script otherwise.
    Unknown,
}

/// The script's id: the first 12 hex digits of its SHA-256.
pub fn script_id(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Rewrites `source` with a counter on every edge; an error (the parser's first) when it does not
/// parse, and the script is then served as it came.
pub fn instrument(source: &str, kind: Kind) -> Result<Instrumented, String> {
    let allocator = Allocator::default();
    let source_type = match kind {
        Kind::Module => SourceType::mjs(),
        Kind::Classic => SourceType::cjs(),
        Kind::Unknown => SourceType::unambiguous(),
    };
    let parsed = oxc_parser::Parser::new(&allocator, source, source_type).parse();
    if let Some(error) = parsed.errors.first() {
        return Err(error.message.to_string());
    }
    if parsed.panicked {
        return Err("the parser gave up".to_owned());
    }
    let id = script_id(source);
    let mut edges = Edges {
        source,
        counter: format!("__wce_{id}"),
        inserts: Vec::new(),
        next: 0,
    };
    edges.visit_program(&parsed.program);
    let count = edges.next;
    let prologue = format!(
        "function {name}(i){{var a={name}.a||({name}.a=(function(g){{return g[\"{id}\"]||\
         (g[\"{id}\"]=new Uint8Array({count}))}})(globalThis.__windupEdges||\
         (globalThis.__windupEdges={{}})));a[i]=1}}",
        name = edges.counter,
    );
    let (start, before) = prologue_at(&parsed.program, source);
    let mut inserts = edges.inserts;
    inserts.push(Insert::point(start, format!("{before}{prologue}")));
    Ok(Instrumented {
        code: apply(source, inserts),
        id,
        edges: count,
    })
}

/// An HTML document with the counters in its inline scripts (classic and module; JSON, import
/// maps and templates are left), and without the `integrity` of its scripts and preloads: an
/// instrumented script no longer has the hash its page pinned. Also the scripts it instrumented;
/// one that does not parse stays as it was.
pub fn instrument_html(html: &str) -> Result<(String, Vec<Instrumented>), String> {
    use lol_html::html_content::{ContentType, Element, TextChunk};
    use std::cell::RefCell;
    // The kind of the script element being read (`None`: not JavaScript), and its text so far.
    let current: RefCell<Option<(Kind, String)>> = RefCell::new(None);
    let done: RefCell<Vec<Instrumented>> = RefCell::new(Vec::new());
    let settings = lol_html::RewriteStrSettings::new()
        .append_element_content_handler(lol_html::element!(
            "script[integrity], link[integrity]",
            |el: &mut Element| {
                el.remove_attribute("integrity");
                Ok(())
            }
        ))
        .append_element_content_handler(lol_html::element!("script", |el: &mut Element| {
            let kind = match el
                .get_attribute("type")
                .map(|t| t.trim().to_ascii_lowercase())
            {
                _ if el.has_attribute("src") => None,
                None => Some(Kind::Classic),
                Some(t)
                    if t.is_empty() || t.ends_with("javascript") || t.ends_with("ecmascript") =>
                {
                    Some(Kind::Classic)
                }
                Some(t) if t == "module" => Some(Kind::Module),
                Some(_) => None,
            };
            *current.borrow_mut() = kind.map(|kind| (kind, String::new()));
            Ok(())
        }))
        .append_element_content_handler(lol_html::text!("script", |chunk: &mut TextChunk| {
            let mut current = current.borrow_mut();
            let Some((kind, text)) = current.as_mut() else {
                return Ok(());
            };
            text.push_str(chunk.as_str());
            if !chunk.last_in_text_node() {
                chunk.remove();
                return Ok(());
            }
            match instrument(text, *kind) {
                Ok(instrumented) => {
                    chunk.replace(&instrumented.code, ContentType::Html);
                    done.borrow_mut().push(instrumented);
                }
                Err(_) => chunk.replace(text, ContentType::Html),
            }
            *current = None;
            Ok(())
        }));
    let out = lol_html::rewrite_str(html, settings).map_err(|e| e.to_string())?;
    Ok((out, done.into_inner()))
}

/// Where the counter function goes, and what must come before it there: after the directives
/// (`"use strict"` must stay first to count; one that ends without a `;` gets one), or at the
/// start of the line after a hashbang.
fn prologue_at(program: &Program<'_>, source: &str) -> (u32, &'static str) {
    if let Some(directive) = program.directives.last() {
        return after_directive(directive, source);
    }
    match &program.hashbang {
        Some(hashbang) => {
            let rest = &source[hashbang.span.end as usize..];
            let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
            (hashbang.span.end + line_end as u32, "")
        }
        None => (0, ""),
    }
}

/// Just after a directive, with the `;` it may lack.
fn after_directive(directive: &oxc_ast::ast::Directive<'_>, source: &str) -> (u32, &'static str) {
    let ends_with_semicolon = source.as_bytes().get(directive.span.end as usize - 1) == Some(&b';');
    (
        directive.span.end,
        if ends_with_semicolon { "" } else { ";" },
    )
}

/// One piece of text put into the source: at `at`, opening or closing a wrap around the span
/// `start..end` (a point is an opening of an empty span).
#[derive(Debug)]
struct Insert {
    at: u32,
    closes: bool,
    start: u32,
    end: u32,
    /// The order the visitor met it in: outer wraps first.
    seq: usize,
    text: String,
}

impl Insert {
    fn point(at: u32, text: String) -> Insert {
        Insert {
            at,
            closes: false,
            start: at,
            end: at,
            seq: 0,
            text,
        }
    }
}

/// The source with every insert in place. Where several fall at one offset, the wraps that end
/// there close first, inner before outer, then statements put there, then the wraps that begin
/// there open, outer before inner.
fn apply(source: &str, mut inserts: Vec<Insert>) -> String {
    // Closes, then points (statements put where a statement may go), then opens.
    let class = |i: &Insert| match (i.closes, i.start == i.end) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    inserts.sort_by(|a, b| {
        a.at.cmp(&b.at)
            .then(class(a).cmp(&class(b)))
            .then_with(|| match a.closes {
                true => b.start.cmp(&a.start).then(b.seq.cmp(&a.seq)),
                false => b.end.cmp(&a.end).then(a.seq.cmp(&b.seq)),
            })
    });
    let extra: usize = inserts.iter().map(|i| i.text.len()).sum();
    let mut out = String::with_capacity(source.len() + extra);
    let mut done = 0usize;
    for insert in inserts {
        let at = insert.at as usize;
        out.push_str(&source[done..at]);
        out.push_str(&insert.text);
        done = at;
    }
    out.push_str(&source[done..]);
    out
}

/// The visitor that numbers the edges and says where their counters go.
struct Edges<'s> {
    source: &'s str,
    counter: String,
    inserts: Vec<Insert>,
    next: u32,
}

impl Edges<'_> {
    fn edge(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// `text_before` at the start of `span` and `text_after` at its end.
    fn wrap(&mut self, span: Span, before: String, after: String) {
        let seq = self.inserts.len() + 1;
        for (at, closes, text) in [(span.start, false, before), (span.end, true, after)] {
            self.inserts.push(Insert {
                at,
                closes,
                start: span.start,
                end: span.end,
                seq,
                text,
            });
        }
    }

    /// A decision's test: `((test)?(taken,1):(not taken,0))`, truthy exactly when the test is.
    fn test(&mut self, test: &Expression<'_>) {
        let (yes, no) = (self.edge(), self.edge());
        let counter = self.counter.clone();
        self.wrap(
            test.span(),
            "((".to_owned(),
            format!(")?({counter}({yes}),1):({counter}({no}),0))"),
        );
    }

    /// An expression counted when it is evaluated: `(counter, expression)`.
    fn evaluated(&mut self, span: Span) {
        let edge = self.edge();
        self.wrap(span, format!("({}({edge}),", self.counter), ")".to_owned());
    }

    /// A statement counted at `at`, where statements may go.
    fn entered(&mut self, at: u32, before: &str) {
        let edge = self.edge();
        let seq = self.inserts.len() + 1;
        self.inserts.push(Insert {
            seq,
            ..Insert::point(at, format!("{before}{}({edge});", self.counter))
        });
    }
}

impl<'a> Visit<'a> for Edges<'_> {
    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        self.test(&it.test);
        walk::walk_if_statement(self, it);
    }

    fn visit_while_statement(&mut self, it: &WhileStatement<'a>) {
        self.test(&it.test);
        walk::walk_while_statement(self, it);
    }

    fn visit_do_while_statement(&mut self, it: &DoWhileStatement<'a>) {
        self.test(&it.test);
        walk::walk_do_while_statement(self, it);
    }

    fn visit_for_statement(&mut self, it: &ForStatement<'a>) {
        if let Some(test) = &it.test {
            self.test(test);
        }
        walk::walk_for_statement(self, it);
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        self.test(&it.test);
        walk::walk_conditional_expression(self, it);
    }

    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        self.evaluated(it.right.span());
        walk::walk_logical_expression(self, it);
    }

    fn visit_switch_case(&mut self, it: &SwitchCase<'a>) {
        let at = it
            .consequent
            .first()
            .map_or(it.span.end, |s| s.span().start);
        self.entered(at, "");
        walk::walk_switch_case(self, it);
    }

    fn visit_catch_clause(&mut self, it: &oxc_ast::ast::CatchClause<'a>) {
        self.entered(it.body.span.start + 1, "");
        walk::walk_catch_clause(self, it);
    }

    /// A function entered: after its `{` and directives, or around an arrow's expression body.
    fn visit_function_body(&mut self, it: &FunctionBody<'a>) {
        let block = self.source.as_bytes().get(it.span.start as usize) == Some(&b'{');
        match (block, it.statements.first()) {
            (false, Some(Statement::ExpressionStatement(body))) => {
                self.evaluated(body.expression.span())
            }
            (false, _) => {}
            (true, _) => {
                let (at, before) = match it.directives.last() {
                    Some(directive) => after_directive(directive, self.source),
                    None => (it.span.start + 1, ""),
                };
                self.entered(at, before);
            }
        }
        walk::walk_function_body(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(code: &str, kind: Kind) {
        let allocator = Allocator::default();
        let source_type = match kind {
            Kind::Module => SourceType::mjs(),
            _ => SourceType::unambiguous(),
        };
        let parsed = oxc_parser::Parser::new(&allocator, code, source_type).parse();
        if let Some(e) = parsed.errors.first() {
            let at = e
                .labels
                .as_ref()
                .and_then(|l| l.first())
                .map(|l| l.offset())
                .unwrap_or(0);
            let lo = code.floor_char_boundary(at.saturating_sub(300));
            let hi = code.ceil_char_boundary((at + 100).min(code.len()));
            panic!(
                "the instrumented code does not parse: {}\n{}",
                e.message,
                &code[lo..hi]
            );
        }
    }

    fn body(instrumented: &Instrumented) -> String {
        let counter = format!("__wce_{}", instrumented.id);
        let code = instrumented.code.replace(&counter, "C");
        // The prologue, kept apart from what the test reads.
        let end = code.find("a[i]=1}").expect("the prologue") + "a[i]=1}".len();
        format!(
            "{}{}",
            &code[..code.find("function C(i)").unwrap()],
            &code[end..]
        )
    }

    #[test]
    fn each_decision_counts_both_ways_and_a_function_its_entry() {
        let source = "function f(a, b) {\n  if (a) return 1;\n  return b ? a && b : 2;\n}\n";
        let out = instrument(source, Kind::Unknown).unwrap();
        assert_eq!(out.edges, 6);
        assert_eq!(
            body(&out),
            "function f(a, b) {C(0);\n  if (((a)?(C(1),1):(C(2),0))) return 1;\n  \
             return ((b)?(C(3),1):(C(4),0)) ? a && (C(5),b) : 2;\n}\n"
        );
        parses(&out.code, Kind::Unknown);
    }

    #[test]
    fn lines_stay_where_they_were() {
        let source = "'use strict';\nconst g = (x) => x > 1 ? 'big' : 'small';\nswitch (g(2)) {\n  case 'big':\n  case 'small': console.log(1);\n}\ntry { g(); } catch (e) { throw e; }\nwhile (false) {}\ndo {} while (0);\nfor (;;) break;\n";
        let out = instrument(source, Kind::Classic).unwrap();
        assert_eq!(out.code.lines().count(), source.lines().count());
        for (line, (theirs, ours)) in source.lines().zip(out.code.lines()).enumerate() {
            let first = |s: &str| s.split_whitespace().next().unwrap_or("").chars().next();
            assert_eq!(first(theirs), first(ours), "line {}: {ours}", line + 1);
        }
        assert!(out.code.starts_with("'use strict';function __wce_"));
        parses(&out.code, Kind::Classic);
    }

    #[test]
    fn nested_wraps_close_inside_out() {
        let source = "const f = (a, b, c) => a ? b ? 1 : 2 : c || (a && b);\nif (a && b) f();\n";
        let out = instrument(source, Kind::Unknown).unwrap();
        parses(&out.code, Kind::Unknown);
        assert_eq!(
            body(&out),
            "const f = (a, b, c) => (C(0),((a)?(C(1),1):(C(2),0)) ? ((b)?(C(3),1):(C(4),0)) ? 1 : 2 : c || (C(5),(a && (C(6),b))));\n\
             if (((a && (C(9),b))?(C(7),1):(C(8),0))) f();
"
        );
    }

    #[test]
    fn modules_and_directives_keep_their_meaning() {
        let source =
            "import { x } from './x.js';\nexport function y() { 'use strict'; return x; }\n";
        let out = instrument(source, Kind::Module).unwrap();
        parses(&out.code, Kind::Module);
        assert!(out.code.contains("{ 'use strict';__wce_"), "{}", out.code);
        let bare = "'use strict'\nfunction g() { \"use strict\"\n return 1 }\n";
        let bare = instrument(bare, Kind::Classic).unwrap();
        parses(&bare.code, Kind::Classic);
        assert!(bare.code.starts_with("'use strict';function __wce_"));
        let hashbang = instrument("#!/usr/bin/env node\nf();\n", Kind::Unknown).unwrap();
        assert!(
            hashbang
                .code
                .starts_with("#!/usr/bin/env node\nfunction __wce_")
        );
    }

    #[test]
    fn a_page_has_its_inline_scripts_counted_and_its_pins_dropped() {
        let html = "<!doctype html><html><head>\
            <script type=\"importmap\">{\"imports\": {}}</script>\
            <script src=\"/app.js\" integrity=\"sha384-x\"></script>\
            <link rel=\"modulepreload\" href=\"/m.js\" integrity=\"sha384-y\">\
            <script>if (window.a) { go(); }</script>\
            <script type=\"module\">import './m.js'; export const z = 1 || 2;</script>\
            <script>if (</script>\
            </head><body><p>if (a) b</p></body></html>";
        let (out, scripts) = instrument_html(html).unwrap();
        assert_eq!(scripts.len(), 2, "{out}");
        assert!(!out.contains("integrity"), "{out}");
        assert!(out.contains("{\"imports\": {}}</script>"), "{out}");
        assert!(out.contains("<script>if (</script>"), "{out}");
        assert!(out.contains("<p>if (a) b</p>"), "{out}");
        assert!(
            out.contains(&format!("if (((window.a)?(__wce_{}(0),1)", scripts[0].id)),
            "{out}"
        );
        assert!(out.contains("import './m.js';"), "{out}");
        assert_eq!(scripts[1].edges, 1);
    }

    /// Runs a script in Node and answers what it printed.
    fn node(code: &str) -> String {
        let out = std::process::Command::new("node")
            .args(["--input-type=module", "-e", code])
            .output()
            .expect("Node runs (the corpus and the tools need it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn instrumented_code_computes_what_the_original_does() {
        let source = r#"
            const seen = [];
            function classify(n) {
              'use strict';
              if (n < 0) return 'negative';
              else if (n === 0) return 'zero';
              switch (n % 3) { case 0: return 'three'; case 1: case 2: break; default: return 'never'; }
              return n > 10 ? 'big' : n && 'small';
            }
            for (let i = -2; i < 14; i += 3) seen.push(classify(i));
            let k = 0; while (k < 3) k++; do { k--; } while (k > 0);
            const lazy = (x) => x ?? 'none';
            const obj = { get v() { return this.w || 7; }, w: 0, async *gen() { yield 1; } };
            try { null.x; } catch (e) { seen.push(e instanceof TypeError); }
            class A { static #p = 2; static m() { return A.#p > 1 ? `t${A.#p}` : 'f'; } }
            label: for (const x of [1, 2]) { if (x === 2) continue label; seen.push(x); }
            seen.push(lazy(null), lazy(0), obj.v, A.m(), typeof obj.gen, k);
            const edges = globalThis.__windupEdges ? Object.values(globalThis.__windupEdges)
              .reduce((n, a) => n + a.filter(Boolean).length, 0) : 0;
            console.log(JSON.stringify(seen), edges > 0);
        "#;
        let instrumented = instrument(source, Kind::Module).unwrap();
        let theirs = node(source);
        let ours = node(&instrumented.code);
        assert_eq!(theirs.replace(" false", ""), ours.replace(" true", ""));
        assert!(
            ours.trim_end().ends_with("true"),
            "no edge was counted: {ours}"
        );
    }

    #[test]
    fn a_script_that_does_not_parse_is_refused_and_ids_follow_the_text() {
        assert!(instrument("if (", Kind::Unknown).is_err());
        assert_eq!(script_id("a"), script_id("a"));
        assert_ne!(script_id("a"), script_id("b"));
        assert_eq!(script_id("a").len(), 12);
    }
}
