//! The type arena: each type's alignment, least size and decode steps computed as it is
//! added, the budgets, and the resolution at the end (byte orders, clocks, selectors).

use std::collections::HashMap;

use super::super::{
    err, ByteOrder, IntType, MetaError, Metadata, StreamClass, Type, TypeId, MAX_DECLARED_FIELDS,
    MAX_ROOT_STEPS, MAX_SELECTOR_ENTRIES, MAX_TOTAL_STEPS,
};
use super::{strip_underscore, Parser};

impl Parser<'_> {
    pub(super) fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_ids.insert(name.to_string(), id);
        id
    }

    pub(super) fn add_type(&mut self, t: Type) -> Result<TypeId, MetaError> {
        let line = self.line();
        let parts = match &t {
            Type::Struct { fields, .. } => fields.len(),
            Type::Variant { options, .. } => options.len(),
            _ => 0,
        };
        self.fields_total = self.fields_total.saturating_add(parts);
        if self.fields_total > MAX_DECLARED_FIELDS {
            return err(
                line,
                format!("more than {MAX_DECLARED_FIELDS} struct fields and variant options declared; refused"),
            );
        }
        let steps = |ids: &mut dyn Iterator<Item = TypeId>| {
            ids.fold(1u64, |acc, ty| acc.saturating_add(self.steps[ty as usize]))
        };
        let step = match &t {
            Type::Struct { fields, .. } => steps(&mut fields.iter().map(|f| f.ty)),
            Type::Variant { options, .. } => steps(&mut options.iter().map(|f| f.ty)),
            Type::Array { elem, len } => match &self.types[*elem as usize] {
                // Decoded as one skip (see `decode_elems`).
                Type::Int(i) if i.size == 8 && i.align <= 8 && i.clock.is_none() => 1,
                _ => self.steps[*elem as usize]
                    .saturating_mul(*len)
                    .saturating_add(1),
            },
            Type::Sequence { elem, .. } => self.steps[*elem as usize].saturating_add(1),
            _ => 1,
        };
        let (align, min) = match &t {
            Type::Int(i) => (i.align, u64::from(i.size)),
            Type::Enum { int, .. } => (int.align, u64::from(int.size)),
            Type::Float { size, align, .. } => (*align, u64::from(*size)),
            Type::Str => (8, 8),
            Type::Struct { fields, align } => {
                let a = fields
                    .iter()
                    .map(|f| self.aligns[f.ty as usize])
                    .fold(*align, u32::max);
                let m = fields.iter().fold(0u64, |acc, f| {
                    acc.saturating_add(self.min_bits[f.ty as usize])
                });
                (a, m)
            }
            Type::Variant { options, .. } => (
                1,
                options
                    .iter()
                    .map(|f| self.min_bits[f.ty as usize])
                    .min()
                    .unwrap_or(0),
            ),
            Type::Array { elem, len } => (
                self.aligns[*elem as usize],
                self.min_bits[*elem as usize].saturating_mul(*len),
            ),
            Type::Sequence { elem, .. } => (self.aligns[*elem as usize], 0),
        };
        let id = self.types.len() as TypeId;
        self.types.push(t);
        self.aligns.push(align);
        self.min_bits.push(min);
        self.steps.push(step);
        Ok(id)
    }

    /// A scope root (`what`, declared on `line`) within [`MAX_ROOT_STEPS`] and, with the
    /// roots before it, [`MAX_TOTAL_STEPS`].
    pub(super) fn check_root(
        &mut self,
        ty: TypeId,
        what: &str,
        line: usize,
    ) -> Result<(), MetaError> {
        let steps = self.steps[ty as usize];
        let bytes = self.min_bits[ty as usize] / 8;
        if steps > MAX_ROOT_STEPS {
            let size = if bytes > 0 {
                format!(" and at least {bytes} bytes")
            } else {
                String::new()
            };
            return err(
                line,
                format!(
                    "{what}: a layout of {} decode steps{size} (nested types repeating each other?), over the budget of {MAX_ROOT_STEPS}; refused",
                    if steps == u64::MAX { "more than 2^64".to_string() } else { steps.to_string() }
                ),
            );
        }
        self.root_steps = self.root_steps.saturating_add(steps);
        if self.root_steps > MAX_TOTAL_STEPS {
            return err(
                line,
                format!("{what}: the scopes declared so far take more than {MAX_TOTAL_STEPS} decode steps together; refused"),
            );
        }
        Ok(())
    }

    /// A sequence's length must name an integer field and a variant's tag an enum field
    /// somewhere in the metadata (babeltrace2 refuses the metadata otherwise; decoding
    /// would fail at the first event, or never, for a trace without one).
    fn check_lengths_and_tags(&self) -> Result<(), MetaError> {
        let mut ints = std::collections::HashSet::new();
        let mut enums = std::collections::HashSet::new();
        for t in &self.types {
            if let Type::Struct { fields, .. } = t {
                for f in fields {
                    match &self.types[f.ty as usize] {
                        Type::Int(_) => {
                            ints.insert(f.name_id);
                        }
                        Type::Enum { .. } => {
                            ints.insert(f.name_id);
                            enums.insert(f.name_id);
                        }
                        _ => {}
                    }
                }
            }
        }
        let name = |id: u32| {
            crate::escape::escape_cut(self.names.get(id as usize).map_or("?", String::as_str), 60)
        };
        for t in &self.types {
            match t {
                Type::Sequence { length, .. } if !ints.contains(length) => {
                    return err(
                        0,
                        format!(
                            "sequence length `{}` is not an integer field",
                            name(*length)
                        ),
                    )
                }
                Type::Variant { tag, .. } if !enums.contains(tag) => {
                    return err(
                        0,
                        format!("variant tag `{}` is not an enum field", name(*tag)),
                    )
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<Metadata, MetaError> {
        if !self.meta.seen_trace {
            return err(0, "metadata has no `trace` block");
        }
        let order = self.meta.byte_order.unwrap_or(ByteOrder::Le);
        // Clock references -> clock indices.
        let mut clock_ids: HashMap<&str, usize> = HashMap::new();
        for (i, c) in self.meta.clocks.iter().enumerate() {
            clock_ids.entry(c.name.as_str()).or_insert(i);
        }
        let mut clock_map = Vec::new();
        for (name, l) in &self.clock_refs {
            match clock_ids.get(name.as_str()) {
                Some(&i) => {
                    clock_map.push(u16::try_from(i).or_else(|_| err(*l, "too many clocks"))?)
                }
                None => return err(*l, format!("integer mapped to undeclared clock `{name}`")),
            }
        }
        for t in &mut self.types {
            let fix = |i: &mut IntType| {
                i.order = Some(i.order.unwrap_or(order));
                i.clock = i.clock.map(|c| clock_map[c as usize]);
            };
            match t {
                Type::Int(i) => fix(i),
                Type::Enum { int, .. } => fix(int),
                Type::Float { order: o, .. } => *o = Some(o.unwrap_or(order)),
                _ => {}
            }
        }
        // Variant option selection tables: per variant, per enum type (in type order)
        // whose labels name options, (value range, option) in mapping order. Found
        // through an index of labels, so the cost is the matches, not variants x enums.
        let mut labels: HashMap<String, Vec<(TypeId, u32, i128, i128)>> = HashMap::new();
        for (i, t) in self.types.iter().enumerate() {
            if let Type::Enum { mappings, .. } = t {
                for (mi, m) in mappings.iter().enumerate() {
                    labels
                        .entry(strip_underscore(&m.label).to_string())
                        .or_default()
                        .push((i as TypeId, mi as u32, m.lo, m.hi));
                }
            }
        }
        let mut entries_total = 0usize;
        for t in &mut self.types {
            if let Type::Variant {
                options, selectors, ..
            } = t
            {
                // (enum type, mapping, lo, hi, option); the first option of a name wins.
                let mut hits: Vec<(TypeId, u32, i128, i128, u32)> = Vec::new();
                for (oi, o) in options.iter().enumerate() {
                    for &(ety, mi, lo, hi) in labels.get(&o.name).into_iter().flatten() {
                        hits.push((ety, mi, lo, hi, oi as u32));
                        entries_total += 1;
                    }
                    if entries_total > MAX_SELECTOR_ENTRIES {
                        return err(
                            0,
                            format!("more than {MAX_SELECTOR_ENTRIES} variant selections (variant options x enum labels); refused"),
                        );
                    }
                }
                hits.sort_unstable_by_key(|h| (h.0, h.1, h.4));
                hits.dedup_by_key(|h| (h.0, h.1));
                for group in hits.chunk_by(|a, b| a.0 == b.0) {
                    selectors.push((group[0].0, group.iter().map(|h| (h.2, h.3, h.4)).collect()));
                }
            }
        }
        self.check_lengths_and_tags()?;
        if self.meta.streams.is_empty() && !self.meta.events.is_empty() {
            // CTF allows omitting the stream block when there is one stream class.
            self.meta.streams.push(StreamClass {
                id: 0,
                packet_context: None,
                event_header: None,
                event_context: None,
            });
        }
        let stream_ids: std::collections::HashSet<u64> =
            self.meta.streams.iter().map(|s| s.id).collect();
        for e in &self.meta.events {
            if !stream_ids.contains(&e.stream_id) {
                return err(
                    0,
                    format!(
                        "event `{}` names stream {} which is not declared",
                        e.name, e.stream_id
                    ),
                );
            }
        }
        let mut warnings = self.warnings;
        if self.warnings_dropped > 0 {
            warnings.push(format!(
                "{} more metadata warnings like these",
                self.warnings_dropped
            ));
        }
        Ok(Metadata {
            warnings,
            byte_order: order,
            uuid: self.meta.uuid,
            packet_header: self.meta.packet_header,
            env: self.meta.env,
            clocks: self.meta.clocks,
            streams: self.meta.streams,
            events: self.meta.events,
            types: self.types,
            names: self.names,
            aligns: self.aligns,
            min_bits: self.min_bits,
            steps: self.steps,
        })
    }
}
