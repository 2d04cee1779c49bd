//! The fast path's reading of `args`, with the memo of runs read before.

use super::super::args::{SigScratch, DIMS, TYPES};
use super::super::memo::{ArgsMemo, SpanRef};
use super::Cursor;

impl Cursor<'_> {
    /// `args`: `Input Dims` and `Input type` (the first of each) into `sig`, every
    /// other member skipped. With the op's name id, the first run of members that
    /// `memo` holds is taken from it, or, read here, kept in it (`memo.rs`); that span,
    /// when the signature is the one it holds.
    pub(super) fn args(
        &mut self,
        sig: &mut SigScratch,
        mut memo: Option<(&mut ArgsMemo, u32)>,
    ) -> Option<Option<SpanRef>> {
        if self.ws()? != b'{' {
            self.skip()?;
            return Some(None);
        }
        self.i += 1;
        if self.closes_at_once(b'}')? {
            return Some(None);
        }
        let mut span = None;
        // The run being read for the memo: its start, and its end so far.
        let mut run: Option<(usize, usize)> = None;
        loop {
            self.ws()?;
            let at = self.i;
            let empty = sig.is_empty();
            if empty && run.is_none() {
                let w = &self.w[at..];
                if let Some((len, r)) = memo.as_mut().and_then(|(m, name)| m.find(*name, w, sig)) {
                    // Taken: no other run of this `args` is looked up or kept.
                    memo = None;
                    span = Some(r);
                    self.i = at + len;
                    if !self.continues(b'}')? {
                        return Some(span);
                    }
                    continue;
                }
            }
            if self.member(sig)? {
                // The signature is no longer the span's.
                span = None;
            }
            if memo.is_some() {
                if matches!(self.w[self.i - 1], b']' | b'}' | b'"') {
                    if run.is_none() && empty {
                        run = Some((at, self.i));
                    } else if let Some((_, end)) = run.as_mut() {
                        *end = self.i;
                    }
                } else if let Some((start, end)) = run.take() {
                    span = keep_run(&mut memo, &self.w[start..end], sig);
                }
            }
            if !self.continues(b'}')? {
                if let Some((start, end)) = run {
                    span = keep_run(&mut memo, &self.w[start..end], sig);
                }
                return Some(span);
            }
        }
    }

    /// One member of `args`, its key and value; whether it was read into `sig`.
    #[inline(always)]
    fn member(&mut self, sig: &mut SigScratch) -> Option<bool> {
        match self.args_key()? {
            DIMS if !sig.has_dims => {
                sig.has_dims = true;
                self.dims(&mut sig.dims).map(|()| true)
            }
            TYPES if !sig.has_types => {
                sig.has_types = true;
                self.types(&mut sig.types).map(|()| true)
            }
            _ => self.skip_member().map(|()| false),
        }
    }

    /// A list (at its `[`), each element handed to `element` (at its first byte); `None`
    /// for anything else.
    #[inline(always)]
    fn list(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.ws()? != b'[' {
            return None;
        }
        self.i += 1;
        if self.closes_at_once(b']')? {
            return Some(());
        }
        loop {
            self.ws()?;
            element(self)?;
            if !self.continues(b']')? {
                return Some(());
            }
        }
    }

    /// `Input Dims`: a list of lists; one input's dims are its plain integers, `[]` when
    /// it holds a list, an object or a literal (as `args::dims` records them).
    fn dims(&mut self, dims: &mut Vec<i64>) -> Option<()> {
        self.list(|c| {
            let mark = dims.len();
            dims.push(0);
            let mut flat = true;
            c.list(|c| {
                match c.w[c.i] {
                    b'0'..=b'9' => {
                        let v = c.plain_int()?;
                        if flat {
                            dims.push(v);
                        }
                    }
                    b'[' | b'{' | b't' | b'f' | b'n' => {
                        flat = false;
                        c.skip()?;
                    }
                    _ => return None,
                }
                Some(())
            })?;
            if flat {
                dims[mark] = (dims.len() - mark - 1) as i64;
            } else {
                dims.truncate(mark + 1);
            }
            Some(())
        })
    }

    /// `Input type`: a list of strings, each kept followed by `\0` (one holding a `\0`
    /// is the scanner's).
    fn types(&mut self, types: &mut String) -> Option<()> {
        self.list(|c| {
            if c.w[c.i] != b'"' {
                return None;
            }
            types.push_str(c.dtype()?);
            types.push('\0');
            Some(())
        })
    }
}

/// The run read from an empty scratch kept in the memo; no other run of this `args`
/// is looked up or kept.
fn keep_run(
    memo: &mut Option<(&mut ArgsMemo, u32)>,
    text: &[u8],
    sig: &SigScratch,
) -> Option<SpanRef> {
    let (m, name) = memo.take()?;
    m.keep(name, text, sig)
}
