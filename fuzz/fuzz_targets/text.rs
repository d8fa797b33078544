//! libFuzzer target: generated programs survive print → parse → print.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz::libfuzzer::text(data));
