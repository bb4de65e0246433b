"""python -m tritongym_worker --role reference|candidate --device cpu|cuda --root DIR ..."""
from __future__ import annotations

import argparse
import os
import platform
import signal
import stat
import sys
import traceback
from typing import Any

from .protocol import TURN_FD, Channel, ProtocolError, check_request


def _hello(role: str, device: str, handler: Any) -> dict[str, Any]:
    import torch
    import triton

    from .sandbox import landlock_abi

    info: dict[str, Any] = {
        "ok": True, "role": role, "pid": os.getpid(), "python": platform.python_version(),
        "torch": torch.__version__, "triton": triton.__version__, "device": device,
        "interpreter": os.environ.get("TRITON_INTERPRET") == "1", "landlock_abi": landlock_abi(),
    }
    try:
        import tritongym_native  # the pybind11 module; optional

        if role == "reference":
            info["native"] = tritongym_native.describe()
        else:  # describe() initialises CUDA, and a fork server must fork before CUDA is initialised
            info["native"] = {"available": True, "queried": False}
    except ImportError as error:
        info["native"] = {"available": False, "reason": str(error)}
    if device.startswith("cuda") and role == "reference":
        # The trusted role may touch CUDA; the candidate fork server must not (its children do).
        info["cuda_devices"] = torch.cuda.device_count()
        info["device_name"] = torch.cuda.get_device_name(0) if torch.cuda.device_count() else ""
        from .timing import cupti_library_paths

        info["cupti_paths"] = cupti_library_paths()  # the host's GPU sampler loads libcupti from the same place
    if getattr(handler, "warmup", None):
        info["triton_warmup"] = handler.warmup
    return info


def _turn_socket() -> int:
    """The turn socket the host gave a candidate worker (protocol.TURN_FD), or -1 when it gave none."""
    try:
        return TURN_FD if stat.S_ISSOCK(os.fstat(TURN_FD).st_mode) else -1
    except OSError:
        return -1


def main() -> int:
    parser = argparse.ArgumentParser(prog="tritongym_worker")
    parser.add_argument("--role", choices=["reference", "candidate"], required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--root", required=True, help="the worker's own folder")
    parser.add_argument("--triton-cache", default="")
    parser.add_argument("--memory-limit-bytes", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.root, exist_ok=True)
    # The host decides when a worker ends (it closes the pipe, or kills the process group with SIGKILL), never a
    # SIGTERM. A job manager that stops a run signals every process of the job, workers and candidates too
    # (Slurm's scancel, preemption and time limit do): the host then finishes and records the episodes it is
    # running, and a worker or a candidate child killed under them would turn into a crash verdict. Ignored
    # here, and so in every child forked from here.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    channel = Channel()
    import torch  # noqa: F401  (imported once, before any request: this is what keeps the worker warm)
    import triton  # noqa: F401

    # Inputs, references and outputs travel as files of up to gigabytes between the workers of one
    # machine; a CRC32 of every record made a 256 MB save 1.3 to 4 times slower here.
    import torch.utils.serialization

    torch.utils.serialization.config.save.compute_crc32 = False

    if args.role == "reference":
        from .reference import ReferenceRole

        handler: Any = ReferenceRole(args.device)
    else:
        from .candidate import CandidateRole

        handler = CandidateRole(args.device, args.root, args.triton_cache or os.path.join(args.root, "triton-cache"),
                                args.memory_limit_bytes, _turn_socket())

    while True:
        request = channel.receive()
        if request is None or (isinstance(request, dict) and request.get("op") == "exit"):
            if hasattr(handler, "close"):  # the candidate role's spare child
                handler.close()
            return 0
        op = request.get("op") if isinstance(request, dict) else None
        op = op if isinstance(op, str) else ""
        try:
            check_request(request)  # protocol.json: a request it does not describe is answered with why
        except ProtocolError as error:
            channel.send({"ok": False, "error": str(error)}, op)
            continue
        try:
            if op == "hello":
                reply = _hello(args.role, args.device, handler)
            elif op in ("prepare", "compare", "ceilings", "baselines", "release") and args.role == "reference":
                reply = getattr(handler, op)(request)
            elif op == "static_check":  # the source parsed, never run: the candidate worker answers it in parallel
                from .static_checks import answer

                reply = answer(request)
            elif op == "run" and args.role == "candidate":
                reply = handler.run(request)
            else:
                reply = {"ok": False, "error": f"the {args.role} worker has no operation '{op}'"}
        except BaseException as error:
            reply = {"ok": False, "error": "".join(traceback.format_exception_only(type(error), error)).strip(),
                     "traceback": traceback.format_exc()[-4000:]}
            fatal = "CUDA error" in str(error)
            channel.send(reply, op)
            if fatal:  # a sticky CUDA error: the host respawns the worker
                return 3
            continue
        channel.send(reply, op)
        if getattr(handler, "retire", False):  # said in the reply: the host starts a fresh worker
            return 0


if __name__ == "__main__":
    sys.exit(main())
