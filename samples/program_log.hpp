// The programs' glreader log: warnings and notes on stderr as "glreader: ..."; errors are
// left out, since each reaches the user once, as the message of the exception it becomes.
#pragma once

#include "glreader/common.h"

#include <memory>

namespace sample {

struct log_deleter {
    void operator()(glr_log *log) const { glr_log_destroy(&log); }
};
using program_log = std::unique_ptr<glr_log, log_deleter>;

// Throws std::bad_alloc when no log can be made.
program_log make_program_log();

} // namespace sample
