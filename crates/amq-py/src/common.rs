//! What every filter class has: its `.amq` bytes, copying, pickling, equality and the common
//! read-only figures. [`filter_class!`] writes them into the class's one `#[pymethods]` block
//! beside the kind's own methods.

/// `#[pymethods]` for a filter class `$cls` wrapping `self.inner`, whose `.amq` decoder is
/// `$from` (`fn(&[u8]) -> amq::Result<Inner>`) and whose equality is `$eq`
/// (`fn(&Inner, &Inner) -> bool`), followed by the kind's own methods `$($rest)*`.
macro_rules! filter_class {
    ($cls:ident, $from:path, $eq:path, { $($rest:tt)* }) => {
        #[pyo3::pymethods]
        impl $cls {
            /// The filter as an ``.amq`` file: the same bytes the ``amq`` command line writes
            /// for the same items and parameters (``amq.load`` and ``amq info`` read it).
            fn to_bytes<'py>(&self, py: pyo3::Python<'py>) -> pyo3::Bound<'py, pyo3::types::PyBytes> {
                pyo3::types::PyBytes::new(py, &self.inner.to_bytes())
            }

            fn __bytes__<'py>(&self, py: pyo3::Python<'py>) -> pyo3::Bound<'py, pyo3::types::PyBytes> {
                self.to_bytes(py)
            }

            /// Reads an ``.amq`` file of this kind (``amq.load`` reads any kind).
            ///
            /// Raises ``ValueError`` for bytes that are not such a file (wrong magic, kind,
            /// version or checksum, truncated or corrupt); never crashes, whatever the bytes.
            #[staticmethod]
            fn from_bytes(data: &[u8]) -> pyo3::PyResult<Self> {
                use $crate::errors::IntoPy as _;
                Ok(Self::wrap($from(data).py()?))
            }

            fn __reduce__<'py>(
                slf: &pyo3::Bound<'py, Self>,
            ) -> pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, (pyo3::Bound<'py, pyo3::types::PyBytes>,))> {
                use pyo3::types::PyAnyMethods as _;
                let from = slf.get_type().getattr("from_bytes")?;
                Ok((from, (slf.borrow().to_bytes(slf.py()),)))
            }

            fn __copy__(&self) -> Self {
                Self::wrap(self.inner.clone())
            }

            fn __deepcopy__(&self, _memo: &pyo3::Bound<'_, pyo3::PyAny>) -> Self {
                Self::wrap(self.inner.clone())
            }

            /// A copy of the filter.
            fn copy(&self) -> Self {
                Self::wrap(self.inner.clone())
            }

            fn __eq__(&self, other: pyo3::PyRef<'_, Self>) -> bool {
                $eq(&self.inner, &other.inner)
            }

            /// The hash seed (an int in ``[0, 2**64)``).
            #[getter]
            fn seed(&self) -> u64 {
                self.inner.seed()
            }

            /// Items inserted (``add`` calls; a cuckoo filter: items held, adds minus removes).
            #[getter]
            fn inserted(&self) -> u64 {
                self.inner.inserted()
            }

            /// Bytes of the table (the ``.amq`` payload).
            #[getter]
            fn size_bytes(&self) -> u64 {
                self.inner.size_bytes()
            }

            $($rest)*
        }
    };
}

pub(crate) use filter_class;

/// `a == b` for types whose `PartialEq` is the equality of their contents.
pub fn same<T: PartialEq>(a: &T, b: &T) -> bool {
    a == b
}

/// Equality of the `.amq` bytes (for the kinds holding a clock, whose `PartialEq` compares
/// the clocks' current times too).
pub fn same_bytes<T: ToBytes>(a: &T, b: &T) -> bool {
    a.to_bytes() == b.to_bytes()
}

/// The `.amq` encoding, for [`same_bytes`].
pub trait ToBytes {
    /// The `.amq` bytes.
    fn to_bytes(&self) -> Vec<u8>;
}
