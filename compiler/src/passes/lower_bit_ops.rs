//! Bit-field, bit-count and wide-arithmetic ops as sequences of the basic integer ops, for
//! our own backends (NIR's `lower_bitfield_extract`, `lower_bit_count`, `lower_find_lsb`,
//! `lower_ufind_msb`, `lower_mul_high`, `lower_uadd_carry`, `lower_usub_borrow` options, all
//! set). Gen and a6xx select only the basic ops; real drivers see the ops themselves.
//!
//! Each op becomes shifts, masks, compares and selects that compute exactly
//! [`AluOp::eval`]'s answer under our IR's rules (shift amounts taken modulo 32):
//!
//! * `ubitfield_extract a, o, c`: `o' = umin(o, 32)`, `c' = umin(c, 32 - o')`, then
//!   `c' == 0 ? 0 : (a >> o') & (~0 >> (32 - c'))`; the signed form shifts the field to the
//!   top (`a << (32 - o' - c')`) and back down arithmetically (`>> (32 - c')`).
//! * `bitfield_insert base, ins, o, c`: the same clamp, then the mask `c' == 0 ? 0 :
//!   (~0 >> (32 - c')) << o'` picks `ins << o'` inside and `base` outside.
//! * `bit_count`: the parallel sum in 2-, 4- and 8-bit lanes, gathered by a multiply.
//! * `bitfield_reverse`: five swaps of ever wider halves.
//! * `ufind_msb x`: every bit below the top one set (`x |= x >> 1`, `>> 2`, …), counted, minus
//!   one: 0 gives -1 with no compare. `ifind_msb` first flips a negative `x` (`x ^ (x >> 31)`
//!   arithmetic); `find_lsb` counts the ones below the lowest set bit (`(x & -x) - 1`) and
//!   selects -1 for 0.
//! * `umul_high`: four 16×16 products and the carries out of the middle sum;
//!   `imul_high` subtracts `b` where `a < 0` and `a` where `b < 0` from the unsigned high word.
//! * `uadd_carry a, b`: `a + b < a`; `usub_borrow a, b`: `a < b`.

use crate::ir::{walk_blocks, AluOp, Block, Function, Inst, InstKind, Program, Type, Value};
use crate::planted::{Plant, Plants};
use cranelift_entity::packed_option::ReservedValue;
use std::borrow::Cow;

/// `p` with its bit ops expanded (a copy only when it has any): what a backend selects from.
pub fn lowered(p: &Program, plants: Plants) -> Cow<'_, Program> {
    lowered_only(p, is_lowered, plants)
}

/// `p` with the ops `which` picks (among [`is_lowered`]'s) expanded; a copy only when it has
/// any. A consumer that lacks some of them (naga's front end) takes the rest as they are.
pub fn lowered_only(p: &Program, which: fn(AluOp) -> bool, plants: Plants) -> Cow<'_, Program> {
    let which = |op| is_lowered(op) && which(op);
    if !has_ops(&p.func, which) {
        return Cow::Borrowed(p);
    }
    let mut q = p.clone();
    lower_ops(&mut q.func, which, plants);
    Cow::Owned(q)
}

/// Whether `op` is one [`lower_bit_ops`] expands.
pub fn is_lowered(op: AluOp) -> bool {
    use AluOp::*;
    matches!(
        op,
        UbitfieldExtract
            | IbitfieldExtract
            | BitCount
            | BitfieldReverse
            | FindLsb
            | UfindMsb
            | IfindMsb
            | UmulHigh
            | ImulHigh
            | UaddCarry
            | UsubBorrow
            | BitfieldInsert
    )
}

/// Whether the function has an op `which` picks.
fn has_ops(f: &Function, which: impl Fn(AluOp) -> bool) -> bool {
    let mut found = false;
    walk_blocks(&f.body, &mut |b| {
        found |= f.blocks[b]
            .insts
            .iter()
            .any(|&i| matches!(f.insts[i].kind, InstKind::Alu { op, .. } if which(op)));
    });
    found
}

