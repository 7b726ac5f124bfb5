//! The two markups the shop can render: the same pages and texts, with different ids,
//! test ids, classes and element order. Every name a page uses comes from [`Names`].

use std::fmt;
use std::str::FromStr;

/// Which markup the pages use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Markup {
    /// The documented ids and test ids.
    #[default]
    Standard,
    /// Same behaviour and texts; every id and test id renamed, some elements reordered.
    Renamed,
}

impl Markup {
    pub(crate) fn names(self) -> &'static Names {
        match self {
            Markup::Standard => &STANDARD,
            Markup::Renamed => &RENAMED,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Markup::Standard => "standard",
            Markup::Renamed => "renamed",
        }
    }
}

impl fmt::Display for Markup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A markup name that is neither `standard` nor `renamed`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown markup `{0}`; valid names are: standard, renamed")]
pub struct ParseMarkupError(pub String);

impl FromStr for Markup {
    type Err = ParseMarkupError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Markup::Standard, Markup::Renamed]
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseMarkupError(s.trim().to_string()))
    }
}

/// The ids, test ids, classes and ordering choices of one markup.
/// Fields ending in `_prefix` are completed with a product slug or an order number.
#[derive(Debug)]
pub(crate) struct Names {
    // Layout.
    pub mobile_nav_class: &'static str,
    pub cart_link: &'static str,
    pub cart_count: &'static str,
    pub search_after_cart: bool,
    pub button_class: &'static str,
    pub error_class: &'static str,
    pub hidden_class: &'static str,
    // Home.
    pub deal_id: &'static str,
    pub deal: &'static str,
    pub deal_link: &'static str,
    // Products.
    pub product_card_class: &'static str,
    pub product_card_prefix: &'static str,
    pub price_class: &'static str,
    pub price: &'static str,
    pub quantity_id: &'static str,
    pub add_to_cart: &'static str,
    // Cart.
    pub cart_line_prefix: &'static str,
    pub qty_prefix: &'static str,
    pub line_total_prefix: &'static str,
    pub cart_subtotal: &'static str,
    pub cart_discount: &'static str,
    pub cart_total: &'static str,
    pub coupon_id: &'static str,
    pub coupon_status: &'static str,
    pub checkout_button: &'static str,
    pub busy_overlay: &'static str,
    // Login.
    pub email_id: &'static str,
    pub password_id: &'static str,
    // Checkout.
    pub checkout_total: &'static str,
    pub name_id: &'static str,
    pub address_id: &'static str,
    pub address_first: bool,
    pub country_id: &'static str,
    pub terms_id: &'static str,
    pub checkbox_label_class: &'static str,
    pub place_order: &'static str,
    // Orders.
    pub order_number: &'static str,
    pub order_total: &'static str,
    pub order_row_prefix: &'static str,
    // Search.
    pub search_summary: &'static str,
}

static STANDARD: Names = Names {
    mobile_nav_class: "mobile-nav",
    cart_link: "cart-link",
    cart_count: "cart-count",
    search_after_cart: false,
    button_class: "button",
    error_class: "error",
    hidden_class: "visually-hidden",
    deal_id: "deal",
    deal: "deal-of-the-day",
    deal_link: "deal-link",
    product_card_class: "product-card",
    product_card_prefix: "product-card-",
    price_class: "price",
    price: "price",
    quantity_id: "quantity",
    add_to_cart: "add-to-cart",
    cart_line_prefix: "cart-line-",
    qty_prefix: "qty-",
    line_total_prefix: "line-total-",
    cart_subtotal: "cart-subtotal",
    cart_discount: "cart-discount",
    cart_total: "cart-total",
    coupon_id: "coupon",
    coupon_status: "coupon-status",
    checkout_button: "checkout-button",
    busy_overlay: "busy-overlay",
    email_id: "email",
    password_id: "password",
    checkout_total: "checkout-total",
    name_id: "name",
    address_id: "address",
    address_first: false,
    country_id: "country",
    terms_id: "terms",
    checkbox_label_class: "checkbox-label",
    place_order: "place-order",
    order_number: "order-number",
    order_total: "order-total",
    order_row_prefix: "order-row-",
    search_summary: "search-summary",
};

static RENAMED: Names = Names {
    mobile_nav_class: "compact-nav",
    cart_link: "basket-link",
    cart_count: "basket-count",
    search_after_cart: true,
    button_class: "btn",
    error_class: "problem",
    hidden_class: "sr-only",
    deal_id: "offer",
    deal: "daily-offer",
    deal_link: "offer-link",
    product_card_class: "tile",
    product_card_prefix: "item-tile-",
    price_class: "cost",
    price: "unit-cost",
    quantity_id: "qty-input",
    add_to_cart: "buy-now",
    cart_line_prefix: "basket-row-",
    qty_prefix: "amount-",
    line_total_prefix: "row-sum-",
    cart_subtotal: "basket-subtotal",
    cart_discount: "basket-discount",
    cart_total: "basket-total",
    coupon_id: "promo-code",
    coupon_status: "promo-feedback",
    checkout_button: "go-to-checkout",
    busy_overlay: "wait-veil",
    email_id: "login-email",
    password_id: "login-secret",
    checkout_total: "summary-total",
    name_id: "full-name",
    address_id: "street-address",
    address_first: true,
    country_id: "destination",
    terms_id: "accept-terms",
    checkbox_label_class: "tick-label",
    place_order: "submit-order",
    order_number: "confirmation-number",
    order_total: "confirmation-total",
    order_row_prefix: "history-row-",
    search_summary: "query-summary",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_markup_names() {
        assert_eq!("renamed".parse::<Markup>(), Ok(Markup::Renamed));
        assert_eq!("Standard".parse::<Markup>(), Ok(Markup::Standard));
        let err = "fancy".parse::<Markup>().unwrap_err();
        assert!(err.to_string().contains("standard, renamed"));
    }
}
