//! Small helpers shared by the hardware blocks: a struct declaration with per-field
//! initialisers (rust-hdl blocks have dozens of array fields, and `#[derive(Default)]` does not
//! reach arrays longer than 32), and default builders for fields and arrays.

/// Declares a logic block and a `Default` that builds every field with its `= expression`, or
/// with `Default::default()` where none is given (rust-hdl's `Constant` has no `Default`, so
/// constants always carry one).
macro_rules! hw_block {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $( $(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty $(= $init:expr)? ),* $(,)?
    }) => {
        $(#[$m])* $vis struct $name { $( $(#[$fm])* $fvis $field : $ty ),* }
        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: hw_block!(@init $($init)?) ),* }
            }
        }
    };
    (@init) => { Default::default() };
    (@init $e:expr) => { $e };
}

/// `T::default()`, short for field initialisers.
pub(crate) fn d<T: Default>() -> T {
    T::default()
}

/// An array of `N` default values (for arrays longer than `Default` covers).
pub(crate) fn arr<T: Default, const N: usize>() -> [T; N] {
    std::array::from_fn(|_| T::default())
}

/// Constants `0, step, 2·step, …` (index comparisons must be against signals in `hdl_gen`).
pub(crate) fn constants<const W: usize, const N: usize>(step: u64) -> [rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<W>>; N] {
    std::array::from_fn(|k| rust_hdl::prelude::Constant::new((k as u64 * step).into()))
}
