//! A character cursor over TGSI text that tracks line and column.
//!
//! As in Mesa's parser, blanks, tabs, carriage returns and newlines are all white space: a
//! statement may span lines and several statements may share one. Errors still point where a
//! reader looks: when what was expected is missing at the end of a line, the error names that
//! line's end (see [`Cursor::error_point`]), not the next line's first token.

/// A place in the text: byte offset, 1-based line, and the offset where that line starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark {
    pos: usize,
    line: u32,
    line_start: usize,
}

impl Mark {
    fn position(self) -> (u32, u32) {
        (self.line, (self.pos - self.line_start) as u32 + 1)
    }
}

/// Position-tracking scanner.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    src: &'a [u8],
    at: Mark,
    /// Just after the last character that was consumed and was not white space (or the start
    /// of the current statement): errors about something missing are reported from here.
    last_end: Mark,
}

fn is_white(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        let start = Mark {
            pos: 0,
            line: 1,
            line_start: 0,
        };
        Cursor {
            src: src.as_bytes(),
            at: start,
            last_end: start,
        }
    }

    /// 1-based (line, column) of the cursor.
    pub fn position(&self) -> (u32, u32) {
        self.at.position()
    }

    pub fn peek(&self) -> Option<u8> {
        self.src.get(self.at.pos).copied()
    }

    pub fn peek_at(&self, k: usize) -> Option<u8> {
        self.src.get(self.at.pos + k).copied()
    }

    /// Consumes one character.
    pub fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.at.pos += 1;
        if c == b'\n' {
            self.at.line += 1;
            self.at.line_start = self.at.pos;
        }
        if !is_white(c) {
            self.last_end = self.at;
        }
        Some(c)
    }

    /// Consumes `n` characters that are not white space (the caller checked them).
    fn advance_token(&mut self, n: usize) {
        self.at.pos += n;
        self.last_end = self.at;
    }

    /// Skips white space: blanks, tabs, carriage returns and newlines.
    pub fn blanks(&mut self) {
        while matches!(self.peek(), Some(c) if is_white(c)) {
            self.bump();
        }
    }

    /// Marks the start of a statement: an error about a missing part of the statement is
    /// reported from here on, never back on an earlier line.
    pub fn start_statement(&mut self) {
        self.blanks();
        self.last_end = self.at;
    }

    /// Whether the last token read is followed by white space or the end of the input, as
    /// Mesa requires between two statements.
    pub fn token_separated(&self) -> bool {
        self.src.get(self.last_end.pos).is_none_or(|&c| is_white(c))
    }

    /// Consumes `c` (after white space) if it is next.
    pub fn eat(&mut self, c: u8) -> bool {
        self.blanks();
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// After white space, the next character without consuming it.
    pub fn peek_blank(&mut self) -> Option<u8> {
        self.blanks();
        self.peek()
    }

    /// Reads a word of letters, digits and underscores (possibly empty).
    pub fn word(&mut self) -> &'a str {
        self.blanks();
        let start = self.at.pos;
        let mut end = start;
        while matches!(self.src.get(end), Some(&c) if c.is_ascii_alphanumeric() || c == b'_') {
            end += 1;
        }
        if end > start {
            self.advance_token(end - start);
        }
        // The bytes are ASCII, so this is valid UTF-8.
        std::str::from_utf8(&self.src[start..end]).unwrap_or("")
    }

    /// The word starting at the cursor, without consuming it.
    pub fn peek_word(&mut self) -> &'a str {
        let mut copy = self.clone();
        copy.word()
    }

    /// Reads a run of characters that can form a number (`-`, digits, letters, `.`, `+`
    /// after an exponent letter).
    pub fn number_text(&mut self) -> &'a str {
        self.blanks();
        let start = self.at.pos;
        let mut end = start;
        if matches!(self.src.get(end), Some(b'-' | b'+')) {
            end += 1;
        }
        while let Some(&c) = self.src.get(end) {
            let exp_sign = (c == b'-' || c == b'+')
                && matches!(self.src.get(end - 1), Some(b'e' | b'E'))
                && !self.src[start..end].starts_with(b"0x");
            if c.is_ascii_alphanumeric() || c == b'.' || exp_sign {
                end += 1;
            } else {
                break;
            }
        }
        if end > start {
            self.advance_token(end - start);
        }
        std::str::from_utf8(&self.src[start..end]).unwrap_or("")
    }

    /// Reads an unsigned integer literal: decimal digits, or `0x` and hex digits.
    pub fn integer_text(&mut self) -> &'a str {
        self.blanks();
        let start = self.at.pos;
        let mut end = start;
        let hex = self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X'));
        if hex {
            end += 2;
        }
        while matches!(self.src.get(end), Some(c) if c.is_ascii_digit() || hex && c.is_ascii_hexdigit())
        {
            end += 1;
        }
        if end > start {
            self.advance_token(end - start);
        }
        std::str::from_utf8(&self.src[start..end]).unwrap_or("")
    }

    /// Where an error about something missing belongs, and what is there instead.
    ///
    /// From the end of the last token: if the line ends before anything else comes, the error
    /// is at the end of that line ("end of line"); at the end of the input, there ("end of
    /// input"); otherwise at the next token, which is described.
    pub fn error_point(&self) -> ((u32, u32), String) {
        // Only white space lies between the last token's end and the cursor.
        let mut c = self.clone();
        c.at = self.last_end;
        while matches!(c.peek(), Some(b' ' | b'\t' | b'\r')) {
            c.at.pos += 1;
        }
        let pos = c.position();
        let found = match c.peek() {
            None => "end of input".into(),
            Some(b'\n') => "end of line".into(),
            Some(ch) if ch.is_ascii_alphanumeric() || ch == b'_' => {
                format!("`{}`", c.clone().word())
            }
            Some(ch) if ch.is_ascii_graphic() => format!("`{}`", ch as char),
            Some(ch) => format!("byte {ch:#04x}"),
        };
        (pos, found)
    }
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    #[test]
    fn newlines_are_white_space_and_positions_follow_them() {
        let mut c = Cursor::new("A\n  B  C");
        assert_eq!(c.word(), "A");
        assert_eq!(c.word(), "B");
        assert_eq!(c.position(), (2, 4));
        assert_eq!(c.word(), "C");
        assert_eq!(c.position(), (2, 7));
        assert!(c.token_separated());
    }

    #[test]
    fn a_missing_token_is_reported_at_the_end_of_its_line() {
        let mut c = Cursor::new("A [0 \n B");
        c.word();
        assert!(c.eat(b'['));
        c.integer_text();
        assert!(!c.eat(b']'));
        assert_eq!(c.error_point(), ((1, 6), "end of line".to_string()));
        let mut c = Cursor::new("A [0");
        c.word();
        c.eat(b'[');
        c.integer_text();
        c.blanks();
        assert_eq!(c.error_point(), ((1, 5), "end of input".to_string()));
        let mut c = Cursor::new("A  B");
        c.word();
        c.blanks();
        assert_eq!(c.error_point(), ((1, 4), "`B`".to_string()));
    }

    #[test]
    fn adjacent_tokens_are_not_separated() {
        let mut c = Cursor::new("A]B");
        c.word();
        assert!(!c.token_separated());
        c.bump();
        c.word();
        assert!(c.token_separated());
    }
}
