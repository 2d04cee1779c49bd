//! Each view's key table, drawn from the one key language (`app::keys`). The same tables
//! dispatch keys (`lookup`) and write the help (`help_lines`), so help can never drift
//! from behaviour, and a test holds every table to the language: a key means one thing
//! in every view that binds it.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::InputRequest;

use super::column::Column;
use super::keys::matches;

pub use super::command::{Command, ViewKind};
pub use super::key_tables::{bindings, Binding};
pub use super::keys::key_label;

/// The command bound to `key` in `kind`'s table. In filter input, unbound printable
/// characters are typed into the filter.
pub fn lookup(kind: ViewKind, key: &KeyEvent) -> Option<Command> {
    for b in bindings(kind) {
        if b.keys.iter().any(|k| matches(key, *k)) {
            if let (Command::SortColumn(_), KeyCode::Char(c)) = (b.command, key.code) {
                return Column::for_key(c).map(Command::SortColumn);
            }
            return Some(b.command);
        }
    }
    if kind == ViewKind::Filter {
        if let KeyCode::Char(c) = key.code {
            if !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                return Some(Command::FilterEdit(InputRequest::InsertChar(c)));
            }
        }
    }
    None
}

/// What the status line says of `key` when `kind`'s table does not bind it: a key of
/// the language (bound in some other view) is "not available" here, another character
/// is no key at all; None for keys not worth a word (modifiers, function keys).
pub fn unbound_notice(kind: ViewKind, key: &KeyEvent) -> Option<String> {
    let known = super::keys::LANGUAGE
        .iter()
        .flat_map(|m| m.keys.iter())
        .find(|k| matches(key, **k));
    match (known, key.code) {
        (Some(k), _) => Some(format!(
            "{}: not available in the {}",
            key_label(*k),
            kind.name()
        )),
        (None, KeyCode::Char(c))
            if !c.is_control()
                && !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(format!(
                "{}: not a key of the {} (? lists them)",
                crate::escape::escape(&c.to_string()),
                kind.name()
            ))
        }
        _ => None,
    }
}

/// The keys of a binding, joined: `j ↓`.
pub fn keys_label(b: &Binding) -> String {
    b.keys
        .iter()
        .map(|k| key_label(*k))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The help of one view: `keys  description` lines from its table.
pub fn view_help(kind: ViewKind) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = bindings(kind)
        .iter()
        .map(|b| (keys_label(b), b.help.to_string()))
        .collect();
    if kind == ViewKind::Filter {
        out.push(("other keys".into(), "type into the filter".into()));
    }
    out
}

/// Help text: for each view a title line, then its `keys  description` lines; the view
/// the help was opened over comes first.
pub fn help_lines_for(first: ViewKind) -> Vec<(String, String)> {
    let mut order = vec![first];
    order.extend(ViewKind::ALL.into_iter().filter(|k| *k != first));
    let mut out = Vec::new();
    for kind in order {
        out.push((String::new(), format!("── {} ──", kind.title())));
        out.extend(view_help(kind));
    }
    out.push((String::new(), "── Mouse ──".into()));
    out.push((
        "click".into(),
        "select a pane, row, run or timeline bar; click a column title to sort".into(),
    ));
    out.push((
        "wheel".into(),
        "scroll the pane under the pointer (timeline: zoom)".into(),
    ));
    out
}

