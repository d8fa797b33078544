//! `widen`: a group of values joined by component-wise operations made four components wide,
//! so that fewer values hold as many registers.
//!
//! A spill bug needs register pressure, and a reduced repro pays for it in instructions: each
//! scalar kept live across a loop is a definition and a use, two instructions for one
//! register. The same pressure from one `vec4` costs the same two instructions for four
//! registers, after which the other pressure values can go. No shrinking edit gets there
//! (every edit that drops a pressure value loses the bug), so the reducer tries this one
//! sideways, at the end of a descent, and keeps it only when the program passes then shrink
//! the program below where it was ([`super::Reducer`]).
//!
//! A group is closed under the edges along which a component count must agree: an ALU
//! operation's operands and result, a phi's sources and result. Its edges may end in
//! constants (replaced, for the group's use, by a four-wide copy repeating the last
//! component, so other users keep the original), in uniform and buffer loads (which then
//! read more words), in `mov`s (whose swizzle repeats its last component), and in stores and
//! `mov`s reading a member (a store then writes more slots or words, wrapping as it does).
//! A group with a member used as an `if` condition, an index, a texture coordinate or a
//! vector element, or defined by anything else, is not widened.

use super::edit;
use super::passes::Candidate;
use compiler::ir::{Function, Inst, InstKind, Program, Value};
use std::collections::{HashMap, HashSet};

/// The width the members are given.
const WIDTH: u8 = 4;

/// Group `index` (in the order of the first instruction defining a member) widened.
pub fn widen(p: &Program, index: usize) -> Option<Candidate> {
    let group = groups(&p.func).into_iter().nth(index)?;
    let mut q = p.clone();
    rewrite(&mut q.func, &group);
    Some(Candidate::Try(Box::new(q)))
}

/// The instructions reading each value, and the `if` conditions.
struct Uses {
    users: HashMap<Value, Vec<Inst>>,
    conds: HashSet<Value>,
}

/// Every group that can be widened, members in the order found.
fn groups(f: &Function) -> Vec<Vec<Value>> {
    let order = f.insts_in_order();
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for &(_, i) in &order {
        f.insts[i]
            .kind
            .visit_args(|a| users.entry(a).or_default().push(i));
    }
    let mut conds = Vec::new();
    edit::conds(&f.body, &mut conds);
    let uses = Uses {
        users,
        conds: conds.into_iter().collect(),
    };
    let mut met = HashSet::new();
    let mut out = Vec::new();
    for &(_, i) in &order {
        let Some(v) = f.result(i) else { continue };
        let comps = f.ty(v).comps();
        let constant = matches!(f.insts[i].kind, InstKind::Const { .. });
        if met.contains(&v) || constant || comps == 0 || comps >= WIDTH {
            continue;
        }
        let (group, ok) = group_of(f, v, &uses);
        met.extend(group.iter().copied());
        if ok {
            out.push(group);
        }
    }
    out
}

/// The group of `v` (as far as it was followed) and whether it can be widened.
fn group_of(f: &Function, v: Value, uses: &Uses) -> (Vec<Value>, bool) {
    let comps = f.ty(v).comps();
    let mut members = vec![v];
    let mut seen = HashSet::from([v]);
    let mut next = 0;
    let is_const = |a: Value| matches!(f.def_kind(a), Some(InstKind::Const { .. }));
    while let Some(&x) = members.get(next) {
        next += 1;
        let mut follow = Vec::new();
        let def_ok = match f.def_kind(x) {
            Some(InstKind::Alu { op, args }) => {
                follow.extend(args[..op.arity()].iter().copied().filter(|&a| !is_const(a)));
                true
            }
            Some(InstKind::Phi { sources }) => {
                follow.extend(sources.iter().map(|s| s.value).filter(|&a| !is_const(a)));
                true
            }
            Some(
                InstKind::LoadUniform { .. } | InstKind::LoadBuffer { .. } | InstKind::Mov { .. },
            ) => true,
            _ => false,
        };
        if !def_ok || f.ty(x).comps() != comps || uses.conds.contains(&x) {
            return (members, false);
        }
        for &u in uses.users.get(&x).into_iter().flatten() {
            match &f.insts[u].kind {
                InstKind::Alu { .. } | InstKind::Phi { .. } => follow.extend(f.result(u)),
                InstKind::StoreOutput { value, .. } if *value == x => {}
                InstKind::StoreBuffer { value, index, .. } if *value == x && *index != x => {}
                InstKind::Mov { .. } => {}
                _ => return (members, false),
            }
        }
        for a in follow {
            if seen.insert(a) {
                members.push(a);
            }
        }
    }
    (members, true)
}

