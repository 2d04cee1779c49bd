//! The one key language of the program: every key and what it means, written once. Each
//! view's key table (`app::keymap`) binds keys of this table only, to commands of that
//! meaning; a view may leave a meaning out, never give its key another one
//! (`keymap::tests::no_key_has_two_meanings` walks every view's table).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key as the tables write it: a code and the modifiers that matter (Ctrl).
pub type Key = (KeyCode, KeyModifiers);

pub const N: KeyModifiers = KeyModifiers::NONE;
pub const C: KeyModifiers = KeyModifiers::CONTROL;

pub const fn ch(c: char) -> Key {
    (KeyCode::Char(c), N)
}

pub const fn ctrl(c: char) -> Key {
    (KeyCode::Char(c), C)
}

pub const fn code(k: KeyCode) -> Key {
    (k, N)
}

/// What a key means, in every view that binds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Meaning {
    Move,
    Sideways,
    Page,
    Ends,
    Pane,
    Open,
    Back,
    Quit,
    Help,
    Filter,
    Match,
    Sort,
    SortReverse,
    SortColumn,
    Copy,
    Timeline,
    Types,
    /// The flame graph.
    Flame,
    /// Which time the widths of a graph stand for (median run or sum of runs; A or B).
    Weighting,
    /// A flame graph's sandwich: one name's callers and callees.
    Sandwich,
    /// Reserved for the modules view.
    Modules,
    Warmup,
    FoldAll,
    AllScopes,
    Reveal,
    Log,
    Section,
    Runs,
    Baseline,
    CompareBaseline,
    Zoom,
    Pan,
    Fit,
    PickRun,
    Swap,
    Unchanged,
    /// Text fields: delete a character.
    Delete,
}

/// One meaning: its keys and what it is, in a word or two.
pub struct KeyMeaning {
    pub meaning: Meaning,
    pub keys: &'static [Key],
    pub what: &'static str,
}

const fn m(meaning: Meaning, keys: &'static [Key], what: &'static str) -> KeyMeaning {
    KeyMeaning {
        meaning,
        keys,
        what,
    }
}

/// The sort keys of the operator table's columns: the bracketed letter of each title,
/// shifted (`[M]edian`: M).
pub const SORT_COLUMN_KEYS: &[Key] = &[
    ch('O'),
    ch('D'),
    ch('T'),
    ch('C'),
    ch('M'),
    ch('I'),
    ch('X'),
    ch('P'),
    ch('R'),
    ch('H'),
    ch('F'),
    ch('L'),
    ch('U'),
    ch('A'),
    ch('Y'),
    ch('V'),
    ch('B'),
    ch('K'),
];

