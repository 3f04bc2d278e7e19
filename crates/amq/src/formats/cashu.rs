//! Being written: see the open issue for this format.
