"""A candidate child's own Triton cache over the fork server's (triton_cache.py): what one candidate leaves in
Triton's cache, a launcher of its own making above all, is found by no later candidate of that worker, and the
fork server's cache it may read but not write. Real fork server and children on the CPU, sandboxed as on a GPU."""
import os

from triton.runtime.cache import FileCacheManager, _base32

from one_case import request
from one_case import role as fork_server
from tritongym_worker.sandbox import landlock_abi
from tritongym_worker.triton_cache import LayeredCache

HELPER = "b2" * 32  # the CUDA helper module's key
KEY = "a1" * 32  # a launcher's cache key: its signature's hash, the same for every kernel of that signature

PLANTS = '''
import os

from triton.runtime.cache import get_cache_manager


def double(x):
    # In its own cache: what every later candidate would have loaded as the launcher of this signature.
    print("planted", get_cache_manager("KEY").put(b"not a launcher", "__triton_launcher.so"))
    try:
        with open(os.path.join("SHARED", "FOLDER", "cuda_utils.so"), "wb") as handle:  # the fork server's
            handle.write(b"not a helper")
        print("wrote the shared cache")
    except OSError as error:
        print("shared cache refused:", type(error).__name__)
    return x * 2
'''

LOOKS = '''
from triton.runtime.cache import get_cache_manager


def double(x):
    print("launcher found:", get_cache_manager("KEY").get_file("__triton_launcher.so"))
    print("helper found:", get_cache_manager("HELPER").get_file("cuda_utils.so") is not None)
    return x * 2
'''


def test_what_a_candidate_leaves_in_tritons_cache_no_later_candidate_finds(tmp_path, monkeypatch):
    shared = tmp_path / "worker" / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(shared))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    # The fork server's own entry (as its warm-up leaves the CUDA helper module): every child may read it.
    FileCacheManager.put(_folder(shared, _base32(HELPER)), b"helper", "cuda_utils.so")
    role = fork_server(tmp_path)  # its Triton cache is `shared`
    try:
        planted = role.run(request(tmp_path, PLANTS.replace("KEY", KEY).replace("SHARED", str(shared))
                                    .replace("FOLDER", _base32(HELPER))))
        assert planted.get("verdict") is None, planted
        assert not planted["stdout"].split("planted ")[1].split()[0].startswith(str(shared) + os.sep)
        if landlock_abi() >= 1:
            assert "shared cache refused: PermissionError" in planted["stdout"], planted["stdout"]
        looked = role.run(request(tmp_path, LOOKS.replace('"KEY"', f'"{KEY}"').replace('"HELPER"', f'"{HELPER}"')))
        assert looked.get("verdict") is None, looked
        assert "launcher found: None" in looked["stdout"], looked["stdout"]
        assert "helper found: True" in looked["stdout"], looked["stdout"]
    finally:
        role.close()
    if landlock_abi() >= 1:
        assert not (shared / _base32(KEY)).exists()
        assert (shared / _base32(HELPER) / "cuda_utils.so").read_bytes() == b"helper"


AGAIN = '''
from triton.runtime.cache import get_cache_manager


def double(x):
    cache = get_cache_manager("KEY")
    print("found before:", cache.get_file("kernel.cubin") is not None)
    cache.put(b"compiled", "kernel.cubin")
    return x * 2
'''


def test_the_calls_of_the_same_code_share_what_they_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "worker" / "triton-cache"))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    role = fork_server(tmp_path)
    code = AGAIN.replace("KEY", KEY)
    try:
        said = [role.run(request(tmp_path, code))["stdout"] for _ in range(2)]
        other = role.run(request(tmp_path, code + "# another candidate\n"))["stdout"]
    finally:
        role.close()
    assert "found before: False" in said[0] and "found before: True" in said[1], said  # compile, then test
    assert "found before: False" in other, other


def test_the_layered_cache_reads_its_own_folder_first_and_writes_only_there(tmp_path, monkeypatch):
    from triton import knobs

    own, shared = tmp_path / "own", tmp_path / "shared"
    FileCacheManager.put(_folder(shared, "K"), b"shared", "a.bin")
    FileCacheManager.put(_folder(shared, "K"), b"shared", "b.bin")
    monkeypatch.setattr(LayeredCache, "shared", str(shared))
    monkeypatch.setattr(knobs.cache, "dir", str(own))
    cache = LayeredCache("K")
    cache.put(b"own", "a.bin")
    assert open(cache.get_file("a.bin"), "rb").read() == b"own"
    assert open(cache.get_file("b.bin"), "rb").read() == b"shared"
    assert cache.get_file("c.bin") is None
    assert open(shared / "K" / "a.bin", "rb").read() == b"shared"  # untouched
    group = FileCacheManager.put_group(_folder(shared, "G"), "kernel.json", {"kernel.cubin": str(shared / "K" / "b.bin")})
    assert group and LayeredCache("G").get_group("kernel.json") == {"kernel.cubin": str(shared / "K" / "b.bin")}


def _folder(root, key):
    """A FileCacheManager on root/key, whatever Triton's cache folder is set to now."""
    manager = FileCacheManager.__new__(FileCacheManager)
    manager.key, manager.cache_dir = key, os.path.join(str(root), key)
    manager.lock_path = os.path.join(manager.cache_dir, "lock")
    os.makedirs(manager.cache_dir, exist_ok=True)
    return manager


def test_a_fork_server_keeps_the_caches_of_its_most_recent_code_only(tmp_path, monkeypatch):
    import tritongym_worker.candidate as candidate

    monkeypatch.setattr(candidate, "CODE_CACHES", 2)
    role = fork_server(tmp_path)
    first, second = role._code_cache("a = 1\n"), role._code_cache("b = 2\n")
    assert first != second and os.path.isdir(first)
    assert role._code_cache("a = 1\n") == first  # used again: now the most recent
    third = role._code_cache("c = 3\n")
    assert os.path.isdir(first) and os.path.isdir(third)
    assert not os.path.exists(second)  # the least recently used went
    role.close()