/// Expands every op of [`is_lowered`] in place: the instruction keeps its result and becomes
/// a `mov` of the sequence's last value, placed just before it. Returns whether anything
/// changed.
pub fn lower_bit_ops(f: &mut Function, plants: Plants) -> bool {
    lower_ops(f, is_lowered, plants)
}

/// [`lower_bit_ops`] for the ops `which` picks (all of them [`is_lowered`]'s).
fn lower_ops(f: &mut Function, which: impl Fn(AluOp) -> bool, plants: Plants) -> bool {
    let mut blocks: Vec<Block> = Vec::new();
    walk_blocks(&f.body, &mut |b| blocks.push(b));
    let mut changed = false;
    for b in blocks {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            if let InstKind::Alu { op, args } = f.insts[inst].kind {
                if which(op) {
                    let ty = f.ty(f.result(inst).expect("an ALU op has a result"));
                    let mut s = Seq {
                        f,
                        placed: &mut new,
                        ty,
                        consts: Vec::new(),
                    };
                    let v = s.expand(op, args, plants);
                    let identity = [0, 1, 2, 3];
                    f.insts[inst].kind = InstKind::Mov {
                        src: v,
                        swizzle: identity,
                    };
                    changed = true;
                }
            }
            new.push(inst);
        }
        f.blocks[b].insts = new;
    }
    changed
}

/// Instructions appended before the one being expanded, all of the expanded op's width.
struct Seq<'a> {
    f: &'a mut Function,
    placed: &'a mut Vec<Inst>,
    /// The expanded op's result type (`vecC 32`).
    ty: Type,
    /// The constants placed so far, each once (the sequences reuse 32, 0, ~0 and the masks).
    consts: Vec<(u32, Value)>,
}

