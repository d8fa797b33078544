//! Software scoreboarding (Gen12+): the byte (bits 15:8) through which the compiler, not the
//! hardware, orders dependent instructions. It names an in-order dependency ("wait until the
//! n-th previous instruction of this pipe is done", RegDist) and/or an out-of-order one
//! through one of 16 scoreboard tokens (SBID): an unordered instruction (send, math, and on
//! Meteor Lake 64-bit float) *sets* its token, later instructions wait for the token's
//! destination or source to be free.
//!
//! Decoding follows `tgl_swsb_decode` (`src/intel/compiler/brw_eu_defines.h:1082-1160`, Mesa
//! 25.0.7; Xe2's 10-bit form at :1086-1135), printing `swsb` (`brw_disasm.c:1873-1899`):
//! `A@1 $3.dst`.

/// The in-order pipe a RegDist dependency counts in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// Gen12 (Tiger Lake) has one in-order pipe for the purpose: the distance alone.
    #[default]
    None,
    /// The float pipe (`F@n`).
    Float,
    /// The integer pipe (`I@n`).
    Int,
    /// The long (64-bit) pipe (`L@n`).
    Long,
    /// The math pipe (`M@n`).
    Math,
    /// Every pipe (`A@n`).
    All,
}

/// What a scoreboard token means for this instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// It sets the token (an unordered instruction starting).
    Set,
    /// It waits until the token's instruction wrote its destination (`$n.dst`).
    Dst,
    /// It waits until the token's instruction read its sources (`$n.src`).
    Src,
}

/// A decoded SWSB annotation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Swsb {
    /// In-order distance (0: none).
    pub regdist: u8,
    /// The pipe the distance counts in.
    pub pipe: Pipe,
    /// The scoreboard token, 0-15 (0-31 on Xe2).
    pub sbid: u8,
    /// What the token means, if the byte names one.
    pub token: Option<Token>,
}

impl Swsb {
    /// Decodes the SWSB byte of an instruction; `unordered` says whether the instruction runs
    /// out of order (it then sets the token a combined RegDist+SBID byte names).
    pub fn decode(x: u8, unordered: bool) -> Swsb {
        let sbid = x & 0xf;
        let token = |t| Swsb {
            sbid,
            token: Some(t),
            ..Swsb::default()
        };
        if x & 0x80 != 0 {
            return Swsb {
                regdist: (x & 0x70) >> 4,
                pipe: Pipe::None,
                sbid,
                token: Some(if unordered { Token::Set } else { Token::Dst }),
            };
        }
        match x & 0x70 {
            0x20 => return token(Token::Dst),
            0x30 => return token(Token::Src),
            0x40 => return token(Token::Set),
            _ => {}
        }
        Swsb {
            regdist: x & 0x7,
            pipe: match x & 0x78 {
                0x10 => Pipe::Float,
                0x18 => Pipe::Int,
                0x50 => Pipe::Long,
                0x08 => Pipe::All,
                _ => Pipe::None,
            },
            sbid: 0,
            token: None,
        }
    }

    /// Decodes Xe2's 10-bit SWSB field (bits 17:8): 32 tokens, and a RegDist with a token in
    /// one byte whose pipe and token meaning depend on whether the instruction is a send.
    pub fn decode_xe2(x: u16, send: bool) -> Swsb {
        let sbid = (x & 0x1f) as u8;
        if x & 0x300 != 0 {
            let regdist = ((x & 0xe0) >> 5) as u8;
            if send {
                return Swsb {
                    regdist,
                    pipe: match x & 0x300 {
                        0x300 => Pipe::Int,
                        0x200 => Pipe::Float,
                        _ => Pipe::All,
                    },
                    sbid,
                    token: Some(Token::Set),
                };
            }
            return Swsb {
                regdist,
                pipe: if x & 0x300 == 0x300 {
                    Pipe::All
                } else {
                    Pipe::None
                },
                sbid,
                token: Some(if x & 0x300 == 0x200 {
                    Token::Src
                } else {
                    Token::Dst
                }),
            };
        }
        let token = |t| Swsb {
            sbid,
            token: Some(t),
            ..Swsb::default()
        };
        match x & 0xe0 {
            0x80 => return token(Token::Dst),
            0xa0 => return token(Token::Src),
            0xc0 => return token(Token::Set),
            _ => {}
        }
        Swsb {
            regdist: (x & 0x7) as u8,
            pipe: match x & 0x38 {
                0x10 => Pipe::Float,
                0x18 => Pipe::Int,
                0x20 => Pipe::Long,
                0x28 => Pipe::Math,
                0x08 => Pipe::All,
                _ => Pipe::None,
            },
            sbid: 0,
            token: None,
        }
    }

    /// brw's text: ` A@1 $3.dst` (each part with its leading space), empty for none.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if self.regdist != 0 {
            let pipe = match self.pipe {
                Pipe::None => "",
                Pipe::Float => "F",
                Pipe::Int => "I",
                Pipe::Long => "L",
                Pipe::Math => "M",
                Pipe::All => "A",
            };
            s += &format!(" {pipe}@{}", self.regdist);
        }
        if let Some(t) = self.token {
            let suffix = match t {
                Token::Set => "",
                Token::Dst => ".dst",
                Token::Src => ".src",
            };
            s += &format!(" ${}{suffix}", self.sbid);
        }
        s
    }
}
