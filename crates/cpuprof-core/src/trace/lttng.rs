//! LTTng op events in text form: babeltrace2 `sink.text.pretty` (default, `--names=all`,
//! any clock options) and THAPI's pretty printer (multi-line or one-line records).

use std::borrow::Cow;

use super::detect::TraceFormat;
use super::error::TraceError;
use super::fields::{kv_items, kv_list, Fields, ScanError, Value};
use super::intervals::{IntervalSet, TraceWarning, WarningLog};
use super::pairing::{OpEventKind, Pairer};
use super::timestamp::{parse_stamp, Clock, Stamp};

/// One op event as read from the text (for tests and tools; the importer streams).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LttngEvent {
    /// ns since the epoch, or since midnight of the first day for date-less times.
    pub ts_ns: i64,
    pub kind: OpEventKind,
    pub host: Option<String>,
    pub vpid: i64,
    pub vtid: i64,
    pub name: String,
    /// None when the event has no `overload_name` field (older tracers).
    pub overload_name: Option<String>,
    /// 1-based line where the record starts.
    pub line: usize,
}

/// A record as parsed, before times are resolved.
struct RawOp<'a> {
    stamp: Stamp,
    host: Option<&'a str>,
    kind: OpEventKind,
    vpid: Option<i64>,
    vtid: Option<i64>,
    name: Option<Cow<'a, str>>,
    overload: Option<Cow<'a, str>>,
    ignored_fields: u64,
}

enum Record<'a> {
    Op(RawOp<'a>),
    /// Another event (its name, for the ignored-events warning).
    Other(&'a str),
}

fn parse_record(rec: &str, format: TraceFormat) -> Result<Record<'_>, ScanError> {
    match format {
        TraceFormat::Babeltrace2NamesAll => parse_names_all(rec),
        TraceFormat::ThapiText => parse_thapi(rec),
        _ => parse_pretty(rec),
    }
}

/// `[time] (+delta) host provider:event: { .. }, { .. }, { payload }`
fn parse_pretty(rec: &str) -> Result<Record<'_>, ScanError> {
    let rest = rec.strip_prefix('[').ok_or(ScanError::Malformed)?;
    let close = rest.find(']').ok_or(ScanError::Malformed)?;
    let stamp = parse_stamp(&rest[..close]).ok_or(ScanError::Malformed)?;
    let mut r = rest[close + 1..].trim_start();
    if r.starts_with('(') {
        let close = r.find(')').ok_or(ScanError::Malformed)?;
        r = r[close + 1..].trim_start();
    }
    let (tok, after) = split_token(r);
    let (host, event, after) = if tok.len() > 1 && tok.ends_with(':') {
        (None, &tok[..tok.len() - 1], after)
    } else {
        let (ev, after2) = split_token(after);
        if ev.len() < 2 || !ev.ends_with(':') {
            return Err(ScanError::Malformed);
        }
        (Some(tok), &ev[..ev.len() - 1], after2)
    };
    let Some(kind) = OpEventKind::of_event(event) else {
        return Ok(Record::Other(event));
    };
    // A per-process LTTng trace: babeltrace2 prints `host:procname:(vpid)` from the trace
    // environment (the vpid is in no event context then).
    let (host, env_vpid) = match host.map(split_trace_fields) {
        Some((h, v)) => (Some(h), v),
        None => (None, None),
    };
    // Brace groups: contexts first, the payload last (one pass, no pre-split).
    let b = after.as_bytes();
    let mut op = RawOp::new(stamp, host, kind);
    op.vpid = env_vpid;
    let mut cur = Fields::new();
    let mut pos = 0;
    let mut groups = 0;
    loop {
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == b.len() {
            break;
        }
        if groups > 0 {
            if b[pos] != b',' {
                return Err(ScanError::Malformed);
            }
            pos += 1;
            while pos < b.len() && b[pos].is_ascii_whitespace() {
                pos += 1;
            }
        }
        if b.get(pos) != Some(&b'{') {
            return Err(ScanError::Malformed);
        }
        if groups > 0 {
            op.take_context(&cur);
        }
        cur.clear();
        pos = kv_items(after, pos + 1, b'=', Some(b'}'), &mut cur)?;
        groups += 1;
    }
    if groups > 0 {
        op.take_payload(cur);
    }
    Ok(Record::Op(op))
}

