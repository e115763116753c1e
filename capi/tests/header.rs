//! `include/tgsic.h` is what cbindgen generates from `src/lib.rs` with `cbindgen.toml`.
//! `TGSIC_UPDATE_HEADER=1 cargo test -p tgsic-c --test header` rewrites it.

#[test]
fn the_checked_in_header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = format!("{dir}/include/tgsic.h");
    if std::env::var_os("TGSIC_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("writes the header");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/tgsic.h is not what cbindgen generates from src/lib.rs: run TGSIC_UPDATE_HEADER=1 cargo test -p tgsic-c --test header"
    );
}
