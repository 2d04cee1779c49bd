//! String interning: a big dump repeats a few dozen names millions of times.

use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

#[derive(Debug, Clone, Default)]
pub struct NameTable {
    names: Vec<Box<str>>,
    index: HashMap<Box<str>, NameId>,
}

impl NameTable {
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: NameId) -> &str {
        &self.names[id.0 as usize]
    }

    pub fn find(&self, s: &str) -> Option<NameId> {
        self.index.get(s).copied()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
