//! Colour in the tables of `mark`, `compare` and `diagnose`: when it is on, and the
//! styles. The decision is one pure function ([`decide`]) so its rules are tested
//! without a terminal:
//!
//! - `--color=always` / `--color=never` win (a per-command choice overrides the
//!   environment, as no-color.org asks);
//! - otherwise (`--color=auto`, the default) colour is on only when stdout is a
//!   terminal, `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
//!
//! Escape sequences come from `anstyle`; text that goes to a file or a pipe never
//! carries one, so reports stay byte-identical when redirected.

use anstyle::{AnsiColor, Style};
use std::io::IsTerminal;

/// The `--color` choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum When {
    /// colour when stdout is a terminal and the environment does not say no
    #[default]
    Auto,
    /// always colour
    Always,
    /// never colour
    Never,
}

/// The words `--color` accepts.
pub const WHEN_WORDS: [&str; 3] = ["auto", "always", "never"];

impl When {
    /// Parse `--color=WHEN` (a clap value parser).
    pub fn parse(s: &str) -> Result<When, String> {
        match s {
            "auto" => Ok(When::Auto),
            "always" => Ok(When::Always),
            "never" => Ok(When::Never),
            _ => Err(format!("accepted: {}", WHEN_WORDS.join(", "))),
        }
    }
}

/// Whether to colour: `when`, the values of `NO_COLOR` and `TERM` (None when unset), and
/// whether stdout is a terminal.
pub fn decide(when: When, no_color: Option<&str>, term: Option<&str>, stdout_tty: bool) -> bool {
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => stdout_tty && no_color.is_none_or(str::is_empty) && term != Some("dumb"),
    }
}

/// [`decide`] for this process (environment and stdout as they are).
pub fn enabled(when: When) -> bool {
    let var = |k: &str| std::env::var(k).ok();
    decide(
        when,
        var("NO_COLOR").as_deref(),
        var("TERM").as_deref(),
        std::io::stdout().is_terminal(),
    )
}

/// What a piece of text is, which decides its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// a table's header line
    Header,
    /// the first column: a test or phase name
    Name,
    /// better than the baseline, or fine
    Good,
    /// worse than the baseline
    Bad,
    /// a warning: worth a look
    Warn,
    /// a limit found (diagnose's LIMIT)
    Limit,
    /// information, footnotes
    Dim,
}

fn style(role: Role) -> Style {
    match role {
        Role::Header => Style::new().bold(),
        Role::Name => AnsiColor::Cyan.on_default(),
        Role::Good => AnsiColor::Green.on_default(),
        Role::Bad => AnsiColor::Red.on_default(),
        Role::Warn => AnsiColor::Yellow.on_default(),
        Role::Limit => AnsiColor::Red.on_default().bold(),
        Role::Dim => Style::new().dimmed(),
    }
}

/// Styles text when colour is on, returns it unchanged otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint {
    /// colour on
    pub on: bool,
}

impl Paint {
    /// A painter for `when` in this process (see [`enabled`]).
    pub fn new(when: When) -> Self {
        Paint { on: enabled(when) }
    }

    /// `text` in the style of `role` (unchanged when colour is off or `text` is blank).
    pub fn paint(&self, role: Role, text: &str) -> String {
        if !self.on || text.trim().is_empty() {
            return text.to_string();
        }
        let s = style(role);
        format!("{}{text}{}", s.render(), s.render_reset())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_wins_then_no_color_then_the_terminal() {
        // --color=always / never override everything
        assert!(decide(When::Always, Some("1"), Some("dumb"), false));
        assert!(!decide(When::Never, None, Some("xterm"), true));
        // auto: a terminal, no NO_COLOR, a real TERM
        assert!(decide(When::Auto, None, Some("xterm-256color"), true));
        assert!(decide(When::Auto, None, None, true));
        assert!(!decide(When::Auto, None, Some("xterm"), false), "not a TTY");
        assert!(
            !decide(When::Auto, Some("1"), Some("xterm"), true),
            "NO_COLOR set"
        );
        assert!(
            decide(When::Auto, Some(""), Some("xterm"), true),
            "empty NO_COLOR is unset"
        );
        assert!(!decide(When::Auto, None, Some("dumb"), true), "TERM=dumb");
    }

    #[test]
    fn words_and_styles() {
        assert_eq!(When::parse("never"), Ok(When::Never));
        assert_eq!(When::parse("always"), Ok(When::Always));
        assert_eq!(When::parse("auto"), Ok(When::Auto));
        assert_eq!(
            When::parse("yes").unwrap_err(),
            "accepted: auto, always, never"
        );
        let off = Paint { on: false };
        assert_eq!(off.paint(Role::Bad, "0.42x"), "0.42x");
        let on = Paint { on: true };
        assert_eq!(on.paint(Role::Bad, "0.42x"), "\x1b[31m0.42x\x1b[0m");
        assert_eq!(on.paint(Role::Header, "test"), "\x1b[1mtest\x1b[0m");
        assert_eq!(on.paint(Role::Name, "  "), "  ", "blank text is not styled");
    }
}
