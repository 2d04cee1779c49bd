mod etdump_generated;
pub use etdump_generated::*;
