//! THAPI across nodes: several traces (one CTF directory per node or rank, or trace
//! files) read as one, and the one trace cut per host, process or thread (iprof's `-e`).
//!
//! [`merge`] joins the readers' interval sets (threads, names and inputs interned again,
//! indices remapped, parents kept before their children), so the combined tally is built
//! by the one model rule ([`TraceProfile::build`]) as if the calls came from one trace.
//! [`split`] is the converse: one interval set per group of threads, each built by the
//! same rule ([`group_profiles`]), so a group's rows are exactly its share of the total
//! (every call is in exactly one group; calls never cross threads).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::detect::TraceFormat;
use super::intervals::{IntervalSet, ThreadKey, TraceWarning};
use super::model::TraceProfile;

/// The level of a breakdown: by hostname, by (hostname, pid), or by (hostname, pid, tid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Per {
    Host,
    Process,
    Thread,
}

impl Per {
    pub fn label(self) -> &'static str {
        match self {
            Per::Host => "host",
            Per::Process => "process",
            Per::Thread => "thread",
        }
    }
}

/// One group of a breakdown; the fields below its level are None.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupKey {
    pub host: Option<Arc<str>>,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
}

impl GroupKey {
    pub fn of(t: &ThreadKey, per: Per) -> GroupKey {
        GroupKey {
            host: t.host.clone(),
            pid: (per != Per::Host).then_some(t.pid),
            tid: (per == Per::Thread).then_some(t.tid),
        }
    }

    /// iprof's `-e` section title: `Hostname: h | Process: p | Thread: t | `.
    pub fn title(&self) -> String {
        let mut s = format!("Hostname: {} | ", self.host_text());
        if let Some(p) = self.pid {
            s.push_str(&format!("Process: {p} | "));
        }
        if let Some(t) = self.tid {
            s.push_str(&format!("Thread: {t} | "));
        }
        s
    }

    /// Short name for a list: `n3`, `n3 pid 11`, `n3 pid 11 tid 12`.
    pub fn label(&self) -> String {
        let mut s = self.host_text().to_string();
        if let Some(p) = self.pid {
            s.push_str(&format!(" pid {p}"));
        }
        if let Some(t) = self.tid {
            s.push_str(&format!(" tid {t}"));
        }
        s
    }

    fn host_text(&self) -> &str {
        self.host.as_deref().unwrap_or("(no hostname)")
    }
}

/// Join several readers' sets (`(source name, set)`, in command-line order) into one.
/// Warnings keep their kind and say which source they came from when there are several.
/// Err: a torch.profiler Chrome trace mixed with LTTng traces (their tallies follow
/// different rules: `key_averages()` against iprof), one line.
pub fn merge(sets: Vec<(String, IntervalSet)>) -> Result<IntervalSet, String> {
    let chrome = |s: &IntervalSet| s.format == Some(TraceFormat::ChromeJson);
    if let (Some(c), Some(l)) = (
        sets.iter().find(|(_, s)| chrome(s)),
        sets.iter().find(|(_, s)| !chrome(s)),
    ) {
        return Err(format!(
            "{}: a torch.profiler trace cannot be tallied together with the LTTng trace {} (their tallies follow different rules); give traces of one kind",
            c.0, l.0
        ));
    }
    let several = sets.len() > 1;
    let mut out = IntervalSet::default();
    let mut threads: HashMap<ThreadKey, u32> = HashMap::new();
    let mut names: HashMap<String, u32> = HashMap::new();
    let mut inputs: HashMap<super::InputSig, u32> = HashMap::new();
    for (source, set) in sets {
        // Text and CTF traces follow the same rules; the first one names the format.
        if out.format.is_none() {
            out.format = set.format;
        }
        let thread_map: Vec<u32> = set
            .threads
            .into_iter()
            .map(|k| intern(&mut threads, &mut out.threads, k))
            .collect();
        let name_map: Vec<u32> = set
            .names
            .into_iter()
            .map(|n| intern(&mut names, &mut out.names, n))
            .collect();
        let input_map: Vec<u32> = set
            .inputs
            .into_iter()
            .map(|s| intern(&mut inputs, &mut out.inputs, s))
            .collect();
        let base = out.intervals.len() as u32;
        out.intervals
            .extend(set.intervals.into_iter().map(|mut iv| {
                iv.thread = thread_map[iv.thread as usize];
                iv.name = name_map[iv.name as usize];
                iv.inputs = iv.inputs.map(|i| input_map[i as usize]);
                iv.parent = iv.parent.map(|p| p + base);
                iv
            }));
        out.unterminated.extend(set.unterminated);
        out.warnings
            .extend(set.warnings.into_iter().map(|w| TraceWarning {
                message: if several {
                    format!("{source}: {}", w.message)
                } else {
                    w.message
                },
                kind: w.kind,
            }));
        let (a, b) = (&mut out.counts, set.counts);
        a.events += b.events;
        a.op_events += b.op_events;
        a.ignored_events += b.ignored_events;
        a.ignored_fields += b.ignored_fields;
        a.malformed += b.malformed;
    }
    Ok(out)
}

fn intern<K: std::hash::Hash + Eq + Clone>(
    map: &mut HashMap<K, u32>,
    table: &mut Vec<K>,
    k: K,
) -> u32 {
    if let Some(&i) = map.get(&k) {
        return i;
    }
    let i = table.len() as u32;
    table.push(k.clone());
    map.insert(k, i);
    i
}

