//! What the batch calls share (`cuMemcpyBatchAsync` and the others in `copy_batch`,
//! `cuMemPrefetchBatchAsync` and `cuMemDiscardBatchAsync` in `managed`): the stream they may
//! use and how their attribute or location arrays map onto the operations.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::stream::{self, Target};
use abi::CUstream;
use std::sync::Arc;

/// The stream of a batch call: any but the legacy default stream.
pub(crate) fn batch_stream(s: CUstream) -> CuResult<Target> {
    let t = stream::target(s)?;
    if Arc::ptr_eq(&t.queue, &t.ctx.legacy()) {
        return Err(INVALID_VALUE);
    }
    Ok(t)
}

/// Which entry of an attribute (or location) array applies to each of `count` operations,
/// from the indices of the first operation of each entry: the first index must be 0, each
/// greater than the one before and the last less than `count`, and there may not be more
/// entries than operations.
pub(crate) fn groups(first: &[usize], count: usize) -> CuResult<Vec<usize>> {
    if first.is_empty() || first.len() > count || first[0] != 0 {
        return Err(INVALID_VALUE);
    }
    if first.windows(2).any(|w| w[1] <= w[0]) || *first.last().unwrap() >= count {
        return Err(INVALID_VALUE);
    }
    let mut out = Vec::with_capacity(count);
    for (g, &start) in first.iter().enumerate() {
        let end = first.get(g + 1).copied().unwrap_or(count);
        out.extend(std::iter::repeat_n(g, end - start));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_groups_follow_the_documented_rules() {
        // The header's example: 10 copies, attributes for the first 6 and the last 4.
        assert_eq!(groups(&[0, 6], 10).unwrap(), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(groups(&[0], 3).unwrap(), [0, 0, 0]);
        assert!(groups(&[], 3).is_err());
        assert!(groups(&[1], 3).is_err());
        assert!(groups(&[0, 2, 2], 5).is_err());
        assert!(groups(&[0, 3], 3).is_err());
        assert!(groups(&[0, 1, 2, 3], 3).is_err());
    }
}
