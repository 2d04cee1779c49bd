//! Rendering: one module per pane, render only.
