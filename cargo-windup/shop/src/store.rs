//! The shop's in-memory state: sessions, carts, checkouts and orders, and the business rules
//! (including the seeded bugs) that change them. No HTML here.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::bugs::{Bug, BugSet};
use crate::catalogue::{Cents, Coupon, Product};

/// The most of one product a cart line can hold.
pub const MAX_QUANTITY: i64 = 99;
/// How many rendered checkout forms a session remembers.
const CHECKOUTS_PER_SESSION: usize = 20;
/// The first order number handed out.
const FIRST_ORDER_ID: u64 = 1001;

/// The countries the checkout form offers.
pub const COUNTRIES: [&str; 4] = ["Portugal", "Germany", "United States", "Japan"];

pub const DEMO_EMAIL: &str = "demo@windup.test";
/// The demo account's password: public, like the shop.
pub const DEMO_PASSWORD: &str = "demo-password-123";

/// Whether `email` and `password` are the demo account's; returns the canonical email.
pub fn authenticate(email: &str, password: &str) -> Option<&'static str> {
    (email.trim().eq_ignore_ascii_case(DEMO_EMAIL) && password == DEMO_PASSWORD)
        .then_some(DEMO_EMAIL)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub product: &'static Product,
    pub qty: i64,
}

impl Line {
    pub fn total(&self) -> Cents {
        self.product.price * self.qty
    }
}

/// What a cart or an order adds up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Totals {
    pub subtotal: Cents,
    pub discount: Cents,
    pub total: Cents,
    /// The codes of the applied coupons, in the order they were applied.
    pub codes: Vec<&'static str>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cart {
    pub lines: Vec<Line>,
    pub coupons: Vec<Coupon>,
}

/// The quantity a request may set, after clamping.
fn accepted_quantity(requested: i64, bugs: BugSet) -> i64 {
    if bugs.contains(Bug::NegativeQuantity) {
        // Bug: only the upper bound is enforced (the lower one keeps the arithmetic sane).
        requested.clamp(-MAX_QUANTITY, MAX_QUANTITY)
    } else {
        requested.clamp(1, MAX_QUANTITY)
    }
}

