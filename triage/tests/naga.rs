//! The `naga` target on the device (lavapipe in CI), through this build's `gpufuzz vk-worker`:
//! the shapes naga's SPIR-V front end restructures — a loop whose phis read each other (a
//! swap: each header phi takes the other's value along the back edge, where turning phis into
//! variables one store at a time goes wrong) — hand-written in SPIR-V and as our emitter
//! writes it, through naga to the device, agree with the interpreter.
//!
//! Without a device or SPIRV-Tools these tests fail under CI and print why they skip otherwise.

mod common;
use common::{assemble, have_device, on_device};
use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, CaseConfig};
use fuzz::targets::naga;
use spirv_emit::validate::spirv_val;

/// A loop whose two header phis swap each other's value every iteration, five times (a
/// uniform), then a third phi counting: out0 = 0x10, out1 = id + 1, out2 = 5.
const SWAP: &str = "\
; expect 0: 0x00000010 0x00000001 0x00000005
; expect 3: 0x00000010 0x00000004 0x00000005
invocations 4
outputs 3
uniforms 0x00000005

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000001)
  vec1 32 ssa_2 = iadd ssa_0, ssa_1
  vec1 32 ssa_3 = load_const (0x00000010)
  vec1 32 ssa_4 = load_const (0x00000000)
  vec1 32 ssa_5 = load_uniform ssa_4
loop {
  block_1:
    vec1 32 ssa_6 = phi block_0: ssa_2, block_4: ssa_7
    vec1 32 ssa_7 = phi block_0: ssa_3, block_4: ssa_6
    vec1 32 ssa_8 = phi block_0: ssa_4, block_4: ssa_11
    vec1 1 ssa_9 = uge ssa_8, ssa_5
  if ssa_9 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_11 = iadd ssa_8, ssa_1
}
block_5:
  store_output 0, ssa_6
  store_output 1, ssa_7
  store_output 2, ssa_8
";

/// The configuration that gives the driver the program as written.
fn unoptimised() -> CaseConfig {
    let mut config = CaseConfig::default();
    config.set("vulkan_unoptimised", "true").expect("a knob");
    config
}

fn swap_case() -> Case {
    let program = compiler::ir::text::parse_program(SWAP, "swap.ir").expect("parses");
    // The driver (here: naga) gets the program as written, not our optimiser's version.
    Case {
        config: unoptimised(),
        program,
    }
}

/// The same loop written by hand in SPIR-V with the interface the emitter gives [`SWAP`]
/// (binding 0: three output words per invocation; binding 1: the uniforms), but with the
/// header phis reading each other directly (our emitter puts a latch block of phis between).
const HAND: &str = r#"; A loop whose header phis read each other: %a takes %b's value and %b takes %a's along the
; back edge (a swap, five times), %i counts; out = (a, b, i) per invocation.
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %words ArrayStride 4
               OpDecorate %block Block
               OpMemberDecorate %block 0 Offset 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpDecorate %uniforms NonWritable
               OpDecorate %uniforms DescriptorSet 0
               OpDecorate %uniforms Binding 1
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
   %in_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %in_v3uint Input
      %words = OpTypeRuntimeArray %uint
      %block = OpTypeStruct %words
   %sb_block = OpTypePointer StorageBuffer %block
        %out = OpVariable %sb_block StorageBuffer
   %uniforms = OpVariable %sb_block StorageBuffer
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
    %uint_16 = OpConstant %uint 16
    %sb_uint = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %ids = OpLoad %v3uint %gid
         %id = OpCompositeExtract %uint %ids 0
     %inside = OpULessThan %bool %id %uint_4
               OpSelectionMerge %end None
               OpBranchConditional %inside %body %end
       %body = OpLabel
         %a0 = OpIAdd %uint %id %uint_1
        %npt = OpAccessChain %sb_uint %uniforms %uint_0 %uint_0
          %n = OpLoad %uint %npt
               OpBranch %header
     %header = OpLabel
          %a = OpPhi %uint %a0 %body %b %latch
          %b = OpPhi %uint %uint_16 %body %a %latch
          %i = OpPhi %uint %uint_0 %body %i1 %latch
               OpLoopMerge %exit %latch None
               OpBranch %test
       %test = OpLabel
       %done = OpUGreaterThanEqual %bool %i %n
               OpBranchConditional %done %exit %latch
      %latch = OpLabel
         %i1 = OpIAdd %uint %i %uint_1
               OpBranch %header
       %exit = OpLabel
       %base = OpIMul %uint %id %uint_3
        %pa = OpAccessChain %sb_uint %out %uint_0 %base
               OpStore %pa %a
        %ib = OpIAdd %uint %base %uint_1
        %pb = OpAccessChain %sb_uint %out %uint_0 %ib
               OpStore %pb %b
        %ic = OpIAdd %uint %base %uint_2
        %pc = OpAccessChain %sb_uint %out %uint_0 %ic
               OpStore %pc %i
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn a_hand_written_loop_whose_phis_read_each_other_round_trips_and_agrees() {
    // `%a = OpPhi .. %b %latch` and `%b = OpPhi .. %a %latch`.
    let phi = |r: &str| {
        HAND.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{r} = OpPhi ")))
            .unwrap()
            .to_string()
    };
    assert!(phi("%a").ends_with("%b %latch") && phi("%b").ends_with("%a %latch"));
    let Some(words) = assemble(HAND, "naga-swap") else {
        return;
    };
    spirv_val(&words).expect("the hand-written module is valid");
    let naga_words = naga::round_trip(&words).unwrap_or_else(|e| panic!("{e:?}"));
    spirv_val(&naga_words).expect("naga's module is valid");
    let opts = on_device("naga");
    if !have_device(&opts) {
        return;
    }
    let program = swap_case().program;
    let module = spirv_emit::emit(&program, &naga::emit_options()).unwrap();
    let expected = compiler::interp::run(&program, &Default::default()).unwrap();
    for (what, w) in [("the module", words), ("naga's module", naga_words)] {
        let got = naga::run_words(w, &module, &program, &opts.vulkan).unwrap();
        assert_eq!(got.outputs, expected.outputs, "{what}");
    }
    assert_eq!(
        expected.outputs,
        [0x10, 1, 5, 0x10, 2, 5, 0x10, 3, 5, 0x10, 4, 5],
        "three slots per invocation"
    );
}

