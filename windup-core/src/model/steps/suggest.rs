//! "Did you mean …?": the closest valid word to a typo.

/// The candidate closest to `word` when it is plausibly a typo of it (case-insensitive).
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word = word.to_lowercase();
    let len = word.chars().count();
    // Short words tolerate one edit, longer ones two; anything more is a different word.
    let limit = match len {
        0 => return None,
        1..=3 => 1,
        _ => 2,
    };
    candidates
        .iter()
        .map(|&c| (edit_distance(&word, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= limit && d < c.chars().count())
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// serde's ``unknown field `x`, expected one of `a`, `b` `` → (`x`, [`a`, `b`]).
pub(crate) fn parse_unknown_field(message: &str) -> Option<(String, Vec<&str>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, rest) = rest.split_once('`')?;
    let expected = rest.split('`').skip(1).step_by(2).collect();
    Some((key.to_owned(), expected))
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// adjacent characters each cost one (`stpes` is one edit from `steps`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_only_plausible_typos() {
        let keys = ["id", "task", "steps", "expect", "tags"];
        assert_eq!(closest("stpes", &keys), Some("steps"));
        assert_eq!(closest("Taks", &keys), Some("task"));
        assert_eq!(closest("expcet", &keys), Some("expect"));
        assert_eq!(closest("banana", &keys), None);
        assert_eq!(closest("", &keys), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
