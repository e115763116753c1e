//! Nothing panics: random bytes and random mutations of corpus shaders go through both readers
//! and, when they read, through validation, the printer and the encoder.

use proptest::prelude::*;
use std::sync::OnceLock;
use tgsic::front::{binary, read, text};
use tgsic_tests::all_shaders;

/// Case counts stay small under CI (two cores); set PROPTEST_CASES to run more.
fn cases(local: u32) -> u32 {
    if std::env::var_os("CI").is_some() {
        local / 4
    } else {
        local
    }
}

/// Whatever `bytes` are, reading, validating, printing and encoding must not panic.
fn exercise(bytes: &[u8]) {
    if let Ok(src) = read(bytes) {
        let _ = tgsic::valid::validate(&src.program);
        let printed = text::print(&src.program);
        let _ = text::parse(&printed);
        if let Ok(words) = binary::encode(&src.program) {
            let _ = binary::decode(&words);
        }
    }
    let _ = binary::decode_bytes(bytes);
    if let Ok(s) = std::str::from_utf8(bytes) {
        let _ = text::parse(s);
    }
}

fn corpus_texts() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        all_shaders()
            .unwrap_or_default()
            .iter()
            .step_by(7)
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect()
    })
}

fn corpus_binaries() -> &'static [Vec<u8>] {
    static BINS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BINS.get_or_init(|| {
        corpus_texts()
            .iter()
            .filter_map(|t| text::parse(t).ok())
            .filter_map(|p| binary::encode_bytes(&p).ok())
            .collect()
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Delete { at: usize, len: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

/// Text-like tokens inserted into shaders, to reach deeper into the parser.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "..",
    ",",
    ".xyzw",
    "-",
    "|",
    "(",
    ")",
    ":",
    "ADDR[0].x+",
    "TEMP[",
    "IMM[0]",
    "_SAT",
    "2D",
    "IF",
    "ENDIF",
    "BGNLOOP",
    "ENDLOOP",
    "\n",
    "{",
    "}",
    "0x",
    "1-(",
    "2*(",
    "(EQ1.xyzw)",
    "/w",
    "[]",
    "CAL :",
];

fn apply(mut data: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = data.len().max(1);
        match m {
            Mutation::Flip { at, bit } => {
                if !data.is_empty() {
                    data[at % n] ^= 1 << bit;
                }
            }
            Mutation::Delete { at, len } => {
                let a = at % n;
                let b = (a + len).min(data.len());
                if a < b {
                    data.drain(a..b);
                }
            }
            Mutation::Insert { at, bytes } => {
                let a = at % (data.len() + 1);
                data.splice(a..a, bytes.iter().copied());
            }
            Mutation::Truncate { at } => data.truncate(at % n),
        }
    }
    data
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(2000)))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        exercise(&bytes);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash(depth in 1usize..5000) {
        let src = format!("FRAG\nMOV TEMP[0], {}0{}\n", "TEMP[".repeat(depth), "].x]".repeat(depth));
        exercise(src.as_bytes());
    }

    #[test]
    fn random_words_never_panic(mut words in prop::collection::vec(any::<u32>(), 0..64), size in 0u32..64) {
        // A plausible header makes the body decoder run.
        if words.len() >= 3 {
            words[0] = 0x0000_0101;
            words[1] = 2 | size << 8;
            words[2] &= 3;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        exercise(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    #[test]
    fn mutated_corpus_text_never_panics(pick in any::<usize>(), muts in prop::collection::vec(mutation(), 1..6),
                                        tokens in prop::collection::vec((any::<usize>(), 0..TOKENS.len()), 0..4)) {
        let texts = corpus_texts();
        if texts.is_empty() {
            return Ok(()); // ../shared is absent: corpus_texts said so (under CI it fails)
        }
        let mut data = texts[pick % texts.len()].clone().into_bytes();
        for (at, t) in tokens {
            let a = at % (data.len() + 1);
            data.splice(a..a, TOKENS[t].bytes());
        }
        exercise(&apply(data, &muts));
    }

    #[test]
    fn mutated_corpus_binary_never_panics(pick in any::<usize>(), muts in prop::collection::vec(mutation(), 1..6)) {
        let bins = corpus_binaries();
        if bins.is_empty() {
            return Ok(()); // ../shared is absent
        }
        let data = bins[pick % bins.len()].clone();
        exercise(&apply(data, &muts));
    }
}
