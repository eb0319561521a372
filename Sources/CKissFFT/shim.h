#ifndef CKISSFFT_SHIM_H
#define CKISSFFT_SHIM_H

// Debian's libkissfft-float (pkg-config kissfft-float) is built with float scalars, the header's
// default; its -Dkiss_fft_scalar=float and -DKISS_FFT_SHARED (a Windows export switch) are not
// needed here. kiss_fftr.h includes "kiss_fft.h" from its own folder.
#include <kissfft/kiss_fftr.h>

#endif
