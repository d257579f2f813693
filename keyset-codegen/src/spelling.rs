//! Telling a misspelling from another word: the derive suggests `desc` for `dsec`, and leaves a
//! misspelled attribute (`#[srot(desc)]`) to rustc, which reports it, without reporting what its
//! absence would imply.

use syn::Ident;

/// Whether `word` is likely a misspelling of `name` (`srot` of `sort`, `DESC` of `desc`): the
/// same word in another case, or one within a few edits (a swap of two letters counts as one),
/// fewer for short words.
pub fn misspelling_of(word: &str, name: &str) -> bool {
    let (word, name) = (word.to_lowercase(), name.to_lowercase());
    word == name || edits(&word, &name) <= (name.chars().count() / 4).max(1)
}

/// "did you mean `desc`? " when `word` is a misspelling of one of `words`, or a longer form of
/// one (`descending`); else nothing.
pub fn did_you_mean(word: &str, words: &[&str]) -> String {
    let lower = word.to_lowercase();
    // The nearest; of two as near, the one that starts with the same letter (`dsc` is one edit
    // from `asc` too).
    let first = lower.chars().next();
    let rank = |name: &&&str| (edits(&lower, name), name.chars().next() != first);
    let near = words
        .iter()
        .filter(|name| misspelling_of(word, name))
        .min_by_key(rank)
        .or_else(|| words.iter().find(|name| name.len() >= 3 && lower.starts_with(*name)));
    match near {
        Some(name) => format!("did you mean `{name}`? "),
        None => String::new(),
    }
}

/// The edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of
/// two adjacent characters, each one edit.
pub fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows[i][j]: the distance between the first i characters of `a` and the first j of `b`.
    let mut rows = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best =
                (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// The name among `names` within two edits of `word`, if one is: the closest, and of those the
/// first in order.
pub fn closest<'n>(word: &str, names: impl Iterator<Item = &'n Ident>) -> Option<String> {
    names
        .map(|name| name.to_string())
        .map(|name| (edits(word, &name), name))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, edits, misspelling_of};

    #[test]
    fn swaps_count_once() {
        assert_eq!(edits("srot", "sort"), 1);
        assert_eq!(edits("tiebraker", "tiebreaker"), 1);
        assert_eq!(edits("dsec", "desc"), 1);
        assert_eq!(edits("", "asc"), 3);
    }

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("dsc", &["asc", "desc"]), "did you mean `desc`? ");
        assert_eq!(did_you_mean("Descending", &["asc", "desc"]), "did you mean `desc`? ");
        assert_eq!(did_you_mean("upward", &["asc", "desc"]), "");
    }

    #[test]
    fn misspellings() {
        for (word, name) in [("srot", "sort"), ("Sort", "sort"), ("tiebraker", "tiebreaker")] {
            assert!(misspelling_of(word, name), "{word} for {name}");
        }
        for (word, name) in [("serde", "sort"), ("doc", "sort"), ("diesel", "keyset")] {
            assert!(!misspelling_of(word, name), "{word} for {name}");
        }
    }
}

/// The order enum's variant for an order named `name`: `most_read` → `MostRead`.
pub fn variant_of(name: &str) -> String {
    let parts = name.split('_').filter(|part| !part.is_empty());
    let camel = parts.map(|part| {
        let mut chars = part.chars();
        let first = chars.next().map(|first| first.to_uppercase().collect::<String>());
        first.unwrap_or_default() + chars.as_str()
    });
    camel.collect()
}