/// `timestamp = .., delta = .., trace:hostname = .., name = .., stream.event.context = { .. }, event.fields = { .. }`
fn parse_names_all(rec: &str) -> Result<Record<'_>, ScanError> {
    let mut top = Fields::new();
    kv_list(rec, b'=', &mut top)?;
    let bare = |key: &str| {
        top.iter().find_map(|(k, v)| match v {
            Value::Bare(s) if *k == key => Some(*s),
            _ => None,
        })
    };
    let stamp = bare("timestamp")
        .and_then(parse_stamp)
        .ok_or(ScanError::Malformed)?;
    let event = bare("name").ok_or(ScanError::Malformed)?;
    let Some(kind) = OpEventKind::of_event(event) else {
        return Ok(Record::Other(event));
    };
    let host = top.iter().find_map(|(k, v)| match v {
        Value::Bare(s) if k.ends_with("hostname") => Some(*s),
        _ => None,
    });
    let mut op = RawOp::new(stamp, host, kind);
    // `trace:vpid = (N)`: a per-process trace's environment (an event context wins).
    op.vpid = top.iter().find_map(|(k, v)| match v {
        Value::Bare(s) if *k == "trace:vpid" => {
            s.trim_start_matches('(').trim_end_matches(')').parse().ok()
        }
        _ => None,
    });
    let mut fields = Fields::new();
    for (k, v) in &top {
        if let Value::Group(g) = v {
            if *k != "event.fields" {
                fields.clear();
                kv_list(g, b'=', &mut fields)?;
                op.take_context(&fields);
            }
        }
    }
    if let Some((_, Value::Group(g))) = top.iter().find(|(k, _)| *k == "event.fields") {
        fields.clear();
        kv_list(g, b'=', &mut fields)?;
        op.take_payload(fields);
    }
    Ok(Record::Op(op))
}

/// `13:35:44.048636859 - host - vpid: N, vtid: N - provider:event: { name: "..", .. }`
fn parse_thapi(rec: &str) -> Result<Record<'_>, ScanError> {
    let mut parts = rec.splitn(4, " - ");
    let (Some(time), Some(host), Some(ctx), Some(rest)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ScanError::Malformed);
    };
    let stamp = parse_stamp(time).ok_or(ScanError::Malformed)?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '{')
        .unwrap_or(rest.len());
    let event = rest[..end].strip_suffix(':').ok_or(ScanError::Malformed)?;
    // Find the payload's end first: records of other events span lines too.
    let body = rest[end..].trim();
    let inner = if body.is_empty() {
        ""
    } else {
        let inner = body.strip_prefix('{').ok_or(ScanError::Malformed)?;
        let close = super::fields::find_close(body.as_bytes(), 0)?;
        if !body[close + 1..].trim().is_empty() {
            return Err(ScanError::Malformed);
        }
        &inner[..close - 1]
    };
    let Some(kind) = OpEventKind::of_event(event) else {
        return Ok(Record::Other(event));
    };
    let mut op = RawOp::new(stamp, Some(host.trim()), kind);
    let mut fields = Fields::new();
    kv_list(ctx, b':', &mut fields)?;
    op.take_context(&fields);
    fields.clear();
    kv_list(inner, b':', &mut fields)?;
    op.take_payload(fields);
    Ok(Record::Op(op))
}

/// The trace fields babeltrace2's pretty text prints before the event name:
/// `host[:procname][:(vpid)]` to the host and the vpid when one is there.
fn split_trace_fields(tok: &str) -> (&str, Option<i64>) {
    match tok.rsplit_once(":(") {
        Some((before, v)) if v.ends_with(')') => match v[..v.len() - 1].parse() {
            Ok(vpid) => (before.split(':').next().unwrap_or(before), Some(vpid)),
            Err(_) => (tok, None),
        },
        _ => (tok, None),
    }
}

