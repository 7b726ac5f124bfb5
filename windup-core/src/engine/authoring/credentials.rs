//! Credentials typed into an instruction (`…, password hunter2`), taken out before anything
//! else sees it: the value is kept apart, the instruction goes on without it, and the scenario
//! will name it `account.KEY`.

use crate::model::secret::SecretValue;

/// Words that introduce a secret, and the account key each one's value is kept under.
const KEYWORDS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("pwd", "password"),
    ("passphrase", "password"),
    ("passcode", "passcode"),
    ("pin", "pin"),
    ("token", "token"),
    ("apikey", "api_key"),
    ("secret", "secret"),
];

/// Words between a keyword and its value (`password is x`, `password: x`).
const LINKS: &[&str] = &["is", "of", ":", "=", "-"];

/// Words left dangling once a credential is gone (`… and check it, with password`).
const DANGLING: &[&str] = &["with", "using", "and", "by", "via", "the", "my", "a"];

/// An instruction with its credentials taken out.
#[derive(Debug, PartialEq)]
pub struct Taken {
    /// The instruction without them.
    pub task: String,
    /// The account it speaks of (`as the demo user` → `demo`), when it names one.
    pub account: Option<String>,
    /// Each credential's account key and value.
    pub values: Vec<(String, SecretValue)>,
}

/// Takes the credentials out of `instruction`.
pub fn take(instruction: &str) -> Taken {
    let words: Vec<&str> = instruction.split_whitespace().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut values: Vec<(String, SecretValue)> = Vec::new();
    let mut index = 0;
    while index < words.len() {
        match credential(&words, index) {
            Some((key, value, next)) => {
                while kept
                    .last()
                    .is_some_and(|w| DANGLING.contains(&bare(w).as_str()))
                {
                    kept.pop();
                }
                // `…, password x.` leaves its punctuation to the word before it.
                if let (Some(last), Some(end)) = (kept.last_mut(), words[next - 1].chars().last())
                    && matches!(end, '.' | '!' | '?')
                {
                    let trimmed = last.trim_end_matches(',');
                    *last = trimmed;
                }
                if !values.iter().any(|(k, _)| *k == key) {
                    values.push((key, SecretValue::new(value)));
                }
                index = next;
            }
            None => {
                kept.push(words[index]);
                index += 1;
            }
        }
    }
    let task = kept.join(" ");
    let task = task.trim_end_matches([',', ';', ' ']).to_owned();
    Taken {
        account: account(&words),
        task,
        values,
    }
}

/// The key, the value and the index after it of a credential at `index`, if one starts there.
fn credential(words: &[&str], index: usize) -> Option<(String, String, usize)> {
    let word = words[index].to_lowercase();
    let (head, attached) = match word.split_once([':', '=']) {
        Some((head, rest)) => (head.to_owned(), Some(rest.to_owned())),
        None => (bare(&word), None),
    };
    let mut next = index + 1;
    let key = if head == "api" && words.get(next).is_some_and(|w| bare(w) == "key") {
        next += 1;
        "api_key"
    } else {
        KEYWORDS.iter().find(|(k, _)| *k == head)?.1
    };
    let value = match attached.filter(|rest| !rest.is_empty()) {
        // The value keeps its case: take it from the original word.
        Some(_) => words[index]
            .split_once([':', '='])
            .map(|(_, v)| v)?
            .to_owned(),
        None => {
            while words
                .get(next)
                .is_some_and(|w| LINKS.contains(&w.to_lowercase().as_str()))
            {
                next += 1;
            }
            let value = words.get(next)?.to_string();
            next += 1;
            value
        }
    };
    let value = value
        .trim_end_matches(['.', ',', ';', '!', '?', ')'])
        .trim_matches(['"', '\'', '`']);
    (!value.is_empty()).then(|| (key.to_owned(), value.to_owned(), next))
}

/// A word without the punctuation around it, lowercase.
fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The account an instruction names: `as the demo user`, `as admin`, `as user alice`.
fn account(words: &[&str]) -> Option<String> {
    let at = words.iter().position(|w| bare(w) == "as")?;
    let mut rest = words[at + 1..].iter().map(|w| bare(w));
    let mut name = rest.next()?;
    if matches!(name.as_str(), "the" | "a" | "an" | "user" | "account") {
        name = rest.next()?;
    }
    let valid = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !KEYWORDS.iter().any(|(k, _)| *k == name);
    valid.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(taken: &Taken) -> Vec<(&str, &str)> {
        taken
            .values
            .iter()
            .map(|(k, v)| (k.as_str(), v.expose()))
            .collect()
    }

    #[test]
    fn a_password_leaves_the_instruction_and_the_account_is_named() {
        let taken =
            take("log in as the demo user and check my past orders, password demo-password-123");
        assert_eq!(
            taken.task,
            "log in as the demo user and check my past orders"
        );
        assert_eq!(taken.account.as_deref(), Some("demo"));
        assert_eq!(values(&taken), [("password", "demo-password-123")]);
    }

    #[test]
    fn links_quotes_attached_values_and_dangling_words_are_handled() {
        let taken = take("Sign in with password: \"Hunter2!x\" and open settings.");
        assert_eq!(taken.task, "Sign in and open settings.");
        assert_eq!(values(&taken), [("password", "Hunter2!x")]);
        let taken = take("as admin, use token=AbC123 then API key is k-999.");
        assert_eq!(taken.account.as_deref(), Some("admin"));
        assert_eq!(values(&taken), [("token", "AbC123"), ("api_key", "k-999")]);
        assert!(!taken.task.contains("AbC123") && !taken.task.contains("k-999"));
    }

    #[test]
    fn an_instruction_without_credentials_is_left_as_it_is() {
        let taken = take("Search for mugs and open the first one");
        assert_eq!(taken.task, "Search for mugs and open the first one");
        assert_eq!(taken.values, Vec::new());
        assert_eq!(taken.account, None);
        // A keyword with nothing after it is no credential.
        assert_eq!(take("reset my password").task, "reset my password");
    }
}
