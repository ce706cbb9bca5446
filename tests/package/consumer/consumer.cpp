// The C++ layer from an installed package.
#include <glreader/glreader.hpp>

#include <cstdio>

int main()
{
    try {
        glr::context ctx;
        std::printf("consumer++: %s\n", ctx.renderer().c_str());
        return 0;
    } catch (const glr::error &e) {
        std::fprintf(stderr, "consumer++: %s\n", e.what());
        return 1;
    }
}
