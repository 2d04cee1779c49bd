mod program_generated;
pub use program_generated::*;
