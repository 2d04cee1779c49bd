//! Run groups named after the program's methods: a group is named after the methods
//! whose instruction lists its events fit (kernel names modulo namespace, delegate calls
//! at their instruction ids), a group of constant methods (runs holding only
//! `Method::execute`) after the methods that run no kernel and no delegate, and the groups
//! one method's runs split into (`torch.cond` branches, bundled inputs) told apart.

use super::super::model::{Finding, MethodProfile, Profile};
use crate::program::{Instruction, MethodPlan, Program};

/// The program methods a group's name stands for: the name without what tells the
/// groups of one method apart (`forward · branch 1 of 2` -> `forward`); several methods
/// named together are joined with ` + `.
pub fn method_of_group(name: &str) -> &str {
    name.split_once(" · ").map_or(name, |(method, _)| method)
}

/// Why a run group does not fit a method, or None when every event fits.
fn misfit(m: &MethodProfile, plan: &MethodPlan) -> Option<String> {
    let at = |id: i32| {
        usize::try_from(id)
            .ok()
            .and_then(|i| plan.instructions.get(i))
    };
    for d in &m.delegates {
        match at(d.instruction_id) {
            Some(Instruction::Delegate { .. }) => {}
            Some(other) => {
                return Some(format!(
                    "instruction {} is {} in {:?}, a delegate call in the dump",
                    d.instruction_id,
                    other.label(),
                    plan.name
                ))
            }
            None => {
                return Some(format!(
                    "{:?} has {} instructions, the dump calls a delegate at {}",
                    plan.name,
                    plan.instructions.len(),
                    d.instruction_id
                ))
            }
        }
    }
    // Every delegate call of the method records a DELEGATE_CALL event.
    for (i, ins) in plan.instructions.iter().enumerate() {
        if matches!(ins, Instruction::Delegate { .. })
            && !m
                .delegates
                .iter()
                .any(|d| usize::try_from(d.instruction_id).ok() == Some(i))
        {
            return Some(format!(
                "{:?} calls a delegate at instruction {i}, the dump does not",
                plan.name
            ));
        }
    }
    for o in &m.other_operators {
        let Some(ins) = at(o.instruction_id) else {
            return Some(format!(
                "{:?} has {} instructions, the dump runs {} at {}",
                plan.name,
                plan.instructions.len(),
                o.name,
                o.instruction_id
            ));
        };
        let kernels = o
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .chain(std::iter::once(o.name.as_str()))
            .filter(|n| n.starts_with("native_call_"));
        for k in kernels {
            if !ins.is_kernel_event(k) {
                return Some(format!(
                    "instruction {} is {} in {:?}, {k} in the dump",
                    o.instruction_id,
                    ins.label(),
                    plan.name
                ));
            }
        }
        if o.name == "OPERATOR_CALL" && !matches!(ins, Instruction::Kernel { .. }) {
            return Some(format!(
                "instruction {} is {} in {:?}, an operator call in the dump",
                o.instruction_id,
                ins.label(),
                plan.name
            ));
        }
    }
    None
}

/// Kernel calls of `plan` at which the runs recorded no event.
fn unseen_kernels(m: &MethodProfile, plan: &MethodPlan) -> usize {
    plan.instructions
        .iter()
        .enumerate()
        .filter(|(i, ins)| {
            matches!(ins, Instruction::Kernel { .. })
                && !m
                    .other_operators
                    .iter()
                    .any(|o| usize::try_from(o.instruction_id).ok() == Some(*i))
        })
        .count()
}

/// Whether a method records nothing but `Method::execute` when it runs: no kernel call
/// and no delegate call (a constant method: `get_max_seq_len` returns a value).
fn records_nothing(plan: &MethodPlan) -> bool {
    !plan
        .instructions
        .iter()
        .any(|i| matches!(i, Instruction::Kernel { .. } | Instruction::Delegate { .. }))
}