impl Cart {
    /// The number of items, as shown in the header.
    pub fn count(&self) -> i64 {
        self.lines.iter().map(|line| line.qty).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn add(&mut self, product: &'static Product, requested: i64, bugs: BugSet) {
        let qty = accepted_quantity(requested, bugs);
        match self
            .lines
            .iter_mut()
            .find(|line| line.product.slug == product.slug)
        {
            Some(line) => line.qty = (line.qty + qty).min(MAX_QUANTITY),
            None => self.lines.push(Line { product, qty }),
        }
    }

    /// Sets a line's quantity; returns false when the product is not in the cart.
    pub fn update(&mut self, slug: &str, requested: i64, bugs: BugSet) -> bool {
        let qty = accepted_quantity(requested, bugs);
        match self.lines.iter_mut().find(|line| line.product.slug == slug) {
            Some(line) => {
                line.qty = qty;
                true
            }
            None => false,
        }
    }

    pub fn remove(&mut self, slug: &str) {
        self.lines.retain(|line| line.product.slug != slug);
        if self.lines.is_empty() {
            self.coupons.clear();
        }
    }

    fn subtotal(&self, bugs: BugSet) -> Cents {
        if bugs.contains(Bug::CartTotal) {
            // Bug: the last line is priced once, whatever its quantity.
            let last = self.lines.len().saturating_sub(1);
            self.lines
                .iter()
                .enumerate()
                .map(|(i, line)| {
                    if i == last {
                        line.product.price
                    } else {
                        line.total()
                    }
                })
                .sum()
        } else {
            self.lines.iter().map(Line::total).sum()
        }
    }

    pub fn totals(&self, bugs: BugSet) -> Totals {
        let subtotal = self.subtotal(bugs);
        let discount: Cents = self.coupons.iter().map(|c| c.discount(subtotal)).sum();
        let discount = discount.min(subtotal.max(0));
        Totals {
            subtotal,
            discount,
            total: subtotal - discount,
            codes: self.coupons.iter().map(|c| c.code()).collect(),
        }
    }

    /// Applies a coupon code; the error is the message shown to the shopper.
    pub fn apply_coupon(&mut self, code: &str, bugs: BugSet) -> Result<Coupon, String> {
        if code.trim().is_empty() {
            return Err("Please enter a coupon code".to_string());
        }
        let coupon = Coupon::parse(code).ok_or_else(|| "Unknown coupon code".to_string())?;
        if self.is_empty() {
            return Err("Your cart is empty".to_string());
        }
        let already = self.coupons.contains(&coupon);
        if already && !bugs.contains(Bug::CouponTwice) {
            return Err("Coupon already applied".to_string());
        }
        if let Some(refusal) = coupon.refusal(self.subtotal(bugs)) {
            return Err(refusal);
        }
        if !already {
            // One coupon at a time: a different code replaces the current one.
            self.coupons.clear();
        }
        self.coupons.push(coupon);
        Ok(coupon)
    }
}

/// A placed order.
#[derive(Debug, Clone)]
pub struct Order {
    pub id: u64,
    pub owner: String,
    pub lines: Vec<Line>,
    pub totals: Totals,
    pub name: String,
    pub address: String,
    pub country: String,
    pub placed_on: String,
}

/// A rendered checkout form: its one-time token and the cart its summary showed.
#[derive(Debug, Clone)]
struct Checkout {
    token: String,
    cart: Cart,
    order: Option<u64>,
}

#[derive(Debug, Default)]
pub struct Session {
    pub user: Option<String>,
    pub cart: Cart,
    /// A coupon message to show once on the next cart page (the no-JS coupon form).
    pub coupon_flash: Option<String>,
    checkouts: VecDeque<Checkout>,
}

/// What the shopper typed into the checkout form.
#[derive(Debug, Clone, Default)]
pub struct ShippingDetails {
    pub name: String,
    pub address: String,
    pub country: String,
    pub terms: bool,
}

impl ShippingDetails {
    /// The problems with these details, as messages for the shopper.
    pub fn problems(&self) -> Vec<&'static str> {
        let mut problems = Vec::new();
        if self.name.trim().is_empty() {
            problems.push("Please enter your full name");
        }
        if self.address.trim().is_empty() {
            problems.push("Please enter your address");
        }
        if !COUNTRIES.contains(&self.country.as_str()) {
            problems.push("Please choose a country");
        }
        if !self.terms {
            problems.push("Please accept the terms");
        }
        problems
    }
}

/// What submitting the checkout form led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckoutOutcome {
    /// A new order was created.
    Placed(u64),
    /// The token was already used for this order; nothing was created.
    AlreadyPlaced(u64),
    /// The form has problems; nothing was created.
    Invalid(Vec<&'static str>),
    /// The token is not one this session was given.
    Expired,
    /// There is nothing to order.
    EmptyCart,
}