/// One interval set per group of threads at `per`, sorted by hostname, pid, tid, with
/// the names and inputs its calls use; warnings and counts stay with the whole trace.
pub fn split(set: &IntervalSet, per: Per) -> Vec<(GroupKey, IntervalSet)> {
    let keys: Vec<GroupKey> = set.threads.iter().map(|t| GroupKey::of(t, per)).collect();
    let mut order: Vec<GroupKey> = keys.clone();
    order.sort();
    order.dedup();
    let group_of: HashMap<&GroupKey, usize> =
        order.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let thread_group: Vec<usize> = keys.iter().map(|k| group_of[k]).collect();
    let mut groups: Vec<IntervalSet> = order
        .iter()
        .map(|_| IntervalSet {
            format: set.format,
            ..IntervalSet::default()
        })
        .collect();
    // Per group: the names and inputs its calls use, interned again (a job of many
    // threads does not copy every table into every group).
    let mut name_ids: Vec<HashMap<u32, u32>> = vec![HashMap::new(); groups.len()];
    let mut input_ids: Vec<HashMap<u32, u32>> = vec![HashMap::new(); groups.len()];
    // Old thread id -> id in its group's set.
    let mut local_thread = vec![0u32; set.threads.len()];
    for (t, key) in set.threads.iter().enumerate() {
        let g = &mut groups[thread_group[t]];
        local_thread[t] = g.threads.len() as u32;
        g.threads.push(key.clone());
    }
    let mut local_index = vec![0u32; set.intervals.len()];
    for (i, iv) in set.intervals.iter().enumerate() {
        let gi = thread_group[iv.thread as usize];
        let g = &mut groups[gi];
        local_index[i] = g.intervals.len() as u32;
        let mut copy = *iv;
        copy.thread = local_thread[iv.thread as usize];
        copy.name = *name_ids[gi].entry(iv.name).or_insert_with(|| {
            g.names.push(set.names[iv.name as usize].clone());
            g.names.len() as u32 - 1
        });
        copy.inputs = iv.inputs.map(|s| {
            *input_ids[gi].entry(s).or_insert_with(|| {
                g.inputs.push(set.inputs[s as usize].clone());
                g.inputs.len() as u32 - 1
            })
        });
        // A parent is on the same thread, so in the same group, and comes first.
        copy.parent = iv.parent.map(|p| local_index[p as usize]);
        g.intervals.push(copy);
    }
    for u in &set.unterminated {
        let key = GroupKey::of(
            &ThreadKey {
                host: u.host.clone(),
                pid: u.pid,
                tid: u.tid,
            },
            per,
        );
        if let Some(&g) = group_of.get(&key) {
            groups[g].unterminated.push(u.clone());
        }
    }
    order.into_iter().zip(groups).collect()
}

/// Each group's profile, built by the model's one rule; groups without a call left out.
pub fn group_profiles(set: &IntervalSet, per: Per, trace: &str) -> Vec<(GroupKey, TraceProfile)> {
    split(set, per)
        .into_iter()
        .filter(|(_, s)| !s.intervals.is_empty())
        .map(|(k, s)| {
            let p = TraceProfile::build(s, trace);
            (k, p)
        })
        .collect()
}

/// The reader stage for one path: a CTF directory through the native reader, a file read
/// once through [`crate::input`] (its size limit; a file changed while it was read is an
/// error; `limit`: `--max-input-size`). Err: one line naming the path.
pub fn load_set(path: &Path, limit: u64) -> Result<IntervalSet, String> {
    let name = crate::input::display_name(path);
    if path.is_dir() {
        return super::ctf::read_dir_intervals(path, limit).map_err(|e| format!("{name}: {e}"));
    }
    let input = crate::input::read_input_mapped(path, limit).map_err(|e| format!("{name}: {e}"))?;
    if super::looks_like_etdump(&input.bytes) {
        return Err(format!(
            "{name}: an ETDump, not a PyTorch trace (several paths and --per are for traces; compare dumps with `cpuprof-tui fleet`)"
        ));
    }
    let set = super::read_intervals(&input.bytes, limit);
    input
        .check_unchanged()
        .map_err(|e| format!("{name}: {e}"))?;
    set.map_err(|e| format!("{name}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> IntervalSet {
        crate::trace::read_intervals(text.as_bytes(), crate::input::DEFAULT_MAX_INPUT_SIZE).unwrap()
    }

    /// Two hosts' text traces: the merge adds calls; the split by host gives each its
    /// own calls back (hand-counted from the lines).
    #[test]
    fn merge_then_split_gives_each_host_its_calls() {
        let a = "[1.000000000] h1 lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"mm\" }\n\
                 [1.000000010] h1 lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"add\" }\n\
                 [1.000000015] h1 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"add\" }\n\
                 [1.000000100] h1 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"mm\" }\n";
        let b = "[2.000000000] h2 lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"mm\" }\n\
                 [2.000000300] h2 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"mm\" }\n";
        let merged = merge(vec![("a".into(), set(a)), ("b".into(), set(b))]).unwrap();
        assert_eq!(merged.intervals.len(), 3);
        assert_eq!(merged.threads.len(), 2);
        let p = TraceProfile::build(merged.clone(), "t");
        let mm = p.op("mm").unwrap();
        assert_eq!((mm.calls, mm.inclusive_total_ns), (2, 400));
        assert_eq!(p.op("add").unwrap().self_total_ns, 5);
        assert_eq!(p.op("mm").unwrap().self_total_ns, 95 + 300);
        let groups = group_profiles(&merged, Per::Host, "t");
        let got: Vec<(String, i64, u64)> = groups
            .iter()
            .map(|(k, g)| {
                let mm = g.op("mm").unwrap();
                (k.label(), mm.inclusive_total_ns, mm.calls)
            })
            .collect();
        assert_eq!(got, [("h1".into(), 100, 1), ("h2".into(), 300, 1)]);
        assert!(groups[1].1.op("add").is_none());
        assert_eq!(groups[0].0.title(), "Hostname: h1 | ");
    }
}
