//! A builder that appends instructions and opens/closes `if`s and loops, keeping the layout
//! invariants of [`Function`] by construction. The generator, the parser's tests and passes
//! that build code use it.

use super::*;
use cranelift_entity::packed_option::ReservedValue;

enum Frame {
    Then {
        cond: Value,
        list: Vec<CfNode>,
    },
    Else {
        cond: Value,
        then_list: Vec<CfNode>,
        list: Vec<CfNode>,
    },
    Loop {
        list: Vec<CfNode>,
    },
}

/// Builds a [`Function`] front to back.
pub struct Builder {
    func: Function,
    /// Frames of the ifs and loops being built, innermost last.
    stack: Vec<Frame>,
    /// The list being appended to (the body of the innermost frame, or the top level).
    list: Vec<CfNode>,
    current: Block,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder with an empty entry block.
    pub fn new() -> Self {
        let mut func = Function::default();
        let current = func.blocks.push(BlockData::default());
        Builder {
            func,
            stack: Vec::new(),
            list: vec![CfNode::Block(current)],
            current,
        }
    }

    /// The block instructions are appended to.
    pub fn current_block(&self) -> Block {
        self.current
    }

    /// Whether the current block already ends in `break` or `continue`.
    pub fn is_terminated(&self) -> bool {
        let insts = &self.func.blocks[self.current].insts;
        insts
            .last()
            .is_some_and(|&i| self.func.insts[i].kind.is_jump())
    }

    /// Depth of enclosing loops.
    pub fn loop_depth(&self) -> usize {
        self.stack
            .iter()
            .filter(|f| matches!(f, Frame::Loop { .. }))
            .count()
    }

    /// The function so far (read-only).
    pub fn func(&self) -> &Function {
        &self.func
    }

    /// Declares a local variable.
    pub fn var(&mut self, ty: VarType) -> Var {
        self.func.vars.push(ty)
    }

    /// Declares a register.
    pub fn reg(&mut self, ty: Type) -> Reg {
        self.func.regs.push(ty)
    }

    /// Appends an instruction of any kind to the current block.
    pub fn ins(&mut self, kind: InstKind, ty: Type) -> Option<Value> {
        debug_assert!(
            !self.is_terminated(),
            "instruction after a jump in {}",
            self.current
        );
        debug_assert!(
            !matches!(kind, InstKind::Phi { .. }) || self.only_phis(),
            "phi after a non-phi in {}",
            self.current
        );
        let (inst, v) = self.func.make_inst(kind, ty);
        self.func.blocks[self.current].insts.push(inst);
        v
    }

    fn only_phis(&self) -> bool {
        let f = &self.func;
        f.blocks[self.current]
            .insts
            .iter()
            .all(|&i| matches!(f.insts[i].kind, InstKind::Phi { .. }))
    }

    fn ins_value(&mut self, kind: InstKind, ty: Type) -> Value {
        self.ins(kind, ty)
            .expect("data instructions define a value")
    }

    /// A constant vector of 32-bit words (1–4).
    pub fn const_vec(&mut self, words: &[u32]) -> Value {
        let mut bits = [0; 4];
        bits[..words.len()].copy_from_slice(words);
        self.ins_value(InstKind::Const { bits }, Type::vec32(words.len() as u8))
    }

    /// A 32-bit integer constant.
    pub fn iconst(&mut self, x: u32) -> Value {
        self.const_vec(&[x])
    }

    /// A 32-bit float constant.
    pub fn fconst(&mut self, x: f32) -> Value {
        self.const_vec(&[x.to_bits()])
    }

    /// A boolean constant.
    pub fn bconst(&mut self, b: bool) -> Value {
        self.ins_value(
            InstKind::Const {
                bits: [u32::from(b), 0, 0, 0],
            },
            Type::B1,
        )
    }

    /// The result type of `op` applied to `args`.
    /// A conversion's result is 32-bit here; [`Builder::convert`] gives it another width.
    pub fn alu_type(&self, op: AluOp, args: &[Value]) -> Type {
        let comps = self.func.ty(args[0]).comps();
        let mut a = [Value::reserved_value(); 4];
        a[..args.len()].copy_from_slice(args);
        match self.func.alu_widths(op, &a, Type::None) {
            _ if op.dst() == alu::Kind::Any => self.func.ty(args[1]),
            (_, Some(bits)) => Type::Data { bits, comps },
            (_, None) => Type::vec32(comps),
        }
    }

    /// `op` (`i2i`, `u2u`, `b2i`) of `src` into integers of `bits`.
    pub fn convert(&mut self, op: AluOp, src: Value, bits: BitSize) -> Value {
        debug_assert_eq!(op.sizing(), alu::Sizing::Convert, "{op} is no conversion");
        let r = Value::reserved_value();
        let ty = Type::int(bits, self.func.ty(src).comps());
        self.ins_value(
            InstKind::Alu {
                op,
                args: [src, r, r, r],
            },
            ty,
        )
    }

