//! One module per subcommand, its arguments beside it: `convert` (asm, dis, check), `ir`,
//! `run` (run, cmp), `bench`, `cache`, `theia` (asm,
//! dis, run, compile). Each reaches shaders through
//! the host API like any host.

pub mod bench;
pub mod cache;
pub mod convert;
pub mod ir;
pub mod run;
pub mod theia;
