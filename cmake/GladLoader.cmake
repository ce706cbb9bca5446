# Generates the OpenGL 4.5 core + EGL 1.5 loader with Debian's glad (python3-glad) at
# configure-and-build time, in multi-context mode: each object keeps its own function
# table, so glreader never clashes with the host renderer's loader.
find_program(GLAD_EXECUTABLE glad)
if(NOT GLAD_EXECUTABLE)
  message(FATAL_ERROR "glad (the GL loader generator) was not found: run scripts/setup.sh, "
                      "or install Debian's python3-glad")
endif()

set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
set(GLAD_EXTENSIONS
    GL_ARB_buffer_storage GL_ARB_sync GL_KHR_debug
    GL_EXT_memory_object GL_EXT_memory_object_fd GL_EXT_semaphore GL_EXT_semaphore_fd
    GL_NV_timeline_semaphore
    EGL_EXT_platform_base EGL_EXT_platform_device EGL_EXT_device_base
    EGL_EXT_device_enumeration EGL_EXT_device_query EGL_MESA_platform_surfaceless
    EGL_KHR_create_context EGL_KHR_surfaceless_context EGL_KHR_no_config_context)
list(JOIN GLAD_EXTENSIONS "," GLAD_EXTENSIONS_ARG)

# --reproducible: use the specs bundled with glad instead of downloading Khronos' latest.
add_custom_command(
  OUTPUT ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/include/glad/gl.h ${GLAD_OUT}/include/glad/egl.h
  COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=4.5,egl=1.5
          --extensions ${GLAD_EXTENSIONS_ARG} --out-path ${GLAD_OUT} c --mx --loader
  DEPENDS ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Generating the GL/EGL loader with glad"
  VERBATIM)

# Position-independent, hidden-visibility objects: linked privately into libglreader
# and into the tests' own GL helpers, never exported.
add_library(glreader_glad OBJECT ${GLAD_OUT}/src/gl.c)
target_include_directories(glreader_glad PUBLIC $<BUILD_INTERFACE:${GLAD_OUT}/include>)
set_target_properties(glreader_glad PROPERTIES POSITION_INDEPENDENT_CODE ON
                                               C_VISIBILITY_PRESET hidden)
