"""The MCP SDK's client on kivgraph's server in this process: the server's JSON-RPC lines run over a
pair of pipes on a thread of their own, exactly as over stdio, so a test can patch what it needs."""

import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import TextIOWrapper

import anyio
from mcp.client._transport import TransportStreams
from mcp.server.stdio import stdio_server

from kivgraph.graph.catalog import Catalog
from kivgraph.server import Server
from kivgraph.stdio import Wire


@asynccontextmanager
async def in_process(catalog: Catalog) -> AsyncIterator[TransportStreams]:
    """A transport for `mcp.Client(in_process(catalog))`."""
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    server_in, server_out = os.fdopen(to_server, "rb"), os.fdopen(from_server, "wb")

    def run() -> None:
        try:
            Server(catalog, Wire(server_in, server_out)).run()
        finally:
            server_out.close()
            server_in.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    client_in = anyio.wrap_file(TextIOWrapper(os.fdopen(to_client, "rb"), encoding="utf-8"))
    client_out = anyio.wrap_file(TextIOWrapper(os.fdopen(from_client, "wb"), encoding="utf-8"))
    # The SDK's stdio pump reads and writes JSON-RPC lines; it serves a client as well as a server.
    async with stdio_server(stdin=client_in, stdout=client_out) as streams:
        try:
            yield streams
        finally:
            await client_out.aclose()  # the server reads the end of its input, answers the rest and stops
            await anyio.to_thread.run_sync(thread.join, 30)
    await client_in.aclose()
