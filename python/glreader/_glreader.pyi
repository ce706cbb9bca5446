"""glreader's C library (the extension module under the glreader package)."""
from typing import Any, Callable, Optional

__version__: str

class Error(RuntimeError):
    """A failure of glreader's: OpenGL, a shader, the encoder, the output."""

    code: int

def run_export(options: dict[str, Any], progress: Optional[Callable[[dict], None]], interval: float = 0.1) -> dict:
    """Runs an export job (glreader.render is its interface)."""
