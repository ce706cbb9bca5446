// GoogleTest main for glreader's suites. It keeps one EGL display initialised for the
// whole process: without it every test's last context would terminate the display and
// Mesa would unload and reload its driver, which is slow and loses allocations that
// LeakSanitizer then reports against an unknown module.
#include "glreader/context.h"

#include <gtest/gtest.h>

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

} // namespace

int main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new pinned_display);
    return RUN_ALL_TESTS();
}
