//! The `trace`, `env`, `clock`, `stream` and `event` blocks: their entries checked and
//! applied to the metadata being built.

use super::super::{err, ByteOrder, Clock, EnvValue, EventClass, MetaError, StreamClass, TypeId};
use super::{BlockEntry, Parser, Val};

impl Parser<'_> {
    pub(super) fn apply_block(
        &mut self,
        kind: &str,
        entries: Vec<BlockEntry>,
        line: usize,
    ) -> Result<(), MetaError> {
        let int = |v: &Result<Val, TypeId>, key: &str, l: usize| -> Result<i128, MetaError> {
            match v {
                Ok(Val::Int(i)) => Ok(*i),
                _ => err(l, format!("`{key}` must be an integer")),
            }
        };
        match kind {
            "trace" => {
                if self.meta.seen_trace {
                    return err(line, "second `trace` block");
                }
                self.meta.seen_trace = true;
                for (key, l, v) in &entries {
                    match key.as_str() {
                        "byte_order" => {
                            self.meta.byte_order = Some(match v {
                                Ok(Val::Path(p)) if p.len() == 1 => match p[0].as_str() {
                                    "le" | "little" => ByteOrder::Le,
                                    "be" | "big" | "network" => ByteOrder::Be,
                                    o => {
                                        return err(
                                            *l,
                                            format!("trace byte_order `{o}` is not le or be"),
                                        )
                                    }
                                },
                                _ => return err(*l, "trace byte_order must be le or be"),
                            })
                        }
                        "uuid" => match v {
                            Ok(Val::Str(s)) => {
                                self.meta.uuid = Some(parse_uuid(s).ok_or_else(|| MetaError {
                                    line: *l,
                                    message: format!(
                                        "bad uuid \"{}\"",
                                        crate::escape::escape_cut(s, 40)
                                    ),
                                })?)
                            }
                            _ => return err(*l, "trace uuid must be a string"),
                        },
                        "packet.header" => match v {
                            Err(t) => {
                                self.check_root(*t, "the trace's packet.header", *l)?;
                                self.meta.packet_header = Some(*t)
                            }
                            Ok(_) => return err(*l, "packet.header must be a type (`:=`)"),
                        },
                        "major" => {
                            let m = int(v, key, *l)?;
                            if m != 1 {
                                return err(
                                    *l,
                                    format!("CTF major version {m} is not supported (only 1.8)"),
                                );
                            }
                        }
                        "minor" => {}
                        k => self.warn(
                            *l,
                            format!("unknown attribute `{k}` in the trace block; ignored"),
                        ),
                    }
                }
                if self.meta.byte_order.is_none() {
                    return err(line, "trace block has no byte_order");
                }
            }
            "env" => {
                for (key, l, v) in entries {
                    let val = match v {
                        Ok(Val::Int(i)) => EnvValue::Int(i),
                        Ok(Val::Str(s)) => EnvValue::Str(s),
                        Ok(Val::Path(p)) => EnvValue::Str(p.join(".")),
                        Err(_) => {
                            return err(l, format!("env `{key}` must be a value, not a type"))
                        }
                    };
                    self.meta.env.push((key, val));
                }
            }
            "clock" => {
                let mut c = Clock {
                    name: String::new(),
                    freq: 1_000_000_000,
                    offset_s: 0,
                    offset: 0,
                };
                let (mut offset_s, mut offset) = ((0i128, line), (0i128, line));
                for (key, l, v) in &entries {
                    match key.as_str() {
                        "name" => match v {
                            Ok(Val::Path(p)) if p.len() == 1 => c.name = p[0].clone(),
                            Ok(Val::Str(s)) => c.name = s.clone(),
                            _ => return err(*l, "clock name must be an identifier"),
                        },
                        "freq" => {
                            let f = int(v, key, *l)?;
                            if f <= 0 || f > i128::from(u64::MAX) {
                                return err(
                                    *l,
                                    format!("clock freq {f} is not a positive 64-bit number"),
                                );
                            }
                            c.freq = f as u64;
                        }
                        "offset_s" => offset_s = (int(v, key, *l)?, *l),
                        "offset" => offset = (int(v, key, *l)?, *l),
                        _ => {}
                    }
                }
                if c.name.is_empty() {
                    return err(line, "clock block has no name");
                }
                // Not clamped: a clamped offset would put every time at the end of the
                // range, silently.
                for ((v, l), key, unit) in
                    [(offset_s, "offset_s", "s"), (offset, "offset", "cycles")]
                {
                    match i64::try_from(v) {
                        Ok(v) if key == "offset_s" => c.offset_s = v,
                        Ok(v) => c.offset = v,
                        Err(_) => {
                            return err(
                                l,
                                format!(
                                    "clock `{}`: {key} = {v} {unit} does not fit a signed 64-bit number; its times cannot be converted",
                                    c.name
                                ),
                            )
                        }
                    }
                }
                self.meta.clocks.push(c);
            }
            "stream" => {
                let mut s = StreamClass {
                    id: 0,
                    packet_context: None,
                    event_header: None,
                    event_context: None,
                };
                for (key, l, v) in &entries {
                    match (key.as_str(), v) {
                        ("id", _) => {
                            s.id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "stream id must be >= 0"))?
                        }
                        ("packet.context", Err(t)) => s.packet_context = Some(*t),
                        ("event.header", Err(t)) => s.event_header = Some(*t),
                        ("event.context", Err(t)) => s.event_context = Some(*t),
                        ("packet.context" | "event.header" | "event.context", Ok(_)) => {
                            return err(*l, format!("`{key}` must be a type (`:=`)"))
                        }
                        (k, _) => self.warn(
                            *l,
                            format!("unknown attribute `{k}` in a stream block; ignored"),
                        ),
                    }
                }
                if !self.stream_ids.insert(s.id) {
                    return err(line, format!("stream id {} declared twice", s.id));
                }
                for (t, what) in [
                    (s.packet_context, "packet.context"),
                    (s.event_header, "event.header"),
                    (s.event_context, "event.context"),
                ] {
                    if let Some(t) = t {
                        self.check_root(t, &format!("stream {} {what}", s.id), line)?;
                    }
                }
                self.meta.streams.push(s);
            }
            "event" => {
                let mut e = EventClass {
                    name: String::new(),
                    id: 0,
                    stream_id: 0,
                    context: None,
                    fields: None,
                };
                for (key, l, v) in &entries {
                    match (key.as_str(), v) {
                        ("name", Ok(Val::Str(s))) => e.name = s.clone(),
                        ("name", Ok(Val::Path(p))) => e.name = p.join("."),
                        ("id", _) => {
                            e.id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "event id must be >= 0"))?
                        }
                        ("stream_id", _) => {
                            e.stream_id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "stream_id must be >= 0"))?
                        }
                        ("context", Err(t)) => e.context = Some(*t),
                        ("fields", Err(t)) => e.fields = Some(*t),
                        ("context" | "fields", Ok(_)) => {
                            return err(*l, format!("event `{key}` must be a type (`:=`)"))
                        }
                        ("loglevel" | "model.emf.uri" | "name", _) => {}
                        (k, _) => self.warn(
                            *l,
                            format!("unknown attribute `{k}` in an event block; ignored"),
                        ),
                    }
                }
                for (t, what) in [(e.context, "context"), (e.fields, "fields")] {
                    if let Some(t) = t {
                        let name = crate::escape::escape_cut(&e.name, 80);
                        self.check_root(t, &format!("event `{name}` {what}"), line)?;
                    }
                }
                self.meta.events.push(e);
            }
            // callsite blocks (source locations) carry nothing the importer needs.
            _ => {}
        }
        Ok(())
    }
}

fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let st = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(st, 16).ok()?;
    }
    Some(out)
}
