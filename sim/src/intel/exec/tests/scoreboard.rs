//! Gen12's software scoreboard (`super::super::scoreboard`): brw's own Tiger Lake code runs
//! without a hazard and trips one when a wait brw wrote is taken away; hand-built sequences
//! with and without each kind of wait.

use super::super::super::gen::Gen;
use super::super::super::swsb::{Pipe, Swsb, Token};
use super::super::scoreboard::Scoreboard;
use super::*;

fn listing_code_as(gen: Gen, name: &str) -> Code {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/intel/tests")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let listing = super::super::super::parse(&text).expect("listing");
    Code::new(super::super::super::decode_program_as(gen, &listing.bytes()).expect("decodes"))
}

/// Runs tgl_spill_fs_scratch.lst (brw's SIMD8 code with every value spilled) as thread 0.
fn run_spill_listing(code: &Code) -> Result<ThreadStats, Stop> {
    let mut memory = Memory::default();
    memory.surfaces.insert(1, vec![0; 64]);
    let p = payload(0, 1, 0);
    let start = Start {
        payload: &p,
        dispatch_mask: 0xff,
        scratch: WINDOW,
    };
    run_thread(code, &start, &mut memory, &mut 100_000)
}

/// `code` with the waits of its `k`-th instruction taken away (a token it sets stays).
fn without_wait(code: &Code, k: usize) -> Code {
    let mut insts = code.insts.clone();
    let swsb = insts[k].1.swsb.as_mut().expect("a Gen12 instruction");
    swsb.regdist = 0;
    if swsb.token != Some(Token::Set) {
        swsb.token = None;
    }
    Code::new(insts)
}

/// The first instruction whose brw text matches `pred`.
fn find(code: &Code, pred: impl Fn(&Inst) -> bool) -> usize {
    code.insts.iter().position(|(_, i)| pred(i)).expect("found")
}

#[test]
fn brws_tiger_lake_spill_code_is_hazard_free_and_each_wait_it_wrote_matters() {
    let code = listing_code_as(Gen::Gfx12, "tgl_spill_fs_scratch.lst");
    run_spill_listing(&code).expect("brw's code runs to its end without a hazard");
    // The first fill: `send(8) g115 ... $2` then `add(8) g126 = g115 + g1 {$2.dst}`.
    let add = find(&code, |i| {
        i.opcode == Opcode::ADD && i.swsb.is_some_and(|s| s.token == Some(Token::Dst))
    });
    let stop = run_spill_listing(&without_wait(&code, add)).expect_err("a hazard");
    let Stop::Hazard(why) = stop else {
        panic!("{stop}")
    };
    assert!(why.starts_with("g115 read") && why.contains("$2"), "{why}");
    // The first spill's send reads g114, which `mov(1) g114.2` wrote just before it: `@1`.
    let spill = find(&code, |i| i.opcode.is_send());
    assert_eq!(code.insts[spill].1.swsb.map(|s| s.regdist), Some(1));
    let stop = run_spill_listing(&without_wait(&code, spill)).expect_err("a hazard");
    let Stop::Hazard(why) = stop else {
        panic!("{stop}")
    };
    assert!(
        why.starts_with("g114 read") && why.contains("float pipe"),
        "{why}"
    );
}

// Hand-built sequences, stepped through a scoreboard directly.

fn on(gen: Gen, mut i: Inst, swsb: Swsb) -> Inst {
    i.gen = gen;
    i.swsb = Some(swsb);
    i
}

fn set(token: u8) -> Swsb {
    Swsb {
        sbid: token,
        token: Some(Token::Set),
        ..Swsb::default()
    }
}

fn wait(token: u8, t: Token) -> Swsb {
    Swsb {
        sbid: token,
        token: Some(t),
        ..Swsb::default()
    }
}

fn dist(regdist: u8, pipe: Pipe) -> Swsb {
    Swsb {
        regdist,
        pipe,
        ..Swsb::default()
    }
}

/// A SIMD8 read of surface 1 into g20 with its address in g10, setting token 3.
fn load() -> Inst {
    on(
        Gen::Gfx12,
        send(
            12,
            (1 << 25) | (1 << 20) | (1 << 14) | (0x2e << 8) | 1,
            Some(20),
            10,
            None,
        ),
        set(3),
    )
}

fn add(gen: Gen, d: u8, a: u8, ty: Type, swsb: Swsb) -> Inst {
    on(
        gen,
        alu(Opcode::ADD, 8, dst(d, ty), &[reg(a, ty), imm(ty, 1)]),
        swsb,
    )
}

fn sync(function: u8, swsb: Swsb) -> Inst {
    let mut i = on(Gen::Gfx12, inst(Opcode::SYNC, 1), swsb);
    i.sync_function = Some(function);
    i
}

/// Steps `insts` through a fresh scoreboard: the first hazard, if any.
fn hazard(gen: Gen, insts: &[Inst]) -> Option<String> {
    let mut s = Scoreboard::new(gen);
    for (k, i) in insts.iter().enumerate() {
        if let Err(stop) = s.step(i, 16 * k) {
            return Some(stop.to_string());
        }
    }
    None
}

