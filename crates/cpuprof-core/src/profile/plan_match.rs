//! Which log plan explains which delegate call. Plans are matched by the step names they
//! predict; log order (sequence k <-> k-th CPU delegate) only breaks ties and places plans
//! that cannot be matched by name (broken sequences, delegates with no step events).

use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PlanMatch {
    /// Per delegate (same order as the input): the sequence whose plan it got.
    pub plan_for: Vec<Option<usize>>,
    /// Per delegate: a broken sequence that, by position, belonged to it.
    pub broken_for: Vec<Option<usize>>,
    /// Decoded sequences that explain no delegate.
    pub unmatched: Vec<usize>,
}

/// `sequences[k]`: the step names of sequence k's plan, None when it could not be decoded.
/// `delegates[d]`: step event names seen for delegate d (instruction order); delegates
/// with no step events are not CPU delegates and only take plans by position.
/// `plain_xnnpack[d]`: delegate d is a plain XNNPACK delegate (operator events, no step
/// events); it never takes a plan and does not count in positions.
pub(crate) fn match_plans(
    sequences: &[Option<Vec<String>>],
    delegates: &[HashSet<String>],
    plain_xnnpack: &[bool],
) -> PlanMatch {
    let plain = |d: usize| plain_xnnpack.get(d).copied().unwrap_or(false);
    let mut m = PlanMatch {
        plan_for: vec![None; delegates.len()],
        broken_for: vec![None; delegates.len()],
        unmatched: Vec::new(),
    };
    // Position k among delegates that logged step events.
    let cpu_positions: Vec<usize> = (0..delegates.len())
        .filter(|&d| !delegates[d].is_empty())
        .collect();
    // Delegates a plan may belong to: every delegate but the plain XNNPACK ones.
    let eligible: Vec<usize> = (0..delegates.len()).filter(|&d| !plain(d)).collect();
    let positional = |k: usize| cpu_positions.get(k).copied();
    // Best matches first, over all (plan, delegate) pairs: a plan that explains more of
    // a delegate's steps wins it whatever the log order. Ties prefer the positional pair,
    // then the earlier plan and delegate.
    let mut pairs: Vec<(usize, bool, usize, usize)> = Vec::new();
    for (k, seq) in sequences.iter().enumerate() {
        let Some(names) = seq else { continue };
        for (d, observed) in delegates.iter().enumerate() {
            let score = names.iter().filter(|n| observed.contains(*n)).count();
            if score > 0 {
                pairs.push((score, positional(k) == Some(d), k, d));
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let mut plan_taken = vec![false; sequences.len()];
    for (_, _, k, d) in pairs {
        if !plan_taken[k] && m.plan_for[d].is_none() {
            plan_taken[k] = true;
            m.plan_for[d] = Some(k);
        }
    }
    let leftovers: Vec<usize> = (0..sequences.len())
        .filter(|&k| sequences[k].is_some() && !plan_taken[k])
        .collect();
    // A plan that names none of the observed steps explains no delegate that has step
    // events. It can only be the plan of a delegate whose step events are all missing, and
    // only when sequences and delegates pair up one to one.
    for k in leftovers {
        let by_position = (sequences.len() == eligible.len())
            .then(|| eligible[k])
            .filter(|&d| m.plan_for[d].is_none() && delegates[d].is_empty());
        match by_position {
            Some(d) => m.plan_for[d] = Some(k),
            None => m.unmatched.push(k),
        }
    }
    for (k, seq) in sequences.iter().enumerate() {
        if seq.is_none() {
            if let Some(d) = positional(k).filter(|&d| m.plan_for[d].is_none()) {
                m.broken_for[d] = Some(k);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> HashSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }
    fn seq(names: &[&str]) -> Option<Vec<String>> {
        Some(names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn matches_by_names_not_order() {
        // The log lists the second delegate's plan first.
        let sequences = [seq(&["X/s:b"]), seq(&["X/s:a", "E/r:n"])];
        let delegates = [set(&["X/s:a", "E/r:n"]), set(&["X/s:b"])];
        let m = match_plans(&sequences, &delegates, &[]);
        assert_eq!(m.plan_for, vec![Some(1), Some(0)]);
        assert!(m.unmatched.is_empty());
    }

    #[test]
    fn best_match_wins_whatever_the_log_order() {
        // Plan 0 names only A; plan 1 names A, B and C. Delegate 0 has A, B, C; delegate 1
        // only A. Greedy log order would give plan 0 to delegate 0 by position.
        let sequences = [seq(&["X/s:a"]), seq(&["X/s:a", "X/s:b", "X/s:c"])];
        let delegates = [set(&["X/s:a", "X/s:b", "X/s:c"]), set(&["X/s:a"])];
        assert_eq!(
            match_plans(&sequences, &delegates, &[]).plan_for,
            vec![Some(1), Some(0)]
        );
    }

    #[test]
    fn identical_plans_fall_back_to_order() {
        let sequences = [seq(&["X/s:a"]), seq(&["X/s:a"])];
        let delegates = [set(&["X/s:a"]), set(&["X/s:a"])];
        assert_eq!(
            match_plans(&sequences, &delegates, &[]).plan_for,
            vec![Some(0), Some(1)]
        );
    }

    #[test]
    fn broken_sequence_keeps_its_slot() {
        let sequences = [None, seq(&["X/s:b"])];
        let delegates = [set(&["X/s:a"]), set(&["X/s:b"])];
        let m = match_plans(&sequences, &delegates, &[]);
        assert_eq!(m.plan_for, vec![None, Some(1)]);
        assert_eq!(m.broken_for, vec![Some(0), None]);
    }

    #[test]
    fn plan_of_another_model_is_not_forced_on_a_delegate() {
        let sequences = [seq(&["X/s:linear+3"])];
        let delegates = [set(&["X/s:conv_1+3", "E/r:neg"]), set(&["X/s:conv_4+5"])];
        let m = match_plans(&sequences, &delegates, &[]);
        assert_eq!(m.plan_for, vec![None, None]);
        assert_eq!(m.unmatched, vec![0]);
    }

    #[test]
    fn plan_of_a_delegate_with_no_step_events_goes_by_position() {
        // Delegate 1 logged no step event at all (every one missing): its plan still
        // belongs to it, so the missing steps are reported against the plan.
        let sequences = [seq(&["X/s:a"]), seq(&["X/s:b"])];
        let delegates = [set(&["X/s:a"]), set(&[])];
        assert_eq!(
            match_plans(&sequences, &delegates, &[]).plan_for,
            vec![Some(0), Some(1)]
        );
    }

    #[test]
    fn stale_plan_is_not_forced_onto_a_plain_xnnpack_delegate() {
        // One plan in the log; the dump has one plain XNNPACK delegate (no step events):
        // counting it as a position would give it the plan.
        let sequences = [seq(&["X/s:a"])];
        let delegates = [set(&[])];
        let m = match_plans(&sequences, &delegates, &[true]);
        assert_eq!(m.plan_for, vec![None]);
        assert_eq!(m.unmatched, vec![0]);
        // Positions count CPU-capable delegates only: plan 1 belongs to delegate 2 (the
        // second non-XNNPACK delegate), whose step events are all missing.
        let sequences = [seq(&["X/s:a"]), seq(&["X/s:b"])];
        let delegates = [set(&["X/s:a"]), set(&[]), set(&[])];
        let m = match_plans(&sequences, &delegates, &[false, true, false]);
        assert_eq!(m.plan_for, vec![Some(0), None, Some(1)]);
    }

    #[test]
    fn plan_without_matching_delegate() {
        let sequences = [seq(&["X/s:a"]), seq(&["X/s:zzz"])];
        let delegates = [set(&["X/s:a"])];
        let m = match_plans(&sequences, &delegates, &[]);
        assert_eq!(m.plan_for, vec![Some(0)]);
        assert_eq!(m.unmatched, vec![1]);
    }
}
