//! [`Buf`]: an immutable array that is either owned or a view into a memory-mapped file.
//!
//! Graph arrays are read-only once built. Owning them in a `Vec` or borrowing them from a
//! memory map of a `.wg` file is the same to every algorithm: both deref to `&[T]`.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

mod sealed {
    pub trait Sealed {}
}

/// Plain-old-data element types that may be viewed directly in a memory map:
/// every bit pattern is a valid value and there is no padding.
pub trait Pod: sealed::Sealed + Copy + Send + Sync + 'static {}

macro_rules! pod {
    ($($t:ty),*) => {$(impl sealed::Sealed for $t {} impl Pod for $t {})*};
}
pod!(u8, u32, u64, i32, i64, f32, f64);

/// An immutable array of `T`, owned or memory-mapped. Cloning a mapped `Buf` is cheap.
pub struct Buf<T: Pod> {
    inner: Inner<T>,
}

enum Inner<T> {
    Owned(Vec<T>),
    Mapped {
        map: Arc<Mmap>,
        offset: usize,
        len: usize,
    },
}

impl<T: Pod> Buf<T> {
    /// A view of `len` elements of `map` starting at byte `offset`.
    ///
    /// Returns `None` when the range is out of the map or misaligned for `T`.
    pub fn mapped(map: Arc<Mmap>, offset: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let end = offset.checked_add(bytes)?;
        if end > map.len() || (map.as_ptr() as usize + offset) % std::mem::align_of::<T>() != 0 {
            return None;
        }
        Some(Buf {
            inner: Inner::Mapped { map, offset, len },
        })
    }

    /// Whether the data lives in a memory map.
    pub fn is_mapped(&self) -> bool {
        matches!(self.inner, Inner::Mapped { .. })
    }

    /// The owned vector, copying out of the map when mapped.
    pub fn into_vec(self) -> Vec<T> {
        match self.inner {
            Inner::Owned(v) => v,
            Inner::Mapped { .. } => self.deref().to_vec(),
        }
    }
}

impl<T: Pod> Deref for Buf<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.inner {
            Inner::Owned(v) => v,
            // SAFETY: `mapped` checked that offset..offset+len*size_of::<T>() lies inside the
            // map and that the start is aligned for T; T is Pod, so any bytes are a valid T;
            // the map is read-only and kept alive by the Arc for as long as `self`.
            Inner::Mapped { map, offset, len } => unsafe {
                std::slice::from_raw_parts(map.as_ptr().add(*offset) as *const T, *len)
            },
        }
    }
}

impl<T: Pod> From<Vec<T>> for Buf<T> {
    fn from(v: Vec<T>) -> Self {
        Buf {
            inner: Inner::Owned(v),
        }
    }
}

impl<T: Pod> Default for Buf<T> {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl<T: Pod> Clone for Buf<T> {
    fn clone(&self) -> Self {
        match &self.inner {
            Inner::Owned(v) => v.clone().into(),
            Inner::Mapped { map, offset, len } => Buf {
                inner: Inner::Mapped {
                    map: Arc::clone(map),
                    offset: *offset,
                    len: *len,
                },
            },
        }
    }
}

impl<T: Pod + fmt::Debug> fmt::Debug for Buf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().take(16)).finish()?;
        if self.len() > 16 {
            write!(f, " ({} elements)", self.len())?;
        }
        Ok(())
    }
}

impl<T: Pod + PartialEq> PartialEq for Buf<T> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}
