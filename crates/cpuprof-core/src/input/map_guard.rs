//! Surviving a mapped file that shrinks under us.
//!
//! A read-only map of a regular file is only as long-lived as the file's length: when
//! another process truncates the file (a runner rewriting its dump in place, an editor
//! saving over it), touching a page of the map past the new end raises SIGBUS, whose
//! default action kills the process, here with the explorer's terminal left raw. The
//! decoder reads the map as plain memory, so there is no error path to take: the
//! fault has to be answered where it happens.
//!
//! So every map made by [`crate::input::read_input_mapped`] is registered in a small
//! fixed table ([`register`]), and a SIGBUS handler (installed once, `SA_SIGINFO`) looks
//! the faulting address up in it. Inside a registered map, it maps anonymous zero pages
//! over the rest of that map (`mmap(MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE)`, read-only
//! like the file map), marks the map as faulted and returns: the faulting load runs
//! again and reads zeros. The checked decoder then fails on the zeros or finishes on
//! what it read, and the loader asks [`faulted`] (and compares the file's size and
//! mtime) before believing either: a changed file is one line, "changed while reading".
//!
//! Outside every registered map the fault is not ours: the handler puts back the
//! action it replaced (Rust's own stack-overflow handler, or the default) and returns,
//! so the access faults again and gets exactly the behaviour it had without us.
//!
//! The table is lock-free (atomics only) because a signal handler may not take a lock
//! that the interrupted thread could hold. `mmap` is not on POSIX's list of
//! async-signal-safe functions, but on Linux it is a plain system call with no user-space
//! state; this module is therefore Linux-only, and elsewhere files are read, not mapped
//! ([`available`] is false).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Live maps at once (the explorer holds one dump, watch mode a few, a CTF trace one per
/// stream file): a map that finds no free slot is not made, and the file is read instead.
const SLOTS: usize = 4096;

/// A slot's `start` while it is being filled in (never a page-aligned address).
const CLAIMED: usize = 1;

struct Slot {
    /// Address of the map, 0 when the slot is free, [`CLAIMED`] while it is filled in.
    start: AtomicUsize,
    len: AtomicUsize,
    /// Set by the handler when it replaced pages of this map with zeros.
    faulted: AtomicBool,
    /// Bytes the decoder has finished with ([`crate::input::release_mapped_pages`]):
    /// the loader's progress through a map.
    released: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
    released: AtomicU64::new(0),
};

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// One past the highest slot ever claimed: lookups scan `TABLE[..HIGH]` only, so a
/// process holding a few maps pays for a few slots.
static HIGH: AtomicUsize = AtomicUsize::new(0);

fn used() -> &'static [Slot] {
    &TABLE[..HIGH.load(Ordering::Acquire).min(SLOTS)]
}

/// Whether maps are guarded on this platform (and the handler could be installed).
pub fn available() -> bool {
    imp::install()
}

/// Register the map at `start..start + len`; the slot to pass to the other functions, or
/// None when the table is full or no guard can be installed (then do not map).
pub fn register(start: usize, len: usize) -> Option<usize> {
    if !available() || start <= CLAIMED {
        return None;
    }
    for (i, slot) in TABLE.iter().enumerate() {
        if slot
            .start
            .compare_exchange(0, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            slot.len.store(len, Ordering::Relaxed);
            slot.faulted.store(false, Ordering::Relaxed);
            slot.released.store(0, Ordering::Relaxed);
            // Before `start` is published: the handler scans up to HIGH.
            HIGH.fetch_max(i + 1, Ordering::AcqRel);
            // Published last: the handler reads `start` first (Acquire), then `len`.
            slot.start.store(start, Ordering::Release);
            return Some(i);
        }
    }
    None
}

/// Forget slot `slot` (before its map is unmapped).
pub fn unregister(slot: usize) {
    if let Some(s) = TABLE.get(slot) {
        s.start.store(0, Ordering::Release);
    }
}

