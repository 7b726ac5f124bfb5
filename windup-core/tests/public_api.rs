//! The public API of `windup` (the front door) and of `windup-core`, listed item by item with
//! their signatures and kept as snapshots (`tests/snapshots/public_api__*.snap`), so that a
//! change to what users can name is reviewed like a lockfile: `cargo insta review` shows it, and
//! CHANGELOG.md says it.
//!
//! The list is read from the source with syn, every feature's items included (each marked with
//! the `cfg` it needs): public modules, and in them every public item — functions and methods
//! with their signatures, structs with their public fields, enums with their variants, traits
//! with their methods, trait implementations, constants, and re-exports as written.

use std::path::{Path, PathBuf};

use quote::ToTokens;

/// The listing of one crate, from its root file.
fn listing(root: &Path, krate: &str) -> String {
    let mut out = Vec::new();
    module(&root.join("lib.rs"), root, krate, &[], &mut out);
    out.join("\n") + "\n"
}

/// Tokens as text, with the spaces the token printer puts inside paths and generics taken out.
fn text(tokens: impl ToTokens) -> String {
    let mut text = tokens.to_token_stream().to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        ("' ", "'"),
        (" ?", "?"),
        (" : ", ": "),
    ] {
        text = text.replace(from, to);
    }
    text.replace("->", " -> ")
        .replace("  ", " ")
        .replace("& mut", "&mut")
}

fn public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// What an item needs to exist: its `cfg`s, and whether it is `#[non_exhaustive]`.
fn marks(attrs: &[syn::Attribute]) -> String {
    let mut marks = String::new();
    for attr in attrs {
        if attr.path().is_ident("cfg") {
            marks.push_str(&format!(" #[{}]", text(&attr.meta)));
        } else if attr.path().is_ident("non_exhaustive") {
            marks.push_str(" #[non_exhaustive]");
        }
    }
    marks
}

fn module(file: &Path, dir: &Path, path: &str, inherited: &[String], out: &mut Vec<String>) {
    let source =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    items(&parsed.items, dir, path, inherited, out);
}

fn items(list: &[syn::Item], dir: &Path, path: &str, cfgs: &[String], out: &mut Vec<String>) {
    let cfg = cfgs.concat();
    // Types of this module no one outside can name: their impls are not the API.
    let hidden: Vec<String> = list
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) if !public(&s.vis) => Some(s.ident.to_string()),
            syn::Item::Enum(e) if !public(&e.vis) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    for item in list {
        match item {
            syn::Item::Mod(m) if public(&m.vis) => {
                let name = m.ident.to_string();
                let child = format!("{path}::{name}");
                let mut inner = cfgs.to_vec();
                inner.push(marks(&m.attrs));
                out.push(format!("mod {child}{}", inner.concat()));
                match &m.content {
                    Some((_, content)) => items(content, &dir.join(&name), &child, &inner, out),
                    None => {
                        let (file, sub) = module_file(dir, &name);
                        module(&file, &sub, &child, &inner, out);
                    }
                }
            }
            syn::Item::Use(u) if public(&u.vis) => out.push(format!(
                "use {path}: {}{cfg}{}",
                text(&u.tree),
                marks(&u.attrs)
            )),
            syn::Item::Fn(f) if public(&f.vis) => out.push(format!(
                "{}{cfg}{}",
                function(path, &f.sig),
                marks(&f.attrs)
            )),
            syn::Item::Const(c) if public(&c.vis) => {
                let marked = marks(&c.attrs);
                out.push(format!(
                    "const {path}::{}: {}{cfg}{marked}",
                    c.ident,
                    text(&c.ty)
                ))
            }
            syn::Item::Static(s) if public(&s.vis) => {
                let marked = marks(&s.attrs);
                out.push(format!(
                    "static {path}::{}: {}{cfg}{marked}",
                    s.ident,
                    text(&s.ty)
                ))
            }
            syn::Item::Type(t) if public(&t.vis) => out.push(format!(
                "type {path}::{}{} = {}{cfg}",
                t.ident,
                text(&t.generics),
                text(&t.ty)
            )),
            syn::Item::Struct(s) if public(&s.vis) => {
                let name = format!("{path}::{}{}", s.ident, text(&s.generics));
                out.push(format!("struct {name}{cfg}{}", marks(&s.attrs)));
                fields(&s.fields, &format!("{path}::{}", s.ident), &cfg, out);
            }
            syn::Item::Enum(e) if public(&e.vis) => {
                let name = format!("{path}::{}", e.ident);
                out.push(format!(
                    "enum {name}{}{cfg}{}",
                    text(&e.generics),
                    marks(&e.attrs)
                ));
                for variant in &e.variants {
                    out.push(format!(
                        "variant {name}::{}{}{cfg}",
                        variant.ident,
                        shape(&variant.fields)
                    ));
                }
            }
            syn::Item::Trait(t) if public(&t.vis) => {
                let name = format!("{path}::{}", t.ident);
                out.push(format!("trait {name}{}{cfg}", text(&t.generics)));
                for inner in &t.items {
                    if let syn::TraitItem::Fn(f) = inner {
                        out.push(format!("{}{cfg}", function(&name, &f.sig)));
                    }
                }
            }
            syn::Item::Impl(i) if !hidden.contains(&self_name(&i.self_ty)) => {
                implementation(i, path, &cfg, out)
            }
            _ => {}
        }
    }
}