fn split_token(s: &str) -> (&str, &str) {
    match s.find(' ') {
        Some(i) => (&s[..i], s[i + 1..].trim_start()),
        None => (s, ""),
    }
}

impl<'a> RawOp<'a> {
    fn new(stamp: Stamp, host: Option<&'a str>, kind: OpEventKind) -> Self {
        RawOp {
            stamp,
            host,
            kind,
            vpid: None,
            vtid: None,
            name: None,
            overload: None,
            ignored_fields: 0,
        }
    }

    fn take_context(&mut self, fields: &Fields<'a>) {
        for (k, v) in fields {
            match *k {
                "vpid" => self.vpid = v.as_i64(),
                "vtid" => self.vtid = v.as_i64(),
                _ => self.ignored_fields += 1,
            }
        }
    }

    fn take_payload(&mut self, fields: Fields<'a>) {
        for (k, v) in fields {
            match (k, v) {
                ("name", Value::Str(s)) => self.name = Some(s),
                ("overload_name", Value::Str(s)) => self.overload = Some(s),
                _ => self.ignored_fields += 1,
            }
        }
    }
}

/// A multi-line record longer than this is treated as damaged.
const MAX_RECORD_LINES: usize = 1_000;

/// Bracket depth (`{}` and `[]`) over the lines of a THAPI record, outside strings.
#[derive(Default)]
struct BracketDepth {
    depth: i64,
    in_string: bool,
    escaped: bool,
}

impl BracketDepth {
    fn feed(&mut self, line: &str) {
        for &b in line.as_bytes() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => self.depth -= 1,
                    _ => {}
                }
            }
        }
    }

    fn closed(&self) -> bool {
        self.depth <= 0 && !self.in_string
    }
}

