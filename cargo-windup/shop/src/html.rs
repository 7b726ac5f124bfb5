//! HTML building blocks: escaping, the page layout with its header, and fragments several
//! pages share. Pages are plain strings; every piece of user text goes through [`esc`].

use std::fmt::{self, Write as _};

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::catalogue::{Product, money};
use crate::markup::Names;
use crate::store::Totals;

/// Text made safe for HTML content and double- or single-quoted attribute values.
pub struct Esc<'a>(&'a str);

pub fn esc(text: &str) -> Esc<'_> {
    Esc(text)
}

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// What the shared header needs to know about the visitor.
pub struct Header {
    pub names: &'static Names,
    pub user: Option<String>,
    pub cart_count: i64,
}

impl Header {
    fn cart_link(&self) -> String {
        let n = self.names;
        format!(
            r#"<a href="/cart" data-testid="{}">Cart (<span data-testid="{}">{}</span>)</a>"#,
            n.cart_link, n.cart_count, self.cart_count
        )
    }

    fn render(&self) -> String {
        let n = self.names;
        let cart = self.cart_link();
        let search = r#"<form class="search" action="/search" method="get" role="search"><input type="search" name="q" placeholder="Search products" aria-label="Search"><button type="submit">Search</button></form>"#;
        let account = match &self.user {
            Some(user) => format!(
                r#"<span class="account">Signed in as {}</span><form class="logout" method="post" action="/logout"><button type="submit">Log out</button></form>"#,
                esc(user)
            ),
            None => r#"<a class="account" href="/login">Log in</a>"#.to_string(),
        };
        let (first, second) = if n.search_after_cart {
            (
                format!(r#"<span class="header-cart">{cart}</span>"#),
                search.to_string(),
            )
        } else {
            (
                search.to_string(),
                format!(r#"<span class="header-cart">{cart}</span>"#),
            )
        };
        format!(
            r#"<header class="site-header">
<nav class="{mobile}">{cart}</nav>
<div class="bar">
<a class="logo" href="/">Windup Shop</a>
<nav class="main-nav"><a href="/products">Products</a></nav>
{first}
{second}
{account}
</div>
</header>"#,
            mobile = n.mobile_nav_class,
        )
    }
}

/// A full HTML document with the shared header around `body`.
pub fn page(header: &Header, title: &str, body: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Windup Shop</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/shop.css">
<script src="/static/shop.js" defer></script>
</head>
<body>
{header}
<main>
{body}
</main>
<footer class="site-footer">Windup Shop is a demo store: nothing here is for sale.</footer>
</body>
</html>
"#,
        title = esc(title),
        header = header.render(),
    )
}

/// A page as a response with `status`.
pub fn respond(status: StatusCode, header: &Header, title: &str, body: &str) -> Response {
    (status, Html(page(header, title, body))).into_response()
}

/// The "not found" page.
pub fn not_found(header: &Header, heading: &str) -> Response {
    let body = format!(
        r#"<h1>{}</h1><p>Sorry, there is nothing here.</p><p><a href="/products">Browse products</a></p>"#,
        esc(heading)
    );
    respond(StatusCode::NOT_FOUND, header, heading, &body)
}

/// Problems with a submitted form, one alert each.
pub fn errors(names: &Names, problems: &[&str]) -> String {
    problems
        .iter()
        .map(|p| {
            format!(
                r#"<p class="{}" role="alert">{}</p>"#,
                names.error_class,
                esc(p)
            )
        })
        .collect()
}

/// A product card, as on the home, products and search pages.
pub fn product_card(names: &Names, product: &Product) -> String {
    let slug = product.slug;
    let (stock, disabled) = if product.in_stock {
        ("", "")
    } else {
        (r#"<p class="stock">Out of stock</p>"#, " disabled")
    };
    format!(
        r#"<article class="{class}" data-testid="{prefix}{slug}">
<h2><a href="/products/{slug}">{name}</a></h2>
<p class="{price_class}">{price}</p>
<p class="description">{description}</p>
{stock}<form method="post" action="/cart/add"><input type="hidden" name="slug" value="{slug}"><input type="hidden" name="qty" value="1"><button type="submit"{disabled}>Add to cart</button></form>
</article>"#,
        class = names.product_card_class,
        prefix = names.product_card_prefix,
        name = esc(product.name),
        price_class = names.price_class,
        price = money(product.price),
        description = esc(product.description),
    )
}

/// A grid of product cards.
pub fn product_grid<'a>(names: &Names, products: impl IntoIterator<Item = &'a Product>) -> String {
    let mut out = String::from(r#"<div class="grid">"#);
    for product in products {
        out.push_str(&product_card(names, product));
    }
    out.push_str("</div>");
    out
}

/// The test ids of a totals block; subtotal and discount are optional.
pub struct TotalsIds<'a> {
    pub subtotal: Option<&'a str>,
    pub discount: Option<&'a str>,
    pub total: &'a str,
}

fn testid(id: Option<&str>) -> String {
    id.map(|id| format!(r#" data-testid="{id}""#))
        .unwrap_or_default()
}

/// Subtotal, discount (when a coupon applies) and total.
pub fn totals(totals: &Totals, ids: &TotalsIds<'_>) -> String {
    let mut out = format!(
        r#"<p>Subtotal: <span{}>{}</span></p>"#,
        testid(ids.subtotal),
        money(totals.subtotal)
    );
    if !totals.codes.is_empty() {
        let _ = write!(
            out,
            r#"<p>Discount ({}): <span{}>-{}</span></p>"#,
            totals.codes.join(", "),
            testid(ids.discount),
            money(totals.discount)
        );
    }
    let _ = write!(
        out,
        r#"<p>Total: <strong data-testid="{}">{}</strong></p>"#,
        ids.total,
        money(totals.total)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_characters() {
        assert_eq!(
            esc(r#"<script>alert("x") & 'y'</script>"#).to_string(),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
        );
        assert_eq!(esc("plain café").to_string(), "plain café");
    }
}
