//! A hint to the processor: start loading a value into the cache now, because it is read soon.
//! It changes no result, only when memory is read; where the target has no such hint it does
//! nothing.

/// Start loading the cache lines `value` lies in.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let at = (value as *const T).cast::<i8>();
        let size = std::mem::size_of::<T>().max(1);
        // SAFETY: a prefetch reads nothing the program sees and cannot fault; these are
        // addresses within `value` only.
        unsafe {
            let mut off = 0;
            while off < size {
                _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(off));
                off += 64;
            }
            // The last byte, whose line the steps of 64 miss when `value` starts late in one.
            _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(size - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
