//! The lexer: words, punctuation and line ends, each with its position.
//!
//! A word is a run of ASCII letters, digits and `_` (`ssa_7`, `iadd`, `0x3f800000`, `8x8`);
//! the parser splits it further. `;` comments run to the line end; `/* */` comments are
//! whitespace (a line end inside one does not count). Any other character is an error.

use super::Pos;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// A run of letters, digits and underscores.
    Word(&'a str),
    /// One of `: , = ( ) { } [ ] .`.
    Punct(char),
    /// The end of a line.
    Newline,
    /// The end of the input (always the last token).
    Eof,
}

impl std::fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Newline => f.write_str("end of line"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token.
    pub tok: Tok<'a>,
    /// Where it starts.
    pub pos: Pos,
}

/// Splits `text` into tokens ending with [`Tok::Eof`], or returns the position and message
/// of the first character that cannot start a token (or an unclosed `/*`).
pub fn lex(text: &str) -> Result<Vec<Token<'_>>, (Pos, String)> {
    let mut out = Vec::new();
    let mut line = 1u32;
    let mut col = 1u32;
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        let pos = Pos { line, col };
        if c == '\n' {
            out.push(Token {
                tok: Tok::Newline,
                pos,
            });
            chars.next();
            line = line.saturating_add(1);
            col = 1;
        } else if c.is_whitespace() {
            chars.next();
            col = col.saturating_add(1);
        } else if c == ';' {
            while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                chars.next();
            }
        } else if c == '/' && text[i..].starts_with("/*") {
            chars.next();
            chars.next();
            col = col.saturating_add(2);
            let mut closed = false;
            while let Some((j, c)) = chars.next() {
                if c == '\n' {
                    line = line.saturating_add(1);
                    col = 1;
                } else if c == '*' && text[j..].starts_with("*/") {
                    chars.next();
                    col = col.saturating_add(2);
                    closed = true;
                    break;
                } else {
                    col = col.saturating_add(1);
                }
            }
            if !closed {
                return Err((pos, "unterminated `/*` comment".to_string()));
            }
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut end = i;
            while let Some(&(j, c)) = chars.peek() {
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    break;
                }
                end = j + 1;
                chars.next();
                col = col.saturating_add(1);
            }
            out.push(Token {
                tok: Tok::Word(&text[i..end]),
                pos,
            });
        } else if ":,=(){}[].-".contains(c) {
            out.push(Token {
                tok: Tok::Punct(c),
                pos,
            });
            chars.next();
            col = col.saturating_add(1);
        } else {
            return Err((pos, format!("unexpected character {c:?}")));
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, col },
    });
    Ok(out)
}
