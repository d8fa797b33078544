//! libFuzzer target: arbitrary text never panics the parser.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz::libfuzzer::parse(data));
