"""A candidate child's Triton cache: its code's own, over the fork server's, which it may read but not write.

Triton keeps what it compiles in one cache folder: kernels under a hash of their source and options, the C
launcher of each kernel signature, its CUDA helper module. The children of one fork server used to share the
worker's folder and could all write to it. A launcher is found by its signature alone, so a candidate could
leave a launcher of its own making there, and every later candidate of that worker with the same signature would
load it and run its code. Now a child writes to the folder of its code (the fork server keeps one per recent
source text, CandidateRole._code_cache) and reads the worker's folder beneath it, which only the fork server
fills (its warm-up, warmup.py: the helper module and one kernel) and which the child's sandbox lets it read,
not write.

The children that run the same code (the compile, test and benchmark calls of one candidate) share what they
compile: whatever one of them leaves, the same code could do itself. Other code finds none of it: a candidate
with a signature seen before builds its launcher again (a C compile), as a candidate in a fresh process does."""
from __future__ import annotations

import os
from typing import Dict, Optional

from triton.runtime.cache import FileCacheManager


class LayeredCache(FileCacheManager):
    """Triton's file cache in the child's own folder (knobs.cache.dir), falling back to `shared` for reads."""

    shared = ""  # the fork server's cache folder, read only

    def __init__(self, key: str, override: bool = False, dump: bool = False) -> None:
        super().__init__(key, override=override, dump=dump)
        self._beneath = os.path.join(self.shared, key) if self.shared and not override and not dump else ""

    def get_file(self, filename: str) -> Optional[str]:
        found = super().get_file(filename)
        if found is None and self._beneath:
            path = os.path.join(self._beneath, filename)
            found = path if os.path.exists(path) else None
        return found

    def get_group(self, filename: str) -> Optional[Dict[str, str]]:
        found = super().get_group(filename)
        if found is None and self._beneath:
            found = FileCacheManager.get_group(_ReadOnly(self._beneath), filename)
        return found


class _ReadOnly(FileCacheManager):
    """FileCacheManager's reading, on a folder that exists already (its constructor would create one)."""

    def __init__(self, folder: str) -> None:  # noqa: D107  (no super().__init__: nothing to create)
        self.cache_dir = folder
        self.lock_path = None


def use_own_cache(own: str, shared: str) -> None:
    """In the child, before the candidate is imported: Triton writes to `own` and reads `own`, then `shared`."""
    from triton import knobs

    os.makedirs(own, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = own
    knobs.cache.dir = own
    LayeredCache.shared = shared
    knobs.cache.manager_class = LayeredCache
