#ifndef CSAMPLERATE_SHIM_H
#define CSAMPLERATE_SHIM_H

// libsamplerate (Secret Rabbit Code, BSD-2-Clause; Debian's libsamplerate0-dev): brings a
// recording of any rate to the 16 kHz the AudioSet model was trained at.
#include <samplerate.h>

#endif