#[test]
fn reading_a_sends_response_needs_its_tokens_dst_wait() {
    let g = Gen::Gfx12;
    let read = |swsb| add(g, 30, 20, Type::D, swsb);
    let early = hazard(g, &[load(), read(Swsb::default())]);
    assert_eq!(
        early.as_deref(),
        Some("hazard: g20 read at byte 16 before $3 (set at byte 0) wrote it: no $.dst wait")
    );
    assert_eq!(hazard(g, &[load(), read(wait(3, Token::Dst))]), None);
    // Another token's wait does not cover it; `sync.allwr` and `sync.nop $3.dst` do.
    assert!(hazard(g, &[load(), read(wait(4, Token::Dst))]).is_some());
    assert!(hazard(g, &[load(), read(wait(3, Token::Src))]).is_some());
    assert_eq!(
        hazard(
            g,
            &[load(), sync(3, Swsb::default()), read(Swsb::default())]
        ),
        None
    );
    assert_eq!(
        hazard(
            g,
            &[load(), sync(0, wait(3, Token::Dst)), read(Swsb::default())]
        ),
        None
    );
    // Overwriting the response before it arrives (WAW) is a hazard too.
    let overwrite = hazard(g, &[load(), add(g, 20, 30, Type::D, Swsb::default())]);
    assert!(overwrite.is_some_and(|h| h.contains("g20 written")));
}

#[test]
fn overwriting_a_sends_payload_needs_its_tokens_src_wait() {
    let g = Gen::Gfx12;
    let overwrite = |swsb| add(g, 10, 40, Type::D, swsb);
    let early = hazard(g, &[load(), overwrite(Swsb::default())]);
    assert!(early.is_some_and(|h| h.contains("g10 written") && h.contains("$.src")));
    assert_eq!(hazard(g, &[load(), overwrite(wait(3, Token::Src))]), None);
    assert_eq!(
        hazard(
            g,
            &[load(), sync(2, Swsb::default()), overwrite(Swsb::default())]
        ),
        None
    );
    // Reading the payload again is no hazard.
    assert_eq!(
        hazard(g, &[load(), add(g, 41, 10, Type::D, Swsb::default())]),
        None
    );
}

#[test]
fn an_in_order_result_needs_a_regdist_wait_until_ten_instructions_of_its_pipe_are_past() {
    let g = Gen::Gfx12;
    let write = add(g, 30, 40, Type::D, Swsb::default());
    let read = |swsb| add(g, 31, 30, Type::D, swsb);
    let filler = |n: usize| (0..n).map(|k| add(g, 50 + k as u8, 40, Type::D, Swsb::default()));
    let early = hazard(g, &[write.clone(), read(Swsb::default())]);
    assert!(early.is_some_and(|h| h.contains("g30 read") && h.contains("1 instructions back")));
    assert_eq!(hazard(g, &[write.clone(), read(dist(1, Pipe::None))]), None);
    // Two instructions later `@2` covers it and `@3` (the one before it) does not.
    let two: Vec<Inst> = std::iter::once(write.clone()).chain(filler(1)).collect();
    let with = |swsb| two.iter().cloned().chain([read(swsb)]).collect::<Vec<_>>();
    assert_eq!(hazard(g, &with(dist(2, Pipe::None))), None);
    assert!(hazard(g, &with(dist(3, Pipe::None))).is_some());
    // brw takes a result 11 in-order instructions back as done, 10 back not.
    let back = |n: usize| {
        std::iter::once(write.clone())
            .chain(filler(n - 1))
            .chain([read(Swsb::default())])
            .collect::<Vec<_>>()
    };
    assert!(hazard(g, &back(10)).is_some());
    assert_eq!(hazard(g, &back(11)), None);
    // `sync` counts no instruction.
    let mut synced = back(11);
    synced.insert(1, sync(0, Swsb::default()));
    assert_eq!(hazard(g, &synced), None);
}

#[test]
fn on_gfx12_5_a_regdist_waits_on_the_pipe_it_names() {
    let g = Gen::Gfx125;
    // A float result read by an integer instruction.
    let write = add(g, 30, 40, Type::F, Swsb::default());
    let read = |swsb| add(g, 31, 30, Type::D, swsb);
    assert_eq!(
        hazard(g, &[write.clone(), read(dist(1, Pipe::Float))]),
        None
    );
    assert_eq!(hazard(g, &[write.clone(), read(dist(1, Pipe::All))]), None);
    let wrong = hazard(g, &[write.clone(), read(dist(1, Pipe::Int))]);
    assert!(wrong.is_some_and(|h| h.contains("float pipe")));
    // A bare `@1` waits on the reader's own inferred pipe: integer for integer sources.
    assert!(hazard(g, &[write.clone(), read(dist(1, Pipe::None))]).is_some());
    // Overwriting from another pipe needs the wait too, from the same pipe it does not; an
    // overwrite of what another pipe reads needs it, one from the reader's own pipe does not.
    let overwrite = |d, ty, swsb| add(g, d, 41, ty, swsb);
    let waw = hazard(g, &[write.clone(), overwrite(30, Type::D, Swsb::default())]);
    assert!(waw.is_some_and(|h| h.contains("g30 written")));
    assert_eq!(
        hazard(
            g,
            &[write.clone(), overwrite(30, Type::D, dist(1, Pipe::Float))]
        ),
        None
    );
    assert_eq!(
        hazard(g, &[write.clone(), overwrite(30, Type::F, Swsb::default())]),
        None
    );
    let reader = add(g, 50, 40, Type::F, Swsb::default());
    let war = hazard(
        g,
        &[reader.clone(), overwrite(40, Type::D, Swsb::default())],
    );
    assert!(war.is_some_and(|h| h.contains("g40 written") && h.contains("read")));
    assert_eq!(
        hazard(g, &[reader, overwrite(40, Type::F, Swsb::default())]),
        None
    );
}
