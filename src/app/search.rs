//! Search in a view of text rows (the log, the help, the timeline's bars): `/` types a
//! needle (case-insensitive), `]` and `[` go to the next and previous row that holds it,
//! and the status says where the selection is among the matches (`2 of 5`, or `no
//! match`). Plain state; each view gives the text of its rows and moves its own
//! selection to the row found.

use tui_input::{Input, InputRequest};

#[derive(Debug, Clone, Default)]
pub struct Search {
    pub input: Input,
    /// The needle is being typed: keys go to the text field.
    pub editing: bool,
}

impl PartialEq for Search {
    fn eq(&self, other: &Search) -> bool {
        self.input.value() == other.input.value() && self.editing == other.editing
    }
}

impl Eq for Search {}

impl Search {
    /// The needle, lower-cased; empty: no search.
    pub fn needle(&self) -> String {
        self.input.value().to_lowercase()
    }

    pub fn is_active(&self) -> bool {
        !self.input.value().is_empty()
    }

    pub fn edit(&mut self, req: InputRequest) {
        self.input.handle(req);
    }

    pub fn clear(&mut self) {
        self.input.reset();
        self.editing = false;
    }
}

/// Whether `text` holds the lower-cased `needle` (ignoring case).
pub fn holds(text: &str, needle: &str) -> bool {
    !needle.is_empty() && text.to_lowercase().contains(needle)
}

/// The rows (indices of `texts`) that hold `needle`.
pub fn matches<'a>(texts: impl IntoIterator<Item = &'a str>, needle: &str) -> Vec<usize> {
    texts
        .into_iter()
        .enumerate()
        .filter(|(_, t)| holds(t, needle))
        .map(|(i, _)| i)
        .collect()
}

/// The match after (`forward`) or before `at`, wrapping around; None without matches.
pub fn step<T: Ord + Copy>(found: &[T], at: T, forward: bool) -> Option<T> {
    if forward {
        found
            .iter()
            .copied()
            .find(|&i| i > at)
            .or(found.first().copied())
    } else {
        found
            .iter()
            .rev()
            .copied()
            .find(|&i| i < at)
            .or(found.last().copied())
    }
}

/// The status of a search: `"needle": k of n` when row `at` is the k-th match, `n
/// matches` when it is none of them, `no match` when there is none.
pub fn status<T: PartialEq>(needle: &str, found: &[T], at: T) -> String {
    let needle = crate::escape::escape(needle);
    match found.iter().position(|i| *i == at) {
        _ if found.is_empty() => format!("\"{needle}\": no match"),
        Some(k) => format!("\"{needle}\": {} of {}", k + 1, found.len()),
        None if found.len() == 1 => format!("\"{needle}\": 1 match"),
        None => format!("\"{needle}\": {} matches", found.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_wrap_and_status_counts() {
        let rows = ["alpha", "Beta", "gamma", "BETA two", "delta"];
        let found = matches(rows, "beta");
        assert_eq!(found, vec![1, 3]);
        assert_eq!(step(&found, 0, true), Some(1));
        assert_eq!(step(&found, 1, true), Some(3));
        assert_eq!(step(&found, 3, true), Some(1), "wraps to the first");
        assert_eq!(step(&found, 1, false), Some(3), "wraps to the last");
        assert_eq!(step::<usize>(&[], 1, false), None);
        assert_eq!(status("beta", &found, 3), "\"beta\": 2 of 2");
        assert_eq!(status("beta", &found, 0), "\"beta\": 2 matches");
        assert_eq!(status("zeta", &[], 0), "\"zeta\": no match");
        let escaped = status::<usize>("a\x1bb", &[], 0);
        assert!(!escaped.chars().any(char::is_control), "{escaped:?}");
    }
}
