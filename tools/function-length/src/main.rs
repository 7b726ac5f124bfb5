//! No function outside tests is longer than 80 lines, in windup-core or cargo-windup: a long
//! function is several responsibilities that want names. Parsed with `syn`, not counted by eye.
//!
//! `cargo run --manifest-path tools/function-length/Cargo.toml` from anywhere checks the
//! repository's sources (CI runs it beside clippy); directories given as arguments are checked
//! instead. It prints each long function and exits 1 when there is one.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

const LIMIT: usize = 80;

struct Lengths<'a> {
    file: &'a str,
    long: Vec<String>,
}

impl Lengths<'_> {
    fn check(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        if lines > LIMIT {
            self.long.push(format!(
                "{}:{}: fn {name} is {lines} lines",
                self.file,
                span.start().line
            ));
        }
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        path.is_ident("test")
            || path.segments.last().is_some_and(|s| s.ident == "test")
            || (path.is_ident("cfg")
                && attr
                    .parse_args::<syn::Ident>()
                    .is_ok_and(|ident| ident == "test"))
    })
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test(&item.attrs) {
            use syn::spanned::Spanned;
            self.check(&item.sig.ident, item.span());
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test(&item.attrs) {
            use syn::spanned::Spanned;
            self.check(&item.sig.ident, item.span());
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        use syn::spanned::Spanned;
        self.check(&item.sig.ident, item.span());
        syn::visit::visit_trait_item_fn(self, item);
    }
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            files.push(path);
        }
    }
}

/// Every function over the limit under these source directories.
fn long_functions(dirs: &[PathBuf]) -> Vec<String> {
    let mut files = Vec::new();
    for dir in dirs {
        collect(dir, &mut files);
    }
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable file");
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let shown = file.display().to_string();
        let mut lengths = Lengths {
            file: &shown,
            long: Vec::new(),
        };
        lengths.visit_file(&syntax);
        long.extend(lengths.long);
    }
    long
}

fn main() -> std::process::ExitCode {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        dirs = vec![repo.join("windup-core/src"), repo.join("cargo-windup/src")];
    }
    let long = long_functions(&dirs);
    if long.is_empty() {
        return std::process::ExitCode::SUCCESS;
    }
    eprintln!("functions over {LIMIT} lines:\n{}", long.join("\n"));
    std::process::ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_has_no_function_over_the_limit() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let long = long_functions(&[repo.join("windup-core/src"), repo.join("cargo-windup/src")]);
        assert!(long.is_empty(), "{}", long.join("\n"));
    }

    #[test]
    fn a_long_function_is_found() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let body = "    let x = 1;\n".repeat(LIMIT);
        std::fs::write(
            dir.path().join("long.rs"),
            format!("fn short() {{}}\nfn long() {{\n{body}}}\n#[cfg(test)]\nmod tests {{ fn long_test() {{\n{body}}} }}\n"),
        )
        .expect("written");
        let long = long_functions(&[dir.path().to_owned()]);
        assert_eq!(long.len(), 1, "{long:?}");
        assert!(long[0].contains("fn long is 82 lines"), "{}", long[0]);
    }
}
