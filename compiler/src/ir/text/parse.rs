//! The parser: header declarations, then the control-flow structure line by line
//! ([`super::read`] runs it, then the checks, then assembles the program).
//!
//! Values and blocks are named by number; an instruction's operands are stored as the
//! numbers they name, and everything that needs all definitions (undefined values, unknown
//! phi predecessors, operand types) is checked by [`super::check`] once the body is read, so
//! forward references (loop back-edges) need no special case. The layout invariants of
//! [`Function`] are enforced here: every list starts and ends with a block, no two blocks
//! are adjacent, phis come first and a jump comes last in a block, `break`/`continue` only
//! inside a loop. Numbers of values and blocks are bounded and nesting depth is limited, so
//! no input can exhaust memory or the stack.

use super::super::{
    BitSize, Block, BlockData, CfNode, Function, IfNode, Inst, LoopNode, Program, Type, Value,
    ValueData, VarType,
};
use super::lex::{Tok, Token};
use super::limits::Limits;
use super::{ParseError, Pos};
use sim::dispatch::{Dispatch, WORKGROUP_SIZES};
use sim::semantics::TextureDesc;

/// Largest value or block number accepted (numbers are dense indices into maps).
pub const MAX_ENTITY: u32 = (1 << 20) - 1;
/// Deepest nesting of ifs, loops and variable types accepted.
pub const MAX_DEPTH: usize = 128;

impl<'a> Parser<'a> {
    /// A parser of `toks` (from `file`, for messages) within `limits`.
    pub(super) fn new(file: &'a str, toks: Vec<Token<'a>>, limits: &Limits) -> Parser<'a> {
        Parser {
            file,
            toks,
            i: 0,
            func: Function::default(),
            values: Vec::new(),
            block_defs: Vec::new(),
            block_insts: Vec::new(),
            deferred: Vec::new(),
            cur: None,
            cur_nonphi: false,
            cur_jump: None,
            loop_depth: 0,
            depth: 0,
            limits: *limits,
        }
    }

    /// Reads the header and the body: the program's dispatch. What needs every definition is
    /// [`super::check`]'s, before [`Parser::finish`].
    pub(super) fn read(&mut self) -> PResult<Dispatch> {
        let dispatch = self.header()?;
        self.func.body = self.list(None)?;
        Ok(dispatch)
    }

    /// The program read, its gaps filled with placeholder values and empty blocks.
    pub(super) fn finish(mut self, dispatch: Dispatch) -> Program {
        let mut func = std::mem::take(&mut self.func);
        for d in &self.values {
            func.values.push(match d {
                Some(d) => ValueData {
                    ty: d.ty,
                    def: d.inst.into(),
                },
                None => ValueData {
                    ty: Type::I32,
                    def: None.into(),
                },
            });
        }
        for insts in self.block_insts {
            func.blocks.push(BlockData { insts });
        }
        Program { dispatch, func }
    }
}

pub(super) fn error(file: &str, pos: Pos, message: String) -> ParseError {
    ParseError {
        file: file.to_string(),
        line: pos.line,
        col: pos.col,
        message,
    }
}

/// A value's definition, as the parser records it.
pub(super) struct ValueDef {
    pub ty: Type,
    pub inst: Inst,
    pub pos: Pos,
}

/// What the deferred checks need to know about one instruction.
pub(super) struct InstInfo {
    pub inst: Inst,
    /// The declared result type, or the opcode when there is no result.
    pub ty_pos: Pos,
    /// Each value operand, in [`InstKind::visit_args`] order.
    pub ops: Vec<Pos>,
    /// Each phi source's block.
    pub blocks: Vec<Pos>,
    /// The swizzle of a `mov`, the field of a `deref_struct`.
    pub extra: Pos,
}

/// A check that waits for the whole body.
pub(super) enum Deferred {
    Inst(InstInfo),
    Cond(Value, Pos),
}

