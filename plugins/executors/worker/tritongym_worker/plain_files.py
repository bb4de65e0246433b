"""Files the trusted side reads from a candidate's folder (its stdout and stderr, the cases it checked, its
outputs): opened only as the regular files they should be. The candidate's code can put a symbolic link there
(to a host file it may not read itself, or to the expected outputs, which would then be compared with
themselves) or a named pipe (which would block the read forever)."""
from __future__ import annotations

import os
import stat
from typing import BinaryIO


def open_plain(path: str) -> BinaryIO:
    """`path` opened for reading, without following a final symbolic link or blocking; OSError if it is a link,
    missing, or anything but a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
