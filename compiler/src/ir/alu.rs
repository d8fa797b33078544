//! ALU opcodes: their names, operand kinds and exact per-component semantics.
//!
//! [`AluOp::eval`] is the one definition the interpreter and constant folding share; the
//! rules behind it are in `sim::semantics` (and `docs/semantics.md`). ALU ops work
//! component-wise: every operand has the result's component count.

use super::BitSize;
use sim::semantics as sem;
use std::fmt;

/// What an operand or result of an ALU op holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An integer: 32-bit, or of the width [`AluOp::sizing`] allows.
    Int,
    /// A 32-bit float.
    Float,
    /// A boolean (bit size 1).
    Bool,
    /// Any type, as long as all `Any` operands and the result agree (`bcsel`).
    Any,
}

macro_rules! alu_ops {
    ($($variant:ident $name:literal ($($src:ident),*) -> $dst:ident;)*) => {
        /// An ALU opcode.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        #[allow(missing_docs)]
        pub enum AluOp { $($variant,)* }

        impl AluOp {
            /// Every ALU opcode, in declaration order.
            pub const ALL: &'static [AluOp] = &[$(AluOp::$variant,)*];

            /// The name in the text format.
            pub fn name(self) -> &'static str {
                match self { $(AluOp::$variant => $name,)* }
            }

            /// Operand kinds, in order.
            pub fn srcs(self) -> &'static [Kind] {
                // Tables indexed by the opcode rather than matches: the operand walk and the
                // verifier ask for every ALU instruction.
                const SRCS: &[&[Kind]] = &[$(&[$(Kind::$src),*],)*];
                SRCS[self as usize]
            }

            /// Result kind.
            pub fn dst(self) -> Kind {
                const DST: &[Kind] = &[$(Kind::$dst,)*];
                DST[self as usize]
            }
        }
    };
}

