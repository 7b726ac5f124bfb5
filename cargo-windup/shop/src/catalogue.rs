//! The fixed product catalogue, the coupons, and how money is shown.

/// Money in cents; signed because a buggy cart can go below zero.
pub type Cents = i64;

/// One product the shop sells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Product {
    pub slug: &'static str,
    pub name: &'static str,
    pub price: Cents,
    pub description: &'static str,
    pub in_stock: bool,
}

/// Every product, in display order.
pub const PRODUCTS: &[Product] = &[
    Product {
        slug: "rust-mug",
        name: "Rust mug",
        price: 1200,
        description: "A sturdy ceramic mug that keeps your coffee warm through long compile times.",
        in_stock: true,
    },
    Product {
        slug: "ferris-plush",
        name: "Ferris plush",
        price: 2450,
        description: "A soft, huggable Ferris the crab to sit on your desk and judge your unsafe blocks.",
        in_stock: true,
    },
    Product {
        slug: "borrow-checker-tshirt",
        name: "Borrow checker T-shirt",
        price: 1999,
        description: "A cotton T-shirt that proudly says you have argued with the borrow checker and won.",
        in_stock: true,
    },
    Product {
        slug: "async-hoodie",
        name: "Async hoodie",
        price: 4500,
        description: "A warm hoodie for developers who await nothing but the weekend.",
        in_stock: true,
    },
    Product {
        slug: "crab-sticker-pack",
        name: "Crab sticker pack",
        price: 350,
        description: "Ten weatherproof crab stickers for laptops, water bottles and code reviews.",
        in_stock: true,
    },
    Product {
        slug: "lifetime-poster",
        name: "Lifetime poster",
        price: 800,
        description: "A poster that explains lifetimes with diagrams and a little humour.",
        in_stock: false,
    },
];

/// Looks a product up by its slug.
pub fn product(slug: &str) -> Option<&'static Product> {
    PRODUCTS.iter().find(|p| p.slug == slug)
}

/// A discount code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coupon {
    /// WELCOME10: 10% off the subtotal.
    Welcome10,
    /// CRAB5: $5 off when the subtotal is at least $20.
    Crab5,
}

const CRAB5_MINIMUM: Cents = 2000;

impl Coupon {
    /// Finds a coupon by code, ignoring case and surrounding spaces.
    pub fn parse(code: &str) -> Option<Coupon> {
        let code = code.trim();
        if code.eq_ignore_ascii_case("WELCOME10") {
            Some(Coupon::Welcome10)
        } else if code.eq_ignore_ascii_case("CRAB5") {
            Some(Coupon::Crab5)
        } else {
            None
        }
    }

    /// The canonical, upper-case code.
    pub fn code(self) -> &'static str {
        match self {
            Coupon::Welcome10 => "WELCOME10",
            Coupon::Crab5 => "CRAB5",
        }
    }

    /// Why the coupon cannot be used on `subtotal`, if it cannot.
    pub fn refusal(self, subtotal: Cents) -> Option<String> {
        match self {
            Coupon::Crab5 if subtotal < CRAB5_MINIMUM => Some(format!(
                "Coupon CRAB5 needs a subtotal of at least {}",
                money(CRAB5_MINIMUM)
            )),
            _ => None,
        }
    }

    /// The discount this coupon gives on `subtotal` (never negative).
    pub fn discount(self, subtotal: Cents) -> Cents {
        if subtotal <= 0 {
            return 0;
        }
        match self {
            // 10%, rounded half up to the cent.
            Coupon::Welcome10 => (subtotal * 10 + 50) / 100,
            Coupon::Crab5 if subtotal >= CRAB5_MINIMUM => 500,
            Coupon::Crab5 => 0,
        }
    }
}

/// Formats cents as dollars: `$12.00`, `-$3.50`.
pub fn money(cents: Cents) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}${}.{:02}", abs / 100, abs % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_formats_dollars_and_cents() {
        assert_eq!(money(1200), "$12.00");
        assert_eq!(money(1999), "$19.99");
        assert_eq!(money(5), "$0.05");
        assert_eq!(money(-350), "-$3.50");
        assert_eq!(money(0), "$0.00");
    }

    #[test]
    fn coupons_are_case_insensitive_and_compute_discounts() {
        assert_eq!(Coupon::parse(" welcome10 "), Some(Coupon::Welcome10));
        assert_eq!(Coupon::parse("Crab5"), Some(Coupon::Crab5));
        assert_eq!(Coupon::parse("FREE"), None);
        assert_eq!(Coupon::Welcome10.discount(2450), 245);
        assert_eq!(Coupon::Welcome10.discount(1999), 200);
        assert_eq!(Coupon::Crab5.discount(1999), 0);
        assert_eq!(Coupon::Crab5.discount(2000), 500);
        assert!(Coupon::Crab5.refusal(1999).is_some());
        assert!(Coupon::Crab5.refusal(2000).is_none());
    }

    #[test]
    fn catalogue_has_one_product_out_of_stock() {
        assert_eq!(PRODUCTS.len(), 6);
        let out: Vec<_> = PRODUCTS.iter().filter(|p| !p.in_stock).collect();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].slug, "lifetime-poster");
        assert_eq!(product("rust-mug").map(|p| p.price), Some(1200));
    }
}
