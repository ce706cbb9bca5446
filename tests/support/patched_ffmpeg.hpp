// Running the patched ffmpeg (ffmpeg-patches/build.sh) and other programs as a user does,
// for the suites of glreader's FFmpeg filters. GLREADER_FFMPEG names the binary; CTest
// runs those suites once per release line.
#pragma once

#include <string>
#include <vector>

namespace glr_test {

struct run_result {
    int status; // exit status; -1 when not run or killed by a signal
    std::string log;
};

// Runs program with args, its output into a scratch log named after `name`; a kill by a
// signal fails the test.
run_result run(const std::string &program, const std::vector<std::string> &args, const std::string &name,
               const std::vector<std::string> &extra_env = {});

// Runs the patched ffmpeg with args after the options every run wants (-hide_banner
// -nostdin -y).
run_result ffmpeg(const std::vector<std::string> &args, const std::string &name,
                  const std::vector<std::string> &extra_env = {});

// ffmpeg failed on its own (not killed: run() checks), with these words.
void expect_failure_saying(const run_result &r, const std::string &words);

// ffmpeg failed with the shader compiler's error located at where:line (glreader's
// "where:line:column: error" or, from drivers that give no column, "where:line: error"),
// on a line that names `identifier`: the compiler's words, whatever the driver's wording.
void expect_compile_error_at(const run_result &r, const std::string &where, int line, const std::string &identifier);

} // namespace glr_test
