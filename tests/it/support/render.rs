//! What a frame draws, as text: one line per terminal row, trailing blanks cut. Shared by
//! the render snapshot tests.
#![allow(dead_code)]

use ratatui::backend::TestBackend;
use ratatui::{Frame, Terminal};

/// Draw one frame of `width` x `height` cells with `draw` and return its text.
pub fn frame_text(width: u16, height: u16, draw: impl FnOnce(&mut Frame)) -> String {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(draw).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
