#include "patched_ffmpeg.hpp"

#include "gl_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <sstream>

namespace glr_test {

run_result run(const std::string &program, const std::vector<std::string> &args, const std::string &name,
               const std::vector<std::string> &extra_env)
{
    std::string log = scratch_path(name + ".log");
    child_end end = wait_end(spawn(program, args, log, extra_env));
    EXPECT_FALSE(end.signaled) << program << " was killed by signal " << end.code << ":\n" << slurp(log);
    return {end.signaled ? -1 : end.code, slurp(log)};
}

run_result ffmpeg(const std::vector<std::string> &args, const std::string &name,
                  const std::vector<std::string> &extra_env)
{
    const char *path = std::getenv("GLREADER_FFMPEG");
    if (!path) {
        ADD_FAILURE() << "GLREADER_FFMPEG is not set: run this suite through ctest (scripts/test.sh builds "
                         "the patched ffmpeg with ffmpeg-patches/build.sh)";
        return {-1, ""};
    }
    std::vector<std::string> all{"-hide_banner", "-nostdin", "-y"};
    all.insert(all.end(), args.begin(), args.end());
    return run(path, all, name, extra_env);
}

void expect_failure_saying(const run_result &r, const std::string &words)
{
    EXPECT_GT(r.status, 0) << r.log;
    EXPECT_NE(r.log.find(words), std::string::npos) << "expected \"" << words << "\" in:\n" << r.log;
}

void expect_compile_error_at(const run_result &r, const std::string &where, int line, const std::string &identifier)
{
    EXPECT_GT(r.status, 0) << r.log;
    std::string escaped = std::regex_replace(where, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
    std::regex located(escaped + ":" + std::to_string(line) + "(:[0-9]+)?: error");
    std::istringstream lines(r.log);
    for (std::string text; std::getline(lines, text);)
        if (std::regex_search(text, located) && text.find(identifier) != std::string::npos)
            return;
    ADD_FAILURE() << "expected a compile error at " << where << ":" << line << " naming " << identifier << " in:\n"
                  << r.log;
}

} // namespace glr_test
