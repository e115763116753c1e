//! Component x of a fragment grid's inputs, per column of tiles, for engines that read it from
//! there ([`super::Engine::reads_columns`]).

use super::lanes::{BATCH_LANES, Chan};

/// Component x of every IN register for every column of 8 × 8 tiles: what a tile's batch
/// holds in `inputs[r][0]` when the tile is column `c`, for each register `r` and column `c`
/// ([`Columns::lanes`]). Component x of a fragment input follows the pixel's column alone
/// (`docs/run.md`), so one table serves every tile row, and a renderer that hands it to an
/// engine writes nothing into the batch per tile for it.
#[derive(Debug, Clone)]
pub struct Columns {
    /// Register-major: register `r`, column `c` at `r · columns + c`.
    lanes: Vec<Chan>,
    registers: usize,
    columns: usize,
}

impl Columns {
    /// The table of `registers` IN registers over `columns` tile columns, lane by lane from
    /// `x(r, c)`; a register for which `x` gives `None` holds zeros.
    pub fn new(
        registers: usize,
        columns: usize,
        mut x: impl FnMut(usize, usize) -> Option<Chan>,
    ) -> Columns {
        let mut lanes = vec![[0; BATCH_LANES]; registers * columns];
        for r in 0..registers {
            for c in 0..columns {
                if let Some(v) = x(r, c) {
                    lanes[r * columns + c] = v;
                }
            }
        }
        Columns {
            lanes,
            registers,
            columns,
        }
    }

    /// Number of IN registers it covers.
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Number of tile columns it covers.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Component x of register `r` in the tiles of column `c`, if the table covers them.
    #[cfg(test)]
    pub fn lanes(&self, r: usize, c: usize) -> Option<&Chan> {
        (r < self.registers && c < self.columns).then(|| &self.lanes[r * self.columns + c])
    }

    /// Where column `c`'s lanes of register 0 begin, and the words from one register to the
    /// next: register `r`'s lanes follow at `r · stride` words. `None` for a column outside
    /// the table or a table without registers.
    pub fn column_ptr(&self, c: usize) -> Option<(*const u32, usize)> {
        (c < self.columns && self.registers > 0).then(|| {
            (
                self.lanes[c..].as_ptr().cast::<u32>(),
                self.columns * BATCH_LANES,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_pointer_reaches_each_registers_lanes_at_its_stride() {
        let t = Columns::new(3, 5, |r, c| {
            (r != 1).then(|| [(10 * r + c) as u32; BATCH_LANES])
        });
        assert_eq!((t.registers(), t.columns()), (3, 5));
        assert_eq!(t.lanes(1, 2), Some(&[0; BATCH_LANES]));
        assert_eq!(t.lanes(2, 4).map(|l| l[63]), Some(24));
        assert_eq!(t.lanes(3, 0), None);
        assert_eq!(t.lanes(0, 5), None);
        let (p, stride) = t.column_ptr(4).expect("column 4 is in the table");
        assert_eq!(stride, 5 * BATCH_LANES);
        for r in [0, 2] {
            // SAFETY: register r < 3 of column 4: inside the table, as `column_ptr` says.
            let w = unsafe { *p.add(r * stride + 63) };
            assert_eq!(w, (10 * r + 4) as u32);
        }
        assert!(t.column_ptr(5).is_none());
        assert!(Columns::new(0, 5, |_, _| None).column_ptr(0).is_none());
    }
}