/// The parser's state; [`super::inst`] parses instructions, [`super::check`] reads the
/// definitions.
pub(super) struct Parser<'a> {
    pub file: &'a str,
    pub toks: Vec<Token<'a>>,
    pub i: usize,
    pub func: Function,
    pub values: Vec<Option<ValueDef>>,
    pub block_defs: Vec<Option<Pos>>,
    pub block_insts: Vec<Vec<Inst>>,
    pub deferred: Vec<Deferred>,
    /// The block instructions go to; none right after a `{` or `}`.
    pub cur: Option<Block>,
    /// Whether the current block has a non-phi instruction yet.
    pub cur_nonphi: bool,
    /// The jump ending the current block, if any.
    pub cur_jump: Option<&'static str>,
    pub loop_depth: usize,
    pub depth: usize,
    pub limits: Limits,
}

pub(super) type PResult<T> = Result<T, ParseError>;

pub(super) fn vec_comps(w: &str) -> Option<u8> {
    match w {
        "vec1" => Some(1),
        "vec2" => Some(2),
        "vec3" => Some(3),
        "vec4" => Some(4),
        _ => None,
    }
}

pub(super) fn parse_u32(w: &str) -> Result<u32, String> {
    let (digits, radix) = match w.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (w, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("malformed number `{w}`"));
    }
    u32::from_str_radix(digits, radix).map_err(|_| format!("number `{w}` does not fit in 32 bits"))
}

impl<'a> Parser<'a> {
    pub(super) fn err<T>(&self, pos: Pos, message: impl Into<String>) -> PResult<T> {
        Err(error(self.file, pos, message.into()))
    }

