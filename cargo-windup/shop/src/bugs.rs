//! The seeded bugs a shop can be started with, and how to name them on a command line.

use std::fmt;
use std::str::FromStr;

/// One deliberate, realistic mistake that can be switched on in the shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bug {
    /// Adding or updating a cart line accepts a quantity below 1.
    NegativeQuantity,
    /// The "coupon already applied" check is skipped, so discounts stack.
    CouponTwice,
    /// The cart total counts the last line at quantity 1.
    CartTotal,
    /// The search query is echoed into the page as raw HTML.
    SearchXss,
    /// Checkout neither disables its button nor checks the one-time token.
    DoubleSubmit,
    /// Checkout answers the POST with the confirmation page instead of redirecting.
    BackResubmit,
}

impl Bug {
    /// Every bug, in the order they are documented.
    pub const ALL: [Bug; 6] = [
        Bug::NegativeQuantity,
        Bug::CouponTwice,
        Bug::CartTotal,
        Bug::SearchXss,
        Bug::DoubleSubmit,
        Bug::BackResubmit,
    ];

    /// The kebab-case name used by `--bugs`.
    pub fn name(self) -> &'static str {
        match self {
            Bug::NegativeQuantity => "negative-quantity",
            Bug::CouponTwice => "coupon-twice",
            Bug::CartTotal => "cart-total",
            Bug::SearchXss => "search-xss",
            Bug::DoubleSubmit => "double-submit",
            Bug::BackResubmit => "back-resubmit",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Bug {
    type Err = ParseBugError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Bug::ALL
            .into_iter()
            .find(|bug| bug.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| ParseBugError {
                name: wanted.to_string(),
            })
    }
}

/// A name given to `--bugs` that is not a known bug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown bug `{name}`; valid names are: all, none, {}", valid_names())]
pub struct ParseBugError {
    /// The name as it was given.
    pub name: String,
}

fn valid_names() -> String {
    Bug::ALL.map(Bug::name).join(", ")
}

/// The set of bugs switched on; empty by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BugSet(u8);

impl BugSet {
    /// No bugs: the shop behaves correctly.
    pub fn none() -> Self {
        BugSet(0)
    }

    /// Every seeded bug at once.
    pub fn all() -> Self {
        Bug::ALL.into_iter().collect()
    }

    /// Whether `bug` is switched on.
    pub fn contains(&self, bug: Bug) -> bool {
        self.0 & bug.bit() != 0
    }

    /// Switches `bug` on.
    pub fn insert(&mut self, bug: Bug) {
        self.0 |= bug.bit();
    }

    /// Whether no bug is switched on.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The bugs switched on, in documented order.
    pub fn iter(&self) -> impl Iterator<Item = Bug> + '_ {
        Bug::ALL.into_iter().filter(|bug| self.contains(*bug))
    }
}

impl FromIterator<Bug> for BugSet {
    fn from_iter<I: IntoIterator<Item = Bug>>(iter: I) -> Self {
        let mut set = BugSet::none();
        for bug in iter {
            set.insert(bug);
        }
        set
    }
}

impl From<Bug> for BugSet {
    fn from(bug: Bug) -> Self {
        BugSet(bug.bit())
    }
}

/// Parses `all`, `none`, or a comma-separated list of bug names.
impl FromStr for BugSet {
    type Err = ParseBugError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(BugSet::all());
        }
        if s.eq_ignore_ascii_case("none") || s.is_empty() {
            return Ok(BugSet::none());
        }
        s.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::parse::<Bug>)
            .collect()
    }
}

impl fmt::Display for BugSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Bug::name).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_none_and_lists() {
        assert_eq!("all".parse::<BugSet>().unwrap(), BugSet::all());
        assert!("none".parse::<BugSet>().unwrap().is_empty());
        let set: BugSet = "cart-total, search-xss".parse().unwrap();
        assert!(set.contains(Bug::CartTotal));
        assert!(set.contains(Bug::SearchXss));
        assert!(!set.contains(Bug::CouponTwice));
        assert_eq!(set.to_string(), "cart-total,search-xss");
    }

    #[test]
    fn every_name_round_trips() {
        for bug in Bug::ALL {
            let set: BugSet = bug.name().parse().unwrap();
            assert_eq!(set, BugSet::from(bug));
            assert_eq!(set.iter().collect::<Vec<_>>(), vec![bug]);
        }
        assert_eq!(BugSet::all().iter().count(), 6);
    }

    #[test]
    fn unknown_name_lists_the_valid_ones() {
        let err = "cart-total,free-shipping".parse::<BugSet>().unwrap_err();
        assert_eq!(err.name, "free-shipping");
        let message = err.to_string();
        assert!(message.contains("`free-shipping`"), "{message}");
        for name in [
            "all",
            "none",
            "negative-quantity",
            "coupon-twice",
            "cart-total",
            "search-xss",
            "double-submit",
            "back-resubmit",
        ] {
            assert!(message.contains(name), "{message} lacks {name}");
        }
    }
}
