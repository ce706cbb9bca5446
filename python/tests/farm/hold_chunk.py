"""Ray's worker_process_setup_hook for the farm's tests: holds one chunk attempt in the
middle of its render for good, so that a test can kill its worker or cancel the run while a
chunk is certainly unfinished, however fast the machine renders.

The test names a file in GLR_FARM_TEST_HOLD and creates it; the first attempt to report
progress while it exists claims it (a rename: one attempt alone), writes its process id
into the claimed file (HOLD + ".claimed") and waits there. Its worker only ends by a kill
or Ray's cancel; a later attempt of that chunk finds no file and renders."""
import os
import threading

import glreader.farm.cluster as cluster


def hold_one_attempt():
    hold = os.environ.get("GLR_FARM_TEST_HOLD")
    if not hold:
        return
    render = cluster._render_frames

    def held_render(*args, progress, **kwargs):
        def report(stats):
            progress(stats)
            try:
                os.rename(hold, hold + ".claiming")
            except FileNotFoundError:
                return
            with open(hold + ".claiming", "w") as f:
                f.write(str(os.getpid()))
            os.rename(hold + ".claiming", hold + ".claimed")
            threading.Event().wait()

        return render(*args, progress=report, **kwargs)

    cluster._render_frames = held_render