/// A function's signature under its path: `async fn a::b::f(x: u8) -> bool`.
fn function(path: &str, sig: &syn::Signature) -> String {
    let sig = text(sig);
    let (qualifiers, rest) = sig.split_once("fn ").unwrap_or(("", &sig));
    format!("{qualifiers}fn {path}::{}", rest.trim_start())
}

/// A variant's fields by name and type, without their attributes: ` { a: T, b: U }`, `(T, U)`.
fn shape(fields: &syn::Fields) -> String {
    let types = |named: bool| {
        fields
            .iter()
            .map(|f| match (&f.ident, named) {
                (Some(name), true) => format!("{name}: {}", text(&f.ty)),
                _ => text(&f.ty),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match fields {
        syn::Fields::Unit => String::new(),
        syn::Fields::Named(_) => format!(" {{ {} }}", types(true)),
        syn::Fields::Unnamed(_) => format!("({})", types(false)),
    }
}

/// The name of the type an impl is for: `Foo` of `Foo<'a>` or `crate::x::Foo`.
fn self_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// `name.rs` or `name/mod.rs` beside a module's file, and the folder its children are in.
fn module_file(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        (flat, dir.join(name))
    } else {
        (dir.join(name).join("mod.rs"), dir.join(name))
    }
}

fn fields(fields: &syn::Fields, name: &str, cfg: &str, out: &mut Vec<String>) {
    for (n, field) in fields.iter().enumerate() {
        if public(&field.vis) {
            let called = field
                .ident
                .as_ref()
                .map_or_else(|| n.to_string(), ToString::to_string);
            out.push(format!("field {name}.{called}: {}{cfg}", text(&field.ty)));
        }
    }
}

/// A trait implementation as its header; an inherent one as its public methods.
fn implementation(i: &syn::ItemImpl, path: &str, cfg: &str, out: &mut Vec<String>) {
    let cfg = format!("{cfg}{}", marks(&i.attrs));
    let on = text(&i.self_ty);
    if let Some((_, trait_path, _)) = &i.trait_ {
        out.push(format!(
            "impl {path}: {}{} for {on}{cfg}",
            text(&i.generics),
            text(trait_path)
        ));
        return;
    }
    for inner in &i.items {
        if let syn::ImplItem::Fn(f) = inner
            && public(&f.vis)
        {
            out.push(format!(
                "{}{cfg}{}",
                function(&format!("{path}::{on}"), &f.sig),
                marks(&f.attrs)
            ));
        }
        if let syn::ImplItem::Const(c) = inner
            && public(&c.vis)
        {
            out.push(format!(
                "const {path}::{on}::{}: {}{cfg}",
                c.ident,
                text(&c.ty)
            ));
        }
    }
}

#[test]
fn the_front_door() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    insta::assert_snapshot!("windup", listing(&root, "windup"));
}

#[test]
fn the_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    insta::assert_snapshot!("windup_core", listing(&root, "windup_core"));
}

#[test]
fn a_listing_names_each_kind_of_item_with_its_signature() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lib.rs"),
        "pub mod a;\nmod hidden { pub fn no() {} }\n\
         pub use a::B as C;\n\
         #[non_exhaustive]\npub enum E { One, Two(u8), Three { x: String } }\n\
         pub struct S<T> { pub shown: Vec<T>, kept: u8 }\n\
         impl<T> S<T> { pub fn new(items: &[T]) -> Option<Self> { None } fn private() {} }\n\
         impl std::fmt::Display for E { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) } }\n\
         struct Hidden;\nimpl std::fmt::Display for Hidden { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) } }\n\
         #[cfg(feature = \"x\")]\npub const N: usize = 1;\n\
         pub trait T { fn go(&mut self, at: std::time::Duration) -> bool; }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.rs"), "pub struct B(pub u32, u8);\n").unwrap();
    let listed = listing(dir.path(), "k");
    assert_eq!(
        listed,
        "mod k::a\n\
         struct k::a::B\n\
         field k::a::B.0: u32\n\
         use k: a::B as C\n\
         enum k::E #[non_exhaustive]\n\
         variant k::E::One\n\
         variant k::E::Two(u8)\n\
         variant k::E::Three { x: String }\n\
         struct k::S<T>\n\
         field k::S.shown: Vec<T>\n\
         fn k::S<T>::new(items: &[T]) -> Option<Self>\n\
         impl k: std::fmt::Display for E\n\
         const k::N: usize #[cfg(feature = \"x\")]\n\
         trait k::T\n\
         fn k::T::go(&mut self, at: std::time::Duration) -> bool\n",
        "{listed}"
    );
}
