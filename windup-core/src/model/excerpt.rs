//! Text from outside (a request, a page, a provider's answer) quoted in a message or a listing,
//! cut so that one long value cannot flood a terminal, a log or an answer.

/// `text` whole when it has at most `most` characters; else its first `most`, then how long it
/// was.
pub fn cut(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((at, _)) => format!(
            "{}… ({} characters in all)",
            &text[..at],
            text.chars().count()
        ),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_at_a_character_and_says_how_long_it_was() {
        assert_eq!(cut("short", 5), "short");
        assert_eq!(cut("ééééé-long", 5), "ééééé… (10 characters in all)");
        assert_eq!(cut("", 0), "");
    }
}
