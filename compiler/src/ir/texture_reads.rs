//! Which components of each texture result the program reads: backends trim the sampler's
//! response to them (Mesa's `nir_def_components_read` feeding the response length).

use super::{Function, InstKind, Value};
use std::collections::HashMap;

/// For each texture instruction's result, the components any instruction reads: a `mov`
/// reads its swizzle's, anything else all four.
pub fn texture_reads(f: &Function) -> HashMap<Value, u8> {
    let mut read: HashMap<Value, u8> = HashMap::new();
    for (_, inst) in f.insts_in_order() {
        let d = &f.insts[inst];
        if matches!(
            d.kind,
            InstKind::Tex { .. } | InstKind::Txf { .. } | InstKind::Txs { .. }
        ) {
            if let Some(v) = d.result.expand() {
                read.entry(v).or_insert(0);
            }
        }
    }
    for (_, inst) in f.insts_in_order() {
        let d = &f.insts[inst];
        match &d.kind {
            InstKind::Mov { src, swizzle } => {
                let n = d.result.expand().map_or(4, |r| f.ty(r).comps() as usize);
                if let Some(m) = read.get_mut(src) {
                    for &c in &swizzle[..n.min(4)] {
                        *m |= 1 << (c & 3);
                    }
                }
            }
            kind => kind.visit_args(|v| {
                if let Some(m) = read.get_mut(&v) {
                    *m = 0xf;
                }
            }),
        }
    }
    read
}
