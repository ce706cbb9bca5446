// The EGL display is shared by every context of a process and ended with its last user.
// This suite runs in a process of its own, with the plain GoogleTest main: the other
// suites' main keeps a context for the whole process, and with it a display user that
// would hide a miscount of glreader's own.
#include "glreader/glreader.hpp"

#include <gtest/gtest.h>

// Never destroyed, and kept reachable for LeakSanitizer: ending the display at exit would
// unload Mesa's driver just before LeakSanitizer looks.
glr::context *glr_test_first_context = nullptr;

namespace {

TEST(context_display_test, destroying_a_second_context_keeps_the_display_of_the_first)
{
    glr_test_first_context = new glr::context;
    glr::context &first = *glr_test_first_context;
    first.release_current();
    {
        glr::context second; // the display's second user: destroying it must not end the display
    }
    first.make_current(); // fails when the display was terminated under it
    EXPECT_FALSE(first.renderer().empty());
    glr_ring_params params{};
    params.width = 8;
    params.height = 8;
    glr::ring ring(params); // GL still works in the first context
    EXPECT_STREQ(ring.stats().path, "persistent-map+fences");
}

} // namespace
