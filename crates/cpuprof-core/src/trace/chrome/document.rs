//! The document: the top object (`traceEvents`, `host_name`) or a bare event array, and
//! each event object handed to the builder as soon as it is read. Only the members the
//! model uses are decoded; the rest are skipped by the scanner.

use super::args::read_args;
use super::lenient::{micros, scalar, Scalar};
use super::scan::{Scan, Scanner};
use super::{Builder, RawEvent};

/// The whole text: one top value, then nothing but whitespace. A scan told to stop
/// (`Builder::stop_at`) returns at the event where it stopped.
pub(super) fn read_document(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    match s.next_in("a value")? {
        b'{' => top_object(s, b)?,
        b'[' => events(s, b)?,
        _ => return Err(s.syntax("expected a Chrome-trace object or event array")),
    }
    end_of_text(s, b)
}

/// Where a part of the text that starts at an element of the event array lies: inside
/// the top object (`{"traceEvents": [`) or in a bare event array (`[`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Within {
    TopObject,
    BareArray,
}

/// The text from an element of the event array on (at the scanner), in the place
/// `within` says: the rest of the array, of the top object, then the end of the text,
/// read as [`read_document`] reads them from there.
pub(super) fn read_from_event(s: &mut Scanner, b: &mut Builder, within: Within) -> Scan<()> {
    b.saw_events_array = true;
    elements(s, b)?;
    if within == Within::TopObject && !b.stopped() && s.object_continues()? {
        members(s, b)?;
    }
    end_of_text(s, b)
}

fn end_of_text(s: &mut Scanner, b: &Builder) -> Scan<()> {
    if b.stopped() {
        return Ok(());
    }
    match s.peek()? {
        None => Ok(()),
        Some(_) => Err(s.syntax("trailing characters")),
    }
}

fn top_object(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    s.bump();
    if s.closes_at_once(b'}', "an object")? {
        return Ok(());
    }
    members(s, b)
}

/// The top object's members from the one at the scanner to its `}`.
fn members(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    loop {
        // A key is told by its first bytes: a huge one is not kept (`key_class`).
        match s.key_class(top_member)? {
            TRACE_EVENTS => {
                if s.next_in("a value")? != b'[' {
                    return Err(
                        s.syntax("invalid type: traceEvents is not an array of trace events")
                    );
                }
                events(s, b)?;
                if b.stopped() {
                    return Ok(());
                }
            }
            HOST_NAME => {
                b.texts.text.clear();
                if let Scalar::Str(r) = scalar(s, &mut b.texts)? {
                    b.host = Some(b.texts.text[r].to_string());
                }
                b.texts.release_big();
            }
            _ => s.skip_value()?,
        }
        if !s.object_continues()? {
            return Ok(());
        }
    }
}

const TRACE_EVENTS: u8 = 1;
const HOST_NAME: u8 = 2;

/// The members of the top object the model reads.
fn top_member(key: &[u8]) -> u8 {
    match key {
        b"traceEvents" => TRACE_EVENTS,
        b"host_name" => HOST_NAME,
        _ => 0,
    }
}

/// The event array (at its `[`).
fn events(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    s.bump();
    b.saw_events_array = true;
    if s.closes_at_once(b']', "a list")? {
        return Ok(());
    }
    elements(s, b)
}

/// The event array's elements from the one at the scanner to the `]`, or to the first
/// element that starts at or after `b.stop_at` (its offset kept in `b.stopped_at`).
fn elements(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    loop {
        let first = s.next_in("a value")?;
        if s.offset() >= b.stop_at {
            b.stopped_at = Some(s.offset());
            return Ok(());
        }
        if first == b'{' {
            // The usual event, whole in the window, is read straight from its bytes;
            // any other (cut by a refill, escapes, odd numbers, errors) by the scanner.
            match super::fast::event(s.window(), b) {
                Some(n) => s.advance(n),
                None => event(s, b)?,
            }
        } else {
            s.skip_value()?;
            b.counts.events += 1;
            b.ignore_kind(|k| k.push_str("not an object"));
        }
        if !s.list_continues()? {
            return Ok(());
        }
    }
}

pub(super) const PH: u8 = 1;
pub(super) const CAT: u8 = 2;
pub(super) const NAME: u8 = 3;
pub(super) const PID: u8 = 4;
pub(super) const TID: u8 = 5;
pub(super) const TS: u8 = 6;
pub(super) const DUR: u8 = 7;
pub(super) const ARGS: u8 = 8;

/// The members of an event the model reads (byte patterns: no string comparison call).
pub(super) fn event_member(key: &[u8]) -> u8 {
    match key {
        [b'p', b'h'] => PH,
        [b'c', b'a', b't'] => CAT,
        [b'n', b'a', b'm', b'e'] => NAME,
        [b'p', b'i', b'd'] => PID,
        [b't', b'i', b'd'] => TID,
        [b't', b's'] => TS,
        [b'd', b'u', b'r'] => DUR,
        [b'a', b'r', b'g', b's'] => ARGS,
        _ => 0,
    }
}

/// One event object (at its `{`): its members read, then handed to the builder.
fn event(s: &mut Scanner, b: &mut Builder) -> Scan<()> {
    s.bump();
    let mut ev = RawEvent::default();
    b.scratch.clear();
    b.texts.text.clear();
    if !s.closes_at_once(b'}', "an object")? {
        loop {
            // A member given twice: the last one counts, as it did with serde.
            match s.key_class(event_member)? {
                PH => ev.ph = Some(scalar(s, &mut b.texts)?),
                CAT => ev.cat = Some(scalar(s, &mut b.texts)?),
                NAME => ev.name = Some(scalar(s, &mut b.texts)?),
                PID => ev.pid = Some(scalar(s, &mut b.texts)?),
                TID => ev.tid = Some(scalar(s, &mut b.texts)?),
                TS => ev.ts = micros(s, &mut b.texts)?,
                DUR => ev.dur = micros(s, &mut b.texts)?,
                ARGS => read_args(s, &mut b.scratch, &mut b.texts)?,
                _ => s.skip_value()?,
            }
            if !s.object_continues()? {
                break;
            }
        }
    }
    b.add(&ev);
    b.texts.release_big();
    b.scratch.release_big();
    Ok(())
}
