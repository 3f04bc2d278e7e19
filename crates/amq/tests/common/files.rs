//! Editing an `.amq` file the way a corrupt one would be: its parameter words and payload
//! changed, its header and checksum made right again, so that the decoder's own checks see
//! the change.

/// Decodes `bytes`' container, lets `edit` change its parameter words and payload, and
/// encodes it again (same kind, a right checksum).
pub fn edited(bytes: &[u8], edit: impl FnOnce(&mut Vec<u64>, &mut Vec<u8>)) -> Vec<u8> {
    let c = amq::wire::decode(bytes).unwrap();
    let (mut params, mut payload) = (c.params.clone(), c.payload.to_vec());
    edit(&mut params, &mut payload);
    amq::wire::encode(c.kind, &params, &payload)
}
