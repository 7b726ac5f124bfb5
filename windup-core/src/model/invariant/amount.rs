//! Numbers and money read from text as a person reads them, in either common convention:
//! `$1,234.50`, `1.234,50 €`, `1 234,50`, `CHF 1'234.50`, `-$5.00`, `(5.00)`.

/// A number in `text`: the first run of digits with its sign, grouping and decimal separator.
/// An integer stays an integer; anything with a decimal part is a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

/// The first number written in `text`, if any.
pub fn parse_number(text: &str) -> Option<Number> {
    let found = scan(text, false)?;
    if found.fraction.is_empty() {
        let whole: i64 = found.whole.parse().ok()?;
        return Some(Number::Int(if found.negative { -whole } else { whole }));
    }
    let value: f64 = format!("{}.{}", found.whole, found.fraction).parse().ok()?;
    Some(Number::Float(if found.negative { -value } else { value }))
}

/// The first amount of money in `text`, in minor units (cents): `$1,234.50` is 123450 and
/// `1.234,50 €` is 123450. Exact integers, so that sums and products compare exactly.
pub fn parse_money(text: &str) -> Option<i64> {
    let found = scan(text, true)?;
    let whole: i64 = found.whole.parse().ok()?;
    let mut cents: String = found.fraction.chars().take(2).collect();
    while cents.len() < 2 {
        cents.push('0');
    }
    let cents: i64 = cents.parse().ok()?;
    let amount = whole.checked_mul(100)?.checked_add(cents)?;
    Some(if found.negative { -amount } else { amount })
}

/// Whether `text` shows a negative amount of money: a minus or parentheses around a number
/// next to a currency sign or code.
pub fn is_negative_money(text: &str) -> bool {
    has_currency(text) && parse_money(text).is_some_and(|amount| amount < 0)
}

fn has_currency(text: &str) -> bool {
    text.chars().any(is_currency_char)
        || [
            "USD", "EUR", "GBP", "CHF", "JPY", "SEK", "NOK", "DKK", "PLN", "CAD", "AUD",
        ]
        .iter()
        .any(|code| text.contains(code))
}

struct Found {
    negative: bool,
    whole: String,
    fraction: String,
}

/// Finds the first number and splits it into its whole digits and its decimal digits.
fn scan(text: &str, accounting: bool) -> Option<Found> {
    let chars: Vec<char> = text.chars().collect();
    let start = chars.iter().position(char::is_ascii_digit)?;
    // The number runs over digits and the separators that sit between digits.
    let mut end = start;
    while end < chars.len() {
        let c = chars[end];
        let between_digits =
            is_separator(c) && chars.get(end + 1).is_some_and(char::is_ascii_digit) && end > start;
        if c.is_ascii_digit() || between_digits {
            end += 1;
        } else {
            break;
        }
    }
    let negative = is_negative(&chars[..start], chars.get(end).filter(|_| accounting));
    let written: String = chars[start..end].iter().collect();
    let (whole, fraction) = split_decimal(&written);
    Some(Found {
        negative,
        whole: whole.chars().filter(char::is_ascii_digit).collect(),
        fraction,
    })
}

fn is_separator(c: char) -> bool {
    matches!(c, '.' | ',' | ' ' | '\u{a0}' | '\u{202f}' | '\'' | '’')
}

/// A minus sign (`-`, `−`) before the digits, with only currency signs and spaces between,
/// that is not a hyphen joining a word (`A-17`); or accounting parentheses: `($12.30)`.
fn is_negative(before: &[char], after: Option<&char>) -> bool {
    let mut at = before.len();
    while at > 0 && (before[at - 1].is_whitespace() || is_currency_char(before[at - 1])) {
        at -= 1;
    }
    // A currency code between sign and digits: `-USD 5`.
    while at > 0 && before[at - 1].is_ascii_uppercase() {
        at -= 1;
    }
    let Some(&sign) = at.checked_sub(1).and_then(|i| before.get(i)) else {
        return false;
    };
    match sign {
        '-' | '−' | '–' => !at
            .checked_sub(2)
            .and_then(|i| before.get(i))
            .is_some_and(|c| c.is_alphanumeric()),
        '(' => after == Some(&')'),
        _ => false,
    }
}

fn is_currency_char(c: char) -> bool {
    "$€£¥₹₩₽₺₪¢".contains(c)
}

/// Splits `1,234.50` / `1.234,50` / `1 234,5` / `1,234` into whole and decimal digits. The last
/// `.` or `,` is the decimal separator when both appear, or when the one that appears is
/// followed by other than exactly three digits, or appears once and is followed by 1–2 digits.
fn split_decimal(written: &str) -> (String, String) {
    let last_dot = written.rfind('.');
    let last_comma = written.rfind(',');
    let decimal_at = match (last_dot, last_comma) {
        (Some(d), Some(c)) => Some(d.max(c)),
        (Some(at), None) | (None, Some(at)) => {
            let mark = written.as_bytes()[at] as char;
            let digits_after = written[at + 1..].chars().count();
            let marks = written.matches(mark).count();
            (marks == 1 && digits_after != 3).then_some(at)
        }
        (None, None) => None,
    };
    match decimal_at {
        Some(at) => (written[..at].to_owned(), written[at + 1..].to_owned()),
        None => (written.to_owned(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_reads_both_conventions_in_minor_units() {
        let cases = [
            ("$1,234.50", Some(123_450)),
            ("1.234,50 €", Some(123_450)),
            ("1 234,50 €", Some(123_450)),
            ("1\u{a0}234,5", Some(123_450)),
            ("CHF 1'234.50", Some(123_450)),
            ("€12", Some(1_200)),
            ("$0.99", Some(99)),
            ("Total: $45.00", Some(4_500)),
            ("-$5.00", Some(-500)),
            ("$-5.00", Some(-500)),
            ("−5,00 €", Some(-500)),
            ("($12.30)", Some(-1_230)),
            ("1,234", Some(123_400)),
            ("1.234.567,89 €", Some(123_456_789)),
            ("free", None),
        ];
        for (text, cents) in cases {
            assert_eq!(parse_money(text), cents, "{text}");
        }
    }

    #[test]
    fn numbers_stay_integers_unless_they_have_a_decimal_part() {
        assert_eq!(parse_number("3 items left"), Some(Number::Int(3)));
        assert_eq!(parse_number("Qty: -2"), Some(Number::Int(-2)));
        assert_eq!(parse_number("1,234 visitors"), Some(Number::Int(1_234)));
        assert_eq!(parse_number("2,5 kg"), Some(Number::Float(2.5)));
        assert_eq!(parse_number("4.75"), Some(Number::Float(4.75)));
        assert_eq!(parse_number("none"), None);
        // A hyphen that joins words is not a sign, nor are parentheses around a count.
        assert_eq!(parse_number("order A-17"), Some(Number::Int(17)));
        assert_eq!(parse_number("Cart (3)"), Some(Number::Int(3)));
    }

    #[test]
    fn a_negative_amount_needs_a_currency() {
        assert!(is_negative_money("-$5.00"));
        assert!(is_negative_money("Total: -12,00 €"));
        assert!(!is_negative_money("-3"));
        assert!(!is_negative_money("$5.00"));
    }
}
