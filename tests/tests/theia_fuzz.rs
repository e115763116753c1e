//! The THEIA assembler, `.mem` reader and simulator never panic, whatever their input.

use proptest::prelude::*;
use tgsic_theia::isa::{Binary, Layout, assemble, disassemble, read_bin, read_mem};
use tgsic_theia::sim::{Entry, Machine};

fn cases(local: u32) -> u32 {
    if std::env::var_os("CI").is_some() {
        local / 4
    } else {
        local
    }
}

const TOKENS: &[&str] = &[
    "ADD",
    "JMP",
    "SETX",
    "RETURN",
    "RT_TRUE",
    "R1",
    "R13",
    "C7",
    "VOID",
    "OREG_PIXEL_COLOR",
    "L:",
    "L",
    "32'h",
    "0x",
    "1.5",
    "-3",
    ".entry",
    ".word",
    "ENTRYPOINT_ADRR_PIXELSHADER:",
    "SWIZZLE_YXZ",
    " ",
    "\n",
    ",",
    "//",
    "99999999999",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    #[test]
    fn assembler_and_readers_never_panic(picks in prop::collection::vec(0..TOKENS.len(), 0..40), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let src: String = picks.iter().map(|&k| TOKENS[k]).collect::<Vec<_>>().join(" ");
        for layout in [Layout::Mem, Layout::Bin] {
            if let Ok(img) = assemble(&src, layout) {
                let again = assemble(&disassemble(&img), layout).expect("disassembly re-assembles");
                prop_assert_eq!(again, img);
            }
        }
        let _ = read_mem(&String::from_utf8_lossy(&bytes));
        let _ = read_bin(&bytes);
    }

    #[test]
    fn the_simulator_never_panics(words in prop::collection::vec(any::<u64>(), 1..32), regs in prop::collection::vec(any::<u32>(), 0..12), small in any::<bool>()) {
        // Random words, half of them with opcodes the machine knows, at IMEM addresses.
        let words: Vec<u64> = words.iter().map(|&w| if small { w & 0x005F_FFFF_FFFF_FFFF } else { w }).collect();
        let mut img = Binary { origin: 0x8000, table_len: 0, words };
        img.words.insert(0, 0x8001);
        img.table_len = 1;
        let mut m = Machine::new(img);
        m.max_steps = 500;
        for (k, &r) in regs.iter().enumerate() {
            m.set(64 + k as u16, [r, r.rotate_left(7), !r]);
        }
        let _ = m.run(Entry::Slot(0));
        let _ = m.run(Entry::Address(0x8001));
    }
}
