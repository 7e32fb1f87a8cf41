//! The mex (minimum excluded value) of a list of nim-values: the nim-value of a position
//! whose options have those values (the Sprague–Grundy theorem). The one mex over a list
//! that the theory's sequences and quotients and the solver's loss count and reference
//! search share; the engines that keep their options in a set have their own (a stamped
//! set's, a bit set's).

/// The mex (minimum excluded value) of `values`: the least value not among them (0 for
/// none). Sorts `values` in place; duplicates are allowed.
///
/// ```
/// use nimdb_core::mex::mex;
/// assert_eq!(mex(&mut [3, 0, 1, 1, 4]), 2);
/// assert_eq!(mex(&mut []), 0);
/// ```
pub fn mex(values: &mut [u32]) -> u32 {
    values.sort_unstable();
    let mut m = 0;
    for &v in values.iter() {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::mex;

    /// The least value absent, found by asking value after value.
    fn absent(values: &[u32]) -> u32 {
        (0..).find(|v| !values.contains(v)).expect("a value is absent")
    }

    #[test]
    fn mex_is_the_least_absent_value() {
        let lists: [&[u32]; 7] =
            [&[], &[0], &[1], &[0, 0, 0], &[2, 1, 0, 0, 5], &[7, 3, 1, 0, 2, 3], &[4, 4, 2, 0, 1, 1, 3, 6]];
        for list in lists {
            assert_eq!(mex(&mut list.to_vec()), absent(list), "{list:?}");
        }
        // Every list of up to four values below 5.
        for code in 0..5u32.pow(4) {
            for len in 0..=4 {
                let list: Vec<u32> = (0..len).map(|i| code / 5u32.pow(i) % 5).collect();
                assert_eq!(mex(&mut list.clone()), absent(&list), "{list:?}");
            }
        }
    }
}
