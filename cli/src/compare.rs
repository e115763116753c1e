//! Component-by-component comparison of two f32 images (`tgsic cmp` and the corpus tests).

/// The result of comparing two images.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    /// Components compared.
    pub total: usize,
    /// Components with identical bits (or both NaN).
    pub identical: usize,
    /// The largest ulp distance between two non-NaN components (0 when all match).
    pub max_ulp: u64,
    /// Components where exactly one side is NaN.
    pub nan_mismatches: usize,
    /// Components where one side is ±inf and the other is not the same infinity.
    pub inf_mismatches: usize,
    /// The component with the largest difference: (index, a, b).
    pub worst: Option<(usize, f32, f32)>,
}

impl Comparison {
    /// Whether every component is within `ulp` and no NaN or inf differs.
    pub fn within(&self, ulp: u64) -> bool {
        self.nan_mismatches == 0 && self.inf_mismatches == 0 && self.max_ulp <= ulp
    }
}

/// Distance in units in the last place: the number of floats between `a` and `b` (+0 and −0
/// are 0 apart).
pub fn ulp_distance(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            -((i & 0x7FFF_FFFF) as i64)
        } else {
            i as i64
        }
    };
    key(a).abs_diff(key(b))
}

/// Compares two images of the same length.
pub fn compare(a: &[f32], b: &[f32]) -> Comparison {
    let mut c = Comparer::default();
    c.feed(a, b);
    c.finish()
}

/// A comparison fed piece by piece (pieces in order), for images too large to hold.
#[derive(Debug, Default)]
pub struct Comparer {
    c: Comparison,
    worst_ulp: u64,
}

impl Comparer {
    /// Compares the next components of both images (`a` and `b` of equal length; the extra
    /// components of the longer one are ignored).
    pub fn feed(&mut self, a: &[f32], b: &[f32]) {
        let c = &mut self.c;
        let base = c.total;
        c.total += a.len().min(b.len());
        for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
            let k = base + k;
            if x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan() {
                c.identical += 1;
                continue;
            }
            if x.is_nan() != y.is_nan() {
                c.nan_mismatches += 1;
                if c.worst.is_none() || self.worst_ulp < u64::MAX {
                    self.worst_ulp = u64::MAX;
                    c.worst = Some((k, x, y));
                }
                continue;
            }
            if (x.is_infinite() || y.is_infinite()) && x != y {
                c.inf_mismatches += 1;
            }
            let d = ulp_distance(x, y);
            c.max_ulp = c.max_ulp.max(d);
            if d > self.worst_ulp || c.worst.is_none() {
                self.worst_ulp = d;
                c.worst = Some((k, x, y));
            }
        }
    }

    /// The comparison of everything fed.
    pub fn finish(self) -> Comparison {
        self.c
    }
}

/// Compares two `.f32` image files a megabyte at a time, so that images of any size are
/// compared in constant memory.
///
/// # Errors
/// An I/O error naming the file, or `InvalidData` when the files differ in length or are not
/// whole f32 values.
pub fn compare_files(a: &std::path::Path, b: &std::path::Path) -> std::io::Result<Comparison> {
    use std::io::Read;
    let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).map_err(named(p));
    let (la, lb) = (len(a)?, len(b)?);
    for (p, l) in [(a, la), (b, lb)] {
        if !l.is_multiple_of(4) {
            return Err(invalid(format!(
                "{}: {l} bytes is not a whole number of f32 values",
                p.display()
            )));
        }
    }
    if la != lb {
        return Err(invalid(format!(
            "the images differ in size: {} and {} components",
            la / 4,
            lb / 4
        )));
    }
    let open = |p: &std::path::Path| std::fs::File::open(p).map_err(named(p));
    let (mut fa, mut fb) = (open(a)?, open(b)?);
    let mut c = Comparer::default();
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    let mut left = la;
    while left > 0 {
        let n = left.min(1 << 20) as usize;
        fa.read_exact(&mut ba[..n]).map_err(named(a))?;
        fb.read_exact(&mut bb[..n]).map_err(named(b))?;
        c.feed(&f32_from_le_bytes(&ba[..n])?, &f32_from_le_bytes(&bb[..n])?);
        left -= n as u64;
    }
    Ok(c.finish())
}

/// `e` with the path of the file it concerns.
fn named(p: &std::path::Path) -> impl Fn(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display()))
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

/// Reads a `.f32` image: little-endian f32 values.
///
/// # Errors
/// An I/O error, or `InvalidData` when the length is not a multiple of 4.
pub fn read_f32(path: &std::path::Path) -> std::io::Result<Vec<f32>> {
    f32_from_le_bytes(&std::fs::read(path)?)
}

/// The little-endian f32 values of `bytes`.
///
/// # Errors
/// `InvalidData` when the length is not a multiple of 4.
pub fn f32_from_le_bytes(bytes: &[u8]) -> std::io::Result<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(invalid(format!(
            "{} bytes is not a whole number of f32 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps() {
        assert_eq!(ulp_distance(1.0, 1.0), 0);
        assert_eq!(ulp_distance(0.0, -0.0), 0);
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulp_distance(f32::from_bits(1), -f32::from_bits(1)), 2);
        let c = compare(
            &[1.0, f32::NAN, 2.0, f32::INFINITY],
            &[1.0, 0.0, f32::from_bits(2.0f32.to_bits() + 1), 5.0],
        );
        assert_eq!((c.identical, c.nan_mismatches, c.inf_mismatches), (1, 1, 1));
        assert!(!c.within(1));
        assert_eq!(compare(&[f32::NAN], &[f32::NAN]).identical, 1);
    }
}