    pub(super) fn peek(&self) -> Token<'a> {
        self.toks[self.i.min(self.toks.len() - 1)]
    }

    pub(super) fn bump(&mut self) -> Token<'a> {
        let t = self.peek();
        if t.tok != Tok::Eof {
            self.i += 1;
        }
        t
    }

    pub(super) fn expected<T>(&self, what: &str) -> PResult<T> {
        let t = self.peek();
        self.err(t.pos, format!("expected {what}, found {}", t.tok))
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        let hit = self.peek().tok == Tok::Punct(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    pub(super) fn expect(&mut self, c: char) -> PResult<Pos> {
        let pos = self.peek().pos;
        if self.eat(c) {
            Ok(pos)
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    pub(super) fn word(&mut self, what: &str) -> PResult<(&'a str, Pos)> {
        match self.peek() {
            Token {
                tok: Tok::Word(w),
                pos,
            } => {
                self.i += 1;
                Ok((w, pos))
            }
            _ => self.expected(what),
        }
    }

    pub(super) fn keyword(&mut self, k: &str) -> PResult<Pos> {
        match self.peek() {
            Token {
                tok: Tok::Word(w),
                pos,
            } if w == k => {
                self.i += 1;
                Ok(pos)
            }
            _ => self.expected(&format!("`{k}`")),
        }
    }

    pub(super) fn eol(&mut self) -> PResult<()> {
        match self.peek().tok {
            Tok::Newline => {
                self.i += 1;
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.expected("end of line"),
        }
    }

    pub(super) fn at_eol(&self) -> bool {
        matches!(self.peek().tok, Tok::Newline | Tok::Eof)
    }

    fn skip_newlines(&mut self) {
        while self.peek().tok == Tok::Newline {
            self.i += 1;
        }
    }

    pub(super) fn number(&mut self, what: &str) -> PResult<(u32, Pos)> {
        let t = self.peek();
        match t.tok {
            Tok::Word(w) if w.starts_with(|c: char| c.is_ascii_digit()) => {
                self.i += 1;
                match parse_u32(w) {
                    Ok(n) => Ok((n, t.pos)),
                    Err(m) => self.err(t.pos, m),
                }
            }
            _ => self.expected(what),
        }
    }

    /// `PREFIXN`, e.g. `ssa_7`; returns N.
    pub(super) fn entity(&mut self, prefix: &str, what: &str) -> PResult<(u32, Pos)> {
        let t = self.peek();
        let Tok::Word(w) = t.tok else {
            return self.expected(what);
        };
        let Some(digits) = w.strip_prefix(prefix) else {
            return self.expected(what);
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return self.expected(what);
        }
        self.i += 1;
        match digits.parse::<u32>() {
            Ok(n) if n <= MAX_ENTITY => Ok((n, t.pos)),
            _ => self.err(
                t.pos,
                format!("`{w}`: number too large (at most {MAX_ENTITY})"),
            ),
        }
    }

    pub(super) fn data_type(&mut self) -> PResult<(Type, Pos)> {
        let (w, pos) = self.word("a type `vecN B`, B one of 1, 16, 32, 64")?;
        let Some(comps) = vec_comps(w) else {
            return self.err(pos, format!("expected a type vec1..vec4, found `{w}`"));
        };
        let (bits, bpos) = self.word("a bit size: 1, 16, 32 or 64")?;
        match bits.parse().ok().and_then(BitSize::from_bits) {
            Some(BitSize::B64) if comps != 1 => self.err(
                pos,
                format!("vec{comps} 64: 64-bit values are scalars (vec1 64)"),
            ),
            Some(bits) => Ok((Type::Data { bits, comps }, pos)),
            None => self.err(
                bpos,
                format!("expected a bit size 1, 16, 32 or 64, found `{bits}`"),
            ),
        }
    }

    pub(super) fn var_type(&mut self, depth: usize) -> PResult<VarType> {
        let t = self.peek();
        if depth > MAX_DEPTH {
            return self.err(t.pos, "variable type nested too deeply");
        }
        let mut ty = match t.tok {
            Tok::Word("struct") => {
                self.i += 1;
                self.expect('{')?;
                let mut fields = Vec::new();
                if !self.eat('}') {
                    loop {
                        fields.push(self.var_type(depth + 1)?);
                        if self.eat('}') {
                            break;
                        }
                        if !self.eat(',') {
                            return self.expected("`,` or `}`");
                        }
                    }
                }
                VarType::Struct(fields)
            }
            Tok::Word(w) if vec_comps(w).is_some() => {
                self.i += 1;
                VarType::Vector(vec_comps(w).unwrap_or(1))
            }
            _ => return self.expected("a variable type (`vecN`, `T[N]` or `struct { ... }`)"),
        };
        let mut nested = depth;
        while self.peek().tok == Tok::Punct('[') {
            nested += 1;
            if nested > MAX_DEPTH {
                return self.err(self.peek().pos, "variable type nested too deeply");
            }
            self.i += 1;
            let (len, pos) = self.number("an array length")?;
            if len == 0 {
                return self.err(pos, "array length must be at least 1");
            }
            self.expect(']')?;
            ty = VarType::Array(Box::new(ty), len);
        }
        Ok(ty)
    }

    fn header(&mut self) -> PResult<Dispatch> {
        let mut d = Dispatch::default();
        self.skip_newlines();
        self.keyword("invocations")?;
        d.invocations = self.limited("invocations", "a number of invocations")?;
        self.eol()?;
        self.skip_newlines();
        self.keyword("outputs")?;
        d.outputs = self.limited("outputs", "a number of outputs")?;
        self.eol()?;
        let mut phase = 1;
        loop {
            self.skip_newlines();
            let t = self.peek();
            let Tok::Word(w) = t.tok else { break };
            let (next, repeats) = match w {
                "invocations" => (0, false),
                "outputs" => (1, false),
                "workgroup" => (2, false),
                "uniforms" => (3, false),
                "buffer" => (4, true),
                "shared" => (5, true),
                "texture" => (6, true),
                _ if w.starts_with("var_") => (7, true),
                _ if w.starts_with("reg_") => (8, true),
                _ => break,
            };
            if next < phase || (next == phase && !repeats) {
                return self.err(
                    t.pos,
                    format!(
                        "`{w}` out of place: the header is invocations, outputs, workgroup, \
                         uniforms, buffers, shared arrays, textures, var_N, reg_N, in that \
                         order, each once"
                    ),
                );
            }
            phase = next;
            match next {
                2 => {
                    self.i += 1;
                    let (size, pos) = self.number("a workgroup size")?;
                    if !WORKGROUP_SIZES.contains(&size) {
                        return self.err(
                            pos,
                            format!("a workgroup has 1, 2, 4 or 8 invocations, not {size}"),
                        );
                    }
                    d.workgroup = size;
                }
                3 => {
                    self.i += 1;
                    while !self.at_eol() {
                        let (word, pos) = self.number("a uniform word")?;
                        self.within(pos, "uniforms", d.uniforms.len() as u64 + 1)?;
                        d.uniforms.push(word);
                    }
                }
                4 => {
                    self.within(t.pos, "resources", d.buffers.len() as u64 + 1)?;
                    self.i += 1;
                    d.buffers
                        .push(self.limited("buffer_words", "a buffer length")?);
                }
                5 => {
                    self.within(t.pos, "resources", d.shared.len() as u64 + 1)?;
                    self.i += 1;
                    d.shared
                        .push(self.limited("shared_words", "a shared array length")?);
                }
                6 => {
                    self.within(t.pos, "resources", d.textures.len() as u64 + 1)?;
                    self.i += 1;
                    d.textures.push(self.texture()?);
                }
                7 => {
                    let n = self.func.vars.len();
                    self.declared_in_order("var_", n)?;
                    self.expect(':')?;
                    let pos = self.peek().pos;
                    let ty = self.var_type(0)?;
                    self.within(pos, "variable_words", var_words(&ty))?;
                    self.func.vars.push(ty);
                }
                _ => {
                    let n = self.func.regs.len();
                    self.declared_in_order("reg_", n)?;
                    self.expect(':')?;
                    let ty = self.data_type()?.0;
                    self.func.regs.push(ty);
                }
            }
            self.eol()?;
        }
        let pos = self.peek().pos;
        if !d.invocations.is_multiple_of(d.workgroup) {
            return self.err(
                pos,
                format!(
                    "{} invocations do not make whole workgroups of {}",
                    d.invocations, d.workgroup
                ),
            );
        }
        let per_invocation =
            u64::from(d.outputs) + d.buffers.iter().map(|&b| u64::from(b)).sum::<u64>();
        self.within(
            pos,
            "result_words",
            per_invocation * u64::from(d.invocations),
        )?;
        Ok(d)
    }

    /// A number checked against limit `name`.
    fn limited(&mut self, name: &'static str, what: &str) -> PResult<u32> {
        let (n, pos) = self.number(what)?;
        self.within(pos, name, u64::from(n))?;
        Ok(n)
    }

    /// An error at `pos` if `asked` is over limit `name`.
    fn within(&self, pos: Pos, name: &'static str, asked: u64) -> PResult<()> {
        match self.limits.check(name, asked) {
            Ok(()) => Ok(()),
            Err(e) => self.err(pos, e.to_string()),
        }
    }

    fn declared_in_order(&mut self, prefix: &str, n: usize) -> PResult<()> {
        let what = format!("`{prefix}{n}`");
        let (k, pos) = self.entity(prefix, &what)?;
        if k as usize != n {
            return self.err(
                pos,
                format!("expected {what}, found `{prefix}{k}` (declare them densely, in order)"),
            );
        }
        Ok(())
    }

    fn texture(&mut self) -> PResult<TextureDesc> {
        let (w, pos) = self.word("a texture size `WxH`")?;
        let size = w
            .split_once('x')
            .and_then(|(a, b)| Some((parse_u32(a).ok()?, parse_u32(b).ok()?)));
        let Some((width, height)) = size else {
            return self.err(pos, format!("malformed texture size `{w}`: expected `WxH`"));
        };
        self.within(pos, "texture_extent", u64::from(width.max(height)))?;
        self.keyword("levels")?;
        let levels = self.limited("texture_extent", "a number of levels")?;
        self.keyword("layers")?;
        let layers = self.limited("texture_extent", "a number of layers")?;
        Ok(TextureDesc {
            width,
            height,
            levels,
            layers,
        })
    }

    /// A control-flow list, up to its closing `}` (not consumed) or the end of the input.
    fn list(&mut self, opener: Option<(Pos, &str)>) -> PResult<Vec<CfNode>> {
        let mut nodes: Vec<CfNode> = Vec::new();
        self.cur = None;
        let end = loop {
            self.skip_newlines();
            let t = self.peek();
            match t.tok {
                Tok::Eof => match opener {
                    None => break t,
                    Some((pos, what)) => {
                        return self.err(
                            t.pos,
                            format!(
                                "unexpected end of input: `{what} {{` of line {}:{} is not closed",
                                pos.line, pos.col
                            ),
                        )
                    }
                },
                Tok::Punct('}') => match opener {
                    None => return self.err(t.pos, "unmatched `}`"),
                    Some(_) => break t,
                },
                Tok::Word(w) if w.starts_with("block_") => self.label(&mut nodes)?,
                Tok::Word("if") | Tok::Word("loop") => {
                    if !matches!(nodes.last(), Some(CfNode::Block(_))) {
                        return self.err(
                            t.pos,
                            "expected a block label: an `if` or `loop` must follow a block",
                        );
                    }
                    if self.depth >= MAX_DEPTH {
                        return self.err(t.pos, "control flow nested too deeply");
                    }
                    self.depth += 1;
                    let node = if t.tok == Tok::Word("if") {
                        self.if_node()?
                    } else {
                        self.loop_node()?
                    };
                    self.depth -= 1;
                    self.cur = None;
                    nodes.push(node);
                }
                _ => self.instruction()?,
            }
        };
        match nodes.last() {
            None if opener.is_some() => {
                self.expected("a block label (a control-flow list holds at least one block)")
            }
            Some(CfNode::If(_) | CfNode::Loop(_)) => self.err(
                end.pos,
                format!(
                    "expected a block label, found {}: a control-flow list ends with a block",
                    end.tok
                ),
            ),
            _ => Ok(nodes),
        }
    }

    fn label(&mut self, nodes: &mut Vec<CfNode>) -> PResult<()> {
        let (n, pos) = self.entity("block_", "a block label `block_N:`")?;
        self.expect(':')?;
        self.eol()?;
        let b = Block::from_u32(n);
        if let Some(CfNode::Block(prev)) = nodes.last() {
            return self.err(
                pos,
                format!("{b} directly follows {prev}: two adjacent blocks (merge them)"),
            );
        }
        let idx = n as usize;
        if let Some(Some(first)) = self.block_defs.get(idx) {
            return self.err(
                pos,
                format!("{b} defined twice (first at {}:{})", first.line, first.col),
            );
        }
        if self.block_defs.len() <= idx {
            self.block_defs.resize(idx + 1, None);
            self.block_insts.resize_with(idx + 1, Vec::new);
        }
        self.block_defs[idx] = Some(pos);
        nodes.push(CfNode::Block(b));
        self.cur = Some(b);
        self.cur_nonphi = false;
        self.cur_jump = None;
        Ok(())
    }

    fn if_node(&mut self) -> PResult<CfNode> {
        let pos = self.keyword("if")?;
        let (n, vpos) = self.entity("ssa_", "a condition `ssa_N`")?;
        let cond = Value::from_u32(n);
        self.deferred.push(Deferred::Cond(cond, vpos));
        self.expect('{')?;
        self.eol()?;
        let then_list = self.list(Some((pos, "if")))?;
        self.expect('}')?;
        if self.peek().tok != Tok::Word("else") {
            return self.expected("`else` (an `if` always has an else-branch)");
        }
        self.i += 1;
        self.expect('{')?;
        self.eol()?;
        let else_list = self.list(Some((pos, "if")))?;
        self.expect('}')?;
        self.eol()?;
        Ok(CfNode::If(Box::new(IfNode {
            cond,
            then_list,
            else_list,
        })))
    }

    fn loop_node(&mut self) -> PResult<CfNode> {
        let pos = self.keyword("loop")?;
        self.expect('{')?;
        self.eol()?;
        self.loop_depth += 1;
        let body = self.list(Some((pos, "loop")))?;
        self.loop_depth -= 1;
        self.expect('}')?;
        self.eol()?;
        Ok(CfNode::Loop(Box::new(LoopNode { body })))
    }
}

/// A variable type's size in words, without overflow.
fn var_words(ty: &VarType) -> u64 {
    match ty {
        VarType::Vector(n) => u64::from(*n),
        VarType::Array(elem, len) => var_words(elem).saturating_mul(u64::from(*len)),
        VarType::Struct(fields) => fields.iter().map(var_words).fold(0, u64::saturating_add),
    }
}
