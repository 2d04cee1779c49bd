//! The document as serde seeds: the top object (`traceEvents`, `host_name`) or a bare
//! event array, and each event object handed to the builder as soon as it is read.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::args::ArgsSeed;
use super::lenient::{fallback_on_other_types, fallback_on_seq, Scalar};
use super::{Builder, RawEvent};

/// One element of `traceEvents`, handed to the builder as soon as it is read.
struct EventSeed<'b>(&'b mut Builder);

impl EventSeed<'_> {
    fn fallback(self) {
        self.0.counts.events += 1;
        self.0.ignore("not an object".into());
    }
}

impl<'de> DeserializeSeed<'de> for EventSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a trace event object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut ev = RawEvent::default();
        self.0.scratch.clear();
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            match key.as_str().unwrap_or("") {
                "ph" => ev.ph = Some(map.next_value()?),
                "cat" => ev.cat = Some(map.next_value()?),
                "name" => ev.name = Some(map.next_value()?),
                "pid" => ev.pid = Some(map.next_value()?),
                "tid" => ev.tid = Some(map.next_value()?),
                "ts" => ev.ts = Some(map.next_value()?),
                "dur" => ev.dur = Some(map.next_value()?),
                "args" => map.next_value_seed(ArgsSeed(&mut self.0.scratch))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        self.0.add(ev);
        Ok(())
    }
    fallback_on_seq!();
    fallback_on_other_types!();
}

struct EventsSeed<'b>(&'b mut Builder);

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.saw_events_array = true;
        while seq.next_element_seed(EventSeed(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

pub(super) struct TopSeed<'b>(pub(super) &'b mut Builder);

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome-trace object or event array")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            match key.as_str().unwrap_or("") {
                "traceEvents" => map.next_value_seed(EventsSeed(&mut *self.0))?,
                "host_name" => {
                    if let Scalar::Str(h) = map.next_value::<Scalar>()? {
                        self.0.host = Some(h.into_owned());
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        EventsSeed(self.0).visit_seq(seq)
    }
}
