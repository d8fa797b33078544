//! libFuzzer target: the whole oracle. A finding panics so libFuzzer saves the input.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz::libfuzzer::diff(data));