/// Makes every member of `group` [`WIDTH`] components wide (see the module doc).
fn rewrite(f: &mut Function, group: &[Value]) {
    for &x in group {
        let ty = f.ty(x);
        let n = usize::from(ty.comps());
        f.values[x].ty = ty.with_comps(WIDTH);
        let Some(def) = f.def(x) else { continue };
        let mut operands = Vec::new();
        if let InstKind::Alu { .. } | InstKind::Phi { .. } = f.insts[def].kind {
            f.insts[def].kind.visit_args(|a| operands.push(a));
        }
        for a in operands {
            let Some(&InstKind::Const { bits }) = f.def_kind(a) else {
                continue;
            };
            let comps = usize::from(f.ty(a).comps());
            let wide: [u32; 4] = std::array::from_fn(|k| bits[k.min(comps - 1)]);
            let wide_ty = f.ty(a).with_comps(WIDTH);
            let Some(c) = edit::constant(f, wide_ty, wide) else {
                continue;
            };
            f.insts[def].kind.visit_args_mut(|v| {
                if *v == a {
                    *v = c;
                }
            });
        }
        if let InstKind::Mov { swizzle, .. } = &mut f.insts[def].kind {
            let last = swizzle[n - 1];
            swizzle[n..].fill(last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::{parse_program, print_program, verify};

    fn candidates(src: &str) -> Vec<String> {
        let p = parse_program(src, "t.ir").expect("parses");
        (0..)
            .map_while(|i| widen(&p, i))
            .map(|c| match c {
                Candidate::Try(q) => {
                    verify(&q).expect("a widened program verifies");
                    print_program(&q)
                }
                Candidate::Skip => String::new(),
            })
            .collect()
    }

    #[test]
    fn a_chain_of_scalars_becomes_one_of_vec4s_and_the_constant_it_shares_stays() {
        let src = "invocations 1\noutputs 1\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x00000002)\n  \
            vec3 32 ssa_1 = load_uniform ssa_0\n  \
            vec1 32 ssa_2 = iadd ssa_0, ssa_0\n  \
            vec1 32 ssa_3 = mov ssa_1.y\n  \
            vec1 32 ssa_4 = ixor ssa_2, ssa_3\n  \
            store_output 0, ssa_4\n";
        let texts = candidates(src);
        // One group: ssa_2, ssa_4 and the mov (the uniform load is another, used by the mov).
        assert_eq!(texts.len(), 2, "{texts:?}");
        let t = &texts[1];
        for want in [
            "vec4 32 ssa_5 = load_const (0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "vec1 32 ssa_0 = load_const (0x00000002)",
            "vec3 32 ssa_1 = load_uniform ssa_0",
            "vec4 32 ssa_2 = iadd ssa_5, ssa_5",
            "vec4 32 ssa_3 = mov ssa_1.yyyy",
            "vec4 32 ssa_4 = ixor ssa_2, ssa_3",
            "store_output 0, ssa_4",
        ] {
            assert!(t.contains(want), "{want}: {t}");
        }
        assert!(
            texts[0].contains("vec4 32 ssa_1 = load_uniform ssa_0"),
            "{}",
            texts[0]
        );
    }

    #[test]
    fn values_an_if_or_an_index_needs_as_scalars_stay() {
        let src = "invocations 1\noutputs 1\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x00000000)\n  \
            vec1 32 ssa_1 = iadd ssa_0, ssa_0\n  \
            vec1 32 ssa_2 = load_uniform ssa_1\n  \
            vec1 1 ssa_3 = ieq ssa_2, ssa_0\n\
            if ssa_3 {\n  block_1:\n} else {\n  block_2:\n}\nblock_3:\n";
        assert!(candidates(src).is_empty());
    }

    #[test]
    fn a_loop_phi_widens_with_its_sources() {
        let src = "invocations 1\noutputs 1\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x00000000)\n  \
            vec1 1 ssa_5 = load_const (true)\n\
            loop {\n  block_1:\n    \
            vec1 32 ssa_1 = phi block_0: ssa_0, block_4: ssa_2\n    \
            vec1 32 ssa_2 = iadd ssa_1, ssa_0\n  \
            if ssa_5 {\n    block_2:\n      break\n  } else {\n    block_3:\n  }\n  \
            block_4:\n}\nblock_5:\n  store_output 0, ssa_1\n";
        let texts = candidates(src);
        assert_eq!(texts.len(), 1, "{texts:?}");
        assert!(texts[0].contains("vec4 32 ssa_1 = phi block_0: ssa_6, block_4: ssa_2"));
        assert!(texts[0].contains("vec4 32 ssa_2 = iadd ssa_1, ssa_6"));
    }
}
