#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = warpgraph::io::dimacs::read_sources(data, std::path::Path::new("fuzz.ss"));
});
