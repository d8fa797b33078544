//! Structured control flow on per-thread channel masks.
//!
//! The model: a stack of frames (validation guarantees proper nesting).
//! * `if`: channels of the mask whose predicate holds run the then-part; the others wait in
//!   the frame. No channel left: jump to JIP (the `else`, or the `endif`), which executes.
//! * `else`: switch to the waiting channels; none: jump to JIP (the `endif`), which executes.
//! * `endif`: restore the channels that entered, minus those that left a loop inside.
//! * `do`: push a loop frame remembering the channels that entered.
//! * `break`/`cont`: the predicated channels leave the mask and every if-frame up to the
//!   innermost loop; `cont` parks them in the loop frame until `while`.
//! * `while`: parked channels return; a predicated `while` keeps only channels whose
//!   predicate holds. Any left: jump to JIP (the body). Else the loop ends and the channels
//!   that entered it are restored.
//!
//! Whenever no channel remains active, execution skips to the innermost frame's join point
//! (its `else`/`endif`, or the loop's `while`), where channels can come back.

use super::decode::{Decoded, Kind};
use super::state::{Frame, Thread};

/// Where to continue when no channel is active.
#[inline]
fn skip(t: &Thread, end: u32) -> u32 {
    t.stack.last().map_or(end, |f| f.join)
}

/// Remove `lanes` from every if-frame above the innermost loop frame; returns that frame's
/// position.
#[inline]
fn leave(t: &mut Thread, lanes: u32) -> usize {
    let mut k = t.stack.len();
    while k > 0 {
        k -= 1;
        let f = &mut t.stack[k];
        if f.is_loop {
            return k;
        }
        f.saved &= !lanes;
        f.other &= !lanes;
    }
    0
}

/// Execute control-flow instruction `d` at `pc` on a thread of `width` channels; returns the
/// next pc (`end` = instruction count ends the thread).
pub(super) fn execute(t: &mut Thread, d: &Decoded, pc: u32, width_bits: u32, end: u32) -> u32 {
    let p = t.pred_bits(d) & width_bits;
    let next = pc + 1;
    match d.kind {
        Kind::If => {
            let then = t.mask & p;
            t.stack.push(Frame {
                saved: t.mask,
                other: t.mask & !p,
                join: d.target,
                is_loop: false,
            });
            t.mask = then;
            if then == 0 {
                return d.target;
            }
        }
        Kind::Else => {
            if let Some(f) = t.stack.last_mut() {
                t.mask = f.other;
                f.other = 0;
                f.join = d.target;
            }
            if t.mask == 0 {
                return d.target;
            }
        }
        Kind::EndIf => {
            if let Some(f) = t.stack.pop() {
                t.mask = f.saved;
            }
            if t.mask == 0 {
                return skip(t, end);
            }
        }
        Kind::Do => t.stack.push(Frame {
            saved: t.mask,
            other: 0,
            join: d.target,
            is_loop: true,
        }),
        Kind::While => {
            if let Some(f) = t.stack.last_mut() {
                t.mask = (t.mask | f.other) & p;
                f.other = 0;
                if t.mask != 0 {
                    return d.target;
                }
                t.mask = f.saved;
                t.stack.pop();
            }
            if t.mask == 0 {
                return skip(t, end);
            }
        }
        Kind::Break | Kind::Cont => {
            let lanes = t.mask & p;
            t.mask &= !lanes;
            let k = leave(t, lanes);
            if matches!(d.kind, Kind::Cont) {
                if let Some(f) = t.stack.get_mut(k) {
                    f.other |= lanes;
                }
            }
            if t.mask == 0 {
                return skip(t, end);
            }
        }
        _ => {}
    }
    next
}
