// GLR_EGL_DEVICE, which names the one EGL device a headless context may use: "N"
// (eglQueryDevicesEXT's Nth) or "cuda:N" (the device CUDA calls N in this process, under
// CUDA_VISIBLE_DEVICES: what a scheduler that hands out GPUs, Ray or Slurm, means by a GPU
// id). Read from the environment, so strictly; EGL-free, to be fuzzed alone.
#pragma once

#include <string>

namespace glr {

struct device_choice {
    int index = -1, cuda = -1; // the one given, 0..1023; the other -1
    std::string text;          // as given, for messages
};

// The choice `text` names; false when it is neither form (N: decimal digits, at most 1023).
bool read_device_choice(const std::string &text, device_choice &choice);

} // namespace glr
