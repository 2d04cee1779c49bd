//! Styles. With `NO_COLOR` set the theme uses no colours, only modifiers.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colours unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    pub fn plain() -> Theme {
        Theme { color: false }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }
    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            self.fg(Color::Gray)
        }
    }
    pub fn selected(&self, focused: bool) -> Style {
        match (self.color, focused) {
            (true, true) => Style::new()
                .bg(Color::Blue)
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            (true, false) => Style::new().bg(Color::DarkGray),
            (false, true) => Style::new().add_modifier(Modifier::REVERSED),
            (false, false) => Style::new().add_modifier(Modifier::UNDERLINED),
        }
    }
    pub fn header_cell(&self, sorted: bool) -> Style {
        let s = self.fg(Color::Yellow).add_modifier(Modifier::BOLD);
        if sorted {
            s.add_modifier(Modifier::UNDERLINED)
        } else {
            s
        }
    }
    pub fn error(&self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }
    pub fn error_text(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    /// A run slower than the one before.
    pub fn slower(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// A run faster than the one before.
    pub fn faster(&self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }
    pub fn bar(&self) -> Style {
        self.fg(Color::Green)
    }
    pub fn kept(&self) -> Style {
        self.fg(Color::Cyan)
    }
    pub fn warmup(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Magenta)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }
    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    pub fn gauge(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Cyan).bg(Color::Black)
        } else {
            Style::new()
        }
    }
}