alu_ops! {
    Iadd "iadd" (Int, Int) -> Int;
    Isub "isub" (Int, Int) -> Int;
    Imul "imul" (Int, Int) -> Int;
    Ineg "ineg" (Int) -> Int;
    Iabs "iabs" (Int) -> Int;
    Imin "imin" (Int, Int) -> Int;
    Imax "imax" (Int, Int) -> Int;
    Umin "umin" (Int, Int) -> Int;
    Umax "umax" (Int, Int) -> Int;
    Iand "iand" (Int, Int) -> Int;
    Ior "ior" (Int, Int) -> Int;
    Ixor "ixor" (Int, Int) -> Int;
    Inot "inot" (Int) -> Int;
    Ishl "ishl" (Int, Int) -> Int;
    Ishr "ishr" (Int, Int) -> Int;
    Ushr "ushr" (Int, Int) -> Int;
    Udiv "udiv" (Int, Int) -> Int;
    Umod "umod" (Int, Int) -> Int;
    Idiv "idiv" (Int, Int) -> Int;
    Irem "irem" (Int, Int) -> Int;
    Imod "imod" (Int, Int) -> Int;
    Fadd "fadd" (Float, Float) -> Float;
    Fsub "fsub" (Float, Float) -> Float;
    Fmul "fmul" (Float, Float) -> Float;
    Ffma "ffma" (Float, Float, Float) -> Float;
    Fneg "fneg" (Float) -> Float;
    Fabs "fabs" (Float) -> Float;
    Fmin "fmin" (Float, Float) -> Float;
    Fmax "fmax" (Float, Float) -> Float;
    Ffloor "ffloor" (Float) -> Float;
    Fceil "fceil" (Float) -> Float;
    Ftrunc "ftrunc" (Float) -> Float;
    FroundEven "fround_even" (Float) -> Float;
    Ffract "ffract" (Float) -> Float;
    Fsqrt "fsqrt" (Float) -> Float;
    Frcp "frcp" (Float) -> Float;
    Frsq "frsq" (Float) -> Float;
    Fexp2 "fexp2" (Float) -> Float;
    Flog2 "flog2" (Float) -> Float;
    Fsin "fsin" (Float) -> Float;
    Fcos "fcos" (Float) -> Float;
    Ieq "ieq" (Int, Int) -> Bool;
    Ine "ine" (Int, Int) -> Bool;
    Ilt "ilt" (Int, Int) -> Bool;
    Ige "ige" (Int, Int) -> Bool;
    Ult "ult" (Int, Int) -> Bool;
    Uge "uge" (Int, Int) -> Bool;
    Feq "feq" (Float, Float) -> Bool;
    Fne "fne" (Float, Float) -> Bool;
    Flt "flt" (Float, Float) -> Bool;
    Fge "fge" (Float, Float) -> Bool;
    Band "band" (Bool, Bool) -> Bool;
    Bor "bor" (Bool, Bool) -> Bool;
    Bxor "bxor" (Bool, Bool) -> Bool;
    Bnot "bnot" (Bool) -> Bool;
    Bcsel "bcsel" (Bool, Any, Any) -> Any;
    I2f "i2f" (Int) -> Float;
    U2f "u2f" (Int) -> Float;
    F2i "f2i" (Float) -> Int;
    F2u "f2u" (Float) -> Int;
    B2i "b2i" (Bool) -> Int;
    B2f "b2f" (Bool) -> Float;
    I2b "i2b" (Int) -> Bool;
    UbitfieldExtract "ubitfield_extract" (Int, Int, Int) -> Int;
    IbitfieldExtract "ibitfield_extract" (Int, Int, Int) -> Int;
    BitCount "bit_count" (Int) -> Int;
    BitfieldReverse "bitfield_reverse" (Int) -> Int;
    FindLsb "find_lsb" (Int) -> Int;
    UfindMsb "ufind_msb" (Int) -> Int;
    IfindMsb "ifind_msb" (Int) -> Int;
    UmulHigh "umul_high" (Int, Int) -> Int;
    ImulHigh "imul_high" (Int, Int) -> Int;
    UaddCarry "uadd_carry" (Int, Int) -> Int;
    UsubBorrow "usub_borrow" (Int, Int) -> Int;
    BitfieldInsert "bitfield_insert" (Int, Int, Int, Int) -> Int;
    I2i "i2i" (Int) -> Int;
    U2u "u2u" (Int) -> Int;
}

/// Which integer widths an op's integer operands and result have.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Sizing {
    /// 32 bits only (floats, the bit ops, the wide multiplies and carries: Vulkan takes
    /// `OpBitCount`, `OpBitField*` and GLSL's `Find*Msb`/`FindILsb` on 32-bit integers only).
    Word,
    /// 16, 32 or 64 bits, one width for every integer operand and an integer result.
    Same,
    /// A conversion: the operand's width and the result's are independent (`i2i`
    /// sign-extends or truncates, `u2u` zero-extends or truncates, `b2i` is 0 or 1).
    Convert,
}

impl AluOp {
    /// Number of operands.
    pub fn arity(self) -> usize {
        self.srcs().len()
    }