/// Walk the records of `text`, giving each op event (with its resolved time and line).
fn for_each_op(
    text: &str,
    format: TraceFormat,
    warnings: &mut WarningLog,
    counts: &mut super::intervals::ImportCounts,
    mut sink: impl FnMut(&RawOp<'_>, i64, usize),
) {
    let mut clock = Clock::default();
    let mut ignored_kinds: std::collections::BTreeMap<String, u64> = Default::default();
    let base = text.as_ptr() as usize;
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((idx, line)) = lines.next() {
        let line_no = idx + 1;
        let mut rec = line.trim_end_matches('\r');
        if rec.trim().is_empty() {
            continue;
        }
        counts.events += 1;
        let mut result = parse_record(rec, format);
        let start = line.as_ptr() as usize - base;
        // Only THAPI's pretty printer writes multi-line records: extend while a group is
        // open. babeltrace2 writes one record per line, so an open group there is a line
        // cut short: malformed on its own (joining would swallow the next record), or
        // truncated when nothing follows.
        let multi_line = format == TraceFormat::ThapiText;
        if !multi_line
            && matches!(result, Err(ScanError::Incomplete))
            && !text[start + line.len()..].trim().is_empty()
        {
            result = Err(ScanError::Malformed);
        }
        // A THAPI record is its header line and, when the header leaves a group open, the
        // lines until its brackets balance (counted incrementally, quote-aware). The next
        // header line ends it in any case, so a missing `}` costs that one record (not
        // every record after it). Each line is scanned once and each record parsed at
        // most twice: linear, however many records are left open.
        let mut unclosed_before = None;
        if multi_line && matches!(result, Err(ScanError::Incomplete)) {
            let mut depth = BracketDepth::default();
            depth.feed(rec);
            let mut end = None;
            let mut joined = 0;
            while let Some(&(next_idx, next)) = lines.peek() {
                if super::detect::is_thapi_header(next.as_bytes()) {
                    unclosed_before = Some(next_idx + 1);
                    break;
                }
                if joined == MAX_RECORD_LINES {
                    break;
                }
                lines.next();
                joined += 1;
                end = Some(next.as_ptr() as usize - base + next.len());
                depth.feed(next);
                if depth.closed() {
                    break;
                }
            }
            if let Some(end) = end {
                rec = text[start..end].trim_end_matches('\r');
                result = parse_record(rec, format);
            }
        }
        if let (Some(next_line), Err(ScanError::Incomplete)) = (unclosed_before, &result) {
            counts.malformed += 1;
            warnings.add("malformed", || {
                format!(
                    "line {line_no}: record not closed before the next record on line {next_line} (missing `}}`?); skipped"
                )
            });
            continue;
        }
        match result {
            Ok(Record::Op(op)) => {
                counts.ignored_fields += op.ignored_fields;
                if op.name.is_none() {
                    counts.malformed += 1;
                    warnings.add("malformed", || {
                        format!("line {line_no}: op event without a name field; skipped")
                    });
                    continue;
                }
                let ts = clock.resolve(op.stamp, warnings, line_no);
                sink(&op, ts, line_no);
            }
            Ok(Record::Other(event)) => {
                counts.ignored_events += 1;
                // The kinds ignored, for the warning (a bounded set of names).
                let kind = format!("{:?}", event.chars().take(60).collect::<String>());
                if ignored_kinds.len() < 64 || ignored_kinds.contains_key(&kind) {
                    *ignored_kinds.entry(kind).or_insert(0u64) += 1;
                }
            }
            Err(ScanError::Incomplete) if !text[start + rec.len()..].trim().is_empty() => {
                counts.malformed += 1;
                warnings.add("malformed", || {
                    format!("line {line_no}: record longer than {MAX_RECORD_LINES} lines; skipped")
                });
            }
            Err(ScanError::Incomplete) => {
                counts.malformed += 1;
                warnings.add("truncated", || {
                    format!("line {line_no}: record cut short at the end of the file (truncated trace?); skipped")
                });
            }
            Err(ScanError::Malformed) => {
                counts.malformed += 1;
                let shown: String = rec.chars().take(80).collect();
                warnings.add("malformed", || {
                    format!("line {line_no}: cannot parse {shown:?}; skipped")
                });
            }
        }
    }
    if counts.ignored_events > 0 {
        let n = counts.ignored_events;
        warnings.add("ignored_events", || {
            format!(
                "{n} events of other providers/events ignored: {}",
                super::kinds_list(&ignored_kinds)
            )
        });
    }
    // Unknown fields (cpu_id, procname, ..) are only counted: every trace has some.
}

fn missing_ids(op: &RawOp<'_>, line: usize, warnings: &mut WarningLog) -> (i64, i64) {
    if op.vpid.is_none() || op.vtid.is_none() {
        warnings.add("missing_context", || {
            format!("line {line}: event without vpid/vtid context; put on thread -1")
        });
    }
    (op.vpid.unwrap_or(-1), op.vtid.unwrap_or(-1))
}

/// Import LTTng text of a known format into intervals.
pub(crate) fn read_lttng_text(text: &str, format: TraceFormat) -> Result<IntervalSet, TraceError> {
    let mut warnings = WarningLog::default();
    let mut counts = Default::default();
    let mut pairer = Pairer::default();
    for_each_op(text, format, &mut warnings, &mut counts, |op, ts, line| {
        let (pid, tid) = missing_ids(op, line, &mut pairer.warnings);
        pairer.event(
            op.kind,
            ts,
            op.host,
            pid,
            tid,
            op.name.as_deref().unwrap_or(""),
            op.overload.as_deref().unwrap_or(""),
            line,
        );
    });
    if pairer.counts.op_events == 0 {
        let detail = match warnings.finish().into_iter().next() {
            Some(w) => w.message,
            None => format!(
                "{} records, none of them lttng_ust_pytorch:op_entry/op_exit",
                counts.events
            ),
        };
        return Err(TraceError::NoEvents(detail));
    }
    counts.op_events = pairer.counts.op_events;
    pairer.counts = counts;
    let mut set = pairer.finish();
    let mut all = warnings.finish();
    all.append(&mut set.warnings);
    set.warnings = all;
    set.format = Some(format);
    Ok(set)
}

/// Parse the op events of LTTng text (format detected), without pairing them.
pub fn parse_lttng_events(text: &str) -> Result<(Vec<LttngEvent>, Vec<TraceWarning>), TraceError> {
    let format = super::detect::detect_format(text.as_bytes())?;
    if !format.is_lttng_text() {
        return Err(TraceError::UnknownFormat("not LTTng text".into()));
    }
    let mut warnings = WarningLog::default();
    let mut counts = Default::default();
    let mut events = Vec::new();
    let mut id_warnings = WarningLog::default();
    for_each_op(text, format, &mut warnings, &mut counts, |op, ts, line| {
        let (vpid, vtid) = missing_ids(op, line, &mut id_warnings);
        events.push(LttngEvent {
            ts_ns: ts,
            kind: op.kind,
            host: op.host.map(str::to_string),
            vpid,
            vtid,
            name: op.name.as_deref().unwrap_or("").to_string(),
            overload_name: op.overload.as_deref().map(str::to_string),
            line,
        });
    });
    let mut w = warnings.finish();
    w.extend(id_warnings.finish());
    Ok((events, w))
}

/// Pair already parsed events (THAPI's rule), e.g. events built from another source.
pub fn pair_events(events: &[LttngEvent]) -> IntervalSet {
    let mut pairer = Pairer::default();
    for e in events {
        pairer.event(
            e.kind,
            e.ts_ns,
            e.host.as_deref(),
            e.vpid,
            e.vtid,
            &e.name,
            e.overload_name.as_deref().unwrap_or(""),
            e.line,
        );
    }
    pairer.counts.events = events.len() as u64;
    pairer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thapi_multi_line_and_one_line() {
        let text = "13:35:44.048636859 - x41 - vpid: 7, vtid: 8 - lttng_ust_pytorch:op_entry: {\n  name: \"aten::randn\",\n  overload_name: \"\"\n}\n\
13:35:44.048636900 - x41 - vpid: 7, vtid: 8 - lttng_ust_ze:zeInit_entry: {\n  flags: [ ZE_INIT_FLAG_GPU_ONLY ]\n}\n\
13:35:44.048637000 - x41 - vpid: 7, vtid: 8 - lttng_ust_pytorch:op_exit: { name: \"aten::randn\", overload_name: \"\" }\n";
        let (ev, w) = parse_lttng_events(text).unwrap();
        // The other provider's 3-line record is skipped whole (no malformed lines).
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].kind, "ignored_events");
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].line, 1);
        assert_eq!(ev[1].line, 8);
        assert_eq!(ev[1].ts_ns - ev[0].ts_ns, 141);
        assert_eq!(
            (ev[0].vpid, ev[0].vtid, ev[0].host.as_deref()),
            (7, 8, Some("x41"))
        );
        assert_eq!(ev[0].name, "aten::randn");
    }

    #[test]
    fn other_providers_and_unknown_fields_are_counted() {
        let text = "[1.000000000] (+?.?????????) h lttng_ust_ze:zeInit_entry: { cpu_id = 0 }, { vpid = 1, vtid = 1 }, { flags = 0 }\n\
[1.000000010] (+0.000000010) h lttng_ust_pytorch:op_entry: { cpu_id = 0 }, { vpid = 1, vtid = 1, procname = \"py\" }, { name = \"a, {b}\", overload_name = \"\", extra = 3 }\n\
[1.000000020] (+0.000000010) h lttng_ust_pytorch:op_exit: { cpu_id = 0 }, { vpid = 1, vtid = 1 }, { name = \"a, {b}\", overload_name = \"\" }\n";
        let set = read_lttng_text(text, TraceFormat::Babeltrace2Text).unwrap();
        assert_eq!(set.counts.ignored_events, 1);
        // cpu_id twice, procname, extra
        assert_eq!(set.counts.ignored_fields, 4);
        assert_eq!(set.intervals.len(), 1);
        assert_eq!(set.names[0], "a, {b}");
        assert_eq!(set.intervals[0].dur_ns, 10);
    }

    #[test]
    fn clock_date_no_delta_no_hostname_and_escapes() {
        let text = "[2026-11-29 23:59:59.999999000] lttng_ust_pytorch:op_entry: { vpid = 3, vtid = 4 }, { name = \"a\\\"b\", overload_name = \"\" }\r\n\
[2026-11-30 00:00:00.000001000] lttng_ust_pytorch:op_exit: { vpid = 3, vtid = 4 }, { name = \"a\\\"b\", overload_name = \"\" }\n";
        let (ev, w) = parse_lttng_events(text).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].host, None);
        assert_eq!(ev[0].name, "a\"b");
        assert_eq!(ev[1].ts_ns - ev[0].ts_ns, 2_000);
    }

    #[test]
    fn midnight_wrap_in_default_text() {
        let text = "[23:59:59.999999000] (+?.?????????) h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"x\" }\n\
[00:00:00.000001000] (+0.000002000) h lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"x\" }\n";
        let set = read_lttng_text(text, TraceFormat::Babeltrace2Text).unwrap();
        assert_eq!(set.intervals[0].dur_ns, 2_000);
        assert!(set.warnings.iter().any(|w| w.kind == "midnight_wrap"));
        // Older tracers: no overload_name field; the name is used as is.
        assert_eq!(set.names, ["x"]);
    }

    #[test]
    fn cut_babeltrace_line_is_one_malformed_record() {
        // Line 2 is cut inside its payload group; line 3 must still parse.
        let text = "[1.0] h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"a\", overload_name = \"\" }\n\
[1.2] h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"b\"\n\
[1.5] h lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"a\", overload_name = \"\" }\n";
        let set = read_lttng_text(text, TraceFormat::Babeltrace2Text).unwrap();
        assert_eq!(set.counts.malformed, 1, "{:?}", set.warnings);
        assert_eq!(set.counts.op_events, 2);
        assert_eq!(set.intervals.len(), 1);
        assert_eq!(set.name(&set.intervals[0]), "a");
        assert_eq!(set.intervals[0].dur_ns, 500_000_000);
        assert!(set
            .warnings
            .iter()
            .any(|w| w.kind == "malformed" && w.message.starts_with("line 2:")));
        // Cut at the very end: a truncated trace.
        let cut_end = &text[..text.find("[1.5]").unwrap()];
        let set = read_lttng_text(cut_end, TraceFormat::Babeltrace2Text).unwrap();
        assert!(set.warnings.iter().any(|w| w.kind == "truncated"));
    }

    #[test]
    fn thapi_records_end_where_their_brackets_balance() {
        let entry = |t: u32, body: &str| {
            format!("13:35:44.{t:09} - h - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_entry: {{\n{body}}}\n")
        };
        let exit = |t: u32| {
            format!("13:35:44.{t:09} - h - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_exit: {{ name: \"a\" }}\n")
        };
        // A nested group closed at the start of a line, and a `}` inside a string.
        let text = entry(100, "  name: \"a}\",\n  s: {\n  x: 1\n}\n")
            + &exit(200)
            + &entry(300, "  name: \"a\"\n")
            + &exit(450);
        let set = read_lttng_text(&text, TraceFormat::ThapiText).unwrap();
        assert_eq!(set.counts.malformed, 0, "{:?}", set.warnings);
        assert_eq!(set.intervals.len(), 2);
        assert_eq!(set.intervals[1].dur_ns, 150);
        // A body that never closes is cut at MAX_RECORD_LINES; its lines after that are
        // malformed records of their own, and the next record still counts.
        let body = "  x: 1,\n".repeat(MAX_RECORD_LINES + 3);
        let text =
            entry(100, &body).replace("}\n", "\n") + &entry(300, "  name: \"a\"\n") + &exit(450);
        let set = read_lttng_text(&text, TraceFormat::ThapiText).unwrap();
        assert_eq!(set.intervals.len(), 1);
        assert!(set.warnings.iter().any(|w| w
            .message
            .starts_with("line 1: record longer than 1000 lines")));
    }

    #[test]
    fn mismatched_exit_is_named_from_exit_with_warning() {
        let text = "[1.0] h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"a\", overload_name = \"\" }\n\
[1.5] h lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"b\", overload_name = \"out\" }\n";
        let set = read_lttng_text(text, TraceFormat::Babeltrace2Text).unwrap();
        assert_eq!(set.name(&set.intervals[0]), "b.out");
        assert_eq!(set.intervals[0].dur_ns, 500_000_000);
        assert_eq!(set.warnings[0].kind, "name_mismatch");
    }
}