/// Everything the shop remembers, behind one mutex.
#[derive(Debug)]
pub struct Store {
    sessions: HashMap<String, Session>,
    orders: Vec<Order>,
    next_order_id: u64,
    next_id: u64,
    started_nanos: u128,
    hasher: RandomState,
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Store {
    pub fn new() -> Self {
        let started_nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        Store {
            sessions: HashMap::new(),
            orders: Vec::new(),
            next_order_id: FIRST_ORDER_ID,
            next_id: 0,
            started_nanos,
            hasher: RandomState::new(),
        }
    }

    /// Returns the id of the session named by `cookie`, creating a session when there is none
    /// (or it is unknown); the flag says whether it was created.
    pub fn ensure_session(&mut self, cookie: Option<&str>) -> (String, bool) {
        if let Some(id) = cookie.filter(|id| self.sessions.contains_key(*id)) {
            return (id.to_string(), false);
        }
        self.next_id += 1;
        let id = format!("{:x}-{}", self.started_nanos, self.next_id);
        self.sessions.insert(id.clone(), Session::default());
        (id, true)
    }

    /// The session `id`; a missing one (never expected behind the session layer) starts empty.
    pub fn session(&mut self, id: &str) -> &mut Session {
        self.sessions.entry(id.to_string()).or_default()
    }

    /// Records a checkout form for the session's current cart and returns its one-time token.
    pub fn issue_checkout_token(&mut self, session_id: &str) -> String {
        self.next_id += 1;
        let token = format!(
            "{:016x}",
            self.hasher
                .hash_one((self.started_nanos, self.next_id, session_id))
        );
        let session = self.session(session_id);
        let checkout = Checkout {
            token: token.clone(),
            cart: session.cart.clone(),
            order: None,
        };
        if session.checkouts.len() >= CHECKOUTS_PER_SESSION {
            session.checkouts.pop_front();
        }
        session.checkouts.push_back(checkout);
        token
    }

    /// Turns a submitted checkout form into an order, if the token and details allow it.
    pub fn place_order(
        &mut self,
        session_id: &str,
        token: &str,
        details: &ShippingDetails,
        bugs: BugSet,
        today: &str,
    ) -> CheckoutOutcome {
        let order_id = self.next_order_id;
        let session = self.sessions.entry(session_id.to_string()).or_default();
        let Some(owner) = session.user.clone() else {
            return CheckoutOutcome::Expired;
        };
        let Some(checkout) = session.checkouts.iter_mut().find(|c| c.token == token) else {
            return if session.cart.is_empty() {
                CheckoutOutcome::EmptyCart
            } else {
                CheckoutOutcome::Expired
            };
        };
        let checks_token = !(bugs.contains(Bug::DoubleSubmit) || bugs.contains(Bug::BackResubmit));
        if let Some(existing) = checkout.order.filter(|_| checks_token) {
            return CheckoutOutcome::AlreadyPlaced(existing);
        }
        let mut problems = details.problems();
        if checkout.cart.is_empty() {
            problems.push("Your cart is empty");
        }
        if !problems.is_empty() {
            return CheckoutOutcome::Invalid(problems);
        }
        checkout.order = Some(order_id);
        let order = Order {
            id: order_id,
            owner,
            lines: checkout.cart.lines.clone(),
            totals: checkout.cart.totals(bugs),
            name: details.name.trim().to_string(),
            address: details.address.trim().to_string(),
            country: details.country.clone(),
            placed_on: today.to_string(),
        };
        session.cart = Cart::default();
        self.next_order_id += 1;
        self.orders.push(order);
        CheckoutOutcome::Placed(order_id)
    }

    /// The order `id`, if `user` placed it.
    pub fn order_for(&self, user: &str, id: u64) -> Option<&Order> {
        self.orders.iter().find(|o| o.id == id && o.owner == user)
    }

    /// The orders `user` placed, newest first.
    pub fn orders_of<'a>(&'a self, user: &'a str) -> impl Iterator<Item = &'a Order> + 'a {
        self.orders.iter().rev().filter(move |o| o.owner == user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::product;

    fn mug() -> &'static Product {
        product("rust-mug").unwrap()
    }

    fn plush() -> &'static Product {
        product("ferris-plush").unwrap()
    }

    fn details() -> ShippingDetails {
        ShippingDetails {
            name: "Ada".into(),
            address: "1 Main St".into(),
            country: "Japan".into(),
            terms: true,
        }
    }

    #[test]
    fn quantities_are_clamped_unless_the_bug_is_on() {
        let mut cart = Cart::default();
        cart.add(mug(), -3, BugSet::none());
        cart.add(plush(), 500, BugSet::none());
        assert_eq!(cart.lines[0].qty, 1);
        assert_eq!(cart.lines[1].qty, 99);

        let mut buggy = Cart::default();
        buggy.add(mug(), -3, Bug::NegativeQuantity.into());
        assert_eq!(buggy.lines[0].qty, -3);
        assert_eq!(buggy.totals(Bug::NegativeQuantity.into()).total, -3600);
    }