#[test]
fn the_swap_loop_round_trips_through_naga_and_agrees_with_the_interpreter() {
    let case = swap_case();
    let module = spirv_emit::emit(&case.program, &naga::emit_options()).unwrap();
    let words = naga::round_trip(&module.words).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        words.len() > 5 && words[0] == 0x0723_0203,
        "naga wrote SPIR-V"
    );
    let opts = on_device("naga");
    if !have_device(&opts) {
        return;
    }
    // The oracle: interpreter, then naga and the device; a difference would be a finding.
    match oracle::judge(&case, &opts).verdict {
        Verdict::Pass => {}
        other => panic!("{other:?}"),
    }
}

/// The reduced naga bugs of `docs/found-bugs/`, with the known bug each is (or, without a
/// known-bug rule yet, the class its finding gets).
const KNOWN: [(&str, &str); 11] = [
    (
        "naga-signed-op-on-uint-atomic.ir",
        "known-naga-signed-op-on-uint",
    ),
    ("naga-atomic-operand-loop-phi.ir", "naga validator Function"),
    (
        "naga-signed-op-on-uint-bit-ops.ir",
        "known-naga-signed-op-on-uint",
    ),
    (
        "naga-signed-op-on-uint-smin.ir",
        "known-naga-signed-op-on-uint",
    ),
    (
        "naga-signed-op-on-uint-smax.ir",
        "known-naga-signed-op-on-uint",
    ),
    (
        "naga-signed-op-on-uint-sra.ir",
        "known-naga-signed-op-on-uint",
    ),
    (
        "naga-signed-op-on-uint-sdiv.ir",
        "known-naga-signed-op-on-uint",
    ),
    (
        "naga-logical-op-on-bool-vectors.ir",
        "known-naga-logical-op-on-bool-vectors",
    ),
    ("naga-snegate-on-uint.ir", "known-naga-snegate-on-uint"),
    (
        "naga-loaded-combined-image-sampler-txf.ir",
        "known-naga-loaded-combined-image-sampler",
    ),
    (
        "naga-loaded-combined-image-sampler-tex.ir",
        "known-naga-loaded-combined-image-sampler",
    ),
];

#[test]
fn the_reduced_naga_bugs_are_found_and_bucketed_as_known() {
    let opts = on_device("naga");
    if !have_device(&opts) {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/found-bugs");
    // Every written-up naga program is in the table.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with("naga-") && name.ends_with(".ir") {
            assert!(
                KNOWN.iter().any(|(f, _)| *f == name),
                "{name} is not in KNOWN"
            );
        }
    }
    for (file, class) in KNOWN {
        let path = dir.join(file);
        let src = std::fs::read_to_string(&path).unwrap();
        let program = compiler::ir::text::parse_program(&src, file).unwrap();
        // naga gets the program as written (the reduced file's constants would fold away).
        let case = Case {
            config: unoptimised(),
            program,
        };
        match oracle::judge(&case, &opts).verdict {
            Verdict::Finding(f) => {
                assert_eq!(f.class.as_deref(), Some(class), "{file}: {f}");
                if class.starts_with("known-") {
                    assert!(f.detail.contains("known: naga's"), "{file}: {}", f.detail);
                }
            }
            other => panic!("{file}: naga 30.0.2 has this bug, but: {other:?}"),
        }
    }
}
