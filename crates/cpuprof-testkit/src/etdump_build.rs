//! Builds ETDump files from a plain model with the flatbuffers builder and the generated
//! `*Args`/`create` API, the way the runtime lays them out (size-prefixed, `ED00`, scalars
//! equal to their default omitted). Shared by tests and benches.
#![allow(dead_code)]

use cpuprof_core::etdump::generated::etdump as fb;
use flatbuffers::{FlatBufferBuilder, WIPOffset};

#[derive(Debug, Clone, PartialEq)]
pub struct BuiltProfile {
    pub name: Option<String>,
    pub chain_index: i32,
    pub instruction_id: i32,
    pub delegate_int: i32,
    pub delegate_str: Option<String>,
    pub metadata: Option<Vec<u8>>,
    pub start: u64,
    pub end: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BuiltEvent {
    Profile(BuiltProfile),
    Debug {
        name: Option<String>,
        output: bool,
    },
    Allocation {
        allocator_id: i32,
        size: u64,
    },
    /// An `Event` table with no member set.
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BuiltRun {
    pub name: Option<String>,
    pub bundled_input_index: i32,
    /// None: the `events` vector is absent.
    pub events: Option<Vec<BuiltEvent>>,
}

fn event<'a>(fbb: &mut FlatBufferBuilder<'a>, ev: &BuiltEvent) -> WIPOffset<fb::Event<'a>> {
    let args = match ev {
        BuiltEvent::Profile(p) => {
            let name = p.name.as_deref().map(|s| fbb.create_string(s));
            let dstr = p.delegate_str.as_deref().map(|s| fbb.create_string(s));
            let meta = p.metadata.as_deref().map(|m| fbb.create_vector(m));
            let pe = fb::ProfileEvent::create(
                fbb,
                &fb::ProfileEventArgs {
                    name,
                    chain_index: p.chain_index,
                    instruction_id: p.instruction_id,
                    delegate_debug_id_int: p.delegate_int,
                    delegate_debug_id_str: dstr,
                    delegate_debug_metadata: meta,
                    start_time: p.start,
                    end_time: p.end,
                },
            );
            fb::EventArgs {
                profile_event: Some(pe),
                allocation_event: None,
                debug_event: None,
            }
        }
        BuiltEvent::Debug { name, output } => {
            let name = name.as_deref().map(|s| fbb.create_string(s));
            let output = output.then(|| fb::Bool::create(fbb, &fb::BoolArgs { bool_val: true }));
            let value = fb::Value::create(
                fbb,
                &fb::ValueArgs {
                    val: fb::ValueType::Null,
                    output,
                    ..Default::default()
                },
            );
            let de = fb::DebugEvent::create(
                fbb,
                &fb::DebugEventArgs {
                    chain_index: u64::MAX,
                    instruction_id: 0,
                    debug_entry: Some(value),
                    delegate_debug_id_int: -1,
                    delegate_debug_id_str: None,
                    name,
                },
            );
            fb::EventArgs {
                profile_event: None,
                allocation_event: None,
                debug_event: Some(de),
            }
        }
        BuiltEvent::Allocation { allocator_id, size } => {
            let ae = fb::AllocationEvent::create(
                fbb,
                &fb::AllocationEventArgs {
                    allocator_id: *allocator_id,
                    allocation_size: *size,
                },
            );
            fb::EventArgs {
                profile_event: None,
                allocation_event: Some(ae),
                debug_event: None,
            }
        }
        BuiltEvent::Empty => fb::EventArgs {
            profile_event: None,
            allocation_event: None,
            debug_event: None,
        },
    };
    fb::Event::create(fbb, &args)
}

/// Serializes `runs` as a size-prefixed `ED00` buffer (the bytes of an `.etdp` file).
pub fn build(version: u32, runs: &[BuiltRun]) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::with_capacity(1024);
    let mut run_offsets = Vec::with_capacity(runs.len());
    let mut event_offsets = Vec::new();
    for run in runs {
        let events = run.events.as_ref().map(|events| {
            event_offsets.clear();
            for ev in events {
                event_offsets.push(event(&mut fbb, ev));
            }
            fbb.create_vector(&event_offsets)
        });
        let name = run.name.as_deref().map(|s| fbb.create_string(s));
        run_offsets.push(fb::RunData::create(
            &mut fbb,
            &fb::RunDataArgs {
                name,
                bundled_input_index: run.bundled_input_index,
                allocators: None,
                events,
            },
        ));
    }
    let run_data = fbb.create_vector(&run_offsets);
    let root = fb::ETDump::create(
        &mut fbb,
        &fb::ETDumpArgs {
            version,
            run_data: Some(run_data),
        },
    );
    fb::finish_size_prefixed_etdump_buffer(&mut fbb, root);
    fbb.finished_data().to_vec()
}

/// A profile event with the runtime's usual defaults (chain 0, no delegate id).
pub fn profile(name: &str, instruction_id: i32, start: u64, end: u64) -> BuiltEvent {
    BuiltEvent::Profile(BuiltProfile {
        name: Some(name.to_owned()),
        chain_index: 0,
        instruction_id,
        delegate_int: -1,
        delegate_str: None,
        metadata: None,
        start,
        end,
    })
}

/// An XNNPACK-style delegate event: no name, string id, empty metadata.
pub fn delegate_op(id: &str, instruction_id: i32, start: u64, end: u64) -> BuiltEvent {
    BuiltEvent::Profile(BuiltProfile {
        name: None,
        chain_index: 0,
        instruction_id,
        delegate_int: -1,
        delegate_str: Some(id.to_owned()),
        metadata: Some(Vec::new()),
        start,
        end,
    })
}

/// `runs` Execute blocks shaped like `fixtures/real/mlp_xnnpack.etdp` (3 XNNPACK operators,
/// DELEGATE_CALL, Method::execute), after a Default block: about 85 bytes per event.
pub fn xnnpack_like(runs: usize) -> Vec<BuiltRun> {
    let mut out = Vec::with_capacity(runs + 1);
    out.push(BuiltRun {
        name: Some("Default".into()),
        bundled_input_index: -1,
        events: Some(vec![
            BuiltEvent::Profile(BuiltProfile {
                chain_index: -1,
                instruction_id: 0,
                ..base("Method::init", 100, 900)
            }),
            BuiltEvent::Profile(BuiltProfile {
                chain_index: -1,
                instruction_id: 0,
                ..base("Program::load_method", 50, 950)
            }),
        ]),
    });
    let mut t = 1_000u64;
    for _ in 0..runs {
        let s = t;
        let ops = [
            delegate_op("Fully Connected (NC, F32) GEMM #1", 0, s + 10, s + 38_010),
            delegate_op(
                "Fully Connected (NC, F32) GEMM #2",
                0,
                s + 38_010,
                s + 44_010,
            ),
            delegate_op(
                "Fully Connected (NC, F32) GEMM #3",
                0,
                s + 44_010,
                s + 45_010,
            ),
            profile("DELEGATE_CALL", 0, s + 5, s + 45_500),
            BuiltEvent::Profile(BuiltProfile {
                chain_index: -1,
                instruction_id: 0,
                ..base("Method::execute", s, s + 46_000)
            }),
        ];
        out.push(BuiltRun {
            name: Some("Execute".into()),
            bundled_input_index: -1,
            events: Some(ops.to_vec()),
        });
        t += 50_000;
    }
    out
}

fn base(name: &str, start: u64, end: u64) -> BuiltProfile {
    match profile(name, 0, start, end) {
        BuiltEvent::Profile(p) => p,
        _ => unreachable!(),
    }
}
