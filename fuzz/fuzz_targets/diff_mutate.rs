//! libFuzzer target: the whole oracle, as `diff`, with the structure-aware mutator
//! (`fuzz::mutate`): inputs are mutated as programs and written back as case files.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz::libfuzzer::diff(data));

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    fuzz::mutate::mutate_input(data, size, max_size, seed, libfuzzer_sys::fuzzer_mutate)
});

libfuzzer_sys::fuzz_crossover!(|a: &[u8], b: &[u8], out: &mut [u8], seed: u32| {
    fuzz::mutate::crossover_input(a, b, out, seed)
});