/// Every view's help, in the order of the key table of docs/reference.md.
pub fn help_lines() -> Vec<(String, String)> {
    help_lines_for(ViewKind::Explorer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::keys::{meaning_of, C, N};
    use ratatui::crossterm::event::KeyEventKind;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind: KeyEventKind::Press,
            state: ratatui::crossterm::event::KeyEventState::NONE,
        }
    }

    /// The rule: a view may leave a meaning out, never give its key another.
    #[test]
    fn no_key_has_two_meanings() {
        for kind in ViewKind::ALL {
            for b in bindings(kind) {
                for k in b.keys {
                    assert_eq!(
                        meaning_of(*k),
                        Some(b.meaning),
                        "{kind:?}: {} is bound for {:?} ({})",
                        key_label(*k),
                        b.meaning,
                        b.help
                    );
                }
            }
        }
        // Every view quits on Ctrl-C and (but in text fields) q; Esc is back everywhere.
        for kind in ViewKind::ALL {
            assert_eq!(
                lookup(kind, &key(KeyCode::Char('c'), C)),
                Some(Command::Quit),
                "{kind:?}"
            );
            if kind != ViewKind::Filter {
                assert_eq!(
                    lookup(kind, &key(KeyCode::Char('q'), N)),
                    Some(Command::Quit),
                    "{kind:?}"
                );
                let esc = lookup(kind, &key(KeyCode::Esc, N));
                assert!(esc == Some(Command::Back), "{kind:?}: Esc is {esc:?}");
            }
        }
    }

    #[test]
    fn keys_dispatch_through_the_tables() {
        use ViewKind::*;
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('j'), N)),
            Some(Command::Down)
        );
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Down, N)),
            Some(Command::Down)
        );
        // Column keys: the bracketed letter of each title, shifted.
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('M'), KeyModifiers::SHIFT)),
            Some(Command::SortColumn(Column::Median))
        );
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('X'), KeyModifiers::SHIFT)),
            Some(Command::SortColumn(Column::Max))
        );
        // Terminals report shifted letters with SHIFT set.
        let shift = KeyModifiers::SHIFT;
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('G'), shift)),
            Some(Command::Bottom)
        );
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('?'), shift)),
            Some(Command::ToggleHelp)
        );
        // Plain c copies; only Ctrl-C quits.
        assert_eq!(
            lookup(Explorer, &key(KeyCode::Char('c'), N)),
            Some(Command::CopyRow)
        );
        // In filter input, q is text and Ctrl-C still quits.
        assert_eq!(
            lookup(Filter, &key(KeyCode::Char('q'), N)),
            Some(Command::FilterEdit(InputRequest::InsertChar('q')))
        );
        assert_eq!(
            lookup(Dialog, &key(KeyCode::Enter, N)),
            Some(Command::Dismiss)
        );
        // The compare view: c copies as everywhere (never "changed only"), / filters.
        assert_eq!(
            lookup(Compare, &key(KeyCode::Char('c'), N)),
            Some(Command::CopyRow)
        );
        assert_eq!(
            lookup(Compare, &key(KeyCode::Char('/'), N)),
            Some(Command::StartFilter)
        );
        assert_eq!(
            lookup(Compare, &key(KeyCode::Char('u'), N)),
            Some(Command::ToggleUnchanged)
        );
        assert_eq!(lookup(Timeline, &key(KeyCode::Char('s'), N)), None);
    }

    #[test]
    fn every_column_has_its_own_bound_key() {
        let mut seen = std::collections::HashSet::new();
        for c in super::super::column::ALL_COLUMNS {
            let k = c.key();
            assert!(seen.insert(k), "{c:?}: key {k} twice");
            assert_eq!(Column::for_key(k), Some(c));
            assert_eq!(
                lookup(
                    ViewKind::Explorer,
                    &key(KeyCode::Char(k), KeyModifiers::SHIFT)
                ),
                Some(Command::SortColumn(c)),
                "{c:?}"
            );
        }
    }

    #[test]
    fn no_key_is_bound_twice_in_a_view() {
        for kind in ViewKind::ALL {
            let mut seen = std::collections::HashSet::new();
            for b in bindings(kind) {
                for k in b.keys {
                    assert!(seen.insert(*k), "{kind:?}: {k:?} bound twice");
                }
            }
        }
    }

    #[test]
    fn help_lists_every_bound_key_and_the_documented_ones() {
        let help = help_lines();
        let text: String = help.iter().map(|(k, d)| format!("{k} {d}\n")).collect();
        for kind in ViewKind::ALL {
            for b in bindings(kind) {
                let line = help
                    .iter()
                    .find(|(_, d)| d == b.help)
                    .unwrap_or_else(|| panic!("{} missing", b.help));
                for k in b.keys {
                    assert!(line.0.split(' ').any(|x| x == key_label(*k)));
                }
            }
        }
        // The keys the issue promises, written by hand.
        for k in [
            "j", "k", "↑", "↓", "PgUp", "PgDn", "g", "G", "Tab", "Enter", "Esc", "/", "s", "S",
            "e", "E", "w", "?", "q", "+", "-", "n", "p", "N", "u", "x", "z", "Z",
        ] {
            assert!(
                help.iter().any(|(keys, _)| keys.split(' ').any(|x| x == k)),
                "{k} not in help:\n{text}"
            );
        }
        // The help opened over a view starts with that view's table.
        let over = help_lines_for(ViewKind::Timeline);
        assert_eq!(over[0].1, "── Timeline (after t) ──");
    }
}
