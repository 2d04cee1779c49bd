//! Layout rules on arbitrary span trees: every span gets a track, spans sharing a track
//! nest or are disjoint, spans on the main track lie inside their parent; self times are
//! non-negative and add up to the roots' lengths.

use cpuprof_tui::timeline::{assign_tracks, self_times, span_len, Span};
use proptest::prelude::*;

fn spans() -> impl Strategy<Value = Vec<Span>> {
    prop::collection::vec(
        (
            0i64..200,
            0i64..60,
            any::<prop::sample::Index>(),
            any::<bool>(),
        ),
        1..60,
    )
    .prop_map(|raw| {
        raw.iter()
            .enumerate()
            .map(|(i, &(start, len, parent, root))| Span {
                start,
                end: start + len,
                parent: (i > 0 && !root).then(|| parent.index(i) as u32),
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn tracks_nest(spans in spans()) {
        let placed = assign_tracks(&spans);
        prop_assert_eq!(placed.len(), spans.len());
        let tracks = placed.iter().map(|p| p.0).max().unwrap_or(0);
        for t in 0..=tracks {
            let mut ids: Vec<usize> = (0..spans.len()).filter(|&i| placed[i].0 == t).collect();
            ids.sort_by_key(|&i| (spans[i].start, -spans[i].end));
            let mut stack: Vec<i64> = Vec::new();
            for i in ids {
                while stack.last().is_some_and(|&e| e <= spans[i].start) {
                    stack.pop();
                }
                if let Some(&e) = stack.last() {
                    prop_assert!(spans[i].end <= e, "track {} overlaps", t);
                }
                stack.push(spans[i].end);
            }
        }
        for (i, s) in spans.iter().enumerate() {
            if placed[i].0 == 0 {
                prop_assert!(placed[i].1.is_none());
                if let Some(p) = s.parent {
                    let p = &spans[p as usize];
                    prop_assert!(p.start <= s.start && s.end <= p.end);
                    prop_assert_eq!(placed[s.parent.unwrap() as usize].0, 0);
                }
            } else {
                prop_assert!(placed[i].1.is_some());
            }
        }
    }

    #[test]
    fn self_times_add_up(spans in spans()) {
        let own = self_times(&spans);
        let roots: u64 = spans.iter().filter(|s| s.parent.is_none()).map(|s| span_len(s.start, s.end)).sum();
        prop_assert_eq!(own.iter().sum::<u64>(), roots);
    }
}
