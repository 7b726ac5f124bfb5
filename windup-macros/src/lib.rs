//! Procedural macros for Windup. They expand only to calls into `windup::__private`.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{ItemFn, spanned::Spanned};

/// Turns an async setup function into the `main` of a `harness = false` test target that runs
/// every scenario under `scenarios/` as a test.
///
/// ```text
/// #[windup::main]
/// async fn setup() -> windup::Setup {
///     let app = my_app::spawn().await;          // start the app under test
///     windup::Setup::new(app.url()).with_guard(app)
/// }
/// ```
///
/// The function takes no arguments and returns a `windup::Setup` (or a `Result` of one); it runs
/// once, and only when some scenario runs.
#[proc_macro_attribute]
pub fn main(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr.into(), item.into()).into()
}

fn expand(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    if !attr.is_empty() {
        return syn::Error::new(attr.span(), "#[windup::main] takes no arguments")
            .to_compile_error();
    }
    let function: ItemFn = match syn::parse2(item) {
        Ok(function) => function,
        Err(_) => {
            return syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[windup::main] goes on an `async fn` that returns a windup::Setup",
            )
            .to_compile_error();
        }
    };
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return syn::Error::new(
            signature.fn_token.span(),
            "#[windup::main] goes on an `async fn` that returns a windup::Setup",
        )
        .to_compile_error();
    }
    if !signature.inputs.is_empty() {
        return syn::Error::new(
            signature.inputs.span(),
            "the setup function of #[windup::main] takes no arguments",
        )
        .to_compile_error();
    }
    if signature.ident == "main" {
        return syn::Error::new(
            signature.ident.span(),
            "name the setup function something other than `main`: #[windup::main] writes `main` itself",
        )
        .to_compile_error();
    }
    let name = &signature.ident;
    quote! {
        #function

        fn main() -> ::std::process::ExitCode {
            ::windup::__private::harness_main(::std::env!("CARGO_MANIFEST_DIR"), #name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: &str, item: &str) -> String {
        expand(attr.parse().unwrap(), item.parse().unwrap()).to_string()
    }

    #[test]
    fn an_async_setup_becomes_the_harness_main() {
        let out = expanded(
            "",
            "async fn setup() -> windup::Setup { windup::Setup::from_config() }",
        );
        assert!(out.contains("async fn setup ()"), "{out}");
        assert!(
            out.contains("fn main () -> :: std :: process :: ExitCode"),
            "{out}"
        );
        assert!(
            out.contains(":: windup :: __private :: harness_main (:: std :: env ! (\"CARGO_MANIFEST_DIR\") , setup)"),
            "{out}"
        );
    }

    #[test]
    fn misuse_is_a_compile_error_that_says_what_to_do() {
        let cases = [
            (
                "",
                "fn setup() -> windup::Setup { todo!() }",
                "goes on an `async fn`",
            ),
            (
                "",
                "async fn setup(port: u16) -> windup::Setup { todo!() }",
                "takes no arguments",
            ),
            (
                "",
                "async fn main() -> windup::Setup { todo!() }",
                "something other than `main`",
            ),
            (
                "workers = 2",
                "async fn setup() -> windup::Setup { todo!() }",
                "takes no arguments",
            ),
            ("", "struct NotAFunction;", "goes on an `async fn`"),
        ];
        for (attr, item, said) in cases {
            let out = expanded(attr, item);
            assert!(out.contains("compile_error"), "{item}: {out}");
            assert!(out.contains(said), "{item}: {out}");
        }
    }
}