/// Whether pages of the map in `slot` were replaced by zeros (its file was truncated
/// while mapped).
pub fn faulted(slot: usize) -> bool {
    TABLE
        .get(slot)
        .is_some_and(|s| s.faulted.load(Ordering::Acquire))
}

/// The slot whose map holds all of `start..end`, if any.
pub fn slot_of(start: usize, end: usize) -> Option<usize> {
    used().iter().position(|s| {
        let base = s.start.load(Ordering::Acquire);
        base > CLAIMED && base <= start && end <= base + s.len.load(Ordering::Relaxed)
    })
}

/// Count `bytes` more as done with in `slot`.
pub fn add_released(slot: usize, bytes: u64) {
    if let Some(s) = TABLE.get(slot) {
        s.released.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// Bytes counted done with in `slot` so far.
pub fn released(slot: usize) -> u64 {
    TABLE
        .get(slot)
        .map_or(0, |s| s.released.load(Ordering::Relaxed))
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod imp {
    use super::{used, CLAIMED};
    use std::sync::atomic::Ordering;
    use std::sync::OnceLock;

    /// The SIGBUS action replaced by ours, put back for faults that are not ours.
    struct Previous(libc::sigaction);
    // SAFETY: a plain C struct of a handler address, flags and a signal mask; it is only
    // read after it was written once (OnceLock).
    unsafe impl Sync for Previous {}
    unsafe impl Send for Previous {}

    static PREVIOUS: OnceLock<Option<Previous>> = OnceLock::new();
    static PAGE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(4096);

    /// Install the handler once; whether it is in place.
    pub fn install() -> bool {
        PREVIOUS
            .get_or_init(|| {
                // SAFETY: sysconf and sigaction with valid, zero-initialised structs.
                unsafe {
                    let page = libc::sysconf(libc::_SC_PAGESIZE);
                    if page > 0 {
                        PAGE.store(page as usize, Ordering::Relaxed);
                    }
                    let mut ours: libc::sigaction = std::mem::zeroed();
                    ours.sa_sigaction = on_sigbus as *const () as usize;
                    // SA_ONSTACK: the fault may come from a thread near its stack end
                    // (std gives its threads an alternate signal stack).
                    ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut ours.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    (libc::sigaction(libc::SIGBUS, &ours, &mut old) == 0).then_some(Previous(old))
                }
            })
            .is_some()
    }

    extern "C" fn on_sigbus(
        _sig: libc::c_int,
        info: *mut libc::siginfo_t,
        _ctx: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for slot in used() {
            let start = slot.start.load(Ordering::Acquire);
            if start <= CLAIMED {
                continue;
            }
            let len = slot.len.load(Ordering::Relaxed);
            if addr < start || addr >= start + len {
                continue;
            }
            // Every page from the faulting one to the end of the map lies past the
            // file's new end: zeros over all of them (one fault, not one per page).
            let from = addr & !(page - 1);
            let to = (start + len).div_ceil(page) * page;
            // SAFETY: [from, to) lies inside a map this process made and still holds
            // (registered until just before it is unmapped); MAP_FIXED replaces those
            // pages of it, and the later munmap of the whole map removes these too.
            let zeros = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    to - from,
                    libc::PROT_READ,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                slot.faulted.store(true, Ordering::Release);
                return; // the load runs again and reads zeros
            }
            break;
        }
        // Not ours (or the zeros could not be mapped): the previous action takes the
        // repeated fault, so it ends the process as it would have without us.
        if let Some(Some(Previous(old))) = PREVIOUS.get() {
            // SAFETY: sigaction is async-signal-safe; `old` came from sigaction.
            unsafe {
                libc::sigaction(libc::SIGBUS, old, std::ptr::null_mut());
            }
        } else {
            // SAFETY: as above, with a zeroed struct meaning SIG_DFL.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod imp {
    /// No guard here: files are read, never mapped.
    pub fn install() -> bool {
        false
    }
}
