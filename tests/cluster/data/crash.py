"""A mechanism file that kills the process loading it (as a segfault in an extension would)."""

import os
import signal

os.kill(os.getpid(), signal.SIGKILL)
