//! The footers' key hints, made from the views' key tables (`key_tables`, `flame_keys`,
//! `fleet_keys`): one hint per meaning a view binds, its keys joined (`+/-`, `n/p`), a
//! word or two from the meaning (or the binding's own `hint`), most used first. Moves
//! (`j/k`, arrows, pages) are left to the help unless a binding asks for a hint. Pure.

use super::binding::Binding;
use super::keymap::ViewKind;
use super::keys::{key_label, Meaning};

/// One footer hint: the keys and what they do here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub meaning: Meaning,
    pub keys: String,
    pub what: &'static str,
}

/// Meanings in the order the footers give them: what a user looks for first.
const RANK: &[Meaning] = &[
    Meaning::Help,
    Meaning::Quit,
    Meaning::Move,
    Meaning::Sideways,
    Meaning::Zoom,
    Meaning::Pan,
    Meaning::Open,
    Meaning::Back,
    Meaning::Pane,
    Meaning::Filter,
    Meaning::Match,
    Meaning::Flame,
    Meaning::Sandwich,
    Meaning::Modules,
    Meaning::Timeline,
    Meaning::Types,
    Meaning::Log,
    Meaning::Sort,
    Meaning::Unchanged,
    Meaning::Swap,
    Meaning::Weighting,
    Meaning::Copy,
    Meaning::Reveal,
    Meaning::Warmup,
    Meaning::Runs,
    Meaning::Baseline,
    Meaning::CompareBaseline,
    Meaning::Section,
    Meaning::Fit,
    Meaning::PickRun,
];

/// A meaning's word or two in a footer; None: left to the help (unless a binding gives
/// its own).
fn short(m: Meaning) -> Option<&'static str> {
    Some(match m {
        Meaning::Help => "help",
        Meaning::Quit => "quit",
        Meaning::Pane => "pane",
        Meaning::Filter => "filter",
        Meaning::Flame => "flame",
        Meaning::Sandwich => "callers/callees",
        Meaning::Modules => "modules",
        Meaning::Timeline => "timeline",
        Meaning::Types => "types",
        Meaning::Log => "log",
        Meaning::Sort => "sort",
        Meaning::Unchanged => "changed only",
        Meaning::Swap => "swap A/B",
        Meaning::Weighting => "widths",
        Meaning::Copy => "copy",
        Meaning::Reveal => "reveal",
        Meaning::Warmup => "warm-up",
        Meaning::Runs => "run",
        Meaning::Baseline => "baseline",
        Meaning::CompareBaseline => "vs baseline",
        Meaning::Section => "next section",
        Meaning::Zoom => "zoom",
        Meaning::Pan => "pan",
        Meaning::Fit => "fit",
        Meaning::PickRun => "pick run",
        // Enter opens and Esc goes back everywhere; a view where they do more says so
        // in its binding's hint (the flame graph: zoom).
        Meaning::Back
        | Meaning::Open
        | Meaning::Match
        | Meaning::Move
        | Meaning::Sideways
        | Meaning::Page
        | Meaning::Ends
        | Meaning::SortReverse
        | Meaning::SortColumn
        | Meaning::FoldAll
        | Meaning::AllScopes
        | Meaning::Delete => return None,
    })
}

/// The hints of a key table, most used first.
pub fn hints_of(table: &[Binding]) -> Vec<Hint> {
    let mut out: Vec<Hint> = Vec::new();
    for &meaning in RANK {
        let bound: Vec<&Binding> = table.iter().filter(|b| b.meaning == meaning).collect();
        let Some(what) = bound.iter().find_map(|b| b.hint).or_else(|| short(meaning)) else {
            continue;
        };
        // The first key of each binding (`+` of `+`/`=`, then `-`), each once; where the
        // bindings are one move in two directions (`j`/`k`, `+`/`-`, `n`/`p`); else the
        // first key only (`Tab`, not `Tab/Shift-Tab`).
        let pairs = matches!(
            meaning,
            Meaning::Move
                | Meaning::Sideways
                | Meaning::Warmup
                | Meaning::Runs
                | Meaning::Match
                | Meaning::Zoom
                | Meaning::Pan
        );
        let mut keys: Vec<String> = Vec::new();
        for b in bound.iter().take(if pairs { usize::MAX } else { 1 }) {
            if let Some(&k) = b.keys.first() {
                let label = key_label(k);
                if !keys.contains(&label) {
                    keys.push(label);
                }
            }
        }
        if keys.is_empty() {
            continue;
        }
        out.push(Hint {
            meaning,
            keys: keys.join("/"),
            what,
        });
    }
    out
}

/// The hints of a view's key table.
pub fn hints(kind: ViewKind) -> Vec<Hint> {
    hints_of(super::key_tables::bindings(kind))
}

/// The hints that fit in `width` cells, whole (`keys what`, two spaces between hints):
/// never a hint cut in the middle.
pub fn fitting(hints: &[Hint], width: usize) -> Vec<&Hint> {
    let mut used = 0;
    let mut out = Vec::new();
    for h in hints {
        let w = crate::escape::display_width(&h.keys) + 1 + h.what.len() + 2;
        if used + w > width + 2 {
            break;
        }
        used += w;
        out.push(h);
    }
    out
}

/// What a filter's prompt says of its keys while it is typed (`Enter keep · Esc clear`),
/// from the filter's key table (quitting, which works everywhere, left to the footer).
pub fn filter_prompt() -> String {
    hints(ViewKind::Filter)
        .iter()
        .filter(|h| !matches!(h.meaning, Meaning::Help | Meaning::Quit))
        .map(|h| format!("{} {}", h.keys, h.what))
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(kind: ViewKind) -> Vec<String> {
        hints(kind)
            .iter()
            .map(|h| format!("{} {}", h.keys, h.what))
            .collect()
    }

    /// The keys the issue found missing are in the footers where they apply.
    #[test]
    fn footers_name_the_views_keys() {
        let explorer = text(ViewKind::Explorer);
        for want in [
            "? help",
            "q quit",
            "f flame",
            "m modules",
            "t timeline",
            "o types",
            "+/- warm-up",
            "w log",
        ] {
            assert!(
                explorer.iter().any(|h| h == want),
                "explorer lacks {want}: {explorer:?}"
            );
        }
        let flame = text(ViewKind::Flame);
        for want in [
            "i callers/callees",
            "s left-heavy",
            "% widths",
            "Enter zoom",
            "j/k move",
        ] {
            assert!(
                flame.iter().any(|h| h == want),
                "flame lacks {want}: {flame:?}"
            );
        }
        // Help and quit first, everywhere.
        for kind in [
            ViewKind::Explorer,
            ViewKind::Log,
            ViewKind::Flame,
            ViewKind::Compare,
            ViewKind::Modules,
            ViewKind::Fleet,
        ] {
            let t = text(kind);
            assert_eq!(
                t[..2],
                ["? help".to_string(), "q quit".to_string()],
                "{kind:?}"
            );
        }
    }

    #[test]
    fn hints_are_never_cut() {
        let all = hints(ViewKind::Explorer);
        let shown = fitting(&all, 40);
        let line: Vec<String> = shown
            .iter()
            .map(|h| format!("{} {}", h.keys, h.what))
            .collect();
        let line = line.join("  ");
        assert!(line.len() <= 40, "{line}");
        assert!(shown.len() < all.len());
        // The next hint would not have fitted whole.
        let next = &all[shown.len()];
        assert!(line.len() + 2 + next.keys.len() + 1 + next.what.len() > 40);
    }
}
