"""glreader: OpenGL frames into FFmpeg, fast, and Shadertoy projects rendered to video.

    import glreader
    glreader.render("shader.frag", "out.mp4", size=(1280, 720), duration=5)

    with glreader.Recorder("out.mp4", size=(1280, 720)) as rec:   # your own GL frames
        for n in range(300):
            draw(n)
            rec.write(fbo)

glreader.turbopipe is a drop-in for TurboPipe. A render made in pieces (render(...,
first_frame=A, frames=N, chunk=True) on several machines) is joined by glreader.join.

`render` runs the library's export job, the engine glreader-export drives, and takes its
options by the names of the library's table (`export_options()` lists them). Failures are
exceptions with the library's words: ValueError for options, FileNotFoundError,
FileExistsError, BrokenPipeError, and glreader.Error for OpenGL, shader and encoder
failures. glreader's warnings go to the "glreader" logger of the logging module.
"""
from ._glreader import Error, __version__
from .join import join
from .recorder import Recorder
from .render import export_options, render
from .ring import Frame, Plane, Ring

__all__ = ["Error", "Frame", "Plane", "Recorder", "Ring", "__version__", "export_options", "join", "render"]
