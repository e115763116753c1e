//! A character cursor over TGSI text that tracks line and column.

/// Position-tracking scanner. Newlines are significant (they end statements); spaces, tabs and
/// carriage returns are blanks.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    src: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor {
            src: src.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// 1-based (line, column) of the cursor.
    pub fn position(&self) -> (u32, u32) {
        (self.line, (self.pos - self.line_start) as u32 + 1)
    }

    pub fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    pub fn peek_at(&self, k: usize) -> Option<u8> {
        self.src.get(self.pos + k).copied()
    }

    pub fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
            self.line_start = self.pos;
        }
        Some(c)
    }

    /// Skips blanks on the current line.
    pub fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Skips blanks and newlines.
    pub fn blank_lines(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    /// After blanks: is the line (or input) over?
    pub fn at_line_end(&mut self) -> bool {
        self.blanks();
        matches!(self.peek(), None | Some(b'\n'))
    }

    /// Consumes `c` (after blanks) if it is next.
    pub fn eat(&mut self, c: u8) -> bool {
        self.blanks();
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// After blanks, the next character without consuming it.
    pub fn peek_blank(&mut self) -> Option<u8> {
        self.blanks();
        self.peek()
    }

    /// Reads a word of letters, digits and underscores (possibly empty).
    pub fn word(&mut self) -> &'a str {
        self.blanks();
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
            self.pos += 1;
        }
        // The bytes are ASCII, so this is valid UTF-8.
        std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("")
    }

    /// The word starting at the cursor, without consuming it.
    pub fn peek_word(&mut self) -> &'a str {
        let save = self.pos;
        let w = self.word();
        self.pos = save;
        w
    }

    /// Reads a run of characters that can form a number (`-`, digits, letters, `.`, `+`
    /// after an exponent letter).
    pub fn number_text(&mut self) -> &'a str {
        self.blanks();
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        while let Some(c) = self.peek() {
            let exp_sign = (c == b'-' || c == b'+')
                && matches!(self.src.get(self.pos - 1), Some(b'e' | b'E'))
                && !self.src[start..self.pos].starts_with(b"0x");
            if c.is_ascii_alphanumeric() || c == b'.' || exp_sign {
                self.pos += 1;
            } else {
                break;
            }
        }
        std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("")
    }

    /// Reads an unsigned integer literal: decimal digits, or `0x` and hex digits.
    pub fn integer_text(&mut self) -> &'a str {
        self.blanks();
        let start = self.pos;
        let hex = self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X'));
        if hex {
            self.pos += 2;
        }
        while matches!(self.peek(), Some(c) if c.is_ascii_digit() || hex && c.is_ascii_hexdigit()) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("")
    }

    /// A short description of what is at the cursor, for error messages.
    pub fn describe_next(&mut self) -> String {
        self.blanks();
        match self.peek() {
            None => "end of input".into(),
            Some(b'\n') => "end of line".into(),
            Some(c) if c.is_ascii_alphanumeric() || c == b'_' => format!("`{}`", self.peek_word()),
            Some(c) if c.is_ascii_graphic() => format!("`{}`", c as char),
            Some(c) => format!("byte {c:#04x}"),
        }
    }

    /// Moves to just after the next newline (error recovery is not attempted; used to skip).
    pub fn rest_of_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == b'\n' {
                break;
            }
        }
    }
}
