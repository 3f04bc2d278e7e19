//! What the fuzz targets of checksummed formats share.

/// The input as it is, and (if it is at least 8 bytes long) with its last 8 bytes replaced
/// by the right XXH3-64 checksum of the rest, so that mutations get past the checksum into
/// the decoder's own checks.
pub fn with_fixed_checksum(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![data.to_vec()];
    if data.len() >= 8 {
        let mut fixed = data.to_vec();
        let body = fixed.len() - 8;
        let sum = amq::hash::checksum64(&fixed[..body]);
        fixed[body..].copy_from_slice(&sum.to_le_bytes());
        out.push(fixed);
    }
    out
}
