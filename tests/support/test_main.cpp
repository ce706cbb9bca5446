// GoogleTest main for glreader's suites. It keeps one EGL display initialised for the
// whole process: without it every test's last context would terminate the display and
// Mesa would unload and reload its driver, which is slow and loses allocations that
// LeakSanitizer then reports against an unknown module.
#include "glreader/context.h"

#include <gtest/gtest.h>

#include <cstring>

// Never destroyed: terminating the display at exit would unload the driver just before
// LeakSanitizer looks. A global pointer (external, so the store is kept) keeps the
// context reachable, so it is no leak.
glr_context *glr_test_pinned_context = nullptr;

namespace {

class pinned_display : public ::testing::Environment {
public:
    void SetUp() override
    {
        glr_test_pinned_context = glr_context_create(nullptr, nullptr);
        if (glr_test_pinned_context)
            glr_context_release_current(glr_test_pinned_context);
    }
};

// A glreader function's name is for the library's debug log: whatever a test made fail, the
// words it leaves as the thread's last error (what every front-end shows) do not open with one.
class last_error_words : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo &) override { glr_set_last_error(0, ""); }
    void OnTestEnd(const ::testing::TestInfo &) override
    {
        const char *words = glr_last_error();
        EXPECT_NE(std::strncmp(words, "glr_", 4), 0) << "the last error opens with a library function's name: "
                                                     << words;
    }
};

} // namespace

int main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new pinned_display);
    ::testing::UnitTest::GetInstance()->listeners().Append(new last_error_words);
    return RUN_ALL_TESTS();
}
