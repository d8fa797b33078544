//! naga on the shapes its SPIR-V front end restructures: a loop whose phis read each other (a
//! swap: each header phi takes the other's value along the back edge, where turning phis into
//! variables one store at a time goes wrong), hand-written in SPIR-V and as our emitter writes
//! it, through naga to the device, against the interpreter.

use super::*;
use crate::case::CaseConfig;
use crate::finding::Verdict;
use crate::oracle::judge;

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

fn swap_case() -> Case {
    let program = compiler::ir::text::parse_program(SWAP, "swap.ir").expect("parses");
    // The driver (here: naga) gets the program as written, not our optimiser's version.
    let config = CaseConfig {
        vulkan_unoptimised: true,
        ..CaseConfig::default()
    };
    Case { config, program }
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

/// `text` assembled by `spirv-as`, or `None` (said why) when SPIRV-Tools is missing.
fn assemble(text: &str) -> Option<Vec<u32>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let child = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        vulkan_runner::client::unavailable("spirv-as (package spirv-tools)");
        return None;
    };
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(out.status.success(), "spirv-as refused the module");
    Some(
        out.stdout
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

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
    let Some(words) = assemble(HAND) else { return };
    spirv_val(&words).expect("the hand-written module is valid");
    let naga_words = round_trip(&words).unwrap_or_else(|e| panic!("{e:?}"));
    spirv_val(&naga_words).expect("naga's module is valid");
    let opts = VulkanOptions::default();
    if let Err(e) = vulkan::device(&opts) {
        return vulkan_runner::client::unavailable(&format!("a Vulkan device ({e})"));
    }
    let program = swap_case().program;
    let module = spirv_emit::emit(&program, &emit_options()).unwrap();
    let expected = compiler::interp::run(&program, &Default::default()).unwrap();
    for (what, w) in [("the module", words), ("naga's module", naga_words)] {
        let got = run_words(w, &module, &program, &opts).unwrap();
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
    let module = spirv_emit::emit(&case.program, &emit_options()).unwrap();
    let words = round_trip(&module.words).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        words.len() > 5 && words[0] == 0x0723_0203,
        "naga wrote SPIR-V"
    );
    let opts = OracleOptions {
        targets: vec!["naga".into()],
        ..OracleOptions::default()
    };
    if let Err(e) = vulkan::device(&opts.vulkan) {
        return vulkan_runner::client::unavailable(&format!("a Vulkan device ({e})"));
    }
    // The oracle: interpreter, then naga and the device; a difference would be a finding.
    match judge(&case, &opts).verdict {
        Verdict::Pass => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn naga_refusing_invalid_spirv_is_ours_and_its_own_failures_are_bucketed_by_step() {
    // Not SPIR-V at all: naga's front end refuses it, and so does spirv-val — ours.
    let garbage = [0x0723_0203u32, 0x0001_0000, 0, 0, 0, 0xdead_beef];
    let e = round_trip(&garbage).unwrap_err();
    assert_eq!(e.step, Step::FrontEnd);
    let f = naga_finding(e, &garbage);
    match spirv_val(&[]) {
        Err(ValidateError::Missing(_)) => {
            return vulkan_runner::client::unavailable("spirv-val (package spirv-tools)")
        }
        _ => assert_eq!(f.class.as_deref(), Some("spirv-val"), "{f}"),
    }
    let e = NagaError {
        step: Step::Validator,
        message: "Function [1] 'main' is invalid".into(),
        class: "Function".into(),
    };
    let f = naga_finding(e, &garbage);
    assert_eq!(f.class.as_deref(), Some("naga validator Function"));
}
