#include "process.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char **environ;

namespace glr_test {

pid_t spawn(const std::string &program, const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::string> &extra_env)
{
    std::vector<std::string> argv_storage{program};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &a : argv_storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_storage;
    for (char **e = environ; *e; e++)
        if (std::strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
            env_storage.push_back(*e);
    const char *asan = std::getenv("ASAN_OPTIONS");
    env_storage.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + ":detect_leaks=0");
    env_storage.insert(env_storage.end(), extra_env.begin(), extra_env.end());
    std::vector<char *> env;
    for (std::string &e : env_storage)
        env.push_back(e.data());
    env.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), env.data()), 0) << program;
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

child_end wait_end(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? child_end{false, WEXITSTATUS(status)} : child_end{true, WTERMSIG(status)};
}

int wait_exit(pid_t pid)
{
    child_end end = wait_end(pid);
    return end.signaled ? 128 + end.code : end.code;
}

std::string built_program(const std::string &built_path)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return built_path;
    std::string own(self, static_cast<size_t>(n));
    std::string beside = own.substr(0, own.rfind('/') + 1) + built_path.substr(built_path.rfind('/') + 1);
    return access(beside.c_str(), X_OK) == 0 ? beside : built_path;
}

std::string slurp(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace glr_test
