//! The `tgsic` program (its commands are in the library, `tgsic_cli`).

fn main() -> std::process::ExitCode {
    tgsic_cli::main()
}