    /// Looks an opcode up by its text-format name.
    pub fn from_name(name: &str) -> Option<AluOp> {
        AluOp::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// Which integer widths the op takes.
    pub fn sizing(self) -> Sizing {
        use AluOp::*;
        match self {
            Iadd | Isub | Imul | Ineg | Iabs | Imin | Imax | Umin | Umax | Iand | Ior | Ixor
            | Inot | Ishl | Ishr | Ushr | Udiv | Umod | Idiv | Irem | Imod | Ieq | Ine | Ilt
            | Ige | Ult | Uge | I2b => Sizing::Same,
            I2i | U2u | B2i => Sizing::Convert,
            _ => Sizing::Word,
        }
    }

    /// The width of the op's integers from its operands' bit sizes (in operand order; none
    /// where an operand is not data): its first integer operand's, 32 without one.
    pub fn int_bits(self, operands: impl IntoIterator<Item = Option<BitSize>>) -> BitSize {
        self.srcs()
            .iter()
            .zip(operands)
            .find(|(k, _)| **k == Kind::Int)
            .and_then(|(_, b)| b)
            .filter(|b| BitSize::INTS.contains(b))
            .unwrap_or(BitSize::B32)
    }

    /// The bit size of an operand of `kind` when the op's integers are `int` bits wide (the
    /// first integer operand's size); none for `Any` (it follows the result).
    pub fn operand_bits(self, kind: Kind, int: BitSize) -> Option<BitSize> {
        match kind {
            Kind::Int if self.sizing() != Sizing::Word => Some(int),
            Kind::Int | Kind::Float => Some(BitSize::B32),
            Kind::Bool => Some(BitSize::B1),
            Kind::Any => None,
        }
    }

    /// The result's bit size when the op's integer operands are `int` bits wide and the
    /// result is declared `declared` (what a conversion's width comes from); none for `Any`.
    pub fn result_bits(self, int: BitSize, declared: Option<BitSize>) -> Option<BitSize> {
        match (self.dst(), self.sizing()) {
            (Kind::Int, Sizing::Same) => Some(int),
            (Kind::Int, Sizing::Convert) => Some(
                declared
                    .filter(|b| BitSize::INTS.contains(b))
                    .unwrap_or(BitSize::B32),
            ),
            (Kind::Int | Kind::Float, _) => Some(BitSize::B32),
            (Kind::Bool, _) => Some(BitSize::B1),
            (Kind::Any, _) => None,
        }
    }

    /// Whether swapping the two operands leaves the result unchanged (bit for bit).
    pub fn is_commutative(self) -> bool {
        use AluOp::*;
        matches!(
            self,
            Iadd | Imul
                | Imin
                | Imax
                | Umin
                | Umax
                | Iand
                | Ior
                | Ixor
                | Fadd
                | Fmul
                | Fmin
                | Fmax
                | Ieq
                | Ine
                | Feq
                | Fne
                | Band
                | Bor
                | Bxor
                | UmulHigh
                | ImulHigh
                | UaddCarry
        )
    }

    /// Whether the op runs on a special-function / math unit on real hardware (SFU on a6xx,
    /// the math box on Gen): the generator steers these across blocks and back-edges.
    pub fn is_transcendental(self) -> bool {
        use AluOp::*;
        matches!(
            self,
            Fsqrt | Frcp | Frsq | Fexp2 | Flog2 | Fsin | Fcos | Udiv | Umod | Idiv | Irem | Imod
        )
    }

    /// One component of the result, from the operands' components (bools are 0 or 1;
    /// operands past the arity are ignored).
    pub fn eval(self, a: u32, b: u32, c: u32, d: u32) -> u32 {
        semantics(self, a, b, c, d)
    }

    /// [`AluOp::eval`] in each of `N` lanes. The op's case is picked once for all lanes: each
    /// arm inlines the semantics for one constant op, so a simple op is one vector
    /// operation. The match is exhaustive, so no op can be left out.
    #[inline]
    pub fn eval_lanes<const N: usize>(
        self,
        a: &[u32; N],
        b: &[u32; N],
        c: &[u32; N],
        d: &[u32; N],
    ) -> [u32; N] {
        macro_rules! per_op {
            ($($op:ident)*) => {
                match self {
                    $(AluOp::$op => std::array::from_fn(|l| {
                        semantics(AluOp::$op, a[l], b[l], c[l], d[l])
                    }),)*
                }
            };
        }
        per_op!(
            Iadd Isub Imul Ineg Iabs Imin Imax Umin Umax Iand Ior Ixor Inot Ishl Ishr Ushr
            Udiv Umod Idiv Irem Imod Fadd Fsub Fmul Ffma Fneg Fabs Fmin Fmax Ffloor Fceil
            Ftrunc FroundEven Ffract Fsqrt Frcp Frsq Fexp2 Flog2 Fsin Fcos Ieq Ine Ilt Ige
            Ult Uge Feq Fne Flt Fge Band Bor Bxor Bnot Bcsel I2f U2f F2i F2u B2i B2f I2b
            UbitfieldExtract IbitfieldExtract BitCount BitfieldReverse FindLsb UfindMsb
            IfindMsb UmulHigh ImulHigh UaddCarry UsubBorrow BitfieldInsert I2i U2u
        )
    }
}

/// The rules of [`AluOp::eval`], inlined wherever the op is a constant.
#[inline(always)]
fn semantics(op: AluOp, a: u32, b: u32, c: u32, d: u32) -> u32 {
    use AluOp::*;
    let f = f32::from_bits;
    let canon = sem::canon;
    match op {
        Iadd => a.wrapping_add(b),
        Isub => a.wrapping_sub(b),
        Imul => a.wrapping_mul(b),
        Ineg => a.wrapping_neg(),
        Iabs => (a as i32).wrapping_abs() as u32,
        Imin => (a as i32).min(b as i32) as u32,
        Imax => (a as i32).max(b as i32) as u32,
        Umin => a.min(b),
        Umax => a.max(b),
        Iand => a & b,
        Ior => a | b,
        Ixor => a ^ b,
        Inot => !a,
        Ishl => a.wrapping_shl(b),
        Ishr => (a as i32).wrapping_shr(b) as u32,
        Ushr => a.wrapping_shr(b),
        Udiv => sem::udiv(a, b),
        Umod => sem::umod(a, b),
        Idiv => sem::idiv(a, b),
        Irem => sem::irem(a, b),
        Imod => sem::imod(a, b),
        Fadd => canon(f(a) + f(b)),
        Fsub => canon(f(a) - f(b)),
        Fmul => canon(f(a) * f(b)),
        Ffma => canon(f(a).mul_add(f(b), f(c))),
        Fneg => a ^ 0x8000_0000,
        Fabs => a & 0x7fff_ffff,
        Fmin => sem::fmin(a, b),
        Fmax => sem::fmax(a, b),
        Ffloor => canon(f(a).floor()),
        Fceil => canon(f(a).ceil()),
        Ftrunc => canon(f(a).trunc()),
        FroundEven => canon(f(a).round_ties_even()),
        Ffract => canon(f(a) - f(a).floor()),
        Fsqrt => canon(f(a).sqrt()),
        Frcp => canon(1.0 / f(a)),
        Frsq => canon(1.0 / f(a).sqrt()),
        Fexp2 => canon(f(a).exp2()),
        Flog2 => canon(f(a).log2()),
        Fsin => canon(f(a).sin()),
        Fcos => canon(f(a).cos()),
        Ieq => u32::from(a == b),
        Ine => u32::from(a != b),
        Ilt => u32::from((a as i32) < (b as i32)),
        Ige => u32::from((a as i32) >= (b as i32)),
        Ult => u32::from(a < b),
        Uge => u32::from(a >= b),
        Feq => u32::from(f(a) == f(b)),
        Fne => u32::from(f(a) != f(b)),
        Flt => u32::from(f(a) < f(b)),
        Fge => u32::from(f(a) >= f(b)),
        Band => a & b,
        Bor => a | b,
        Bxor => a ^ b,
        Bnot => a ^ 1,
        Bcsel => {
            if a != 0 {
                b
            } else {
                c
            }
        }
        I2f => sem::i2f(a),
        U2f => sem::u2f(a),
        F2i => sem::f2i(a),
        F2u => sem::f2u(a),
        B2i => a,
        B2f => {
            if a != 0 {
                1.0f32.to_bits()
            } else {
                0
            }
        }
        I2b => u32::from(a != 0),
        UbitfieldExtract => sem::ubitfield_extract(a, b, c),
        IbitfieldExtract => sem::ibitfield_extract(a, b, c),
        BitCount => a.count_ones(),
        BitfieldReverse => a.reverse_bits(),
        FindLsb => sem::find_lsb(a),
        UfindMsb => sem::ufind_msb(a),
        IfindMsb => sem::ifind_msb(a),
        UmulHigh => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        ImulHigh => ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
        UaddCarry => u32::from(a.checked_add(b).is_none()),
        UsubBorrow => u32::from(a < b),
        BitfieldInsert => sem::bitfield_insert(a, b, c, d),
        // 32 bits to 32 bits (other widths take `eval_sized`).
        I2i | U2u => a,
    }
}

impl AluOp {
    /// One component of an op of [`Sizing::Same`] or [`Sizing::Convert`] on integers of
    /// `int` bits into a result of `result` bits: operands are zero-extended into `u64`
    /// (booleans 0 or 1), as is the result. The widths' rules are the 32-bit ones, scaled:
    /// wrapping arithmetic, shift amounts modulo the width, the same answers for a zero
    /// divisor and for `MIN / -1`; `i2i` sign-extends, `u2u` zero-extends, both truncate.
    /// On 32 bits it is [`AluOp::eval`] (tested); other ops give 0.
    pub fn eval_sized(self, int: BitSize, result: BitSize, a: u64, b: u64, c: u64) -> u64 {
        sized(self, int.bits(), a, b, c) & result.mask()
    }
}

/// [`AluOp::eval_sized`] before the result is cut to its width. On 32 bits these are
/// [`semantics`]' rules, written again on `u64` rather than shared: the interpreter's word path
/// inlines `semantics` on `u32` lanes for every op, and `sized_agrees_with_eval_on_32_bits`
/// holds the two to one answer.
fn sized(op: AluOp, w: u32, a: u64, b: u64, c: u64) -> u64 {
    use AluOp::*;
    let mask = u64::MAX >> (64 - w);
    // The signed reading of a `w`-bit value.
    let s = |x: u64| ((x << (64 - w)) as i64) >> (64 - w);
    let min = 1u64 << (w - 1);
    let shift = |x: u64| (x & u64::from(w - 1)) as u32;
    match op {
        Iadd => a.wrapping_add(b),
        Isub => a.wrapping_sub(b),
        Imul => a.wrapping_mul(b),
        Ineg => a.wrapping_neg(),
        Iabs => s(a).wrapping_abs() as u64,
        Imin => s(a).min(s(b)) as u64,
        Imax => s(a).max(s(b)) as u64,
        Umin => a.min(b),
        Umax => a.max(b),
        Iand => a & b,
        Ior => a | b,
        Ixor => a ^ b,
        Inot => !a,
        Ishl => a << shift(b),
        Ishr => (s(a) >> shift(b)) as u64,
        Ushr => a >> shift(b),
        Udiv => a.checked_div(b).unwrap_or(mask),
        Umod => a.checked_rem(b).unwrap_or(a),
        Idiv if b == 0 => mask,
        Idiv if a == min && b == mask => min,
        Idiv => (s(a) / s(b)) as u64,
        Irem | Imod if b == 0 => a,
        Irem | Imod if b == mask => 0,
        Irem => (s(a) % s(b)) as u64,
        Imod => {
            // Floored: the sign of the divisor.
            let r = s(a).rem_euclid(s(b));
            (if s(b) < 0 && r != 0 { r + s(b) } else { r }) as u64
        }
        Ieq => u64::from(a == b),
        Ine => u64::from(a != b),
        Ilt => u64::from(s(a) < s(b)),
        Ige => u64::from(s(a) >= s(b)),
        Ult => u64::from(a < b),
        Uge => u64::from(a >= b),
        I2b => u64::from(a != 0),
        B2i | U2u => a,
        I2i => s(a) as u64,
        Bcsel => {
            if a != 0 {
                b
            } else {
                c
            }
        }
        _ => 0,
    }
}

impl fmt::Display for AluOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &op in AluOp::ALL {
            assert_eq!(AluOp::from_name(op.name()), Some(op));
        }
    }

    #[test]
    fn known_answers() {
        let one = 1.0f32.to_bits();
        assert_eq!(
            AluOp::Ishl.eval(1, 33, 0, 0),
            2,
            "shift amount is taken modulo 32"
        );
        assert_eq!(AluOp::Ishr.eval(0x8000_0000, 31, 0, 0), u32::MAX);
        assert_eq!(AluOp::Idiv.eval(5, 0, 0, 0), u32::MAX);
        assert_eq!(AluOp::Fadd.eval(one, one, 0, 0), 2.0f32.to_bits());
        assert_eq!(
            AluOp::Fsqrt.eval((-1.0f32).to_bits(), 0, 0, 0),
            sem::CANONICAL_NAN
        );
        assert_eq!(AluOp::Flt.eval(sem::CANONICAL_NAN, one, 0, 0), 0);
        assert_eq!(AluOp::Fne.eval(sem::CANONICAL_NAN, one, 0, 0), 1);
        assert_eq!(AluOp::Bcsel.eval(0, 7, 9, 0), 9);
        assert_eq!(AluOp::B2f.eval(1, 0, 0, 0), one);
        assert_eq!(AluOp::Iabs.eval(i32::MIN as u32, 0, 0, 0), i32::MIN as u32);
    }

    /// On 32 bits the sized rules are the word rules, over edge values of every kind.
    #[test]
    fn sized_agrees_with_eval_on_32_bits() {
        let edges = [
            0u32,
            1,
            2,
            3,
            7,
            31,
            32,
            33,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            !0,
        ];
        for &op in AluOp::ALL.iter().filter(|op| op.sizing() != Sizing::Word) {
            let bools = |x: u32| if op.srcs()[0] == Kind::Bool { x & 1 } else { x };
            for &a in &edges {
                for &b in &edges {
                    let a = bools(a);
                    let want = op.eval(a, b, b ^ 5, 0);
                    let got = op.eval_sized(
                        BitSize::B32,
                        BitSize::B32,
                        a.into(),
                        b.into(),
                        (b ^ 5).into(),
                    );
                    assert_eq!(got, u64::from(want), "{op} {a:#x} {b:#x}");
                }
            }
        }
    }

    #[test]
    fn sized_known_answers() {
        use AluOp::*;
        use BitSize::{B1, B16, B32, B64};
        // (op, operand width, result width, operands, result, what the case shows)
        type Case = (AluOp, BitSize, BitSize, [u64; 2], u64, &'static str);
        let cases: &[Case] = &[
            (
                Iadd,
                B64,
                B64,
                [u64::from(u32::MAX), 1],
                1 << 32,
                "the carry reaches bit 32",
            ),
            (Iadd, B16, B16, [0xffff, 2], 1, "wraps at 16 bits"),
            (Imul, B64, B64, [1 << 40, 1 << 30], 0, "wraps at 64 bits"),
            (Ishl, B64, B64, [1, 40], 1 << 40, "a shift past bit 31"),
            (Ishl, B16, B16, [1, 17], 2, "the amount modulo 16"),
            (
                Ishr,
                B16,
                B16,
                [0x8000, 15],
                0xffff,
                "sign of a 16-bit value",
            ),
            (Ilt, B16, B1, [0x8000, 1], 1, "0x8000 is -32768"),
            (Ult, B64, B1, [1 << 63, 1], 0, "unsigned compare of 64 bits"),
            (
                Idiv,
                B64,
                B64,
                [1 << 63, u64::MAX],
                1 << 63,
                "MIN / -1 = MIN",
            ),
            (Udiv, B16, B16, [5, 0], 0xffff, "by zero: all ones"),
            (Imod, B16, B16, [0xfff9, 3], 2, "-7 mod 3"),
            (Irem, B16, B16, [0xfff9, 3], 0xffff, "-7 rem 3 = -1"),
            (
                I2i,
                B16,
                B64,
                [0x8000, 0],
                0xffff_ffff_ffff_8000,
                "sign-extends",
            ),
            (U2u, B16, B64, [0x8000, 0], 0x8000, "zero-extends"),
            (I2i, B64, B16, [0x1_2345_6789, 0], 0x6789, "truncates"),
            (U2u, B64, B32, [0x1_2345_6789, 0], 0x2345_6789, "truncates"),
            (B2i, B32, B64, [1, 0], 1, "a boolean"),
            (Iabs, B64, B64, [u64::MAX, 0], 1, "|-1|"),
        ];
        for &(op, int, result, [a, b], want, why) in cases {
            let got = op.eval_sized(int, result, a, b, 0);
            assert_eq!(got, want, "{op} {int} -> {result} {a:#x} {b:#x}: {why}");
        }
    }

    #[test]
    fn bit_ops_known_answers() {
        use AluOp::*;
        const MIN: u32 = i32::MIN as u32;
        // (op, operands, result, what the case shows)
        let cases: &[(AluOp, [u32; 4], u32, &str)] = &[
            (UbitfieldExtract, [0xabcd_1234, 8, 8, 0], 0x12, "a field"),
            (
                IbitfieldExtract,
                [0xabcd_1234, 24, 8, 0],
                0xffff_ffab,
                "sign-extended",
            ),
            (
                UbitfieldExtract,
                [0xabcd_1234, 0, 32, 0],
                0xabcd_1234,
                "the whole word",
            ),
            (
                UbitfieldExtract,
                [0xabcd_1234, 28, 9, 0],
                0xa,
                "count clamped to 4",
            ),
            (
                IbitfieldExtract,
                [0xabcd_1234, 28, 9, 0],
                u32::MAX - 5,
                "clamped, signed",
            ),
            (
                UbitfieldExtract,
                [0xabcd_1234, 40, 3, 0],
                0,
                "offset past the word",
            ),
            (IbitfieldExtract, [u32::MAX, 3, 0, 0], 0, "empty field"),
            (
                BitfieldInsert,
                [u32::MAX, 0, 8, 8],
                0xffff_00ff,
                "an insert",
            ),
            (
                BitfieldInsert,
                [0, 0xabc, 28, 9],
                0xc000_0000,
                "count clamped to 4",
            ),
            (
                BitfieldInsert,
                [0x1234, 0xffff, 40, 3],
                0x1234,
                "offset past the word",
            ),
            (BitfieldInsert, [7, 0, 0, 32], 0, "the whole word"),
            (BitCount, [0xf0f0_0001, 0, 0, 0], 9, "bits set"),
            (BitfieldReverse, [1, 0, 0, 0], 0x8000_0000, "reversed"),
            (FindLsb, [0, 0, 0, 0], u32::MAX, "no bit"),
            (FindLsb, [0x50, 0, 0, 0], 4, "lowest"),
            (UfindMsb, [0, 0, 0, 0], u32::MAX, "no bit"),
            (UfindMsb, [0x8000_0000, 0, 0, 0], 31, "highest"),
            (
                IfindMsb,
                [u32::MAX, 0, 0, 0],
                u32::MAX,
                "-1: no bit differs",
            ),
            (IfindMsb, [0xffff_fff0, 0, 0, 0], 3, "negative"),
            (IfindMsb, [5, 0, 0, 0], 2, "positive"),
            (
                UmulHigh,
                [u32::MAX, u32::MAX, 0, 0],
                0xffff_fffe,
                "unsigned",
            ),
            (ImulHigh, [u32::MAX, u32::MAX, 0, 0], 0, "-1 * -1 = 1"),
            (ImulHigh, [MIN, 2, 0, 0], u32::MAX, "INT_MIN * 2"),
            (UaddCarry, [u32::MAX, 1, 0, 0], 1, "carry"),
            (UaddCarry, [u32::MAX, 0, 0, 0], 0, "no carry"),
            (UsubBorrow, [1, 2, 0, 0], 1, "borrow"),
            (UsubBorrow, [2, 2, 0, 0], 0, "no borrow"),
        ];
        for &(op, [a, b, c, d], want, why) in cases {
            assert_eq!(
                op.eval(a, b, c, d),
                want,
                "{op} {a:#x} {b:#x} {c:#x} {d:#x}: {why}"
            );
        }
    }
}