/// The key language: every key bound anywhere, with its one meaning.
pub static LANGUAGE: &[KeyMeaning] = &[
    m(
        Meaning::Move,
        &[ch('j'), code(KeyCode::Down), ch('k'), code(KeyCode::Up)],
        "move down / up",
    ),
    m(
        Meaning::Sideways,
        &[ch('h'), code(KeyCode::Left), ch('l'), code(KeyCode::Right)],
        "left / right",
    ),
    m(
        Meaning::Page,
        &[
            code(KeyCode::PageDown),
            ctrl('d'),
            code(KeyCode::PageUp),
            ctrl('u'),
            ch(' '),
        ],
        "a page down / up (Space: down, in the views that page)",
    ),
    m(
        Meaning::Ends,
        &[ch('g'), code(KeyCode::Home), ch('G'), code(KeyCode::End)],
        "first / last",
    ),
    m(
        Meaning::Pane,
        &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        "next / previous pane",
    ),
    m(
        Meaning::Open,
        &[code(KeyCode::Enter)],
        "open the selected, confirm",
    ),
    m(
        Meaning::Back,
        &[code(KeyCode::Esc)],
        "back one level (never quits)",
    ),
    m(Meaning::Quit, &[ch('q'), ctrl('c')], "quit, from any view"),
    m(Meaning::Help, &[ch('?')], "help"),
    m(Meaning::Filter, &[ch('/')], "filter by name"),
    m(Meaning::Match, &[ch(']'), ch('[')], "next / previous match"),
    m(Meaning::Sort, &[ch('s')], "next sort"),
    m(Meaning::SortReverse, &[ch('S')], "reverse the sort"),
    m(Meaning::SortColumn, SORT_COLUMN_KEYS, "sort by a column"),
    m(Meaning::Copy, &[ch('c')], "copy"),
    m(Meaning::Timeline, &[ch('t')], "timeline"),
    m(Meaning::Types, &[ch('o')], "operator types"),
    m(Meaning::Flame, &[ch('f')], "flame graph"),
    m(Meaning::Weighting, &[ch('%')], "what the widths stand for"),
    m(Meaning::Sandwich, &[ch('i')], "callers and callees"),
    m(Meaning::Modules, &[ch('m')], "modules"),
    m(
        Meaning::Warmup,
        &[ch('+'), ch('='), ch('-')],
        "warm-up runs",
    ),
    m(
        Meaning::FoldAll,
        &[ch('e'), ch('E')],
        "expand / collapse all",
    ),
    m(Meaning::AllScopes, &[ch('a')], "all delegates"),
    m(Meaning::Reveal, &[ch('r')], "reveal in the tree"),
    m(Meaning::Log, &[ch('w')], "warnings & log"),
    m(Meaning::Section, &[ch('v')], "next section"),
    m(
        Meaning::Runs,
        &[ch('n'), ch('p'), ch('N')],
        "next / previous / newest run",
    ),
    m(Meaning::Baseline, &[ch('b')], "baseline run"),
    m(
        Meaning::CompareBaseline,
        &[ch('d')],
        "compare with the baseline",
    ),
    m(Meaning::Zoom, &[ch('z'), ch('Z')], "zoom in / out"),
    m(
        Meaning::Pan,
        &[ch('<'), ch(','), ch('>'), ch('.')],
        "pan left / right",
    ),
    m(Meaning::Fit, &[ch('0')], "fit the whole in view"),
    m(
        Meaning::PickRun,
        &[ch('W'), ch('~')],
        "slowest / median run",
    ),
    m(Meaning::Swap, &[ch('x')], "swap the two sides"),
    m(Meaning::Unchanged, &[ch('u')], "hide / show unchanged rows"),
    m(
        Meaning::Delete,
        &[code(KeyCode::Backspace), code(KeyCode::Delete)],
        "delete a character (text fields); outside one, back (where a view says so)",
    ),
];

/// The meaning `key` has in the language, if it has one.
pub fn meaning_of(key: Key) -> Option<Meaning> {
    LANGUAGE
        .iter()
        .find(|km| km.keys.contains(&key))
        .map(|km| km.meaning)
}

/// Shift is part of the character (`G`, `?`, `+`), so it is ignored for `Char` keys.
pub fn matches(key: &KeyEvent, (code, mods): Key) -> bool {
    let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
    match (key.code, code) {
        (KeyCode::Char(a), KeyCode::Char(b)) => a == b && (key.modifiers & relevant) == mods,
        (a, b) => a == b && (key.modifiers & relevant) == (mods & relevant),
    }
}

/// How a key is written in help and hints.
pub fn key_label((code, mods): Key) -> String {
    let base = match code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "Shift-Tab".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Del".into(),
        other => format!("{other:?}"),
    };
    if mods.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_gives_each_key_one_meaning() {
        let mut seen = std::collections::HashMap::new();
        for km in LANGUAGE {
            for k in km.keys {
                if let Some(other) = seen.insert(*k, km.meaning) {
                    panic!(
                        "{} means both {other:?} and {:?}",
                        key_label(*k),
                        km.meaning
                    );
                }
            }
        }
        // The keys the issue fixes for everyone.
        for (k, want) in [
            (ch('q'), Meaning::Quit),
            (code(KeyCode::Esc), Meaning::Back),
            (ch('?'), Meaning::Help),
            (ch('/'), Meaning::Filter),
            (ch('c'), Meaning::Copy),
            (ch('t'), Meaning::Timeline),
            (ch('o'), Meaning::Types),
            (ch('f'), Meaning::Flame),
            (ch('m'), Meaning::Modules),
            (ch('+'), Meaning::Warmup),
            (ch('-'), Meaning::Warmup),
            (ch('s'), Meaning::Sort),
            (ch(']'), Meaning::Match),
            (code(KeyCode::Enter), Meaning::Open),
        ] {
            assert_eq!(meaning_of(k), Some(want), "{}", key_label(k));
        }
    }
}