    #[test]
    fn cart_total_bug_prices_the_last_line_once() {
        let mut cart = Cart::default();
        cart.add(plush(), 1, BugSet::none());
        cart.add(mug(), 2, BugSet::none());
        assert_eq!(cart.totals(BugSet::none()).total, 2450 + 2400);
        assert_eq!(cart.totals(Bug::CartTotal.into()).total, 2450 + 1200);
    }

    #[test]
    fn coupons_replace_each_other_and_stack_only_with_the_bug() {
        let mut cart = Cart::default();
        cart.add(plush(), 1, BugSet::none());
        assert_eq!(
            cart.apply_coupon("welcome10", BugSet::none()),
            Ok(Coupon::Welcome10)
        );
        assert_eq!(
            cart.apply_coupon("WELCOME10", BugSet::none()),
            Err("Coupon already applied".to_string())
        );
        assert_eq!(
            cart.apply_coupon("CRAB5", BugSet::none()),
            Ok(Coupon::Crab5)
        );
        assert_eq!(cart.totals(BugSet::none()).discount, 500);

        let bug = BugSet::from(Bug::CouponTwice);
        let mut buggy = Cart::default();
        buggy.add(plush(), 1, bug);
        buggy.apply_coupon("WELCOME10", bug).unwrap();
        buggy.apply_coupon("WELCOME10", bug).unwrap();
        assert_eq!(buggy.totals(bug).discount, 490);
    }

    #[test]
    fn a_token_places_one_order_unless_a_bug_skips_the_check() {
        for (bugs, expected_orders) in [
            (BugSet::none(), 1),
            (BugSet::from(Bug::DoubleSubmit), 2),
            (BugSet::from(Bug::BackResubmit), 2),
        ] {
            let mut store = Store::new();
            let (sid, created) = store.ensure_session(None);
            assert!(created);
            store.session(&sid).user = Some(DEMO_EMAIL.into());
            store.session(&sid).cart.add(mug(), 2, bugs);
            let token = store.issue_checkout_token(&sid);
            let first = store.place_order(&sid, &token, &details(), bugs, "2025-01-01");
            assert_eq!(first, CheckoutOutcome::Placed(1001));
            assert!(store.session(&sid).cart.is_empty());
            let second = store.place_order(&sid, &token, &details(), bugs, "2025-01-01");
            assert_eq!(
                store.orders_of(DEMO_EMAIL).count(),
                expected_orders,
                "{bugs}"
            );
            if expected_orders == 1 {
                assert_eq!(second, CheckoutOutcome::AlreadyPlaced(1001));
            }
        }
    }

    #[test]
    fn checkout_reports_problems_and_unknown_tokens() {
        let mut store = Store::new();
        let (sid, _) = store.ensure_session(None);
        store.session(&sid).user = Some(DEMO_EMAIL.into());
        let outcome = store.place_order(&sid, "nope", &details(), BugSet::none(), "d");
        assert_eq!(outcome, CheckoutOutcome::EmptyCart);
        store.session(&sid).cart.add(mug(), 1, BugSet::none());
        let outcome = store.place_order(&sid, "nope", &details(), BugSet::none(), "d");
        assert_eq!(outcome, CheckoutOutcome::Expired);
        let token = store.issue_checkout_token(&sid);
        let blank = ShippingDetails::default();
        let CheckoutOutcome::Invalid(problems) =
            store.place_order(&sid, &token, &blank, BugSet::none(), "d")
        else {
            panic!("expected problems");
        };
        assert!(problems.contains(&"Please accept the terms"));
        assert!(problems.contains(&"Please enter your full name"));
        assert!(store.order_for(DEMO_EMAIL, 1001).is_none());
    }

    #[test]
    fn only_the_demo_account_authenticates() {
        assert_eq!(
            authenticate(" Demo@Windup.test", "demo-password-123"),
            Some(DEMO_EMAIL)
        );
        assert_eq!(authenticate("demo@windup.test", "wrong"), None);
    }
}
