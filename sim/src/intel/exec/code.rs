//! A decoded program ready to run: the instructions in order and, for every byte offset that
//! starts one, its index, so that control flow (JIP/UIP in bytes) lands on instructions.

use super::super::inst::Inst;
use super::{fault, Stop};

/// A program of decoded instructions.
#[derive(Clone, Debug)]
pub struct Code {
    /// Instructions with their byte offsets, in order.
    pub insts: Vec<(usize, Inst)>,
    /// For each 8-byte slot of the program, the index of the instruction starting there.
    starts: Vec<Option<u32>>,
    /// Bytes in the program.
    pub len: usize,
}

impl Code {
    /// Indexes `insts` (as [`super::super::decode_program`] returns them).
    pub fn new(insts: Vec<(usize, Inst)>) -> Code {
        let len = insts.last().map_or(0, |(o, i)| o + i.len());
        let mut starts = vec![None; len / 8 + 1];
        for (k, (offset, _)) in insts.iter().enumerate() {
            starts[offset / 8] = Some(k as u32);
        }
        Code { insts, starts, len }
    }

    /// The index of the instruction at byte `offset`.
    pub fn at(&self, offset: i64) -> Result<usize, Stop> {
        if offset < 0 || offset as usize >= self.len || offset % 8 != 0 {
            return fault(format!(
                "jump to byte {offset} outside the program's instructions"
            ));
        }
        match self.starts[offset as usize / 8] {
            Some(k) => Ok(k as usize),
            None => fault(format!(
                "jump into the middle of an instruction (byte {offset})"
            )),
        }
    }
}