/// Names every run group after the program's methods whose instruction lists its events
/// fit (kernel names and delegate calls at their instruction ids); groups that fit
/// several identical methods are named together (`prefill + decode`), and so are constant
/// methods, whose runs are alike (`get_max_seq_len + use_kv_cache`). Groups of one method
/// are then told apart ([`tell_groups_apart`]). Returns the findings (a group no method
/// fits).
pub fn name_methods(profile: &mut Profile, program: &Program, file: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let old: Vec<String> = profile.methods.iter().map(|m| m.name.clone()).collect();
    let mut named = vec![false; profile.methods.len()];
    for (g, m) in profile.methods.iter_mut().enumerate() {
        let silent = m.delegates.is_empty() && m.other_operators.is_empty();
        // (kernel calls of the method with no event in the runs, name)
        let mut fits: Vec<(usize, String)> = Vec::new();
        let mut why = Vec::new();
        for plan in &program.methods {
            if silent {
                // Only a method that runs nothing the dump records explains runs that
                // record nothing.
                if records_nothing(plan) {
                    fits.push((0, plan.name.clone()));
                }
                continue;
            }
            match misfit(m, plan) {
                None => fits.push((unseen_kernels(m, plan), plan.name.clone())),
                Some(w) => why.push(w),
            }
        }
        if silent && fits.is_empty() {
            why.push(
                "its runs record only Method::execute, and every method of the program runs kernels or delegates"
                    .to_string(),
            );
        }
        // The methods that explain the most of the runs' events: a method whose only
        // delegate call is also another's first instruction is told apart by the kernels
        // the other would have run.
        let best = fits.iter().map(|(u, _)| *u).min();
        let fits: Vec<String> = fits
            .into_iter()
            .filter(|(u, _)| Some(*u) == best)
            .map(|(_, n)| n)
            .collect();
        if fits.is_empty() {
            let mut f = Finding::new(
                "program_unmatched",
                format!(
                    "program {file}: no method of it fits the runs of {} ({}); left unnamed",
                    m.name,
                    crate::escape::message_line(&why.join("; "))
                ),
            );
            f.event = Some(m.name.clone());
            findings.push(f);
        } else {
            m.name = fits.join(" + ");
            named[g] = true;
        }
    }
    tell_groups_apart(profile, program, &named);
    // The one summary that quotes the names (see `build::build_profile_with`).
    if profile.methods.len() > 1 {
        for w in profile
            .warnings
            .iter_mut()
            .filter(|w| w.kind == "several_methods")
        {
            for (o, m) in old.iter().zip(&profile.methods) {
                if *o != m.name {
                    w.message = w
                        .message
                        .replace(&format!("{o} ("), &format!("{} (", m.name));
                    if w.message.ends_with(&format!("describe {o}")) {
                        let cut = w.message.len() - o.len();
                        w.message.truncate(cut);
                        w.message.push_str(&m.name);
                    }
                }
            }
        }
    }
    findings
}

/// Groups given the same name are one method's runs split by what they ran: the paths
/// through a method's `torch.cond` branches (the method has a conditional jump:
/// `forward · branch 1 of 2`, numbered in the order the groups first ran), else its
/// bundled inputs (`forward · bundled input 3`), else `forward · group 1 of 2`.
fn tell_groups_apart(profile: &mut Profile, program: &Program, named: &[bool]) {
    let names: Vec<String> = profile.methods.iter().map(|m| m.name.clone()).collect();
    for (g, name) in names.iter().enumerate() {
        let same: Vec<usize> = (0..names.len())
            .filter(|&k| named[k] && names[k] == *name)
            .collect();
        if !named[g] || same.len() < 2 || same[0] != g {
            continue;
        }
        let branches = name.split(" + ").any(|n| {
            program
                .methods
                .iter()
                .any(|p| p.name == n && p.instructions.contains(&Instruction::JumpFalse))
        });
        let inputs: Vec<Option<i32>> = same
            .iter()
            .map(|&k| profile.methods[k].bundled_input_index)
            .collect();
        let by_input = inputs.iter().all(Option::is_some)
            && (1..inputs.len()).all(|i| !inputs[..i].contains(&inputs[i]));
        let n = same.len();
        for (k, &i) in same.iter().enumerate() {
            let which = match inputs[k] {
                Some(input) if by_input && !branches => format!("bundled input {input}"),
                _ if branches => format!("branch {} of {n}", k + 1),
                _ => format!("group {} of {n}", k + 1),
            };
            profile.methods[i].name = format!("{name} · {which}");
        }
    }
}
