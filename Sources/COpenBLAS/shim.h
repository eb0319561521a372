#ifndef COPENBLAS_SHIM_H
#define COPENBLAS_SHIM_H

// OpenBLAS's CBLAS (Debian's libopenblas-serial-dev or another variant; pkg-config openblas gives
// the include folder of the variant installed): the pointwise convolutions and the classifier of
// the AudioSet model are single-precision matrix products (cblas_sgemm).
#include <cblas.h>

#endif
