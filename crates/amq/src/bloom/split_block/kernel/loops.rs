//! The loops over a slice of blocks (single query, insert, the batches), written once and
//! compiled by each kernel module inside its own target features.

use super::{block_index, CHUNK};

/// Writes the hashes of items `start..start + len` (len = CHUNK or what is left of `n`) into
/// `hashes` through `hash_into`, and their block indices among `blocks` into `index`, each in
/// a loop of its own, which the compiler vectorises inside the kernels' target features (the
/// indices fit in u32: a table has under 2^32 blocks, `SPLIT_BLOCK_MAX_BLOCKS`); returns len.
#[inline(always)]
pub(super) fn fill_chunk(
    start: usize,
    n: usize,
    blocks: usize,
    hash_into: &impl Fn(usize, &mut [u64]),
    hashes: &mut [u64; CHUNK],
    index: &mut [u32; CHUNK],
) -> usize {
    let len = CHUNK.min(n - start);
    hash_into(start, &mut hashes[..len]);
    for (i, &h) in index.iter_mut().zip(&hashes[..len]) {
        *i = block_index(h, blocks) as u32;
    }
    len
}

/// The loops over a slice of blocks, given the engine's `has256`/`set256`/`has512`/`set512`
/// in scope; `$(#[$attr])*` are the attributes of every function (the target feature and the
/// inlining).
macro_rules! loops {
    ($(#[$attr:meta])*) => {
        loops!(@one query512, insert512, batch512, chunked512, insert_chunked512, Block512,
               has512, set512, $(#[$attr])*);
        loops!(@one query256, insert256, batch256, chunked256, insert_chunked256, Block256,
               has256, set256, $(#[$attr])*);
    };
    (@one $query:ident, $insert:ident, $batch:ident, $chunked:ident, $insert_chunked:ident,
     $block:ty, $has:ident, $set:ident, $(#[$attr:meta])*) => {
        /// The single query (the SIMD kernels': in builds with AVX-512F; without, `single`).
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $query(blocks: &[$block], hash: impl FnOnce() -> u64) -> bool {
            let h = hash();
            $has(&blocks[block_index(h, blocks.len())], h as u32)
        }

        /// The single insert (the SIMD kernels': as the single query).
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $insert(blocks: &mut [$block], hash: impl FnOnce() -> u64) -> bool {
            let h = hash();
            let b = block_index(h, blocks.len());
            $set(&mut blocks[b], h as u32)
        }

        /// Hashes query j + AHEAD (`hash_of(j + AHEAD)`) and prefetches its block while it
        /// tests query j: in chunks of AHEAD, each tested after the next is fetched, so every
        /// block is fetched AHEAD to 2·AHEAD queries before it is read. The two chunks in
        /// flight live in two buffers used in turn (copying one into the other per chunk
        /// made the copy's wide loads wait on the narrow stores just made).
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $batch(blocks: &[$block], hash_of: impl Fn(usize) -> u64, out: &mut [bool]) {
            if out.is_empty() {
                return;
            }
            let n = out.len();
            let fetch = |j: usize| {
                let h = hash_of(j);
                let block = &blocks[block_index(h, blocks.len())];
                prefetch(block);
                (h as u32, block)
            };
            let mut chunks: [[(u32, &$block); AHEAD]; 2] = [[(0, &blocks[0]); AHEAD]; 2];
            for (j, slot) in (0..n).zip(chunks[0].iter_mut()) {
                *slot = fetch(j);
            }
            for (c, out) in out.chunks_mut(AHEAD).enumerate() {
                let [even, odd] = &mut chunks;
                let (this, next) = if c % 2 == 0 { (even, odd) } else { (odd, even) };
                let start = (c + 1) * AHEAD;
                for (j, slot) in (start..(start + AHEAD).min(n)).zip(next.iter_mut()) {
                    *slot = fetch(j);
                }
                for (o, &(h32, block)) in out.iter_mut().zip(this.iter()) {
                    *o = $has(block, h32);
                }
            }
        }

        /// As the batch above, but `hash_into(start, hashes)` writes the hashes of queries
        /// `start..start + hashes.len()`, CHUNK at a time: a loop of its own, which the
        /// compiler vectorises under this function's target features where the item length
        /// is fixed (XXH3-64 of u64 items held in a slice: several per instruction). Chunk
        /// c + 1 is hashed, and from [`PREFETCH_MIN_BYTES`](super::PREFETCH_MIN_BYTES) of
        /// blocks its blocks prefetched, before chunk c is tested.
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $chunked<'a>(
            blocks: &'a [$block],
            hash_into: impl Fn(usize, &mut [u64]),
            out: &mut [bool],
        ) {
            if out.is_empty() {
                return;
            }
            let n = out.len();
            if core::mem::size_of_val(blocks) < super::PREFETCH_MIN_BYTES {
                // Without prefetching: the test one chunk behind the hash, so that its loads
                // never wait on the arithmetic just done (10% faster at 10^6 items than
                // testing each chunk right after hashing it). Step c hashes chunk c into
                // buffer c % 2 and tests chunk c - 1 from the other.
                let mut hashes = [[0u64; CHUNK]; 2];
                let mut index = [[0u32; CHUNK]; 2];
                let chunks = n.div_ceil(CHUNK);
                for c in 0..=chunks {
                    if c < chunks {
                        let (h, i) = (&mut hashes[c % 2], &mut index[c % 2]);
                        super::loops::fill_chunk(c * CHUNK, n, blocks.len(), &hash_into, h, i);
                    }
                    if c > 0 {
                        let (h, i) = (&hashes[(c - 1) % 2], &index[(c - 1) % 2]);
                        let start = (c - 1) * CHUNK;
                        let out = &mut out[start..n.min(start + CHUNK)];
                        for ((o, &h), &i) in out.iter_mut().zip(h).zip(i) {
                            *o = $has(&blocks[i as usize], h as u32);
                        }
                    }
                }
                return;
            }
            let mut hashes = [0u64; CHUNK];
            let mut fetch = |start: usize, chunk: &mut [(u32, &'a $block); CHUNK]| {
                let len = CHUNK.min(n - start);
                hash_into(start, &mut hashes[..len]);
                for (&h, slot) in hashes[..len].iter().zip(chunk.iter_mut()) {
                    let block = &blocks[block_index(h, blocks.len())];
                    prefetch(block);
                    *slot = (h as u32, block);
                }
            };
            let mut chunks: [[(u32, &$block); CHUNK]; 2] = [[(0, &blocks[0]); CHUNK]; 2];
            fetch(0, &mut chunks[0]);
            for (c, out) in out.chunks_mut(CHUNK).enumerate() {
                let [even, odd] = &mut chunks;
                let (this, next) = if c % 2 == 0 { (even, odd) } else { (odd, even) };
                let start = (c + 1) * CHUNK;
                if start < n {
                    fetch(start, next);
                }
                for (o, &(h32, block)) in out.iter_mut().zip(this.iter()) {
                    *o = $has(block, h32);
                }
            }
        }

        /// Sets the bits of items `0..n`, whose hashes `hash_into(start, hashes)` writes
        /// CHUNK at a time, as the chunked query does: chunk c + 1 hashed (the hash loop
        /// vectorised where the item length is fixed) and, from
        /// [`PREFETCH_MIN_BYTES`](super::PREFETCH_MIN_BYTES) of blocks, its blocks
        /// prefetched, before chunk c is set.
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $insert_chunked(
            blocks: &mut [$block],
            hash_into: impl Fn(usize, &mut [u64]),
            n: usize,
        ) {
            if n == 0 {
                return;
            }
            let prefetching = core::mem::size_of_val(blocks) >= super::PREFETCH_MIN_BYTES;
            let mut hashes = [[0u64; CHUNK]; 2];
            let mut index = [[0u32; CHUNK]; 2];
            let chunks = n.div_ceil(CHUNK);
            // step c hashes chunk c into buffer c % 2 and sets chunk c - 1 from the other
            for c in 0..=chunks {
                if c < chunks {
                    let (h, i) = (&mut hashes[c % 2], &mut index[c % 2]);
                    let filled = super::loops::fill_chunk(c * CHUNK, n, blocks.len(), &hash_into, h, i);
                    if prefetching {
                        for &i in &i[..filled] {
                            prefetch(&blocks[i as usize]);
                        }
                    }
                }
                if c > 0 {
                    let (h, i) = (&hashes[(c - 1) % 2], &index[(c - 1) % 2]);
                    let filled = CHUNK.min(n - (c - 1) * CHUNK);
                    for (&h, &i) in h[..filled].iter().zip(&i[..filled]) {
                        $set(&mut blocks[i as usize], h as u32);
                    }
                }
            }
        }
    };
}
