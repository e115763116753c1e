//! The key of a code cache entry: everything that decides a code variant, with a byte encoding
//! of its own. The encoding is versioned ([`KEY_VERSION`]): a key of another version never
//! equals one of this version, so entries written by another encoding are misses, never run.

use crate::engine::{CompileOptions, EngineKind};
use std::sync::Arc;
use tgsic::back::abi::MathMode;
use tgsic::back::texpath::TexPaths;
use tgsic::opt::OptLevel;

/// The version of [`CodeKey::bytes`]' encoding; a change of the encoding changes it.
pub const KEY_VERSION: u32 = 2;

/// What one program's code variants are keyed by: the target the code is for
/// ([`tgsic::back::target_id`]: the build, the code generator, the CPU and its features), the
/// compile options and the program's whole token stream. A variant adds its texture paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeKey {
    /// The target ([`tgsic::back::target_id`]).
    pub target: String,
    /// The options the code is compiled with.
    pub options: CompileOptions,
    /// The program's tokens.
    pub tokens: Arc<[u32]>,
}

impl CodeKey {
    /// The key of the variant of `paths`, as bytes: a tag and [`KEY_VERSION`], then each field
    /// in a fixed order, strings and sequences with their lengths, numbers little-endian.
    pub fn bytes(&self, paths: &TexPaths) -> Vec<u8> {
        let mut b = self.fields(b"tgsic-code-key");
        let words = paths.words();
        b.extend_from_slice(&(words.len() as u32).to_le_bytes());
        b.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        b
    }

    /// The key of the program's [`FunctionFacts`](tgsic::back::persist::FunctionFacts), which every
    /// variant of it shares, as bytes: as [`CodeKey::bytes`] under another tag (so that it
    /// equals no variant's key), without texture paths.
    pub fn facts_bytes(&self) -> Vec<u8> {
        self.fields(b"tgsic-fact-key")
    }

    /// `tag`, [`KEY_VERSION`] and the fields.
    fn fields(&self, tag: &[u8; 14]) -> Vec<u8> {
        let o = &self.options;
        let mut b = Vec::with_capacity(64 + self.target.len() + 4 * self.tokens.len());
        b.extend_from_slice(tag);
        b.extend_from_slice(&KEY_VERSION.to_le_bytes());
        b.extend_from_slice(&(self.target.len() as u32).to_le_bytes());
        b.extend_from_slice(self.target.as_bytes());
        b.push(engine_code(o.engine));
        b.push(math_code(o.math));
        b.push(opt_code(o.opt));
        b.extend_from_slice(&(o.lanes as u32).to_le_bytes());
        b.extend_from_slice(&(self.tokens.len() as u32).to_le_bytes());
        b.extend(self.tokens.iter().flat_map(|t| t.to_le_bytes()));
        b
    }
}

/// Each engine's number in the key (fixed: a new engine takes a new number).
fn engine_code(e: EngineKind) -> u8 {
    match e {
        EngineKind::Interpreter => 0,
        EngineKind::Cranelift => 1,
        EngineKind::Llvm => 2,
        EngineKind::Auto => 3,
    }
}

/// Each math mode's number in the key.
fn math_code(m: MathMode) -> u8 {
    match m {
        MathMode::Accurate => 0,
        MathMode::Exact => 1,
        MathMode::Fast => 2,
    }
}

/// Each optimization level's number in the key.
fn opt_code(o: OptLevel) -> u8 {
    match o {
        OptLevel::O0 => 0,
        OptLevel::O1 => 1,
        OptLevel::O2 => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(options: CompileOptions, tokens: &[u32]) -> CodeKey {
        CodeKey {
            target: "x86_64 test".into(),
            options,
            tokens: tokens.into(),
        }
    }

    #[test]
    fn every_field_changes_the_bytes_and_equal_keys_give_equal_bytes() {
        let base = CompileOptions::with_engine(EngineKind::Cranelift);
        let paths = TexPaths::default();
        let a = key(base, &[1, 2, 3]).bytes(&paths);
        assert_eq!(a, key(base, &[1, 2, 3]).bytes(&paths));
        let others = [
            key(base, &[1, 2, 4]),
            key(base, &[1, 2]),
            key(CompileOptions { lanes: 8, ..base }, &[1, 2, 3]),
            key(
                CompileOptions {
                    math: MathMode::Exact,
                    ..base
                },
                &[1, 2, 3],
            ),
            key(
                CompileOptions {
                    opt: OptLevel::O1,
                    ..base
                },
                &[1, 2, 3],
            ),
            key(CompileOptions::with_engine(EngineKind::Llvm), &[1, 2, 3]),
            CodeKey {
                target: "x86_64 other".into(),
                ..key(base, &[1, 2, 3])
            },
        ];
        for (k, other) in others.iter().enumerate() {
            assert_ne!(other.bytes(&paths), a, "field {k}");
        }
        // A target that ends where the options begin cannot alias another key: lengths lead.
        let shifted = CodeKey {
            target: "x86_64 test\u{1}".into(),
            ..key(base, &[1, 2, 3])
        };
        assert_ne!(shifted.bytes(&paths), a);
        assert_eq!(&a[14..18], &KEY_VERSION.to_le_bytes());
        // The facts' key is no variant's, and follows the fields as a variant's key does.
        let facts = key(base, &[1, 2, 3]).facts_bytes();
        assert!(!a.starts_with(&facts) && facts.len() < a.len());
        assert_ne!(key(base, &[1, 2, 4]).facts_bytes(), facts);
        assert_eq!(&facts[14..18], &KEY_VERSION.to_le_bytes());
    }
}