impl Seq<'_> {
    fn expand(&mut self, op: AluOp, [a, b, c, d]: [Value; 4], plants: Plants) -> Value {
        use AluOp::*;
        match op {
            UbitfieldExtract | IbitfieldExtract => {
                let signed = op == IbitfieldExtract;
                self.bitfield_extract(a, b, c, signed, plants)
            }
            BitfieldInsert => self.bitfield_insert(a, b, c, d),
            BitCount => self.bit_count(a),
            BitfieldReverse => self.bitfield_reverse(a),
            FindLsb => {
                let lowest = {
                    let neg = self.op(Ineg, &[a]);
                    self.op(Iand, &[a, neg])
                };
                let below = {
                    let one = self.k(1);
                    self.op(Isub, &[lowest, one])
                };
                let n = self.bit_count(below);
                let zero = self.k(0);
                let none = self.op(Ieq, &[a, zero]);
                let all = self.k(u32::MAX);
                self.op(Bcsel, &[none, all, n])
            }
            UfindMsb => self.ufind_msb(a),
            IfindMsb => {
                let sign = {
                    let s = self.k(31);
                    self.op(Ishr, &[a, s])
                };
                let flipped = self.op(Ixor, &[a, sign]);
                self.ufind_msb(flipped)
            }
            UmulHigh => self.umul_high(a, b),
            ImulHigh => {
                let high = self.umul_high(a, b);
                let zero = self.k(0);
                let a_neg = self.op(Ilt, &[a, zero]);
                let b_neg = self.op(Ilt, &[b, zero]);
                let fix_a = self.op(Bcsel, &[a_neg, b, zero]);
                let fix_b = self.op(Bcsel, &[b_neg, a, zero]);
                let high = self.op(Isub, &[high, fix_a]);
                self.op(Isub, &[high, fix_b])
            }
            UaddCarry => {
                let sum = self.op(Iadd, &[a, b]);
                let carry = self.op(Ult, &[sum, a]);
                self.op(B2i, &[carry])
            }
            UsubBorrow => {
                let borrow = self.op(Ult, &[a, b]);
                self.op(B2i, &[borrow])
            }
            _ => unreachable!("{op} is not a lowered op"),
        }
    }

    fn bitfield_extract(
        &mut self,
        a: Value,
        offset: Value,
        count: Value,
        signed: bool,
        plants: Plants,
    ) -> Value {
        use AluOp::*;
        let (offset, count) = self.clamped_field(offset, count);
        let w = self.k(32);
        let down = self.op(Isub, &[w, count]);
        let field = if signed {
            let up = {
                let end = self.op(Iadd, &[offset, count]);
                self.op(Isub, &[w, end])
            };
            let top = self.op(Ishl, &[a, up]);
            // Planted: the field comes down logically, losing its sign.
            let shr = if plants.has(Plant::LowerIbfeLogical) {
                Ushr
            } else {
                Ishr
            };
            self.op(shr, &[top, down])
        } else {
            let shifted = self.op(Ushr, &[a, offset]);
            let ones = self.k(u32::MAX);
            let mask = self.op(Ushr, &[ones, down]);
            self.op(Iand, &[shifted, mask])
        };
        let zero = self.k(0);
        let empty = self.op(Ieq, &[count, zero]);
        self.op(Bcsel, &[empty, zero, field])
    }

    fn bitfield_insert(
        &mut self,
        base: Value,
        insert: Value,
        offset: Value,
        count: Value,
    ) -> Value {
        use AluOp::*;
        let (offset, count) = self.clamped_field(offset, count);
        // The field's mask: `count` ones at `offset`; none for an empty field.
        let mask = {
            let ones = self.k(u32::MAX);
            let down = {
                let w = self.k(32);
                self.op(Isub, &[w, count])
            };
            let low = self.op(Ushr, &[ones, down]);
            let mask = self.op(Ishl, &[low, offset]);
            let zero = self.k(0);
            let empty = self.op(Ieq, &[count, zero]);
            self.op(Bcsel, &[empty, zero, mask])
        };
        let kept = {
            let outside = self.op(Inot, &[mask]);
            self.op(Iand, &[base, outside])
        };
        let placed = {
            let up = self.op(Ishl, &[insert, offset]);
            self.op(Iand, &[up, mask])
        };
        self.op(Ior, &[kept, placed])
    }

    /// The field clamped to the word: `(umin(offset, 32), umin(count, 32 - offset'))`.
    fn clamped_field(&mut self, offset: Value, count: Value) -> (Value, Value) {
        use AluOp::*;
        let w = self.k(32);
        let offset = self.op(Umin, &[offset, w]);
        let room = self.op(Isub, &[w, offset]);
        (offset, self.op(Umin, &[count, room]))
    }

    fn bit_count(&mut self, x: Value) -> Value {
        use AluOp::*;
        let pairs = {
            let half = self.shifted_mask(x, 1, 0x5555_5555);
            self.op(Isub, &[x, half])
        };
        let nibbles = {
            let lo = self.masked(pairs, 0x3333_3333);
            let hi = self.shifted_mask(pairs, 2, 0x3333_3333);
            self.op(Iadd, &[lo, hi])
        };
        let bytes = {
            let s = self.k(4);
            let hi = self.op(Ushr, &[nibbles, s]);
            let sum = self.op(Iadd, &[nibbles, hi]);
            self.masked(sum, 0x0f0f_0f0f)
        };
        let gathered = {
            let m = self.k(0x0101_0101);
            self.op(Imul, &[bytes, m])
        };
        let s = self.k(24);
        self.op(Ushr, &[gathered, s])
    }

    fn bitfield_reverse(&mut self, x: Value) -> Value {
        use AluOp::*;
        let mut x = x;
        for (shift, mask) in [
            (1, 0x5555_5555),
            (2, 0x3333_3333),
            (4, 0x0f0f_0f0f),
            (8, 0x00ff_00ff),
        ] {
            let down = self.shifted_mask(x, shift, mask);
            let up = {
                let lo = self.masked(x, mask);
                let s = self.k(shift);
                self.op(Ishl, &[lo, s])
            };
            x = self.op(Ior, &[down, up]);
        }
        let s = self.k(16);
        let down = self.op(Ushr, &[x, s]);
        let up = self.op(Ishl, &[x, s]);
        self.op(Ior, &[down, up])
    }

    fn ufind_msb(&mut self, x: Value) -> Value {
        use AluOp::*;
        let mut smeared = x;
        for shift in [1, 2, 4, 8, 16] {
            let s = self.k(shift);
            let down = self.op(Ushr, &[smeared, s]);
            smeared = self.op(Ior, &[smeared, down]);
        }
        let n = self.bit_count(smeared);
        let one = self.k(1);
        self.op(Isub, &[n, one])
    }

    fn umul_high(&mut self, a: Value, b: Value) -> Value {
        use AluOp::*;
        let sixteen = self.k(16);
        let (al, ah) = (self.masked(a, 0xffff), self.op(Ushr, &[a, sixteen]));
        let (bl, bh) = (self.masked(b, 0xffff), self.op(Ushr, &[b, sixteen]));
        let ll = self.op(Imul, &[al, bl]);
        let lh = self.op(Imul, &[al, bh]);
        let hl = self.op(Imul, &[ah, bl]);
        let hh = self.op(Imul, &[ah, bh]);
        // The middle column: at most three 16-bit numbers, so no carry out of 32 bits.
        let middle = {
            let ll_hi = self.op(Ushr, &[ll, sixteen]);
            let lh_lo = self.masked(lh, 0xffff);
            let hl_lo = self.masked(hl, 0xffff);
            let s = self.op(Iadd, &[ll_hi, lh_lo]);
            self.op(Iadd, &[s, hl_lo])
        };
        let lh_hi = self.op(Ushr, &[lh, sixteen]);
        let hl_hi = self.op(Ushr, &[hl, sixteen]);
        let carry = self.op(Ushr, &[middle, sixteen]);
        let s = self.op(Iadd, &[hh, lh_hi]);
        let s = self.op(Iadd, &[s, hl_hi]);
        self.op(Iadd, &[s, carry])
    }

    /// `x & mask`.
    fn masked(&mut self, x: Value, mask: u32) -> Value {
        let m = self.k(mask);
        self.op(AluOp::Iand, &[x, m])
    }

    /// `(x >> shift) & mask`.
    fn shifted_mask(&mut self, x: Value, shift: u32, mask: u32) -> Value {
        let s = self.k(shift);
        let down = self.op(AluOp::Ushr, &[x, s]);
        self.masked(down, mask)
    }

    /// A constant of the expanded op's width, `x` in every component.
    fn k(&mut self, x: u32) -> Value {
        if let Some(&(_, v)) = self.consts.iter().find(|&&(c, _)| c == x) {
            return v;
        }
        let n = usize::from(self.ty.comps());
        let mut bits = [0; 4];
        bits[..n].fill(x);
        let v = self.place(InstKind::Const { bits }, self.ty);
        self.consts.push((x, v));
        v
    }

    fn op(&mut self, op: AluOp, args: &[Value]) -> Value {
        let mut a = [Value::reserved_value(); 4];
        a[..args.len()].copy_from_slice(args);
        let ty = match op.dst() {
            crate::ir::alu::Kind::Bool => Type::vec1(self.ty.comps()),
            _ => self.ty,
        };
        self.place(InstKind::Alu { op, args: a }, ty)
    }

    fn place(&mut self, kind: InstKind, ty: Type) -> Value {
        let (inst, v) = self.f.make_inst(kind, ty);
        self.placed.push(inst);
        v.expect("a typed instruction has a result")
    }
}
