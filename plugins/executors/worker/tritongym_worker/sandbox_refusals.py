"""The socket module's explanation of a refused connection ("network access is not allowed: connect to
127.0.0.1:8080"); an explanation only, the kernel's mechanisms are the block (sandbox.py puts it together)."""
from __future__ import annotations

import errno
from typing import Any

from .sandbox_seccomp import _SOCK_TYPE_MASK

REFUSAL = "network access is not allowed"


def _address_text(address: Any) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host = str(address[0])
        return f"[{host}]:{address[1]}" if ":" in host else f"{host}:{address[1]}"
    if isinstance(address, (bytes, bytearray)):
        address = bytes(address).decode(errors="replace")
    if isinstance(address, str) and address.startswith("\0"):
        return f"@{address[1:]} (an abstract Unix socket)"
    return repr(address) if not isinstance(address, str) else address


def explain_network_refusals() -> None:
    """Makes the socket module refuse, with a sentence that names the call and its address, what the kernel's
    mechanisms refuse anyway: connect, bind, listen, sendto and sendmsg to an address, a socket() the filter
    refuses, and a name lookup that needs the network. An explanation only: code that bypasses the socket module
    meets the kernel's refusal (EPERM, EACCES, ENETUNREACH) instead of this sentence."""
    import socket

    def refuse(what: str, cause: BaseException | None = None) -> None:
        raise PermissionError(errno.EPERM, f"{REFUSAL}: {what}") from cause

    def family_name(value: Any) -> str:
        try:
            return socket.AddressFamily(value).name
        except ValueError:
            return str(value)

    def kind_name(value: Any) -> str:
        try:
            return socket.SocketKind(value & _SOCK_TYPE_MASK).name
        except ValueError:
            return str(value)

    cls = socket.socket
    original_init = cls.__init__

    def __init__(self: Any, family: int = -1, type: int = -1, proto: int = -1, fileno: Any = None) -> None:
        try:
            original_init(self, family, type, proto, fileno)
        except PermissionError as error:
            refuse(f"socket({family_name(socket.AF_INET if family == -1 else family)}, "
                   f"{kind_name(socket.SOCK_STREAM if type == -1 else type)})", error)

    def with_address(call: str, position: int, verb: str) -> Any:
        def refused(self: Any, *arguments: Any, **keywords: Any) -> Any:
            if len(arguments) > position:
                refuse(f"{verb} {_address_text(arguments[position])}")
            return getattr(super(cls, self), call)(*arguments, **keywords)
        refused.__name__ = call
        return refused

    cls.__init__ = __init__
    cls.connect = with_address("connect", 0, "connect to")
    cls.connect_ex = with_address("connect_ex", 0, "connect to")
    cls.bind = with_address("bind", 0, "bind to")
    cls.sendto = with_address("sendto", 1, "send to")  # sendto(data, address) or sendto(data, flags, address)

    def listen(self: Any, *arguments: Any) -> None:
        refuse("listen on a socket")

    def sendmsg(self: Any, buffers: Any, ancdata: Any = (), flags: int = 0, address: Any = None) -> int:
        if address is not None:
            refuse(f"send to {_address_text(address)}")
        return super(cls, self).sendmsg(buffers, ancdata, flags)

    cls.listen = listen
    cls.sendmsg = sendmsg
    original_lookup = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *arguments: Any, **keywords: Any) -> Any:
        try:
            return original_lookup(host, port, *arguments, **keywords)
        except socket.gaierror as error:  # a name this machine's files do not hold: the lookup needs the network
            refuse(f"name lookup of {host}", error)

    socket.getaddrinfo = getaddrinfo