    /// A component-wise ALU operation.
    pub fn alu(&mut self, op: AluOp, args: &[Value]) -> Value {
        debug_assert_eq!(args.len(), op.arity(), "{op} takes {} operands", op.arity());
        let ty = self.alu_type(op, args);
        let mut a = [Value::reserved_value(); 4];
        a[..args.len()].copy_from_slice(args);
        self.ins_value(InstKind::Alu { op, args: a }, ty)
    }

    /// A vector of the given scalars (all of one bit size).
    pub fn vec(&mut self, comps: &[Value]) -> Value {
        let mut args = [Value::reserved_value(); 4];
        args[..comps.len()].copy_from_slice(comps);
        let ty = self.func.ty(comps[0]).with_comps(comps.len() as u8);
        self.ins_value(InstKind::Vec { args }, ty)
    }

    /// Components `swizzle` of `src`.
    pub fn mov(&mut self, src: Value, swizzle: &[u8]) -> Value {
        let mut s = [0; 4];
        s[..swizzle.len()].copy_from_slice(swizzle);
        let ty = self.func.ty(src).with_comps(swizzle.len() as u8);
        self.ins_value(InstKind::Mov { src, swizzle: s }, ty)
    }

    /// Component `c` of `src`.
    pub fn extract(&mut self, src: Value, c: u8) -> Value {
        self.mov(src, &[c])
    }

    /// A phi of type `ty` at the head of the current block; add sources with
    /// [`Builder::add_phi_source`] once the predecessors exist.
    pub fn phi(&mut self, ty: Type, sources: Vec<PhiSource>) -> (Value, Inst) {
        let inst = self.func.insts.next_key();
        let v = self.ins_value(InstKind::Phi { sources }, ty);
        (v, inst)
    }

    /// Adds a source to a phi.
    pub fn add_phi_source(&mut self, phi: Inst, pred: Block, value: Value) {
        match &mut self.func.insts[phi].kind {
            InstKind::Phi { sources } => sources.push(PhiSource { pred, value }),
            other => panic!("add_phi_source on {}", other.name()),
        }
    }

    /// Appends `break`.
    pub fn brk(&mut self) {
        self.ins(InstKind::Break, Type::None);
    }

    /// Appends `continue`.
    pub fn cont(&mut self) {
        self.ins(InstKind::Continue, Type::None);
    }

    fn new_block(&mut self) -> Block {
        let b = self.func.blocks.push(BlockData::default());
        self.list.push(CfNode::Block(b));
        self.current = b;
        b
    }

    /// Opens `if cond {`; the current block becomes the first block of the then-list.
    pub fn begin_if(&mut self, cond: Value) -> Block {
        let list = std::mem::take(&mut self.list);
        self.stack.push(Frame::Then { cond, list });
        self.new_block()
    }

    /// Closes the then-list and opens the else-list.
    pub fn begin_else(&mut self) -> Block {
        let then_list = std::mem::take(&mut self.list);
        match self.stack.pop() {
            Some(Frame::Then { cond, list }) => {
                self.stack.push(Frame::Else {
                    cond,
                    then_list,
                    list,
                });
            }
            _ => panic!("begin_else outside an if"),
        }
        self.new_block()
    }

    /// Closes the if (adding an empty else if none was opened); returns the merge block,
    /// which becomes current.
    pub fn end_if(&mut self) -> Block {
        if matches!(self.stack.last(), Some(Frame::Then { .. })) {
            self.begin_else();
        }
        let else_list = std::mem::take(&mut self.list);
        match self.stack.pop() {
            Some(Frame::Else {
                cond,
                then_list,
                list,
            }) => {
                self.list = list;
                self.list.push(CfNode::If(Box::new(IfNode {
                    cond,
                    then_list,
                    else_list,
                })));
            }
            _ => panic!("end_if outside an if"),
        }
        self.new_block()
    }

    /// Opens `loop {`; returns the header block, which becomes current.
    pub fn begin_loop(&mut self) -> Block {
        let list = std::mem::take(&mut self.list);
        self.stack.push(Frame::Loop { list });
        self.new_block()
    }

    /// Closes the loop; returns the block after it, which becomes current.
    pub fn end_loop(&mut self) -> Block {
        let body = std::mem::take(&mut self.list);
        match self.stack.pop() {
            Some(Frame::Loop { list }) => {
                self.list = list;
                self.list.push(CfNode::Loop(Box::new(LoopNode { body })));
            }
            _ => panic!("end_loop outside a loop"),
        }
        self.new_block()
    }

    /// The finished function. Every `if` and loop must be closed.
    pub fn finish(mut self) -> Function {
        assert!(
            self.stack.is_empty(),
            "{} unclosed if/loop",
            self.stack.len()
        );
        self.func.body = std::mem::take(&mut self.list);
        self.func
    }
}
